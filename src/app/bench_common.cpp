#include "app/bench_common.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <sstream>

namespace glsurf::app {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

std::vector<std::pair<int, int>> parse_sizes(const std::string& text) {
  std::vector<std::pair<int, int>> sizes;
  if (!text.empty() && text.back() == ',') throw UsageError("--sizes wants WxH[,WxH...], got '" + text + "'");
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    int w = 0, h = 0;
    char x = 0;
    std::stringstream s(item);
    if (!(s >> w >> x >> h) || x != 'x' || w < 1 || h < 1 || !s.eof()) {
      throw UsageError("--sizes wants WxH[,WxH...], got '" + item + "'");
    }
    sizes.emplace_back(w, h);
  }
  return sizes;
}

// "a,b,c" as integers in [1, max_value]; `name` for the error.
std::vector<int> int_list(const std::string& name, const std::string& text, int max_value) {
  std::vector<int> values;
  if (!text.empty() && text.back() == ',') {
    throw UsageError(name + " wants integers from 1 to " + std::to_string(max_value) + ", got '" + text +
                     "'");
  }
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    size_t used = 0;
    int v = 0;
    try {
      v = std::stoi(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != item.size() || v < 1 || v > max_value) {
      throw UsageError(name + " wants integers from 1 to " + std::to_string(max_value) + ", got '" + item +
                       "'");
    }
    values.push_back(v);
  }
  return values;
}

// n random unit 64-value descriptors (fixed seed): matcher benchmark input.
Features random_descriptors(int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> gauss;
  Features f;
  f.descriptor_size = 64;
  f.keypoints.resize(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    float d[64];
    double norm = 0;
    for (float& v : d) v = gauss(rng), norm += v * v;
    for (float v : d) f.descriptors.push_back(static_cast<float>(v / std::sqrt(norm)));
  }
  return f;
}

Option runs_option(int fallback) {
  return integer("--runs", "N", fallback, 1, 1000, "timed runs (the median is shown)");
}

Option warmup_option() {
  return integer("--warmup", "N", 2, 0, 1000, "runs before the timed ones, not timed");
}

Option image_option() {
  return text("--image", "PATH", asset_dir() + "/graf1.png", "the photograph resampled to each size");
}

}  // namespace glsurf::app
