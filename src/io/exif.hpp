// EXIF orientation: how a camera's stored pixels are to be turned for display;
// and the focal length EXIF gives, as COLMAP takes it for a camera's prior.
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

// The focal length in pixels that EXIF gives for a width x height image (as
// shown), as COLMAP 3.8 derives its prior; 0 when the file has none usable.
//
// COLMAP 3.8 (`Bitmap::ExifFocalLength`, src/util/bitmap.cc, which its
// ImageReader calls for each new camera; it reads the tags through FreeImage
// as text) takes, from the EXIF sub-IFD (IFD0's tag 0x8769) of the JPEG's
// first EXIF APP1 segment:
//
//   1. FocalLengthIn35mmFilm (0xA405, SHORT) f35 > 0:
//        f = f35 / 35 * max(width, height)
//      (COLMAP divides by 35, not by 36, the width of a 35 mm film frame);
//   2. else FocalLength (0x920A, RATIONAL) in mm, rounded to
//      0.1 mm (FreeImage prints it "%.1f mm"), f_mm > 0, and the sensor's
//      width from PixelXDimension (0xA002, SHORT or LONG: the width the
//      camera wrote, not the image's, so a resized copy's prior scales),
//      FocalPlaneXResolution (0xA20E, RATIONAL, pixels per unit) and
//      FocalPlaneResolutionUnit (0xA210, SHORT: 2 inch, 3 cm; any other unit
//      gives none):
//        sensor_mm = PixelXDimension / FocalPlaneXResolution * (25.4 or 10)
//        f = f_mm / sensor_mm * max(width, height)
//
// COLMAP looks the sensor's width up in its camera database (by the Make and
// Model tags) before step 2's EXIF tags; that database is left out here, so
// for a camera it lists COLMAP's prior can differ, and exists where this
// gives 0 for want of the FocalPlane tags. A width or height below 1, a tag of another type than the ones
// named, a zero denominator, a count of 0, an offset or value out of the block, or an EXIF pointer back to
// IFD0 makes the tag unusable; nothing is read outside data[0, size).
double jpeg_exif_focal_pixels(const unsigned char* data, size_t size, int width, int height);

// `image` as shown under EXIF orientation `orientation` (1..8; TIFF 6.0 and
// EXIF 2.3, tag 0x0112: where the stored image's row 0 and column 0 lie when
// shown). 5..8 swap width and height.
GrayImage apply_exif_orientation(GrayImage image, int orientation);
RgbImage apply_exif_orientation(RgbImage image, int orientation);  // the same, for colours

}  // namespace glsurf
