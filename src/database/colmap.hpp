// A COLMAP 3.8 project database, as glsurf fills it: COLMAP's own tables,
// which `colmap mapper` reads, and glsurf's beside them.
//
//   cameras, images       one camera per image (COLMAP's default) or one for all, the model
//                         SIMPLE_RADIAL (f, cx, cy, k) as its feature
//                         extractor sets it up; image and camera ids are the
//                         image's place in the name-sorted list from 1 on, so
//                         that every run, shard and resumed run agrees
//   keypoints             N x 4 float32: x + 0.5, y + 0.5 (COLMAP puts the
//                         top-left pixel's centre at 0.5, glsurf at 0), the
//                         scale sigma = 1.2 L / 9, the orientation in radians
//                         clockwise as shown (glsurf's degrees counter-clockwise,
//                         negated)
//   descriptors           N x D uint8: clamp(round(128 + 256 v), 0, 255) of each
//                         value v of the unit-length descriptor; the offset
//                         leaves distances as they are, values beyond +-0.5
//                         (rare) saturate
//   matches               per pair, the raw matches (uint32 index pairs)
//   two_view_geometries   per pair, the inlier matches, the configuration,
//                         F, E and H (3 x 3 float64, column-major as COLMAP's
//                         Eigen matrices are stored)
//   glsurf_features       per image, glsurf's keypoints (x y size angle response
//                         octave laplacian, float32) and float32 descriptors:
//                         what matching reads, nothing lost to the conversions
//   glsurf_settings       the schema version and the options the features and
//                         matches were made with; a run with other options is
//                         refused rather than mixed in
//
// Pairs follow COLMAP: pair_id = 2147483647 * id1 + id2 with id1 < id2, and
// the matches of a pair index the keypoints of id1 first.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "database/sqlite.hpp"
#include "glsurf/types.hpp"

namespace glsurf::colmap {

using ImageId = std::int64_t;

constexpr int kSchemaVersion = 3800;  // COLMAP 3.8's PRAGMA user_version
constexpr int kGlsurfSchema = 1;      // glsurf_settings 'schema'
constexpr int kSimpleRadial = 2;      // COLMAP's camera model id

std::int64_t pair_id(ImageId a, ImageId b);
// The two ids of a pair_id, the smaller first.
std::pair<ImageId, ImageId> pair_images(std::int64_t pair_id);

struct Camera {
  int model = kSimpleRadial;
  int width = 0, height = 0;
  std::vector<double> params;  // SIMPLE_RADIAL: f, cx, cy, k
  bool prior_focal_length = false;
};
// COLMAP's feature extractor's camera for an image: SIMPLE_RADIAL with the
// focal length from EXIF when given (`focal_pixels` > 0, a prior), else
// 1.2 max(width, height); the principal point at the centre; k = 0.
Camera default_camera(int width, int height, double focal_pixels);

struct Image {
  ImageId id = 0;
  std::string name;  // relative to the image directory, '/' separated
};

// Keypoints and descriptors in COLMAP's conventions (see above).
// sigma: 1.2 L / 9 for SURF, size / 2 for SIFT; descriptors: SURF's
// clamp(round(128 + 256 v), 0, 255), SIFT's min(255, round(512 v)).
std::vector<float> colmap_keypoints(const std::vector<KeyPoint>& keypoints, FeatureType type);
std::vector<std::uint8_t> colmap_descriptors(const Features& features);

// What a verified pair stores in two_view_geometries.
struct TwoView {
  int config = 0;                             // COLMAP's ConfigurationType
  std::vector<Match> inliers;                 // indices as in the matches
  std::optional<std::array<double, 9>> f, h;  // row-major
};

class Database {
 public:
  // Read; Update: write into a database glsurf made (its tables there);
  // Write: also make the file and the tables where missing.
  enum class Access { Read, Update, Write };
  // Opens `path`. Before anything is written, refuses with a one-line
  // glsurf::Error: a file that is not SQLite, another tool's database
  // (tables that are not COLMAP's), a newer schema (COLMAP's or glsurf's), a
  // database that cannot be written (Update, Write), one without glsurf's
  // tables (Update).
  Database(const std::string& path, Access access);

  const std::string& path() const { return connection_.path(); }
  sql::Connection& connection() { return connection_; }
  // Whether this object made the file (it did not exist before).
  bool created() const { return created_; }

  // A glsurf setting ("" when not set).
  std::string setting(const std::string& key);
  void set_setting(const std::string& key, const std::string& value);
  // Sets `key` to `value`, or throws glsurf::Error when the database holds
  // another value: `what` names what was made with it ("features", "matches").
  void require_setting(const std::string& key, const std::string& value, const std::string& what);

  // The images, by id; those with glsurf's features only when `described`.
  std::vector<Image> images(bool described = true);
  // The id of the image of that name, if stored.
  std::optional<ImageId> image_id(const std::string& name);
  // Whether id is taken (by an image of any name).
  bool has_image_id(ImageId id);
  // One image: its images row, COLMAP keypoints and descriptors and glsurf's
  // features, and camera `camera_id` when the database lacks it, in one
  // transaction. Throws glsurf::Error when the stored camera `camera_id` has
  // another image size.
  void add_image(ImageId id, const std::string& name, std::int64_t camera_id, const Camera& camera,
                 const Features& features);
  Features features(ImageId id);

  // Whether the pair has its matches stored.
  bool has_pair(ImageId a, ImageId b);
  // Stores a pair's matches (query indices into a's keypoints, train into
  // b's) and its verification; call inside a transaction.
  void add_pair(ImageId a, ImageId b, const std::vector<Match>& matches, const TwoView& geometry);

 private:
  void check_schema(bool writing);
  void create_tables();

  bool created_;  // before connection_, which makes the file
  sql::Connection connection_;
};

}  // namespace glsurf::colmap
