#include "io/image.hpp"

#include <sys/stat.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <utility>

#include "gl/error.hpp"
#include "io/exif.hpp"
#include "io/image_format.hpp"
#include "io/jpeg_check.hpp"

#define STB_IMAGE_IMPLEMENTATION
#define STBI_FAILURE_USERMSG
// The formats glsurf documents, no others: stb_image's GIF, PSD, HDR, PIC
// and PNM readers are left out (PNM is read here; the others pad a cut file
// with zeros without a word, and GIF was never meant to be read).
#define STBI_ONLY_PNG
#define STBI_ONLY_JPEG
#define STBI_ONLY_BMP
#define STBI_ONLY_TGA
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wunused-but-set-variable"
#endif
#include <stb_image.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

namespace glsurf {

namespace {

using namespace image_format;

// A JPEG's start-of-image marker (fill bytes before it are refused:
// refuse_fill_before_soi).
bool is_jpeg(const unsigned char* head, size_t size) {
  return size >= 2 && head[0] == 0xFF && head[1] == 0xD8;
}

// --- BMP and TGA: is the file long enough? -------------------------------------
// stb_image pads missing pixel data with zeros, so a cut file would decode to a
// picture with a black band. Where the header gives the size of the pixel data
// (uncompressed BMP and TGA) the file must hold all of it; an RLE TGA must
// hold packets for all of its pixels. (stb_image does not read RLE BMP.)

unsigned read_le(const unsigned char* p, int bytes) {
  unsigned v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

// TGA has no magic number (stb tries it last), but its colour-map type byte,
// 0 or 1, is never the second byte of another format read here ("BM",
// "\x89PNG", FF D8, "P5"). Whether `head` (its
// first `size` bytes) is a TGA of an image type in first..last: 1..3
// uncompressed, 9..11 RLE.
bool is_tga(const unsigned char* head, size_t size, int first, int last) {
  return size >= 18 && head[1] <= 1 && head[2] >= first && head[2] <= last;
}

// Where a TGA's pixel data starts: after the header, the image id and the colour map.
long long tga_pixels_offset(const unsigned char* head) {
  const long long colour_map = head[1] == 1 ? read_le(head + 5, 2) * ((head[7] + 7) / 8) : 0;
  return 18 + head[0] + colour_map;
}

// Bytes an uncompressed BMP or TGA needs for all its pixels, from its first
// `size` bytes; -1 when the format is another one or the size is not known
// without decoding. Called after the size limits, so the products fit.
long long expected_file_size(const unsigned char* head, size_t size) {
  if (size >= 26 && head[0] == 'B' && head[1] == 'M') {
    const long long offset = read_le(head + 10, 4);
    const unsigned header_size = read_le(head + 14, 4);
    long long w, h, bits;
    if (header_size == 12) {  // OS/2 BITMAPCOREHEADER: 16-bit sizes, never compressed
      w = read_le(head + 18, 2);
      h = read_le(head + 20, 2);
      bits = read_le(head + 24, 2);
    } else {
      if (size < 34) return -1;
      const unsigned compression = read_le(head + 30, 4);
      if (compression != 0 && compression != 3) return -1;  // BI_RGB, BI_BITFIELDS
      w = static_cast<std::int32_t>(read_le(head + 18, 4));
      h = std::llabs(static_cast<std::int32_t>(read_le(head + 22, 4)));  // < 0: rows top-down
      bits = read_le(head + 28, 2);
    }
    if (w <= 0 || h <= 0 || bits <= 0) return -1;  // stb refuses these itself
    // Rows are padded to 4 bytes; the last row's padding is not required (it
    // holds no pixels, and some writers leave it out).
    const long long stride = (w * bits + 31) / 32 * 4;
    return offset + stride * (h - 1) + (w * bits + 7) / 8;
  }
  if (is_tga(head, size, 1, 3)) {
    const long long w = read_le(head + 12, 2), h = read_le(head + 14, 2);
    return tga_pixels_offset(head) + w * h * ((head[16] + 7) / 8);
  }
  return -1;
}

// An RLE TGA (image types 9..11) must hold packets for all of its pixels:
// each packet is a count byte c, then one pixel (c >= 128: repeated c - 127
// times) or c + 1 pixels; as stb_image, a packet's pixels beyond the image's
// last are not needed. The packets are read as a stream, and `file` is
// rewound afterwards.
void check_rle_tga_length(const std::string& path, FILE* file, const unsigned char* head) {
  const long long pixel_bytes = (head[16] + 7) / 8;
  const long long total = static_cast<long long>(read_le(head + 12, 2)) * read_le(head + 14, 2);
  if (std::fseek(file, tga_pixels_offset(head), SEEK_SET) != 0) throw Error(path + ": cannot read file");
  long long covered = 0;
  while (covered < total) {
    const int c = std::fgetc(file);
    const long long count = std::min<long long>((c & 127) + 1, total - covered);
    const long long bytes = (c & 128 ? 1 : count) * pixel_bytes;
    // Past the end, fseek succeeds; the byte before the packet's end tells.
    if (c == EOF || std::fseek(file, bytes - 1, SEEK_CUR) != 0 || std::fgetc(file) == EOF) {
      throw Error(path + ": truncated image data (RLE packets for " + std::to_string(covered) + " of " +
                  std::to_string(total) + " pixels)");
    }
    covered += count;
  }
  std::rewind(file);
}

// The first `most` bytes of `file` (all of it if shorter), which is rewound
// afterwards.
std::vector<unsigned char> read_first(const std::string& path, FILE* file, size_t most) {
  const long size = std::fseek(file, 0, SEEK_END) == 0 ? std::ftell(file) : -1;
  if (size < 0) throw Error(path + ": cannot read file");
  std::vector<unsigned char> bytes(std::min(static_cast<size_t>(size), most));
  std::rewind(file);
  if (std::fread(bytes.data(), 1, bytes.size(), file) != bytes.size())
    throw Error(path + ": cannot read file");
  std::rewind(file);
  return bytes;
}

std::vector<unsigned char> read_whole(const std::string& path, FILE* file) {
  return read_first(path, file, SIZE_MAX);
}

// stb_image takes a file for a JPEG when 0xFF bytes and then 0xD8 begin it:
// it skips fill bytes before the start-of-image marker. libjpeg refuses
// them, and so does glsurf, so that every file stb_image reads as a JPEG is
// one that check_jpeg (which starts at the marker at byte 0) has checked.
void refuse_fill_before_soi(const std::string& path, const unsigned char* head, size_t size) {
  if (size >= 2 && head[0] == 0xFF && head[1] == 0xFF)
    throw Error(path +
                ": not a supported image (it starts with 0xFF 0xFF; a JPEG starts with its "
                "start-of-image marker, 0xFF 0xD8)");
}

// stb_image reads a BMP's compression field as a signed int, refuses RLE
// (1, 2) and 4 and up, but decodes the values from 2^31 on (which no writer
// uses) as uncompressed rows in layouts of their own, which the length check
// (expected_file_size) does not model: they are refused.
void refuse_negative_bmp_compression(const std::string& path, const unsigned char* head, size_t size) {
  if (size < 34 || head[0] != 'B' || head[1] != 'M' || read_le(head + 14, 4) == 12)
    return;  // OS/2: no such field
  const unsigned compression = read_le(head + 30, 4);
  // Run-length coded rows (BI_RLE8, BI_RLE4), valid BMPs that stb_image does
  // not decode: said as such, not as "unknown type, or corrupt".
  if (compression == 1 || compression == 2)
    throw Error(path + ": RLE-compressed BMP (" + (compression == 1 ? "RLE8" : "RLE4") +
                ") is not supported; save it uncompressed");
  if (compression >= 0x80000000u)
    throw Error(path + ": not a supported image (unknown BMP compression " + std::to_string(compression) +
                ")");
}

// The whole of a JPEG file, once check_jpeg passes it. The frame's size is
// held to `limits` first, from as little of the file as holds the frame
// header (64 KiB, doubled until it does), so that the rest of a file whose
// frame is too large is never read; then the check walks the scans of the
// whole file (its work and memory grow with the frame's blocks).
std::vector<unsigned char> check_jpeg_file(const std::string& path, FILE* file, const LoadOptions& limits) {
  if (std::fseek(file, 0, SEEK_END) != 0) throw Error(path + ": cannot read file");
  if (std::ftell(file) > INT_MAX) throw Error(path + ": a JPEG file of more than 2 GB is not supported");
  const auto within_limits = [&](int w, int h) { check_size_limits(path, w, h, limits); };
  for (size_t most = size_t{1} << 16;; most *= 2) {
    const std::vector<unsigned char> head = read_first(path, file, most);
    if (head.size() < most || check_jpeg_to_frame(path, head.data(), head.size(), within_limits)) break;
  }
  std::vector<unsigned char> bytes = read_whole(path, file);
  if (!check_jpeg(path, bytes.data(), bytes.size(), within_limits)) {
    // Whole scans with no end marker: stb_image calls that corrupt, libjpeg
    // decodes it with a warning. The marker is added, and the caller told.
    bytes.push_back(0xFF);
    bytes.push_back(0xD9);
    if (limits.warn)
      limits.warn(path + ": no JPEG end marker (the scans are whole; read as if it were there)");
  }
  return bytes;
}

// A colour-mapped TGA (image types 1 and 9) whose pixel holds an index at or
// beyond its map's length: stb_image shows entry 0 there, a picture that is
// not the file's. The indices (8 or 16 bits, as stb_image reads them) are
// read from where stb_image reads them, which skips the map's first-entry
// field as bytes; the file's length was checked before.
void check_tga_indices(const std::string& path, FILE* file, const unsigned char* head) {
  if (head[1] != 1 || (head[2] != 1 && head[2] != 9) || (head[16] != 8 && head[16] != 16)) return;
  const unsigned first = read_le(head + 3, 2), length = read_le(head + 5, 2), entry_bits = head[7];
  const size_t index_bytes = head[16] / 8;
  const size_t total = static_cast<size_t>(read_le(head + 12, 2)) * read_le(head + 14, 2);
  const std::vector<unsigned char> bytes = read_whole(path, file);
  size_t at = 18 + size_t{head[0]} + first + size_t{length} * ((entry_bits + 7) / 8);
  // False past the end of the file, where stb_image reads zeros: index 0.
  const auto check_index = [&](size_t pixel) {
    if (at + index_bytes > bytes.size()) return false;
    const unsigned index = read_le(&bytes[at], static_cast<int>(index_bytes));
    if (index >= length) {
      throw Error(path + ": corrupt TGA (pixel " + std::to_string(pixel) + "'s colour-map index, " +
                  std::to_string(index) + ", is not below the map's length, " + std::to_string(length) + ")");
    }
    at += index_bytes;
    return true;
  };
  for (size_t pixel = 0; pixel < total;) {
    if (head[2] == 1) {
      if (!check_index(pixel++)) return;
      continue;
    }
    if (at >= bytes.size()) return;
    const unsigned c = bytes[at++];
    const size_t count = std::min<size_t>((c & 127) + 1, total - pixel);
    for (size_t i = 0; i < (c & 128 ? 1 : count); ++i) {
      if (!check_index(pixel + i)) return;
    }
    pixel += count;
  }
}

// --- palette indices beyond the palette (PNG, BMP) ---------------------------------
// stb_image looks up a palette index beyond a PNG's PLTE entries, or a BMP's
// palette, in memory it never wrote, so such a (corrupt) file decodes
// differently from run to run. Where the palette has fewer entries than the
// pixels' bits can index, the image is decoded twice from memory with the
// palette padded to all the entries they can index, once with black and once
// with white: if the two pictures differ, an index lies beyond the palette.
// (stb_image checks no CRC, so a grown PLTE keeps its old one. A TGA's index
// beyond its colour map is checked by check_tga_indices.)
using Pixels = std::unique_ptr<stbi_uc, void (*)(void*)>;

// The grey image of w x h pixels of n samples each (grey, grey + alpha, RGB,
// RGBA), every sample made 8-bit by `to_8bit`.
template <typename Sample, typename To8Bit>
GrayImage gray_of(const Sample* p, int w, int h, int n, const To8Bit& to_8bit) {
  GrayImage out(w, h);
  const size_t count = static_cast<size_t>(w) * h;
  for (size_t i = 0; i < count; ++i, p += n) {
    out.pixels[i] = n <= 2 ? to_8bit(p[0]) : bt601_gray(to_8bit(p[0]), to_8bit(p[1]), to_8bit(p[2]));
  }
  return out;
}

// The RGB image of w x h pixels of n samples each, as gray_of reads them.
template <typename Sample, typename To8Bit>
RgbImage rgb_of(const Sample* p, int w, int h, int n, const To8Bit& to_8bit) {
  RgbImage out{w, h, std::vector<std::uint8_t>(static_cast<size_t>(w) * h * 3)};
  std::uint8_t* to = out.pixels.data();
  const size_t count = static_cast<size_t>(w) * h;
  for (size_t i = 0; i < count; ++i, p += n)
    for (int c = 0; c < 3; ++c) *to++ = to_8bit(p[n <= 2 ? 0 : c]);
  return out;
}

// `bytes` with `count` entries of `size` bytes, every byte `fill`, inserted at `at`.
std::vector<unsigned char> with_entries(const std::vector<unsigned char>& bytes, size_t at, size_t count,
                                        size_t size, unsigned char fill) {
  std::vector<unsigned char> out(bytes.begin(), bytes.begin() + static_cast<long>(at));
  out.insert(out.end(), count * size, fill);
  out.insert(out.end(), bytes.begin() + static_cast<long>(at), bytes.end());
  return out;
}

// Decodes the two paddings (make(0), make(255)) and compares them.
template <typename Make>
Pixels decode_padded(const std::string& path, const Make& make, size_t entries, const char* format, int& w,
                     int& h, int& n) {
  Pixels pictures[2] = {Pixels(nullptr, &stbi_image_free), Pixels(nullptr, &stbi_image_free)};
  for (int k = 0; k < 2; ++k) {
    const std::vector<unsigned char> padded = make(static_cast<unsigned char>(k == 0 ? 0 : 255));
    pictures[k].reset(stbi_load_from_memory(padded.data(), static_cast<int>(padded.size()), &w, &h, &n, 0));
    if (!pictures[k]) throw Error(path + ": cannot decode image (" + stbi_failure_reason() + ")");
  }
  if (std::memcmp(pictures[0].get(), pictures[1].get(), static_cast<size_t>(w) * h * n) != 0)
    throw Error(path + ": corrupt " + format + " (a pixel's palette index is not below the palette's size, " +
                std::to_string(entries) + ")");
  return std::move(pictures[0]);
}

// The pixels of `file` (its first bytes `head`), checked as above, if it is a
// palette PNG or BMP with a short palette; nullptr otherwise. `file` is
// rewound afterwards.
Pixels decode_short_palette(const std::string& path, FILE* file, const unsigned char* head, size_t head_size,
                            int& w, int& h, int& n) {
  Pixels none(nullptr, &stbi_image_free);
  if (is_png(head, head_size) && head_size >= 26) {
    const int depth = head[24], colour_type = head[25];
    if (colour_type != 3 || depth < 1 || depth > 8) return none;
    const std::vector<unsigned char> bytes = read_whole(path, file);
    // The chunks are whole (check_png_chunks); PLTE comes before IDAT.
    size_t at = 8, entries = 0, plte = 0;
    while (at + 8 <= bytes.size() && std::memcmp(&bytes[at + 4], "IDAT", 4) != 0) {
      const size_t length = read_be32(&bytes[at]);
      if (std::memcmp(&bytes[at + 4], "PLTE", 4) == 0) {
        plte = at;
        entries = length / 3;
        break;
      }
      at += 12 + length;
    }
    const size_t full = size_t{1} << depth;
    if (plte == 0 || entries >= full) return none;  // stb_image reports a missing PLTE
    const auto make = [&](unsigned char fill) {
      std::vector<unsigned char> padded =
          with_entries(bytes, plte + 8 + entries * 3, full - entries, 3, fill);
      const size_t length = full * 3;
      for (int i = 0; i < 4; ++i)
        padded[plte + static_cast<size_t>(i)] = static_cast<unsigned char>(length >> (24 - 8 * i));
      return padded;
    };
    return decode_padded(path, make, entries, "PNG", w, h, n);
  }
  if (head_size >= 26 && head[0] == 'B' && head[1] == 'M') {
    // As stb_image reads the palette: the entries between the info header
    // and the pixels, of 4 bytes, or of 3 in an OS/2 BMP (BITMAPCOREHEADER,
    // 12 bytes). Of those it counts 4 fewer than there are ((offset - 38) /
    // 3), so it showed the last 4 from memory it never wrote even in a valid
    // file; it is given 4 padding entries beyond what the indices reach.
    const unsigned offset = read_le(head + 10, 4), header = read_le(head + 14, 4);
    const bool os2 = header == 12;
    if (!os2 && (header < 40 || head_size < 30)) return none;
    const unsigned bits = read_le(head + (os2 ? 24 : 28), 2);
    if (bits != 1 && bits != 4 && bits != 8) return none;
    const size_t start = 14 + size_t{header}, entry = os2 ? 3 : 4, unread = os2 ? 4 : 0;
    // stb_image would count a negative number of entries and read them all
    // from memory it never wrote.
    if (offset < start || offset > INT_MAX)
      throw Error(path + ": corrupt BMP (the pixel data's offset, " + std::to_string(offset) +
                  ", points into the header)");
    const size_t entries = (offset - start) / entry, full = size_t{1} << bits;
    if (entries >= full + unread || (entries == 0 && !os2)) return none;  // none: stb_image refuses it
    const size_t added = full + unread - entries;
    const std::vector<unsigned char> bytes = read_whole(path, file);
    // expected_file_size has held the file to its pixel data already (for
    // every compression stb_image decodes); checked here too, where the
    // palette's padding is copied from before the offset.
    if (offset > bytes.size())
      throw Error(path + ": truncated image data (file of " + std::to_string(bytes.size()) +
                  " bytes, the pixel data starts at byte " + std::to_string(offset) + ")");
    const auto make = [&](unsigned char fill) {
      std::vector<unsigned char> padded = with_entries(bytes, start + entries * entry, added, entry, fill);
      const size_t moved = offset + added * entry;
      for (int i = 0; i < 4; ++i)
        padded[10 + static_cast<size_t>(i)] = static_cast<unsigned char>(moved >> (8 * i));
      return padded;
    };
    return decode_padded(path, make, entries, "BMP", w, h, n);
  }
  return none;
}

// --- piped input ---------------------------------------------------------------
// Bytes a piped image of `pixels` pixels may take: its raw size in the widest
// format read (16-bit RGBA, 8 bytes a pixel; compressed data of real images is
// smaller, a JPEG of pure noise about half of that), plus 1 MiB of metadata.
long long piped_bytes_allowed(long long pixels) { return pixels * 8 + (1 << 20); }

// Reads a pipe into memory, as much as its header says the image can take.
// The first 64 KiB must show a known format and, but for JPEG, its size:
// - binary PNM: exactly the header and the first image's pixels are read
//   (a stream of several leaves the rest in the pipe);
// - PNG (from IHDR, which comes first), BMP and TGA: the size is checked
//   against the limits at once, and more than piped_bytes_allowed() is refused;
// - JPEG: its frame header (the size) may follow large metadata, so reading
//   goes on, doubling, until check_jpeg_to_frame finds it, for at most 16 MiB;
// - anything else is refused there.
std::vector<unsigned char> read_piped(const std::string& path, FILE* file, const LoadOptions& limits) {
  std::vector<unsigned char> bytes;
  // Reads until `total` bytes are held; false when the input ended first.
  auto read_up_to = [&](long long total) {
    unsigned char chunk[1 << 16];
    while (static_cast<long long>(bytes.size()) < total) {
      const size_t want = static_cast<size_t>(
          std::min<long long>(sizeof chunk, total - static_cast<long long>(bytes.size())));
      const size_t got = std::fread(chunk, 1, want, file);
      bytes.insert(bytes.end(), chunk, chunk + got);
      if (got < want) break;
    }
    if (std::ferror(file)) throw Error(path + ": cannot read file");
    return static_cast<long long>(bytes.size()) >= total;
  };
  constexpr long long kHead = 1 << 16, kJpegMetadata = 16 << 20;
  bool more = read_up_to(kHead);
  if (bytes.empty()) throw Error(path + ": empty input");
  const unsigned char* head = bytes.data();
  const size_t n = bytes.size();
  if (n >= 2 && head[0] == 'P' && (head[1] == '5' || head[1] == '6')) {
    long long image_bytes = 0;
    {
      std::unique_ptr<FILE, int (*)(FILE*)> text(fmemopen(bytes.data(), n, "rb"), &std::fclose);
      if (!text || std::fseek(text.get(), 2, SEEK_SET) != 0) throw Error(path + ": cannot read file");
      const PnmHeader header = read_pnm_header(text.get(), path, limits);
      image_bytes = std::ftell(text.get()) + header.pixel_bytes(head[1] == '5' ? 1 : 3);
    }
    read_up_to(image_bytes);
    return bytes;  // if short, load_binary_pnm says so
  }
  if (n >= 2 && head[0] == 'P' && head[1] >= '1' && head[1] <= '7') return bytes;  // load_gray names the type
  refuse_fill_before_soi(path, head, n);
  long long w = -1, h = -1;
  if (is_png(head, n) && n >= 24 && std::memcmp(head + 12, "IHDR", 4) == 0) {
    w = read_be32(head + 16);  // stb_image's own look for a palette image's
    h = read_be32(head + 20);  // size reads on to PLTE, past any metadata
  } else if (is_jpeg(head, n)) {
    // A JPEG's size is in its frame header, after metadata of any length;
    // the segments up to it are checked before stb_image reads any of them.
    const auto size_of = [&](int fw, int fh) {
      w = fw;
      h = fh;
    };
    while (!check_jpeg_to_frame(path, bytes.data(), bytes.size(), size_of)) {
      if (!more) return bytes;  // all of it, and no frame: load_gray says why
      if (static_cast<long long>(bytes.size()) >= kJpegMetadata) {
        throw Error(path + ": no JPEG frame header (the image size) in the first 16 MiB");
      }
      more = read_up_to(2 * static_cast<long long>(bytes.size()));
    }
    if (w < 0) return bytes;  // a frame header stb_image refuses: load_gray says so
  } else {
    int sw = 0, sh = 0, channels = 0;
    if (!stbi_info_from_memory(bytes.data(), static_cast<int>(bytes.size()), &sw, &sh, &channels))
      throw Error(path + ": not a supported image (" + stbi_failure_reason() + ")");
    w = sw;
    h = sh;
  }
  check_size_limits(path, w, h, limits);
  const long long allowed = piped_bytes_allowed(w * h);
  read_up_to(allowed + 1);
  if (static_cast<long long>(bytes.size()) > allowed) {
    throw Error(path + ": more data than an image of " + std::to_string(w) + "x" + std::to_string(h) +
                " can take");
  }
  return bytes;
}

}  // namespace

GrayImage load_gray(const std::string& path, const LoadOptions& options) {
  return load_gray(path, options, nullptr);
}

RgbImage rgb_of(const GrayImage& image) {
  return rgb_of(image.pixels.data(), image.width, image.height, 1,
                [](unsigned v) { return static_cast<std::uint8_t>(v); });
}

GrayImage load_gray(const std::string& path, const LoadOptions& options, RgbImage* colour) {
  std::vector<unsigned char> piped;  // outlives `file`, which may read from it
  std::unique_ptr<FILE, int (*)(FILE*)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!file) throw Error(path + ": cannot open file (" + std::strerror(errno) + ")");
  struct stat info {};
  if (::fstat(::fileno(file.get()), &info) == 0 && S_ISDIR(info.st_mode)) {
    throw Error(path + ": is a directory, not an image");  // fopen opens one for reading on Linux
  }
  // The readers below seek. A pipe (/dev/stdin) cannot: its bytes are read
  // into memory, as many as its header says an image can need.
  if (std::fseek(file.get(), 0, SEEK_SET) != 0) {
    piped = read_piped(path, file.get(), options);
    file.reset(fmemopen(piped.data(), piped.size(), "rb"));
    if (!file) throw Error(path + ": cannot read file");
  }
  unsigned char head[34] = {};
  const size_t head_size = std::fread(head, 1, sizeof head, file.get());
  if (std::ferror(file.get())) throw Error(path + ": cannot read file (" + std::strerror(errno) + ")");
  if (head_size == 0) throw Error(path + ": empty input");  // as a piped one
  if (head_size >= 2 && head[0] == 'P' && head[1] >= '1' && head[1] <= '7') {
    if (head[1] == '5' || head[1] == '6') {
      if (std::fseek(file.get(), 2, SEEK_SET) != 0) throw Error(path + ": cannot read file");
      if (!colour) return load_binary_pnm(path, file.get(), head[1] == '5' ? 1 : 3, options);
      GrayImage gray = load_binary_pnm(path, file.get(), head[1] == '5' ? 1 : 3, options, &colour->pixels);
      colour->width = gray.width;
      colour->height = gray.height;
      return gray;
    }
    throw Error(path + ": PNM type P" + std::string(1, static_cast<char>(head[1])) +
                " is not supported (only binary P5 grey and P6 colour)");
  }
  std::rewind(file.get());
  refuse_fill_before_soi(path, head, head_size);
  refuse_negative_bmp_compression(path, head, head_size);
  const bool jpeg = is_jpeg(head, head_size);
  if (is_png(head, head_size)) {
    check_png_chunks(path, file.get());
    // Before stb_image, which refuses more than 2^30 bytes of pixels as
    // "unknown type, or corrupt".
    if (head_size >= 24 && std::memcmp(head + 12, "IHDR", 4) == 0) {
      check_size_limits(path, read_be32(head + 16), read_be32(head + 20), options);
    }
  }
  // A JPEG is checked before stb_image reads any of it: even stbi_info builds
  // the Huffman tables that come before the frame header, and stb_image 2.27
  // writes past a table's arrays when it declares more than 256 codes.
  std::vector<unsigned char> jpeg_bytes;
  if (jpeg) jpeg_bytes = check_jpeg_file(path, file.get(), options);
  int w = 0, h = 0, n = 0;
  const int known =
      jpeg ? stbi_info_from_memory(jpeg_bytes.data(), static_cast<int>(jpeg_bytes.size()), &w, &h, &n)
           : stbi_info_from_file(file.get(), &w, &h, &n);
  if (!known) throw Error(path + ": not a supported image (" + std::string(stbi_failure_reason()) + ")");
  check_size_limits(path, w, h, options);
  const long long expected = expected_file_size(head, head_size);
  if (expected >= 0) {
    if (std::fseek(file.get(), 0, SEEK_END) != 0) throw Error(path + ": cannot read file");
    const long long found = std::ftell(file.get());
    if (found < expected)
      throw Error(path + ": truncated image data (file of " + std::to_string(found) +
                  " bytes, the header needs " + std::to_string(expected) + ")");
    std::rewind(file.get());
  }
  if (is_tga(head, head_size, 9, 11)) check_rle_tga_length(path, file.get(), head);
  if (is_tga(head, head_size, 1, 11)) check_tga_indices(path, file.get(), head);
  Pixels data(nullptr, &stbi_image_free);
  int orientation = 1;  // EXIF's, of a JPEG
  if (jpeg) {           // checked above, decoded from memory
    data.reset(stbi_load_from_memory(jpeg_bytes.data(), static_cast<int>(jpeg_bytes.size()), &w, &h, &n, 0));
    if (options.exif_orientation) orientation = jpeg_exif_orientation(jpeg_bytes.data(), jpeg_bytes.size());
    jpeg_bytes = std::vector<unsigned char>();  // freed before the conversion to grey
  } else if (stbi_is_16_bit_from_file(file.get())) {
    // A 16-bit PNG. stb_image would keep each sample's top byte; rounded to
    // 8 bits here instead, as a 16-bit PNM's samples are.
    const std::unique_ptr<stbi_us, void (*)(void*)> samples(stbi_load_from_file_16(file.get(), &w, &h, &n, 0),
                                                            &stbi_image_free);
    if (!samples) throw Error(path + ": cannot decode image (" + stbi_failure_reason() + ")");
    const auto to_8bit = [](unsigned v) { return static_cast<std::uint8_t>((v * 255 + 32767) / 65535); };
    if (colour) *colour = rgb_of(samples.get(), w, h, n, to_8bit);
    return gray_of(samples.get(), w, h, n, to_8bit);
  } else {
    data = decode_short_palette(path, file.get(), head, head_size, w, h, n);
    if (!data) data.reset(stbi_load_from_file(file.get(), &w, &h, &n, 0));
  }
  if (!data) throw Error(path + ": cannot decode image (" + stbi_failure_reason() + ")");
  const auto to_8bit = [](unsigned v) { return static_cast<std::uint8_t>(v); };
  GrayImage gray = gray_of(data.get(), w, h, n, to_8bit);
  if (colour) *colour = apply_exif_orientation(rgb_of(data.get(), w, h, n, to_8bit), orientation);
  data.reset();
  return apply_exif_orientation(std::move(gray), orientation);
}

bool is_image_name(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (const char* e : {".png", ".jpg", ".jpeg", ".bmp", ".tga", ".pgm", ".ppm", ".pnm"}) {
    if (ext == e) return true;
  }
  return false;
}

std::vector<std::string> images_in_directory(const std::string& dir) {
  std::vector<std::string> found;
  std::error_code ec;
  for (auto it = std::filesystem::directory_iterator(dir, ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    std::error_code type_error;
    const bool broken_link = it->is_symlink(type_error) && !it->exists(type_error);
    if ((it->is_regular_file(type_error) || broken_link) && is_image_name(it->path().string())) {
      found.push_back(it->path().string());
    }
  }
  if (ec) throw Error(dir + ": cannot read directory (" + ec.message() + ")");
  std::sort(found.begin(), found.end());
  return found;
}

GrayImage resize(const GrayImage& image, int width, int height) {
  GLSURF_EXPECTS(width > 0 && height > 0 && image.width > 0 && image.height > 0,
                 "resize needs non-empty sizes");
  GrayImage out(width, height);
  const double sx = static_cast<double>(image.width) / width;
  const double sy = static_cast<double>(image.height) / height;
  for (int y = 0; y < height; ++y) {
    const double fy = std::clamp((y + 0.5) * sy - 0.5, 0.0, image.height - 1.0);
    const int y0 = static_cast<int>(fy);
    const int y1 = std::min(y0 + 1, image.height - 1);
    const double wy = fy - y0;
    for (int x = 0; x < width; ++x) {
      const double fx = std::clamp((x + 0.5) * sx - 0.5, 0.0, image.width - 1.0);
      const int x0 = static_cast<int>(fx);
      const int x1 = std::min(x0 + 1, image.width - 1);
      const double wx = fx - x0;
      const double top = image.at(x0, y0) * (1 - wx) + image.at(x1, y0) * wx;
      const double bottom = image.at(x0, y1) * (1 - wx) + image.at(x1, y1) * wx;
      out.at(x, y) = static_cast<std::uint8_t>(std::lround(top * (1 - wy) + bottom * wy));
    }
  }
  return out;
}

}  // namespace glsurf
