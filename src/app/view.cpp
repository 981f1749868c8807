// glsurf view — images as a sequence in a window (or offscreen), with their
// keypoints drawn from the GPU as they are found.
#include "app/cli.hpp"
#include "gl/context.hpp"
#include "gl/error.hpp"
#include "glsurf/geometry.hpp"
#include "io/image.hpp"
#include "io/output.hpp"
#include "match/matcher.hpp"
#include "surf/detector.hpp"
#include "window/viewer.hpp"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <mutex>
#include <new>
#include <thread>

namespace glsurf::app {

namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

// Keys, gathered by the GLFW callback and handled once per frame.
struct Keys {
  bool pause = false, next = false, previous = false, faster = false, slower = false, upright = false,
       screenshot = false, help = false, quit = false, match = false, reference = false;
};

void on_key(GLFWwindow* window, int key, int, int action, int) {
  if (action != GLFW_PRESS) return;
  Keys& k = *static_cast<Keys*>(glfwGetWindowUserPointer(window));
  switch (key) {
    case GLFW_KEY_SPACE:
      k.pause = !k.pause;
      break;
    case GLFW_KEY_N:
      k.next = true;
      break;
    case GLFW_KEY_P:
      k.previous = true;
      break;
    case GLFW_KEY_EQUAL:
    case GLFW_KEY_KP_ADD:
      k.faster = true;
      break;  // + raises the threshold
    case GLFW_KEY_MINUS:
    case GLFW_KEY_KP_SUBTRACT:
      k.slower = true;
      break;
    case GLFW_KEY_U:
      k.upright = true;
      break;
    case GLFW_KEY_S:
      k.screenshot = true;
      break;
    case GLFW_KEY_H:
      k.help = !k.help;
      break;
    case GLFW_KEY_M:
      k.match = !k.match;
      break;
    case GLFW_KEY_R:
      k.reference = true;
      break;
    case GLFW_KEY_Q:
    case GLFW_KEY_ESCAPE:
      k.quit = true;
      break;
    default:
      break;
  }
}

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
  static void read(State& s) {
    try {
      read_frames(s);
    } catch (const std::bad_alloc&) {
      std::lock_guard<std::mutex> lock(s.mutex);
      s.error = "standard input: out of memory for frames of " + std::to_string(s.width) + "x" +
                std::to_string(s.height) + (s.rgb ? " RGB" : "");
    } catch (const std::exception& e) {
      std::lock_guard<std::mutex> lock(s.mutex);
      s.error = std::string("standard input: ") + e.what();
    }
    s.ended = true;
  }

