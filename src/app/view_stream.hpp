// glsurf view's raw frames from standard input (--raw WxH -).
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "io/image.hpp"

namespace glsurf::app {

// Raw frames from standard input, read on their own thread so that the window
// never waits for input: the newest complete frame is taken when the viewer
// is ready for one (older ones are dropped). With `every_frame` (headless
// runs) the reader waits instead, so that no frame is skipped.
class RawStream {
 public:
  RawStream(int width, int height, bool rgb, bool every_frame) : state_(std::make_shared<State>()) {
    state_->width = width;
    state_->height = height;
    state_->rgb = rgb;
    state_->every_frame = every_frame;
    // Detached at once, with its own reference to the state: a blocked read of
    // stdin cannot be interrupted, so the thread may outlive this object.
    std::thread([state = state_] { read(*state); }).detach();
  }
  ~RawStream() { state_->stop = true; }
  // A new frame if one arrived since the last call, and its number in the
  // stream (1 for the first).
  bool take(GrayImage& frame, long& number) {
    std::lock_guard<std::mutex> lock(state_->mutex);
    if (!state_->fresh) return false;
    frame = std::move(state_->latest);
    number = state_->latest_number;
    state_->fresh = false;
    return true;
  }
  bool ended() const { return state_->ended; }
  std::string error() const {
    std::lock_guard<std::mutex> lock(state_->mutex);
    return state_->error;
  }
  long frames_read() const { return state_->frames; }

 private:
  struct State {
    int width = 0, height = 0;
    bool rgb = false, every_frame = false;
    std::mutex mutex;  // guards latest, latest_number, fresh, error
    GrayImage latest;
    long latest_number = 0;
    bool fresh = false;
    std::string error;
    std::atomic<bool> stop{false}, ended{false};
    std::atomic<long> frames{0};
  };

  // Reads frames until the stream ends, fails or is stopped. Nothing may
  // escape a detached thread (it would end the process): a frame too large
  // for memory, or any other failure, becomes the stream's error.
  static void read(State& s);
  static void read_frames(State& s);

  std::shared_ptr<State> state_;
};

}  // namespace glsurf::app
