// The JPEG check (io/jpeg_check.hpp): files from two encoders pass, and each
// kind of damage it names is refused with its reason. Valid files: stb's
// writer (baseline, grey and colour, 4:2:0 and 4:4:4, sizes that are not
// whole MCUs) and libjpeg-turbo's cjpeg (tests/data: progressive with
// restart intervals, baseline with restart markers; see tests/data/README.md).
#include <doctest/doctest.h>
#include <stb_image_write.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "gl/error.hpp"
#include "io/image.hpp"
#include "io/jpeg_check.hpp"

using namespace glsurf;

namespace {

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// A smooth pattern with some texture, so that blocks have AC coefficients.
std::string stb_jpeg(int w, int h, int channels, int quality) {
  std::vector<unsigned char> pixels(static_cast<size_t>(w) * h * channels);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int c = 0; c < channels; ++c) {
        pixels[(static_cast<size_t>(y) * w + x) * channels + c] =
            static_cast<unsigned char>((x * 7 + y * 3 + c * 50 + (x * y) % 23) & 255);
      }
  std::string out;
  REQUIRE(stbi_write_jpg_to_func(
      [](void* to, void* data, int size) {
        static_cast<std::string*>(to)->append(static_cast<const char*>(data), static_cast<size_t>(size));
      },
      &out, w, h, channels, pixels.data(), quality));
  return out;
}

void check(const std::string& bytes) {
  check_jpeg("x.jpg", reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
}

// Positions of marker `code` (0xFF code) in the file.
std::vector<size_t> markers(const std::string& bytes, unsigned char code) {
  std::vector<size_t> out;
  for (size_t i = 0; i + 1 < bytes.size(); ++i) {
    if (static_cast<unsigned char>(bytes[i]) == 0xFF && static_cast<unsigned char>(bytes[i + 1]) == code)
      out.push_back(i);
  }
  return out;
}

// Where the entropy-coded data of the first scan starts.
size_t first_scan_data(const std::string& bytes) {
  const size_t sos = markers(bytes, 0xDA).at(0);
  return sos + 2 +
         ((static_cast<unsigned char>(bytes[sos + 2]) << 8) | static_cast<unsigned char>(bytes[sos + 3]));
}

// Where the segment after the scan at `sos` starts (the first marker past
// its data that is not a restart marker).
size_t after_scan(const std::string& bytes, size_t sos) {
  size_t i = sos + 2 +
             ((static_cast<unsigned char>(bytes[sos + 2]) << 8) | static_cast<unsigned char>(bytes[sos + 3]));
  for (; i + 1 < bytes.size(); ++i) {
    const auto next = static_cast<unsigned char>(bytes[i + 1]);
    if (static_cast<unsigned char>(bytes[i]) == 0xFF && next != 0x00 && next != 0xFF &&
        (next < 0xD0 || next > 0xD7))
      break;
  }
  return i;
}

const std::string kEoi("\xff\xd9", 2);

}  // namespace

