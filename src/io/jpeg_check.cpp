#include "io/jpeg_check.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "gl/error.hpp"

namespace glsurf {

namespace {

constexpr int kFastBits = 9;  // codes this short are decoded by one table look-up

// A canonical Huffman table (ISO 10918-1, Annex C), as a decoder reads it.
struct HuffmanTable {
  bool defined = false;
  std::array<std::uint8_t, 256> symbols{};
  std::array<int, 17> max_code{};                    // largest code of each length, -1 when none
  std::array<int, 17> offset{};                      // a code of length l is symbols[offset[l] + code]
  std::array<std::uint16_t, 1 << kFastBits> fast{};  // length << 8 | symbol; 0: longer

  // False when the counts do not form a prefix code.
  bool build(const unsigned char* counts, const unsigned char* values) {
    fast.fill(0);
    int code = 0, k = 0;
    for (int length = 1; length <= 16; ++length) {
      offset[length] = k - code;
      for (int i = 0; i < counts[length - 1]; ++i, ++code, ++k) {
        if (code >= 1 << length) return false;  // before `fast` is written with it
        symbols[k] = values[k];
        if (length <= kFastBits) {
          const int shift = kFastBits - length;
          for (int j = 0; j < 1 << shift; ++j)
            fast[(code << shift) | j] = static_cast<std::uint16_t>(length << 8 | values[k]);
        }
      }
      max_code[length] = counts[length - 1] ? code - 1 : -1;
      code <<= 1;
    }
    defined = true;
    return true;
  }
};

// The entropy-coded bits of a scan, most significant first, with stuffed
// zero bytes (0xFF 0x00) removed. At a marker or the end of the file it goes
// on with zero bits, as decoders do, and records when a decode used one.
class BitReader {
 public:
  BitReader(const unsigned char* data, size_t size, size_t pos) : data_(data), size_(size), pos_(pos) {}

  unsigned peek(int n) {
    if (bits_ < n) fill();
    return static_cast<unsigned>(acc_ >> (bits_ - n)) & ((1u << n) - 1);
  }
  void skip(int n) {
    if (bits_ < n) fill();
    bits_ -= n;
    file_bits_ -= n;  // below 0 once a bit past the data is used: no file bits come after those
  }
  unsigned get(int n) {
    if (n == 0) return 0;
    const unsigned v = peek(n);
    skip(n);
    return v;
  }
  // Whether a decode has used bits past the scan's data.
  bool overrun() const { return file_bits_ < 0; }

  // At the end of a restart interval: the data must end within the current
  // byte and be followed by marker RST`n`, after which reading starts afresh.
  bool restart(int n) {
    fill();
    if (!at_marker_ || file_bits_ >= 8) return false;
    const size_t p = past_fill(marker_);
    if (p >= size_ || data_[p] != 0xD0 + n) return false;
    pos_ = p + 1;
    acc_ = 0;
    bits_ = file_bits_ = 0;
    at_marker_ = false;
    return true;
  }

  // After a scan's last MCU: whether the bytes past the current one, up to
  // the next marker, are all zero. Some cameras pad a scan with zeros; coded
  // data there means the decode fell out of step with the encoder's.
  bool only_zeros_left() {
    fill();
    if (const int whole = file_bits_ / 8; whole > 0) {
      const std::uint64_t v = acc_ >> (bits_ - file_bits_);
      if ((whole >= 8 ? v : v & ((std::uint64_t{1} << (8 * whole)) - 1)) != 0) return false;
    }
    if (at_marker_) return true;
    for (size_t p = pos_; p < size_; ++p) {
      if (data_[p] == 0xFF) {  // a marker, or a stuffed 0xFF
        const size_t code = past_fill(p);
        return code < size_ && data_[code] != 0x00;
      }
      if (data_[p] != 0) return false;
    }
    return true;
  }

  // Where to look for the next marker once the scan is done.
  size_t resume() const { return at_marker_ ? marker_ : pos_; }

