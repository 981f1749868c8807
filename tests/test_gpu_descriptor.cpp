// GPU descriptors against the CPU reference: detection and description,
// compute() of given keypoints (across chunks, at kept angles, at the edge of
// the clipping-free part, on tiny images), extended and upright descriptors,
// the 2-D quads, and a host's GL state.
//
// Tolerances (issue 4): descriptor cosine >= 0.999 for 99 % of keypoints;
// every descriptor of unit length (1e-4: float32 normalisation); nearest
// neighbour of each GPU descriptor among the CPU ones is its own
// counterpart for >= 99 %. compare() (describe_support.hpp) holds the
// orientations of the same keypoints to test_gpu_orientation.cpp's
// tolerances as well: RMS <= 0.01 degrees over the keypoints whose CPU
// window maximum is unambiguous, at most 1 in 1,000 of them beyond 0.05
// degrees.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "cpu/descriptor.hpp"
#include "cpu/detector.hpp"
#include "describe_support.hpp"
#include "gl/error.hpp"
#include "gl/gl.hpp"
#include "support.hpp"
#include "surf/detector.hpp"

using namespace glsurf;
using test::compare;
using test::dot;

TEST_SUITE("gl") {
  TEST_CASE("GPU descriptors and orientations of linear ramps follow from SURF's definition") {
    test::check_ramp_descriptors(
        [](const GrayImage& image, const std::vector<KeyPoint>& k, const DetectorConfig& config) {
          return GpuDetector(test::headless_context(), config).compute(image, k);
        },
        1e-5);
  }

  TEST_CASE("GPU descriptors do not change under I -> a I + b") {
    GrayImage j = load_gray(GLSURF_TEST_ASSET_DIR "/box.png");
    for (auto& p : j.pixels) p = static_cast<std::uint8_t>(p / 2);
    GrayImage k = j;
    for (auto& p : k.pixels) p = static_cast<std::uint8_t>(2 * p + 10);  // integers, no clipping
    DetectorConfig cj, ck;
    cj.hessian_threshold = 25;
    ck.hessian_threshold = 100;  // det scales by a^2 = 4
    GpuDetector dj(test::headless_context(), cj), dk(test::headless_context(), ck);
    const Features fj = dj.detect_and_compute(j), fk = dk.detect_and_compute(k);
    REQUIRE(fj.keypoints.size() > 100);
    REQUIRE(fj.keypoints.size() == fk.keypoints.size());
    int same = 0;
    for (size_t i = 0; i < fj.keypoints.size(); ++i)
      same += dot(fj.descriptor(i), fk.descriptor(i), 64) >= 0.999;
    CHECK(same == static_cast<int>(fj.keypoints.size()));
  }

  TEST_CASE("GPU orientation and 64-value descriptors agree with the CPU reference") {
    compare(load_gray(GLSURF_TEST_ASSET_DIR "/box.png"), DetectorConfig{});
    compare(load_gray(GLSURF_TEST_ASSET_DIR "/graf1.png"), DetectorConfig{});
  }
  // A host drawing into glsurf's context may leave any GL state behind. Each
  // of these would change what some pass writes (blending adds to the targets,
  // the scissor box, colour mask, culling, wireframe polygons and discard keep
  // texels from being written, the logic op garbles the integer targets, the
  // point size widens the selection's histogram points, the depth range moves
  // the culled passes' depth; a sampler object filters the integer textures
  // into incompleteness; a row length, skip, byte swap, read clamp or bound
  // pixel buffer changes uploads and readbacks). glsurf must give the same result as from GL's
  // defaults, and leave the host's state as it found it.
  TEST_CASE("the host's GL state changes neither the result nor survives it") {
    DetectorConfig config;
    config.max_features = 300;  // the radix selection scatters points
    const GrayImage image = test::random_image(200, 150, 4);
    const Features clean = GpuDetector(test::headless_context(), config).detect_and_compute(image);
    REQUIRE(clean.keypoints.size() == 300);

    GLuint buffers[2] = {0, 0};
    glGenBuffers(2, buffers);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, buffers[0]);
    glBufferData(GL_PIXEL_UNPACK_BUFFER, 1 << 20, nullptr, GL_STREAM_DRAW);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, buffers[1]);
    glBufferData(GL_PIXEL_PACK_BUFFER, 1 << 20, nullptr, GL_STREAM_READ);
    struct Defaults {  // GL's initial state again, whatever happens below
      GLuint* buffers;
      ~Defaults() {
        for (GLenum cap :
             {GL_BLEND, GL_SCISSOR_TEST, GL_CULL_FACE, GL_COLOR_LOGIC_OP, GL_DEPTH_TEST, GL_STENCIL_TEST,
              GL_POLYGON_OFFSET_FILL, GL_PROGRAM_POINT_SIZE, GL_RASTERIZER_DISCARD})
          glDisable(cap);
        glBlendFunc(GL_ONE, GL_ZERO);
        glBlendEquation(GL_FUNC_ADD);
        glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
        glPolygonMode(GL_FRONT_AND_BACK, GL_FILL);
        glPointSize(1);
        glDepthRange(0, 1);
        glDepthFunc(GL_LESS);
        glDepthMask(GL_TRUE);
        glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
        glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
        glPixelStorei(GL_PACK_ALIGNMENT, 4);
        glPixelStorei(GL_PACK_SKIP_PIXELS, 0);
        glPixelStorei(GL_UNPACK_SWAP_BYTES, GL_FALSE);
        glPixelStorei(GL_PACK_SWAP_BYTES, GL_FALSE);
        glClampColor(GL_CLAMP_READ_COLOR, GL_FIXED_ONLY);
        for (GLuint unit = 0; unit < 4; ++unit) glBindSampler(unit, 0);
        glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
        glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
        glDeleteBuffers(2, buffers);
      }
    } defaults{buffers};
    for (GLenum cap : {GL_BLEND, GL_SCISSOR_TEST, GL_CULL_FACE, GL_COLOR_LOGIC_OP, GL_DEPTH_TEST,
                       GL_STENCIL_TEST, GL_POLYGON_OFFSET_FILL, GL_PROGRAM_POINT_SIZE})
      glEnable(cap);
    glBlendFunc(GL_ONE, GL_ONE);
    glBlendEquation(GL_FUNC_REVERSE_SUBTRACT);
    glScissor(0, 0, 3, 3);
    glCullFace(GL_FRONT_AND_BACK);
    glLogicOp(GL_XOR);
    glColorMask(GL_TRUE, GL_FALSE, GL_TRUE, GL_FALSE);
    glPolygonMode(GL_FRONT_AND_BACK, GL_LINE);
    glPointSize(4);
    glDepthRange(0, 0);
    glDepthFunc(GL_NEVER);
    glDepthMask(GL_FALSE);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 8);
    glPixelStorei(GL_UNPACK_ROW_LENGTH, 7);
    glPixelStorei(GL_PACK_ALIGNMENT, 8);
    glPixelStorei(GL_PACK_SKIP_PIXELS, 2);
    glPixelStorei(GL_UNPACK_SWAP_BYTES, GL_TRUE);
    glPixelStorei(GL_PACK_SWAP_BYTES, GL_TRUE);
    glClampColor(GL_CLAMP_READ_COLOR, GL_TRUE);  // float readbacks clamped to [0, 1]
    GLuint sampler = 0;                          // linear filtering on the first units
    glGenSamplers(1, &sampler);
    glSamplerParameteri(sampler, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
    glSamplerParameteri(sampler, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    for (GLuint unit = 0; unit < 4; ++unit) glBindSampler(unit, sampler);
    REQUIRE(glGetError() == GL_NO_ERROR);

    // A detector made under that state, used under it, and again with the
    // rasteriser discarding everything (each pass turns that off too).
    GpuDetector detector(test::headless_context(), config);
    for (const bool discard : {false, true}) {
      if (discard) glEnable(GL_RASTERIZER_DISCARD);
      const Features hostile = detector.detect_and_compute(image);
      INFO("rasteriser discard " << discard);
      REQUIRE(hostile.keypoints.size() == clean.keypoints.size());
      int same = 0;
      for (size_t i = 0; i < clean.keypoints.size(); ++i) {
        const KeyPoint &a = clean.keypoints[i], &b = hostile.keypoints[i];
        same +=
            a.x == b.x && a.y == b.y && a.size == b.size && a.angle == b.angle && a.response == b.response;
      }
      CHECK(same == static_cast<int>(clean.keypoints.size()));
      CHECK(hostile.descriptors == clean.descriptors);
    }

    // ... and it is all still there.
    for (GLenum cap : {GL_BLEND, GL_SCISSOR_TEST, GL_CULL_FACE, GL_COLOR_LOGIC_OP, GL_DEPTH_TEST,
                       GL_STENCIL_TEST, GL_POLYGON_OFFSET_FILL, GL_PROGRAM_POINT_SIZE, GL_RASTERIZER_DISCARD})
      CHECK(glIsEnabled(cap) == GL_TRUE);
    GLint v[4] = {0, 0, 0, 0};
    glGetIntegerv(GL_BLEND_DST_RGB, v);
    CHECK(v[0] == GL_ONE);
    glGetIntegerv(GL_BLEND_EQUATION_RGB, v);
    CHECK(v[0] == GL_FUNC_REVERSE_SUBTRACT);
    glGetIntegerv(GL_DEPTH_FUNC, v);
    CHECK(v[0] == GL_NEVER);
    glGetIntegerv(GL_POLYGON_MODE, v);
    CHECK(v[0] == GL_LINE);
    GLboolean mask[4] = {0, 0, 0, 0}, depth_mask = GL_TRUE;
    glGetBooleanv(GL_COLOR_WRITEMASK, mask);
    CHECK((mask[0] && !mask[1] && mask[2] && !mask[3]));
    glGetBooleanv(GL_DEPTH_WRITEMASK, &depth_mask);
    CHECK(depth_mask == GL_FALSE);
    GLfloat point_size = 0, depth_range[2] = {1, 1};
    glGetFloatv(GL_POINT_SIZE, &point_size);
    glGetFloatv(GL_DEPTH_RANGE, depth_range);
    CHECK(point_size == 4);
    CHECK(depth_range[1] == 0);
    glGetIntegerv(GL_UNPACK_ROW_LENGTH, v);
    CHECK(v[0] == 7);
    glGetIntegerv(GL_PACK_SKIP_PIXELS, v);
    CHECK(v[0] == 2);
    glGetIntegerv(GL_PIXEL_UNPACK_BUFFER_BINDING, v);
    CHECK(v[0] == static_cast<GLint>(buffers[0]));
    glGetIntegerv(GL_PIXEL_PACK_BUFFER_BINDING, v);
    CHECK(v[0] == static_cast<GLint>(buffers[1]));
    glGetIntegerv(GL_UNPACK_SWAP_BYTES, v);
    CHECK(v[0] == GL_TRUE);
    glGetIntegerv(GL_CLAMP_READ_COLOR, v);
    CHECK(v[0] == GL_TRUE);
    glActiveTexture(GL_TEXTURE2);
    glGetIntegerv(GL_SAMPLER_BINDING, v);
    glActiveTexture(GL_TEXTURE0);
    CHECK(v[0] == static_cast<GLint>(sampler));
    CHECK_NOTHROW(gl::check_gl_errors("end of test"));
    for (GLuint unit = 0; unit < 4; ++unit) glBindSampler(unit, 0);
    glDeleteSamplers(1, &sampler);
  }

  TEST_CASE(
      "the 2-D quads (images too large for the driver's buffer textures) agree with the CPU reference") {
    compare(load_gray(GLSURF_TEST_ASSET_DIR "/box.png"), DetectorConfig{}, 0);
    DetectorConfig extended;
    extended.extended = true;
    compare(load_gray(GLSURF_TEST_ASSET_DIR "/graf1.png"), extended, 0);
    // The GL 3.3 minimum, 65,536 texels: box.png's quads, 326 x 225 = 73,350
    // texels, do not fit, so the stage picks the 2-D path by itself.
    compare(load_gray(GLSURF_TEST_ASSET_DIR "/box.png"), DetectorConfig{}, 65536);
  }

  TEST_CASE("GPU extended (128) and upright descriptors agree with the CPU reference") {
    DetectorConfig extended;
    extended.extended = true;
    compare(load_gray(GLSURF_TEST_ASSET_DIR "/box.png"), extended);
    DetectorConfig upright;
    upright.upright = true;
    compare(load_gray(GLSURF_TEST_ASSET_DIR "/box.png"), upright);
  }

  // GpuDetector::compute against cpu::compute, on the same given keypoints, every
  // keypoint paired by its index: the tolerances, and with `tight`
  // those of compare() (describe_support.hpp).
  // `count` keypoints spread over a 48 x 48 image, a size's width from its
  // border (sizes 9 to 20), with both Laplacian signs and angles around the
  // circle (which only Angles::Keep uses).
  std::vector<KeyPoint> placed_on_48(size_t count) {
    std::vector<KeyPoint> placed(count);
    for (size_t i = 0; i < count; ++i) {
      const float size = 9.0f + static_cast<float>(i % 12), span = 47.0f - 2 * size;
      placed[i].x = size + span * static_cast<float>((i * 37) % 1000) / 1000.0f;
      placed[i].y = size + span * static_cast<float>((i * 53) % 1000) / 1000.0f;
      placed[i].size = size;
      placed[i].laplacian = i % 2 ? 1 : -1;
      placed[i].angle = static_cast<float>((i * 71) % 3600) / 10.0f;
    }
    return placed;
  }

  void compare_given(const GrayImage& image, const std::vector<KeyPoint>& given, const DetectorConfig& config,
                     GpuDetector& detector, bool tight) {
    const Features gpu = detector.compute(image, given);
    const Features cpu = cpu::compute(image, given, config);
    const cpu::IntegralImage integral = cpu::integral_image(image);
    const int n = descriptor_size(config);
    REQUIRE(gpu.keypoints.size() == given.size());
    REQUIRE(gpu.descriptors.size() == given.size() * static_cast<size_t>(n));
    int kept = 0, close = 0, unambiguous = 0, far = 0;
    double squared_angle_error = 0;
    for (size_t i = 0; i < given.size(); ++i) {
      const KeyPoint &g = gpu.keypoints[i], &k = given[i];
      kept += g.x == k.x && g.y == k.y && g.size == k.size && g.response == k.response &&
              g.laplacian == k.laplacian;
      close += dot(gpu.descriptor(i), cpu.descriptor(i), n) >= 0.999;
      if (config.upright) continue;
      // Among as many candidates as the configuration's (cpu::orientation_candidates).
      const cpu::Orientation o = cpu::orientation(integral, given[i], true, config.second_orientation);
      if (o.runner_up < 0.999f * o.strength) {
        ++unambiguous;
        const double e = std::remainder(g.angle - cpu.keypoints[i].angle, 360.0);
        squared_angle_error += e * e;
        far += std::abs(e) > 0.05;
      }
    }
    const double rms = unambiguous ? std::sqrt(squared_angle_error / unambiguous) : 0.0;
    MESSAGE(given.size() << " given keypoints: cos>=0.999 " << close << ", unambiguous " << unambiguous
                         << ", orientation RMS " << rms << " deg, " << far << " beyond 0.05 deg");
    CHECK(kept == static_cast<int>(given.size()));
    CHECK(close >= 0.99 * given.size());
    CHECK(rms <= 0.5);
    if (tight) {
      CHECK(rms <= 0.01);
      CHECK(far * 1000 <= unambiguous);
    }
  }

  TEST_CASE("GPU compute() of given keypoints agrees with the CPU reference, on a photo and across chunks") {
    const GrayImage box = load_gray(GLSURF_TEST_ASSET_DIR "/box.png");
    std::vector<KeyPoint> given = cpu::detect(box, DetectorConfig{});
    // Hand-placed: the image's corners, very small and very large, no laplacian.
    for (const auto& [x, y, size] : {std::array<float, 3>{-0.5f, -0.5f, 9.0f},
                                     {323.5f, 222.5f, 40.0f},
                                     {161.3f, 111.8f, 400.0f},
                                     {100.25f, 50.5f, 1.0f}}) {
      KeyPoint k;
      k.x = x, k.y = y, k.size = size;
      given.push_back(k);
    }
    // With second orientations configured, the one orientation compute() gives
    // is sought among 64 candidates, as detection's first, on both backends.
    for (const auto& [extended, second] : {std::pair{false, 0.0f}, {true, 0.0f}, {false, 0.8f}}) {
      DetectorConfig config;
      config.extended = extended;
      config.second_orientation = second;
      GpuDetector detector(test::headless_context(), config);
      detector.runner().set_check_every_pass(true);
      compare_given(box, given, config, detector, /*tight=*/true);
    }
    // A 48 x 48 image: the point list, and so a chunk of compute(), holds
    // fewer entries than the 5,000 keypoints given. They keep a size's width
    // from the border, so that (as for detected keypoints) their orientation
    // samples lie inside the image. Where the border clips them, the
    // recentring may not settle on hand-placed points, and float32 and float64
    // can stop at different points: 8 of 5,000 placed anywhere in this image
    // differed by 0.8 to 8 degrees, or by 177 where a runner-up came within
    // 2 % (docs/notes/descriptor.md). Inside, 5 of the 4,848
    // unambiguous ones differ by more than 0.05 degrees (RMS 0.016): points
    // placed at random on noise are less well conditioned than detected ones,
    // so the tolerances apply here, not compare()'s tighter ones.
    const GrayImage noise = test::random_image(48, 48, 5);
    DetectorConfig config;
    GpuDetector detector(test::headless_context(), config);
    detector.detect(noise);
    CHECK(detector.last_on_gpu().angles == nullptr);  // detect() orients nothing
    const gl::Texture& list = *detector.last_on_gpu().list;
    INFO("point list " << list.width() << " x " << list.height());
    REQUIRE(list.width() * list.height() < 5000);
    const std::vector<KeyPoint> random = placed_on_48(5000);
    compare_given(noise, random, config, detector, /*tight=*/false);
    CHECK(detector.last_on_gpu().count == 0);
    CHECK(detector.last_on_gpu().angles == nullptr);
  }

  // Kept angles (Angles::Keep) skip the orientation passes: the GPU's
  // descriptors at given angles, against the CPU's at the same angles.
  void compare_kept(const GrayImage& image, const std::vector<KeyPoint>& given, const DetectorConfig& config,
                    GpuDetector& detector) {
    const Features gpu = detector.compute(image, given, Angles::Keep);
    const Features cpu = cpu::compute(image, given, config, Angles::Keep);
    const int n = descriptor_size(config);
    REQUIRE(gpu.keypoints.size() == given.size());
    REQUIRE(gpu.descriptors.size() == given.size() * static_cast<size_t>(n));
    int kept = 0, close = 0;
    double lowest = 1;
    for (size_t i = 0; i < given.size(); ++i) {
      const KeyPoint &g = gpu.keypoints[i], &k = given[i];
      kept += g.x == k.x && g.y == k.y && g.size == k.size && g.angle == k.angle &&
              cpu.keypoints[i].angle == k.angle;
      const double c = dot(gpu.descriptor(i), cpu.descriptor(i), n);
      close += c >= 0.999;
      lowest = std::min(lowest, c);
    }
    MESSAGE(given.size() << " keypoints at kept angles: cos>=0.999 " << close << ", largest 1 - cos "
                         << 1 - lowest);
    CHECK(kept == static_cast<int>(given.size()));
    // Every one: the 1 % that compare_given allows is for orientations that
    // rounding can tip, and a kept angle has none to tip.
    CHECK(close == static_cast<int>(given.size()));
  }

  // The descriptor pass takes a keypoint's Haar responses without clipping
  // where its turned 20s window keeps a pixel clear of the border
  // (descriptor.frag, window_inside). At keypoints placed from just
  // inside that reach to just outside it, on each side, at every size and
  // angle below (the image is large enough that each has keypoints on both
  // sides of it), every value agrees with the CPU's: a box read without
  // clipping where it is clipped would be off by far more than rounding.
  TEST_CASE(
      "GPU descriptors at the edge of the clipping-free part agree with the CPU reference value by value") {
    const GrayImage noise = test::random_image(200, 160, 9);
    std::vector<KeyPoint> given;
    for (const float size : {9.0f, 13.3f, 20.0f, 31.7f}) {
      const double s = 1.2 * size / 9.0;
      // even_side(kDescriptorHaar s), common/sides.glsl
      const int h = std::max(2, 2 * static_cast<int>(std::floor(cpu::kDescriptorHaar * s / 2 + 0.5)));
      for (const float angle : {0.0f, 30.0f, 45.0f, 77.0f, 135.0f, 200.0f, 315.0f}) {
        const double r = angle * 3.14159265358979323846 / 180.0;
        const double reach = 9.5 * s * (std::abs(std::cos(r)) + std::abs(std::sin(r))) + 0.5 * h + 2.0;
        for (const double off : {-2.0, -1.0, -0.3, 0.3, 1.0, 2.0}) {
          for (int side = 0; side < 4; ++side) {
            KeyPoint k;
            k.size = size;
            k.angle = angle;
            k.laplacian = 1;
            const double in = reach + off;  // from the side's edge
            k.x = static_cast<float>(side == 0 ? in : side == 1 ? noise.width - in : 100.3);
            k.y = static_cast<float>(side == 2 ? in : side == 3 ? noise.height - in : 80.6);
            if (k.x >= 0 && k.y >= 0 && k.x <= noise.width - 1 && k.y <= noise.height - 1) given.push_back(k);
          }
        }
      }
    }
    REQUIRE(given.size() > 300);
    for (const bool extended : {false, true}) {
      DetectorConfig config;
      config.extended = extended;
      GpuDetector detector(test::headless_context(), config);
      const Features gpu = detector.compute(noise, given, Angles::Keep);
      const Features cpu = cpu::compute(noise, given, config, Angles::Keep);
      const int n = descriptor_size(config);
      REQUIRE(gpu.descriptors.size() == cpu.descriptors.size());
      double largest = 0;
      size_t worst = 0;
      for (size_t i = 0; i < given.size(); ++i) {
        for (int v = 0; v < n; ++v) {
          const double d = std::abs(gpu.descriptor(i)[v] - cpu.descriptor(i)[v]);
          if (d > largest) largest = d, worst = i;
        }
      }
      INFO(given.size() << " keypoints, largest difference " << largest << " at keypoint " << worst << " ("
                        << given[worst].x << ", " << given[worst].y << ") size " << given[worst].size);
      MESSAGE("edge of the clipping-free part, " << n << " values: largest difference " << largest);
      CHECK(largest < 1e-4);
    }
  }

  TEST_CASE("GPU compute() at kept angles agrees with the CPU reference; second orientations again") {
    const GrayImage box = load_gray(GLSURF_TEST_ASSET_DIR "/box.png");
    std::vector<KeyPoint> given = cpu::detect(box, DetectorConfig{});
    // Angles around the circle, both ends included.
    for (size_t i = 0; i < given.size(); ++i)
      given[i].angle = i == 0 ? 0.0f : i == 1 ? 360.0f : std::fmod(47.3f * i, 360.0f);
    for (const bool extended : {false, true}) {
      DetectorConfig config;
      config.extended = extended;
      GpuDetector detector(test::headless_context(), config);
      detector.runner().set_check_every_pass(true);
      detector.runner().set_profiling(true);
      compare_kept(box, given, config, detector);
      // No orientation pass ran.
      int orientation_passes = 0, descriptor_passes = 0;
      for (const auto& pass : detector.runner().take_profile()) {
        orientation_passes += pass.name.rfind("orientation_", 0) == 0 && pass.name != "orientation_quads";
        descriptor_passes += pass.name == "descriptor_sums";
      }
      CHECK(orientation_passes == 0);
      CHECK(descriptor_passes == 1);
      detector.runner().set_profiling(false);
      // The library refuses what the command line does: an angle outside
      // [0, 360], and upright descriptors.
      std::vector<KeyPoint> no_angle(given.begin(), given.begin() + 3);
      no_angle[2].angle = -1;
      CHECK_THROWS_WITH_AS(detector.compute(box, no_angle, Angles::Keep),
                           doctest::Contains("keypoint 2: angle -1 is not in [0, 360]"), Error);
    }
    DetectorConfig upright;
    upright.upright = true;
    CHECK_THROWS_WITH_AS(GpuDetector(test::headless_context(), upright).compute(box, given, Angles::Keep),
                         doctest::Contains("upright descriptors are taken at angle 0"), Error);
    // More keypoints than a chunk of compute() (the point list of a 48 x 48
    // image holds fewer than 5,000), placed at random on noise.
    const GrayImage noise = test::random_image(48, 48, 6);
    GpuDetector detector(test::headless_context(), DetectorConfig{});
    detector.detect(noise);
    REQUIRE(detector.last_on_gpu().list->width() * detector.last_on_gpu().list->height() < 5000);
    const std::vector<KeyPoint> random = placed_on_48(5000);
    compare_kept(noise, random, DetectorConfig{}, detector);
    // A detection with second orientations, described again at its angles,
    // gives its own descriptors: the same passes at the same angles.
    DetectorConfig second;
    second.second_orientation = 0.8f;
    GpuDetector twice(test::headless_context(), second);
    const Features detected = twice.detect_and_compute(box);
    const Features again = twice.compute(box, detected.keypoints, Angles::Keep);
    REQUIRE(again.keypoints.size() == detected.keypoints.size());
    REQUIRE(detected.keypoints.size() >= 1.1 * given.size());  // some points have two entries
    int same = 0;
    for (size_t i = 0; i < again.keypoints.size(); ++i) {
      same += again.keypoints[i].angle == detected.keypoints[i].angle &&
              dot(again.descriptor(i), detected.descriptor(i), 64) >= 0.99999;
    }
    CHECK(same == static_cast<int>(again.keypoints.size()));
    CHECK_NOTHROW(gl::check_gl_errors("end of test"));
  }

  TEST_CASE("GPU compute() takes images detection refuses (too small), between detections of another size") {
    // Describing needs only the integral image: a 10 x 10 image, smaller than
    // the smallest filter, is described as on the CPU, and the detector's
    // stages are sized again for the next detection.
    const GrayImage box = load_gray(GLSURF_TEST_ASSET_DIR "/box.png");
    const GrayImage tiny = test::random_image(10, 10, 4);
    DetectorConfig config;
    GpuDetector detector(test::headless_context(), config);
    REQUIRE_FALSE(detector.size_problem(10, 10).empty());
    CHECK(detector.compute_size_problem(10, 10).empty());
    const std::vector<KeyPoint> first = detector.detect(box);
    std::vector<KeyPoint> given(3);
    given[0].x = 4.5f, given[0].y = 4.5f, given[0].size = 9;
    given[1].x = 2.2f, given[1].y = 7.1f, given[1].size = 5, given[1].laplacian = -1;
    given[2].x = 7.0f, given[2].y = 2.0f, given[2].size = 3;
    compare_given(tiny, given, config, detector, true);
    const std::vector<KeyPoint> again = detector.detect(box);
    CHECK(again.size() == first.size());
    CHECK(test::same_keypoints(first, again));
  }

  TEST_CASE("GPU extended descriptors agree with the CPU's on images constant along one axis") {
    // Responses across the constant axis are zero but for rounding, which
    // float32 and float64 round differently; OpenCV's plain sign split moved
    // whole components between the halves by it (cosine 0 at some keypoints,
    // 60 of these 200 below 0.999 before kSplitTolerance).
    const GrayImage noise = test::random_image(64, 1, 1);
    GrayImage columns(64, 64), rows(64, 64);
    for (int y = 0; y < 64; ++y)
      for (int x = 0; x < 64; ++x) columns.at(x, y) = noise.at(x, 0), rows.at(y, x) = noise.at(x, 0);
    std::vector<KeyPoint> given(200);
    std::mt19937 random(2);
    for (KeyPoint& k : given) {
      k.x = std::uniform_real_distribution<float>(5, 58)(random);
      k.y = std::uniform_real_distribution<float>(5, 58)(random);
      k.size = std::uniform_real_distribution<float>(5, 20)(random);
    }
    DetectorConfig config;
    config.extended = true;
    GpuDetector detector(test::headless_context(), config);
    for (const GrayImage* image : {&columns, &rows}) {
      const Features gpu = detector.compute(*image, given), cpu = cpu::compute(*image, given, config);
      REQUIRE(gpu.keypoints.size() == given.size());
      int close = 0, negative_zero = 0;
      double worst = 1;
      for (size_t i = 0; i < given.size(); ++i) {
        const double d = dot(gpu.descriptor(i), cpu.descriptor(i), 128);
        close += d >= 0.999;
        worst = std::min(worst, d);
        // Angle 0 reached from a direction of +0 was -0, which files showed as "-0".
        negative_zero += std::signbit(gpu.keypoints[i].angle) + std::signbit(cpu.keypoints[i].angle);
      }
      CHECK(negative_zero == 0);
      INFO(std::string(image == &columns ? "constant columns" : "constant rows")
           << ": lowest cosine " << worst);
      CHECK(close == static_cast<int>(given.size()));
    }
  }

}  // TEST_SUITE
