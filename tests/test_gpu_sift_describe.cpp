// GPU SIFT orientations and descriptors (sift::OrientationStage,
// sift::DescriptorStage) against the CPU reference, on the same inputs: the
// CPU's Gaussian pyramid uploaded into the atlas layout, the CPU's extrema
// as the point list (for the descriptors, each extremum at each of its CPU
// orientations as the oriented list).
//
// Tolerances. Orientations: per keypoint the same number of angles, each
// within 0.05 degrees of the CPU's, in the same order, for >= 99 % of
// keypoints. The GPU takes the CPU's steps in float in the same order, so an
// angle differs by rounding alone (measured on llvmpipe: at most 6.1e-5
// degrees), unless a gradient's direction lies within about 1e-5 of a bin
// (3.6e-4 degrees) of a rounding boundary (5 + 10 j degrees), where the
// GPU's atan and the CPU's atan2f can round it into neighbouring bins: a
// sample moves to the next bin and the peak's parabola with it. Measured:
// every angle beyond 0.001 degrees had such a sample in its window; of
// 7,388 keypoints (box, graf1 and a crop, noise, blob noise) all had the
// same number of angles and one was 0.063 degrees off, the next 0.017.
// Such a move can also lift a peak over or under 0.8 of the highest, or
// swap two peaks of nearly the same height: hence 99 %, not all.
// Descriptors (at the CPU's angles): per entry max |GPU - CPU| <= 1e-4 for
// >= 99 % of entries (measured: at most 3.5e-6, values being <= 0.2; a
// descriptor is continuous in its samples' directions and positions, so no
// boundary moves it by more than rounding; the margin is for GPUs whose
// atan, exp and division are a few ulp off), unit L2 length within 1e-4,
// and each GPU descriptor's nearest CPU descriptor is its own partner for
// >= 99 % (measured: all). RootSIFT the same.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "cpu/sift.hpp"
#include "gl/error.hpp"
#include "gl/pass.hpp"
#include "gl/shader_source.hpp"
#include "gl/shared_constants.hpp"
#include "gl/texture.hpp"
#include "io/image.hpp"
#include "sift/descriptor.hpp"
#include "sift/layout.hpp"
#include "sift/orientation.hpp"
#include "support.hpp"

using namespace glsurf;

namespace {

constexpr int kWidth = shader::kListWidth;
// Largest |GPU - CPU| of an angle counted as the same, degrees.
constexpr double kAngleTolerance = 0.05;
// Largest |GPU - CPU| of a descriptor value counted as the same.
constexpr double kValueTolerance = 1e-4;

GrayImage crop(const GrayImage& image, int x0, int y0, int width, int height) {
  GrayImage out(width, height);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) out.at(x, y) = image.at(x0 + x, y0 + y);
  }
  return out;
}

// The pyramid's Gaussian images in the atlas layout, packed as the scale
// space packs them (sift/layout.hpp: RGBA32F, four pixels to a texel).
gl::Texture gaussian_atlas(const cpu::sift::Pyramid& pyramid, const sift::AtlasLayout& layout) {
  std::vector<float> texels(static_cast<size_t>(layout.size.x) * layout.size.y, 0.0f);
  for (size_t k = 0; k < pyramid.octaves.size(); ++k) {
    for (int i = 0; i < pyramid.levels; ++i) {
      const glm::ivec4 r = layout.rect(static_cast<int>(k), i);
      const cpu::sift::Image& image = pyramid.gauss(static_cast<int>(k), i);
      REQUIRE(image.width == r.z);
      REQUIRE(image.height == r.w);
      for (int y = 0; y < r.w; ++y) {
        std::copy_n(&image.pixels[static_cast<size_t>(y) * r.z], r.z,
                    &texels[static_cast<size_t>(r.y + y) * layout.size.x + r.x]);
      }
    }
  }
  gl::Texture atlas(layout.size.x / sift::kPack, layout.size.y, gl::Format::RGBA32F, "test_sift_gaussian");
  atlas.upload(texels.data());
  return atlas;
}

// A list texture: entry i at texel i, 1024 wide, RGBA32F.
gl::Texture list_texture(const std::vector<float>& values, int capacity, const char* label) {
  const int rows = std::max(1, (capacity + kWidth - 1) / kWidth);
  std::vector<float> texels(static_cast<size_t>(kWidth) * rows * 4, 0.0f);
  std::copy(values.begin(), values.end(), texels.begin());
  gl::Texture t(kWidth, rows, gl::Format::RGBA32F, label);
  t.upload(texels.data());
  return t;
}

