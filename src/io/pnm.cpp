// Binary PNM (P5, P6), read by glsurf itself rather than by stb_image, which
// pads a short file with zeros and does not rescale samples whose maxval is
// not 255 or 65535.
#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "io/image_format.hpp"

namespace glsurf::image_format {

namespace {

bool is_pnm_space(int c) { return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'; }

// Skips whitespace and '#' comments (to the end of the line), then reads an
// unsigned decimal number; the byte after its last digit is left unread.
long long read_pnm_number(FILE* file, const std::string& path, const char* what) {
  int c = std::fgetc(file);
  while (is_pnm_space(c) || c == '#') {
    if (c == '#') {
      while (c != '\n' && c != '\r' && c != EOF) c = std::fgetc(file);
    } else {
      c = std::fgetc(file);
    }
  }
  if (c < '0' || c > '9') {
    throw Error(path + ": bad PNM header (" + what + " missing or not a number)");
  }
  long long value = 0;
  for (; c >= '0' && c <= '9'; c = std::fgetc(file)) {
    value = value * 10 + (c - '0');
    if (value > INT_MAX) throw Error(path + ": bad PNM header (" + what + " too large)");
  }
  std::ungetc(c, file);
  return value;
}

// `file` is positioned just after the magic "P5" or "P6"; leaves it at the
// first byte of the pixels.
}  // namespace

PnmHeader read_pnm_header(FILE* file, const std::string& path, const LoadOptions& limits) {
  PnmHeader p;
  p.width = read_pnm_number(file, path, "width");
  p.height = read_pnm_number(file, path, "height");
  p.maxval = read_pnm_number(file, path, "maxval");
  // One whitespace byte ends the header. A comment may come first (netpbm
  // reads "255#c\n" as "255\n"): the line end that closes it is that byte.
  int end = std::fgetc(file);
  if (end == '#') {
    while (end != '\n' && end != '\r' && end != EOF) end = std::fgetc(file);
  }
  if (!is_pnm_space(end)) {
    throw Error(path + ": bad PNM header (no whitespace between maxval and the pixels)");
  }
  if (p.width == 0 || p.height == 0) {
    throw Error(path + ": PNM image has zero size (" + std::to_string(p.width) + "x" +
                std::to_string(p.height) + ")");
  }
  if (p.maxval < 1 || p.maxval > 65535) throw Error(path + ": PNM maxval must be 1..65535");
  check_size_limits(path, p.width, p.height, limits);
  return p;
}

// `file` is positioned just after the magic "P5" or "P6". Only the first image
// of a multi-image file is read; bytes after it are ignored.
GrayImage load_binary_pnm(const std::string& path, FILE* file, int channels, const LoadOptions& limits,
                          std::vector<std::uint8_t>* colour) {
  const PnmHeader header = read_pnm_header(file, path, limits);
  const long long w = header.width, h = header.height, maxval = header.maxval;

  // round(v * 255 / maxval) for every possible sample, in integers; a sample
  // above maxval is refused rather than clamped: the file is corrupt and a
  // clamped picture would be a silent wrong answer.
  std::vector<std::uint8_t> to_8bit(static_cast<size_t>(maxval) + 1);
  for (long long v = 0; v <= maxval; ++v) {
    to_8bit[static_cast<size_t>(v)] = static_cast<std::uint8_t>((v * 255 + maxval / 2) / maxval);
  }
  const int sample_bytes = maxval < 256 ? 1 : 2;  // 16-bit samples are big-endian
  const size_t row_bytes = static_cast<size_t>(w) * channels * sample_bytes;
  // A short file is refused before the image is allocated (a 20-byte header
  // may claim 16384 x 16384), where its length is known (not on a pipe).
  const long at = std::ftell(file);
  if (at >= 0 && std::fseek(file, 0, SEEK_END) == 0) {
    const long long available = std::ftell(file) - at, needed = static_cast<long long>(row_bytes) * h;
    if (available < needed) throw_truncated(path, needed, available);
    if (std::fseek(file, at, SEEK_SET) != 0) throw Error(path + ": cannot read file");
  }
  std::vector<unsigned char> row(row_bytes);
  GrayImage out(static_cast<int>(w), static_cast<int>(h));
  if (colour) colour->assign(out.pixels.size() * 3, 0);
  long long found = 0;
  for (int y = 0; y < out.height; ++y) {
    const size_t got = std::fread(row.data(), 1, row_bytes, file);
    found += static_cast<long long>(got);
    if (got < row_bytes) {
      if (std::ferror(file)) throw Error(path + ": cannot read file");
      throw_truncated(path, static_cast<long long>(row_bytes) * h, found);
    }
    const unsigned char* p = row.data();
    std::uint8_t rgb[3];
    for (int x = 0; x < out.width; ++x) {
      for (int c = 0; c < channels; ++c, p += sample_bytes) {
        const unsigned v = sample_bytes == 1 ? p[0] : (p[0] << 8) | p[1];
        if (v > maxval) {
          throw Error(path + ": PNM sample " + std::to_string(v) + " exceeds maxval " +
                      std::to_string(maxval) + " at pixel (" + std::to_string(x) + ", " + std::to_string(y) +
                      ")");
        }
        rgb[c] = to_8bit[v];
      }
      out.at(x, y) = channels == 1 ? rgb[0] : bt601_gray(rgb[0], rgb[1], rgb[2]);
      if (colour) {
        std::uint8_t* to = &(*colour)[(static_cast<size_t>(y) * out.width + x) * 3];
        for (int c = 0; c < 3; ++c) to[c] = rgb[channels == 1 ? 0 : c];
      }
    }
  }
  return out;
}

}  // namespace glsurf::image_format
