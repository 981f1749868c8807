#include "sift/detector.hpp"

#include <algorithm>
#include <cmath>
#include <tuple>

#include "gl/error.hpp"
#include "surf/keypoint.hpp"

namespace glsurf::sift {

namespace {
// The point list's entries at least (more with a larger max_features), as
// SURF's detector.
constexpr int kMinCapacity = 65536;
// The most max_features takes: the list's texture is 1024 entries a row.
constexpr int kMaxFeatures = 1 << 20;

// With max_features = N the selection keeps this many of the strongest: the
// list may hold an extremum twice (detector.hpp, about 1 % of the entries
// on photos), and detect() cuts to N after dropping the copies, so that
// copies among the strongest do not leave it short of the CPU's N. The
// extra entries are weaker than the N-th, so they do not change which N
// remain (nor, after orientation, which N entries).
int selected(int n) { return n + n / 16 + 64; }

const SiftConfig& checked(const SiftConfig& config) {
  if (!cpu::sift::valid_config(config))
    throw Error("invalid SIFT configuration (cpu/sift.hpp: valid_config)");
  if (config.max_features > kMaxFeatures) {
    throw Error("max_features " + std::to_string(config.max_features) +
                " is more than the GPU SIFT detector's " + std::to_string(kMaxFeatures));
  }
  return config;
}

bool same(const KeyPoint& a, const KeyPoint& b) {
  return a.x == b.x && a.y == b.y && a.size == b.size && a.response == b.response && a.octave == b.octave &&
         a.laplacian == b.laplacian;
}

// The indices of one entry per extremum (the list may hold one twice, and
// copies are equal in every field: detector.hpp), strongest first in
// sort_by_strength's order (response, then y, x, size).
std::vector<int> distinct_strongest_first(const std::vector<KeyPoint>& keypoints) {
  std::vector<int> order(keypoints.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  const auto at = [&](int i) -> const KeyPoint& { return keypoints[static_cast<size_t>(i)]; };
  const auto key = [&](int i) {
    const KeyPoint& k = at(i);
    return std::tie(k.octave, k.y, k.x, k.size, k.response, k.laplacian);
  };
  std::sort(order.begin(), order.end(),
            [&](int a, int b) { return key(a) < key(b) || (key(a) == key(b) && a < b); });
  order.erase(std::unique(order.begin(), order.end(), [&](int a, int b) { return same(at(a), at(b)); }),
              order.end());
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    const KeyPoint &p = at(a), &q = at(b);
    return std::tie(q.response, p.y, p.x, p.size) < std::tie(p.response, q.y, q.x, q.size);
  });
  return order;
}
}  // namespace

std::vector<KeyPoint> list_keypoints(const std::vector<float>& points, const std::vector<float>& where,
                                     const std::vector<cpu::sift::OctaveSize>& octaves) {
  const size_t n = points.size() / 4;
  std::vector<KeyPoint> keypoints(n);
  for (size_t i = 0; i < n; ++i) {
    const float* p = &points[4 * i];
    const float* w = &where[4 * i];
    const int k = static_cast<int>(w[0]);
    const int layer = static_cast<int>(w[1]);
    const double offset_s = w[2];
    GLSURF_EXPECTS(k >= 0 && k < static_cast<int>(octaves.size()), "list entry of no octave");
    const int o = octaves[static_cast<size_t>(k)].octave;
    const float scale = std::ldexp(1.0f, o);
    KeyPoint& kp = keypoints[i];
    kp.x = p[0] * scale;
    kp.y = p[1] * scale;
    kp.size = 2.0f * p[2] * scale;
    kp.angle = -1;
    kp.response = std::abs(p[3]);
    kp.laplacian = (p[3] > 0) - (p[3] < 0);
    const int fraction = std::clamp(static_cast<int>(std::lround((offset_s + 0.5) * 255)), 0, 255);
    kp.octave = (o & 255) | (layer << 8) | (fraction << 16);
  }
  return keypoints;
}

GpuSift::GpuSift(const gl::Context& context, const SiftConfig& config, const gl::ShaderSource& shaders)
    // `context` is made current before any stage creates GL objects in it.
    : config_((context.make_current(), checked(config))),
      scale_space_(shaders, config),
      extrema_(shaders, config),
      compact_(shaders, std::max(kMinCapacity, config.max_features > 0 ? selected(config.max_features) : 0),
               config),
      select_(shaders),
      orientation_(shaders, config),
      descriptor_(shaders, config),
      context_(context.tag()) {}

std::string GpuSift::size_problem(int width, int height) const {
  context_.require_current("GpuSift");
  if (width < 1 || height < 1) return "image has no pixels";
  if (std::string why = ScaleSpaceStage::size_problem(width, height, config_); !why.empty()) return why;
  return ExtremaStage::size_problem(width, height, config_);
}

void GpuSift::configure(int width, int height) {
  if (const std::string why = size_problem(width, height); !why.empty()) throw Error(why);
  // Until every stage is configured, no size is.
  width_ = height_ = 0;
  scale_space_.configure(width, height);
  extrema_.configure(scale_space_);
  compact_.configure(extrema_.candidates(), width, height);
  width_ = width;
  height_ = height;
}

int GpuSift::find(const GrayImage& image) {
  context_.require_current("GpuSift");
  if (const std::string why = image_layout_problem(image); !why.empty()) throw Error(why);
  if (image.width != width_ || image.height != height_) configure(image.width, image.height);

  scale_space_.run(runner_, image);
  extrema_.run(runner_, scale_space_);
  const CompactStage::Listed made = compact_.list_strongest(
      runner_, select_, extrema_.candidates(), config_.max_features > 0 ? selected(config_.max_features) : 0);
  candidates_ = made.candidates;
  truncated_ = made.truncated;
  const int listed = made.listed;
  listed_ = listed;
  return listed;
}