double angle_difference(double a, double b) {
  double d = std::fabs(a - b);
  return std::min(d, 360.0 - d);
}

struct Timing {
  double gpu_ms = 0, wall_ms = 0;
};

// Total time per pass of the runner's profile, by key prefix.
Timing take(gl::PassRunner& runner, const std::string& prefix) {
  Timing t;
  for (const auto& p : runner.take_profile()) {
    if (p.name.compare(0, prefix.size(), prefix) != 0) continue;
    t.gpu_ms += p.milliseconds;
    t.wall_ms += p.wall_milliseconds;
  }
  return t;
}

struct Case {
  std::string name;
  GrayImage image;
};

// Noise of side / 4 x side / 4 random levels, enlarged 4 times bilinearly:
// blobs of a few pixels at every scale SIFT looks at, so many keypoints.
GrayImage blob_noise(int width, int height, unsigned seed) {
  const int w = width / 4 + 2, h = height / 4 + 2;
  const GrayImage coarse = test::random_image(w, h, seed);
  GrayImage out(width, height);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      const double fx = x / 4.0, fy = y / 4.0;
      const int x0 = static_cast<int>(fx), y0 = static_cast<int>(fy);
      const double ax = fx - x0, ay = fy - y0;
      const double top = (1 - ax) * coarse.at(x0, y0) + ax * coarse.at(x0 + 1, y0);
      const double bottom = (1 - ax) * coarse.at(x0, y0 + 1) + ax * coarse.at(x0 + 1, y0 + 1);
      out.at(x, y) = static_cast<std::uint8_t>(std::lround((1 - ay) * top + ay * bottom));
    }
  }
  return out;
}

std::vector<Case> cases() {
  std::vector<Case> c;
  c.push_back({"box.png", load_gray(GLSURF_TEST_ASSET_DIR "/box.png")});
  const GrayImage graf = load_gray(GLSURF_TEST_ASSET_DIR "/graf1.png");
  c.push_back({"graf1 crop 320x256", crop(graf, 200, 150, 320, 256)});
  c.push_back({"graf1", graf});
  c.push_back({"noise 256x192", test::random_image(256, 192, 7)});
  c.push_back({"blob noise 512x384", blob_noise(512, 384, 11)});
  return c;
}

struct Totals {
  size_t keypoints = 0, same_count = 0, agree = 0;
  double max_difference = 0;  // over keypoints with the same count
  size_t entries = 0, within = 0, nearest_own = 0, unit = 0;
  double max_value_difference = 0;
};

// Orientations of the CPU's extrema of `image`, GPU and CPU.
void compare_orientations(const Case& c, const SiftConfig& config, Totals& totals) {
  const cpu::sift::Pyramid pyramid = cpu::sift::build_pyramid(c.image, config);
  const std::vector<cpu::sift::Extremum> extrema = cpu::sift::find_extrema(pyramid, config);
  REQUIRE(!extrema.empty());
  const int n = static_cast<int>(extrema.size());
  std::vector<float> points, scales;
  for (const cpu::sift::Extremum& e : extrema) {
    points.insert(points.end(), {e.x, e.y, e.sigma, e.value});
    scales.insert(scales.end(), {static_cast<float>(e.k), static_cast<float>(e.layer), e.scale_offset, 0.0f});
  }
  const sift::AtlasLayout layout = sift::atlas_layout(pyramid.octaves, pyramid.levels, sift::kPack);
  const gl::Texture atlas = gaussian_atlas(pyramid, layout);
  const gl::Texture point_list = list_texture(points, n, "test_sift_points");
  const gl::Texture scale_list = list_texture(scales, n, "test_sift_scales");

  gl::PassRunner runner;
  runner.set_check_every_pass(true);
  sift::OrientationStage stage(gl::ShaderSource::from_environment(), config);
  stage.configure(n);
  stage.run(runner, atlas, layout, point_list, scale_list, n);  // warm-up: compiles, first touches
  runner.set_profiling(true, true);
  stage.run(runner, atlas, layout, point_list, scale_list, n);
  const Timing time = take(runner, "sift_orientation");
  runner.set_profiling(false);
  const std::vector<float> gpu = stage.read(n);

  size_t same_count = 0, agree = 0;
  double max_difference = 0;
  for (int i = 0; i < n; ++i) {
    const std::vector<float> cpu = cpu::sift::orientations(pyramid, extrema[static_cast<size_t>(i)]);
    std::vector<float> mine;
    for (int j = 0; j < 4; ++j) {
      const float a = gpu[static_cast<size_t>(i) * 4 + j];
      if (a >= 0) mine.push_back(a);
    }
    if (mine.size() != cpu.size()) continue;
    ++same_count;
    double worst = 0;
    for (size_t j = 0; j < cpu.size(); ++j) worst = std::max(worst, angle_difference(mine[j], cpu[j]));
    max_difference = std::max(max_difference, worst);
    agree += worst <= kAngleTolerance;
  }
  std::printf(
      "sift orientation %s: %d keypoints, same count %zu, within %.2f deg %zu (%.2f %%), max diff %.3g "
      "deg; %.2f ms (timer %.2f ms)\n",
      c.name.c_str(), n, same_count, kAngleTolerance, agree, 100.0 * agree / n, max_difference, time.wall_ms,
      time.gpu_ms);
  totals.keypoints += n;
  totals.same_count += same_count;
  totals.agree += agree;
  totals.max_difference = std::max(totals.max_difference, max_difference);
}

