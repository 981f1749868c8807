// Feature files.
//
// txt: first line "N D" (SURF) or "N D sift", then one line per keypoint
//        x y size angle response laplacian octave d1 ... dD
//      (D = 0 until descriptors exist). Fields as surf/keypoint.hpp; floats
//      printed with enough digits to read back the same float32.
// bin: little-endian. Header: the 8 bytes "GLSURF01" (SURF) or "GLSIFT01",
//      uint32 N, uint32 D.
//      Then N records: float32 x, y, size, angle, response; int32 laplacian,
//      octave; float32 d1 ... dD.
//
// Files are written through io/output.hpp, so a failure never leaves a
// partial file.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <string>
#include <vector>

#include "surf/keypoint.hpp"

namespace glsurf {

enum class FeatureFormat { Txt, Bin };

void write_features(std::ostream& out, const Features& features, FeatureFormat format);
// Throws glsurf::Error naming the path if it cannot be written.
void write_features_file(const std::string& path, const Features& features, FeatureFormat format);
// Either format. Throws glsurf::Error, naming the line (txt) or keypoint
// (bin), unless the file holds exactly N keypoints of 7 + D finite numbers
// (laplacian and octave integers), one per line in txt (blank lines may
// follow), nothing after them in bin. `format`, if given, is set to the
// format read.
Features read_features_file(const std::string& path, FeatureFormat* format = nullptr);

// Where keypoint `index` (from 0) of `count` is in a file of `format`, as
// read_features_file's errors say it: "line 5" (txt: the header is line 1)
// or "keypoint 4 of 9" (bin).
std::string keypoint_location(FeatureFormat format, size_t index, size_t count);

// Whether `path` is a regular file that begins as a feature file does: the
// bin magic, or a txt first line of two whole numbers ("N D", with the
// blanks and + signs that read_features_file takes). No image
// format begins either way. Pipes and devices are never taken for one (to
// look would consume them).
bool is_feature_file(const std::string& path);

}  // namespace glsurf
