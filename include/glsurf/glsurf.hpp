// glsurf: SURF keypoints, descriptors and matching on any OpenGL 3.3 driver,
// with a CPU reference of the same algorithm.
//
//   #include <glsurf/glsurf.hpp>
//
//   glsurf::Context context = glsurf::Context::headless();
//   glsurf::Detector detector = glsurf::Detector::gpu(context);
//   glsurf::Features a = detector.detect_and_compute(glsurf::load_gray("a.png"));
//   glsurf::Features b = detector.detect_and_compute(glsurf::load_gray("b.png"));
//   std::vector<glsurf::Match> matches = glsurf::Matcher::gpu(context).match(a, b);
//
// Every failure throws glsurf::Error with a one-line message.
#pragma once

#include "glsurf/context.hpp"
#include "glsurf/detector.hpp"
#include "glsurf/geometry.hpp"
#include "glsurf/image.hpp"
#include "glsurf/matcher.hpp"
#include "glsurf/types.hpp"
