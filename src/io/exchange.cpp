#include "io/exchange.hpp"

#include <strings.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <ostream>

#include "database/colmap.hpp"
#include "gl/error.hpp"

namespace glsurf {

namespace {

// %.9g (a float32 reads back exactly), with a '.' when it would read as an
// integer ("7" -> "7."), as OpenCV writes reals: the node is a real.
std::string real(float value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.9g", value);
  if (std::strpbrk(text, ".eEn") == nullptr) std::strcat(text, ".");  // n: inf, nan
  return text;
}

// One flow sequence of OpenCV's: "   - [ a, b, c ]" (YAML) or
// "  <_>\n    a b c</_>" (XML).
void sequence(std::ostream& out, const std::vector<std::string>& values, StorageKind kind) {
  if (kind == StorageKind::Yaml) {
    out << "   - [ ";
    for (size_t i = 0; i < values.size(); ++i) out << (i ? ", " : "") << values[i];
    out << " ]\n";
  } else {
    out << "  <_>\n   ";
    for (const std::string& value : values) out << ' ' << value;
    out << "</_>\n";
  }
}

// A node holding a sequence of those: `name`, then `rows` of them.
template <typename Row>
void sequences(std::ostream& out, const char* name, size_t count, StorageKind kind, const Row& row) {
  if (kind == StorageKind::Yaml) {
    out << name << ':' << (count == 0 ? " []" : "") << '\n';
  } else {
    out << '<' << name << ">\n";
  }
  for (size_t i = 0; i < count; ++i) sequence(out, row(i), kind);
  if (kind == StorageKind::Xml) out << "  </" << name << ">\n";
}

// An opencv-matrix of `rows` x `cols` values, `dt` f or u, 8 values a line
// as OpenCV writes them.
void matrix(std::ostream& out, const char* name, size_t rows, size_t cols, const char* dt,
            const std::vector<std::string>& data, StorageKind kind) {
  const bool yaml = kind == StorageKind::Yaml;
  if (yaml) {
    out << name << ": !!opencv-matrix\n   rows: " << rows << "\n   cols: " << cols << "\n   dt: " << dt
        << "\n   data: [";
  } else {
    out << '<' << name << " type_id=\"opencv-matrix\">\n  <rows>" << rows << "</rows>\n  <cols>" << cols
        << "</cols>\n  <dt>" << dt << "</dt>\n  <data>";
  }
  for (size_t i = 0; i < data.size(); ++i) {
    if (i % 8 == 0) out << (yaml ? (i == 0 ? " " : "\n       ") : "\n   ");
    out << (yaml ? (i % 8 == 0 ? "" : " ") : " ") << data[i] << (yaml && i + 1 < data.size() ? "," : "");
  }
  out << (yaml ? (data.empty() ? "]\n" : " ]\n") : "</data></" + std::string(name) + ">\n");
}

void storage_begin(std::ostream& out, StorageKind kind) {
  GLSURF_EXPECTS(kind != StorageKind::None, "an OpenCV storage is YAML or XML");
  out << (kind == StorageKind::Yaml ? "%YAML:1.0\n---\n" : "<?xml version=\"1.0\"?>\n<opencv_storage>\n");
}
void storage_end(std::ostream& out, StorageKind kind) {
  if (kind == StorageKind::Xml) out << "</opencv_storage>\n";
}

}  // namespace

StorageKind storage_kind(const std::string& path) {
  const std::string extension = std::filesystem::path(path).extension().string();
  if (strcasecmp(extension.c_str(), ".yml") == 0 || strcasecmp(extension.c_str(), ".yaml") == 0)
    return StorageKind::Yaml;
  if (strcasecmp(extension.c_str(), ".xml") == 0) return StorageKind::Xml;
  return StorageKind::None;
}

void write_opencv_features(std::ostream& out, const Features& features, StorageKind kind) {
  const std::vector<KeyPoint>& keypoints = features.keypoints;
  GLSURF_EXPECTS(
      features.descriptors.size() == keypoints.size() * static_cast<size_t>(features.descriptor_size),
      "descriptor count does not match the keypoints");
  storage_begin(out, kind);
  sequences(out, "keypoints", keypoints.size(), kind, [&](size_t i) {
    const KeyPoint& k = keypoints[i];
    return std::vector<std::string>{real(k.x),
                                    real(k.y),
                                    real(k.size),
                                    real(k.angle),
                                    real(k.response),
                                    std::to_string(k.octave),
                                    std::to_string(k.laplacian)};
  });
  std::vector<std::string> data;
  data.reserve(features.descriptors.size());
  for (float v : features.descriptors) data.push_back(real(v));
  matrix(out, "descriptors", keypoints.size(), static_cast<size_t>(features.descriptor_size), "f", data,
         kind);
  storage_end(out, kind);
}

void write_opencv_matches(std::ostream& out, const std::vector<Match>& matches,
                          const std::vector<bool>& inliers, StorageKind kind) {
  GLSURF_EXPECTS(inliers.size() == matches.size(), "one inlier flag per match");
  storage_begin(out, kind);
  sequences(out, "matches", matches.size(), kind, [&](size_t i) {
    const Match& m = matches[i];
    return std::vector<std::string>{std::to_string(m.query), std::to_string(m.train), "0", real(m.distance)};
  });
  std::vector<std::string> data;
  for (bool inlier : inliers) data.push_back(inlier ? "1" : "0");
  matrix(out, "inliers", matches.size(), 1, "u", data, kind);
  storage_end(out, kind);
}

void write_colmap_features(std::ostream& out, const Features& features) {
  constexpr int kColmapSize = 128;  // LoadSiftFeaturesFromTextFile: CHECK_EQ(dim, 128)
  const int d = features.descriptor_size;
  GLSURF_EXPECTS(d <= kColmapSize, "COLMAP takes descriptors of at most 128 values");
  const std::vector<float> keypoints = colmap::colmap_keypoints(features.keypoints, features.type);
  const std::vector<std::uint8_t> descriptors = colmap::colmap_descriptors(features);
  out << features.keypoints.size() << ' ' << kColmapSize << '\n';
  char field[128];
  for (size_t i = 0; i < features.keypoints.size(); ++i) {
    // Single spaces: COLMAP splits the line at each ' '.
    // + 0.0f: an orientation of -0 is written 0.
    std::snprintf(field, sizeof field, "%.9g %.9g %.9g %.9g", keypoints[4 * i], keypoints[4 * i + 1],
                  keypoints[4 * i + 2], keypoints[4 * i + 3] + 0.0f);
    out << field;
    for (int j = 0; j < kColmapSize; ++j)
      out << ' ' << (j < d ? int{descriptors[i * static_cast<size_t>(d) + static_cast<size_t>(j)]} : 128);
    out << '\n';
  }
}

void write_lowe_features(std::ostream& out, const Features& features) {
  const int d = features.descriptor_size;
  const std::vector<float> keypoints = colmap::colmap_keypoints(features.keypoints, features.type);
  const std::vector<std::uint8_t> descriptors = colmap::colmap_descriptors(features);
  out << features.keypoints.size() << ' ' << d << '\n';
  char field[128];
  for (size_t i = 0; i < features.keypoints.size(); ++i) {
    const KeyPoint& k = features.keypoints[i];
    // Row, column, sigma, and COLMAP's clockwise orientation negated (0 - :
    // never -0).
    std::snprintf(field, sizeof field, "%.9g %.9g %.9g %.9g\n", k.y, k.x, keypoints[4 * i + 2],
                  0.0f - keypoints[4 * i + 3]);
    out << field;
    for (int j = 0; j < d; ++j) {
      out << ' ' << int{descriptors[i * static_cast<size_t>(d) + static_cast<size_t>(j)]};
      if (j % 20 == 19 || j + 1 == d) out << '\n';
    }
  }
}

void write_colmap_matches(std::ostream& out, const std::string& image_a, const std::string& image_b,
                          const std::vector<Match>& matches) {
  out << image_a << ' ' << image_b << '\n';
  for (const Match& m : matches) out << m.query << ' ' << m.train << '\n';
  out << '\n';
}

}  // namespace glsurf
