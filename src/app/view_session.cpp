#include "app/view_session.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <thread>

#include "app/cli.hpp"
#include "app/view_frame.hpp"
#include "app/view_keys.hpp"
#include "gl/context.hpp"
#include "gl/pass.hpp"
#include "gl/texture.hpp"
#include "match/matcher.hpp"
#include "surf/detector.hpp"
#include "window/viewer.hpp"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

namespace glsurf::app {

namespace fs = std::filesystem;

namespace {

gl::Context open_context(const ViewOptions& o) {
  if (o.headless) return gl::Context::headless();
  try {
    return gl::Context::window(o.width, o.height, "glsurf view", true);
  } catch (const Error& e) {
    const std::string what = e.what();
    if (what.rfind("no window system", 0) != 0) throw;
    throw Error(what + "; or run with --headless, or under xvfb-run -a");
  }
}

}  // namespace

ViewSession::ViewSession(ViewOptions& options, ViewInputs& inputs)
    : o_(options),
      in_(inputs),
      context_(open_context(options)),
      renderer_(gl::ShaderSource::from_environment()),
      detector_(new_detector()),
      matcher_(context_, options.matcher),
      renderer_name_(context_.info().renderer) {
  keys_.match = o_.start_matching;
  matcher_.runner().set_profiling(o_.hud);
  if (!o_.headless) {
    gather_keys(context_.glfw_window(), keys_);
    glfwSwapInterval(0);
  }
}

// A new detector for the current settings, its passes timed for the HUD.
std::unique_ptr<GpuDetector> ViewSession::new_detector() {
  DetectorConfig& config = o_.detector;
  if (o_.sift) {
    o_.sift_config.max_features = config.max_features;
    sift_ = std::make_unique<sift::GpuSift>(context_, o_.sift_config);
    sift_->runner().set_profiling(o_.hud);
  }
  config.second_orientation = config.upright ? 0.0f : o_.second_orientation;
  auto made = std::make_unique<GpuDetector>(context_, config);
  made->runner().set_profiling(o_.hud);
  return made;
}

// The window's events and keys; false once it is to close.
bool ViewSession::poll(bool& stepped) {
  glfwPollEvents();
  if (glfwWindowShouldClose(context_.glfw_window()) || keys_.quit) return false;
  DetectorConfig& config = o_.detector;
  if (keys_.faster || keys_.slower || keys_.upright || keys_.strongest) {  // takes effect on this frame
    float& threshold = o_.sift ? o_.sift_config.contrast_threshold : config.hessian_threshold;
    if (keys_.faster) threshold = o_.sift ? threshold * 1.25f : std::max(1.0f, threshold * 1.25f);
    if (keys_.slower) threshold /= 1.25f;
    if (keys_.upright && !o_.sift) config.upright = !config.upright;
    if (keys_.strongest) config.max_features = next_strongest(config.max_features);
    keys_.faster = keys_.slower = keys_.upright = keys_.strongest = false;
    detector_ = new_detector();
    have_reference_ = false;  // keypoints of another configuration
  }
  const size_t n = in_.images.size();
  if (keys_.next) current_ = (current_ + 1) % n, keys_.next = false, stepped = true;
  if (keys_.previous) current_ = (current_ + n - 1) % n, keys_.previous = false, stepped = true;
  int fw = o_.width, fh = o_.height;
  context_.framebuffer_size(fw, fh);
  if (fw > 0 && fh > 0)
    o_.width = std::max(fw, 2), o_.height = fh;  // resizing keeps the image's aspect (letterbox)
  return true;
}

// Newest frame if one came; else, once the stream has ended, stop; else
// draw the last one again (the window never waits for input). Paused, the
// frame on screen stays (the stream keeps only the newest frame, so the
// reader does not stall).
ViewSession::Step ViewSession::next_stream_frame() {
  GrayImage frame;
  if (in_.stream->take(frame, stream_frame_)) {
    in_.images[0] = std::move(frame);
  } else if (in_.stream->ended()) {
    if (!in_.stream->take(frame, stream_frame_))
      return Step::Stop;  // a last frame may have come just before the end
    in_.images[0] = std::move(frame);
  } else if (o_.headless) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return Step::Wait;
  }
  return Step::Show;
}

// Draws the frame, shows it (or finishes it, headless), and keeps the time.
void ViewSession::present(const GrayImage& image, const ViewFrame& frame) {
  // GPU milliseconds per stage, from the runners' timer queries.
  const std::string stages = sift_
                                 ? sift_stage_times(*sift_, matcher_, detect_ms_)
                                 : stage_times(*detector_, matcher_, detect_ms_, context_.info().software());
  std::vector<std::string> hud;
  if (o_.hud) {
    HudState state{in_.stream ? "" : fs::path(in_.files[current_]).filename().string(),
                   current_,
                   in_.files.size(),
                   in_.stream != nullptr,
                   stream_frame_,
                   keys_.match,
                   keys_.help,
                   fps_,
                   detect_ms_,
                   stages,
                   renderer_name_};
    hud = hud_text(state, image, o_.detector, frame, o_.sift ? &o_.sift_config : nullptr);
  }
  if (keys_.match) {
    renderer_.render_pair(runner_, reference_texture_, texture_, frame.found, frame.lines, hud);
  } else {
    renderer_.render(runner_, texture_, frame.found, hud);
  }
  // The window shows a black placeholder until a stream's first frame
  // comes; it is not a frame for --frames, the screenshot or the count.
  const bool placeholder = in_.stream && stream_frame_ == 0;
  if (!placeholder) ++shown_;
  if (!o_.headless) {
    gl::blit_to_window(renderer_.frame(), o_.width, o_.height);
    context_.swap_buffers();
  } else {
    gl::finish();
  }
  const Clock::time_point now = Clock::now();
  const double frame_ms = std::chrono::duration<double, std::milli>(now - last_).count();
  if (!placeholder) frame_times_.push_back(frame_ms);
  last_ = now;
  fps_ = running_fps(fps_, frame_ms);
  if (!o_.headless && keys_.screenshot) save_screenshot();
}

