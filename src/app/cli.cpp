// Shared pieces of the glsurf command line: the bundled images, the
// context, checks on inputs and outputs, image arguments.
#include "app/cli.hpp"

#include <strings.h>

#include <filesystem>

#include "cpu/descriptor.hpp"
#include "gl/context.hpp"
#include "gl/error.hpp"
#include "io/image.hpp"
#include "io/output.hpp"
#include "surf/detector.hpp"
#include "surf/tiles.hpp"

namespace glsurf::app {

std::string asset_dir() {
  namespace fs = std::filesystem;
  static const std::string dir = [] {
    // Beside an installed glsurf: GLSURF_INSTALLED_ASSETS from its bin
    // directory (../share/glsurf/assets by default). A glsurf run from its
    // build tree uses the source tree's even if an install lies beside it.
    std::error_code ec, unknown;
    const fs::path bin = fs::read_symlink("/proc/self/exe", ec).parent_path();
    if (ec || fs::equivalent(bin, GLSURF_BUILD_DIR, unknown)) return std::string(GLSURF_ASSET_DIR);
    const fs::path installed = (bin / GLSURF_INSTALLED_ASSETS).lexically_normal();
    return fs::is_directory(installed, ec) ? installed.string() : std::string(GLSURF_ASSET_DIR);
  }();
  return dir;
}

gl::Context headless_or_hint() {
  try {
    return gl::Context::headless();
  } catch (const Error& e) {
    throw Error(std::string(e.what()) + "; or run with --backend cpu");
  }
}

void check_image_size(const std::string& name, const GrayImage& image, const DetectorConfig& config,
                      const Tiling& tiling, const GpuDetector* detector) {
  try {
    if (const std::string why = image_size_problem(image.width, image.height, config); !why.empty())
      throw Error(why);
    tile_side(detector, config, tiling, image.width, image.height);
  } catch (const Error& e) {
    throw Error(name + ": " + e.what());
  }
}

Features describe_file(GpuDetector* detector, const DetectorConfig& config, const Tiling& tiling,
                       const GrayImage& image, const std::string& path, DescriptorTextures* resident,
                       int* tiles, int side) {
  TiledDetection detection;
  try {
    detection = detect_and_compute_tiled(detector, config, tiling, image, resident, side);
  } catch (const Error& e) {
    if (std::string(e.what()).rfind(path + ":", 0) == 0) throw;
    throw Error(path + ": " + e.what());
  }
  if (detection.truncated) {
    const bool tiled = detection.tiles > 1;
    std::fprintf(stderr,
                 "glsurf: warning: %s: more keypoints than the point list holds%s; kept the %zu strongest%s "
                 "(raise --threshold or set --max-features)\n",
                 one_line(path).c_str(), tiled ? " in a tile" : "", detection.features.keypoints.size(),
                 tiled ? " of the tiles' lists" : "");
  }
  if (tiles) *tiles = detection.tiles;
  return std::move(detection.features);
}

void check_not_an_input(const std::string& option, const std::string& output,
                        const std::vector<std::string>& inputs) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(output, error)) return;
  for (const std::string& input : inputs) {
    if (!input.empty() && std::filesystem::equivalent(output, input, error) && !error) {
      throw UsageError(option + " " + output + " would overwrite the input " + input);
    }
  }
}

void check_png_name(const std::string& option, const std::string& path) {
  const std::string ext = std::filesystem::path(path).extension().string();
  if (!ext.empty() && strcasecmp(ext.c_str(), ".png") != 0) {
    throw UsageError(option + " writes PNG: name it .png, not '" + path + "'");
  }
}

std::vector<std::string> expand_image_arguments(const std::vector<std::string>& names,
                                                std::vector<bool>* listed,
                                                std::vector<std::string>* empty_directories) {
  std::vector<std::string> files, empty;
  for (const std::string& name : names) {
    std::error_code ec;
    if (!std::filesystem::is_directory(name, ec)) {
      files.push_back(input_path(name));
      if (listed) listed->push_back(false);
      continue;
    }
    const std::vector<std::string> found = images_in_directory(name);
    if (found.empty()) empty.push_back(name);
    files.insert(files.end(), found.begin(), found.end());
    if (listed) listed->insert(listed->end(), found.size(), true);
  }
  if (empty_directories) {
    *empty_directories = empty;
  } else if (!files.empty()) {  // with nothing at all to read the caller's error says so, in one line
    for (const std::string& name : empty)
      std::fprintf(stderr, "glsurf: warning: %s: no images in this directory\n", one_line(name).c_str());
  }
  return files;
}

}  // namespace glsurf::app
