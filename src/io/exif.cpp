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
    return little ? static_cast<unsigned>(tiff[at]) | static_cast<unsigned>(tiff[at + 1]) << 8 : be16(tiff + at);
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
  // Segments up to the frame header or the first scan; EXIF comes first of all.
  while (pos + 4 <= size && data[pos] == 0xFF) {
    const int marker = data[pos + 1];
    if (marker == 0xFF) {  // a fill byte
      ++pos;
      continue;
    }
    if (marker == 0xDA || marker == 0xD9 || (marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xCC))
      return 1;
    const size_t length = be16(data + pos + 2);
    if (length < 2 || pos + 2 + length > size) return 1;
    const unsigned char* segment = data + pos + 4;
    const size_t n = length - 2;
    if (marker == 0xE1 && n >= 6 && std::memcmp(segment, "Exif\0\0", 6) == 0) return tiff_orientation(segment + 6, n - 6);
    pos += 2 + length;
  }
  return 1;
}

GrayImage apply_exif_orientation(GrayImage image, int orientation) {
  if (orientation < 2 || orientation > 8) return image;
  const int w = image.width, h = image.height;
  const bool swap = orientation >= 5;
  GrayImage out(swap ? h : w, swap ? w : h);
  for (int y = 0; y < out.height; ++y) {
    for (int x = 0; x < out.width; ++x) {
      // The stored pixel shown at (x, y).
      int sx = x, sy = y;
      switch (orientation) {
        case 2: sx = w - 1 - x; break;                      // mirrored left-right
        case 3: sx = w - 1 - x; sy = h - 1 - y; break;      // turned 180 degrees
        case 4: sy = h - 1 - y; break;                      // mirrored top-bottom
        case 5: sx = y; sy = x; break;                      // transposed
        case 6: sx = y; sy = h - 1 - x; break;              // turned 90 degrees clockwise to show
        case 7: sx = w - 1 - y; sy = h - 1 - x; break;      // transverse
        default: sx = w - 1 - y; sy = x; break;             // 8: turned 90 degrees anticlockwise to show
      }
      out.at(x, y) = image.at(sx, sy);
    }
  }
  return out;
}

}  // namespace glsurf
