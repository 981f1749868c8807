// Reading images as 8-bit grey levels (GrayImage, glsurf/types.hpp).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "glsurf/types.hpp"

namespace glsurf {

struct LoadOptions {
  // Checked from the header, before decoding: the most pixels any image
  // may have (2^31 - 1: indices stay within int), and per side. An image
  // larger than the GPU's textures or the memory budget is detected in
  // tiles (surf/tiles.hpp); it is held whole, 1 byte a pixel.
  long long max_pixels = (1LL << 31) - 1;
  int max_side = 1 << 20;
  // A JPEG is shown as its EXIF orientation tag says (io/exif.hpp), as
  // OpenCV's imread shows it; false keeps the stored pixels, as imread's
  // IMREAD_IGNORE_ORIENTATION does (keypoints in the sensor's frame, for
  // tools that read the stored pixels).
  bool exif_orientation = true;
  // Told of what is read in spite of a fault (one line each, naming the
  // file): a JPEG without its end marker. Nothing is said when empty.
  std::function<void(const std::string&)> warn;
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

}  // namespace glsurf
