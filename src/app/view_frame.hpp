// What glsurf view draws over a frame: the matches in match mode, and the
// heads-up display's lines.
#pragma once

#include <string>
#include <vector>

#include "match/matcher.hpp"
#include "sift/detector.hpp"
#include "surf/detector.hpp"
#include "window/viewer.hpp"

namespace glsurf::app {

// One frame's results.
struct ViewFrame {
  GpuDetector::OnGpu found;
  std::vector<ViewRenderer::Line> lines;  // match mode: the matches, and the reference's outline
  int matches = 0, inliers = 0;
};

// Match mode: a line per match between the reference's and the current
// frame's keypoints (green: an inlier of the homography RANSAC finds, red:
// not), and the reference's outline mapped into the current frame.
void match_lines(const Features& reference, const Features& current, const std::vector<Match>& matches,
                 int reference_width, int reference_height, ViewFrame& frame);

// GPU milliseconds per stage of the last frame, from the runners' timer
// queries ("GPU ms:  integral 1.2  hessian 3.4 ..."); a value longer than
// the whole detection (`detect_ms`) is a timer artefact and shows as n/a.
std::string stage_times(GpuDetector& detector, GpuMatcher& matcher, double detect_ms, bool software);
// The same for --features sift: SIFT's passes summed, and the matcher.
std::string sift_stage_times(sift::GpuSift& detector, GpuMatcher& matcher, double detect_ms);

// What the HUD reports besides the detector's settings.
struct HudState {
  std::string file;  // the image's file name (not for a stream)
  size_t index = 0, count = 0;
  bool stream = false;
  long stream_frame = 0;
  bool match = false, help = false;
  double fps = 0, detect_ms = 0;
  std::string stage_times, renderer;
};
// The k key's next limit on keypoints (DetectorConfig::max_features): all
// (0), then the strongest 100, 300, 1000, then all again.
int next_strongest(int max_features);

// The HUD's lines; `sift` given: SIFT's settings instead of SURF's.
std::vector<std::string> hud_text(const HudState& state, const GrayImage& image, const DetectorConfig& config,
                                  const ViewFrame& frame, const SiftConfig* sift = nullptr);

}  // namespace glsurf::app