 private:
  // Past the 0xFF bytes from `p`: where the code after a 0xFF lies. Fill
  // bytes may repeat the 0xFF, and stb_image and libjpeg skip them there, in
  // coded data too: 0xFF 0xFF 0x00 is a stuffed 0xFF to them, not a marker.
  size_t past_fill(size_t p) const {
    while (p < size_ && data_[p] == 0xFF) ++p;
    return p;
  }

  void fill() {
    while (bits_ <= 56) {
      unsigned byte = 0;
      if (!at_marker_) {
        if (pos_ < size_ && data_[pos_] != 0xFF) {
          byte = data_[pos_++];
          file_bits_ += 8;
        } else if (const size_t zero = past_fill(pos_); zero < size_ && data_[zero] == 0x00) {
          byte = 0xFF;
          pos_ = zero + 1;
          file_bits_ += 8;
        } else {  // a marker, or the end of the file
          at_marker_ = true;
          marker_ = pos_;
        }
      }
      acc_ = acc_ << 8 | byte;
      bits_ += 8;
    }
  }

  const unsigned char* data_;
  size_t size_, pos_;
  std::uint64_t acc_ = 0;
  int bits_ = 0;       // bits held in acc_ (the low ones)
  int file_bits_ = 0;  // of those, the oldest that came from the file (< 0: more were used)
  bool at_marker_ = false;
  size_t marker_ = 0;  // the marker's first 0xFF (size_: the end of the file)
};

unsigned be16(const unsigned char* p) { return static_cast<unsigned>(p[0]) << 8 | p[1]; }

struct Component {
  int id = 0, h = 1, v = 1;
  int table = 0;                       // quantization table
  int blocks_x = 0, blocks_y = 0;      // blocks holding image data
  bool coded = false;                  // in some scan
  std::array<int, 64> bit{};           // progressive: last point transform of each coefficient, -1 none yet
  std::vector<std::uint64_t> nonzero;  // progressive: coefficients of each block that are not zero
};

class Checker {
 public:
  Checker(const std::string& path, const unsigned char* data, size_t size,
          const std::function<void(int, int)>& frame_size, bool to_frame_only = false)
      : path_(path), data_(data), size_(size), frame_size_(frame_size), to_frame_only_(to_frame_only) {}

  // Whether the walk reached a frame header; with to_frame_only, the walk
  // stops there, and also (without an error) where the data ends first.
  bool found_frame() const { return found_frame_; }
  bool found_end_marker() const { return found_end_marker_; }

  void run() {
    if (size_ < 2 || data_[0] != 0xFF || data_[1] != 0xD8) return;  // not a JPEG: stb_image says so
    size_t pos = 2;
    for (;;) {
      while (pos < size_ && data_[pos] != 0xFF) ++pos;  // bytes between segments
      while (pos < size_ && data_[pos] == 0xFF) ++pos;  // fill bytes
      if (pos >= size_)
        return to_frame_only_ ? void() : finish(false);  // no end marker: fine if scans are whole
      const int marker = data_[pos++];
      if (marker == 0xD9) {
        found_end_marker_ = true;
        return to_frame_only_ ? void() : finish(true);
      }
      // No length: stuffed data (0x00) and restart markers past a scan's
      // last MCU, TEM, SOI.
      if (marker == 0x00 || marker == 0x01 || (marker >= 0xD0 && marker <= 0xD8)) continue;
      if (pos + 2 > size_ || pos + be16(data_ + pos) > size_) {
        if (to_frame_only_) return;  // the rest has not come yet
        fail("a segment runs past the end of the file");
      }
      if (be16(data_ + pos) < 2) fail("a segment length below 2");
      const unsigned char* segment = data_ + pos + 2;
      const size_t length = be16(data_ + pos) - 2;
      pos += length + 2;
      if (marker == 0xC0 || marker == 0xC1 || marker == 0xC2) {
        found_frame_ = true;
        if (!frame(marker == 0xC2, segment, length) || to_frame_only_) return;
      } else if (marker >= 0xC3 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8) {
        unsupported(frame_kind(marker));
      } else if (marker == 0xC4) {
        huffman_tables(segment, length);
      } else if (marker == 0xDB) {
        quantization_tables(segment, length);
      } else if (marker == 0xDD) {
        if (length < 2) fail("a restart interval segment too short");
        restart_interval_ = static_cast<int>(be16(segment));
      } else if (marker == 0xDA) {
        if (components_.empty()) return;  // a scan before the frame: stb_image refuses it
        pos = scan(segment, length, pos);
      }
    }
  }

