// Registers image B to image A with glsurf's public API: SURF keypoints and
// descriptors of both on the GPU, matched on the GPU, then a homography
// fitted by RANSAC on the CPU. The tests run it on graf1 -> graf3 with its
// ground truth, built in the tree and against the installed package.
//
//   glsurf_example_register A B [TRUTH]
//
// Prints the keypoint and match counts, the homography taking A's pixels to
// B's, and with TRUTH (a homography file, Oxford text or OpenCV XML) the
// largest distance between A's corners mapped by the two.
#include <cstdio>
#include <glsurf/glsurf.hpp>
#include <vector>

int main(int argc, char** argv) {
  if (argc != 3 && argc != 4) {
    std::fprintf(stderr, "usage: %s A B [TRUTH]\n", argv[0]);
    return 2;
  }
  try {
    const glsurf::GrayImage image_a = glsurf::load_gray(argv[1]), image_b = glsurf::load_gray(argv[2]);

    const glsurf::Context context = glsurf::Context::headless();
    glsurf::DetectorConfig config;
    config.max_features = 4000;
    glsurf::Detector detector = glsurf::Detector::gpu(context, config);
    const glsurf::Features a = detector.detect_and_compute(image_a);
    const glsurf::Features b = detector.detect_and_compute(image_b);
    const std::vector<glsurf::Match> ab = glsurf::Matcher::gpu(context).match(a, b);  // query = a, train = b

    std::vector<glsurf::PointPair> pairs;
    for (const glsurf::Match& m : ab) {
      const glsurf::KeyPoint &p = a.keypoints[static_cast<size_t>(m.query)],
                             &q = b.keypoints[static_cast<size_t>(m.train)];
      pairs.push_back({p.x, p.y, q.x, q.y});
    }
    const glsurf::HomographyResult fit = glsurf::ransac_homography(pairs);
    std::printf("%zu and %zu keypoints, %zu matches, %d inliers\n", a.keypoints.size(), b.keypoints.size(),
                ab.size(), fit.inlier_count);
    if (!fit.found) {
      std::printf("no homography\n");
      return 1;
    }
    const glsurf::Homography& h = fit.h;
    std::printf("H = [%.6g %.6g %.6g; %.6g %.6g %.6g; %.6g %.6g %.6g]\n", h[0], h[1], h[2], h[3], h[4], h[5],
                h[6], h[7], h[8]);
    if (argc == 4) {
      const double error =
          glsurf::corner_error(h, glsurf::read_homography_file(argv[3]), image_a.width, image_a.height);
      std::printf("corner error %.2f px\n", error);
    }
    return 0;
  } catch (const glsurf::Error& e) {  // bad input, no OpenGL 3.3, a shader that does not build
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
