#include "surf/descriptor.hpp"

#include <algorithm>
#include <cstdio>

#include "cpu/descriptor.hpp"
#include "gl/error.hpp"

namespace glsurf {

namespace {

constexpr int kWidth = 1024;  // shaders/common/blocks.glsl
// orient_windows: kPerFragment candidates per fragment, blocks of window_texels() per keypoint.
// 32: each sample is fetched once for 32 windows (on llvmpipe 32 beat 8, 16
// and 64; docs/notes/orientation.md).
constexpr int kPerFragment = 32;
static_assert(kPerFragment % 4 == 0 && cpu::kOrientationCandidates % kPerFragment == 0 &&
                  cpu::kSecondOrientationCandidates % kPerFragment == 0,
              "orient_windows takes the candidates 4 to a vector, kPerFragment at once");
static_assert(kWidth % (cpu::kOrientationCandidates / kPerFragment) == 0 &&
                  kWidth % (cpu::kSecondOrientationCandidates / kPerFragment) == 0,
              "orient_windows blocks must tile the rows");
// orient_samples: the kOrientationSamples samples two to a texel, the
// kSampleTexels texels of a keypoint in a kSampleTileWidth x
// kSampleTileHeight tile (shaders/common/blocks.glsl), the texels past them
// zero. In tiles the 4 x 4 blocks of fragments that llvmpipe shades
// together read around one to four neighbouring keypoints rather than four
// a texture row apart (runs): on the 1920 x 1080 image the samples pass took
// 5-35 % less, the windows and recentring passes, which stream through the
// samples, up to 27 % more; at 640 x 480 the three together took as long as
// with runs (docs/notes/orientation.md). Padding fragments cost llvmpipe as much as real
// ones, so the tile holds the 99 texels exactly, 93 tiles to a row (9 x 11,
// 10 x 10, 8 x 13, 12 x 9 and 25 x 4 did no better).
constexpr int kSampleTexels = (cpu::kOrientationSamples + 1) / 2;
constexpr int kSampleTileWidth = 11, kSampleTileHeight = 9;
constexpr int kSampleTilesPerRow = kWidth / kSampleTileWidth;
static_assert(kSampleTileWidth * kSampleTileHeight >= kSampleTexels, "a tile must hold a keypoint's samples");
// descriptor (before normalize): a 4 x 4 tile per keypoint, one texel per
// sub-region (shaders/common/blocks.glsl).
constexpr int kDescriptorTile = 4;

// Rows of a texture with `texels` texels per keypoint in runs, or with
// `count` keypoints in width x height tiles.
int rows_for(int texels) { return std::max(1, (texels + kWidth - 1) / kWidth); }
int tile_rows(int count, int width, int height) {
  const int per_row = kWidth / width;
  return std::max(1, (count + per_row - 1) / per_row) * height;
}

std::vector<std::string> extended_define(const DetectorConfig& config) {
  if (!config.extended) return {};
  char tolerance[32];
  std::snprintf(tolerance, sizeof tolerance, "%.9g", cpu::kSplitTolerance);
  return {"EXTENDED", std::string("SPLIT_TOLERANCE ") + tolerance};
}

// The descriptor's Haar side and Gaussian weight, in s (cpu::describe).
std::vector<std::string> descriptor_defines(const DetectorConfig& config) {
  std::vector<std::string> defines = extended_define(config);
  char haar[32], sigma[32];
  std::snprintf(haar, sizeof haar, "%.9g", cpu::kDescriptorHaar);
  std::snprintf(sigma, sizeof sigma, "%.9g", cpu::kDescriptorSigma);
  defines.push_back(std::string("HAAR_SIDE ") + haar);
  defines.push_back(std::string("SIGMA ") + sigma);
  return defines;
}

std::vector<std::string> sample_defines() {
  return {"SAMPLES " + std::to_string(cpu::kOrientationSamples),
          "SAMPLE_TEXELS " + std::to_string(kSampleTexels),
          "SAMPLE_TILE ivec2(" + std::to_string(kSampleTileWidth) + ", " + std::to_string(kSampleTileHeight) +
              ")",
          "PER_FRAGMENT " + std::to_string(kPerFragment)};
}

// The CPU reference's lattice, in its order: texel n = point n (i, j) and
// its Gaussian weight.
gl::Texture lattice_texture() {
  std::vector<float> points;
  for (const cpu::LatticePoint& p : cpu::kOrientationLattice) {
    points.push_back(static_cast<float>(p.i));
    points.push_back(static_cast<float>(p.j));
    points.push_back(static_cast<float>(cpu::orientation_weight(p)));
    points.push_back(0.0f);
  }
  gl::Texture t(cpu::kOrientationSamples, 1, gl::Format::RGBA32F, "orient_lattice");
  t.upload(points.data());
  return t;
}

}  // namespace

DescribeStage::DescribeStage(const gl::ShaderSource& shaders, const DetectorConfig& config)
    : config_(config),
      shaders_(shaders),
      quads_program_(shaders, "common/fullscreen.vert", "orientation/quads.frag"),
      quads_linear_program_(shaders, "common/fullscreen.vert", "orientation/quads.frag", {"LINEAR_FETCH"}),
      norms_(shaders, "common/fullscreen.vert", "descriptor/norms.frag", extended_define(config)),
      normalize_(shaders, "common/fullscreen.vert", "descriptor/normalize.frag", extended_define(config)),
      gather_(shaders, "common/fullscreen.vert", "descriptor/gather.frag", extended_define(config)),
      gather_signs_(shaders, "common/fullscreen.vert", "descriptor/gather_signs.frag"),
      lattice_(lattice_texture()) {}

double DescribeStage::bytes_per_entry(const DetectorConfig& config) {
  const bool second = config.second_orientation > 0 && !config.upright;
  const double values = 4.0 * descriptor_size(config);  // float32 values of one descriptor entry
  // angles R32F; second_angles R32F and second_entries RG32F; per descriptor
  // entry keypoint_order RG32F, descriptor_scales R32F, descriptors_raw and
  // descriptors, read back and sorted (Features: the read-back copy and the
  // sorted one are held together).
  return 4.0 + (second ? 12.0 : 0.0) + (second ? 2.0 : 1.0) * (12.0 + 4.0 * values);
}

int DescribeStage::window_texels() const { return candidates() / kPerFragment; }

void DescribeStage::configure(int capacity) {
  GLSURF_EXPECTS(capacity > 0, "capacity must be positive");
  const int chunk = std::min(capacity, kChunk);
  gl::Texture samples(kWidth, tile_rows(chunk, kSampleTileWidth, kSampleTileHeight), gl::Format::RGBA32F,
                      "orient_samples");
  gl::Texture windows(kWidth, rows_for(chunk * window_texels()), gl::Format::RGBA32F, "orient_windows");
  gl::Texture angles(kWidth, rows_for(capacity), gl::Format::R32F, "angles");
  const bool second = second_orientation();
  const int entries = second ? 2 * capacity : capacity;
  gl::Texture order(kWidth, rows_for(entries), gl::Format::RG32F, "keypoint_order");
  // A texel each, so that every program can bind it; sized when used.
  gl::Texture peaks[2], second_angles, extra(1, 1, gl::Format::RG32F, "second_entries");
  if (second) {
    for (int p = 0; p < 2; ++p) {
      peaks[p] = gl::Texture(kWidth, rows_for(chunk * window_texels()), gl::Format::RGBA32F,
                             "orient_peaks_" + std::to_string(p));
    }
    second_angles = gl::Texture(kWidth, rows_for(capacity), gl::Format::R32F, "second_angles");
    extra = gl::Texture(kWidth, rows_for(capacity), gl::Format::RG32F, "second_entries");
  }
  const int halves = config_.extended ? 2 : 1;
  gl::Texture raw[2], normalised[2];
  std::vector<const gl::Texture*> raw_list, final_list;
  for (int h = 0; h < halves; ++h) {
    raw[h] = gl::Texture(kWidth, tile_rows(entries, kDescriptorTile, kDescriptorTile), gl::Format::RGBA32F,
                         "descriptors_raw_" + std::to_string(h));
    normalised[h] =
        gl::Texture(kWidth, rows_for(entries * 16), gl::Format::RGBA32F, "descriptors_" + std::to_string(h));
    raw_list.push_back(&raw[h]);
    final_list.push_back(&normalised[h]);
  }
  gl::Framebuffer samples_target({&samples}, "orient_samples");
  // orient_windows and orient_best read the samples from a buffer copy when
  // the driver's buffer textures hold a chunk of them.
  // (Upright descriptors need none of the orientation passes.)
  const long long sample_texels = static_cast<long long>(samples.width()) * samples.height();
  const int limit = gl::max_buffer_texels(buffer_limit_);
  const bool linear = !config_.upright && sample_texels <= limit;
  if (!config_.upright && (linear != samples_in_buffer_ || best_.id() == 0)) {
    std::vector<std::string> defines = sample_defines();
    if (linear) defines.push_back("LINEAR_FETCH");
    if (second) defines.push_back("SECOND");
    windows_ = gl::Program(shaders_, "common/fullscreen.vert", "orientation/windows.frag", defines);
    best_ = gl::Program(shaders_, "common/fullscreen.vert", "orientation/best.frag", defines);
  }
  samples_in_buffer_ = linear;
  gl::Texture samples_linear = linear ? gl::Texture::buffer(static_cast<int>(sample_texels),
                                                            gl::Format::RGBA32F, "orient_samples_linear")
                                      : gl::Texture();
  gl::Framebuffer windows_target(second ? std::vector<const gl::Texture*>{&windows, &peaks[0], &peaks[1]}
                                        : std::vector<const gl::Texture*>{&windows},
                                 "orient_windows");
  gl::Framebuffer angles_target(second ? std::vector<const gl::Texture*>{&angles, &second_angles}
                                       : std::vector<const gl::Texture*>{&angles},
                                "angles");
  gl::Framebuffer raw_target(raw_list, "descriptors_raw");
  gl::Framebuffer final_target(final_list, "descriptors");
  gl::Texture scales(kWidth, rows_for(entries), gl::Format::R32F, "descriptor_scales");
  gl::Framebuffer scales_target({&scales}, "descriptor_scales");

  capacity_ = capacity;
  orient_samples_ = std::move(samples);
  orient_samples_linear_ = std::move(samples_linear);
  orient_windows_ = std::move(windows);
  angles_ = std::move(angles);
  order_ = std::move(order);
  for (int p = 0; p < 2; ++p) peaks_[p] = std::move(peaks[p]);
  second_angles_ = std::move(second_angles);
  extra_ = std::move(extra);
  primary_ = 0;
  second_source_.clear();
  for (int h = 0; h < 2; ++h) {
    raw_[h] = std::move(raw[h]);
    final_[h] = std::move(normalised[h]);
  }
  samples_target_ = std::move(samples_target);
  windows_target_ = std::move(windows_target);
  angles_target_ = std::move(angles_target);
  raw_target_ = std::move(raw_target);
  final_target_ = std::move(final_target);
  scales_ = std::move(scales);
  scales_target_ = std::move(scales_target);
}

void DescribeStage::regroup(gl::PassRunner& runner, IntegralStage& integral_stage) {
  if (quads_generation_ != 0 && quads_generation_ == integral_stage.generation()) return;
  quads_generation_ = 0;  // until the quads below are done
  const gl::Texture& integral = integral_stage.result();
  const int width = integral_stage.width() + 2, height = integral_stage.height() + 2;
  if (!quads_ || quads_.width() != width || quads_.height() != height) {
    quads_target_ = gl::Framebuffer();  // the old size goes first: 16 bytes per pixel
    quads_ = gl::Texture();
    gl::Texture quads(width, height, gl::Format::RGBA32UI, "integral_quads");
    gl::Framebuffer target({&quads}, "integral_quads");
    quads_ = std::move(quads);
    quads_target_ = std::move(target);
  }
  // Linear look-ups where the driver's buffer textures hold them (the
  // programs that read them are built for one kind or the other): the quads
  // pass reads the integral stage's buffer copy, which the Hessian passes
  // share (on llvmpipe 1.1-1.3 ms against 1.9 at 640 x 480, 9.3-13.1 against
  // 14.2-17.3 at 1920 x 1080), and the passes after it a buffer copy of the
  // quads.
  const int limit = gl::max_buffer_texels(buffer_limit_);
  const glm::ivec2 integral_size = integral_stage.size();
  if (const gl::Texture* linear = integral_stage.linear_copy(runner, limit)) {
    runner.run("orientation_quads", quads_linear_program_, quads_target_, {{"u_integral", *linear}},
               {{"u_integral_size", integral_size}});
  } else {
    runner.run("orientation_quads", quads_program_, quads_target_, {{"u_integral", integral}},
               {{"u_integral_size", integral_size}});
  }
  const bool buffer = static_cast<long long>(width) * height <= limit;
  if (buffer != quads_in_buffer_ || describe_.id() == 0) {
    std::vector<std::string> samples = sample_defines(), describe = descriptor_defines(config_);
    if (buffer) {
      samples.push_back("LINEAR_FETCH");
      describe.push_back("LINEAR_FETCH");
    }
    if (!config_.upright) {
      samples_ = gl::Program(shaders_, "common/fullscreen.vert", "orientation/samples.frag", samples);
      samples.push_back("INSIDE");
      samples_inside_ = gl::Program(shaders_, "common/fullscreen.vert", "orientation/samples.frag", samples);
    }
    describe_ = gl::Program(shaders_, "common/fullscreen.vert", "descriptor/sums.frag", describe);
    quads_in_buffer_ = buffer;
  }
  if (!buffer) {
    quads_buffer_ = gl::Texture();
  } else {
    if (!quads_buffer_ || quads_buffer_.width() != width * height) {
      quads_buffer_ = gl::Texture();
      quads_buffer_ = gl::Texture::buffer(width * height, gl::Format::RGBA32UI, "integral_quads_buffer");
    }
    quads_buffer_.copy_rows(quads_, 0, height);
    runner.after_transfer();
  }
  quads_generation_ = integral_stage.generation();
}

void DescribeStage::orient(gl::PassRunner& runner, const gl::Texture& list, IntegralStage& integral,
                           int count, int inside) {
  GLSURF_EXPECTS(capacity_ > 0, "configure() before run()");
  GLSURF_EXPECTS(count >= 0 && count <= capacity_, "more keypoints than configured");
  if (count == 0) return;
  if (!config_.upright) regroup(runner, integral);
  orient_passes(runner, list, count, inside);
  gl::check_gl_errors("orientation");
}

void DescribeStage::orient_passes(gl::PassRunner& runner, const gl::Texture& list, int count, int inside) {
  const auto rows = [](int texels) { return gl::PassRunner::Region{0, 0, kWidth, rows_for(texels)}; };
  if (config_.upright) {
    runner.clear(angles_target_, glm::vec4(0.0f));
    return;
  }
  for (int first = 0; first < count; first += kChunk) {
    const int n = std::min(kChunk, count - first);
    // The rows of tiles that hold only list entries below `inside` take the
    // clipping-free program, the others (from the row of tiles that holds
    // the first entry past them) the clipping one.
    const int inside_rows = std::clamp(inside - first, 0, n) / kSampleTilesPerRow * kSampleTileHeight;
    const int sample_rows = tile_rows(n, kSampleTileWidth, kSampleTileHeight);
    for (const bool clipped : {false, true}) {
      const gl::PassRunner::Region region =
          clipped ? gl::PassRunner::Region{0, inside_rows, kWidth, sample_rows - inside_rows}
                  : gl::PassRunner::Region{0, 0, kWidth, inside_rows};
      if (region.height == 0) continue;
      runner.run_in(region, "orientation_samples", clipped ? samples_ : samples_inside_, samples_target_,
                    {{"u_list", list}, {"u_quads", quads()}, {"u_lattice", lattice_}},
                    {{"u_count", n},
                     {"u_first", first},
                     {"u_quads_size", glm::ivec2(quads_.width(), quads_.height())},
                     {"u_step", static_cast<float>(cpu::kOrientationStep)},
                     {"u_offset", static_cast<float>(cpu::kOrientationOffset)}});
    }
    const gl::Texture* samples = &orient_samples_;
    if (orient_samples_linear_) {
      orient_samples_linear_.copy_rows(orient_samples_, 0, sample_rows);
      runner.after_transfer();
      samples = &orient_samples_linear_;
    }
    runner.run_in(rows(n * window_texels()), "orientation_windows", windows_, windows_target_,
                  {{"u_samples", *samples}}, {{"u_count", n}, {"u_candidates", candidates()}});
    const int first_row = first / kWidth, last_row = (first + n - 1) / kWidth;
    const gl::PassRunner::Region angle_rows{0, first_row, kWidth, last_row - first_row + 1};
    const float settled = static_cast<float>(cpu::kOrientationSettled),
                leap = static_cast<float>(cpu::kOrientationLeap);
    if (second_orientation()) {
      runner.run_in(angle_rows, "orientation_best", best_, angles_target_,
                    {{"u_windows", orient_windows_},
                     {"u_samples", *samples},
                     {"u_peaks", peaks_[0]},
                     {"u_next_peaks", peaks_[1]}},
                    {{"u_count", n},
                     {"u_first", first},
                     {"u_candidates", candidates()},
                     {"u_max_sums", cpu::kOrientationMaxSums},
                     {"u_settled", settled},
                     {"u_leap", leap},
                     {"u_second_ratio", config_.second_orientation},
                     {"u_separation", static_cast<float>(cpu::kSecondSeparation)}});
    } else {
      runner.run_in(angle_rows, "orientation_best", best_, angles_target_,
                    {{"u_windows", orient_windows_}, {"u_samples", *samples}},
                    {{"u_count", n},
                     {"u_first", first},
                     {"u_candidates", candidates()},
                     {"u_max_sums", cpu::kOrientationMaxSums},
                     {"u_settled", settled},
                     {"u_leap", leap}});
    }
  }
}

int DescribeStage::run(gl::PassRunner& runner, const gl::Texture& list, IntegralStage& integral, int count,
                       SecondOrientations* second, int inside) {
  GLSURF_EXPECTS(capacity_ > 0, "configure() before run()");
  GLSURF_EXPECTS(count >= 0 && count <= capacity_, "more keypoints than configured");
  primary_ = count;
  second_source_.clear();
  if (second) *second = SecondOrientations{};
  if (count == 0) return 0;
  regroup(runner, integral);
  orient_passes(runner, list, count, inside);
  if (second && second_orientation()) {
    // The one wait: which keypoints have a second orientation.
    const std::vector<float> angles = angles_target_.read_f32(1, 0, 0, kWidth, rows_for(count));
    std::vector<float> entries(static_cast<size_t>(2) * kWidth * extra_.height(), 0.0f);
    for (int k = 0; k < count; ++k) {
      const float angle = angles[static_cast<size_t>(k)];
      if (angle < 0) continue;
      entries[2 * second->source.size()] = static_cast<float>(k);
      entries[2 * second->source.size() + 1] = angle;
      second->source.push_back(k);
      second->angle.push_back(angle);
    }
    if (!second->source.empty()) extra_.upload(entries.data());
    runner.after_transfer();
    second_source_ = second->source;
  }
  return describe_entries(runner, list, count);
}

void DescribeStage::run_at(gl::PassRunner& runner, const gl::Texture& list, IntegralStage& integral,
                           const std::vector<float>& angles) {
  const int count = static_cast<int>(angles.size());
  GLSURF_EXPECTS(!config_.upright, "upright descriptors keep no angle (cpu::angles_problem)");
  GLSURF_EXPECTS(capacity_ > 0, "configure() before run()");
  GLSURF_EXPECTS(count <= capacity_, "more keypoints than configured");
  primary_ = count;
  second_source_.clear();
  if (count == 0) return;
  regroup(runner, integral);
  std::vector<float> texels(static_cast<size_t>(kWidth) * angles_.height(), 0.0f);
  std::copy(angles.begin(), angles.end(), texels.begin());
  angles_.upload(texels.data());
  runner.after_transfer();
  describe_entries(runner, list, count);
}

int DescribeStage::describe_entries(gl::PassRunner& runner, const gl::Texture& list, int count) {
  const int total = count + static_cast<int>(second_source_.size());
  const gl::PassRunner::Region tiles{0, 0, kWidth, tile_rows(total, kDescriptorTile, kDescriptorTile)};
  const gl::PassRunner::Region runs{0, 0, kWidth, rows_for(total * 16)};
  runner.run_in(tiles, "descriptor_sums", describe_, raw_target_,
                {{"u_list", list}, {"u_angles", angles_}, {"u_extra", extra_}, {"u_quads", quads()}},
                {{"u_count", total},
                 {"u_primary", count},
                 {"u_quads_size", glm::ivec2(quads_.width(), quads_.height())}});
  const gl::PassRunner::Region descriptors{0, 0, kWidth, rows_for(total)};
  if (config_.extended) {
    runner.run_in(descriptors, "descriptor_norms", norms_, scales_target_,
                  {{"u_first_half", raw_[0]}, {"u_second_half", raw_[1]}}, {{"u_count", total}});
    runner.run_in(runs, "descriptor_normalize", normalize_, final_target_,
                  {{"u_first_half", raw_[0]}, {"u_second_half", raw_[1]}, {"u_scales", scales_}},
                  {{"u_count", total}});
  } else {
    runner.run_in(descriptors, "descriptor_norms", norms_, scales_target_, {{"u_first_half", raw_[0]}},
                  {{"u_count", total}});
    runner.run_in(runs, "descriptor_normalize", normalize_, final_target_,
                  {{"u_first_half", raw_[0]}, {"u_scales", scales_}}, {{"u_count", total}});
  }
  gl::check_gl_errors("describe");
  return total;
}

void DescribeStage::read(int count, std::vector<float>& angles, std::vector<float>& descriptors,
                         bool with_descriptors, int entries) const {
  angles.clear();
  descriptors.clear();
  if (entries < 0) entries = count;
  if (count == 0) return;
  angles = angles_target_.read_f32(0, 0, 0, kWidth, rows_for(count));
  angles.resize(static_cast<size_t>(count));
  if (!with_descriptors) return;
  const int halves = config_.extended ? 2 : 1;
  const int size = descriptor_size(config_);
  descriptors.assign(static_cast<size_t>(entries) * size, 0.0f);
  for (int h = 0; h < halves; ++h) {
    const std::vector<float> texels = final_target_.read_f32(h, 0, 0, kWidth, rows_for(entries * 16));
    for (int k = 0; k < entries; ++k) {
      for (int r = 0; r < 16; ++r) {
        const float* t = &texels[(static_cast<size_t>(k) * 16 + r) * 4];
        float* out = &descriptors[static_cast<size_t>(k) * size + r * 4 * halves + h * 4];
        // -0 (a shader's product of 0 and a negative) read as 0, as the CPU
        // reference's sums give it.
        for (int c = 0; c < 4; ++c) out[c] = t[c] == 0.0f ? 0.0f : t[c];
      }
    }
  }
}

void DescribeStage::gather(gl::PassRunner& runner, const gl::Texture& list, const std::vector<int>& order,
                           DescriptorTextures& out) {
  const int count = static_cast<int>(order.size());
  const int texels = descriptor_size(config_) / 4;
  out.count = count;
  out.texels = texels;
  // Reallocated only when the size changes (a viewer gathers every frame).
  if (!out.descriptors || out.descriptors.height() != rows_for(count * texels)) {
    out.descriptors =
        gl::Texture(kWidth, rows_for(count * texels), gl::Format::RGBA32F, "resident_descriptors");
  }
  if (!out.signs || out.signs.height() != rows_for(count)) {
    out.signs = gl::Texture(kWidth, rows_for(count), gl::Format::R32F, "resident_signs");
  }
  if (count == 0) return;
  // The order is the one small upload: 8 bytes per keypoint, its
  // descriptor entry and its list entry.
  gl::Texture& order_texture = order_;
  std::vector<float> values(static_cast<size_t>(2) * kWidth * order_texture.height(), 0.0f);
  for (int k = 0; k < count; ++k) {
    const int entry = order[static_cast<size_t>(k)];
    GLSURF_EXPECTS(entry >= 0 && entry < primary_ + static_cast<int>(second_source_.size()),
                   "gather: not an entry of the last run()");
    values[2 * static_cast<size_t>(k)] = static_cast<float>(entry);
    values[2 * static_cast<size_t>(k) + 1] =
        static_cast<float>(entry < primary_ ? entry : second_source_[static_cast<size_t>(entry - primary_)]);
  }
  order_texture.upload(values.data());
  const gl::Framebuffer descriptors_target({&out.descriptors}, "resident_descriptors");
  const gl::Framebuffer signs_target({&out.signs}, "resident_signs");
  const gl::PassRunner::Region rows{0, 0, kWidth, rows_for(count * texels)};
  if (config_.extended) {
    runner.run_in(rows, "descriptor_gather", gather_, descriptors_target,
                  {{"u_first_half", final_[0]}, {"u_second_half", final_[1]}, {"u_order", order_texture}},
                  {{"u_count", count}, {"u_texels", texels}});
  } else {
    runner.run_in(rows, "descriptor_gather", gather_, descriptors_target,
                  {{"u_first_half", final_[0]}, {"u_order", order_texture}},
                  {{"u_count", count}, {"u_texels", texels}});
  }
  runner.run_in({0, 0, kWidth, rows_for(count)}, "descriptor_gather_signs", gather_signs_, signs_target,
                {{"u_list", list}, {"u_order", order_texture}}, {{"u_count", count}});
  gl::check_gl_errors("gather descriptors");
}

}  // namespace glsurf