 private:
  [[noreturn]] void fail(const std::string& why) const {
    throw Error(path_ + ": corrupt JPEG (" + why + ")");
  }

  // A valid JPEG that stb_image cannot decode: said so, rather than left to
  // stb_image, whose reason ("unknown type, or corrupt") blames the file.
  [[noreturn]] void unsupported(const std::string& kind) const {
    throw Error(path_ + ": JPEG not supported (" + kind +
                "); glsurf reads baseline and progressive Huffman-coded JPEGs of 8-bit samples");
  }

  // The kind of frame a SOFn marker (0xC3, 0xC5 .. 0xCF but 0xC8 and 0xCC)
  // or the arithmetic-coding DAC segment (0xCC) starts.
  static std::string frame_kind(int marker) {
    char code[8];
    std::snprintf(code, sizeof code, "0x%02X", marker);
    if (marker == 0xCC) return "arithmetic-coded: a DAC segment";
    if (marker == 0xC3) return std::string("lossless: frame marker ") + code;
    if (marker >= 0xC9 && marker <= 0xCB) return std::string("arithmetic-coded: frame marker ") + code;
    return std::string(marker >= 0xCD ? "hierarchical, arithmetic-coded" : "hierarchical") +
           ": frame marker " + code;
  }

  // False for a frame header stb_image refuses as corrupt (no width, or a
  // component count other than 1 to 4).
  bool frame(bool progressive, const unsigned char* s, size_t n) {
    if (!components_.empty()) fail("a second frame header");
    if (n < 6) fail("a frame header too short");
    const int precision = s[0], count = s[5];
    height_ = static_cast<int>(be16(s + 1));
    width_ = static_cast<int>(be16(s + 3));
    if (precision != 8) unsupported(std::to_string(precision) + "-bit samples");
    if (height_ == 0) unsupported("the height given after the first scan, by a DNL marker");
    if (width_ == 0 || count < 1 || count > 4) return false;
    if (n < 6 + 3 * static_cast<size_t>(count)) fail("a frame header too short");
    if (frame_size_) frame_size_(width_, height_);
    progressive_ = progressive;
    for (int c = 0; c < count; ++c) {
      Component comp;
      comp.id = s[6 + 3 * c];
      comp.h = s[7 + 3 * c] >> 4;
      comp.v = s[7 + 3 * c] & 15;
      comp.table = s[8 + 3 * c];
      if (comp.h < 1 || comp.h > 4 || comp.v < 1 || comp.v > 4 || comp.table > 3) return false;
      max_h_ = std::max(max_h_, comp.h);
      max_v_ = std::max(max_v_, comp.v);
      comp.bit.fill(-1);
      components_.push_back(comp);
    }
    for (Component& c : components_) {
      c.blocks_x = ((width_ * c.h + max_h_ - 1) / max_h_ + 7) / 8;
      c.blocks_y = ((height_ * c.v + max_v_ - 1) / max_v_ + 7) / 8;
    }
    return true;
  }

