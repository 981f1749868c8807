// glsurf view — images as a sequence in a window (or offscreen), with their
// keypoints drawn from the GPU as they are found.
#include "app/cli.hpp"
#include "app/viewer.hpp"
#include "gl/context.hpp"
#include "gl/error.hpp"
#include "gl/gl.hpp"
#include "io/image.hpp"
#include "surf/detector.hpp"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>

namespace glsurf::app {

namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

std::vector<std::string> image_files(const std::vector<std::string>& names) {
  std::vector<std::string> files;
  for (const std::string& name : names) {
    std::error_code ec;
    if (!fs::is_directory(name, ec)) {
      files.push_back(name);
      continue;
    }
    std::vector<std::string> found;
    for (const auto& entry : fs::directory_iterator(name, ec)) {
      std::string ext = entry.path().extension().string();
      std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      if (entry.is_regular_file() && (ext == ".png" || ext == ".jpg" || ext == ".jpeg" || ext == ".pgm" ||
                                      ext == ".ppm" || ext == ".bmp")) {
        found.push_back(entry.path().string());
      }
    }
    std::sort(found.begin(), found.end());
    files.insert(files.end(), found.begin(), found.end());
  }
  return files;
}

// Keys, gathered by the GLFW callback and handled once per frame.
struct Keys {
  bool pause = false, next = false, previous = false, faster = false, slower = false, upright = false,
       screenshot = false, help = false, quit = false;
};

void on_key(GLFWwindow* window, int key, int, int action, int) {
  if (action != GLFW_PRESS) return;
  Keys& k = *static_cast<Keys*>(glfwGetWindowUserPointer(window));
  switch (key) {
    case GLFW_KEY_SPACE: k.pause = !k.pause; break;
    case GLFW_KEY_N: k.next = true; break;
    case GLFW_KEY_P: k.previous = true; break;
    case GLFW_KEY_EQUAL:
    case GLFW_KEY_KP_ADD: k.faster = true; break;  // + raises the threshold
    case GLFW_KEY_MINUS:
    case GLFW_KEY_KP_SUBTRACT: k.slower = true; break;
    case GLFW_KEY_U: k.upright = true; break;
    case GLFW_KEY_S: k.screenshot = true; break;
    case GLFW_KEY_H: k.help = !k.help; break;
    case GLFW_KEY_Q:
    case GLFW_KEY_ESCAPE: k.quit = true; break;
    default: break;
  }
}

}  // namespace

