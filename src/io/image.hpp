// Grey 8-bit images: the input of every glsurf stage.
//
// Pixel (x, y) is pixels[y * width + x]; row 0 is the top row of the picture
// (DESIGN.md: origin at the centre of the top-left pixel, x right, y down).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace glsurf {

struct GrayImage {
  int width = 0;
  int height = 0;
  std::vector<std::uint8_t> pixels;

  GrayImage() = default;
  GrayImage(int w, int h, std::uint8_t fill = 0)
      : width(w), height(h), pixels(static_cast<size_t>(w) * h, fill) {}
  std::uint8_t at(int x, int y) const { return pixels[static_cast<size_t>(y) * width + x]; }
  std::uint8_t& at(int x, int y) { return pixels[static_cast<size_t>(y) * width + x]; }
};

// Why `image` is not a whole image (a negative side, or a pixel buffer that
// is not width x height long), or "" when it is. The detectors check it
// first: an image put together by hand with too few pixels would otherwise
// be read past its end, or, with none, not uploaded at all.
inline std::string image_layout_problem(const GrayImage& image) {
  const long long expected = static_cast<long long>(image.width) * image.height;
  if (image.width < 0 || image.height < 0 || static_cast<long long>(image.pixels.size()) != expected) {
    return "image of " + std::to_string(image.width) + "x" + std::to_string(image.height) + " has " +
           std::to_string(image.pixels.size()) + " pixel values" +
           (image.width < 0 || image.height < 0 ? "" : " instead of " + std::to_string(expected));
  }
  return "";
}

struct LoadOptions {
  long long max_pixels = 16384LL * 16384;  // checked from the header, before decoding
  int max_side = 16384;
  // A JPEG is shown as its EXIF orientation tag says (io/exif.hpp), as
  // OpenCV's imread shows it; false keeps the stored pixels, as imread's
  // IMREAD_IGNORE_ORIENTATION does (keypoints in the sensor's frame, for
  // tools that read the stored pixels).
  bool exif_orientation = true;
};

// Loads PNG, JPEG, BMP, TGA (stb_image) and binary PGM/PPM (P5/P6, read here: maxval
// 1..65535, 8-bit samples below 256, 16-bit big-endian from 256, rescaled to 0..255
// as round(v * 255 / maxval); 16-bit PNG samples as round(v * 255 / 65535), where
// stb_image keeps their top byte) and converts colour to grey with the ITU-R BT.601
// weights in OpenCV's fixed point: (4899 R + 9617 G + 1868 B) / 2^14, rounded.
// Throws glsurf::Error "PATH: reason" for a missing, unreadable, unsupported or too
// large file, for truncated pixel data (PNM, uncompressed BMP, TGA), a critical
// PNG chunk whose CRC-32 does not match (stb_image checks none), a palette
// index beyond a PNG's or BMP's palette (stb_image reads memory it never wrote
// for it) or a TGA's colour map (it shows entry 0), a JPEG whose coded data
// cannot give every block of its frame (io/jpeg_check.hpp; stb_image fills
// the rest with grey), a PNM maxval outside 1..65535 or a PNM sample above
// its maxval. Plain-text PNM (P2, P3), bitmaps (P1, P4) and PAM (P7) are
// refused. A JPEG is shown as its EXIF orientation tag says (io/exif.hpp),
// as OpenCV's imread shows it, unless options.exif_orientation is false.
GrayImage load_gray(const std::string& path, const LoadOptions& options = {});

// Whether `path` names a file of a format load_gray reads, by its extension in
// any case: .png .jpg .jpeg .bmp .tga .pgm .ppm .pnm.
bool is_image_name(const std::string& path);

// The regular files of directory `dir` with image names (and links to them),
// in name order. A broken link is listed too, so that loading reports it
// rather than it being silently left out; pipes and devices are not (reading
// one could wait forever). Throws glsurf::Error when the directory cannot be
// read.
std::vector<std::string> images_in_directory(const std::string& dir);

// Bilinear resampling to an exact size (pixel centres aligned, as cv::resize
// INTER_LINEAR); used to make benchmark inputs of standard sizes from real photos.
GrayImage resize(const GrayImage& image, int width, int height);

}  // namespace glsurf
