// Registers image B to image A with glsurf's library: SURF keypoints and
// descriptors of both on the GPU (the descriptors stay there), matched on the
// GPU, then a homography fitted by RANSAC on the CPU. README's library example
// as a whole program; the tests run it on graf1 -> graf3 with its ground truth.
//
//   glsurf_example_register A B [TRUTH]
//
// Prints the keypoint and match counts, the homography taking A's pixels to
// B's, and with TRUTH (a homography file, Oxford text or OpenCV XML) the
// largest distance between A's corners mapped by the two.
#include <cstdio>
#include <vector>

#include "glsurf/gl/context.hpp"
#include "glsurf/gl/error.hpp"
#include "glsurf/io/image.hpp"
#include "glsurf/match/homography.hpp"
#include "glsurf/match/matcher.hpp"
#include "glsurf/surf/detector.hpp"

int main(int argc, char** argv) {
  using namespace glsurf;
  if (argc != 3 && argc != 4) {
    std::fprintf(stderr, "usage: %s A B [TRUTH]\n", argv[0]);
    return 2;
  }
  try {
    const GrayImage image_a = load_gray(argv[1]), image_b = load_gray(argv[2]);

    gl::Context ctx = gl::Context::headless();
    GpuDetector detector(ctx,
                         DetectorConfig{/*hessian_threshold*/ 100, /*n_octaves*/ 4, /*n_octave_layers*/ 2,
                                        /*max_features*/ 4000});
    DescriptorTextures ra, rb;  // descriptors kept on the GPU
    const Features a = detector.detect_and_compute(image_a, &ra);
    const Features b = detector.detect_and_compute(image_b, &rb);
    GpuMatcher matcher(ctx, MatchConfig{/*ratio*/ 0.8f, /*mutual*/ true});
    const std::vector<Match> ab = matcher.match(ra, rb);  // query = a, train = b

    std::vector<PointPair> pairs;
    for (const Match& m : ab) {
      const KeyPoint &p = a.keypoints[static_cast<size_t>(m.query)],
                     &q = b.keypoints[static_cast<size_t>(m.train)];
      pairs.push_back({p.x, p.y, q.x, q.y});
    }
    const HomographyResult fit = ransac_homography(pairs);
    std::printf("%zu and %zu keypoints, %zu matches, %d inliers\n", a.keypoints.size(), b.keypoints.size(),
                ab.size(), fit.inlier_count);
    if (!fit.found) {
      std::printf("no homography\n");
      return 1;
    }
    const Homography& h = fit.h;
    std::printf("H = [%.6g %.6g %.6g; %.6g %.6g %.6g; %.6g %.6g %.6g]\n", h[0], h[1], h[2], h[3], h[4], h[5],
                h[6], h[7], h[8]);
    if (argc == 4) {
      const double error = corner_error(h, read_homography_file(argv[3]), image_a.width, image_a.height);
      std::printf("corner error %.2f px\n", error);
    }
    return 0;
  } catch (const Error& e) {  // bad input, no OpenGL 3.3, a shader that does not build
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
