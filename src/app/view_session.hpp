// glsurf view's session: the window (or offscreen frame) showing the images
// one after another with their keypoints, found on the GPU frame by frame.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "app/view_frame.hpp"
#include "app/view_keys.hpp"
#include "app/view_stream.hpp"
#include "gl/context.hpp"
#include "gl/error.hpp"
#include "gl/pass.hpp"
#include "gl/texture.hpp"
#include "io/image.hpp"
#include "match/matcher.hpp"
#include "match/types.hpp"
#include "sift/detector.hpp"
#include "surf/detector.hpp"
#include "surf/keypoint.hpp"
#include "window/viewer.hpp"

namespace glsurf::app {

// What the command line asks for.
struct ViewOptions {
  bool headless = false;
  int frames = 0;  // stop after this many (0: when the window closes, or a stream ends)
  std::string screenshot;
  bool hud = true;
  bool start_matching = false;
  MatchConfig matcher;
  DetectorConfig detector;
  bool sift = false;  // --features sift: SiftConfig below, SURF's detector unused
  SiftConfig sift_config;
  float second_orientation = 0;  // kept when u turns upright on: taken again when oriented
  int width = 0, height = 0;     // the view's size (0: from the first image)
  std::string raw, pix;
  LoadOptions load;
  std::vector<std::string> names;
};

// What the session shows: the images (a stream's latest frame as the only
// one), their names, and whether each came from a directory (then one the
// GPU cannot take is skipped, not an error).
struct ViewInputs {
  std::vector<std::string> files;
  std::vector<GrayImage> images;
  std::vector<bool> from_directory;
  int skipped = 0;  // files of a directory that could not be shown
  std::unique_ptr<RawStream> stream;
  std::vector<std::string> names;  // as given, for the error when none is left
  // The error when no image is left to show.
  Error nothing_to_show() const;
};

// A session, from the window's opening (or the offscreen context's) to the
// report: frame after frame, the next image's keypoints (and matches, in
// match mode) found and drawn, the keys handled. Methods of the frame's
// work are in view_frame.cpp.
class ViewSession {
 public:
  ViewSession(ViewOptions& options, ViewInputs& inputs);
  int run();  // the exit status

 private:
  using Clock = std::chrono::steady_clock;
  enum class Step { Show, Wait, Stop };
  std::unique_ptr<GpuDetector> new_detector();
  bool poll(bool& stepped);
  Step next_stream_frame();
  bool find(const GrayImage& image, ViewFrame& frame);
  void match(const GrayImage& image, ViewFrame& frame);
  void present(const GrayImage& image, const ViewFrame& frame);
  void save_screenshot();
  int report() const;

  ViewOptions& o_;
  ViewInputs& in_;
  gl::Context context_;
  gl::PassRunner runner_;
  ViewRenderer renderer_;
  // --features sift: the detector (made by new_detector(), so declared
  // before detector_), and its keypoints uploaded in the point list's
  // layout for the renderer.
  std::unique_ptr<sift::GpuSift> sift_;
  gl::Texture sift_list_, sift_angles_;
  GpuDetector::OnGpu upload_sift(const std::vector<KeyPoint>& keypoints);
  std::unique_ptr<GpuDetector> detector_;
  Keys keys_;
  // Match mode: the reference frame, its keypoints, and its descriptors on the GPU.
  GpuMatcher matcher_;
  gl::Texture reference_texture_;
  Features reference_;
  DescriptorTextures reference_descriptors_, current_descriptors_;  // reused frame after frame
  bool have_reference_ = false;
  size_t current_ = 0;
  int shown_ = 0, screenshots_ = 0, last_matches_ = 0, last_inliers_ = 0;
  long stream_frame_ = 0;  // the number of the stream's frame on screen; 0: none yet (the placeholder)
  std::vector<double> frame_times_;
  const Clock::time_point started_ = Clock::now();
  double fps_ = 0, detect_ms_ = 0;
  Clock::time_point last_ = Clock::now();
  gl::Texture texture_;
  const std::string renderer_name_;
};

// Runs the session to its end; returns the exit status (1 when images were
// skipped or a stream failed).
int run_view_session(ViewOptions& options, ViewInputs& inputs);

}  // namespace glsurf::app