void compare_descriptors(const Case& c, const SiftConfig& config, Totals& totals) {
  const cpu::sift::Pyramid pyramid = cpu::sift::build_pyramid(c.image, config);
  const std::vector<cpu::sift::Extremum> extrema = cpu::sift::find_extrema(pyramid, config);
  REQUIRE(!extrema.empty());
  // Every extremum at each of its CPU orientations.
  std::vector<const cpu::sift::Extremum*> of;
  std::vector<float> angle, points, scales;
  for (const cpu::sift::Extremum& e : extrema) {
    for (const float a : cpu::sift::orientations(pyramid, e)) {
      of.push_back(&e);
      angle.push_back(a);
      points.insert(points.end(), {e.x, e.y, e.sigma, a});
      scales.insert(scales.end(),
                    {static_cast<float>(e.k), static_cast<float>(e.layer), e.scale_offset, 0.0f});
    }
  }
  const int n = static_cast<int>(of.size());
  REQUIRE(n > 0);
  const sift::AtlasLayout layout = sift::atlas_layout(pyramid.octaves, pyramid.levels, sift::kPack);
  const gl::Texture atlas = gaussian_atlas(pyramid, layout);
  const gl::Texture point_list = list_texture(points, n, "test_sift_oriented");
  const gl::Texture scale_list = list_texture(scales, n, "test_sift_scales");

  gl::PassRunner runner;
  runner.set_check_every_pass(true);
  sift::DescriptorStage stage(gl::ShaderSource::from_environment(), config);
  stage.configure(n);
  stage.run(runner, atlas, layout, point_list, scale_list, n);
  runner.set_profiling(true, true);
  stage.run(runner, atlas, layout, point_list, scale_list, n);
  std::vector<gl::PassRunner::PassTime> profile = runner.take_profile();
  runner.set_profiling(false);
  const std::vector<float> gpu = stage.read(n);

  constexpr int kSize = cpu::sift::kDescriptorSize;
  std::vector<float> cpu(static_cast<size_t>(n) * kSize);
  for (int i = 0; i < n; ++i) {
    cpu::sift::describe(pyramid, *of[static_cast<size_t>(i)], angle[static_cast<size_t>(i)], config.root_sift,
                        &cpu[static_cast<size_t>(i) * kSize]);
  }
  size_t within = 0, nearest_own = 0, unit = 0;
  double max_value_difference = 0;
  for (int i = 0; i < n; ++i) {
    const float* g = &gpu[static_cast<size_t>(i) * kSize];
    const float* r = &cpu[static_cast<size_t>(i) * kSize];
    double worst = 0, length = 0, own = 0;
    for (int j = 0; j < kSize; ++j) {
      worst = std::max(worst, static_cast<double>(std::fabs(g[j] - r[j])));
      length += static_cast<double>(g[j]) * g[j];
      own += (static_cast<double>(g[j]) - r[j]) * (static_cast<double>(g[j]) - r[j]);
    }
    max_value_difference = std::max(max_value_difference, worst);
    within += worst <= kValueTolerance;
    unit += std::fabs(std::sqrt(length) - 1.0) <= 1e-4;
    // The nearest CPU descriptor (a tie with the own counts as own).
    bool nearest = true;
    for (int m = 0; m < n && nearest; ++m) {
      if (m == i) continue;
      const float* o = &cpu[static_cast<size_t>(m) * kSize];
      double d = 0;
      for (int j = 0; j < kSize && d < own; ++j) d += (static_cast<double>(g[j]) - o[j]) * (g[j] - o[j]);
      nearest = d >= own;
    }
    nearest_own += nearest;
  }
  std::string passes;
  for (const auto& p : profile) {
    char line[128];
    std::snprintf(line, sizeof line, " %s %.2f ms (timer %.2f)", p.name.c_str(), p.wall_milliseconds,
                  p.milliseconds);
    passes += line;
  }
  std::printf(
      "sift descriptor%s %s: %d entries, max |diff| %.3g, within %.0e %zu (%.2f %%), nearest own %zu "
      "(%.2f %%), unit %zu;%s\n",
      config.root_sift ? " (RootSIFT)" : "", c.name.c_str(), n, max_value_difference, kValueTolerance, within,
      100.0 * within / n, nearest_own, 100.0 * nearest_own / n, unit, passes.c_str());
  totals.entries += n;
  totals.within += within;
  totals.nearest_own += nearest_own;
  totals.unit += unit;
  totals.max_value_difference = std::max(totals.max_value_difference, max_value_difference);
}

