#include "io/exif.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <optional>
#include <system_error>
#include <utility>

namespace glsurf {

namespace {

unsigned be16(const unsigned char* p) { return static_cast<unsigned>(p[0]) << 8 | p[1]; }

// The TIFF structure of an EXIF block (after "Exif\0\0"), read within its
// bounds: a header (byte order, 42, the offset of IFD0), then IFDs of a
// 2-byte count and 12-byte entries (tag, type, count, value or its offset).
class Tiff {
 public:
  // A field's type, count and where its value's bytes lie in the block (all
  // of them inside it).
  struct Field {
    unsigned type;
    std::uint32_t count;
    size_t value;
  };
  static constexpr unsigned kShort = 3, kLong = 4, kRational = 5, kIfd = 13;

  Tiff(const unsigned char* data, size_t size) : data_(data), size_(size) {
    if (size < 8) return;
    little_ = data[0] == 'I' && data[1] == 'I';
    if (!little_ && !(data[0] == 'M' && data[1] == 'M')) return;
    valid_ = u16(2) == 42;
  }
  bool valid() const { return valid_; }
  std::uint32_t ifd0() const { return u32(4); }

  unsigned u16(size_t at) const {
    return little_ ? static_cast<unsigned>(data_[at]) | static_cast<unsigned>(data_[at + 1]) << 8
                   : be16(data_ + at);
  }
  std::uint32_t u32(size_t at) const {
    return little_ ? u16(at) | static_cast<std::uint32_t>(u16(at + 2)) << 16
                   : static_cast<std::uint32_t>(u16(at)) << 16 | u16(at + 2);
  }

  // The first entry of `tag` in the IFD at `ifd`, looked for up to the first
  // entry that does not fit in the block; none where the IFD's count does
  // not fit either.
  std::optional<size_t> find_entry(std::uint32_t ifd, unsigned tag) const {
    if (size_ < 2 || ifd > size_ - 2) return std::nullopt;
    const unsigned entries = u16(ifd);
    for (unsigned i = 0; i < entries; ++i) {
      const size_t entry = ifd + 2 + 12 * static_cast<size_t>(i);
      if (entry + 12 > size_) return std::nullopt;
      if (u16(entry) == tag) return entry;
    }
    return std::nullopt;
  }

  // The field of `tag` in the IFD at `ifd`: none where the IFD's entries do
  // not all lie in the block (FreeImage, which reads EXIF for COLMAP, then
  // skips the IFD), or the field is missing, of a type TIFF 6.0 does not
  // define, without values, or with values (in the entry when they fit in 4
  // bytes, else at the offset it holds) that do not all lie in the block.
  std::optional<Field> find(std::uint32_t ifd, unsigned tag) const {
    if (size_ < 2 || ifd > size_ - 2 || 2 + 12 * static_cast<size_t>(u16(ifd)) > size_ - ifd)
      return std::nullopt;
    const std::optional<size_t> entry = find_entry(ifd, tag);
    if (!entry) return std::nullopt;
    // Bytes per value of types 1..13: BYTE ASCII SHORT LONG RATIONAL SBYTE
    // UNDEFINED SSHORT SLONG SRATIONAL FLOAT DOUBLE IFD.
    static const unsigned bytes[14] = {0, 1, 1, 2, 4, 8, 1, 1, 2, 4, 8, 4, 8, 4};
    const unsigned type = u16(*entry + 2);
    const std::uint32_t count = u32(*entry + 4);
    if (type < 1 || type > 13 || count == 0) return std::nullopt;
    const std::uint64_t length = static_cast<std::uint64_t>(count) * bytes[type];
    if (length <= 4) return Field{type, count, *entry + 8};
    const std::uint32_t offset = u32(*entry + 8);
    if (offset > size_ || length > size_ - offset) return std::nullopt;
    return Field{type, count, offset};
  }

  // A RATIONAL's first value as numerator and denominator.
  std::pair<std::uint32_t, std::uint32_t> rational(const Field& field) const {
    return {u32(field.value), u32(field.value + 4)};
  }

