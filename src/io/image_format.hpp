// The image formats that glsurf reads itself or checks before stb_image
// decodes them (io/image.cpp): binary PNM (io/pnm.cpp) and PNG's checksums
// (io/png_check.cpp), and the helpers they share.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

#include "glsurf/image.hpp"
#include "glsurf/types.hpp"

namespace glsurf::image_format {

// ITU-R BT.601 weights in OpenCV's fixed point, rounded (see image.hpp).
inline std::uint8_t bt601_gray(unsigned r, unsigned g, unsigned b) {
  return static_cast<std::uint8_t>((4899 * r + 9617 * g + 1868 * b + 8192) >> 14);
}

inline void check_size_limits(const std::string& path, long long w, long long h, const LoadOptions& limits) {
  if (w > limits.max_side || h > limits.max_side || w * h > limits.max_pixels) {
    throw Error(path + ": image of " + std::to_string(w) + "x" + std::to_string(h) +
                " exceeds the limit of " + std::to_string(limits.max_side) + " per side / " +
                std::to_string(limits.max_pixels) + " pixels");
  }
}

[[noreturn]] inline void throw_truncated(const std::string& path, long long expected, long long found) {
  throw Error(path + ": truncated image data (expected " + std::to_string(expected) +
              " bytes of pixels, found " + std::to_string(found) + ")");
}

struct PnmHeader {
  long long width = 0, height = 0, maxval = 0;
  long long pixel_bytes(int channels) const { return width * height * channels * (maxval < 256 ? 1 : 2); }
};

// Reads a binary PNM header (P5 or P6, already read) up to and including the
// single whitespace byte before the pixels; checks the maxval and the size
// limits.
PnmHeader read_pnm_header(FILE* file, const std::string& path, const LoadOptions& limits);
// The grey image of a binary PNM of 1 (P5) or 3 (P6) channels, its magic
// number already read.
// With `colour` not null, also the samples as 8-bit RGB (grey repeated for P5), 3 bytes a pixel.
GrayImage load_binary_pnm(const std::string& path, FILE* file, int channels, const LoadOptions& limits,
                          std::vector<std::uint8_t>* colour = nullptr);

unsigned read_be32(const unsigned char* p);
bool is_png(const unsigned char* head, size_t size);
// `file` holds a PNG (is_png): checks every critical chunk's CRC-32 and the
// pixel data's Adler-32; throws glsurf::Error naming the file. The file is
// rewound afterwards.
void check_png_chunks(const std::string& path, FILE* file);

}  // namespace glsurf::image_format
