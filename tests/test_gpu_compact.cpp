// CompactStage: the HistoPyramid's point list holds every keypoint of the
// candidate atlas exactly once, in a deterministic order, and a stage reused
// for another image of the same size lists that image's keypoints.
//
// Tolerances: two runs on one image give identical lists (every field
// equal), with no two entries at the same position and as many entries as
// the atlas's candidates. On another image, at least 99 % of the keypoints of
// either side (GPU, CPU reference) have a partner within 0.1 px and 1 % in
// size, with the same Laplacian sign; the first image again gives the first
// list exactly.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

#include "cpu/detector.hpp"
#include "detector_support.hpp"
#include "gl/error.hpp"
#include "io/image.hpp"
#include "support.hpp"
#include "surf/detector.hpp"
#include "surf/keypoint.hpp"

using namespace glsurf;
using test::matched_fraction;

TEST_SUITE("gl") {
  TEST_CASE("the point list holds exactly the atlas's keypoints, in a deterministic order") {
    test::headless_context();
    DetectorConfig config;
    config.hessian_threshold = 50;
    const GrayImage image = load_gray(GLSURF_TEST_ASSET_DIR "/graf1.png");
    GpuDetector detector(test::headless_context(), config);
    detector.runner().set_check_every_pass(true);
    const std::vector<KeyPoint> first = detector.detect(image);
    const std::vector<KeyPoint> second = detector.detect(image);
    REQUIRE(first.size() == second.size());
    bool identical = true;
    for (size_t i = 0; i < first.size(); ++i) {
      identical = identical && first[i].x == second[i].x && first[i].y == second[i].y &&
                  first[i].size == second[i].size && first[i].response == second[i].response &&
                  first[i].octave == second[i].octave && first[i].laplacian == second[i].laplacian;
    }
    CHECK(identical);
    // Every keypoint once: no duplicates in the compacted list.
    std::vector<std::pair<float, float>> positions;
    for (const KeyPoint& k : first) positions.emplace_back(k.x, k.y);
    std::sort(positions.begin(), positions.end());
    CHECK(std::adjacent_find(positions.begin(), positions.end()) == positions.end());
    CHECK(static_cast<int>(first.size()) == detector.candidates_last_frame());
    // A different image of the same size reuses the stages: it finds the
    // CPU's keypoints of that image, and then the first image's again.
    const GrayImage noise = test::random_image(image.width, image.height, 3);
    const std::vector<KeyPoint> other = detector.detect(noise);
    const std::vector<KeyPoint> other_cpu = cpu::detect(noise, config);
    REQUIRE(other_cpu.size() > 1000);
    CHECK(matched_fraction(other_cpu, other) >= 0.99);
    CHECK(matched_fraction(other, other_cpu) >= 0.99);
    const std::vector<KeyPoint> third = detector.detect(image);
    CHECK(third.size() == first.size());
    CHECK(test::same_keypoints(first, third));
    CHECK_NOTHROW(gl::check_gl_errors("end of test"));
  }

}  // TEST_SUITE