// The next name not taken: never over a file, an input included. A failed
// write is a warning; the session goes on.
void ViewSession::save_screenshot() {
  std::string name;
  std::error_code error;
  do name = "glsurf_view_" + std::to_string(++screenshots_) + ".png";
  while (fs::symlink_status(name, error).type() != fs::file_type::not_found && screenshots_ < 1000000);
  try {
    renderer_.write_png(name);
    std::fprintf(stderr, "screenshot: %s\n", name.c_str());
  } catch (const Error& e) {
    std::fprintf(stderr, "glsurf: warning: screenshot not written: %s\n", one_line(e.what()).c_str());
  }
  keys_.screenshot = false;
}

int ViewSession::run() {
  while (true) {
    bool stepped = false;  // n or p moved to another image this frame
    if (!o_.headless && !poll(stepped)) break;
    if (in_.stream && !keys_.pause) {
      const Step step = next_stream_frame();
      if (step == Step::Stop) break;
      if (step == Step::Wait) continue;
    }
    const GrayImage& image = in_.images[current_];
    renderer_.resize(o_.width, o_.height);
    ViewFrame frame;
    if (!find(image, frame)) continue;
    present(image, frame);
    if (o_.frames > 0 && shown_ >= o_.frames) break;
    if (!keys_.pause && !stepped) current_ = (current_ + 1) % in_.images.size();  // n/p already stepped
  }
  if (!o_.screenshot.empty() && shown_ > 0) renderer_.write_png(o_.screenshot);
  gl::check_gl_errors("viewer");
  return report();
}

int ViewSession::report() const {
  const double seconds = std::chrono::duration<double>(Clock::now() - started_).count();
  std::vector<double> sorted = frame_times_;
  std::sort(sorted.begin(), sorted.end());
  if (shown_ > 0) {  // with none, the error line below says so
    std::fprintf(stderr, "%d frame%s in %.1f s: %.1f fps, median frame %.1f ms (%s)\n", shown_,
                 shown_ == 1 ? "" : "s", seconds, seconds > 0 ? shown_ / seconds : 0.0,
                 sorted[sorted.size() / 2], renderer_name_.c_str());
  }
  if (keys_.match)
    std::fprintf(stderr, "match mode, last frame: %d matches, %d inliers\n", last_matches_, last_inliers_);
  if (in_.stream && !in_.stream->error().empty()) {
    std::fprintf(stderr, "glsurf: error: %s; ended after %ld frames\n", in_.stream->error().c_str(),
                 in_.stream->frames_read());
    return 1;
  }
  if (in_.stream && in_.stream->ended() && in_.stream->frames_read() == 0) {
    std::fprintf(stderr, "glsurf: error: standard input: no frames (empty input)\n");
    return 1;
  }
  if (in_.skipped) {
    std::fprintf(stderr, "%d of %zu images skipped\n", in_.skipped,
                 in_.files.size() + static_cast<size_t>(in_.skipped));
    return 1;
  }
  return 0;
}

int run_view_session(ViewOptions& options, ViewInputs& inputs) {
  ViewSession session(options, inputs);
  return session.run();
}

GpuDetector::OnGpu ViewSession::upload_sift(const std::vector<KeyPoint>& keypoints) {
  constexpr int kWidth = CompactStage::kListWidth;
  const int n = static_cast<int>(keypoints.size());
  const int rows = std::max(1, (n + kWidth - 1) / kWidth);
  if (sift_list_.height() < rows) {
    sift_list_ = gl::Texture(kWidth, rows, gl::Format::RGBA32F, "view_sift_list");
    sift_angles_ = gl::Texture(kWidth, rows, gl::Format::R32F, "view_sift_angles");
  }
  // The point list's layout (surf/compact.hpp): x, y, size * laplacian, response; angles apart.
  const size_t texels = static_cast<size_t>(kWidth) * static_cast<size_t>(sift_list_.height());
  std::vector<float> list(4 * texels, 0.0f), angles(texels, 0.0f);
  for (size_t i = 0; i < keypoints.size(); ++i) {
    const KeyPoint& k = keypoints[i];
    list[4 * i] = k.x, list[4 * i + 1] = k.y;
    list[4 * i + 2] = k.laplacian < 0 ? -k.size : k.size, list[4 * i + 3] = k.response;
    angles[i] = k.angle;
  }
  sift_list_.upload(list.data());
  sift_angles_.upload(angles.data());
  return {&sift_list_, &sift_angles_, n, nullptr};
}

}  // namespace glsurf::app
