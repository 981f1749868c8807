// Feature and match files in other tools' formats, for the programs that read
// them (glsurf itself reads only its own txt and bin: io/features.hpp).
//
// Each writer converts glsurf's conventions (types.hpp: the top-left pixel's
// centre at (0, 0), y down; `size` the box-filter side L; `angle` degrees
// counter-clockwise as the image is shown, -1 or 0 for none; descriptors of
// unit length with signed values) to the reader's, exactly as stated here
// and in docs/cli.md ("Feature files"):
//
// OpenCV FileStorage (cv::FileStorage, Python's cv2.FileStorage), YAML
// ("%YAML:1.0") or XML, laid out as OpenCV 4.6's own writer lays out
//   cv::write(fs, "keypoints", std::vector<cv::KeyPoint>)
//   fs << "descriptors" << cv::Mat (CV_32F, N x D)
// so that cv::read(fs["keypoints"], keypoints) and fs["descriptors"] >> mat
// load them: `keypoints` a sequence with one flow sequence of 7 numbers per
// keypoint, x y size angle response octave class_id (glsurf's values as they
// are; class_id the Laplacian's sign, as OpenCV's SURF sets it), and
// `descriptors` an opencv-matrix, dt f. Matches: `matches` one sequence of 4
// per match, queryIdx trainIdx imgIdx distance (cv::DMatch, imgIdx 0: one
// train image, as OpenCV's matchers set it), and `inliers` an opencv-matrix
// N x 1, dt u (1 inlier, 0 not). Floats are printed with %.9g (every float32
// reads back exactly) and always with a '.' or an exponent, as OpenCV writes
// reals.
//
// COLMAP 3.8's feature_importer (LoadSiftFeaturesFromTextFile): "N 128",
// then a line per keypoint "x y scale orientation d1 ... d128" in COLMAP's
// conventions, as glsurf's database stores them (database/colmap.hpp:
// colmap_keypoints, colmap_descriptors): x + 0.5, y + 0.5, sigma
// (SURF: 1.2 L / 9, SIFT: size / 2), radians clockwise as shown in
// (-pi, pi], and each value clamp(round(128 + 256 v), 0, 255) for SURF,
// min(255, round(512 v)) for SIFT. COLMAP takes only D = 128: a 64-value
// descriptor is padded with 64 values of 128 (the quantised 0), which
// leaves every distance between two padded descriptors as it was.
// Matches for `colmap matches_importer --match_type raw|inliers`: the line
// "NAME_A NAME_B", a line "i j" per match (i into A's keypoints), a blank
// line.
//
// Lowe's keypoint files (siftDemo's .key, VLFeat's vl_ubcread): "N D", then
// per keypoint a line "row col scale orientation" = y x sigma radians, then
// the D values in lines of 20. Lowe's frame centres are in the image's
// reference, the top-left pixel's centre at (0, 0) as glsurf's (vl_ubcread
// adds 1 for MATLAB's (1, 1)), so x and y are written as they are; his
// orientation assumes the y axis up (VLFeat's sift tutorial, "Conventions";
// vl_ubcread negates it): counter-clockwise as shown, glsurf's direction, in
// radians in [-pi, pi): the negated COLMAP orientation. sigma and the values
// are COLMAP's (0..255 as in Lowe's files); D is the descriptor's own size.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "glsurf/types.hpp"

namespace glsurf {

// OpenCV's FileStorage flavour of a file name by its extension (any case):
// Yaml for .yml and .yaml, Xml for .xml, None otherwise.
enum class StorageKind { None, Yaml, Xml };
StorageKind storage_kind(const std::string& path);

void write_opencv_features(std::ostream& out, const Features& features, StorageKind kind);
void write_colmap_features(std::ostream& out, const Features& features);
void write_lowe_features(std::ostream& out, const Features& features);

// `inliers` has one entry per match.
void write_opencv_matches(std::ostream& out, const std::vector<Match>& matches,
                          const std::vector<bool>& inliers, StorageKind kind);
// The names as COLMAP's database names the images (relative to its image
// path); neither may hold white space (COLMAP reads them as words).
void write_colmap_matches(std::ostream& out, const std::string& image_a, const std::string& image_b,
                          const std::vector<Match>& matches);

}  // namespace glsurf
