// libFuzzer targets for the readers of files glsurf takes from users (README:
// Fuzzing). This file is built once per target, with one of these defined:
//
//   GLSURF_FUZZ_IMAGE       load_gray (PNG, JPEG, BMP, TGA, PGM/PPM by content)
//   GLSURF_FUZZ_PIPED_IMAGE load_gray of a pipe (read into memory as its header
//                           says); inputs over 64 KiB, more than a pipe's
//                           buffer holds without a reader, are skipped
//   GLSURF_FUZZ_FEATURES    read_features_file (txt and bin)
//   GLSURF_FUZZ_HOMOGRAPHY  read_homography_file (Oxford text, OpenCV XML/YAML)
//   GLSURF_FUZZ_JPEG_FRAME  check_jpeg_to_frame (a piped JPEG's first part)
//
// A reader may refuse its input only by throwing glsurf::Error. A crash, a
// sanitizer report, a time-out or any other exception is a finding.
#include "gl/error.hpp"
#include "io/features.hpp"
#include "io/image.hpp"
#include "io/jpeg_check.hpp"
#include "match/homography.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

namespace {

// The readers take a path: each input is written to this file first.
[[maybe_unused]] const std::string& input_path() {
  static const std::string path =
      (std::filesystem::temp_directory_path() / ("glsurf_fuzz_" + std::to_string(::getpid()))).string();
  return path;
}

[[maybe_unused]] glsurf::LoadLimits small_limits() {
  glsurf::LoadLimits limits;
  limits.max_pixels = 4 << 20;  // a 4-megapixel picture at most: a small input stays fast
  return limits;
}

void read_input(const std::uint8_t* data, size_t size) {
#if defined(GLSURF_FUZZ_JPEG_FRAME)
  glsurf::check_jpeg_to_frame("input", data, size, [](int, int) {});
#elif defined(GLSURF_FUZZ_PIPED_IMAGE)
  if (size > 65536) return;  // Linux's pipe buffer: written whole before the read
  int ends[2];
  if (::pipe2(ends, O_NONBLOCK) != 0) return;  // a smaller buffer fails the write rather than waits
  const bool written = ::write(ends[1], data, size) == static_cast<ssize_t>(size);
  ::close(ends[1]);
  struct Close {
    int fd;
    ~Close() { ::close(fd); }
  } reader{ends[0]};
  if (written) glsurf::load_gray("/dev/fd/" + std::to_string(ends[0]), small_limits());
#else
  {
    std::ofstream out(input_path(), std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
#if defined(GLSURF_FUZZ_IMAGE)
  glsurf::load_gray(input_path(), small_limits());
#elif defined(GLSURF_FUZZ_FEATURES)
  glsurf::read_features_file(input_path());
#elif defined(GLSURF_FUZZ_HOMOGRAPHY)
  glsurf::read_homography_file(input_path());
#else
#error "define one of the GLSURF_FUZZ_ names above"
#endif
#endif
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, size_t size) {
  try {
    read_input(data, size);
  } catch (const glsurf::Error&) {
  }
  return 0;
}