  // stb_image dequantises with whatever its memory held for a table the
  // file never defines.
  void quantization_tables(const unsigned char* s, size_t n) {
    while (n > 0) {
      const int precision = s[0] >> 4, id = s[0] & 15;
      const size_t size = 1 + 64 * static_cast<size_t>(precision + 1);
      if (precision > 1 || id > 3)
        fail("a quantization table with precision " + std::to_string(precision) + ", id " +
             std::to_string(id));
      if (n < size) fail("a quantization table segment too short");
      quantization_[id] = true;
      s += size;
      n -= size;
    }
  }

  void huffman_tables(const unsigned char* s, size_t n) {
    while (n > 0) {
      if (n < 17) fail("a Huffman table segment too short");
      const int table_class = s[0] >> 4, id = s[0] & 15;
      if (table_class > 1 || id > 3)
        fail("a Huffman table with class " + std::to_string(table_class) + ", id " + std::to_string(id));
      size_t total = 0;
      for (int i = 1; i <= 16; ++i) total += s[i];
      if (total > 256) fail("a Huffman table of " + std::to_string(total) + " codes (256 at most)");
      if (n < 17 + total) fail("a Huffman table segment too short");
      HuffmanTable& t = (table_class == 0 ? dc_ : ac_)[id];
      if (!t.build(s + 1, s + 17)) fail("Huffman code lengths that are not a prefix code");
      s += 17 + total;
      n -= 17 + total;
    }
  }

  struct ScanComponent {
    Component* c;
    const HuffmanTable* dc;
    const HuffmanTable* ac;
  };

  // Checks the scan whose header is `s` and whose data starts at `pos`;
  // returns where to look for the next marker.
  size_t scan(const unsigned char* s, size_t n, size_t pos) {
    ++scans_;
    const size_t count = n > 0 ? s[0] : 0;
    if (count < 1 || count > 4 || n < 4 + 2 * count) fail("a bad scan header");
    const int ss = s[1 + 2 * count], se = s[2 + 2 * count], ah = s[3 + 2 * count] >> 4,
              al = s[3 + 2 * count] & 15;
    const bool dc_scan = !progressive_ || ss == 0, ac_scan = !progressive_ || ss > 0;
    if (progressive_ &&
        (ss > se || se > 63 || (ss == 0 && se != 0) || (ss > 0 && count != 1) || (ah > 0 && al != ah - 1))) {
      fail("scan " + std::to_string(scans_) + " has a bad spectral band or point transform");
    }
    std::vector<ScanComponent> comps;
    for (size_t i = 0; i < count; ++i) {
      Component* c = nullptr;
      for (Component& f : components_) {
        if (f.id == s[1 + 2 * i]) c = &f;
      }
      if (!c) fail("a scan of a component the frame does not have");
      const int dc_id = s[2 + 2 * i] >> 4, ac_id = s[2 + 2 * i] & 15;
      if (dc_id > 3 || ac_id > 3) fail("a scan names Huffman table ids beyond 3");
      const HuffmanTable* dc = &dc_[dc_id];
      const HuffmanTable* ac = &ac_[ac_id];
      if ((dc_scan && ah == 0 && !dc->defined) || (ac_scan && !ac->defined))
        fail("a scan uses a Huffman table never defined");
      c->coded = true;
      if (progressive_ && ss > 0 &&
          c->nonzero.empty()) {  // at its first AC scan, not from the frame header alone
        c->nonzero.assign(static_cast<size_t>(c->blocks_x) * c->blocks_y, 0);
      }
      if (!quantization_[c->table]) fail("a scan of a component whose quantization table is never defined");
      if (progressive_) {
        for (int k = ss; k <= se; ++k) {
          if (c->bit[k] != (ah == 0 ? -1 : ah)) {
            fail("scan " + std::to_string(scans_) +
                 " codes a coefficient out of turn (successive approximation)");
          }
          c->bit[k] = al;
        }
      }
      comps.push_back({c, dc, ac});
    }

    long long mcus_x, mcus_y;
    if (count == 1) {
      mcus_x = comps[0].c->blocks_x;
      mcus_y = comps[0].c->blocks_y;
    } else {
      mcus_x = (width_ + 8LL * max_h_ - 1) / (8LL * max_h_);
      mcus_y = (height_ + 8LL * max_v_ - 1) / (8LL * max_v_);
    }
    const long long total = mcus_x * mcus_y;
    BitReader bits(data_, size_, pos);
    long long eob_run = 0;
    int next_restart = 0;
    for (long long m = 0; m < total; ++m) {
      if (restart_interval_ > 0 && m > 0 && m % restart_interval_ == 0) {
        if (!bits.restart(next_restart)) {
          fail("scan " + std::to_string(scans_) + " lacks restart marker RST" + std::to_string(next_restart) +
               " after MCU " + std::to_string(m) + " of " + std::to_string(total));
        }
        next_restart = (next_restart + 1) & 7;
        eob_run = 0;
      }
      const long long mx = m % mcus_x, my = m / mcus_x;
      for (const ScanComponent& sc : comps) {
        const int h = count == 1 ? 1 : sc.c->h, v = count == 1 ? 1 : sc.c->v;
        for (int y = 0; y < v; ++y)
          for (int x = 0; x < h; ++x) {
            if (!progressive_) {
              sequential_block(bits, *sc.dc, *sc.ac);
            } else if (ss == 0) {
              if (ah == 0)
                bits.skip(dc_category(bits, *sc.dc));
              else
                bits.skip(1);
            } else {
              std::uint64_t& nonzero =
                  sc.c->nonzero[static_cast<size_t>(my * v + y) * sc.c->blocks_x + mx * h + x];
              if (ah == 0)
                first_ac(bits, *sc.ac, ss, se, eob_run, nonzero);
              else
                refine_ac(bits, *sc.ac, ss, se, eob_run, nonzero);
            }
          }
      }
      if (bits.overrun()) {
        fail("the coded data of scan " + std::to_string(scans_) + " ends within MCU " +
             std::to_string(m + 1) + " of " + std::to_string(total));
      }
    }
    if (!bits.only_zeros_left()) {
      fail("the coded data of scan " + std::to_string(scans_) + " goes on past its last MCU (out of step)");
    }
    return bits.resume();
  }