TEST_SUITE("cpu") {
  TEST_CASE("JPEG check: files from stb's writer and from libjpeg-turbo pass") {
    for (const int channels : {1, 3})
      for (const int quality : {50, 90, 100})  // stb subsamples chroma 2x2 up to 90
        for (const auto& size :
             std::vector<std::pair<int, int>>{{1, 1}, {8, 8}, {17, 9}, {33, 31}, {200, 150}}) {
          const int w = size.first, h = size.second;  // not bindings: INFO's lambda captures them (C++20)
          INFO(channels << " channels, quality " << quality << ", " << w << "x" << h);
          CHECK_NOTHROW(check(stb_jpeg(w, h, channels, quality)));
        }
    CHECK_NOTHROW(check(read_bytes(GLSURF_TEST_DATA_DIR "/box_progressive.jpg")));
    CHECK_NOTHROW(check(read_bytes(GLSURF_TEST_DATA_DIR "/box_restart.jpg")));
    // Tolerated: no end marker after whole scans, zeros after a scan's data
    // (some cameras write them) and bytes between segments.
    const std::string jpeg = stb_jpeg(64, 48, 3, 90);
    CHECK_NOTHROW(check(jpeg.substr(0, jpeg.size() - 2)));
    CHECK_NOTHROW(check(jpeg.substr(0, jpeg.size() - 2) + std::string(12, '\0') + kEoi));
    const size_t dqt = markers(jpeg, 0xDB).at(0);
    CHECK_NOTHROW(check(jpeg.substr(0, dqt) + "junk" + jpeg.substr(dqt)));
    // Other bytes after the last MCU: coded data out of step with the encoder.
    CHECK_THROWS_WITH_AS(
        check(jpeg.substr(0, jpeg.size() - 2) + "junk" + kEoi),
        doctest::Contains("the coded data of scan 1 goes on past its last MCU (out of step)"), Error);
    // A fill byte before a stuffed zero: 0xFF 0xFF 0x00 is coded 0xFF to
    // stb_image and libjpeg (both skip repeated 0xFF), not a marker that ends
    // the scan early; past the last MCU it is coded data like any other.
    const size_t stuffed = jpeg.find(std::string("\xff\x00", 2), first_scan_data(jpeg));
    REQUIRE(stuffed < jpeg.size() - 2);
    CHECK_NOTHROW(check(jpeg.substr(0, stuffed) + "\xff" + jpeg.substr(stuffed)));
    CHECK_THROWS_WITH_AS(check(jpeg.substr(0, jpeg.size() - 2) + std::string("\0\xff\xff\0", 4) + kEoi),
                         doctest::Contains("goes on past its last MCU"), Error);
    // Not a JPEG: left to stb_image to name.
    CHECK_NOTHROW(check("GIF89a"));
  }

  TEST_CASE("a JPEG that lacks only its end marker loads as the whole file does, with a warning") {
    const std::string jpeg = stb_jpeg(64, 48, 3, 90);
    const std::string cut = jpeg.substr(0, jpeg.size() - 2);
    const auto ends = [](const std::string& bytes) {
      return check_jpeg("x.jpg", reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
    };
    CHECK(ends(jpeg));
    CHECK(!ends(cut));
    const std::filesystem::path dir = std::filesystem::temp_directory_path() / "glsurf_jpeg_eoi";
    std::filesystem::create_directories(dir);
    std::ofstream((dir / "whole.jpg").string(), std::ios::binary) << jpeg;
    std::ofstream((dir / "cut.jpg").string(), std::ios::binary) << cut;
    std::vector<std::string> warnings;
    LoadOptions options;
    options.warn = [&](const std::string& what) { warnings.push_back(what); };
    const GrayImage whole = load_gray((dir / "whole.jpg").string(), options);
    CHECK(warnings.empty());
    const GrayImage read = load_gray((dir / "cut.jpg").string(), options);
    CHECK(read.pixels == whole.pixels);
    REQUIRE(warnings.size() == 1);
    CHECK(warnings[0] == (dir / "cut.jpg").string() +
                             ": no JPEG end marker (the scans are whole; read as if it were there)");
    std::filesystem::remove_all(dir);
  }

  TEST_CASE("JPEG check: valid frames stb_image cannot decode are named as not supported, not as corrupt") {
    const std::string jpeg = stb_jpeg(16, 16, 1, 90);
    const size_t sof = markers(jpeg, 0xC0).at(0);
    const auto with_marker = [&](unsigned char code) {
      std::string out = jpeg;
      out[sof + 1] = static_cast<char>(code);
      return out;
    };
    const struct {
      unsigned char marker;
      const char* kind;
    } kinds[] = {{0xC3, "lossless: frame marker 0xC3"},
                 {0xC5, "hierarchical: frame marker 0xC5"},
                 {0xC9, "arithmetic-coded: frame marker 0xC9"},
                 {0xCA, "arithmetic-coded: frame marker 0xCA"},
                 {0xCF, "hierarchical, arithmetic-coded: frame marker 0xCF"}};
    for (const auto& k : kinds) {
      CAPTURE(k.kind);
      const std::string message = std::string("JPEG not supported (") + k.kind + ")";
      CHECK_THROWS_WITH_AS(check(with_marker(k.marker)), doctest::Contains(message.c_str()), Error);
    }
    // The frame header after the marker and its length: precision, height, width.
    std::string twelve = jpeg, no_height = jpeg;
    twelve[sof + 4] = 12;
    no_height[sof + 5] = no_height[sof + 6] = 0;
    CHECK_THROWS_WITH_AS(check(twelve), doctest::Contains("JPEG not supported (12-bit samples)"), Error);
    CHECK_THROWS_WITH_AS(check(no_height),
                         doctest::Contains("JPEG not supported (the height given after the first scan"),
                         Error);
  }

  TEST_CASE("JPEG check: data that ends early is refused, also when an end marker closes it") {
    const std::string baseline = stb_jpeg(200, 150, 3, 90);
    const std::string progressive = read_bytes(GLSURF_TEST_DATA_DIR "/box_progressive.jpg");
    for (const std::string* jpeg : {&baseline, &progressive}) {
      // A cut in the baseline file's one scan leaves that scan short; one in
      // the progressive file may fall in a segment between its scans instead.
      const char* reason = jpeg == &baseline ? "ends within MCU" : "corrupt JPEG";
      const size_t start = first_scan_data(*jpeg);
      for (const double at : {0.1, 0.5, 0.9}) {
        const size_t cut = start + static_cast<size_t>(at * (jpeg->size() - 2 - start));
        INFO("cut at " << cut << " of " << jpeg->size());
        CHECK_THROWS_WITH_AS(check(jpeg->substr(0, cut) + kEoi), doctest::Contains(reason), Error);
        CHECK_THROWS_WITH_AS(check(jpeg->substr(0, cut)), doctest::Contains(reason), Error);
      }
    }
    // A frame header that claims more rows than the data holds (the 1 KB file
    // that claimed 16384 x 16384 kept the CPU backend busy for 107 s): the
    // first rows decode, then the data ends.
    std::string taller = baseline;
    const size_t sof = markers(taller, 0xC0).at(0);
    taller[sof + 5] = '\x40';  // height 16384
    taller[sof + 6] = '\x00';
    CHECK_THROWS_WITH_AS(check(taller), doctest::Contains("the coded data of scan 1 ends within MCU"), Error);
    // 13 x 1024 MCUs of 16 x 16 pixels (stb's writer subsamples chroma 2 x 2 up to quality 90).
    CHECK_THROWS_WITH(check(taller), doctest::Contains("of 13312)"));
  }

  TEST_CASE("JPEG check: missing or misnumbered restart markers are refused") {
    const std::string jpeg = read_bytes(GLSURF_TEST_DATA_DIR "/box_restart.jpg");
    const std::vector<size_t> rst = markers(jpeg, 0xD3);  // RST3: after the fourth interval
    REQUIRE(rst.size() == 1);
    CHECK_THROWS_WITH_AS(check(jpeg.substr(0, rst[0]) + jpeg.substr(rst[0] + 2)),
                         doctest::Contains("scan 1 lacks restart marker RST3 after MCU 28 of 70"), Error);
    std::string misnumbered = jpeg;
    misnumbered[rst[0] + 1] = '\xd4';
    CHECK_THROWS_WITH_AS(check(misnumbered), doctest::Contains("lacks restart marker RST3"), Error);
    // A restart interval (DRI) in a file whose encoder wrote no markers. stb's
    // writer codes grey as YCbCr too, here in 4 x 3 MCUs of 16 x 16 pixels.
    const std::string plain = stb_jpeg(64, 48, 1, 90);
    const std::string dri = plain.substr(0, 2) + std::string("\xff\xdd\x00\x04\x00\x05", 6) + plain.substr(2);
    CHECK_THROWS_WITH_AS(check(dri), doctest::Contains("lacks restart marker RST0 after MCU 5 of 12"), Error);
  }

  TEST_CASE("JPEG check: bad Huffman tables and codes are refused") {
    const std::string jpeg = stb_jpeg(64, 48, 1, 90);
    const size_t dht = markers(jpeg, 0xC4).at(0);
    // Counts summing past 256 (stb_image wrote past an array of its own).
    std::string many = jpeg;
    for (int i = 0; i < 16; ++i) many[dht + 5 + i] = '\x20';
    CHECK_THROWS_WITH_AS(check(many), doctest::Contains("a Huffman table of 512 codes (256 at most)"), Error);
    // Three codes of length 1, or two of length 1 and one of length 2: not a
    // prefix code (and the look-up table must not be written past its end).
    std::string three = jpeg;
    three[dht + 5] = '\x03';
    CHECK_THROWS_WITH_AS(check(three), doctest::Contains("not a prefix code"), Error);
    std::string full = jpeg;
    full[dht + 5] = '\x02';
    full[dht + 6] = '\x01';
    CHECK_THROWS_WITH_AS(check(full), doctest::Contains("not a prefix code"), Error);
    std::string lots = jpeg;
    lots[dht + 5] = '\xc8';  // 200 codes of length 1
    CHECK_THROWS_WITH_AS(check(lots), doctest::Contains("not a prefix code"), Error);
    // Ones where a code should be: stb's DC table (the standard one) has no
    // code of nine 1 bits.
    std::string ones = jpeg;
    const size_t data = first_scan_data(ones);
    ones.replace(data, 4, std::string("\xff\x00\xff\x00", 4));
    CHECK_THROWS_WITH_AS(check(ones),
                         doctest::Contains("holds a Huffman code that its table does not define"), Error);
    // A component whose quantization table (3) is never defined: stb_image
    // dequantised it with whatever its memory held.
    std::string no_table = jpeg;
    no_table[markers(no_table, 0xC0).at(0) + 12] = '\x03';
    CHECK_THROWS_WITH_AS(check(no_table), doctest::Contains("quantization table is never defined"), Error);
    // A scan naming a table never defined (AC table 3).
    std::string undefined = jpeg;
    const size_t sos = markers(undefined, 0xDA).at(0);
    undefined[sos + 6] = '\x03';
    CHECK_THROWS_WITH_AS(check(undefined), doctest::Contains("a Huffman table never defined"), Error);
  }

  TEST_CASE("JPEG check: a progressive file with scans out of order, or cut between scans, is refused") {
    const std::string jpeg = read_bytes(GLSURF_TEST_DATA_DIR "/box_progressive.jpg");
    const std::vector<size_t> sos = markers(jpeg, 0xDA);
    // cjpeg's script: DC to bit 1; luma 1-5 to bit 2; Cr, Cb 1-63 to bit 1;
    // luma 6-63 to bit 2; luma 1-63 to bit 1; DC to bit 0; Cr, Cb, luma 1-63 to bit 0.
    REQUIRE(sos.size() == 10);
    // Cut before the last scan (the luma refinement to bit 0), without an end marker.
    CHECK_THROWS_WITH_AS(check(jpeg.substr(0, sos.back())),
                         doctest::Contains("the file ends without an end marker, and component 1 of 3's "
                                           "coefficient 1 is refined only down to bit 1"),
                         Error);
    CHECK_THROWS_WITH_AS(check(jpeg.substr(0, sos[1])),
                         doctest::Contains("component 1 of 3's coefficient 0 is refined only down to bit 1"),
                         Error);
    // With an end marker the same files are valid: the standard lets a
    // progression stop early (libjpeg's encoder takes such scripts).
    CHECK_NOTHROW(check(jpeg.substr(0, sos.back()) + kEoi));
    CHECK_NOTHROW(check(jpeg.substr(0, sos[1]) + kEoi));
    // A refinement whose earlier scan is missing: scans 2 to 6 each come
    // before a refinement of their coefficients. Leaving out scan 7, 8 or 9
    // only stops a progression early.
    for (size_t i = 1; i + 1 < sos.size(); ++i) {
      const std::string dropped = jpeg.substr(0, sos[i]) + jpeg.substr(after_scan(jpeg, sos[i]));
      INFO("scan " << i + 1 << " dropped");
      if (i <= 5)
        CHECK_THROWS_WITH_AS(check(dropped), doctest::Contains("out of turn"), Error);
      else
        CHECK_NOTHROW(check(dropped));
    }
  }

  TEST_CASE("JPEG check to the frame header: the size from a file's first part, its tables checked") {
    const std::string jpeg = stb_jpeg(64, 48, 1, 90);
    const size_t sof = markers(jpeg, 0xC0).at(0);
    const size_t after_sof =
        sof + 2 +
        ((static_cast<unsigned char>(jpeg[sof + 2]) << 8) | static_cast<unsigned char>(jpeg[sof + 3]));
    int w = -1, h = -1;
    const auto to_frame = [&](const std::string& bytes) {
      w = h = -1;
      return check_jpeg_to_frame("x.jpg", reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(),
                                 [&](int fw, int fh) {
                                   w = fw;
                                   h = fh;
                                 });
    };
    // Whole, or cut anywhere after the frame header: found, with its size.
    for (const size_t size : {jpeg.size(), after_sof, after_sof + 1}) {
      CHECK(to_frame(jpeg.substr(0, size)));
      CHECK(w == 64);
      CHECK(h == 48);
    }
    // Cut before the frame header ends (in a segment, between two, or within
    // the frame header): not found yet, and no error, as the rest may come.
    for (const size_t size : {size_t{2}, size_t{5}, sof, sof + 3, after_sof - 1}) {
      CHECK_FALSE(to_frame(jpeg.substr(0, size)));
      CHECK(w == -1);
    }
    // An end marker or a scan before any frame header: no frame.
    CHECK_FALSE(to_frame(jpeg.substr(0, 2) + kEoi + jpeg.substr(2)));
    const size_t sos = markers(jpeg, 0xDA).at(0);
    const std::string scan_header = jpeg.substr(sos, first_scan_data(jpeg) - sos);
    CHECK_FALSE(to_frame(jpeg.substr(0, 2) + scan_header + jpeg.substr(2)));
    // A frame header stb_image refuses (width 0): found, but no size given.
    std::string no_width = jpeg;
    no_width[sof + 7] = no_width[sof + 8] = '\0';
    CHECK(to_frame(no_width));
    CHECK(w == -1);
    // The tables before the frame are checked as check_jpeg checks them, also
    // where the data ends before the frame: a table of 512 codes is refused.
    const std::string many = jpeg.substr(0, 2) + std::string("\xff\xc4\x02\x13\x10", 5) +
                             std::string(16, '\x20') + std::string(512, '\0');
    CHECK_THROWS_WITH_AS(to_frame(many), doctest::Contains("a Huffman table of 512 codes (256 at most)"),
                         Error);
    CHECK_THROWS_WITH_AS(to_frame(many + jpeg.substr(2)), doctest::Contains("a Huffman table of 512 codes"),
                         Error);
    // A frame kind stb_image does not decode is named at its header.
    std::string arithmetic = jpeg;
    arithmetic[sof + 1] = '\xc9';
    CHECK_THROWS_WITH_AS(to_frame(arithmetic.substr(0, after_sof)), doctest::Contains("JPEG not supported"),
                         Error);
  }

}  // TEST_SUITE
