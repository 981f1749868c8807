// The public API (include/glsurf) over the library: Detector and Matcher give
// exactly what the GPU pipeline and the CPU reference they wrap give (the
// same calls, so bit for bit), and every misuse a user can make is a
// glsurf::Error with one line, not a crash or std::logic_error.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <string>

#include "cpu/descriptor.hpp"
#include "cpu/detector.hpp"
#include "cpu/matcher.hpp"
#include "glsurf/glsurf.hpp"
#include "support.hpp"
#include "surf/detector.hpp"

namespace {

bool same_features(const glsurf::Features& a, const glsurf::Features& b) {
  return glsurf::test::same_keypoints(a.keypoints, b.keypoints) && a.descriptor_size == b.descriptor_size &&
         a.descriptors.size() == b.descriptors.size() &&
         std::memcmp(a.descriptors.data(), b.descriptors.data(), a.descriptors.size() * sizeof(float)) == 0;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const glsurf::Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_SUITE("cpu") {
  TEST_CASE("the public CPU detector and matcher are the CPU reference") {
    const glsurf::GrayImage a = glsurf::load_gray(GLSURF_TEST_ASSET_DIR "/graf1.png");
    const glsurf::GrayImage b = glsurf::load_gray(GLSURF_TEST_ASSET_DIR "/graf3.png");
    glsurf::DetectorConfig config;
    config.max_features = 500;
    glsurf::Detector detector = glsurf::Detector::cpu(config);
    CHECK(!detector.on_gpu());
    const glsurf::Features fa = detector.detect_and_compute(a), fb = detector.detect_and_compute(b);
    CHECK(fa.keypoints.size() == 500);
    CHECK(same_features(fa, glsurf::cpu::detect_and_compute(a, config)));
    CHECK(glsurf::test::same_keypoints(detector.detect(a), glsurf::cpu::detect(a, config)));
    CHECK(same_features(detector.compute(a, fa.keypoints), glsurf::cpu::compute(a, fa.keypoints, config)));
    const std::vector<glsurf::Match> matches = glsurf::Matcher::cpu().match(fa, fb);
    const std::vector<glsurf::Match> reference = glsurf::cpu::match(fa, fb, glsurf::MatchConfig{});
    REQUIRE(matches.size() == reference.size());
    CHECK(matches.size() > 50);
    for (size_t i = 0; i < matches.size(); ++i) {
      CHECK((matches[i].query == reference[i].query && matches[i].train == reference[i].train &&
             matches[i].distance == reference[i].distance));
    }
  }

  TEST_CASE("the public API refuses bad configurations, images and keypoints with glsurf::Error") {
    glsurf::DetectorConfig bad;
    bad.n_octaves = 0;
    CHECK(error_of([&] { glsurf::Detector::cpu(bad); }).find("out of range") != std::string::npos);
    bad = {};
    bad.upright = true;
    bad.second_orientation = 0.8f;
    CHECK(error_of([&] { glsurf::Detector::cpu(bad); }).find("out of range") != std::string::npos);
    glsurf::Detector detector = glsurf::Detector::cpu();
    CHECK(error_of([&] { detector.detect(glsurf::GrayImage(10, 10)); }).find("smaller than") !=
          std::string::npos);
    glsurf::GrayImage broken(64, 64);
    broken.pixels.resize(100);
    CHECK(error_of([&] { detector.detect(broken); }).find("pixel values") != std::string::npos);
    glsurf::KeyPoint outside;
    outside.x = 500, outside.y = 10, outside.size = 20;
    CHECK(!error_of([&] { detector.compute(glsurf::GrayImage(64, 64), {outside}); }).empty());
    glsurf::Features a, b;
    a.descriptor_size = 64, b.descriptor_size = 128;
    a.keypoints.resize(1), b.keypoints.resize(1);
    a.descriptors.resize(64), b.descriptors.resize(128);
    CHECK(!error_of([&] { glsurf::Matcher::cpu().match(a, b); }).empty());
    CHECK(error_of([] { glsurf::load_gray("/nonexistent/x.png"); }).find("/nonexistent/x.png") == 0);
    // A moved-from detector or matcher says so.
    glsurf::Detector moved = std::move(detector);
    CHECK(error_of([&] { detector.detect(glsurf::GrayImage(64, 64)); }) ==
          "use of a moved-from glsurf::Detector");
    glsurf::Matcher matcher = glsurf::Matcher::cpu();
    glsurf::Matcher taken = std::move(matcher);
    CHECK(error_of([&] { matcher.match(a, a); }) == "use of a moved-from glsurf::Matcher");
  }
}

TEST_SUITE("gl") {
  TEST_CASE("the public GPU detector and matcher are the GPU pipeline") {
    const glsurf::GrayImage a = glsurf::load_gray(GLSURF_TEST_ASSET_DIR "/box.png");
    const glsurf::GrayImage b = glsurf::load_gray(GLSURF_TEST_ASSET_DIR "/box_in_scene.png");
    const glsurf::Context context = glsurf::Context::headless();
    const glsurf::ContextInfo info = context.info();
    CHECK(!info.renderer.empty());
    CHECK(info.max_texture_size >= 2048);
    glsurf::DetectorConfig config;
    config.max_features = 400;
    glsurf::Detector detector = glsurf::Detector::gpu(context, config);
    CHECK(detector.on_gpu());
    const glsurf::Features fa = detector.detect_and_compute(a), fb = detector.detect_and_compute(b);
    glsurf::GpuDetector reference(context.native(), config);
    CHECK(same_features(fa, reference.detect_and_compute(a)));
    CHECK(same_features(fb, reference.detect_and_compute(b)));
    const std::vector<glsurf::Match> gpu = glsurf::Matcher::gpu(context).match(fa, fb);
    const std::vector<glsurf::Match> cpu = glsurf::Matcher::cpu().match(fa, fb);
    // The GPU matcher against the CPU one (tests/test_gpu_matcher.cpp states
    // why they agree): the same pairs, distances within 1e-5.
    REQUIRE(gpu.size() == cpu.size());
    CHECK(gpu.size() > 20);
    for (size_t i = 0; i < gpu.size(); ++i) {
      CHECK((gpu[i].query == cpu[i].query && gpu[i].train == cpu[i].train));
      CHECK(std::abs(gpu[i].distance - cpu[i].distance) <= 1e-5f);
    }
  }

  TEST_CASE("the public GPU matcher refuses descriptors longer than it takes with glsurf::Error") {
    const glsurf::Context context = glsurf::Context::headless();
    glsurf::Features a;
    a.descriptor_size = 200;
    a.keypoints.resize(2);
    a.descriptors.assign(400, 0.1f);
    CHECK(error_of([&] { glsurf::Matcher::gpu(context).match(a, a); }).find("at most 128") !=
          std::string::npos);
  }
}
