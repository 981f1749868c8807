#include "io/exif.hpp"

#include <cstdint>
#include <cstring>

namespace glsurf {

namespace {

unsigned be16(const unsigned char* p) { return static_cast<unsigned>(p[0]) << 8 | p[1]; }

// The orientation in a TIFF structure (the EXIF block after "Exif\0\0").
int tiff_orientation(const unsigned char* tiff, size_t size) {
  if (size < 8) return 1;
  const bool little = tiff[0] == 'I' && tiff[1] == 'I';
  if (!little && !(tiff[0] == 'M' && tiff[1] == 'M')) return 1;
  const auto u16 = [&](size_t at) {
    return little ? static_cast<unsigned>(tiff[at]) | static_cast<unsigned>(tiff[at + 1]) << 8
                  : be16(tiff + at);
  };
  const auto u32 = [&](size_t at) {
    return little ? u16(at) | static_cast<std::uint32_t>(u16(at + 2)) << 16
                  : static_cast<std::uint32_t>(u16(at)) << 16 | u16(at + 2);
  };
  if (u16(2) != 42) return 1;
  const std::uint32_t ifd = u32(4);
  if (ifd > size - 2) return 1;
  const unsigned entries = u16(ifd);
  for (unsigned i = 0; i < entries; ++i) {
    const size_t entry = ifd + 2 + 12 * static_cast<size_t>(i);
    if (entry + 12 > size) return 1;
    // Tag 0x0112, type SHORT (3), one value, held in the entry's first 2 value bytes.
    if (u16(entry) == 0x0112) {
      if (u16(entry + 2) != 3 || u32(entry + 4) != 1) return 1;
      const unsigned value = u16(entry + 8);
      return value >= 1 && value <= 8 ? static_cast<int>(value) : 1;
    }
  }
  return 1;
}

}  // namespace

int jpeg_exif_orientation(const unsigned char* data, size_t size) {
  if (size < 4 || data[0] != 0xFF || data[1] != 0xD8) return 1;
  size_t pos = 2;
  // The segments before the frame header (or the first scan), where the APP
  // segments are: the first APP1 that holds EXIF data (an XMP APP1 before it
  // is passed over).
  while (pos + 4 <= size && data[pos] == 0xFF) {
    const int marker = data[pos + 1];
    if (marker == 0xFF) {  // a fill byte
      ++pos;
      continue;
    }
    if (marker == 0xDA || marker == 0xD9 ||
        (marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xCC))
      return 1;
    const size_t length = be16(data + pos + 2);
    if (length < 2 || pos + 2 + length > size) return 1;
    const unsigned char* segment = data + pos + 4;
    const size_t n = length - 2;
    if (marker == 0xE1 && n >= 6 && std::memcmp(segment, "Exif\0\0", 6) == 0)
      return tiff_orientation(segment + 6, n - 6);
    pos += 2 + length;
  }
  return 1;
}

GrayImage apply_exif_orientation(GrayImage image, int orientation) {
  if (orientation < 2 || orientation > 8) return image;
  const long w = image.width, h = image.height;
  // The stored pixel shown at the top left, and the stored steps (dx, dy)
  // from one shown pixel to the next one right and to the next one down.
  struct Walk {
    long x0, y0, right_dx, right_dy, down_dx, down_dy;
  };
  static const Walk walks[9] = {
      {},
      {},
      {1, 0, -1, 0, 0, 1},   // 2: mirrored left-right (x0 and y0 in units of w - 1 and h - 1)
      {1, 1, -1, 0, 0, -1},  // 3: turned 180 degrees
      {0, 1, 1, 0, 0, -1},   // 4: mirrored top-bottom
      {0, 0, 0, 1, 1, 0},    // 5: transposed
      {0, 1, 0, -1, 1, 0},   // 6: turned 90 degrees clockwise to show
      {1, 1, 0, -1, -1, 0},  // 7: transverse
      {1, 0, 0, 1, -1, 0}};  // 8: turned 90 degrees anticlockwise to show
  const Walk& walk = walks[orientation];
  const bool swap = orientation >= 5;
  GrayImage out(static_cast<int>(swap ? h : w), static_cast<int>(swap ? w : h));
  const long right = walk.right_dx + walk.right_dy * w, down = walk.down_dx + walk.down_dy * w;
  // Indices, not pointers: the step after a row's last pixel may point
  // outside the image, where a pointer may not.
  long row = walk.x0 * (w - 1) + walk.y0 * (h - 1) * w;
  size_t to = 0;
  for (int y = 0; y < out.height; ++y, row += down) {
    long from = row;
    for (int x = 0; x < out.width; ++x, from += right)
      out.pixels[to++] = image.pixels[static_cast<size_t>(from)];
  }
  return out;
}

}  // namespace glsurf
