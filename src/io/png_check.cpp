// PNG chunk checksums, checked before stb_image decodes a PNG.
//
// stb_image checks neither a PNG chunk's CRC-32 nor zlib's Adler-32, so a
// flipped bit in the compressed pixels decodes, most of the time, to a wrong
// picture without a word. Every critical chunk's CRC (ISO 3309, as PNG
// specifies it: over the type and the data) is checked here, up to IEND, and
// the IDAT chunks' zlib stream is inflated (into a scratch buffer, dropped)
// so that zlib checks its Adler-32 over the pixel data: a file whose data was
// changed and its CRCs made to match again, or that was written wrong, is
// refused too. Bytes after the stream's end are let be, as libpng lets them.
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "io/image_format.hpp"

namespace glsurf::image_format {

unsigned read_be32(const unsigned char* p) {
  return (unsigned{p[0]} << 24) | (unsigned{p[1]} << 16) | (unsigned{p[2]} << 8) | p[3];
}

bool is_png(const unsigned char* head, size_t size) {
  static const unsigned char signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  return size >= 8 && std::memcmp(head, signature, 8) == 0;
}

namespace {

std::uint32_t crc32_update(std::uint32_t crc, const unsigned char* bytes, size_t n) {
  static const std::array<std::uint32_t, 256> table = [] {
    std::array<std::uint32_t, 256> t{};
    for (std::uint32_t i = 0; i < 256; ++i) {
      std::uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  for (size_t i = 0; i < n; ++i) crc = table[(crc ^ bytes[i]) & 0xff] ^ (crc >> 8);
  return crc;
}

// The IDAT chunks' zlib stream, fed chunk by chunk to zlib's inflate, which
// checks the Adler-32 at its end. A zlib error is held until check(), so that
// a chunk whose CRC fails as well is reported by its CRC.
class IdatStream {
 public:
  explicit IdatStream(const std::string& path) : path_(path) {
    if (const int r = inflateInit(&z_); r != Z_OK) {
      throw Error(path + ": cannot check PNG data (zlib: " + message(r) + ")");
    }
  }
  ~IdatStream() { inflateEnd(&z_); }
  IdatStream(const IdatStream&) = delete;
  IdatStream& operator=(const IdatStream&) = delete;

  void feed(const unsigned char* bytes, size_t n) {
    if (ended_ || !error_.empty()) return;           // bytes after the stream, or after an error
    z_.next_in = const_cast<unsigned char*>(bytes);  // zlib's API is not const (it never writes the input)
    z_.avail_in = static_cast<uInt>(n);
    while (z_.avail_in > 0 && !ended_) {
      z_.next_out = scratch_.data();
      z_.avail_out = static_cast<uInt>(scratch_.size());
      const int r = inflate(&z_, Z_NO_FLUSH);
      if (r == Z_STREAM_END) {
        ended_ = true;
      } else if (r != Z_OK) {  // Z_BUF_ERROR cannot occur: there is input and room
        error_ = path_ + ": corrupt PNG (image data: zlib: " + message(r) + ")";
        return;
      }
    }
  }
  void check() const {
    if (!error_.empty()) throw Error(error_);
  }
  // At IEND: the stream must have ended.
  void finish() const {
    check();
    if (!ended_) throw Error(path_ + ": corrupt PNG (image data: the zlib stream ends early)");
  }

 private:
  std::string message(int code) const { return z_.msg ? z_.msg : "code " + std::to_string(code); }
  std::string path_;
  z_stream z_{};
  std::array<unsigned char, 1 << 15> scratch_{};
  bool ended_ = false;
  std::string error_;
};

}  // namespace

void check_png_chunks(const std::string& path, FILE* file) {
  if (std::fseek(file, 8, SEEK_SET) != 0) throw Error(path + ": cannot read file");
  std::vector<unsigned char> block(1 << 16);
  IdatStream idat(path);
  for (;;) {
    unsigned char header[8], stored[4];
    if (std::fread(header, 1, 8, file) != 8) throw Error(path + ": truncated PNG (no IEND chunk)");
    const std::uint32_t length = read_be32(header);
    std::string type(reinterpret_cast<const char*>(header + 4), 4);
    if (!std::all_of(type.begin(), type.end(),
                     [](char c) { return std::isalpha(static_cast<unsigned char>(c)); }))
      throw Error(path + ": corrupt PNG (a chunk type that is not four letters)");
    if (length > 0x7fffffffu)
      throw Error(path + ": corrupt PNG (chunk " + type + " longer than 2^31 - 1 bytes)");
    std::uint32_t crc = crc32_update(0xffffffffu, header + 4, 4);
    for (std::uint32_t left = length; left > 0;) {
      const size_t want = std::min<size_t>(left, block.size());
      if (std::fread(block.data(), 1, want, file) != want)
        throw Error(path + ": truncated PNG (in chunk " + type + ")");
      crc = crc32_update(crc, block.data(), want);
      if (type == "IDAT") idat.feed(block.data(), want);
      left -= static_cast<std::uint32_t>(want);
    }
    if (std::fread(stored, 1, 4, file) != 4) throw Error(path + ": truncated PNG (in chunk " + type + ")");
    const std::uint32_t expected = read_be32(stored);
    // An ancillary chunk (lower-case first letter: text, time, gamma, ...)
    // that fails is ignored, as libpng ignores it by default: none of them
    // changes the grey values read here (tRNS is alpha, which is dropped).
    const bool critical = std::isupper(static_cast<unsigned char>(type[0]));
    if (critical && (crc ^ 0xffffffffu) != expected)
      throw Error(path + ": corrupt PNG (checksum of chunk " + type + " does not match)");
    idat.check();
    if (type == "IEND") break;
  }
  idat.finish();
  std::rewind(file);
}

}  // namespace glsurf::image_format