// Extrema made up at random over every octave of `pyramid`: any position
// (the border's too: windows clipped by the image, and on the coarsest
// octaves the descriptor's radius held to the image's diagonal), layer and
// sigma in the range find_extrema gives.
std::vector<cpu::sift::Extremum> made_up_extrema(const cpu::sift::Pyramid& pyramid, const SiftConfig& config,
                                                 int count, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  std::vector<cpu::sift::Extremum> extrema;
  const int s = config.n_octave_layers;
  for (int i = 0; i < count; ++i) {
    cpu::sift::Extremum e;
    e.k = static_cast<int>(unit(rng) * pyramid.octaves.size()) % static_cast<int>(pyramid.octaves.size());
    const cpu::sift::OctaveSize& octave = pyramid.octaves[static_cast<size_t>(e.k)];
    e.layer = 1 + static_cast<int>(unit(rng) * s) % s;
    e.scale_offset = unit(rng) - 0.5f;
    e.sigma = static_cast<float>(config.sigma * std::pow(2.0, (e.layer + e.scale_offset) / s));
    e.x = unit(rng) * (octave.width - 1);
    e.y = unit(rng) * (octave.height - 1);
    e.px = static_cast<int>(std::lround(e.x));
    e.py = static_cast<int>(std::lround(e.y));
    e.value = 0.1f;
    extrema.push_back(e);
  }
  return extrema;
}

// The GPU's orientations (4 per entry) and descriptors (128 per entry) of
// `extrema` at `angles` (one per extremum).
struct GpuResults {
  std::vector<float> orientations, descriptors;
};
GpuResults run_both(const cpu::sift::Pyramid& pyramid, const SiftConfig& config,
                    const std::vector<cpu::sift::Extremum>& extrema, const std::vector<float>& angles) {
  const int n = static_cast<int>(extrema.size());
  std::vector<float> points, oriented, scales;
  for (size_t i = 0; i < extrema.size(); ++i) {
    const cpu::sift::Extremum& e = extrema[i];
    points.insert(points.end(), {e.x, e.y, e.sigma, e.value});
    oriented.insert(oriented.end(), {e.x, e.y, e.sigma, angles[i]});
    scales.insert(scales.end(), {static_cast<float>(e.k), static_cast<float>(e.layer), e.scale_offset, 0.0f});
  }
  const sift::AtlasLayout layout = sift::atlas_layout(pyramid.octaves, pyramid.levels, sift::kPack);
  const gl::Texture atlas = gaussian_atlas(pyramid, layout);
  const gl::Texture point_list = list_texture(points, n, "test_sift_points");
  const gl::Texture oriented_list = list_texture(oriented, n, "test_sift_oriented");
  const gl::Texture scale_list = list_texture(scales, n, "test_sift_scales");
  gl::PassRunner runner;
  runner.set_check_every_pass(true);
  const gl::ShaderSource shaders = gl::ShaderSource::from_environment();
  sift::OrientationStage orientation(shaders, config);
  sift::DescriptorStage descriptor(shaders, config);
  orientation.configure(n + 100);
  descriptor.configure(n + 100);
  orientation.run(runner, atlas, layout, point_list, scale_list, n);
  descriptor.run(runner, atlas, layout, oriented_list, scale_list, n);
  return {orientation.read(n), descriptor.read(n)};
}

}  // namespace