  int decode(BitReader& bits, const HuffmanTable& t) const {
    const unsigned code16 = bits.peek(16);
    if (const unsigned f = t.fast[code16 >> (16 - kFastBits)]) {
      bits.skip(static_cast<int>(f >> 8));
      return static_cast<int>(f & 0xFF);
    }
    for (int length = kFastBits + 1; length <= 16; ++length) {
      const int code = static_cast<int>(code16 >> (16 - length));
      if (code <= t.max_code[length]) {
        bits.skip(length);
        return t.symbols[t.offset[length] + code];
      }
    }
    fail("scan " + std::to_string(scans_) + " holds a Huffman code that its table does not define");
  }

  int dc_category(BitReader& bits, const HuffmanTable& dc) const {
    const int t = decode(bits, dc);
    if (t > 15) fail("a DC difference of category " + std::to_string(t));
    return t;
  }

  void sequential_block(BitReader& bits, const HuffmanTable& dc, const HuffmanTable& ac) const {
    bits.skip(dc_category(bits, dc));
    for (int k = 1; k < 64;) {
      const int rs = decode(bits, ac), r = rs >> 4, s = rs & 15;
      if (s == 0) {
        if (r != 15) break;  // end of block
        k += 16;
        if (k > 64) beyond_band();
      } else {
        k += r;
        if (k > 63) beyond_band();
        bits.skip(s);
        ++k;
      }
    }
  }

