// The C++ side of the Python binding's overhead measurement
// (python/tests/timing.py): the wall clock of Detector::detect_and_compute on
// one image, through the public API, as the module calls it.
//
//   glsurf_python_timing IMAGE gl|gl-switch|cpu WARMUP
//
// After WARMUP untimed calls it prints "ready", then times one call for each
// line read from standard input and prints its milliseconds and keypoint
// count, so that the caller can interleave these calls with its own one by
// one. gl-switch: the context made current before each call and released
// after it, as the module does (the cost of that alone).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <glsurf/glsurf.hpp>
#include <iostream>
#include <memory>
#include <string>

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s IMAGE gl|gl-switch|cpu WARMUP\n", argv[0]);
    return 2;
  }
  try {
    const glsurf::GrayImage image = glsurf::load_gray(argv[1]);
    const std::string backend = argv[2];
    const bool gpu = backend != "cpu", do_switch = backend == "gl-switch";
    std::unique_ptr<glsurf::Context> context;
    if (gpu) context = std::make_unique<glsurf::Context>(glsurf::Context::headless());
    glsurf::Detector detector = gpu ? glsurf::Detector::gpu(*context) : glsurf::Detector::cpu();
    if (do_switch) context->release_current();
    const auto detect = [&] {
      if (do_switch) context->make_current();
      glsurf::Features f = detector.detect_and_compute(image);
      if (do_switch) context->release_current();
      return f;
    };
    for (int i = 0, warmup = std::atoi(argv[3]); i < warmup; ++i) detect();
    std::printf("ready\n");
    std::fflush(stdout);
    for (std::string line; std::getline(std::cin, line);) {
      const auto start = std::chrono::steady_clock::now();
      const glsurf::Features f = detect();
      const std::chrono::duration<double, std::milli> ms = std::chrono::steady_clock::now() - start;
      std::printf("%.4f %zu\n", ms.count(), f.keypoints.size());
      std::fflush(stdout);
    }
    return 0;
  } catch (const glsurf::Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
