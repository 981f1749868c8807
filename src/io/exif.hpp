// EXIF orientation: how a camera's stored pixels are to be turned for display.
//
// glsurf reads images as they are shown, as OpenCV's imread does: a JPEG whose
// EXIF data (an APP1 segment before the frame) gives an orientation other
// than 1 is turned or mirrored after decoding, so keypoints and pictures
// refer to the upright image a viewer shows.
#pragma once

#include <cstddef>

#include "io/image.hpp"

namespace glsurf {

// The orientation tag (0x0112) of IFD0 in the first EXIF APP1 segment of a
// JPEG (`data` from its SOI marker): 1..8, or 1 where there is none or it
// cannot be read (a damaged EXIF block is ignored, as viewers ignore it).
int jpeg_exif_orientation(const unsigned char* data, size_t size);

// `image` as shown under EXIF orientation `orientation` (1..8; TIFF 6.0 and
// EXIF 2.3, tag 0x0112: where the stored image's row 0 and column 0 lie when
// shown). 5..8 swap width and height.
GrayImage apply_exif_orientation(GrayImage image, int orientation);

}  // namespace glsurf