  // A progressive scan's first pass over coefficients ss..se of a block
  // (ISO 10918-1, G.1.2.2), noting which become nonzero.
  void first_ac(BitReader& bits, const HuffmanTable& ac, int ss, int se, long long& eob_run,
                std::uint64_t& nonzero) const {
    if (eob_run > 0) {
      --eob_run;
      return;
    }
    for (int k = ss; k <= se;) {
      const int rs = decode(bits, ac), r = rs >> 4, s = rs & 15;
      if (s == 0) {
        if (r < 15) {
          eob_run = (1LL << r) - 1 + bits.get(r);
          return;
        }
        k += 16;
        if (k > se + 1) beyond_band();
      } else {
        k += r;
        if (k > se) beyond_band();
        bits.skip(s);
        nonzero |= std::uint64_t{1} << k;
        ++k;
      }
    }
  }

  // A refinement pass (G.1.2.3): a correction bit for each coefficient
  // already nonzero, and new coefficients of magnitude one.
  void refine_ac(BitReader& bits, const HuffmanTable& ac, int ss, int se, long long& eob_run,
                 std::uint64_t& nonzero) const {
    int k = ss;
    if (eob_run == 0) {
      for (; k <= se; ++k) {
        const int rs = decode(bits, ac), s = rs & 15;
        int r = rs >> 4;
        if (s != 0) {
          if (s != 1) fail("scan " + std::to_string(scans_) + " refines a coefficient by more than one bit");
          bits.skip(1);
        } else if (r != 15) {
          eob_run = (1LL << r) + bits.get(r);
          break;
        }
        // Past the nonzero coefficients (a correction bit each) and r zero
        // ones, to the zero coefficient this symbol makes nonzero.
        for (; k <= se; ++k) {
          if (nonzero >> k & 1)
            bits.skip(1);
          else if (--r < 0)
            break;
        }
        if (s != 0) {
          if (k > se) beyond_band();
          nonzero |= std::uint64_t{1} << k;
        }
      }
    }
    if (eob_run > 0) {
      for (; k <= se; ++k) {
        if (nonzero >> k & 1) bits.skip(1);
      }
      --eob_run;
    }
  }

  [[noreturn]] void beyond_band() const {
    fail("scan " + std::to_string(scans_) + " codes a coefficient beyond its block or band");
  }

  // The standard lets a progressive file leave coefficients out, or stop
  // refining them before bit 0 (libjpeg's encoder takes such scripts), so
  // that is refused only in a file that also lacks its end marker: one cut
  // between two scans.
  void finish(bool end_marker) const {
    for (size_t i = 0; i < components_.size(); ++i) {
      const Component& c = components_[i];
      const std::string which =
          "component " + std::to_string(i + 1) + " of " + std::to_string(components_.size());
      if (!c.coded) fail(which + " is in no scan");
      if (!progressive_ || end_marker) continue;
      for (int k = 0; k < 64; ++k) {
        if (c.bit[k] != 0) {
          fail(
              "the file ends without an end marker, and " + which + "'s coefficient " + std::to_string(k) +
              (c.bit[k] < 0 ? " is in no scan" : " is refined only down to bit " + std::to_string(c.bit[k])));
        }
      }
    }
  }

  const std::string& path_;
  const unsigned char* data_;
  size_t size_;
  const std::function<void(int, int)>& frame_size_;
  const bool to_frame_only_;
  bool found_frame_ = false;
  std::vector<Component> components_;
  bool progressive_ = false;
  int width_ = 0, height_ = 0, max_h_ = 1, max_v_ = 1;
  int restart_interval_ = 0, scans_ = 0;
  std::array<HuffmanTable, 4> dc_{}, ac_{};
  bool found_end_marker_ = false;
  std::array<bool, 4> quantization_{};
};

}  // namespace

bool check_jpeg(const std::string& path, const unsigned char* data, size_t size,
                const std::function<void(int width, int height)>& frame_size) {
  Checker checker(path, data, size, frame_size);
  checker.run();
  return checker.found_end_marker();
}

bool check_jpeg_to_frame(const std::string& path, const unsigned char* data, size_t size,
                         const std::function<void(int width, int height)>& frame_size) {
  Checker checker(path, data, size, frame_size, true);
  checker.run();
  return checker.found_frame();
}

}  // namespace glsurf
