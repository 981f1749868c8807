#include "io/features.hpp"

#include "gl/error.hpp"
#include "io/output.hpp"

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

namespace glsurf {

namespace {

constexpr char kMagic[8] = {'G', 'L', 'S', 'U', 'R', 'F', '0', '1'};

template <typename T>
void put(std::ostream& out, T value) {
  static_assert(sizeof(T) == 4);
  unsigned char bytes[4];
  std::uint32_t bits;
  std::memcpy(&bits, &value, 4);
  for (int i = 0; i < 4; ++i) bytes[i] = static_cast<unsigned char>(bits >> (8 * i));
  out.write(reinterpret_cast<const char*>(bytes), 4);
}

template <typename T>
T get(std::istream& in) {
  unsigned char bytes[4];
  in.read(reinterpret_cast<char*>(bytes), 4);
  std::uint32_t bits = 0;
  for (int i = 0; i < 4; ++i) bits |= static_cast<std::uint32_t>(bytes[i]) << (8 * i);
  T value;
  std::memcpy(&value, &bits, 4);
  return value;
}

}  // namespace

void write_features(std::ostream& out, const Features& features, FeatureFormat format) {
  const std::vector<KeyPoint>& keypoints = features.keypoints;
  const int d = features.descriptor_size;
  GLSURF_EXPECTS(features.descriptors.size() == keypoints.size() * static_cast<size_t>(d),
                 "descriptor count does not match the keypoints");
  if (format == FeatureFormat::Txt) {
    out << keypoints.size() << ' ' << d << '\n';
    char field[160];
    for (size_t i = 0; i < keypoints.size(); ++i) {
      const KeyPoint& k = keypoints[i];
      std::snprintf(field, sizeof field, "%.9g %.9g %.9g %.9g %.9g %d %d", k.x, k.y, k.size, k.angle, k.response,
                    k.laplacian, k.octave);
      out << field;
      for (int j = 0; j < d; ++j) {
        std::snprintf(field, sizeof field, " %.9g", features.descriptor(i)[j]);
        out << field;
      }
      out << '\n';
    }
    return;
  }
  out.write(kMagic, sizeof kMagic);
  put<std::uint32_t>(out, static_cast<std::uint32_t>(keypoints.size()));
  put<std::uint32_t>(out, static_cast<std::uint32_t>(d));
  for (size_t i = 0; i < keypoints.size(); ++i) {
    const KeyPoint& k = keypoints[i];
    put<float>(out, k.x);
    put<float>(out, k.y);
    put<float>(out, k.size);
    put<float>(out, k.angle);
    put<float>(out, k.response);
    put<std::int32_t>(out, k.laplacian);
    put<std::int32_t>(out, k.octave);
    for (int j = 0; j < d; ++j) put<float>(out, features.descriptor(i)[j]);
  }
}

void write_features_file(const std::string& path, const Features& features, FeatureFormat format) {
  write_file_atomically(path, format == FeatureFormat::Bin,
                        [&](std::ostream& out) { write_features(out, features, format); });
}

Features read_features_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": cannot open file");
  char magic[8] = {};
  in.read(magic, 8);
  Features features;
  std::vector<KeyPoint>& out = features.keypoints;
  if (in && std::memcmp(magic, kMagic, 8) == 0) {
    const std::uint32_t n = get<std::uint32_t>(in);
    const std::uint32_t d = get<std::uint32_t>(in);
    if (d > 4096) throw Error(path + ": implausible descriptor size " + std::to_string(d));
    features.descriptor_size = static_cast<int>(d);
    for (std::uint32_t i = 0; i < n && in; ++i) {
      KeyPoint k;
      k.x = get<float>(in);
      k.y = get<float>(in);
      k.size = get<float>(in);
      k.angle = get<float>(in);
      k.response = get<float>(in);
      k.laplacian = get<std::int32_t>(in);
      k.octave = get<std::int32_t>(in);
      for (std::uint32_t j = 0; j < d; ++j) features.descriptors.push_back(get<float>(in));
      out.push_back(k);
    }
    if (!in) throw Error(path + ": truncated feature file");
    return features;
  }
  in.clear();
  in.seekg(0);
  size_t n = 0, d = 0;
  if (!(in >> n >> d) || d > 4096) throw Error(path + ": not a feature file");
  features.descriptor_size = static_cast<int>(d);
  for (size_t i = 0; i < n; ++i) {
    KeyPoint k;
    if (!(in >> k.x >> k.y >> k.size >> k.angle >> k.response >> k.laplacian >> k.octave)) {
      throw Error(path + ": truncated feature file");
    }
    for (size_t j = 0; j < d; ++j) {
      float value = 0;
      if (!(in >> value)) throw Error(path + ": truncated feature file");
      features.descriptors.push_back(value);
    }
    out.push_back(k);
  }
  return features;
}

}  // namespace glsurf
