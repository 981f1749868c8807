// Grey 8-bit images: the input of every glsurf stage (GrayImage, LoadOptions
// and load_gray are public: glsurf/types.hpp, glsurf/image.hpp).
//
// Pixel (x, y) is pixels[y * width + x]; row 0 is the top row of the picture
// (origin at the centre of the top-left pixel, x right, y down).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "glsurf/image.hpp"
#include "glsurf/types.hpp"

namespace glsurf {

// 8-bit RGB, 3 bytes a pixel, rows top first: an image's colours, read only
// for pictures (match --draw, detect --draw); every stage works on grey.
struct RgbImage {
  int width = 0;
  int height = 0;
  std::vector<std::uint8_t> pixels;
};

// load_gray, and the same image's colours into *colour when it is not null:
// grey images as grey RGB, alpha dropped, 16-bit samples rounded to 8 bits
// as load_gray rounds them, turned by EXIF as the grey image is. One read of
// the file (a piped input can be read once).
GrayImage load_gray(const std::string& path, const LoadOptions& options, RgbImage* colour);

// A grey image as grey RGB.
RgbImage rgb_of(const GrayImage& image);

// Bilinear resampling to an exact size (pixel centres aligned, as cv::resize
// INTER_LINEAR); used to make benchmark inputs of standard sizes from real photos.
GrayImage resize(const GrayImage& image, int width, int height);

}  // namespace glsurf
