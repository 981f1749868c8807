#include "surf/detector.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "cpu/descriptor.hpp"
#include "gl/error.hpp"
#include "surf/memory.hpp"

namespace glsurf {

namespace {
constexpr int kMinCapacity = 65536;

// Descriptor textures are 1024 wide with at most 16,384 rows (the smallest
// GL_MAX_TEXTURE_SIZE we expect of a desktop GPU); the matcher's copy holds
// 16 texels per keypoint, 32 when extended.
constexpr int kMaxFeatures = 1 << 20;

// `config`, once valid_config() says the stages can be built from it.
const DetectorConfig& checked(const DetectorConfig& config) {
  GLSURF_EXPECTS(valid_config(config), "invalid detector configuration (keypoint.hpp: valid_config)");
  return config;
}
}  // namespace

std::string host_memory_problem(int width, int height, double available, double bytes_per_pixel,
                                double fixed_bytes) {
  return memory_problem(width, height, bytes_per_pixel, available,
                        "on a software renderer, whose textures are host memory", fixed_bytes);
}

double software_bytes_per_pixel(const DetectorConfig& config) {
  const int groups = (config.n_octave_layers + 2 + 3) / 4;
  return kSoftwareBytesPerPixel + kSoftwareGroupBytesPerPixel * std::max(0, groups - 1);
}

double software_list_bytes(const DetectorConfig& config, double entries, double measured_entries) {
  // The point list and its positions: two RGBA32F texels per entry
  // (compact.hpp), counted twice over as margin.
  const auto per_entry = [](const DetectorConfig& c) {
    return 64.0 + OrientationStage::bytes_per_entry(c) + DescriptorStage::bytes_per_entry(c);
  };
  return std::max(0.0, entries * per_entry(config) - measured_entries * per_entry(DetectorConfig{}));
}

GpuDetector::GpuDetector(const gl::Context& context, const DetectorConfig& config,
                         const gl::ShaderSource& shaders, std::unique_ptr<DetectorSteps> steps)
    // `context` is made current before any stage creates GL objects in it.
    : config_((context.make_current(), checked(config))),
      integral_(shaders),
      hessian_(shaders, config),
      extrema_(shaders, config),
      compact_(shaders, std::max(kMinCapacity, config.max_features)),
      select_(shaders),
      quads_(shaders),
      orientation_(shaders, config),
      descriptor_(shaders, config),
      steps_(steps ? std::move(steps) : std::make_unique<DetectorSteps>()),
      host_textures_(context.info().software()),
      context_(context.tag()) {
  const int most = config.extended ? kMaxFeatures / 2 : kMaxFeatures;
  if (config.max_features > most) {
    throw Error("max_features " + std::to_string(config.max_features) + " is more than the GPU detector's " +
                std::to_string(most) + (config.extended ? " with extended descriptors" : "") +
                " (the matcher's copy of the descriptors); lower --max-features or use --backend cpu");
  }
  if (config.n_octaves * maps_per_octave(config) > 32) {
    throw Error(
        "the GPU detector handles at most 32 candidate maps: n_octaves * ceil(n_octave_layers / 2) = " +
        std::to_string(config.n_octaves * maps_per_octave(config)));
  }
}

std::string GpuDetector::size_problem(int width, int height) const {
  context_.require_current("GpuDetector");
  if (std::string why = image_size_problem(width, height, config_); !why.empty()) return why;
  if (std::string why = integral_size_problem(width, height); !why.empty()) return why;
  if (std::string why = atlas_size_problem(width, height, config_); !why.empty()) return why;
  // The largest textures hold 16 bytes a texel: det(H) and the cross strip
  // of octave 0, the integral quads ((W + 2) x (H + 2)).
  if (!gl::texture_fits(width + 2, height + 2, gl::Format::RGBA32F)) {
    return "image of " + std::to_string(width) + "x" + std::to_string(height) +
           " is too large: the driver cannot make its textures of " + std::to_string(width + 2) + "x" +
           std::to_string(height + 2) + " texels of 16 bytes";
  }
  return filter_sum_problem(width, height, config_, kMaxExactLobeSigned, "the GPU",
                            "use fewer --octaves or --layers, or --backend cpu");
}

std::string GpuDetector::compute_size_problem(int width, int height) const {
  context_.require_current("GpuDetector");
  if (width < 1 || height < 1) return "image has no pixels";
  if (std::string why = integral_size_problem(width, height); !why.empty()) return why;
  if (!gl::texture_fits(width + 2, height + 2, gl::Format::RGBA32UI)) {  // the quads
    return "image of " + std::to_string(width) + "x" + std::to_string(height) +
           " is too large: the driver cannot make its integral quads of " + std::to_string(width + 2) + "x" +
           std::to_string(height + 2) + " texels of 16 bytes";
  }
  return "";
}

void GpuDetector::configure(int width, int height) {
  // Refused before anything is allocated (on llvmpipe the stages of a large
  // image take seconds and gigabytes to build).
  if (const std::string why = size_problem(width, height); !why.empty()) throw Error(why);
  check_host_memory(width, height, Stages::All);
  // Until every stage is configured, no size is: a failure part-way makes the
  // next image configure again instead of running half-configured stages.
  width_ = height_ = 0;
  configure_integral(width, height);
  hessian_.configure(width, height);
  extrema_.configure(hessian_, width, height);
  compact_.configure(extrema_, width, height);
  orientation_.configure(compact_.capacity());
  descriptor_.configure(compact_.capacity());
  width_ = stages_width_ = width;
  height_ = stages_height_ = height;
}

void GpuDetector::configure_integral(int width, int height) {
  if (width == integral_width_ && height == integral_height_) return;
  if (const std::string why = compute_size_problem(width, height); !why.empty()) throw Error(why);
  width_ = height_ = integral_width_ = integral_height_ = 0;  // the detection stages no longer match
  const auto share = [this](const gl::Texture* storage) {
    hessian_.share_buffer(storage);
    extrema_.share_buffer(storage);
    quads_.share_buffer(storage);
  };
  share(nullptr);  // no stage keeps a view of the old buffer while the new one is made
  *linear_scratch_ = gl::Texture();
  if (const long long texels = (width + 2LL) * (height + 2LL); texels <= gl::max_buffer_texels()) {
    *linear_scratch_ = gl::Texture::buffer(static_cast<int>(texels), gl::Format::RGBA32UI, "linear_scratch");
    share(linear_scratch_.get());
  }
  integral_.configure(width, height);
  // The integral image reads the image four pixels to a texel.
  image_ = gl::Texture(packed_image_width(width), height, gl::Format::RGBA8, "image_packed");
  integral_width_ = width;
  integral_height_ = height;
}

void GpuDetector::upload_image(const GrayImage& image) {
  if (image_.format() == gl::Format::RGBA8) {
    upload_packed_image(image_, image, packing_scratch_);
  } else {
    image_.upload(image.pixels.data());
  }
}

double GpuDetector::fixed_bytes() const {
  return kSoftwareFixedBytes +
         software_list_bytes(config_, std::max(kMinCapacity, config_.max_features), kMinCapacity);
}

double GpuDetector::held_bytes() const {
  return kSoftwareComputeBytesPerPixel * integral_width_ * integral_height_ +
         (software_bytes_per_pixel(config_) - kSoftwareComputeBytesPerPixel) * stages_width_ * stages_height_;
}

void GpuDetector::check_host_memory(int width, int height, Stages stages) const {
  if (!host_textures_) return;
  // The textures of the size before are given back as the new ones are made:
  // the image's and the integral's for compute(), and those of the detection
  // stages too (made for stages_width_ x stages_height_, which compute() at
  // another size leaves allocated) for a detection.
  const bool all = stages == Stages::All;
  const double held = all ? held_bytes() : kSoftwareComputeBytesPerPixel * integral_width_ * integral_height_;
  const double available = available_host_memory();
  // The list holds the capacity asked for, at most the atlas's texels
  // (compact.hpp); compute() describes in chunks of the description stage's
  // capacity (kMinCapacity unless a detection set it), whatever the image.
  double entries = std::max(kMinCapacity, orientation_.capacity()), measured = kMinCapacity;
  if (all) {
    glm::ivec2 atlas, default_atlas;
    atlas_layout(width, height, config_, atlas);
    atlas_layout(width, height, DetectorConfig{}, default_atlas);
    entries = std::min<double>(std::max(kMinCapacity, config_.max_features),
                               static_cast<double>(atlas.x) * atlas.y);
    measured = std::min<double>(kMinCapacity, static_cast<double>(default_atlas.x) * default_atlas.y);
  }
  const std::string why =
      host_memory_problem(width, height, available < 0 ? available : available + held,
                          all ? software_bytes_per_pixel(config_) : kSoftwareComputeBytesPerPixel,
                          kSoftwareFixedBytes + software_list_bytes(config_, entries, measured));
  if (!why.empty()) throw Error(why);
}

int GpuDetector::find(const GrayImage& image) {
  context_.require_current("GpuDetector");
  if (const std::string why = image_layout_problem(image); !why.empty()) throw Error(why);
  if (const std::string why = image_size_problem(image.width, image.height, config_); !why.empty())
    throw Error(why);
  if (image.width != width_ || image.height != height_) configure(image.width, image.height);

  upload_image(image);
  runner_.after_transfer();
  integral_.run(runner_, image_);
  steps_->hessian(runner_, integral_, hessian_);
  steps_->suppression(runner_, hessian_, extrema_);
  // Each part of the list (compact.hpp) lists its keypoints clear of the
  // border first: with ties, the first part's are the list's first entries.
  int inside = 0;
  const CompactStage::Listed made =
      compact_.list_strongest(runner_, select_, candidate_atlas(extrema_), config_.max_features, &inside);
  candidates_ = made.candidates;
  truncated_ = made.truncated;
  const int listed = made.listed;
  listed_ = listed;
  inside_listed_ = std::min(inside, listed);
  oriented_ = false;
  return listed;
}

std::vector<KeyPoint> GpuDetector::read_keypoints(int listed) const {
  std::vector<float> list, where;
  compact_.read_list(listed, list, where);
  std::vector<KeyPoint> keypoints(static_cast<size_t>(listed));
  for (size_t i = 0; i < keypoints.size(); ++i) {
    KeyPoint& k = keypoints[i];
    k.x = list[4 * i];
    k.y = list[4 * i + 1];
    k.size = std::abs(list[4 * i + 2]);
    k.laplacian = list[4 * i + 2] > 0 ? 1 : -1;
    k.response = list[4 * i + 3];
    k.octave = static_cast<int>(where[4 * i]);
  }
  return keypoints;
}

std::vector<KeyPoint> GpuDetector::detect(const GrayImage& image) {
  std::vector<KeyPoint> keypoints = read_keypoints(find(image));
  sort_by_strength(keypoints);
  if (config_.max_features > 0 && static_cast<int>(keypoints.size()) > config_.max_features) {
    keypoints.resize(static_cast<size_t>(config_.max_features));
  }
  gl::check_context_not_lost("GpuDetector");
  return keypoints;
}

GpuDetector::OnGpu GpuDetector::detect_on_gpu(const GrayImage& image) {
  const int listed = find(image);
  if (listed > 0 && !config_.upright) quads_.update(runner_, integral_);
  orientation_.run(runner_, compact_.list(), quads_, listed, config_.upright ? 0 : inside_listed_);
  oriented_ = true;
  return last_on_gpu();
}

void GpuDetector::upload_list(const KeyPoint* keypoints, int n) {
  constexpr int kWidth = CompactStage::kListWidth;
  const int rows = (n + kWidth - 1) / kWidth;
  if (uploaded_list_.height() < rows)
    uploaded_list_ = gl::Texture(kWidth, rows, gl::Format::RGBA32F, "uploaded_list");
  // The point list's layout (compact.hpp): x, y, size * laplacian, response.
  std::vector<float> list(static_cast<size_t>(4) * kWidth * static_cast<size_t>(uploaded_list_.height()),
                          0.0f);
  for (int i = 0; i < n; ++i) {
    const KeyPoint& k = keypoints[i];
    float* texel = &list[4 * static_cast<size_t>(i)];
    texel[0] = k.x;
    texel[1] = k.y;
    texel[2] = k.laplacian < 0 ? -k.size : k.size;
    texel[3] = k.response;
  }
  uploaded_list_.upload(list.data());
  runner_.after_transfer();
}

int GpuDetector::inside_first(const KeyPoint* keypoints, int n, int width, int height,
                              std::vector<int>& order) const {
  order.resize(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  if (config_.upright) return 0;  // no orientation samples
  const auto is_inside = [&](int i) { return cpu::orientation_inside(keypoints[i], width, height); };
  return static_cast<int>(std::stable_partition(order.begin(), order.end(), is_inside) - order.begin());
}

Features GpuDetector::detect_and_compute(const GrayImage& image, DescriptorTextures* resident) {
  const int listed = find(image);
  // The list's first inside_listed_ entries (most of them) are described
  // without the clipping arithmetic in their orientation samples.
  const gl::Texture& list = compact_.list();
  OrientationStage::SecondOrientations second;
  int entries = 0;
  if (listed > 0) {
    quads_.update(runner_, integral_);
    orientation_.run(runner_, list, quads_, listed, config_.upright ? 0 : inside_listed_);
    second = orientation_.second_orientations(listed);  // the one wait, with second orientations
    entries = descriptor_.run(runner_, list, quads_, orientation_.angles(), listed, &second);
  }
  oriented_ = true;
  Features f;
  f.keypoints = read_keypoints(listed);
  // With `resident` the descriptors stay on the GPU only: not read back.
  f.descriptor_size = resident ? 0 : descriptor_size(config_);
  const std::vector<float> angles = orientation_.read(listed);
  if (!resident) f.descriptors = descriptor_.read(entries);
  for (int i = 0; i < listed; ++i) f.keypoints[static_cast<size_t>(i)].angle = angles[static_cast<size_t>(i)];
  // Descriptor entries listed, listed + 1, ...: second orientations.
  for (size_t i = 0; i < second.source.size(); ++i) {
    KeyPoint k = f.keypoints[static_cast<size_t>(second.source[i])];
    k.angle = second.angle[i];
    f.keypoints.push_back(k);
  }
  std::vector<int> order = sort_by_strength(f);
  if (config_.max_features > 0 && static_cast<int>(f.keypoints.size()) > config_.max_features) {
    f.keypoints.resize(static_cast<size_t>(config_.max_features));
    f.descriptors.resize(f.keypoints.size() * static_cast<size_t>(f.descriptor_size));
    order.resize(f.keypoints.size());
  }
  if (resident) descriptor_.gather(runner_, list, order, *resident);
  gl::check_context_not_lost("GpuDetector");  // what was read is garbage after a reset
  return f;
}

Features GpuDetector::compute(const GrayImage& image, std::vector<KeyPoint> keypoints, Angles angles) {
  context_.require_current("GpuDetector");
  if (const std::string why = cpu::angles_problem(config_, angles); !why.empty()) throw Error(why);
  if (const std::string why = image_layout_problem(image); !why.empty()) throw Error(why);
  if (const std::string why = compute_size_problem(image.width, image.height); !why.empty()) throw Error(why);
  std::string refused;
  if (const long i = cpu::first_keypoint_problem(keypoints, image.width, image.height, refused, angles);
      i >= 0) {
    throw Error("keypoint " + std::to_string(i) + ": " + refused);
  }
  if (image.width != integral_width_ || image.height != integral_height_) {
    check_host_memory(image.width, image.height, Stages::Integral);
  }
  configure_integral(image.width, image.height);
  if (orientation_.capacity() == 0) {  // both stages are configured together
    orientation_.configure(kMinCapacity);
    descriptor_.configure(kMinCapacity);
  }
  listed_ = inside_listed_ = 0;  // the point list no longer matches the angles
  oriented_ = false;
  Features f;
  f.descriptor_size = descriptor_size(config_);
  if (keypoints.empty()) return f;
  upload_image(image);
  runner_.after_transfer();
  integral_.run(runner_, image_);
  const int chunk = orientation_.capacity();
  const size_t size = static_cast<size_t>(f.descriptor_size);
  f.descriptors.resize(keypoints.size() * size);
  std::vector<float> chunk_angles, descriptors;
  std::vector<int> order;
  std::vector<KeyPoint> reordered;
  for (size_t first = 0; first < keypoints.size(); first += static_cast<size_t>(chunk)) {
    const int n = static_cast<int>(std::min(keypoints.size() - first, static_cast<size_t>(chunk)));
    if (angles == Angles::Keep) {
      upload_list(&keypoints[first], n);
      chunk_angles.resize(static_cast<size_t>(n));
      for (int i = 0; i < n; ++i)
        chunk_angles[static_cast<size_t>(i)] = keypoints[first + static_cast<size_t>(i)].angle;
      quads_.update(runner_, integral_);
      orientation_.set(runner_, chunk_angles);
      descriptor_.run(runner_, uploaded_list_, quads_, orientation_.angles(), n);
      descriptors = descriptor_.read(n);
      std::copy(descriptors.begin(), descriptors.end(), &f.descriptors[first * size]);
      continue;
    }
    // Described with those whose orientation samples need no clipping
    // first, as detect_and_compute does; the results go back to the
    // keypoints' own order.
    const int inside = inside_first(&keypoints[first], n, image.width, image.height, order);
    reordered.resize(static_cast<size_t>(n));
    for (size_t i = 0; i < reordered.size(); ++i)
      reordered[i] = keypoints[first + static_cast<size_t>(order[i])];
    upload_list(reordered.data(), n);
    quads_.update(runner_, integral_);
    orientation_.run(runner_, uploaded_list_, quads_, n, inside);
    descriptor_.run(runner_, uploaded_list_, quads_, orientation_.angles(), n);
    chunk_angles = orientation_.read(n);
    descriptors = descriptor_.read(n);
    for (int i = 0; i < n; ++i) {
      const size_t k = first + static_cast<size_t>(order[static_cast<size_t>(i)]);
      keypoints[k].angle = chunk_angles[static_cast<size_t>(i)];
      std::copy_n(&descriptors[static_cast<size_t>(i) * size], size, &f.descriptors[k * size]);
    }
  }
  f.keypoints = std::move(keypoints);
  gl::check_context_not_lost("GpuDetector");
  return f;
}

}  // namespace glsurf
