// Grey 8-bit images: the input of every glsurf stage (GrayImage, LoadOptions
// and load_gray are public: glsurf/types.hpp, glsurf/image.hpp).
//
// Pixel (x, y) is pixels[y * width + x]; row 0 is the top row of the picture
// (origin at the centre of the top-left pixel, x right, y down).
#pragma once

#include "glsurf/image.hpp"
#include "glsurf/types.hpp"

namespace glsurf {

// Bilinear resampling to an exact size (pixel centres aligned, as cv::resize
// INTER_LINEAR); used to make benchmark inputs of standard sizes from real photos.
GrayImage resize(const GrayImage& image, int width, int height);

}  // namespace glsurf
