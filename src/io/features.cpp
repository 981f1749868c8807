#include "io/features.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include "gl/error.hpp"
#include "io/output.hpp"

namespace glsurf {

namespace {

constexpr char kMagic[8] = {'G', 'L', 'S', 'U', 'R', 'F', '0', '1'};
constexpr char kSiftMagic[8] = {'G', 'L', 'S', 'I', 'F', 'T', '0', '1'};

template <typename T>
void put(std::ostream& out, T value) {
  static_assert(sizeof(T) == 4);
  unsigned char bytes[4];
  std::uint32_t bits;
  std::memcpy(&bits, &value, 4);
  for (int i = 0; i < 4; ++i) bytes[i] = static_cast<unsigned char>(bits >> (8 * i));
  out.write(reinterpret_cast<const char*>(bytes), 4);
}

// Fills `value` from the next 4 bytes; false (value untouched) if the stream
// ends first.
template <typename T>
bool get(std::istream& in, T& value) {
  unsigned char bytes[4] = {};
  if (!in.read(reinterpret_cast<char*>(bytes), 4)) return false;
  std::uint32_t bits = 0;
  for (int i = 0; i < 4; ++i) bits |= static_cast<std::uint32_t>(bytes[i]) << (8 * i);
  std::memcpy(&value, &bits, 4);
  return true;
}

// The seven fields of a record, in file order, for error messages.
constexpr const char* kFieldNames[7] = {"x", "y", "size", "angle", "response", "laplacian", "octave"};

std::string field_name(size_t field) {
  return field < 7 ? kFieldNames[field] : "descriptor value " + std::to_string(field - 7 + 1);
}

// One keypoint's fields and descriptor, as read; `field` counts 0 .. 6 + d.
void store(KeyPoint& k, std::vector<float>& descriptors, size_t field, float value) {
  float* const fields[5] = {&k.x, &k.y, &k.size, &k.angle, &k.response};
  if (field < 5)
    *fields[field] = value;
  else
    descriptors.push_back(value);
}

// A whole token as a finite float or an int32; false if it is not one.
bool parse_float(const std::string& token, float& value) {
  char* end = nullptr;
  value = std::strtof(token.c_str(), &end);
  return end == token.c_str() + token.size() && std::isfinite(value);
}
bool parse_int(const std::string& token, std::int32_t& value) {
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(token.c_str(), &end, 10);
  if (end != token.c_str() + token.size() || errno == ERANGE || v < INT32_MIN || v > INT32_MAX) return false;
  value = static_cast<std::int32_t>(v);
  return true;
}

// A token as an error message can show it: at most 40 bytes, on one line.
std::string shown(const std::string& token) {
  return token.size() > 40 ? one_line(token.substr(0, 40)) + "..." : one_line(token);
}

bool blank(const std::string& line) { return line.find_first_not_of(" \t\r") == std::string::npos; }

Features read_bin(std::istream& in, const std::string& path, FeatureType type) {
  Features features;
  features.type = type;
  std::uint32_t n = 0, d = 0;
  if (!get(in, n) || !get(in, d)) throw Error(path + ": truncated feature file (in its header)");
  if (d > 4096) throw Error(path + ": implausible descriptor size " + std::to_string(d));
  features.descriptor_size = static_cast<int>(d);
  for (std::uint32_t i = 0; i < n; ++i) {
    KeyPoint k;
    const std::string where = path + ": " + keypoint_location(FeatureFormat::Bin, i, n);
    for (size_t field = 0; field < 7 + size_t{d}; ++field) {
      bool ok = false;
      if (field == 5 || field == 6) {
        ok = get(in, field == 5 ? k.laplacian : k.octave);
      } else {
        float value = 0;
        ok = get(in, value);
        if (ok && !std::isfinite(value))
          throw Error(where + ": " + field_name(field) + " is not a finite number");
        store(k, features.descriptors, field, value);
      }
      if (!ok) throw Error(where + ": truncated feature file");
    }
    features.keypoints.push_back(k);
  }
  if (in.peek() != std::char_traits<char>::eof()) {
    throw Error(path + ": more data than the " + std::to_string(n) + " keypoints its header declares");
  }
  return features;
}

// The txt header "N D" (SURF) or "N D sift": two whole numbers, neither
// negative, the word sift or nothing, and nothing else on the line. One rule
// for the reader and is_feature_file.
bool parse_header(const std::string& line, std::int32_t& n, std::int32_t& d, FeatureType& type) {
  std::istringstream header(line);
  std::string count_token, size_token, type_token, token;
  if (!(header >> count_token >> size_token)) return false;
  type = FeatureType::Surf;
  if (header >> type_token) {
    if (type_token != "sift" || (header >> token)) return false;
    type = FeatureType::Sift;
  }
  return parse_int(count_token, n) && parse_int(size_token, d) && n >= 0 && d >= 0;
}

// The header line "N D", then exactly N lines of 7 + D numbers; blank lines
// only at the end.
Features read_txt(std::istream& in, const std::string& path) {
  Features features;
  std::string line, token;
  std::getline(in, line);
  std::int32_t n = -1, d = -1;
  if (!parse_header(line, n, d, features.type)) {
    throw Error(path +
                ": not a feature file (its first line must be the keypoint count and descriptor size)");
  }
  if (d > 4096) throw Error(path + ": implausible descriptor size " + std::to_string(d));
  features.descriptor_size = d;
  const size_t fields = 7 + static_cast<size_t>(d);
  int line_number = 1;
  for (std::int32_t i = 0; i < n; ++i) {
    ++line_number;
    if (!std::getline(in, line)) {
      throw Error(path + ": truncated feature file (" + std::to_string(i) + " of the " + std::to_string(n) +
                  " keypoints its header declares)");
    }
    const std::string where =
        path + ": " + keypoint_location(FeatureFormat::Txt, static_cast<size_t>(i), static_cast<size_t>(n));
    std::istringstream values(line);
    KeyPoint k;
    size_t field = 0;
    for (; values >> token; ++field) {
      if (field == fields) {
        throw Error(where + ": more than the " + std::to_string(fields) + " values of a keypoint (7 + " +
                    std::to_string(d) + " descriptor values)");
      }
      float value = 0;
      const bool ok = field == 5   ? parse_int(token, k.laplacian)
                      : field == 6 ? parse_int(token, k.octave)
                                   : parse_float(token, value);
      if (!ok) {
        throw Error(where + ": " + field_name(field) + " '" + shown(token) + "' is not " +
                    (field == 5 || field == 6 ? "an integer" : "a finite number"));
      }
      if (field != 5 && field != 6) store(k, features.descriptors, field, value);
    }
    if (field < fields) {
      throw Error(where + ": " + std::to_string(field) + " values, a keypoint has " + std::to_string(fields) +
                  " (7 + " + std::to_string(d) + " descriptor values)");
    }
    features.keypoints.push_back(k);
  }
  while (std::getline(in, line)) {
    ++line_number;
    if (!blank(line)) {
      throw Error(path + ": line " + std::to_string(line_number) + ": more keypoints than the " +
                  std::to_string(n) + " its header declares");
    }
  }
  return features;
}

}  // namespace

void write_features(std::ostream& out, const Features& features, FeatureFormat format) {
  const std::vector<KeyPoint>& keypoints = features.keypoints;
  const int d = features.descriptor_size;
  GLSURF_EXPECTS(features.descriptors.size() == keypoints.size() * static_cast<size_t>(d),
                 "descriptor count does not match the keypoints");
  if (format == FeatureFormat::Txt) {
    out << keypoints.size() << ' ' << d << (features.type == FeatureType::Sift ? " sift" : "") << '\n';
    char field[160];
    for (size_t i = 0; i < keypoints.size(); ++i) {
      const KeyPoint& k = keypoints[i];
      std::snprintf(field, sizeof field, "%.9g %.9g %.9g %.9g %.9g %d %d", k.x, k.y, k.size, k.angle,
                    k.response, k.laplacian, k.octave);
      out << field;
      for (int j = 0; j < d; ++j) {
        std::snprintf(field, sizeof field, " %.9g", features.descriptor(i)[j]);
        out << field;
      }
      out << '\n';
    }
    return;
  }
  out.write(features.type == FeatureType::Sift ? kSiftMagic : kMagic, sizeof kMagic);
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

bool is_feature_file(const std::string& path) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) return false;
  std::ifstream in(path, std::ios::binary);
  // The first line (a header padded beyond this is not taken for one).
  std::string head(4096, '\0');
  in.read(&head[0], static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<size_t>(std::max<std::streamsize>(in.gcount(), 0)));
  if (head.size() >= 8 &&
      (std::memcmp(head.data(), kMagic, 8) == 0 || std::memcmp(head.data(), kSiftMagic, 8) == 0))
    return true;
  const size_t end = head.find('\n');
  if (end == std::string::npos && head.size() == 4096) return false;
  // "N D" as the reader takes it (its whole first line, to the newline or
  // the end of the file).
  std::int32_t n = 0, d = 0;
  FeatureType type;
  return parse_header(head.substr(0, end), n, d, type);
}

