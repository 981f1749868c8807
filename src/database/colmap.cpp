#include "database/colmap.hpp"

#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>

#include "gl/error.hpp"

namespace glsurf::colmap {

namespace fs = std::filesystem;

namespace {

constexpr std::int64_t kMaxImageId = 2147483647;

// COLMAP 3.8's schema, as `colmap database_creator` makes it.
const char* const kColmapTables = R"(
CREATE TABLE IF NOT EXISTS cameras (camera_id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
  model INTEGER NOT NULL, width INTEGER NOT NULL, height INTEGER NOT NULL, params BLOB,
  prior_focal_length INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS images (image_id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
  name TEXT NOT NULL UNIQUE, camera_id INTEGER NOT NULL, prior_qw REAL, prior_qx REAL, prior_qy REAL,
  prior_qz REAL, prior_tx REAL, prior_ty REAL, prior_tz REAL,
  CONSTRAINT image_id_check CHECK(image_id >= 0 and image_id < 2147483647),
  FOREIGN KEY(camera_id) REFERENCES cameras(camera_id));
CREATE UNIQUE INDEX IF NOT EXISTS index_name ON images(name);
CREATE TABLE IF NOT EXISTS keypoints (image_id INTEGER PRIMARY KEY NOT NULL, rows INTEGER NOT NULL,
  cols INTEGER NOT NULL, data BLOB, FOREIGN KEY(image_id) REFERENCES images(image_id) ON DELETE CASCADE);
CREATE TABLE IF NOT EXISTS descriptors (image_id INTEGER PRIMARY KEY NOT NULL, rows INTEGER NOT NULL,
  cols INTEGER NOT NULL, data BLOB, FOREIGN KEY(image_id) REFERENCES images(image_id) ON DELETE CASCADE);
CREATE TABLE IF NOT EXISTS matches (pair_id INTEGER PRIMARY KEY NOT NULL, rows INTEGER NOT NULL,
  cols INTEGER NOT NULL, data BLOB);
CREATE TABLE IF NOT EXISTS two_view_geometries (pair_id INTEGER PRIMARY KEY NOT NULL,
  rows INTEGER NOT NULL, cols INTEGER NOT NULL, data BLOB, config INTEGER NOT NULL, F BLOB, E BLOB,
  H BLOB, qvec BLOB, tvec BLOB);
)";

const char* const kGlsurfTables = R"(
CREATE TABLE IF NOT EXISTS glsurf_settings (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS glsurf_features (image_id INTEGER PRIMARY KEY NOT NULL,
  rows INTEGER NOT NULL, descriptor_size INTEGER NOT NULL, keypoints BLOB NOT NULL,
  descriptors BLOB NOT NULL, FOREIGN KEY(image_id) REFERENCES images(image_id) ON DELETE CASCADE);
)";

// The columns of COLMAP 3.8's tables, in order.
const std::map<std::string, std::vector<std::string>>& colmap_columns() {
  static const std::map<std::string, std::vector<std::string>> columns = {
      {"cameras", {"camera_id", "model", "width", "height", "params", "prior_focal_length"}},
      {"images",
       {"image_id", "name", "camera_id", "prior_qw", "prior_qx", "prior_qy", "prior_qz", "prior_tx",
        "prior_ty", "prior_tz"}},
      {"keypoints", {"image_id", "rows", "cols", "data"}},
      {"descriptors", {"image_id", "rows", "cols", "data"}},
      {"matches", {"pair_id", "rows", "cols", "data"}},
      {"two_view_geometries", {"pair_id", "rows", "cols", "data", "config", "F", "E", "H", "qvec", "tvec"}}};
  return columns;
}

constexpr int kKeypointColumns = 7;  // glsurf_features: x y size angle response octave laplacian

// A 3 x 3 row-major matrix as COLMAP stores one (Eigen's column-major order).
std::array<double, 9> column_major(const std::array<double, 9>& m) {
  return {m[0], m[3], m[6], m[1], m[4], m[7], m[2], m[5], m[8]};
}

std::vector<std::uint32_t> index_pairs(const std::vector<Match>& matches, bool swapped) {
  std::vector<std::uint32_t> data;
  data.reserve(2 * matches.size());
  for (const Match& m : matches) {
    data.push_back(static_cast<std::uint32_t>(swapped ? m.train : m.query));
    data.push_back(static_cast<std::uint32_t>(swapped ? m.query : m.train));
  }
  return data;
}

}  // namespace

std::int64_t pair_id(ImageId a, ImageId b) {
  if (a > b) std::swap(a, b);
  return kMaxImageId * a + b;
}

std::pair<ImageId, ImageId> pair_images(std::int64_t id) { return {id / kMaxImageId, id % kMaxImageId}; }

Camera default_camera(int width, int height, double focal_pixels) {
  Camera c;
  c.width = width;
  c.height = height;
  c.prior_focal_length = focal_pixels > 0;
  const double f = c.prior_focal_length ? focal_pixels : 1.2 * std::max(width, height);
  c.params = {f, width / 2.0, height / 2.0, 0.0};
  return c;
}

std::vector<float> colmap_keypoints(const std::vector<KeyPoint>& keypoints, FeatureType type) {
  constexpr double kPi = 3.14159265358979323846;
  std::vector<float> data;
  data.reserve(4 * keypoints.size());
  for (const KeyPoint& k : keypoints) {
    data.push_back(k.x + 0.5f);
    data.push_back(k.y + 0.5f);
    data.push_back(type == FeatureType::Sift ? k.size / 2.0f : k.size * 1.2f / 9.0f);
    // Upright or detect-only keypoints (angle 0 or -1) have no orientation: 0.
    const double angle = k.angle > 0 ? k.angle : 0.0;
    double radians = -angle * kPi / 180.0;
    if (radians <= -kPi) radians += 2 * kPi;  // in (-pi, pi]
    data.push_back(static_cast<float>(radians));
  }
  return data;
}

std::vector<std::uint8_t> colmap_descriptors(const Features& features) {
  std::vector<std::uint8_t> data(features.descriptors.size());
  if (features.type ==
      FeatureType::Sift) {  // values >= 0, at most 0.2 but with RootSIFT: as VLFeat stores them
    std::transform(features.descriptors.begin(), features.descriptors.end(), data.begin(), [](float v) {
      return static_cast<std::uint8_t>(std::clamp(std::lround(512.0 * v), 0L, 255L));
    });
    return data;
  }
  std::transform(features.descriptors.begin(), features.descriptors.end(), data.begin(), [](float v) {
    return static_cast<std::uint8_t>(std::clamp(std::lround(128.0 + 256.0 * v), 0L, 255L));
  });
  return data;
}

Database::Database(const std::string& path, Access access)
    : created_(access == Access::Write && !fs::exists(fs::symlink_status(path))),
      connection_(path, access == Access::Read     ? sql::Connection::Mode::ReadOnly
                        : access == Access::Update ? sql::Connection::Mode::ReadWrite
                                                   : sql::Connection::Mode::Create) {
  check_schema(access != Access::Read);
  if (access == Access::Update) {
    sql::Statement s(connection_, "SELECT count(*) FROM sqlite_master WHERE name = 'glsurf_features'");
    if (!s.step() || s.integer(0) == 0)
      throw Error(path + ": no glsurf features in it; run glsurf detect DIR --database " + path + " first");
  }
  if (access == Access::Write) {
    connection_.exec("PRAGMA foreign_keys = ON");
    sql::Transaction t(connection_);
    connection_.exec(kColmapTables);
    connection_.exec(kGlsurfTables);
    if (connection_.user_version() == 0) connection_.set_user_version(kSchemaVersion);
    if (setting("schema").empty()) set_setting("schema", std::to_string(kGlsurfSchema));
    t.commit();
  }
}

void Database::check_schema(bool writing) {
  const std::string& path = connection_.path();
  int version = 0;
  std::map<std::string, std::vector<std::string>> tables;  // name -> columns
  try {
    version = connection_.user_version();
    sql::Statement names(connection_, "SELECT name FROM sqlite_master WHERE type = 'table'");
    while (names.step()) tables[names.text(0)];
  } catch (const Error&) {
    if (sqlite3_errcode(connection_.handle()) == SQLITE_NOTADB)
      throw Error(path + ": not a SQLite database (glsurf writes COLMAP 3.8 databases)");
    throw;
  }
  for (auto& [name, columns] : tables) {
    sql::Statement info(connection_, "PRAGMA table_info(\"" + name + "\")");
    while (info.step()) columns.push_back(info.text(1));
  }
  if (version > kSchemaVersion) {
    throw Error(path + ": written by a newer COLMAP (schema version " + std::to_string(version) +
                "); glsurf reads and writes COLMAP 3.8's (3800)");
  }
  const bool colmap = tables.count("images") > 0;
  for (const auto& [name, columns] : tables) {
    if (name.rfind("sqlite_", 0) == 0 || name.rfind("glsurf_", 0) == 0) continue;
    const auto expected = colmap_columns().find(name);
    if (expected == colmap_columns().end()) {
      throw Error(path + (colmap ? ": a COLMAP database of another version (table " + name + ")"
                                 : ": another program's database (table " + name + "), not COLMAP's"));
    }
    if (columns != expected->second)
      throw Error(path + ": a COLMAP database of another version (the columns of " + name + ")");
  }
  if (colmap) {
    for (const auto& [name, columns] : colmap_columns()) {
      if (!tables.count(name)) throw Error(path + ": a COLMAP database without its table " + name);
    }
  }
  if (tables.count("glsurf_settings")) {
    const std::string schema = setting("schema");
    if (!schema.empty() && std::stoi(schema) > kGlsurfSchema) {
      throw Error(path + ": written by a newer glsurf (its schema " + schema + ", this one's " +
                  std::to_string(kGlsurfSchema) + ")");
    }
  }
  if (writing) {
    if (sqlite3_db_readonly(connection_.handle(), "main") == 1)
      throw Error(path + ": the database is read-only");
    // SQLite writes its journal beside the database.
    const fs::path dir = fs::absolute(path).parent_path();
    if (::access(dir.c_str(), W_OK) != 0)
      throw Error(path + ": its directory cannot be written (SQLite keeps a journal beside it)");
  }
}

std::string Database::setting(const std::string& key) {
  sql::Statement s(connection_, "SELECT value FROM glsurf_settings WHERE key = ?");
  s.bind(1, key);
  return s.step() ? s.text(0) : std::string();
}

void Database::set_setting(const std::string& key, const std::string& value) {
  sql::Statement s(connection_, "INSERT OR REPLACE INTO glsurf_settings (key, value) VALUES (?, ?)");
  s.bind(1, key).bind(2, value).run();
}

void Database::require_setting(const std::string& key, const std::string& value, const std::string& what) {
  const std::string stored = setting(key);
  if (stored.empty()) {
    set_setting(key, value);
  } else if (stored != value) {
    throw Error(path() + ": its " + what + " were made with other options (" + stored +
                "; this run: " + value + "): use another database or the same options");
  }
}

std::vector<Image> Database::images(bool described) {
  sql::Statement s(connection_, described
                                    ? "SELECT images.image_id, name FROM images JOIN glsurf_features ON "
                                      "images.image_id = glsurf_features.image_id ORDER BY images.image_id"
                                    : "SELECT image_id, name FROM images ORDER BY image_id");
  std::vector<Image> out;
  while (s.step()) out.push_back({s.integer(0), s.text(1)});
  return out;
}

std::optional<ImageId> Database::image_id(const std::string& name) {
  sql::Statement s(connection_, "SELECT image_id FROM images WHERE name = ?");
  s.bind(1, name);
  if (!s.step()) return std::nullopt;
  return s.integer(0);
}

bool Database::has_image_id(ImageId id) {
  sql::Statement s(connection_, "SELECT 1 FROM images WHERE image_id = ?");
  s.bind(1, id);
  return s.step();
}

void Database::add_image(ImageId id, const std::string& name, std::int64_t camera_id, const Camera& camera,
                         const Features& f) {
  const auto rows = static_cast<std::int64_t>(f.keypoints.size());
  sql::Transaction t(connection_);
  sql::Statement stored(connection_, "SELECT width, height FROM cameras WHERE camera_id = ?");
  stored.bind(1, camera_id);
  if (!stored.step()) {
    sql::Statement(connection_,
                   "INSERT INTO cameras (camera_id, model, width, height, params, prior_focal_length) "
                   "VALUES (?, ?, ?, ?, ?, ?)")
        .bind(1, camera_id)
        .bind(2, camera.model)
        .bind(3, camera.width)
        .bind(4, camera.height)
        .bind_blob(5, camera.params.data(), camera.params.size() * sizeof(double))
        .bind(6, camera.prior_focal_length ? 1 : 0)
        .run();
  } else if (stored.integer(0) != camera.width || stored.integer(1) != camera.height) {
    throw Error(name + ": " + std::to_string(camera.width) + "x" + std::to_string(camera.height) +
                ", but camera " + std::to_string(camera_id) + " is " + std::to_string(stored.integer(0)) +
                "x" + std::to_string(stored.integer(1)) +
                " (one camera for all images needs one image size)");
  }
  sql::Statement(connection_, "INSERT INTO images (image_id, name, camera_id) VALUES (?, ?, ?)")
      .bind(1, id)
      .bind(2, name)
      .bind(3, camera_id)
      .run();
  const std::vector<float> keypoints = colmap_keypoints(f.keypoints, f.type);
  sql::Statement(connection_, "INSERT INTO keypoints (image_id, rows, cols, data) VALUES (?, ?, 4, ?)")
      .bind(1, id)
      .bind(2, rows)
      .bind_blob(3, keypoints.data(), keypoints.size() * sizeof(float))
      .run();
  const std::vector<std::uint8_t> descriptors = colmap_descriptors(f);
  sql::Statement(connection_, "INSERT INTO descriptors (image_id, rows, cols, data) VALUES (?, ?, ?, ?)")
      .bind(1, id)
      .bind(2, rows)
      .bind(3, f.descriptor_size)
      .bind_blob(4, descriptors.data(), descriptors.size())
      .run();
  std::vector<float> ours;
  ours.reserve(kKeypointColumns * f.keypoints.size());
  for (const KeyPoint& k : f.keypoints) {
    ours.insert(ours.end(), {k.x, k.y, k.size, k.angle, k.response, static_cast<float>(k.octave),
                             static_cast<float>(k.laplacian)});
  }
  sql::Statement(connection_,
                 "INSERT INTO glsurf_features (image_id, rows, descriptor_size, keypoints, descriptors) "
                 "VALUES (?, ?, ?, ?, ?)")
      .bind(1, id)
      .bind(2, rows)
      .bind(3, f.descriptor_size)
      .bind_blob(4, ours.data(), ours.size() * sizeof(float))
      .bind_blob(5, f.descriptors.data(), f.descriptors.size() * sizeof(float))
      .run();
  t.commit();
}

Features Database::features(ImageId id) {
  sql::Statement s(
      connection_,
      "SELECT rows, descriptor_size, keypoints, descriptors FROM glsurf_features WHERE image_id = ?");
  s.bind(1, id);
  if (!s.step()) throw Error(path() + ": image " + std::to_string(id) + " has no glsurf features");
  const std::int64_t rows = s.integer(0);
  Features f;
  // The detector setting names the features' type first ("sift ...", "surf ...").
  if (setting("detector").rfind("sift", 0) == 0) f.type = FeatureType::Sift;
  f.descriptor_size = static_cast<int>(s.integer(1));
  const std::vector<float> keypoints = s.blob_as<float>(2);
  f.descriptors = s.blob_as<float>(3);
  if (rows < 0 || f.descriptor_size < 0 || keypoints.size() != static_cast<size_t>(rows) * kKeypointColumns ||
      f.descriptors.size() != static_cast<size_t>(rows) * static_cast<size_t>(f.descriptor_size)) {
    throw Error(path() + ": the glsurf features of image " + std::to_string(id) + " are damaged");
  }
  f.keypoints.resize(static_cast<size_t>(rows));
  for (size_t i = 0; i < f.keypoints.size(); ++i) {
    const float* k = &keypoints[i * kKeypointColumns];
    f.keypoints[i] = {k[0], k[1], k[2], k[3], k[4], static_cast<int>(k[5]), static_cast<int>(k[6])};
  }
  return f;
}

bool Database::has_pair(ImageId a, ImageId b) {
  sql::Statement s(connection_, "SELECT 1 FROM matches WHERE pair_id = ?");
  s.bind(1, pair_id(a, b));
  return s.step();
}

void Database::add_pair(ImageId a, ImageId b, const std::vector<Match>& matches, const TwoView& geometry) {
  const bool swapped = a > b;  // COLMAP's matches index the smaller id's keypoints first
  const std::int64_t id = pair_id(a, b);
  const std::vector<std::uint32_t> raw = index_pairs(matches, swapped);
  sql::Statement(connection_, "INSERT INTO matches (pair_id, rows, cols, data) VALUES (?, ?, 2, ?)")
      .bind(1, id)
      .bind(2, static_cast<std::int64_t>(matches.size()))
      .bind_blob(3, raw.data(), raw.size() * sizeof(std::uint32_t))
      .run();
  const std::vector<std::uint32_t> inliers = index_pairs(geometry.inliers, swapped);
  // With the images swapped, F becomes its transpose and H its inverse; the
  // caller verifies pairs with the smaller id first, so that never happens.
  if (swapped && (geometry.f || geometry.h))
    throw std::logic_error("add_pair: a verified pair must have the smaller id first");
  const std::array<double, 9> zero{};
  const std::array<double, 9> f = column_major(geometry.f.value_or(zero)), e = zero,
                              h = column_major(geometry.h.value_or(zero));
  const double qvec[4] = {1, 0, 0, 0}, tvec[3] = {0, 0, 0};
  sql::Statement(connection_,
                 "INSERT INTO two_view_geometries (pair_id, rows, cols, data, config, F, E, H, qvec, tvec) "
                 "VALUES (?, ?, 2, ?, ?, ?, ?, ?, ?, ?)")
      .bind(1, id)
      .bind(2, static_cast<std::int64_t>(geometry.inliers.size()))
      .bind_blob(3, inliers.data(), inliers.size() * sizeof(std::uint32_t))
      .bind(4, geometry.config)
      .bind_blob(5, f.data(), sizeof f)
      .bind_blob(6, e.data(), sizeof e)
      .bind_blob(7, h.data(), sizeof h)
      .bind_blob(8, qvec, sizeof qvec)
      .bind_blob(9, tvec, sizeof tvec)
      .run();
}

}  // namespace glsurf::colmap
