#include "surf/orientation.hpp"

#include <algorithm>

#include "cpu/descriptor.hpp"
#include "gl/error.hpp"
#include "gl/shared_constants.hpp"
#include "surf/blocks.hpp"

namespace glsurf {

namespace {

constexpr int kWidth = shader::kListWidth;
// windows: kPerFragment candidates per fragment, blocks of window_texels() per keypoint.
// 32: each sample is fetched once for 32 windows (on llvmpipe 32 beat 8, 16
// and 64; docs/notes/orientation.md).
constexpr int kPerFragment = 32;
static_assert(kPerFragment % 4 == 0 && cpu::kOrientationCandidates % kPerFragment == 0 &&
                  cpu::kSecondOrientationCandidates % kPerFragment == 0,
              "orientation/windows.frag takes the candidates 4 to a vector, kPerFragment at once");
static_assert(kWidth % (cpu::kOrientationCandidates / kPerFragment) == 0 &&
                  kWidth % (cpu::kSecondOrientationCandidates / kPerFragment) == 0,
              "the windows pass's blocks must tile the rows");
// samples: the kOrientationSamples samples two to a texel, the
// kSampleTexels texels of a keypoint in a kSampleTileWidth x
// kSampleTileHeight tile (shaders/common/blocks.glsl), the texels past them
// zero. In tiles the 4 x 4 blocks of fragments that llvmpipe shades
// together read around one to four neighbouring keypoints rather than four
// a texture row apart (docs/notes/orientation.md). Padding fragments cost
// llvmpipe as much as real ones, so the tile holds the 99 texels exactly,
// 93 tiles to a row.
constexpr int kSampleTexels = (cpu::kOrientationSamples + 1) / 2;
constexpr int kSampleTileWidth = 11, kSampleTileHeight = 9;
constexpr int kSampleTilesPerRow = kWidth / kSampleTileWidth;
static_assert(kSampleTileWidth * kSampleTileHeight >= kSampleTexels, "a tile must hold a keypoint's samples");

using blocks::rows_for;
using blocks::tile_rows;

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

// --- the regrouped integral image ---------------------------------------------

IntegralQuads::IntegralQuads(const gl::ShaderSource& shaders)
    : pass_(shaders, {}), linear_pass_(shaders, {"LINEAR_FETCH"}) {}

void IntegralQuads::update(gl::PassRunner& runner, IntegralStage& integral_stage) {
  if (generation_ != 0 && generation_ == integral_stage.generation()) return;
  generation_ = 0;  // until the quads below are done
  const gl::Texture& integral = integral_stage.result();
  const int width = integral_stage.width() + 2, height = integral_stage.height() + 2;
  size_ = {width, height};
  // Linear look-ups where the driver's buffer textures hold them (the
  // programs that read them are built for one kind or the other): the quads
  // pass reads the integral stage's buffer copy, which the Hessian passes
  // share (faster on llvmpipe: docs/notes/orientation.md), and the passes
  // after it a buffer copy of the quads, drawn and copied a band of rows at a
  // time.
  const int limit = gl::max_buffer_texels(buffer_limit_);
  in_buffer_ = static_cast<long long>(width) * height <= limit;
  const int band = in_buffer_ ? scratch_band_rows(height) : height;
  if (!quads_ || quads_.width() != width || quads_.height() != band) {
    target_ = gl::Framebuffer();  // the old size goes first
    quads_ = gl::Texture();
    gl::Texture quads(width, band, gl::Format::RGBA32UI,
                      in_buffer_ ? "integral_quads_band" : "integral_quads");
    gl::Framebuffer target({&quads}, quads.label());
    quads_ = std::move(quads);
    target_ = std::move(target);
  }
  const glm::ivec2 integral_size = integral_stage.size();
  const gl::Texture* linear = integral_stage.linear_copy(runner, limit);
  QuadsPass& pass = linear ? linear_pass_ : pass_;
  const gl::Texture& source = linear ? *linear : integral;
  if (!in_buffer_) {
    buffer_ = gl::Texture();
    pass.integral(source, integral_size).first_row(0).draw(runner, target_);
  } else {
    const int texels = width * height;
    if (!buffer_ || buffer_.width() != texels) {
      buffer_ = gl::Texture();
      buffer_ =
          shared_ && shared_->width() >= texels
              ? gl::Texture::buffer_view(*shared_, texels, gl::Format::RGBA32UI, "integral_quads_buffer")
              : gl::Texture::buffer(texels, gl::Format::RGBA32UI, "integral_quads_buffer");
    }
    for (int row = 0; row < height; row += band) {
      const int rows = std::min(band, height - row);
      pass.integral(source, integral_size).first_row(row).draw(runner, target_, {0, 0, width, rows});
      buffer_.copy_rows(quads_, 0, rows, static_cast<long long>(row) * width);
      runner.after_transfer();
    }
  }
  generation_ = integral_stage.generation();
}

// --- orientation --------------------------------------------------------------

OrientationStage::OrientationStage(const gl::ShaderSource& shaders, const DetectorConfig& config)
    : config_(config), shaders_(shaders), lattice_(lattice_texture()) {}

double OrientationStage::bytes_per_entry(const DetectorConfig& config) {
  const bool second = config.second_orientation > 0 && !config.upright;
  return 4.0 + (second ? 4.0 : 0.0);  // angles R32F, second_angles R32F
}

int OrientationStage::window_texels() const { return candidates() / kPerFragment; }

void OrientationStage::configure(int capacity) {
  GLSURF_EXPECTS(capacity > 0, "capacity must be positive");
  const int chunk = std::min(capacity, kChunk);
  gl::Texture samples(kWidth, tile_rows(chunk, kSampleTileWidth, kSampleTileHeight), gl::Format::RGBA32F,
                      "orient_samples");
  gl::Texture windows(kWidth, rows_for(chunk * window_texels()), gl::Format::RGBA32F, "orient_windows");
  gl::Texture angles(kWidth, rows_for(capacity), gl::Format::R32F, "angles");
  const bool second = second_orientation();
  gl::Texture peaks[2], second_angles;
  if (second) {
    for (int p = 0; p < 2; ++p) {
      peaks[p] = gl::Texture(kWidth, rows_for(chunk * window_texels()), gl::Format::RGBA32F,
                             "orient_peaks_" + std::to_string(p));
    }
    second_angles = gl::Texture(kWidth, rows_for(capacity), gl::Format::R32F, "second_angles");
  }
  gl::Framebuffer samples_target({&samples}, "orient_samples");
  // The windows and best passes read the samples from a buffer copy when
  // the driver's buffer textures hold a chunk of them. (Upright descriptors
  // need none of the orientation passes.)
  const long long sample_texels = static_cast<long long>(samples.width()) * samples.height();
  const int limit = gl::max_buffer_texels(buffer_limit_);
  const bool linear = !config_.upright && sample_texels <= limit;
  if (!config_.upright && (linear != samples_in_buffer_ || !best_.built())) {
    std::vector<std::string> defines = sample_defines();
    if (linear) defines.push_back("LINEAR_FETCH");
    if (second) defines.push_back("SECOND");
    windows_ = WindowsPass(shaders_, defines);
    best_ = BestPass(shaders_, defines);
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
  capacity_ = capacity;
  samples_tex_ = std::move(samples);
  samples_linear_ = std::move(samples_linear);
  windows_tex_ = std::move(windows);
  angles_ = std::move(angles);
  for (int p = 0; p < 2; ++p) peaks_[p] = std::move(peaks[p]);
  second_angles_ = std::move(second_angles);
  samples_target_ = std::move(samples_target);
  windows_target_ = std::move(windows_target);
  angles_target_ = std::move(angles_target);
}

void OrientationStage::build_samples(const IntegralQuads& quads) {
  const int kind = quads.in_buffer() ? 1 : 0;
  if (kind == samples_quads_kind_) return;
  std::vector<std::string> defines = sample_defines();
  if (quads.in_buffer()) defines.push_back("LINEAR_FETCH");
  samples_ = SamplesPass(shaders_, defines);
  defines.push_back("INSIDE");
  samples_inside_ = SamplesPass(shaders_, defines);
  samples_quads_kind_ = kind;
}

void OrientationStage::run(gl::PassRunner& runner, const gl::Texture& list, const IntegralQuads& quads,
                           int count, int inside) {
  GLSURF_EXPECTS(capacity_ > 0, "configure() before run()");
  GLSURF_EXPECTS(count >= 0 && count <= capacity_, "more keypoints than configured");
  if (count == 0) return;
  if (config_.upright) {
    runner.clear(angles_target_, glm::vec4(0.0f));
    return;
  }
  build_samples(quads);
  const auto rows = [](int texels) { return gl::PassRunner::Region{0, 0, kWidth, rows_for(texels)}; };
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
      (clipped ? samples_ : samples_inside_)
          .list(list)
          .quads(quads)
          .lattice(lattice_, static_cast<float>(cpu::kOrientationStep),
                   static_cast<float>(cpu::kOrientationOffset))
          .chunk(first, n)
          .draw(runner, samples_target_, region);
    }
    const gl::Texture* samples = &samples_tex_;
    if (samples_linear_) {
      samples_linear_.copy_rows(samples_tex_, 0, sample_rows);
      runner.after_transfer();
      samples = &samples_linear_;
    }
    windows_.samples(*samples)
        .count(n)
        .candidates(candidates())
        .draw(runner, windows_target_, rows(n * window_texels()));
    const int first_row = first / kWidth, last_row = (first + n - 1) / kWidth;
    const gl::PassRunner::Region angle_rows{0, first_row, kWidth, last_row - first_row + 1};
    const float settled = static_cast<float>(cpu::kOrientationSettled),
                leap = static_cast<float>(cpu::kOrientationLeap);
    best_.windows(windows_tex_, candidates())
        .samples(*samples)
        .chunk(first, n)
        .recentring(cpu::kOrientationMaxSums, settled, leap);
    if (second_orientation()) {
      best_.second(peaks_[0], peaks_[1], config_.second_orientation,
                   static_cast<float>(cpu::kSecondSeparation));
    }
    best_.draw(runner, angles_target_, angle_rows);
  }
  gl::check_gl_errors("orientation");
}

void OrientationStage::set(gl::PassRunner& runner, const std::vector<float>& angles) {
  const int count = static_cast<int>(angles.size());
  GLSURF_EXPECTS(!config_.upright, "upright descriptors keep no angle (cpu::angles_problem)");
  GLSURF_EXPECTS(capacity_ > 0, "configure() before run()");
  GLSURF_EXPECTS(count <= capacity_, "more keypoints than configured");
  if (count == 0) return;
  std::vector<float> texels(static_cast<size_t>(kWidth) * angles_.height(), 0.0f);
  std::copy(angles.begin(), angles.end(), texels.begin());
  angles_.upload(texels.data());
  runner.after_transfer();
}

OrientationStage::SecondOrientations OrientationStage::second_orientations(int count) const {
  SecondOrientations second;
  if (!second_orientation() || count == 0) return second;
  const std::vector<float> angles = angles_target_.read_f32(1, 0, 0, kWidth, rows_for(count));
  for (int k = 0; k < count; ++k) {
    const float angle = angles[static_cast<size_t>(k)];
    if (angle < 0) continue;
    second.source.push_back(k);
    second.angle.push_back(angle);
  }
  return second;
}

std::vector<float> OrientationStage::read(int count) const {
  if (count == 0) return {};
  std::vector<float> angles = angles_target_.read_f32(0, 0, 0, kWidth, rows_for(count));
  angles.resize(static_cast<size_t>(count));
  return angles;
}

}  // namespace glsurf