TEST_SUITE("gl") {
  TEST_CASE("GPU SIFT orientations agree with the CPU reference") {
    test::headless_context();
    SiftConfig config;
    Totals totals;
    for (const Case& c : cases()) {
      CAPTURE(c.name);
      compare_orientations(c, config, totals);
    }
    REQUIRE(totals.keypoints > 500);
    CHECK(totals.same_count >= 0.99 * totals.keypoints);
    CHECK(totals.agree >= 0.99 * totals.keypoints);
  }

  TEST_CASE("GPU SIFT descriptors agree with the CPU reference, and RootSIFT") {
    test::headless_context();
    for (const bool root : {false, true}) {
      CAPTURE(root);
      SiftConfig config;
      config.root_sift = root;
      Totals totals;
      for (const Case& c : cases()) {
        CAPTURE(c.name);
        compare_descriptors(c, config, totals);
      }
      REQUIRE(totals.entries > 500);
      CHECK(totals.within >= 0.99 * totals.entries);
      CHECK(totals.nearest_own >= 0.99 * totals.entries);
      CHECK(totals.unit == totals.entries);
    }
  }

  TEST_CASE(
      "GPU SIFT orientations and descriptors of made-up extrema: borders, the coarsest octaves, flat "
      "patches, angles around 0") {
    test::headless_context();
    SiftConfig config;
    // 64 x 48, doubled: octaves of 128 x 96 down to 4 x 3. Its left half
    // flat: no gradient, so no orientation and an all-zero descriptor.
    GrayImage image = blob_noise(64, 48, 5);
    for (int y = 0; y < image.height; ++y) {
      for (int x = 0; x < 24; ++x) image.at(x, y) = 100;
    }
    const cpu::sift::Pyramid pyramid = cpu::sift::build_pyramid(image, config);
    REQUIRE(pyramid.octaves.back().width <= 4);
    std::vector<cpu::sift::Extremum> extrema = made_up_extrema(pyramid, config, 3000, 9);
    // In the flat part of octave 0, window and all (pixels 0 .. 47 of 128).
    cpu::sift::Extremum flat = extrema.front();
    flat.k = 0;
    flat.layer = 1;
    flat.scale_offset = 0;
    flat.sigma = config.sigma * std::pow(2.0f, 1.0f / config.n_octave_layers);
    flat.x = 20.3f;
    flat.y = 40.6f;
    extrema.push_back(flat);
    // Windows larger than the octave: every pixel of it taken.
    for (const float sigma : {40.0f, 1e20f}) {
      cpu::sift::Extremum huge = extrema[1];
      huge.k = 1;
      huge.sigma = sigma;
      extrema.push_back(huge);
    }
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> degrees(0.0f, 360.0f);
    std::vector<float> angles;
    for (size_t i = 0; i < extrema.size(); ++i) {
      // Every tenth just above 0 or just below 360.
      angles.push_back(i % 10 == 0 ? (i % 20 == 0 ? 1e-4f : 359.9999f) : degrees(rng));
    }
    const GpuResults gpu = run_both(pyramid, config, extrema, angles);
    const int n = static_cast<int>(extrema.size());
    constexpr int kSize = cpu::sift::kDescriptorSize;
    int same = 0, described = 0, none = 0, zero = 0;
    std::array<int, 5> counts{};
    for (int i = 0; i < n; ++i) {
      const cpu::sift::Extremum& e = extrema[static_cast<size_t>(i)];
      const std::vector<float> cpu = cpu::sift::orientations(pyramid, e);
      counts[cpu.size()] += 1;
      std::vector<float> mine;
      for (int j = 0; j < 4; ++j) {
        if (gpu.orientations[static_cast<size_t>(i) * 4 + j] >= 0)
          mine.push_back(gpu.orientations[i * 4 + j]);
      }
      bool agree = mine.size() == cpu.size();
      for (size_t j = 0; agree && j < cpu.size(); ++j)
        agree = angle_difference(mine[j], cpu[j]) <= kAngleTolerance;
      same += agree;
      none += cpu.empty() && mine.empty();
      float reference[kSize];
      cpu::sift::describe(pyramid, e, angles[static_cast<size_t>(i)], config.root_sift, reference);
      const float* values = &gpu.descriptors[static_cast<size_t>(i) * kSize];
      double worst = 0;
      bool all_zero = true;
      for (int j = 0; j < kSize; ++j) {
        worst = std::max(worst, static_cast<double>(std::fabs(values[j] - reference[j])));
        all_zero = all_zero && reference[j] == 0.0f;
      }
      described += worst <= kValueTolerance;
      if (all_zero) {
        ++zero;
        CHECK(std::all_of(values, values + kSize, [](float v) { return v == 0.0f; }));
      }
    }
    std::printf(
        "sift made-up extrema: %d, orientations agree %d, none on both %d, CPU counts 0..4: %d %d %d %d %d; "
        "descriptors within %.0e %d, all-zero %d\n",
        n, same, none, counts[0], counts[1], counts[2], counts[3], counts[4], kValueTolerance, described,
        zero);
    CHECK(same >= 0.99 * n);
    CHECK(described >= 0.99 * n);
    CHECK(none >= 1);                  // the flat one at least
    for (int i = n - 2; i < n; ++i) {  // the huge ones, here alike
      CHECK(!cpu::sift::orientations(pyramid, extrema[static_cast<size_t>(i)]).empty());
    }
    CHECK(zero >= 1);
  }

  TEST_CASE("GPU SIFT stages: no entries, and a stage configured again") {
    test::headless_context();
    SiftConfig config;
    const cpu::sift::Pyramid pyramid = cpu::sift::build_pyramid(blob_noise(96, 80, 2), config);
    const std::vector<cpu::sift::Extremum> extrema = made_up_extrema(pyramid, config, 40, 4);
    const sift::AtlasLayout layout = sift::atlas_layout(pyramid.octaves, pyramid.levels, sift::kPack);
    const gl::Texture atlas = gaussian_atlas(pyramid, layout);
    std::vector<float> points, scales;
    for (const cpu::sift::Extremum& e : extrema) {
      points.insert(points.end(), {e.x, e.y, e.sigma, 30.0f});
      scales.insert(scales.end(),
                    {static_cast<float>(e.k), static_cast<float>(e.layer), e.scale_offset, 0.0f});
    }
    const gl::Texture point_list = list_texture(points, 40, "test_sift_points");
    const gl::Texture scale_list = list_texture(scales, 40, "test_sift_scales");
    gl::PassRunner runner;
    runner.set_check_every_pass(true);
    sift::OrientationStage orientation(gl::ShaderSource::from_environment(), config);
    sift::DescriptorStage descriptor(gl::ShaderSource::from_environment(), config);
    CHECK_THROWS(orientation.run(runner, atlas, layout, point_list, scale_list, 1));  // not configured
    orientation.configure(5000);
    descriptor.configure(5000);
    orientation.run(runner, atlas, layout, point_list, scale_list, 0);
    descriptor.run(runner, atlas, layout, point_list, scale_list, 0);
    CHECK(orientation.read(0).empty());
    CHECK(descriptor.read(0).empty());
    orientation.run(runner, atlas, layout, point_list, scale_list, 40);
    descriptor.run(runner, atlas, layout, point_list, scale_list, 40);
    const std::vector<float> angles = orientation.read(40), values = descriptor.read(40);
    orientation.configure(40);
    descriptor.configure(40);
    CHECK_THROWS(descriptor.run(runner, atlas, layout, point_list, scale_list, 41));
    orientation.run(runner, atlas, layout, point_list, scale_list, 40);
    descriptor.run(runner, atlas, layout, point_list, scale_list, 40);
    CHECK(orientation.read(40) == angles);
    CHECK(descriptor.read(40) == values);
    // Drawn in bands of rows (PassRunner::set_max_draw_work): the same.
    runner.set_max_draw_work(1 << 16);
    const std::uint64_t draws = runner.draws_issued();
    orientation.run(runner, atlas, layout, point_list, scale_list, 40);
    descriptor.run(runner, atlas, layout, point_list, scale_list, 40);
    CHECK(runner.draws_issued() - draws > 4);
    CHECK(orientation.read(40) == angles);
    CHECK(descriptor.read(40) == values);
  }
}
