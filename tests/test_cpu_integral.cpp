// CPU tests that always run: the reference integral image against hand-worked
// cases and brute-force sums, and the image loader: PNM samples and their
// rescaling, colour to grey, and its errors (truncated, bad header, too large).
#include <doctest/doctest.h>
#include <stb_image_write.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <thread>
#include <utility>

#include "cpu/integral.hpp"
#include "gl/error.hpp"
#include "io/exif.hpp"
#include "io/image.hpp"
#include "support.hpp"

using namespace glsurf;

TEST_SUITE("cpu") {
  TEST_CASE("integral of a 1x1 image") {
    GrayImage image(1, 1, 7);
    const cpu::IntegralImage s = cpu::integral_image(image);
    CHECK(s.sums == std::vector<std::uint32_t>{0, 0, 0, 7});
  }

  TEST_CASE("integral of a 3x2 image, worked by hand") {
    // 1 2 3          0  0  0  0
    // 4 5 6   --->   0  1  3  6
    //                0  5 12 21
    GrayImage image(3, 2);
    image.pixels = {1, 2, 3, 4, 5, 6};
    const cpu::IntegralImage s = cpu::integral_image(image);
    CHECK(s.sums == std::vector<std::uint32_t>{0, 0, 0, 0, 0, 1, 3, 6, 0, 5, 12, 21});
    CHECK(s.box_sum(1, 0, 3, 2) == 2 + 3 + 5 + 6);
    CHECK(s.box_sum(2, 1, 3, 2) == 6);
    CHECK(s.box_sum(1, 1, 1, 2) == 0);  // empty box
  }

  TEST_CASE("integral of a column and a row") {
    GrayImage column(1, 4);
    column.pixels = {10, 20, 30, 40};
    CHECK(cpu::integral_image(column).sums == std::vector<std::uint32_t>{0, 0, 0, 10, 0, 30, 0, 60, 0, 100});
    GrayImage row(4, 1);
    row.pixels = {255, 1, 0, 2};
    CHECK(cpu::integral_image(row).sums == std::vector<std::uint32_t>{0, 0, 0, 0, 0, 0, 255, 256, 256, 258});
  }

  TEST_CASE("every box sum of a random image equals the direct sum") {
    const GrayImage image = test::random_image(9, 7, 11);
    const cpu::IntegralImage s = cpu::integral_image(image);
    for (int y0 = 0; y0 <= 7; ++y0)
      for (int y1 = y0; y1 <= 7; ++y1)
        for (int x0 = 0; x0 <= 9; ++x0)
          for (int x1 = x0; x1 <= 9; ++x1) {
            std::uint32_t direct = 0;
            for (int y = y0; y < y1; ++y)
              for (int x = x0; x < x1; ++x) direct += image.at(x, y);
            REQUIRE(s.box_sum(x0, y0, x1, y1) == direct);
          }
  }

  TEST_CASE("sums past 2^32 wrap and box sums stay exact") {
    // 4112^2 * 255 = 4,311,678,720 > 2^32: the bottom-right entries wrap.
    const int n = 4112;
    const GrayImage image(n, n, 255);
    const cpu::IntegralImage s = cpu::integral_image(image);
    const std::uint64_t total = std::uint64_t(n) * n * 255;
    REQUIRE(total > (std::uint64_t(1) << 32));
    CHECK(s.at(n, n) == static_cast<std::uint32_t>(total));  // wrapped
    // Boxes whose true sum is below 2^32 come out exact despite wrapped corners.
    CHECK(s.box_sum(100, 50, n, n) == std::uint64_t(n - 100) * (n - 50) * 255);
    CHECK(s.box_sum(7, 9, 4000, 4100) == std::uint64_t(4000 - 7) * (4100 - 9) * 255);
  }

  TEST_CASE("load_gray reads the bundled photos at their sizes") {  // BT.601 conversion: tests below
    const GrayImage box = load_gray(GLSURF_TEST_ASSET_DIR "/box.png");
    CHECK(box.width == 324);
    CHECK(box.height == 223);
    const GrayImage graf = load_gray(GLSURF_TEST_ASSET_DIR "/graf1.png");
    CHECK(graf.width == 800);
    CHECK(graf.height == 640);
  }

  TEST_CASE("load_gray rejects missing, non-image and too large files with the path") {
    CHECK_THROWS_WITH_AS(load_gray("/nonexistent/x.png"), doctest::Contains("/nonexistent/x.png"), Error);
    // A directory opens for reading on Linux; it is named as one, not as a corrupt image.
    CHECK_THROWS_WITH_AS(load_gray(GLSURF_TEST_ASSET_DIR), doctest::Contains("is a directory, not an image"),
                         Error);
    const std::string text = "not_an_image_for_glsurf_test.png";
    { std::ofstream(text) << "hello"; }
    CHECK_THROWS_WITH_AS(load_gray(text), doctest::Contains("not a supported image"), Error);
    { std::ofstream empty(text); }
    CHECK_THROWS_WITH_AS(load_gray(text), (text + ": empty input").c_str(), Error);
    CHECK_THROWS_WITH_AS(load_gray("/dev/null"), "/dev/null: empty input",
                         Error);  // as `detect - < /dev/null`
    std::remove(text.c_str());
    LoadOptions tiny;
    tiny.max_pixels = 1000;
    CHECK_THROWS_WITH_AS(load_gray(GLSURF_TEST_ASSET_DIR "/box.png", tiny), doctest::Contains("exceeds"),
                         Error);
  }

  // --- file formats: binary PNM read by glsurf, BMP and TGA checked for length ---

  namespace {

  // A scratch folder for image files, removed on destruction.
  struct ScratchImageDir {
    std::filesystem::path root =
        std::filesystem::temp_directory_path() / ("glsurf_image_test_" + std::to_string(::getpid()));
    ScratchImageDir() { std::filesystem::create_directories(root); }
    ~ScratchImageDir() { std::filesystem::remove_all(root); }
    ScratchImageDir(const ScratchImageDir&) = delete;
    ScratchImageDir& operator=(const ScratchImageDir&) = delete;
    std::string path(const std::string& name) const { return (root / name).string(); }
    std::string write(const std::string& name, const std::string& bytes) const {
      std::ofstream(path(name), std::ios::binary) << bytes;
      return path(name);
    }
  };

  std::string read_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

  // A binary PNM: the header text, then the samples in 1 or 2 big-endian bytes.
  std::string pnm(const std::string& header, const std::vector<unsigned>& samples, int bytes) {
    std::string out = header;
    for (unsigned v : samples) {
      if (bytes == 2) out += static_cast<char>(v >> 8);
      out += static_cast<char>(v & 255);
    }
    return out;
  }

  // A PNG chunk: length, type, data and the CRC-32 (ISO 3309, bit by bit) of type and data.
  std::string png_chunk(const std::string& type, const std::string& data) {
    const auto be32 = [](std::uint32_t v) {
      return std::string{static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8),
                         static_cast<char>(v)};
    };
    std::uint32_t crc = 0xffffffffu;
    for (const unsigned char b : type + data) {
      crc ^= b;
      for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
    }
    return be32(static_cast<std::uint32_t>(data.size())) + type + data + be32(crc ^ 0xffffffffu);
  }

  // A zlib stream of `bytes` in stored (uncompressed) deflate blocks.
  std::string zlib_stored(const std::string& bytes) {
    std::uint32_t a = 1, b = 0;  // Adler-32
    for (const unsigned char c : bytes) a = (a + c) % 65521, b = (b + a) % 65521;
    const std::uint32_t adler = (b << 16) | a;
    std::string out("\x78\x01", 2);
    size_t at = 0;
    do {
      const size_t n = std::min<size_t>(65535, bytes.size() - at);
      const bool last = at + n == bytes.size();
      out += static_cast<char>(last ? 1 : 0);
      out += {static_cast<char>(n & 255), static_cast<char>(n >> 8), static_cast<char>(~n & 255),
              static_cast<char>((~n >> 8) & 255)};
      out += bytes.substr(at, n);
      at += n;
    } while (at < bytes.size());
    return out + std::string{static_cast<char>(adler >> 24), static_cast<char>(adler >> 16),
                             static_cast<char>(adler >> 8), static_cast<char>(adler)};
  }

  // A PNG of the given IHDR, IDAT data before zlib (each row a filter byte and
  // its pixels) and chunks between IHDR and IDAT.
  std::string png(const std::string& ihdr, const std::string& rows, const std::string& chunks = "") {
    return std::string("\x89PNG\r\n\x1a\n", 8) + png_chunk("IHDR", ihdr) + chunks +
           png_chunk("IDAT", zlib_stored(rows)) + png_chunk("IEND", "");
  }

  // A 4 x 2 palette PNG (by default indices 0 1 2 0 / 2 1 0 1 into red, green,
  // blue), with `metadata` as a tEXt chunk between IHDR and PLTE.
  std::string palette_png(const std::string& metadata,
                          const std::string& rows = std::string(
                              "\0\0\1\2\0\0\2\1\0\1", 10)) {  // filter byte 0, then 4 indices, per row
    return png(std::string("\0\0\0\4\0\0\0\2\x08\x03\0\0\0", 13), rows,
               (metadata.empty() ? "" : png_chunk("tEXt", std::string("Comment\0", 8) + metadata)) +
                   png_chunk("PLTE", std::string("\xff\0\0\0\xff\0\0\0\xff", 9)));
  }

  // A 16-bit PNG of w x h pixels of `channels` samples (1 grey, 3 RGB), row by row.
  std::string png16(int w, int h, int channels, const std::vector<unsigned>& samples) {
    std::string rows;
    for (int y = 0; y < h; ++y) {
      rows += '\0';
      for (int i = 0; i < w * channels; ++i) {
        const unsigned v = samples[static_cast<size_t>(y) * w * channels + i];
        rows += {static_cast<char>(v >> 8), static_cast<char>(v & 255)};
      }
    }
    const std::string ihdr = {0,
                              0,
                              static_cast<char>(w >> 8),
                              static_cast<char>(w & 255),
                              0,
                              0,
                              static_cast<char>(h >> 8),
                              static_cast<char>(h & 255),
                              16,
                              static_cast<char>(channels == 1 ? 0 : 2),
                              0,
                              0,
                              0};
    return png(ihdr, rows);
  }

  // `v` as `bytes` little-endian bytes (BMP and TGA header fields).
  std::string le(unsigned v, int bytes) {
    std::string out;
    for (int i = 0; i < bytes; ++i) out += static_cast<char>((v >> (8 * i)) & 255);
    return out;
  }

  // The expected 8-bit value of a sample, worked in floating point (the loader
  // works in integers): round half up of v * 255 / maxval.
  std::uint8_t rescaled(unsigned v, unsigned maxval) {
    return static_cast<std::uint8_t>(std::floor(v * 255.0 / maxval + 0.5));
  }

  std::uint8_t bt601(unsigned r, unsigned g, unsigned b) {
    return static_cast<std::uint8_t>((4899 * r + 9617 * g + 1868 * b + 8192) >> 14);
  }

  }  // namespace

  TEST_CASE(
      "load_gray names what stb_image would call 'unknown type, or corrupt': a huge PNG, a JPEG it cannot "
      "decode") {
    ScratchImageDir dir;
    // A PNG header of 100000 x 100000: stb_image refuses more than 2^30 bytes
    // of pixels before the size limit could be checked.
    std::string png = read_bytes(GLSURF_TEST_ASSET_DIR "/box.png");
    REQUIRE(png.substr(12, 4) == "IHDR");
    const std::string ihdr = std::string("\x00\x01\x86\xa0\x00\x01\x86\xa0", 8) + png.substr(24, 5);
    png.replace(8, 25, png_chunk("IHDR", ihdr));  // a valid chunk: 13 bytes of data, its CRC
    CHECK_THROWS_WITH_AS(load_gray(dir.write("huge.png", png)),
                         doctest::Contains("image of 100000x100000 exceeds the limit"), Error);
    // A baseline JPEG whose frame marker says arithmetic coding (SOF9).
    std::string jpeg = read_bytes(GLSURF_TEST_DATA_DIR "/box_restart.jpg");
    const size_t sof = jpeg.find("\xff\xc0");
    REQUIRE(sof != std::string::npos);
    jpeg[sof + 1] = '\xc9';
    CHECK_THROWS_WITH_AS(load_gray(dir.write("arithmetic.jpg", jpeg)),
                         doctest::Contains("JPEG not supported (arithmetic-coded: frame marker 0xC9)"),
                         Error);
    // A frame of 65535 x 65535 whose header is one byte longer than its
    // components need: stb_image refuses it ("bad SOF len") before the size is
    // checked, and the JPEG check, which names the damage, must refuse the
    // size before it walks (and allocates for) 67 million MCUs.
    std::string big = read_bytes(GLSURF_TEST_DATA_DIR "/box_restart.jpg");
    const size_t frame = big.find("\xff\xc0");
    REQUIRE(frame != std::string::npos);
    const size_t length =
        (static_cast<unsigned char>(big[frame + 2]) << 8) | static_cast<unsigned char>(big[frame + 3]);
    big.insert(frame + 2 + length, 1, '\0');
    big[frame + 3] = static_cast<char>(length + 1);  // box_restart's frame header is short: no carry
    big.replace(frame + 5, 4, "\xff\xff\xff\xff");
    CHECK_THROWS_WITH_AS(load_gray(dir.write("big.jpg", big)),
                         doctest::Contains("image of 65535x65535 exceeds the limit"), Error);
  }

  TEST_CASE("load_gray reads a binary PGM byte for byte, comments and all") {
    ScratchImageDir dir;
    // The first pixels are a newline, a space and '#': exactly one whitespace
    // byte ends the header, so they are samples, not header.
    const std::vector<unsigned> samples = {'\n', ' ', '#', 0, 128, 255};
    const GrayImage image =
        load_gray(dir.write("a.pgm", pnm("P5\n# made by hand\n3 # width\n2\n255\n", samples, 1)));
    CHECK(image.width == 3);
    CHECK(image.height == 2);
    CHECK(image.pixels == std::vector<std::uint8_t>{10, 32, 35, 0, 128, 255});
  }

  TEST_CASE("load_gray takes a comment between maxval and the pixels, as netpbm does") {
    ScratchImageDir dir;
    // The comment's line end is the one whitespace byte; '#' and ' ' after it are samples.
    const GrayImage image =
        load_gray(dir.write("c.pgm", pnm("P5 2 2 255# comment\n", {'#', ' ', 7, 255}, 1)));
    CHECK(image.pixels == std::vector<std::uint8_t>{35, 32, 7, 255});
  }

  TEST_CASE("load_gray reads from a pipe (which cannot seek) what it reads from the file") {
    ScratchImageDir dir;
    const std::string fifo = dir.path("pipe");
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    // A loader that stops reading early closes the pipe on the writer: a
    // failed write then, not a SIGPIPE that ends the test run.
    struct IgnoreSigpipe {
      void (*previous)(int) = std::signal(SIGPIPE, SIG_IGN);
      ~IgnoreSigpipe() { std::signal(SIGPIPE, previous); }
    } ignore_sigpipe;
    bool all_written = false;  // whether the loader took every byte the writer had
    // The writer blocks on open() until the loader opens the other end.
    const auto through_pipe = [&](const std::string& bytes) {
      std::thread writer([&] {
        std::ofstream out(fifo, std::ios::binary);
        out << bytes << std::flush;
        all_written = out.good();
      });
      GrayImage image;
      try {
        image = load_gray(fifo);
      } catch (...) {
        writer.join();
        throw;
      }
      writer.join();
      return image;
    };
    const std::string png = read_bytes(GLSURF_TEST_ASSET_DIR "/box.png");
    const GrayImage box = load_gray(GLSURF_TEST_ASSET_DIR "/box.png");
    CHECK(through_pipe(png).pixels == box.pixels);
    const GrayImage pgm = through_pipe(pnm("P5 2 1 1000\n", {0, 1000}, 2));
    CHECK(pgm.pixels == std::vector<std::uint8_t>{0, 255});
    // Cut short, or empty: refused, as a file would be.
    CHECK_THROWS_WITH_AS(through_pipe(pnm("P5 2 2 255\n", {1, 2, 3}, 1)), doctest::Contains("truncated"),
                         Error);
    CHECK_THROWS_WITH_AS(through_pipe(""), (fifo + ": empty input").c_str(), Error);

    // The header decides how much is read. 8 MB of zeros are no image: refused
    // from their first 64 KiB, the rest left unread (the writer's last writes fail).
    CHECK_THROWS_WITH_AS(through_pipe(std::string(8 << 20, '\0')),
                         doctest::Contains(": not a supported image ("), Error);
    CHECK_FALSE(all_written);
    // A header over the size limit is refused before its pixels are read.
    CHECK_THROWS_WITH_AS(through_pipe("P5 50000 50000 255\n" + std::string(8 << 20, '\x80')),
                         doctest::Contains("image of 50000x50000 exceeds the limit"), Error);
    CHECK_FALSE(all_written);
    // A PNG followed by more bytes than an image of its size can take (8 a
    // pixel + 1 MiB: 1,626,560 for box.png's 324 x 223): refused, unread beyond.
    CHECK_THROWS_WITH_AS(through_pipe(png + std::string(3 << 20, '\0')),
                         doctest::Contains("more data than an image of 324x223 can take"), Error);
    CHECK_FALSE(all_written);
    // Two PGMs one after the other: the first is the image, and the second is
    // left in the pipe (more than 64 KiB of it, so that the writer's end fails).
    const std::string first = pnm("P5 2 1 255\n", {7, 9}, 1), second = pnm("P5 1 1 255\n", {200}, 1);
    CHECK(through_pipe(first + second).pixels == std::vector<std::uint8_t>{7, 9});
    const std::string big = "P5 300 300 255\n" + std::string(90000, '\x05');
    CHECK(through_pipe(big + big + big).pixels == std::vector<std::uint8_t>(90000, 5));
    CHECK_FALSE(all_written);
    // Something that starts as a JPEG but shows no size in 16 MiB is refused there.
    CHECK_THROWS_WITH_AS(through_pipe(std::string("\xff\xd8\xff", 3) + std::string(24 << 20, '\0')),
                         doctest::Contains("no JPEG frame header (the image size) in the first 16 MiB"),
                         Error);
    CHECK_FALSE(all_written);
    // A palette PNG with 100 KB of text before its palette: the size comes from
    // IHDR (stb_image's own look reads on to PLTE, past the first 64 KiB).
    const GrayImage palette = through_pipe(palette_png(std::string(100000, 'x')));
    const std::uint8_t r = 76, g = 150,
                       b = 29;  // BT.601 in OpenCV's fixed point: (4899, 9617, 1868) x 255 / 2^14
    CHECK(palette.pixels == std::vector<std::uint8_t>{r, g, b, r, b, g, r, g});
    CHECK(load_gray(dir.write("palette.png", palette_png(""))).pixels == palette.pixels);
    // An index beyond the three entries would be looked up in memory stb_image
    // never wrote (a different picture from run to run): refused, whole or piped.
    const std::string beyond = palette_png("", std::string("\0\0\1\2\0\0\2\x07\0\1", 10));
    CHECK_THROWS_WITH(load_gray(dir.write("beyond.png", beyond)),
                      doctest::Contains("palette index is not below the palette's size, 3"));
    CHECK_THROWS_WITH(through_pipe(beyond),
                      doctest::Contains("palette index is not below the palette's size, 3"));
    // A JPEG whose frame header (the size) comes after 120 KB of metadata (two
    // APP15 segments) is read whole and decodes as the same file does.
    std::string jpeg;
    REQUIRE(stbi_write_jpg_to_func(
        [](void* to, void* data, int size) {
          static_cast<std::string*>(to)->append(static_cast<const char*>(data), static_cast<size_t>(size));
        },
        &jpeg, box.width, box.height, 1, box.pixels.data(), 90));
    REQUIRE(jpeg.size() > 2);
    std::string padded = jpeg.substr(0, 2);  // SOI
    for (int i = 0; i < 2; ++i) padded += std::string("\xff\xef\xea\x60", 4) + std::string(60000 - 2, 'x');
    padded += jpeg.substr(2);
    const std::string jpeg_file = dir.write("padded.jpg", padded);
    const GrayImage from_file = load_gray(jpeg_file);
    CHECK(from_file.width == box.width);
    CHECK(through_pipe(padded).pixels == from_file.pixels);
    // The same JPEG cut in half and closed with an end marker, which stb_image
    // decodes with the lower half grey, is refused (io/jpeg_check.hpp).
    const std::string cut = jpeg.substr(0, jpeg.size() / 2) + "\xff\xd9";
    CHECK_THROWS_WITH_AS(load_gray(dir.write("cut.jpg", cut)),
                         doctest::Contains("cut.jpg: corrupt JPEG (the coded data of scan 1 ends within MCU"),
                         Error);
    CHECK_THROWS_WITH_AS(through_pipe(cut), doctest::Contains("corrupt JPEG (the coded data"), Error);
    CHECK(all_written);
    // A Huffman table of 512 codes before the frame header is refused before
    // stb_image reads it: stb_image 2.27 wrote past its table's arrays even to
    // find the size (found by fuzzing). As a file, also under another
    // extension (the content decides), and piped. Only a sanitized build
    // (GLSURF_SANITIZE: UBSan names the write) fails here without the fix:
    // the check refused the file afterwards with the same message.
    const std::string many_codes = jpeg.substr(0, 2) + std::string("\xff\xc4\x02\x13\x10", 5) +
                                   std::string(16, '\x20') + std::string(512, '\0') + jpeg.substr(2);
    for (const char* name : {"many_codes.jpg", "many_codes.png"}) {
      CHECK_THROWS_WITH_AS(load_gray(dir.write(name, many_codes)),
                           doctest::Contains("corrupt JPEG (a Huffman table of 512 codes (256 at most))"),
                           Error);
    }
    CHECK_THROWS_WITH_AS(through_pipe(many_codes), doctest::Contains("a Huffman table of 512 codes"), Error);
    // stb_image skips 0xFF bytes before the start-of-image marker, where the
    // check does not look: refused, as libjpeg refuses them.
    for (const std::string& filled : {"\xff" + many_codes, "\xff" + jpeg}) {
      CHECK_THROWS_WITH_AS(load_gray(dir.write("filled.jpg", filled)),
                           doctest::Contains("filled.jpg: not a supported image (it starts with 0xFF 0xFF;"),
                           Error);
      CHECK_THROWS_WITH_AS(through_pipe(filled), doctest::Contains("it starts with 0xFF 0xFF"), Error);
    }
  }

  TEST_CASE("load_gray rescales PNM samples of any maxval to 0..255") {
    ScratchImageDir dir;
    struct Case {
      unsigned maxval;
      std::vector<unsigned> samples;
    };
    // maxval < 256: one byte per sample; from 256: two, big-endian.
    const Case cases[] = {{100, {0, 1, 50, 99, 100}},
                          {1, {0, 1}},
                          {256, {0, 1, 128, 255, 256}},
                          {1000, {0, 1, 2, 500, 999, 1000}},
                          {65535, {0, 128, 255, 32767, 32768, 65534, 65535}}};
    for (const Case& c : cases) {
      CAPTURE(c.maxval);
      const int bytes = c.maxval < 256 ? 1 : 2;
      const std::string header =
          "P5 " + std::to_string(c.samples.size()) + " 1 " + std::to_string(c.maxval) + "\n";
      const GrayImage image = load_gray(dir.write("m.pgm", pnm(header, c.samples, bytes)));
      REQUIRE(image.pixels.size() == c.samples.size());
      for (size_t i = 0; i < c.samples.size(); ++i) {
        CAPTURE(c.samples[i]);
        CHECK(image.pixels[i] == rescaled(c.samples[i], c.maxval));
      }
      CHECK(image.pixels.front() == 0);
      CHECK(image.pixels.back() == 255);  // a sample of maxval is white
    }
    // Half of an even maxval rounds up; the top byte of a 16-bit sample is not
    // its 8-bit value (255 / 65535 rounds to 1, 32768 / 65535 to 128).
    CHECK(load_gray(dir.write("h.pgm", pnm("P5 1 1 100\n", {50}, 1))).pixels[0] == 128);
    CHECK(load_gray(dir.write("h.pgm", pnm("P5 1 1 1000\n", {500}, 2))).pixels[0] == 128);
    CHECK(load_gray(dir.write("h.pgm", pnm("P5 2 1 65535\n", {255, 32768}, 2))).pixels ==
          std::vector<std::uint8_t>{1, 128});
  }

  TEST_CASE("a 16-bit PNG is rounded to 8 bits as a 16-bit PNM is, not truncated to its top byte") {
    ScratchImageDir dir;
    std::vector<unsigned> every(65536);
    for (unsigned v = 0; v < every.size(); ++v) every[v] = v;
    const GrayImage png = load_gray(dir.write("every.png", png16(256, 256, 1, every)));
    const GrayImage pgm = load_gray(dir.write("every.pgm", pnm("P5 256 256 65535\n", every, 2)));
    REQUIRE(png.width == 256);
    REQUIRE(png.height == 256);
    CHECK(png.pixels == pgm.pixels);
    int differ = 0;
    for (unsigned v = 0; v < every.size(); ++v) differ += png.pixels[v] != rescaled(v, 65535);
    CHECK(differ == 0);
    CHECK(png.pixels[255] == 1);  // its top byte is 0
    // Colour: each channel is rescaled, then weighted.
    const std::vector<unsigned> rgb = {65535, 0, 0, 40000, 800, 65280};
    const GrayImage deep = load_gray(dir.write("deep.png", png16(2, 1, 3, rgb)));
    CHECK(deep.pixels == load_gray(dir.write("deep.ppm", pnm("P6 2 1 65535\n", rgb, 2))).pixels);
    CHECK(deep.pixels ==
          std::vector<std::uint8_t>{
              bt601(255, 0, 0), bt601(rescaled(40000, 65535), rescaled(800, 65535), rescaled(65280, 65535))});
  }

  TEST_CASE("load_gray converts a PPM to grey as it does a PNG") {
    ScratchImageDir dir;
    const std::vector<unsigned> rgb = {255, 0, 0, 0, 255, 0, 0, 0, 255, 10, 200, 30, 255, 255, 255, 0, 0, 0};
    const GrayImage ppm = load_gray(dir.write("c.ppm", pnm("P6\n3 2\n255\n", rgb, 1)));
    const std::vector<std::uint8_t> bytes(rgb.begin(), rgb.end());
    REQUIRE(stbi_write_png(dir.path("c.png").c_str(), 3, 2, 3, bytes.data(), 9));
    const GrayImage png = load_gray(dir.path("c.png"));
    CHECK(ppm.width == 3);
    CHECK(ppm.height == 2);
    CHECK(ppm.pixels == png.pixels);
    for (size_t i = 0; i < 6; ++i) CHECK(ppm.pixels[i] == bt601(rgb[3 * i], rgb[3 * i + 1], rgb[3 * i + 2]));
    // 16-bit colour: each channel is rescaled, then weighted.
    const GrayImage deep = load_gray(dir.write("d.ppm", pnm("P6 2 1 1000\n", {1000, 0, 0, 40, 800, 120}, 2)));
    CHECK(deep.pixels ==
          std::vector<std::uint8_t>{bt601(255, 0, 0),
                                    bt601(rescaled(40, 1000), rescaled(800, 1000), rescaled(120, 1000))});
  }

  TEST_CASE("load_gray refuses a truncated PNM, naming the path and the byte counts") {
    ScratchImageDir dir;
    const std::string short_pgm =
        dir.write("short.pgm", pnm("P5\n4 3\n255\n", std::vector<unsigned>(11, 7), 1));
    CHECK_THROWS_WITH_AS(
        load_gray(short_pgm),
        (short_pgm + ": truncated image data (expected 12 bytes of pixels, found 11)").c_str(), Error);
    const std::string header_only = dir.write("header.pgm", "P5\n64 48\n255\n");
    CHECK_THROWS_WITH_AS(
        load_gray(header_only),
        (header_only + ": truncated image data (expected 3072 bytes of pixels, found 0)").c_str(), Error);
    const std::string ppm_header = "P6 2 2 1000\n";  // 2x2 RGB, 2 bytes a sample: 24 bytes
    const std::string short_ppm = dir.write(
        "short.ppm", pnm(ppm_header, std::vector<unsigned>(12, 7), 2).substr(0, ppm_header.size() + 23));
    CHECK_THROWS_WITH_AS(
        load_gray(short_ppm),
        (short_ppm + ": truncated image data (expected 24 bytes of pixels, found 23)").c_str(), Error);
    // One byte more than needed is fine: a second image may follow the first.
    CHECK(load_gray(dir.write("long.pgm", pnm("P5\n4 3\n255\n", std::vector<unsigned>(13, 7), 1))).pixels ==
          std::vector<std::uint8_t>(12, 7));
  }

  TEST_CASE("load_gray refuses a PNM with a bad header, maxval or sample") {
    ScratchImageDir dir;
    const auto refuses = [&](const std::string& bytes, const std::string& reason) {
      const std::string path = dir.write("bad.pgm", bytes);
      CAPTURE(bytes);
      CHECK_THROWS_WITH_AS(load_gray(path), (path + ": " + reason).c_str(), Error);
    };
    refuses("P5 4 4 0\n" + std::string(16, '\0'), "PNM maxval must be 1..65535");
    refuses("P5 4 4 70000\n" + std::string(32, '\0'), "PNM maxval must be 1..65535");
    refuses(pnm("P5 2 1 100\n", {100, 101}, 1), "PNM sample 101 exceeds maxval 100 at pixel (1, 0)");
    refuses(pnm("P5 1 2 1000\n", {0, 1001}, 2), "PNM sample 1001 exceeds maxval 1000 at pixel (0, 1)");
    refuses("P5 0 4 255\n", "PNM image has zero size (0x4)");
    refuses("P5\n4 x 255\n", "bad PNM header (height missing or not a number)");
    refuses("P5 -4 4 255\n", "bad PNM header (width missing or not a number)");
    refuses("P6 4 4", "bad PNM header (maxval missing or not a number)");
    refuses("P5 1 1 255x", "bad PNM header (no whitespace between maxval and the pixels)");
    refuses("P5 99999999999 1 255\n", "bad PNM header (width too large)");
    refuses("P2 1 1 255\n7\n", "PNM type P2 is not supported (only binary P5 grey and P6 colour)");
    // The size limits come from the header, before any pixel is read.
    refuses("P5 2000000 10 255\n",
            "image of 2000000x10 exceeds the limit of 1048576 per side / 2147483647 pixels");
  }

  TEST_CASE("load_gray refuses truncated uncompressed BMP and TGA files") {
    ScratchImageDir dir;
    // 5 pixels of RGB: 15 bytes a row, padded to 16 in a BMP.
    const int w = 5, h = 3;
    std::vector<std::uint8_t> rgb(w * h * 3), rgba(w * h * 4);
    for (size_t i = 0; i < rgb.size(); ++i) rgb[i] = static_cast<std::uint8_t>(17 * i + 3);
    for (size_t i = 0; i < rgba.size(); ++i) rgba[i] = static_cast<std::uint8_t>(29 * i + 1);
    std::vector<std::uint8_t> grey_of_rgb, grey_of_rgba;
    for (int i = 0; i < w * h; ++i) {
      grey_of_rgb.push_back(bt601(rgb[3 * i], rgb[3 * i + 1], rgb[3 * i + 2]));
      grey_of_rgba.push_back(bt601(rgba[4 * i], rgba[4 * i + 1], rgba[4 * i + 2]));
    }
    const int saved_rle = stbi_write_tga_with_rle;
    stbi_write_tga_with_rle = 0;
    REQUIRE(stbi_write_bmp(dir.path("rgb.bmp").c_str(), w, h, 3, rgb.data()));    // BI_RGB, 24 bits
    REQUIRE(stbi_write_bmp(dir.path("rgba.bmp").c_str(), w, h, 4, rgba.data()));  // BI_BITFIELDS, 32 bits
    REQUIRE(stbi_write_tga(dir.path("rgb.tga").c_str(), w, h, 3, rgb.data()));    // type 2
    REQUIRE(stbi_write_tga(dir.path("grey.tga").c_str(), w, h, 1, grey_of_rgb.data()));  // type 3
    stbi_write_tga_with_rle = 1;
    REQUIRE(stbi_write_tga(dir.path("rle.tga").c_str(), w, h, 3, rgb.data()));  // type 10
    stbi_write_tga_with_rle = saved_rle;

    CHECK(load_gray(dir.path("rgb.bmp")).pixels == grey_of_rgb);
    CHECK(load_gray(dir.path("rgba.bmp")).pixels == grey_of_rgba);
    CHECK(load_gray(dir.path("rgb.tga")).pixels == grey_of_rgb);
    CHECK(load_gray(dir.path("grey.tga")).pixels == grey_of_rgb);
    CHECK(load_gray(dir.path("rle.tga")).pixels == grey_of_rgb);

    const auto cut = [&](const std::string& name, size_t drop) {
      const std::string bytes = read_bytes(dir.path(name));
      REQUIRE(bytes.size() > drop);
      return dir.write("cut_" + std::to_string(drop) + "_" + name, bytes.substr(0, bytes.size() - drop));
    };
    // The last row's padding holds no pixels: a BMP without it still loads.
    CHECK(load_gray(cut("rgb.bmp", 1)).pixels == grey_of_rgb);
    for (const auto& [name, drop] : {std::pair<std::string, size_t>{"rgb.bmp", 2},
                                     {"rgb.bmp", 16 * 3},
                                     {"rgba.bmp", 1},
                                     {"rgb.tga", 1},
                                     {"grey.tga", 1},
                                     {"grey.tga", 15},
                                     {"rle.tga", 1},
                                     {"rle.tga", 20}}) {
      const std::string path = cut(name, drop);
      CHECK_THROWS_WITH_AS(load_gray(path), doctest::Contains((path + ": truncated image data").c_str()),
                           Error);
    }
  }

  // stb_image checks no PNG checksum: a flipped bit in the compressed pixels
  // would decode to a wrong picture, or fail somewhere in zlib with no word of
  // why. GIF, which stb_image reads but glsurf does not document, is refused.
  TEST_CASE("load_gray refuses a PNG whose critical chunk's CRC does not match, and a GIF named .png") {
    std::ifstream in(GLSURF_TEST_ASSET_DIR "/box.png", std::ios::binary);
    const std::string png((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const size_t idat = png.find("IDAT");
    REQUIRE(idat != std::string::npos);
    const std::string path = "glsurf_test_crc.png";
    auto load_with = [&](size_t at, char mask) {
      std::string bytes = png;
      bytes[at] = static_cast<char>(bytes[at] ^ mask);
      { std::ofstream(path, std::ios::binary) << bytes; }
      return load_gray(path);
    };
    CHECK(load_with(idat + 100, 0).pixels == load_gray(GLSURF_TEST_ASSET_DIR "/box.png").pixels);
    CHECK_THROWS_WITH_AS(load_with(idat + 100, 0x10),
                         doctest::Contains("corrupt PNG (checksum of chunk IDAT"), Error);
    CHECK_THROWS_WITH_AS(load_with(20, 0x01), doctest::Contains("corrupt PNG (checksum of chunk IHDR"),
                         Error);
    // An ancillary chunk whose CRC fails is ignored, as libpng ignores it.
    const std::string text_chunk = std::string("\0\0\0\4tEXta\0bc", 12) + std::string(4, '\0');
    { std::ofstream(path, std::ios::binary) << png.substr(0, 33) + text_chunk + png.substr(33); }
    CHECK(load_gray(path).pixels == load_gray(GLSURF_TEST_ASSET_DIR "/box.png").pixels);
    { std::ofstream(path, std::ios::binary) << png.substr(0, png.size() - 6); }
    CHECK_THROWS_WITH_AS(load_gray(path), doctest::Contains("truncated PNG"), Error);
    // A 1 x 1 GIF.
    const unsigned char gif[] = {'G', 'I',  'F',  '8',  '9', 'a', 1, 0,    1, 0, 0x80, 0,
                                 0,   0xff, 0xff, 0xff, 0,   0,   0, 0x2c, 0, 0, 0,    0,
                                 1,   0,    1,    0,    0,   2,   2, 0x44, 1, 0, 0x3b};
    { std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(gif), sizeof gif); }
    CHECK_THROWS_WITH_AS(load_gray(path), doctest::Contains("not a supported image"), Error);
    std::remove(path.c_str());
  }

  // CRCs cover each chunk as written; only zlib's Adler-32 covers the pixel
  // data itself, which stb_image does not check. zlib does (io/image.cpp).
  TEST_CASE(
      "load_gray refuses a PNG whose zlib data fails its Adler-32 or ends early, with every CRC right") {
    const std::string path = "glsurf_test_adler.png";
    const std::string ihdr("\0\0\0\4\0\0\0\2\x08\0\0\0\0", 13);          // 4 x 2, 8-bit grey
    const std::string rows("\0\x0a\x14\x1e\x28\0\x32\x3c\x46\x50", 10);  // filter byte 0, 4 pixels, per row
    const std::string zlib = zlib_stored(rows);
    const auto write = [&](const std::string& idat_chunks) {
      std::ofstream(path, std::ios::binary) << std::string("\x89PNG\r\n\x1a\n", 8) + png_chunk("IHDR", ihdr) +
                                                   idat_chunks + png_chunk("IEND", "");
    };
    const std::vector<std::uint8_t> expected{10, 20, 30, 40, 50, 60, 70, 80};
    write(png_chunk("IDAT", zlib));
    CHECK(load_gray(path).pixels == expected);
    // The stream in three IDAT chunks, then bytes after its end: read alike.
    write(png_chunk("IDAT", zlib.substr(0, 5)) + png_chunk("IDAT", zlib.substr(5, 9)) +
          png_chunk("IDAT", zlib.substr(14) + "extra"));
    CHECK(load_gray(path).pixels == expected);
    // One pixel changed inside the stored block, CRC recomputed: the Adler-32 no longer matches.
    std::string changed = zlib;
    changed[zlib.size() - 6] = static_cast<char>(changed[zlib.size() - 6] ^ 0x01);
    write(png_chunk("IDAT", changed));
    CHECK_THROWS_WITH_AS(load_gray(path),
                         doctest::Contains("corrupt PNG (image data: zlib: incorrect data check)"), Error);
    // The Adler-32 itself cut off.
    write(png_chunk("IDAT", zlib.substr(0, zlib.size() - 2)));
    CHECK_THROWS_WITH_AS(load_gray(path),
                         doctest::Contains("corrupt PNG (image data: the zlib stream ends early)"), Error);
    std::remove(path.c_str());
  }

  TEST_CASE("load_gray reads both kinds of RLE TGA packet and refuses packets that stop short") {
    ScratchImageDir dir;
    // 4 x 2, 24 bits, top row first: a run of 4 pixels (count byte 128 + 3),
    // then 4 raw pixels (count byte 3); pixels are stored B, G, R.
    std::string header(18, '\0');
    header[2] = 10;                      // RLE true-colour
    header[12] = 4, header[14] = 2;      // width, height
    header[16] = 24, header[17] = 0x20;  // bits per pixel; origin at the top left
    const auto bytes = [](std::initializer_list<int> values) {
      std::string out;
      for (int v : values) out += static_cast<char>(v);
      return out;
    };
    const std::string run = bytes({0x83, 10, 20, 30});
    const std::string raw = bytes({0x03, 0, 0, 255, 0, 255, 0, 255, 0, 0, 64, 64, 64});
    const std::uint8_t r = bt601(30, 20, 10);
    CHECK(load_gray(dir.write("rle.tga", header + run + raw)).pixels ==
          std::vector<std::uint8_t>{r, r, r, r, bt601(255, 0, 0), bt601(0, 255, 0), bt601(0, 0, 255), 64});
    // Packets for only 4 of the 8 pixels, or a raw packet missing its last pixel.
    const std::string half = dir.write("half.tga", header + run);
    CHECK_THROWS_WITH_AS(load_gray(half),
                         (half + ": truncated image data (RLE packets for 4 of 8 pixels)").c_str(), Error);
    // As stb_image, a packet may claim more pixels than the image has left; only those are needed.
    std::string narrow = header;
    narrow[12] = 2, narrow[14] = 1;
    CHECK(load_gray(dir.write("long.tga", narrow + bytes({0x03, 0, 0, 255, 0, 255, 0}))).pixels ==
          std::vector<std::uint8_t>{bt601(255, 0, 0), bt601(0, 255, 0)});
    const std::string cut = dir.write("cut.tga", header + run + raw.substr(0, raw.size() - 3));
    CHECK_THROWS_WITH_AS(load_gray(cut),
                         (cut + ": truncated image data (RLE packets for 4 of 8 pixels)").c_str(), Error);
  }

  TEST_CASE("load_gray checks the length of an OS/2 BMP and a colour-mapped TGA, and the TGA's indices") {
    ScratchImageDir dir;
    // OS/2 BMP, 2x2, 24 bits: 26 bytes of headers, rows of 6 bytes padded to 8,
    // bottom row first, BGR.
    const std::string os2 = "BM" + le(42, 4) + le(0, 4) + le(26, 4) + le(12, 4) + le(2, 2) + le(2, 2) +
                            le(1, 2) + le(24, 2) + std::string("\x1e\xc8\x0a\xff\x00\x00\0\0", 8) +
                            std::string("\x00\x00\x00\xff\xff\xff\0\0", 8);
    const std::vector<std::uint8_t> os2_grey = {0, 255, bt601(10, 200, 30), bt601(0, 0, 255)};
    CHECK(load_gray(dir.write("os2.bmp", os2)).pixels == os2_grey);
    const std::string os2_cut = dir.write("os2_cut.bmp", os2.substr(0, os2.size() - 3));
    CHECK_THROWS_WITH_AS(load_gray(os2_cut), doctest::Contains((os2_cut + ": truncated image data").c_str()),
                         Error);
    // Colour-mapped TGA (type 1), 2x1: a 3-byte image id, a map of two BGR
    // entries, then one index byte a pixel.
    const std::string tga = std::string("\x03\x01\x01", 3) + le(0, 2) + le(2, 2) + le(24, 1) + le(0, 4) +
                            le(2, 2) + le(1, 2) + le(8, 1) + le(0, 1) + "abc" +
                            std::string("\x1e\xc8\x0a\x00\x00\xff", 6) + std::string("\x01\x00", 2);
    CHECK(load_gray(dir.write("map.tga", tga)).pixels ==
          std::vector<std::uint8_t>{bt601(255, 0, 0), bt601(10, 200, 30)});
    const std::string tga_cut = dir.write("map_cut.tga", tga.substr(0, tga.size() - 1));
    CHECK_THROWS_WITH_AS(load_gray(tga_cut), doctest::Contains((tga_cut + ": truncated image data").c_str()),
                         Error);
    // An index at or beyond the map's two entries: stb_image shows entry 0 there.
    CHECK_THROWS_WITH_AS(
        load_gray(dir.write("map_beyond.tga", tga.substr(0, tga.size() - 1) + "\x02")),
        doctest::Contains("corrupt TGA (pixel 1's colour-map index, 2, is not below the map's length, 2)"),
        Error);
    // The same image run-length coded (type 9): a raw packet of two pixels
    // (count byte 1), or a run of two (count byte 128 + 1).
    std::string rle = tga.substr(0, tga.size() - 2);
    rle[2] = 9;
    CHECK(load_gray(dir.write("map_rle.tga", rle + std::string("\x01\x01\x00", 3))).pixels ==
          std::vector<std::uint8_t>{bt601(255, 0, 0), bt601(10, 200, 30)});
    CHECK(load_gray(dir.write("map_run.tga", rle + std::string("\x81\x01", 2))).pixels ==
          std::vector<std::uint8_t>{bt601(255, 0, 0), bt601(255, 0, 0)});
    CHECK_THROWS_WITH_AS(
        load_gray(dir.write("map_rle_beyond.tga", rle + std::string("\x01\x01\xff", 3))),
        doctest::Contains("pixel 1's colour-map index, 255, is not below the map's length, 2"), Error);
    CHECK_THROWS_WITH_AS(load_gray(dir.write("map_run_beyond.tga", rle + std::string("\x81\x07", 2))),
                         doctest::Contains("pixel 0's colour-map index, 7, is not below"), Error);
  }

  TEST_CASE("load_gray reads an 8-bit BMP (also OS/2) with a short palette and refuses an index beyond it") {
    ScratchImageDir dir;
    // 4 x 1, 8 bits a pixel, a palette of three BGRX entries (blue, green,
    // red); 14 + 40 + 12 bytes of headers and palette, then one row of indices.
    const auto bmp = [&](const std::string& row) {
      return "BM" + le(70, 4) + le(0, 4) + le(66, 4) + le(40, 4) + le(4, 4) + le(1, 4) + le(1, 2) + le(8, 2) +
             le(0, 4) + le(4, 4) + le(2835, 4) + le(2835, 4) + le(3, 4) + le(0, 4) +
             std::string("\xff\0\0\0\0\xff\0\0\0\0\xff\0", 12) + row;
    };
    CHECK(load_gray(dir.write("short.bmp", bmp(std::string("\0\1\2\1", 4)))).pixels ==
          std::vector<std::uint8_t>{bt601(0, 0, 255), bt601(0, 255, 0), bt601(255, 0, 0), bt601(0, 255, 0)});
    // Index 200 would be looked up in memory stb_image never wrote.
    CHECK_THROWS_WITH(load_gray(dir.write("beyond.bmp", bmp(std::string("\0\1\xc8\1", 4)))),
                      doctest::Contains("palette index is not below the palette's size, 3"));
    // An offset of the pixels inside the info header would make stb_image count
    // a negative number of palette entries, and look every index up unwritten.
    std::string inside = bmp(std::string("\0\1\2\1", 4));
    inside[10] = 53;
    CHECK_THROWS_WITH(load_gray(dir.write("inside.bmp", inside)),
                      doctest::Contains("points into the header"));
    // The same as an OS/2 BMP (12-byte header, 3-byte entries). stb_image
    // counts 4 entries fewer than there are, and showed these from memory it
    // never wrote.
    const auto os2 = [&](const std::string& row) {
      return "BM" + le(39, 4) + le(0, 4) + le(35, 4) + le(12, 4) + le(4, 2) + le(1, 2) + le(1, 2) + le(8, 2) +
             std::string("\xff\0\0\0\xff\0\0\0\xff", 9) + row;
    };
    CHECK(load_gray(dir.write("os2.bmp", os2(std::string("\0\1\2\1", 4)))).pixels ==
          std::vector<std::uint8_t>{bt601(0, 0, 255), bt601(0, 255, 0), bt601(255, 0, 0), bt601(0, 255, 0)});
    CHECK_THROWS_WITH(load_gray(dir.write("os2_beyond.bmp", os2(std::string("\0\1\xc8\1", 4)))),
                      doctest::Contains("palette index is not below the palette's size, 3"));
    std::string os2_inside = os2(std::string("\0\1\2\1", 4));
    os2_inside[10] = 20;
    CHECK_THROWS_WITH(load_gray(dir.write("os2_inside.bmp", os2_inside)),
                      doctest::Contains("points into the header"));
    // A compression field of 2^31 or more, which stb_image reads as a negative
    // int and decodes as uncompressed rows that the length check did not
    // model: with the pixels' offset past the end of the file, the palette's
    // padding was copied from beyond the file's bytes (found by fuzzing, under
    // ASan). Refused: no writer uses such a value.
    std::string beyond_end = bmp(std::string("\0\1\2\1", 4));
    beyond_end[10] = '\xc8';  // offset 200 of 70 bytes
    beyond_end[33] = '\x80';  // compression 0x80000000
    CHECK_THROWS_WITH(
        load_gray(dir.write("beyond_end.bmp", beyond_end)),
        doctest::Contains("beyond_end.bmp: not a supported image (unknown BMP compression 2147483648)"));
    // Run-length coded rows: valid, not decoded, and said so.
    for (const char kind : {'\1', '\2'}) {
      std::string rle = bmp(std::string("\0\1\2\1", 4));
      rle[30] = kind;
      const std::string said = std::string("rle.bmp: RLE-compressed BMP (") + (kind == 1 ? "RLE8" : "RLE4") +
                               ") is not supported; save it uncompressed";
      CHECK_THROWS_WITH(load_gray(dir.write("rle.bmp", rle)), doctest::Contains(said.c_str()));
    }
    // With BI_RGB and the offset past the end: truncated, by the length check,
    // before any padding is copied.
    std::string past_end = bmp(std::string("\0\1\2\1", 4));
    past_end[10] = '\xc8';
    CHECK_THROWS_WITH(load_gray(dir.write("past_end.bmp", past_end)),
                      doctest::Contains("truncated image data (file of 70 bytes, the header needs 204)"));
  }

  // An APP1 segment of EXIF data whose IFD0 holds one entry, the orientation
  // tag (0x0112, type SHORT, count 1), in either byte order.
  std::string exif_segment(unsigned orientation, bool little_endian, unsigned type = 3) {
    const auto u16 = [&](unsigned v) {
      const char lo = static_cast<char>(v & 255), hi = static_cast<char>((v >> 8) & 255);
      return little_endian ? std::string{lo, hi} : std::string{hi, lo};
    };
    const auto u32 = [&](unsigned v) {
      return little_endian ? u16(v & 0xFFFF) + u16(v >> 16) : u16(v >> 16) + u16(v & 0xFFFF);
    };
    const std::string tiff = std::string(little_endian ? "II" : "MM") + u16(42) + u32(8) + u16(1) +
                             u16(0x0112) + u16(type) + u32(1) + u16(orientation) + u16(0) + u32(0);
    const std::string body = std::string("Exif\0\0", 6) + tiff;
    const size_t length = body.size() + 2;
    return std::string("\xff\xe1", 2) + static_cast<char>(length >> 8) + static_cast<char>(length & 255) +
           body;
  }

  TEST_CASE("load_gray shows a JPEG as its EXIF orientation says, as OpenCV's imread does") {
    ScratchImageDir dir;
    // A 24 x 16 picture with no symmetry, at quality 100.
    const int w = 24, h = 16;
    std::vector<unsigned char> pixels(static_cast<size_t>(w) * h);
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x)
        pixels[static_cast<size_t>(y) * w + x] = static_cast<unsigned char>(x * 9 + y * 2);
    std::string jpeg;
    REQUIRE(stbi_write_jpg_to_func(
        [](void* to, void* data, int size) {
          static_cast<std::string*>(to)->append(static_cast<const char*>(data), static_cast<size_t>(size));
        },
        &jpeg, w, h, 1, pixels.data(), 100));
    const GrayImage stored = load_gray(dir.write("plain.jpg", jpeg));
    REQUIRE(stored.width == w);
    // Where the stored row 0 and column 0 are shown, for orientations 1..8
    // (EXIF 2.3, tag 0x0112): 'T'op, 'B'ottom, 'L'eft, 'R'ight.
    const char* const shown[9] = {"", "TL", "TR", "BR", "BL", "LT", "RT", "RB", "LB"};
    for (unsigned k = 1; k <= 8; ++k) {
      for (const bool little_endian : {true, false}) {
        INFO("orientation " << k << (little_endian ? ", II" : ", MM"));
        const std::string name = "o" + std::to_string(k) + (little_endian ? "ii" : "mm") + ".jpg";
        const GrayImage image =
            load_gray(dir.write(name, jpeg.substr(0, 2) + exif_segment(k, little_endian) + jpeg.substr(2)));
        const char row0 = shown[k][0], column0 = shown[k][1];
        const bool rows_across = row0 == 'T' || row0 == 'B';  // stored rows shown as rows
        REQUIRE(image.width == (rows_across ? w : h));
        REQUIRE(image.height == (rows_across ? h : w));
        bool same = true;
        for (int sy = 0; sy < h; ++sy)
          for (int sx = 0; sx < w; ++sx) {
            // Stored pixel (sx, sy) in row sy from row 0's edge, column sx from column 0's.
            const int x = rows_across ? (column0 == 'L' ? sx : w - 1 - sx) : (row0 == 'L' ? sy : h - 1 - sy);
            const int y = rows_across ? (row0 == 'T' ? sy : h - 1 - sy) : (column0 == 'T' ? sx : w - 1 - sx);
            same = same && image.at(x, y) == stored.at(sx, sy);
          }
        CHECK(same);
        // As stored, with the tag ignored (imread's IMREAD_IGNORE_ORIENTATION).
        LoadOptions stored_pixels;
        stored_pixels.exif_orientation = false;
        const GrayImage kept = load_gray(dir.path(name), stored_pixels);
        CHECK(kept.width == w);
        CHECK(kept.pixels == stored.pixels);
      }
    }
    // Damaged or unknown: the stored picture, as viewers show it.
    for (const std::string& segment :
         {exif_segment(9, true), exif_segment(0, false), exif_segment(6, true, 4),
          exif_segment(6, true).substr(0, 20) + std::string(2, '\0')}) {
      std::string damaged = jpeg.substr(0, 2) + segment + jpeg.substr(2);
      if (segment.size() == 22) damaged[5] = 20;  // the cut segment's length
      CHECK(load_gray(dir.write("damaged.jpg", damaged)).pixels == stored.pixels);
    }
  }

  TEST_CASE(
      "EXIF orientation: found after other APP segments; cut or out-of-range blocks give 1, within bounds") {
    // Exact-size buffers, so that a sanitized build sees any read past the end.
    const auto orientation = [](const std::string& bytes) {
      const std::vector<unsigned char> exact(bytes.begin(), bytes.end());
      return jpeg_exif_orientation(exact.data(), exact.size());
    };
    const std::string soi("\xff\xd8", 2), exif = exif_segment(6, true);
    REQUIRE(exif.size() == 36);  // marker, length, "Exif\0\0", TIFF header (8), IFD0 of one entry (18)
    CHECK(orientation(soi + exif) == 6);
    // After a JFIF APP0 and after an XMP APP1 (only an APP1 that starts
    // "Exif\0\0" holds EXIF data).
    const std::string app0 = std::string("\xff\xe0\x00\x10JFIF\0\x01\x01\0\0\x01\0\x01\0\0", 18);
    const std::string body = "http://ns.adobe.com/xap/1.0/" + std::string(1, '\0') + "<x/>";
    const std::string xmp = std::string("\xff\xe1\x00", 3) + static_cast<char>(body.size() + 2) + body;
    CHECK(orientation(soi + app0 + exif) == 6);
    CHECK(orientation(soi + xmp + exif) == 6);
    // Every cut of the segment: no orientation.
    for (size_t n = 0; n < exif.size(); ++n) CHECK(orientation(soi + exif.substr(0, n)) == 1);
    // The IFD's offset past the block's end.
    std::string far = soi + exif;
    far[2 + 14] = '\xff';
    CHECK(orientation(far) == 1);
    // 65,535 entries claimed, one there and not the orientation.
    std::string many = soi + exif;
    many[2 + 18] = many[2 + 19] = '\xff';
    many[2 + 20] = '\0';  // tag 0x0112 (little-endian 12 01) -> 0x0100
    CHECK(orientation(many) == 1);
    // The frame header or a scan before any EXIF: none.
    CHECK(orientation(soi + std::string("\xff\xc0\x00\x02", 4) + exif) == 1);
    CHECK(orientation(soi + std::string("\xff\xda\x00\x02", 4) + exif) == 1);
  }

  // An EXIF block built by hand: TIFF fields as tag, type, count and the
  // value's bytes (in the block's byte order), laid out as IFD0, then the
  // EXIF sub-IFD (pointed to by an entry 0x8769 appended to IFD0 where there
  // are EXIF fields), then the values longer than 4 bytes.
  struct TiffField {
    unsigned tag, type;
    std::uint32_t count;
    std::string value;
  };
  struct TiffWriter {
    bool little_endian;
    std::string u16(unsigned v) const {
      const char lo = static_cast<char>(v & 255), hi = static_cast<char>((v >> 8) & 255);
      return little_endian ? std::string{lo, hi} : std::string{hi, lo};
    }
    std::string u32(std::uint32_t v) const {
      return little_endian ? u16(v & 0xFFFF) + u16(v >> 16) : u16(v >> 16) + u16(v & 0xFFFF);
    }
    TiffField short_field(unsigned tag, unsigned v) const { return {tag, 3, 1, u16(v)}; }
    TiffField long_field(unsigned tag, std::uint32_t v) const { return {tag, 4, 1, u32(v)}; }
    TiffField rational(unsigned tag, std::uint32_t num, std::uint32_t den) const {
      return {tag, 5, 1, u32(num) + u32(den)};
    }
    std::string block(std::vector<TiffField> ifd0, const std::vector<TiffField>& exif) const {
      const auto ifd_bytes = [](size_t n) { return 2 + 12 * n + 4; };
      if (!exif.empty()) ifd0.push_back(long_field(0x8769, 0));  // its offset filled in below
      const size_t exif_at = 8 + ifd_bytes(ifd0.size());
      if (!exif.empty()) ifd0.back().value = u32(static_cast<std::uint32_t>(exif_at));
      size_t data_at = exif_at + (exif.empty() ? 0 : ifd_bytes(exif.size()));
      std::string data;
      const auto ifd = [&](const std::vector<TiffField>& fields) {
        std::string out = u16(static_cast<unsigned>(fields.size()));
        for (const TiffField& field : fields) {
          out += u16(field.tag) + u16(field.type) + u32(field.count);
          if (field.value.size() <= 4) {
            out += field.value + std::string(4 - field.value.size(), '\0');
          } else {
            out += u32(static_cast<std::uint32_t>(data_at + data.size()));
            data += field.value;
          }
        }
        return out + u32(0);  // no next IFD
      };
      std::string tiff = std::string(little_endian ? "II" : "MM") + u16(42) + u32(8) + ifd(ifd0);
      if (!exif.empty()) tiff += ifd(exif);
      return tiff + data;
    }
  };

  // A JPEG's start: SOI, then an APP1 segment holding `tiff` as EXIF data.
  std::string jpeg_with_exif(const std::string& tiff) {
    const std::string body = std::string("Exif\0\0", 6) + tiff;
    const size_t length = body.size() + 2;
    return std::string("\xff\xd8\xff\xe1", 4) + static_cast<char>(length >> 8) +
           static_cast<char>(length & 255) + body;
  }

  double focal_pixels(const std::string& bytes, int width, int height) {
    // An exact-size buffer, so that a sanitized build sees any read past the end.
    const std::vector<unsigned char> exact(bytes.begin(), bytes.end());
    return jpeg_exif_focal_pixels(exact.data(), exact.size(), width, height);
  }

  TEST_CASE("EXIF focal length in pixels by COLMAP 3.8's rules: 35 mm equivalent, else mm and sensor width") {
    for (const bool little_endian : {true, false}) {
      INFO((little_endian ? "II" : "MM"));
      const TiffWriter w{little_endian};
      const auto f35 = [&](unsigned mm) { return w.short_field(0xA405, mm); };
      // FocalLengthIn35mmFilm: f35 / 35 of the larger side, whichever way the image is shown.
      const std::string f28 = jpeg_with_exif(w.block({w.short_field(0x0112, 6)}, {f35(28)}));
      CHECK(focal_pixels(f28, 4000, 3000) == doctest::Approx(28.0 / 35.0 * 4000).epsilon(1e-12));
      CHECK(focal_pixels(f28, 3000, 4000) == doctest::Approx(3200.0).epsilon(1e-12));
      CHECK(jpeg_exif_orientation(reinterpret_cast<const unsigned char*>(f28.data()), f28.size()) == 6);

      // FocalLength 5.4 mm on a sensor 6.4 mm wide: 4000 pixels across
      // (PixelXDimension) at 6250 pixels per cm or 15875 per inch.
      const std::vector<TiffField> per_cm = {w.rational(0x920A, 54, 10), w.long_field(0xA002, 4000),
                                             w.rational(0xA20E, 6250, 1), w.short_field(0xA210, 3)};
      const double sensor_mm = 4000 / 6250.0 * 10;
      REQUIRE(sensor_mm == doctest::Approx(6.4));
      CHECK(focal_pixels(jpeg_with_exif(w.block({}, per_cm)), 4000, 3000) ==
            doctest::Approx(5.4 / sensor_mm * 4000).epsilon(1e-12));
      // A copy resized to 2000 x 1500 keeps PixelXDimension: half the pixels.
      CHECK(focal_pixels(jpeg_with_exif(w.block({}, per_cm)), 1500, 2000) ==
            doctest::Approx(5.4 / sensor_mm * 2000).epsilon(1e-12));
      const std::vector<TiffField> per_inch = {w.rational(0x920A, 54, 10), w.short_field(0xA002, 4000),
                                               w.rational(0xA20E, 15875, 1), w.short_field(0xA210, 2)};
      CHECK(focal_pixels(jpeg_with_exif(w.block({}, per_inch)), 4000, 3000) ==
            doctest::Approx(5.4 / (4000 / 15875.0 * 25.4) * 4000).epsilon(1e-12));
      // A fractional resolution (pixels per cm 6250 as 12500/2) is read as a fraction.
      std::vector<TiffField> halves = per_cm;
      halves[2] = w.rational(0xA20E, 12500, 2);
      CHECK(focal_pixels(jpeg_with_exif(w.block({}, halves)), 4000, 3000) ==
            doctest::Approx(5.4 / sensor_mm * 4000).epsilon(1e-12));
      // COLMAP reads FocalLength as FreeImage prints it, "%.1f mm": 17/4 mm
      // (4.25, exact in binary) is taken as 4.2 mm, the tie to even.
      std::vector<TiffField> quarter = per_cm;
      quarter[0] = w.rational(0x920A, 17, 4);
      CHECK(focal_pixels(jpeg_with_exif(w.block({}, quarter)), 4000, 3000) ==
            doctest::Approx(4.2 / sensor_mm * 4000).epsilon(1e-12));
      // A 35 mm equivalent comes first; one of 0 is passed over.
      std::vector<TiffField> both = per_cm;
      both.push_back(f35(28));
      CHECK(focal_pixels(jpeg_with_exif(w.block({}, both)), 4000, 3000) ==
            doctest::Approx(3200.0).epsilon(1e-12));
      both.back() = f35(0);
      CHECK(focal_pixels(jpeg_with_exif(w.block({}, both)), 4000, 3000) ==
            doctest::Approx(5.4 / sensor_mm * 4000).epsilon(1e-12));

      // None: no EXIF IFD, no focal tags, FocalLength without the sensor's
      // width, a unit COLMAP has no rule for (1: none), tags in IFD0 rather
      // than the EXIF IFD, no image size.
      CHECK(focal_pixels(jpeg_with_exif(w.block({w.short_field(0x0112, 1)}, {})), 4000, 3000) == 0);
      CHECK(focal_pixels(jpeg_with_exif(w.block({}, {w.short_field(0xA402, 0)})), 4000, 3000) == 0);
      CHECK(focal_pixels(jpeg_with_exif(w.block({}, {per_cm[0]})), 4000, 3000) == 0);
      for (size_t left_out = 1; left_out < 4; ++left_out) {
        std::vector<TiffField> partial = per_cm;
        partial.erase(partial.begin() + static_cast<long>(left_out));
        CHECK(focal_pixels(jpeg_with_exif(w.block({}, partial)), 4000, 3000) == 0);
      }
      std::vector<TiffField> no_unit = per_cm;
      no_unit[3] = w.short_field(0xA210, 1);
      CHECK(focal_pixels(jpeg_with_exif(w.block({}, no_unit)), 4000, 3000) == 0);
      CHECK(focal_pixels(jpeg_with_exif(w.block({f35(28)}, {})), 4000, 3000) == 0);
      CHECK(focal_pixels(f28, 0, 3000) == 0);
      CHECK(focal_pixels(std::string("\xff\xd8\xff\xd9", 4), 4000, 3000) == 0);
    }
  }

  TEST_CASE("EXIF focal length: damaged blocks give 0, read within bounds") {
    const TiffWriter w{true};
    const std::vector<TiffField> per_cm = {w.rational(0x920A, 54, 10), w.long_field(0xA002, 4000),
                                           w.rational(0xA20E, 6250, 1), w.short_field(0xA210, 3)};
    const double expected = 5.4 / (4000 / 6250.0 * 10) * 4000;
    const auto with = [&](size_t i, const TiffField& field) {
      std::vector<TiffField> fields = per_cm;
      fields[i] = field;
      return focal_pixels(jpeg_with_exif(w.block({}, fields)), 4000, 3000);
    };
    REQUIRE(with(0, per_cm[0]) == doctest::Approx(expected).epsilon(1e-12));
    // Zero denominators and numerators; a FocalLength that prints as 0.0 mm.
    CHECK(with(0, w.rational(0x920A, 54, 0)) == 0);
    CHECK(with(0, w.rational(0x920A, 0, 10)) == 0);
    CHECK(with(0, w.rational(0x920A, 4, 100)) == 0);
    CHECK(with(2, w.rational(0xA20E, 6250, 0)) == 0);
    CHECK(with(2, w.rational(0xA20E, 0, 1)) == 0);
    CHECK(with(1, w.long_field(0xA002, 0)) == 0);
    // Wrong types: FocalLength as SHORT, the resolution as LONG, the unit as
    // LONG, PixelXDimension as RATIONAL, an undefined type (14), a count of 0.
    CHECK(with(0, w.short_field(0x920A, 5)) == 0);
    CHECK(with(2, w.long_field(0xA20E, 6250)) == 0);
    CHECK(with(3, w.long_field(0xA210, 3)) == 0);
    CHECK(with(1, w.rational(0xA002, 4000, 1)) == 0);
    CHECK(with(3, {0xA210, 14, 1, w.u16(3)}) == 0);
    CHECK(with(3, {0xA210, 3, 0, w.u16(3)}) == 0);
    // A 35 mm equivalent of another type than SHORT is passed over for FocalLength.
    std::vector<TiffField> long_f35 = per_cm;
    long_f35.push_back({0xA405, 4, 1, w.u32(28)});
    CHECK(focal_pixels(jpeg_with_exif(w.block({}, long_f35)), 4000, 3000) ==
          doctest::Approx(expected).epsilon(1e-12));
    // A count so large that its values cannot lie in the block (and whose
    // byte count overflows 32 bits).
    CHECK(with(0, {0x920A, 5, 0x40000000, w.u32(0)}) == 0);
    CHECK(with(0, {0x920A, 5, 0xFFFFFFFF, w.u32(0)}) == 0);

    const std::string good = jpeg_with_exif(w.block({}, per_cm));
    const size_t tiff_at = 4 + 2 + 6;  // SOI, APP1 marker and length, "Exif\0\0"
    // The EXIF pointer (IFD0's one entry, value at 8 + 2 + 8) past the end,
    // at the last byte, and back to IFD0 (a loop).
    for (const std::uint32_t pointer :
         {0xFFFFFFF0u, static_cast<std::uint32_t>(good.size() - tiff_at - 1), 8u}) {
      std::string bad = good;
      bad.replace(tiff_at + 18, 4, w.u32(pointer));
      CHECK(focal_pixels(bad, 4000, 3000) == 0);
    }
    // FocalLength's offset (the EXIF IFD at 8 + 18, its first entry's value
    // at + 2 + 8) past the end or reaching past it.
    const size_t focal_offset_at = tiff_at + 8 + 18 + 2 + 8;
    for (const std::uint32_t offset : {0xFFFFFFFCu, static_cast<std::uint32_t>(good.size() - tiff_at - 4)}) {
      std::string bad = good;
      bad.replace(focal_offset_at, 4, w.u32(offset));
      CHECK(focal_pixels(bad, 4000, 3000) == 0);
    }
    // 65,535 entries claimed in the EXIF IFD, the tags among those there:
    // FreeImage (and so COLMAP) skips an IFD whose entries pass the end.
    std::string many = good;
    many.replace(tiff_at + 8 + 18, 2, w.u16(0xFFFF));
    CHECK(focal_pixels(many, 4000, 3000) == 0);
    // Every cut of the block, with the segment's length cut to match: 0
    // until all the values are there (the rationals are last).
    for (size_t n = 0; n < good.size(); ++n) {
      std::string cut = good.substr(0, n);
      if (n >= 6) {
        cut[4] = static_cast<char>((n - 4) >> 8);
        cut[5] = static_cast<char>((n - 4) & 255);
      }
      CHECK(focal_pixels(cut, 4000, 3000) == 0);
    }
  }

  TEST_CASE("a bundled photo saved as PGM loads to the same pixels as the PNG") {
    ScratchImageDir dir;
    const GrayImage png = load_gray(GLSURF_TEST_ASSET_DIR "/graf1.png");
    const std::vector<unsigned> samples(png.pixels.begin(), png.pixels.end());
    const std::string header =
        "P5\n" + std::to_string(png.width) + " " + std::to_string(png.height) + "\n255\n";
    CHECK(load_gray(dir.write("graf1.pgm", pnm(header, samples, 1))).pixels == png.pixels);
  }

  TEST_CASE("resize keeps a constant image constant and is the identity at the same size") {
    const GrayImage flat(37, 23, 91);
    const GrayImage big = resize(flat, 100, 61);
    for (auto p : big.pixels) REQUIRE(p == 91);
    const GrayImage image = test::random_image(13, 9, 3);
    CHECK(resize(image, 13, 9).pixels == image.pixels);
  }

}  // TEST_SUITE