std::vector<KeyPoint> GpuSift::detect(const GrayImage& image) {
  const int listed = find(image);
  std::vector<float> points, where;
  compact_.read_list(listed, points, where);
  const std::vector<KeyPoint> listed_keypoints = list_keypoints(points, where, scale_space_.octaves());
  const std::vector<int> order = distinct_strongest_first(listed_keypoints);
  duplicates_ = listed - static_cast<int>(order.size());
  std::vector<KeyPoint> keypoints;
  keypoints.reserve(order.size());
  for (int i : order) keypoints.push_back(listed_keypoints[static_cast<size_t>(i)]);
  if (config_.max_features > 0 && static_cast<int>(keypoints.size()) > config_.max_features) {
    keypoints.resize(static_cast<size_t>(config_.max_features));
  }
  gl::check_context_not_lost("GpuSift");
  return keypoints;
}

void GpuSift::upload_oriented(const std::vector<float>& points, const std::vector<float>& where, int n) {
  constexpr int kWidth = CompactStage::kListWidth;
  const int rows = std::max(1, (n + kWidth - 1) / kWidth);
  if (oriented_points_.height() < rows) {
    oriented_points_ = gl::Texture(kWidth, rows, gl::Format::RGBA32F, "sift_oriented_points");
    oriented_where_ = gl::Texture(kWidth, rows, gl::Format::RGBA32F, "sift_oriented_where");
  }
  std::vector<float> padded(static_cast<size_t>(4) * kWidth * static_cast<size_t>(oriented_points_.height()),
                            0.0f);
  std::copy(points.begin(), points.end(), padded.begin());
  oriented_points_.upload(padded.data());
  std::fill(padded.begin(), padded.end(), 0.0f);
  std::copy(where.begin(), where.end(), padded.begin());
  oriented_where_.upload(padded.data());
  runner_.after_transfer();
}

Features GpuSift::detect_and_compute(const GrayImage& image) {
  const int listed = find(image);
  if (listed > 0) {
    orientation_.configure(std::max(orientation_.capacity(), compact_.capacity()));
    orientation_.run(runner_, scale_space_.gaussian(), scale_space_.gaussian_layout(), compact_.list(),
                     compact_.list_where(), listed);
  }
  std::vector<float> points, where;
  compact_.read_list(listed, points, where);
  const std::vector<float> angles = listed > 0 ? orientation_.read(listed) : std::vector<float>();
  const std::vector<KeyPoint> keypoints = list_keypoints(points, where, scale_space_.octaves());

  // One of each extremum (copies' angles are equal too), strongest first.
  std::vector<int> extrema = distinct_strongest_first(keypoints);
  duplicates_ = listed - static_cast<int>(extrema.size());
  // max_features: the N strongest extrema and their ties (cpu::sift::detect_and_compute).
  const size_t n = static_cast<size_t>(config_.max_features);
  if (n > 0 && extrema.size() > n) {
    const float last = keypoints[static_cast<size_t>(extrema[n - 1])].response;
    size_t keep = n;
    while (keep < extrema.size() && keypoints[static_cast<size_t>(extrema[keep])].response >= last) ++keep;
    extrema.resize(keep);
  }
  // One entry per orientation, strongest first, cut to N.
  struct Entry {
    KeyPoint keypoint;
    int index;  // into the list
  };
  std::vector<Entry> entries;
  for (const int i : extrema) {
    for (int a = 0; a < 4; ++a) {
      const float angle = angles[4 * static_cast<size_t>(i) + static_cast<size_t>(a)];
      if (angle < 0) break;
      Entry entry{keypoints[static_cast<size_t>(i)], i};
      entry.keypoint.angle = angle;
      entries.push_back(entry);
    }
  }
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    const KeyPoint &p = a.keypoint, &q = b.keypoint;
    return std::tie(q.response, p.y, p.x, p.size, p.angle) < std::tie(p.response, q.y, q.x, q.size, q.angle);
  });
  if (n > 0 && entries.size() > n) entries.resize(n);

  Features f;
  f.type = FeatureType::Sift;
  f.descriptor_size = DescriptorStage::kSize;
  const int count = static_cast<int>(entries.size());
  if (count > 0) {
    std::vector<float> oriented(4 * entries.size()), oriented_where(4 * entries.size());
    for (size_t j = 0; j < entries.size(); ++j) {
      const size_t i = static_cast<size_t>(entries[j].index);
      std::copy(&points[4 * i], &points[4 * i + 3], &oriented[4 * j]);
      oriented[4 * j + 3] = entries[j].keypoint.angle;
      std::copy(&where[4 * i], &where[4 * i + 4], &oriented_where[4 * j]);
    }
    upload_oriented(oriented, oriented_where, count);
    if (descriptor_.capacity() < count) descriptor_.configure(std::max(count, 2 * descriptor_.capacity()));
    descriptor_.run(runner_, scale_space_.gaussian(), scale_space_.gaussian_layout(), oriented_points_,
                    oriented_where_, count);
    f.descriptors = descriptor_.read(count);
  }
  f.keypoints.reserve(entries.size());
  for (const Entry& e : entries) f.keypoints.push_back(e.keypoint);
  gl::check_context_not_lost("GpuSift");
  return f;
}

}  // namespace glsurf::sift