  static void read_frames(State& s) {
    const size_t bytes = static_cast<size_t>(s.width) * s.height * (s.rgb ? 3 : 1);
    std::vector<unsigned char> buffer(bytes);
    while (!s.stop) {
      size_t got = 0;
      while (got < bytes) {
        const size_t n = std::fread(buffer.data() + got, 1, bytes - got, stdin);
        if (n == 0) break;
        got += n;
      }
      if (got < bytes) {
        if (std::ferror(stdin)) {  // a directory, a closed descriptor: not an empty stream
          std::lock_guard<std::mutex> lock(s.mutex);
          s.error = std::string("standard input: read failed (") + std::strerror(errno) + ")";
        } else if (got > 0) {
          std::lock_guard<std::mutex> lock(s.mutex);
          s.error = "standard input: short final frame (" + std::to_string(got) + " of " +
                    std::to_string(bytes) + " bytes; is --raw " + std::to_string(s.width) + "x" +
                    std::to_string(s.height) + " right?)";
        }
        break;
      }
      GrayImage frame(s.width, s.height);
      for (size_t i = 0; i < frame.pixels.size(); ++i) {
        if (s.rgb) {
          const unsigned char* p = &buffer[i * 3];
          frame.pixels[i] = static_cast<std::uint8_t>((4899 * p[0] + 9617 * p[1] + 1868 * p[2] + 8192) >> 14);
        } else {
          frame.pixels[i] = buffer[i];
        }
      }
      while (s.every_frame && !s.stop) {  // wait until the last one was taken
        {
          std::lock_guard<std::mutex> lock(s.mutex);
          if (!s.fresh) break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
      {
        std::lock_guard<std::mutex> lock(s.mutex);
        s.latest = std::move(frame);
        s.latest_number = s.frames + 1;
        s.fresh = true;
      }
      ++s.frames;
    }
  }

  std::shared_ptr<State> state_;
};

}  // namespace

int view(Args args) {
  const bool headless = args.flag("--headless");
  const int frames = args.option_int("--frames", 0, 0, 1 << 30);
  const std::string screenshot = args.option("--screenshot", "");
  if (!screenshot.empty()) check_png_name("--screenshot", screenshot);
  const std::string hud = args.option("--hud", "on");
  if (hud != "on" && hud != "off") throw UsageError("--hud must be on or off, got '" + hud + "'");
  const bool hud_on = hud == "on";
  const bool start_matching = args.flag("--match");
  const MatchConfig match_config = match_options(args);
  DetectorConfig config;
  config.hessian_threshold = args.option_float("--threshold", config.hessian_threshold, 0.0f, 1e12f);
  config.max_features = args.option_int("--max-features", 0, 0, 1 << 20);
  config.upright = args.flag("--upright");
  config.first_step = args.option_int("--sample-step", config.first_step, 1, 8);
  // Kept when u turns upright on: the detector takes it when oriented again.
  const float second_orientation = args.option_float("--second-orientation", 0.0f, 0.0f, 1.0f);
  if (second_orientation > 0 && config.upright) {
    throw UsageError("--second-orientation needs oriented keypoints, not --upright");
  }
  int width = args.option_int("--width", 0, 0, 16384), height = args.option_int("--height", 0, 0, 16384);
  const std::string raw = args.option("--raw", "");
  const LoadOptions load = load_options(args);
  std::string pix = args.option("--pix", "");
  std::vector<std::string> names = args.positionals();
  args.finish();
  if (!screenshot.empty()) check_writable(screenshot);  // before the session, not after it

  std::vector<std::string> files;
  std::vector<GrayImage> images;
  std::vector<bool> from_directory;  // per file: found in a directory, not named
  int skipped = 0;                   // files of a directory that could not be shown
  auto nothing_to_show = [&] {
    std::string where;
    for (const std::string& name : names) where += (where.empty() ? "" : ", ") + name;
    if (!skipped) return Error("no images to show in " + where);
    return Error(skipped == 1
                     ? "the one image in " + where + " could not be shown"
                     : "none of the " + std::to_string(skipped) + " images in " + where + " could be shown");
  };
  if (!pix.empty() && raw.empty()) throw UsageError("--pix describes --raw frames; give --raw WxH too");
  if (pix.empty()) pix = "gray";
  std::unique_ptr<RawStream> stream;
  if (!raw.empty()) {
    int rw = 0, rh = 0;
    char x = 0;
    int used = 0;
    if (std::sscanf(raw.c_str(), "%d%c%d%n", &rw, &x, &rh, &used) != 3 ||
        used != static_cast<int>(raw.size()) || x != 'x' || rw < 1 || rh < 1) {
      throw UsageError("--raw wants WxH, got '" + raw + "'");
    }
    const int most = LoadOptions{}.max_side;  // as image files
    if (rw > most || rh > most)
      throw UsageError("--raw " + raw + ": frames of at most " + std::to_string(most) + " per side");
    if (pix != "gray" && pix != "rgb") throw UsageError("--pix must be gray or rgb");
    if (names.size() != 1 || names[0] != "-")
      throw UsageError("--raw reads standard input: give - as the input");
    const std::string why = image_size_problem(rw, rh, config);
    if (!why.empty()) throw Error("--raw " + raw + ": frames too small: " + why);
    stream = std::make_unique<RawStream>(rw, rh, pix == "rgb", headless);
    files = {"standard input"};
    images.emplace_back(rw, rh, 0);  // shown until the first frame arrives
  } else {
    if (names.empty()) names = {asset_dir()};
    // Every image is loaded first. A bad file named on the command line stops
    // the viewer with one line; one found in a directory is skipped with a
    // warning (and the exit status is 1), so one broken file does not keep
    // the rest of a directory from being shown.
    std::vector<bool> listed;
    const std::vector<std::string> found = expand_image_arguments(names, &listed);
    if (!screenshot.empty()) check_not_an_input("--screenshot", screenshot, found);
    for (size_t i = 0; i < found.size(); ++i) {
      try {
        GrayImage image = load_gray(found[i], load);
        check_image_size(found[i], image, config);
        files.push_back(found[i]);
        images.push_back(std::move(image));
        from_directory.push_back(listed[i]);
      } catch (const Error& e) {
        if (!listed[i]) throw;
        std::fprintf(stderr, "glsurf: warning: %s; skipped\n", one_line(e.what()).c_str());
        ++skipped;
      }
    }
    if (files.empty()) throw nothing_to_show();
  }
  if (headless && frames == 0 && !stream) throw UsageError("--headless needs --frames N (or a --raw stream)");
  // Match mode shows two images side by side: a view for twice the width.
  const int across = start_matching ? 2 : 1;
  const double aspect = static_cast<double>(across) * images.front().width / images.front().height;
  if (width == 0 && height == 0) {
    const ViewSize size = initial_view_size(across * images.front().width, images.front().height);
    width = size.width;
    height = size.height;
  } else if (height == 0) {  // one side given: the other by the first image's aspect
    height = static_cast<int>(std::min(16384.0, std::round(width / aspect)));
  } else if (width == 0) {
    width = static_cast<int>(std::min(16384.0, std::round(height * aspect)));
  }
  // At least a pixel each way, and one per half in match mode (a 2000 x 1
  // image would otherwise ask for a view 0 pixels high).
  width = std::max(width, 2);
  height = std::max(height, 1);

  const auto open_window = [&] {
    try {
      return gl::Context::window(width, height, "glsurf view", true);
    } catch (const Error& e) {
      const std::string what = e.what();
      if (what.rfind("no window system", 0) != 0) throw;
      throw Error(what + "; or run with --headless, or under xvfb-run -a");
    }
  };
  gl::Context context = headless ? gl::Context::headless() : open_window();
  gl::PassRunner runner;
  ViewRenderer renderer(gl::ShaderSource::from_environment());
  // A new detector for the current settings, its passes timed for the HUD.
  auto new_detector = [&] {
    config.second_orientation = config.upright ? 0.0f : second_orientation;
    auto made = std::make_unique<GpuDetector>(context, config);
    made->runner().set_profiling(hud_on);
    return made;
  };
  std::unique_ptr<GpuDetector> detector = new_detector();
  Keys keys;
  keys.match = start_matching;
  std::string stage_times;  // GPU milliseconds per stage, from the runner's timer queries
  // Match mode: the reference frame, its keypoints, and its descriptors on the GPU.
  GpuMatcher matcher(context, match_config);
  gl::Texture reference_texture;
  Features reference;
  DescriptorTextures reference_descriptors, current_descriptors;  // reused frame after frame
  bool have_reference = false;
  matcher.runner().set_profiling(hud_on);
  if (!headless) {
    glfwSetWindowUserPointer(context.glfw_window(), &keys);
    glfwSetKeyCallback(context.glfw_window(), on_key);
    glfwSwapInterval(0);
  }
  size_t current = 0;
  int shown = 0, screenshots = 0, last_matches = 0, last_inliers = 0;
  long stream_frame = 0;  // the number of the stream's frame on screen; 0: none yet (the placeholder)
  std::vector<double> frame_times;
  const Clock::time_point started = Clock::now();
  double fps = 0, detect_ms = 0;
  Clock::time_point last = Clock::now();
  gl::Texture texture;
  const std::string renderer_name = context.info().renderer;
  while (true) {
    bool stepped = false;  // n or p moved to another image this frame
    if (!headless) {
      glfwPollEvents();
      if (glfwWindowShouldClose(context.glfw_window()) || keys.quit) break;
      if (keys.faster || keys.slower || keys.upright) {  // takes effect on this frame
        if (keys.faster) config.hessian_threshold = std::max(1.0f, config.hessian_threshold * 1.25f);
        if (keys.slower) config.hessian_threshold /= 1.25f;
        if (keys.upright) config.upright = !config.upright;
        keys.faster = keys.slower = keys.upright = false;
        detector = new_detector();
        have_reference = false;  // keypoints of another configuration
      }
      if (keys.next) current = (current + 1) % images.size(), keys.next = false, stepped = true;
      if (keys.previous)
        current = (current + images.size() - 1) % images.size(), keys.previous = false, stepped = true;
      int fw = width, fh = height;
      context.framebuffer_size(fw, fh);
      if (fw > 0 && fh > 0)
        width = std::max(fw, 2), height = fh;  // resizing keeps the image's aspect (letterbox)
    }
    if (stream && !keys.pause) {
      // Newest frame if one came; else, once the stream has ended, stop; else
      // draw the last one again (the window never waits for input). Paused,
      // the frame on screen stays (the stream keeps only the newest frame,
      // so the reader does not stall).
      GrayImage frame;
      if (stream->take(frame, stream_frame)) {
        images[0] = std::move(frame);
      } else if (stream->ended()) {
        if (!stream->take(frame, stream_frame)) break;  // a last frame may have come just before the end
        images[0] = std::move(frame);
      } else if (headless) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        continue;
      }
    }
    const GrayImage& image = images[current];
    renderer.resize(width, height);
    Clock::time_point t0;
    std::vector<ViewRenderer::Line> lines;
    int match_count = 0, inlier_count = 0;
    GpuDetector::OnGpu found;
    try {
      if (!texture || texture.width() != image.width || texture.height() != image.height) {
        texture = gl::Texture(image.width, image.height, gl::Format::R8, "view_image");
      }
      texture.upload(image.pixels.data());
      t0 = Clock::now();
      if (keys.match) {
        if (!have_reference || keys.reference) {  // the first frame, or the current one on 'r'
          reference = detector->detect_and_compute(image, &reference_descriptors);
          reference_texture = gl::Texture(image.width, image.height, gl::Format::R8, "view_reference");
          reference_texture.upload(image.pixels.data());
          have_reference = true;
          keys.reference = false;
        }
        const Features current = detector->detect_and_compute(image, &current_descriptors);
        found = detector->last_on_gpu();
        const std::vector<Match> matches = matcher.match(reference_descriptors, current_descriptors);
        std::vector<PointPair> pairs;
        for (const Match& m : matches) {
          const KeyPoint& a = reference.keypoints[static_cast<size_t>(m.query)];
          const KeyPoint& b = current.keypoints[static_cast<size_t>(m.train)];
          pairs.push_back({a.x, a.y, b.x, b.y});
        }
        const HomographyResult h = ransac_homography(pairs);
        match_count = last_matches = static_cast<int>(matches.size());
        inlier_count = last_inliers = h.inlier_count;
        for (size_t i = 0; i < pairs.size(); ++i) {
          const bool in = h.found && h.inliers[i];
          lines.push_back({static_cast<float>(pairs[i].ax),
                           static_cast<float>(pairs[i].ay),
                           static_cast<float>(pairs[i].bx),
                           static_cast<float>(pairs[i].by),
                           {in ? 0.15f : 0.95f, in ? 0.9f : 0.2f, in ? 0.25f : 0.15f, in ? 0.9f : 0.6f}});
        }
        if (h.found) {  // the reference's outline mapped into the current frame
          const double w = reference_texture.width() - 1.0, hh = reference_texture.height() - 1.0;
          const double corners[5][2] = {{0, 0}, {w, 0}, {w, hh}, {0, hh}, {0, 0}};
          for (int c = 0; c < 4; ++c) {
            double x0, y0, x1, y1;
            apply(h.h, corners[c][0], corners[c][1], x0, y0);
            apply(h.h, corners[c + 1][0], corners[c + 1][1], x1, y1);
            lines.push_back({static_cast<float>(x0),
                             static_cast<float>(y0),
                             static_cast<float>(x1),
                             static_cast<float>(y1),
                             {0.25f, 0.55f, 1.0f, 1.0f},
                             true});
          }
        }
      } else {
        found = detector->detect_on_gpu(image);
      }
    } catch (const Error& e) {
      // An image the GPU cannot take (too large for the driver's textures),
      // found only now that there is a context: named, it stops the viewer;
      // found in a directory, it is skipped as an unreadable one is.
      if (stream) throw Error(std::string("standard input: ") + e.what());
      if (!from_directory[current]) throw Error(files[current] + ": " + e.what());
      std::fprintf(stderr, "glsurf: warning: %s: %s; skipped\n", one_line(files[current]).c_str(),
                   one_line(e.what()).c_str());
      ++skipped;
      files.erase(files.begin() + static_cast<std::ptrdiff_t>(current));
      images.erase(images.begin() + static_cast<std::ptrdiff_t>(current));
      from_directory.erase(from_directory.begin() + static_cast<std::ptrdiff_t>(current));
      if (images.empty()) throw nothing_to_show();
      current %= images.size();
      // A failed configure may leave stages sized for the image it refused.
      detector = new_detector();
      have_reference = false;
      continue;
    }
    detect_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    {
      // Per-stage GPU time of this frame; a value longer than the whole
      // detection is a timer artefact (llvmpipe) and is shown as n/a. So is
      // the suppression stage on llvmpipe, whose queries read about 1 ms for
      // passes drawn into the candidate atlas that take about 25 ms at
      // 640 x 480 (docs/notes/llvmpipe.md).
      const bool atlas_timers_under_read = context.info().software();
      constexpr int kStages = 8, kExtrema = 2, kMatcher = 7;
      const char* stages[kStages][2] = {{"integral_", "integral"},     {"hessian_", "hessian"},
                                        {"extrema_", "extrema"},       {"select_", "select"},
                                        {"compact_", "compact"},       {"orientation_", "orientation"},
                                        {"descriptor_", "descriptor"}, {"matcher_", "matcher"}};
      double ms[kStages] = {};
      bool bogus[kStages] = {};
      for (const auto& p : detector->runner().take_profile()) {
        for (int i = 0; i < kStages; ++i) {
          if (p.name.rfind(stages[i][0], 0) == 0) {
            ms[i] += p.milliseconds;
            bogus[i] = bogus[i] || p.milliseconds > detect_ms || (i == kExtrema && atlas_timers_under_read);
          }
        }
      }
      for (const auto& p : matcher.runner().take_profile()) {
        ms[kMatcher] += p.milliseconds;
        bogus[kMatcher] = bogus[kMatcher] || p.milliseconds > detect_ms;
      }
      stage_times = "GPU ms:";
      for (int i = 0; i < kStages; ++i) {
        if (ms[i] == 0 && !bogus[i]) continue;
        char cell[48];
        if (bogus[i]) {
          std::snprintf(cell, sizeof cell, "  %s n/a", stages[i][1]);
        } else {
          std::snprintf(cell, sizeof cell, "  %s %.1f", stages[i][1], ms[i]);
        }
        stage_times += cell;
      }
    }

    std::vector<std::string> hud;
    if (hud_on) {
      char line[256];
      if (stream) {
        std::snprintf(line, sizeof line, "standard input  frame %ld  %dx%d", stream_frame, image.width,
                      image.height);
      } else {
        std::snprintf(line, sizeof line, "%s  (%zu/%zu)  %dx%d", fs::path(files[current]).filename().c_str(),
                      current + 1, files.size(), image.width, image.height);
      }
      hud.emplace_back(line);
      const std::string step =
          config.first_step > 1 ? "   sample step " + std::to_string(config.first_step) : "";
      std::string orientation = config.upright ? "upright" : "oriented";
      if (config.second_orientation > 0) {
        char second[48];
        std::snprintf(second, sizeof second, ", second at %g",
                      static_cast<double>(config.second_orientation));
        orientation += second;
      }
      std::snprintf(line, sizeof line, "%d keypoints   threshold %.0f   %s%s", found.count,
                    config.hessian_threshold, orientation.c_str(), step.c_str());
      hud.emplace_back(line);
      if (keys.match) {
        std::snprintf(line, sizeof line, "match mode: %d matches, %d inliers   %.1f fps   %.1f ms",
                      match_count, inlier_count, fps, detect_ms);
      } else {
        std::snprintf(line, sizeof line, "%.1f fps   detect + orient %.1f ms", fps, detect_ms);
      }
      hud.emplace_back(line);
      hud.emplace_back(stage_times);
      hud.emplace_back(renderer_name);
      if (keys.help) {
        hud.emplace_back("space pause   n/p next/previous   +/- threshold   u upright");
        hud.emplace_back("m match mode   r reference   s screenshot   h help   q/Esc quit");
      }
    }
    if (keys.match) {
      renderer.render_pair(runner, reference_texture, texture, found, lines, hud);
    } else {
      renderer.render(runner, texture, found, hud);
    }
    // The window shows a black placeholder until a stream's first frame
    // comes; it is not a frame for --frames, the screenshot or the count.
    const bool placeholder = stream && stream_frame == 0;
    if (!placeholder) ++shown;
    if (!headless) {
      gl::blit_to_window(renderer.frame(), width, height);
      context.swap_buffers();
    } else {
      gl::finish();
    }
    const Clock::time_point now = Clock::now();
    const double frame_ms = std::chrono::duration<double, std::milli>(now - last).count();
    if (!placeholder) frame_times.push_back(frame_ms);
    last = now;
    fps = running_fps(fps, frame_ms);
    if (!headless) {
      if (keys.screenshot) {
        // The next name not taken: never over a file, an input included. A
        // failed write is a warning; the session goes on.
        std::string name;
        std::error_code error;
        do name = "glsurf_view_" + std::to_string(++screenshots) + ".png";
        while (fs::symlink_status(name, error).type() != fs::file_type::not_found && screenshots < 1000000);
        try {
          renderer.write_png(name);
          std::fprintf(stderr, "screenshot: %s\n", name.c_str());
        } catch (const Error& e) {
          std::fprintf(stderr, "glsurf: warning: screenshot not written: %s\n", one_line(e.what()).c_str());
        }
        keys.screenshot = false;
      }
    }
    if (frames > 0 && shown >= frames) break;
    if (!keys.pause && !stepped) current = (current + 1) % images.size();  // n/p already stepped
  }
  if (!screenshot.empty() && shown > 0) renderer.write_png(screenshot);
  gl::check_gl_errors("viewer");
  const double seconds = std::chrono::duration<double>(Clock::now() - started).count();
  std::vector<double> sorted = frame_times;
  std::sort(sorted.begin(), sorted.end());
  if (shown > 0) {  // with none, the error line below says so
    std::fprintf(stderr, "%d frame%s in %.1f s: %.1f fps, median frame %.1f ms (%s)\n", shown,
                 shown == 1 ? "" : "s", seconds, seconds > 0 ? shown / seconds : 0.0,
                 sorted[sorted.size() / 2], renderer_name.c_str());
  }
  if (keys.match)
    std::fprintf(stderr, "match mode, last frame: %d matches, %d inliers\n", last_matches, last_inliers);
  if (stream && !stream->error().empty()) {
    std::fprintf(stderr, "glsurf: error: %s; ended after %ld frames\n", stream->error().c_str(),
                 stream->frames_read());
    return 1;
  }
  if (stream && stream->ended() && stream->frames_read() == 0) {
    std::fprintf(stderr, "glsurf: error: standard input: no frames (empty input)\n");
    return 1;
  }
  if (skipped) {
    std::fprintf(stderr, "%d of %zu images skipped\n", skipped, files.size() + static_cast<size_t>(skipped));
    return 1;
  }
  return 0;
}

}  // namespace glsurf::app