 private:
  const unsigned char* data_;
  size_t size_;
  bool little_ = false, valid_ = false;
};

// The orientation in a TIFF structure (the EXIF block after "Exif\0\0"):
// tag 0x0112 of IFD0, type SHORT, one value.
int tiff_orientation(const Tiff& tiff) {
  if (!tiff.valid()) return 1;
  const std::optional<size_t> entry = tiff.find_entry(tiff.ifd0(), 0x0112);
  if (!entry || tiff.u16(*entry + 2) != Tiff::kShort || tiff.u32(*entry + 4) != 1) return 1;
  const unsigned value = tiff.u16(*entry + 8);
  return value >= 1 && value <= 8 ? static_cast<int>(value) : 1;
}

// `value` as FreeImage prints a FocalLength for COLMAP to read back: with one
// decimal ("%.1f", the exact binary value rounded, ties to even), in the C
// locale whatever the process's.
double to_tenths(double value) {
  char text[64];
  const std::to_chars_result printed =
      std::to_chars(text, text + sizeof text, value, std::chars_format::fixed, 1);
  if (printed.ec != std::errc()) return 0;
  double read = 0;
  std::from_chars(text, printed.ptr, read);
  return read;
}

// The focal length in pixels by COLMAP 3.8's rules (exif.hpp) from a TIFF
// structure, for an image whose larger side is `max_size` pixels.
double tiff_focal_pixels(const Tiff& tiff, double max_size) {
  if (!tiff.valid()) return 0;
  // The EXIF sub-IFD, which FreeImage (and so COLMAP) reads the tags from.
  const std::optional<Tiff::Field> pointer = tiff.find(tiff.ifd0(), 0x8769);
  if (!pointer || (pointer->type != Tiff::kLong && pointer->type != Tiff::kIfd)) return 0;
  const std::uint32_t exif = tiff.u32(pointer->value);
  if (exif == tiff.ifd0()) return 0;  // a loop back to IFD0, which FreeImage does not read twice

  // 1. FocalLengthIn35mmFilm.
  if (const auto f35 = tiff.find(exif, 0xA405); f35 && f35->type == Tiff::kShort) {
    const unsigned mm = tiff.u16(f35->value);
    if (mm > 0) return mm / 35.0 * max_size;
  }

  // 2. FocalLength and the sensor's width. (COLMAP's camera database, which
  // it asks for the sensor's width by Make and Model first, is left out.)
  const auto focal = tiff.find(exif, 0x920A);
  if (!focal || focal->type != Tiff::kRational) return 0;
  const auto [focal_num, focal_den] = tiff.rational(*focal);
  // FreeImage takes a zero denominator as 0, and so 0 mm.
  const double focal_mm = focal_den == 0 ? 0 : to_tenths(static_cast<double>(focal_num) / focal_den);
  if (!(focal_mm > 0)) return 0;

  const auto pixels = tiff.find(exif, 0xA002);
  const auto resolution = tiff.find(exif, 0xA20E);
  const auto unit = tiff.find(exif, 0xA210);
  if (!pixels || !resolution || !unit || resolution->type != Tiff::kRational || unit->type != Tiff::kShort)
    return 0;
  double pixel_x_dimension = 0;
  if (pixels->type == Tiff::kShort) {
    pixel_x_dimension = tiff.u16(pixels->value);
  } else if (pixels->type == Tiff::kLong) {
    pixel_x_dimension = tiff.u32(pixels->value);
  } else {
    return 0;
  }
  double unit_mm = 0;
  switch (tiff.u16(unit->value)) {
    case 2:
      unit_mm = 25.4;
      break;  // inch
    case 3:
      unit_mm = 10.0;
      break;  // cm
    default:
      return 0;  // 1 (no unit) or unknown: COLMAP finds no rule for it
  }
  // FocalPlaneXResolution is pixels per unit: its inverse, units per pixel,
  // times the pixels across is the sensor's width. A numerator of 0 would be
  // an infinite width (COLMAP 3.8 then returns a focal length of 0).
  const auto [per_unit_num, per_unit_den] = tiff.rational(*resolution);
  if (per_unit_num == 0) return 0;
  const double units_per_pixel = static_cast<double>(per_unit_den) / per_unit_num;
  const double sensor_units = units_per_pixel * pixel_x_dimension;
  if (!(sensor_units > 0)) return 0;
  return focal_mm / (sensor_units * unit_mm) * max_size;
}

// The TIFF structure in the first EXIF APP1 segment of a JPEG (`data` from
// its SOI marker); an invalid one where there is none.
Tiff jpeg_exif_tiff(const unsigned char* data, size_t size) {
  const Tiff none(nullptr, 0);
  if (size < 4 || data[0] != 0xFF || data[1] != 0xD8) return none;
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
      return none;
    const size_t length = be16(data + pos + 2);
    if (length < 2 || pos + 2 + length > size) return none;
    const unsigned char* segment = data + pos + 4;
    const size_t n = length - 2;
    if (marker == 0xE1 && n >= 6 && std::memcmp(segment, "Exif\0\0", 6) == 0) return Tiff(segment + 6, n - 6);
    pos += 2 + length;
  }
  return none;
}

}  // namespace

int jpeg_exif_orientation(const unsigned char* data, size_t size) {
  return tiff_orientation(jpeg_exif_tiff(data, size));
}

double jpeg_exif_focal_pixels(const unsigned char* data, size_t size, int width, int height) {
  if (width < 1 || height < 1) return 0;
  return tiff_focal_pixels(jpeg_exif_tiff(data, size), std::max(width, height));
}

namespace {

// The pixels of a w x h image of `channels` bytes a pixel, as shown under
// `orientation` (2..8); *out_w and *out_h the shown size.
std::vector<std::uint8_t> oriented(const std::vector<std::uint8_t>& pixels, long w, long h, int channels,
                                   int orientation, int* out_w, int* out_h) {
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
  *out_w = static_cast<int>(swap ? h : w);
  *out_h = static_cast<int>(swap ? w : h);
  std::vector<std::uint8_t> out(pixels.size());
  const long right = walk.right_dx + walk.right_dy * w, down = walk.down_dx + walk.down_dy * w;
  // Indices, not pointers: the step after a row's last pixel may point
  // outside the image, where a pointer may not.
  long row = walk.x0 * (w - 1) + walk.y0 * (h - 1) * w;
  size_t to = 0;
  for (int y = 0; y < *out_h; ++y, row += down) {
    long from = row;
    for (int x = 0; x < *out_w; ++x, from += right)
      for (int c = 0; c < channels; ++c) out[to++] = pixels[static_cast<size_t>(from) * channels + c];
  }
  return out;
}

}  // namespace

GrayImage apply_exif_orientation(GrayImage image, int orientation) {
  if (orientation < 2 || orientation > 8) return image;
  GrayImage out;
  out.pixels = oriented(image.pixels, image.width, image.height, 1, orientation, &out.width, &out.height);
  return out;
}

RgbImage apply_exif_orientation(RgbImage image, int orientation) {
  if (orientation < 2 || orientation > 8) return image;
  RgbImage out;
  out.pixels = oriented(image.pixels, image.width, image.height, 3, orientation, &out.width, &out.height);
  return out;
}

}  // namespace glsurf