std::string keypoint_location(FeatureFormat format, size_t index, size_t count) {
  if (format == FeatureFormat::Txt) return "line " + std::to_string(index + 2);
  return "keypoint " + std::to_string(index + 1) + " of " + std::to_string(count);
}

Features read_features_file(const std::string& path, FeatureFormat* format) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) throw Error(path + ": is a directory, not a feature file");
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw Error(path + ": cannot open file" +
                (errno != 0 ? std::string(" (") + std::strerror(errno) + ")" : ""));
  char magic[8] = {};
  in.read(magic, 8);
  const auto got = static_cast<size_t>(std::max<std::streamsize>(in.gcount(), 0));
  const bool sift = in && std::memcmp(magic, kSiftMagic, 8) == 0;
  const bool bin = sift || (in && std::memcmp(magic, kMagic, 8) == 0);
  if (format) *format = bin ? FeatureFormat::Bin : FeatureFormat::Txt;
  if (bin) return read_bin(in, path, sift ? FeatureType::Sift : FeatureType::Surf);
  in.clear();
  if (in.seekg(0)) return read_txt(in, path);
  // A pipe cannot go back: the text is the 8 bytes read and the rest.
  std::string text(magic, got);
  in.clear();
  text.append(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  std::istringstream piped(text);
  return read_txt(piped, path);
}

}  // namespace glsurf
