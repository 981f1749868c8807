// JSON for the records bench and eval write.
#include "app/json.hpp"

#include <cstdio>

namespace glsurf::app {

namespace {

// Bytes of the well-formed UTF-8 sequence at text[i] (RFC 3629: no overlong
// forms, no surrogates, nothing past U+10FFFF), or 0 if there is none.
size_t utf8_length(const std::string& text, size_t i) {
  const auto byte = [&](size_t k) { return k < text.size() ? static_cast<unsigned char>(text[k]) : 0u; };
  const unsigned lead = byte(i);
  const auto tail = [&](size_t k, unsigned low = 0x80, unsigned high = 0xbf) {
    return byte(k) >= low && byte(k) <= high;
  };
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) return tail(i + 1) ? 2 : 0;
  if (lead == 0xe0) return tail(i + 1, 0xa0) && tail(i + 2) ? 3 : 0;
  if (lead == 0xed) return tail(i + 1, 0x80, 0x9f) && tail(i + 2) ? 3 : 0;
  if (lead >= 0xe1 && lead <= 0xef) return tail(i + 1) && tail(i + 2) ? 3 : 0;
  if (lead == 0xf0) return tail(i + 1, 0x90) && tail(i + 2) && tail(i + 3) ? 4 : 0;
  if (lead >= 0xf1 && lead <= 0xf3) return tail(i + 1) && tail(i + 2) && tail(i + 3) ? 4 : 0;
  if (lead == 0xf4) return tail(i + 1, 0x80, 0x8f) && tail(i + 2) && tail(i + 3) ? 4 : 0;
  return 0;
}
}  // namespace

std::string json_escaped(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size();) {
    const char c = text[i];
    const size_t length = utf8_length(text, i);
    if (length == 0) {
      out += "\\ufffd";  // not UTF-8 (a file name may be any bytes): the replacement character
      ++i;
      continue;
    }
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char code[8];
      std::snprintf(code, sizeof code, "\\u%04x", c);
      out += code;
    } else {
      out.append(text, i, length);
    }
    i += length;
  }
  return out;
}

std::string detector_json(const DetectorConfig& config) {
  char text[256];
  std::snprintf(text, sizeof text,
                "{\"threshold\": %.7g, \"octaves\": %d, \"layers\": %d, \"sample_step\": %d, "
                "\"max_features\": %d, \"upright\": %s, \"extended\": %s, \"second_orientation\": %.7g}",
                config.hessian_threshold, config.n_octaves, config.n_octave_layers, config.first_step,
                config.max_features, config.upright ? "true" : "false", config.extended ? "true" : "false",
                config.second_orientation);
  return text;
}

std::string detector_json(const SiftConfig& config) {
  char text[256];
  std::snprintf(
      text, sizeof text,
      "{\"features\": \"sift\", \"contrast_threshold\": %.7g, \"edge_threshold\": %.7g, "
      "\"octaves\": %d, \"layers\": %d, \"sigma\": %.7g, \"first_octave\": %d, \"max_features\": %d, "
      "\"root_sift\": %s}",
      config.contrast_threshold, config.edge_threshold, config.n_octaves, config.n_octave_layers,
      config.sigma, config.first_octave, config.max_features, config.root_sift ? "true" : "false");
  return text;
}

std::string matcher_json(const MatchConfig& config) {
  // A filter that is off (ratio 0 or 1, distance 0) is null.
  char ratio[32] = "null", distance[32] = "null", text[192];
  if (config.ratio > 0 && config.ratio < 1) std::snprintf(ratio, sizeof ratio, "%.7g", config.ratio);
  if (config.max_distance > 0) std::snprintf(distance, sizeof distance, "%.7g", config.max_distance);
  std::snprintf(text, sizeof text,
                "{\"ratio\": %s, \"mutual\": %s, \"laplacian_sign\": %s, \"max_distance\": %s}", ratio,
                config.mutual ? "true" : "false", config.laplacian ? "true" : "false", distance);
  return text;
}

}  // namespace glsurf::app
