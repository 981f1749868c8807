// libFuzzer targets for the readers of files glsurf takes from users (docs/reference.md:
// Fuzzing). This file is built once per target, with one of these defined:
//
//   GLSURF_FUZZ_IMAGE       load_gray (PNG, JPEG, BMP, TGA, PGM/PPM by content)
//   GLSURF_FUZZ_PIPED_IMAGE load_gray of a pipe (read into memory as its header
//                           says), fed by a thread in pieces of 1 to 8,191
//                           bytes: short reads, and inputs larger than a
//                           pipe's buffer
//   GLSURF_FUZZ_FEATURES    read_features_file (txt and bin)
//   GLSURF_FUZZ_HOMOGRAPHY  read_homography_file (Oxford text, OpenCV XML/YAML)
//   GLSURF_FUZZ_JPEG_FRAME  check_jpeg_to_frame (a piped JPEG's first part)
//   GLSURF_FUZZ_EXIF        jpeg_exif_orientation and jpeg_exif_focal_pixels
//                           of a JPEG's start, or of a TIFF block (any input
//                           not starting with SOI) put in an EXIF APP1
//                           segment; the focal length must be finite, >= 0
//
// A reader may refuse its input only by throwing glsurf::Error. A crash, a
// sanitizer report, a time-out or any other exception is a finding.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "gl/error.hpp"
#include "glsurf/geometry.hpp"
#include "io/exif.hpp"
#include "io/features.hpp"
#include "io/image.hpp"
#include "io/jpeg_check.hpp"

namespace {

// The readers take a path: each input is written to this file first.
[[maybe_unused]] const std::string& input_path() {
  static const std::string path =
      (std::filesystem::temp_directory_path() / ("glsurf_fuzz_" + std::to_string(::getpid()))).string();
  return path;
}

[[maybe_unused]] glsurf::LoadOptions small_limits() {
  glsurf::LoadOptions limits;
  limits.max_pixels = 4 << 20;  // a 4-megapixel picture at most: a small input stays fast
  return limits;
}

void read_input(const std::uint8_t* data, size_t size) {
#if defined(GLSURF_FUZZ_JPEG_FRAME)
  glsurf::check_jpeg_to_frame("input", data, size, [](int, int) {});
#elif defined(GLSURF_FUZZ_EXIF)
  std::string jpeg(reinterpret_cast<const char*>(data), size);
  if (!(size >= 2 && data[0] == 0xFF && data[1] == 0xD8)) {
    if (size > 65535 - 8) return;    // more than an APP1 segment holds
    const size_t length = size + 8;  // the length field, "Exif\0\0" and the block
    jpeg = std::string("\xff\xd8\xff\xe1", 4) + static_cast<char>(length >> 8) +
           static_cast<char>(length & 255) + std::string("Exif\0\0", 6) + jpeg;
  }
  // An exact-size copy: a read past its end is a sanitizer report.
  const std::vector<unsigned char> exact(jpeg.begin(), jpeg.end());
  const int orientation = glsurf::jpeg_exif_orientation(exact.data(), exact.size());
  if (orientation < 1 || orientation > 8) std::abort();
  for (const auto& [width, height] : {std::pair{4000, 3000}, std::pair{1, 65535}, std::pair{0, 10}}) {
    const double focal = glsurf::jpeg_exif_focal_pixels(exact.data(), exact.size(), width, height);
    if (!std::isfinite(focal) || focal < 0) std::abort();
  }
#elif defined(GLSURF_FUZZ_PIPED_IMAGE)
  // A reader that stops early closes its end, which ends a writer blocked
  // on a full pipe with EPIPE (SIGPIPE ignored) rather than a signal.
  static const bool sigpipe_ignored = [] {
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    return ::sigaction(SIGPIPE, &ignore, nullptr) == 0;
  }();
  int ends[2];
  if (!sigpipe_ignored || ::pipe(ends) != 0) return;
  struct Finish {  // closes the read end, then waits for the writer; also when load_gray throws
    int read_end, write_end;
    std::thread writer;
    ~Finish() {
      ::close(read_end);
      if (writer.joinable()) {
        writer.join();
      } else {
        ::close(write_end);  // the thread never started
      }
    }
  } finish{ends[0], ends[1], {}};
  finish.writer = std::thread([&] {
    size_t at = 0;
    for (size_t piece = 1; at < size; piece = piece * 3 % 8191 + 1) {  // 1, 4, 13, 40, ... bytes
      const ssize_t n = ::write(ends[1], data + at, std::min(piece, size - at));
      if (n < 0 && errno == EINTR) continue;  // libFuzzer's alarm interrupts without restarting
      if (n <= 0) break;
      at += static_cast<size_t>(n);
    }
    ::close(ends[1]);
  });
  glsurf::load_gray("/dev/fd/" + std::to_string(ends[0]), small_limits());
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