int view(Args args) {
  const bool headless = args.flag("--headless");
  const int frames = args.option_int("--frames", 0, 0, 1 << 30);
  const std::string screenshot = args.option("--screenshot", "");
  const bool hud_on = args.option("--hud", "on") != "off";
  DetectorConfig config;
  config.hessian_threshold = args.option_float("--threshold", config.hessian_threshold, 0.0f, 1e12f);
  config.max_features = args.option_int("--max-features", 0, 0, 1 << 20);
  config.upright = args.flag("--upright");
  int width = args.option_int("--width", 0, 0, 16384), height = args.option_int("--height", 0, 0, 16384);
  std::vector<std::string> names = args.positionals();
  args.finish();
  if (names.empty()) names = {GLSURF_ASSET_DIR};
  const std::vector<std::string> files = image_files(names);
  if (files.empty()) throw Error("no images to show in " + names.front());
  if (headless && frames == 0) throw UsageError("--headless needs --frames N");

  // Load every image first: a bad file stops the viewer with one line.
  std::vector<GrayImage> images;
  for (const std::string& f : files) images.push_back(load_gray(f));
  if (width == 0 || height == 0) {
    width = std::min(images.front().width, 1280);
    height = static_cast<int>(static_cast<long long>(width) * images.front().height / images.front().width);
  }

  gl::Context context = headless ? gl::Context::headless() : gl::Context::window(width, height, "glsurf view", true);
  gl::PassRunner runner;
  ViewRenderer renderer(gl::ShaderSource::from_environment());
  auto detector = std::make_unique<Detector>(context, config);
  Keys keys;
  if (!headless) {
    glfwSetWindowUserPointer(context.glfw_window(), &keys);
    glfwSetKeyCallback(context.glfw_window(), on_key);
    glfwSwapInterval(0);
  }
  size_t current = 0;
  int shown = 0, screenshots = 0;
  std::vector<double> frame_times;
  const Clock::time_point started = Clock::now();
  double fps = 0, detect_ms = 0;
  Clock::time_point last = Clock::now();
  gl::Texture texture;
  const std::string renderer_name = context.info().renderer;
  while (true) {
    if (!headless) {
      glfwPollEvents();
      if (glfwWindowShouldClose(context.glfw_window()) || keys.quit) break;
      if (keys.faster || keys.slower || keys.upright) {  // takes effect on this frame
        if (keys.faster) config.hessian_threshold = std::max(1.0f, config.hessian_threshold * 1.25f);
        if (keys.slower) config.hessian_threshold /= 1.25f;
        if (keys.upright) config.upright = !config.upright;
        keys.faster = keys.slower = keys.upright = false;
        detector = std::make_unique<Detector>(context, config);
      }
      if (keys.next) current = (current + 1) % images.size(), keys.next = false;
      if (keys.previous) current = (current + images.size() - 1) % images.size(), keys.previous = false;
      int fw = width, fh = height;
      context.framebuffer_size(fw, fh);
      if (fw > 0 && fh > 0) width = fw, height = fh;  // resizing keeps the image's aspect (letterbox)
    }
    const GrayImage& image = images[current];
    renderer.resize(width, height);
    if (!texture || texture.width() != image.width || texture.height() != image.height) {
      texture = gl::Texture(image.width, image.height, gl::Format::R8, "view_image");
    }
    texture.upload(image.pixels.data());
    const Clock::time_point t0 = Clock::now();
    const Detector::OnGpu found = detector->detect_on_gpu(image);
    detect_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();

    std::vector<std::string> hud;
    if (hud_on) {
      char line[256];
      std::snprintf(line, sizeof line, "%s  (%zu/%zu)  %dx%d", fs::path(files[current]).filename().c_str(),
                    current + 1, files.size(), image.width, image.height);
      hud.emplace_back(line);
      std::snprintf(line, sizeof line, "%d keypoints   threshold %.0f   %s", found.count, config.hessian_threshold,
                    config.upright ? "upright" : "oriented");
      hud.emplace_back(line);
      std::snprintf(line, sizeof line, "%.1f fps   detect + orient %.1f ms", fps, detect_ms);
      hud.emplace_back(line);
      hud.emplace_back(renderer_name);
      if (keys.help) {
        hud.emplace_back("space pause   n/p next/previous   +/- threshold   u upright");
        hud.emplace_back("s screenshot   h help   q/Esc quit");
      }
    }
    renderer.render(runner, texture, found, hud);
    ++shown;
    if (!headless) {
      gl::blit_to_window(renderer.frame(), width, height);
      context.swap_buffers();
    } else {
      glFinish();
    }
    const Clock::time_point now = Clock::now();
    const double frame_ms = std::chrono::duration<double, std::milli>(now - last).count();
    frame_times.push_back(frame_ms);
    last = now;
    fps = frame_ms > 0 ? 0.9 * fps + 0.1 * (1000.0 / frame_ms) : fps;
    if (!headless) {
      if (keys.screenshot) {
        renderer.write_png("glsurf_view_" + std::to_string(++screenshots) + ".png");
        keys.screenshot = false;
      }
    }
    if (frames > 0 && shown >= frames) break;
    if (!keys.pause) current = (current + 1) % images.size();
  }
  if (!screenshot.empty()) renderer.write_png(screenshot);
  gl::check_gl_errors("viewer");
  const double seconds = std::chrono::duration<double>(Clock::now() - started).count();
  std::vector<double> sorted = frame_times;
  std::sort(sorted.begin(), sorted.end());
  std::fprintf(stderr, "%d frames in %.1f s: %.1f fps, median frame %.1f ms (%s)\n", shown, seconds,
               seconds > 0 ? shown / seconds : 0.0, sorted.empty() ? 0.0 : sorted[sorted.size() / 2],
               renderer_name.c_str());
  return 0;
}

}  // namespace glsurf::app
