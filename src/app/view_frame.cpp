#include "app/view_frame.hpp"

#include <chrono>
#include <cstdio>

#include "app/cli.hpp"
#include "app/view_session.hpp"
#include "glsurf/geometry.hpp"

namespace glsurf::app {

void match_lines(const Features& reference, const Features& current, const std::vector<Match>& matches,
                 int reference_width, int reference_height, ViewFrame& frame) {
  std::vector<PointPair> pairs;
  for (const Match& m : matches) {
    const KeyPoint& a = reference.keypoints[static_cast<size_t>(m.query)];
    const KeyPoint& b = current.keypoints[static_cast<size_t>(m.train)];
    pairs.push_back({a.x, a.y, b.x, b.y});
  }
  const HomographyResult h = ransac_homography(pairs);
  frame.matches = static_cast<int>(matches.size());
  frame.inliers = h.inlier_count;
  for (size_t i = 0; i < pairs.size(); ++i) {
    const bool in = h.found && h.inliers[i];
    frame.lines.push_back({static_cast<float>(pairs[i].ax),
                           static_cast<float>(pairs[i].ay),
                           static_cast<float>(pairs[i].bx),
                           static_cast<float>(pairs[i].by),
                           {in ? 0.15f : 0.95f, in ? 0.9f : 0.2f, in ? 0.25f : 0.15f, in ? 0.9f : 0.6f}});
  }
  if (h.found) {  // the reference's outline mapped into the current frame
    const double w = reference_width - 1.0, hh = reference_height - 1.0;
    const double corners[5][2] = {{0, 0}, {w, 0}, {w, hh}, {0, hh}, {0, 0}};
    for (int c = 0; c < 4; ++c) {
      double x0, y0, x1, y1;
      apply(h.h, corners[c][0], corners[c][1], x0, y0);
      apply(h.h, corners[c + 1][0], corners[c + 1][1], x1, y1);
      frame.lines.push_back({static_cast<float>(x0),
                             static_cast<float>(y0),
                             static_cast<float>(x1),
                             static_cast<float>(y1),
                             {0.25f, 0.55f, 1.0f, 1.0f},
                             true});
    }
  }
}

std::string stage_times(GpuDetector& detector, GpuMatcher& matcher, double detect_ms, bool software) {
  // Per-stage GPU time of this frame; a value longer than the whole
  // detection is a timer artefact (llvmpipe) and is shown as n/a. So is
  // the extrema stage on llvmpipe, whose queries read far too little for
  // the passes drawn into the candidate atlas (docs/notes/llvmpipe.md).
  const bool atlas_timers_under_read = software;
  constexpr int kStages = 8, kExtrema = 2, kMatcher = 7;
  const char* stages[kStages][2] = {{"integral_", "integral"},     {"hessian_", "hessian"},
                                    {"extrema_", "extrema"},       {"select_", "select"},
                                    {"compact_", "compact"},       {"orientation_", "orientation"},
                                    {"descriptor_", "descriptor"}, {"matcher_", "matcher"}};
  double ms[kStages] = {};
  bool bogus[kStages] = {};
  for (const auto& p : detector.runner().take_profile()) {
    for (int i = 0; i < kStages; ++i) {
      if (p.name.rfind(stages[i][0], 0) == 0) {
        ms[i] += p.milliseconds;
        bogus[i] = bogus[i] || p.milliseconds > detect_ms || (i == kExtrema && atlas_timers_under_read);
      }
    }
  }
  for (const auto& p : matcher.runner().take_profile()) {
    ms[kMatcher] += p.milliseconds;
    bogus[kMatcher] = bogus[kMatcher] || p.milliseconds > detect_ms;
  }
  std::string text = "GPU ms:";
  for (int i = 0; i < kStages; ++i) {
    if (ms[i] == 0 && !bogus[i]) continue;
    char cell[48];
    if (bogus[i]) {
      std::snprintf(cell, sizeof cell, "  %s n/a", stages[i][1]);
    } else {
      std::snprintf(cell, sizeof cell, "  %s %.1f", stages[i][1], ms[i]);
    }
    text += cell;
  }
  return text;
}

int next_strongest(int max_features) {
  for (const int n : {100, 300, 1000})
    if (max_features <= 0 || n > max_features) return max_features <= 0 ? 100 : n;
  return 0;
}

std::string sift_stage_times(sift::GpuSift& detector, GpuMatcher& matcher, double detect_ms) {
  // SIFT's passes summed, and the matcher's; a sum longer than the whole
  // frame is a timer artefact (llvmpipe) and shows as n/a, as in stage_times.
  double ms[2] = {};
  for (const auto& p : detector.runner().take_profile()) ms[0] += p.milliseconds;
  for (const auto& p : matcher.runner().take_profile()) ms[1] += p.milliseconds;
  std::string text = "GPU ms:";
  const char* names[2] = {"sift", "matcher"};
  for (int i = 0; i < 2; ++i) {
    if (ms[i] == 0) continue;
    char cell[48];
    if (ms[i] > detect_ms)
      std::snprintf(cell, sizeof cell, "  %s n/a", names[i]);
    else
      std::snprintf(cell, sizeof cell, "  %s %.1f", names[i], ms[i]);
    text += cell;
  }
  return text;
}

std::vector<std::string> hud_text(const HudState& state, const GrayImage& image, const DetectorConfig& config,
                                  const ViewFrame& frame, const SiftConfig* sift) {
  std::vector<std::string> hud;
  char line[256];
  if (state.stream) {
    std::snprintf(line, sizeof line, "standard input  frame %ld  %dx%d", state.stream_frame, image.width,
                  image.height);
  } else {
    std::snprintf(line, sizeof line, "%s  (%zu/%zu)  %dx%d", state.file.c_str(), state.index + 1, state.count,
                  image.width, image.height);
  }
  hud.emplace_back(line);
  const std::string step = config.first_step > 1 ? "   sample step " + std::to_string(config.first_step) : "";
  std::string orientation = config.upright ? "upright" : "oriented";
  if (config.second_orientation > 0) {
    char second[48];
    std::snprintf(second, sizeof second, ", second at %g", static_cast<double>(config.second_orientation));
    orientation += second;
  }
  const std::string strongest =
      config.max_features > 0 ? "   the strongest " + std::to_string(config.max_features) + " (k)" : "";
  if (sift) {
    std::snprintf(line, sizeof line, "%d SIFT entries   contrast threshold %.4g%s", frame.found.count,
                  static_cast<double>(sift->contrast_threshold), strongest.c_str());
  } else {
    std::snprintf(line, sizeof line, "%d keypoints   threshold %.0f   %s%s%s", frame.found.count,
                  config.hessian_threshold, orientation.c_str(), step.c_str(), strongest.c_str());
  }
  hud.emplace_back(line);
  if (state.match) {
    std::snprintf(line, sizeof line, "match mode: %d matches, %d inliers   %.1f fps   %.1f ms", frame.matches,
                  frame.inliers, state.fps, state.detect_ms);
  } else {
    std::snprintf(line, sizeof line, "%.1f fps   detect + orient %.1f ms", state.fps, state.detect_ms);
  }
  hud.emplace_back(line);
  hud.emplace_back(state.stage_times);
  hud.emplace_back(state.renderer);
  if (state.help) {
    hud.emplace_back("space pause   n/p next/previous   +/- threshold   u upright");
    hud.emplace_back("m match mode   r reference   k strongest 100/300/1000/all   s screenshot");
    hud.emplace_back("h help   q/Esc quit");
  }
  return hud;
}

// The keypoints of `image` (and in match mode its matches with the
// reference); false when the image was skipped.
bool ViewSession::find(const GrayImage& image, ViewFrame& frame) {
  Clock::time_point t0;
  try {
    if (!texture_ || texture_.width() != image.width || texture_.height() != image.height) {
      texture_ = gl::Texture(image.width, image.height, gl::Format::R8, "view_image");
    }
    texture_.upload(image.pixels.data());
    t0 = Clock::now();
    if (keys_.match) {
      match(image, frame);
    } else if (sift_) {
      frame.found = upload_sift(sift_->detect_and_compute(image).keypoints);
    } else {
      frame.found = detector_->detect_on_gpu(image);
    }
  } catch (const Error& e) {
    // An image the GPU cannot take (too large for the driver's textures),
    // found only now that there is a context: named, it stops the viewer;
    // found in a directory, it is skipped as an unreadable one is.
    if (in_.stream) throw Error(std::string("standard input: ") + e.what());
    if (!in_.from_directory[current_]) throw Error(in_.files[current_] + ": " + e.what());
    std::fprintf(stderr, "glsurf: warning: %s: %s; skipped\n", one_line(in_.files[current_]).c_str(),
                 one_line(e.what()).c_str());
    ++in_.skipped;
    const auto at = static_cast<std::ptrdiff_t>(current_);
    in_.files.erase(in_.files.begin() + at);
    in_.images.erase(in_.images.begin() + at);
    in_.from_directory.erase(in_.from_directory.begin() + at);
    if (in_.images.empty()) throw in_.nothing_to_show();
    current_ %= in_.images.size();
    // A failed configure may leave stages sized for the image it refused.
    detector_ = new_detector();
    have_reference_ = false;
    return false;
  }
  detect_ms_ = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  return true;
}

void ViewSession::match(const GrayImage& image, ViewFrame& frame) {
  if (sift_) {  // descriptors come back to the host: matched from there
    if (!have_reference_ || keys_.reference) {
      reference_ = sift_->detect_and_compute(image);
      reference_texture_ = gl::Texture(image.width, image.height, gl::Format::R8, "view_reference");
      reference_texture_.upload(image.pixels.data());
      have_reference_ = true;
      keys_.reference = false;
    }
    const Features current = sift_->detect_and_compute(image);
    frame.found = upload_sift(current.keypoints);
    const std::vector<Match> matches = matcher_.match(reference_, current);
    match_lines(reference_, current, matches, reference_texture_.width(), reference_texture_.height(), frame);
    last_matches_ = frame.matches;
    last_inliers_ = frame.inliers;
    return;
  }
  if (!have_reference_ || keys_.reference) {  // the first frame, or the current one on 'r'
    reference_ = detector_->detect_and_compute(image, &reference_descriptors_);
    reference_texture_ = gl::Texture(image.width, image.height, gl::Format::R8, "view_reference");
    reference_texture_.upload(image.pixels.data());
    have_reference_ = true;
    keys_.reference = false;
  }
  const Features current = detector_->detect_and_compute(image, &current_descriptors_);
  frame.found = detector_->last_on_gpu();
  const std::vector<Match> matches = matcher_.match(reference_descriptors_, current_descriptors_);
  match_lines(reference_, current, matches, reference_texture_.width(), reference_texture_.height(), frame);
  last_matches_ = frame.matches;
  last_inliers_ = frame.inliers;
}

}  // namespace glsurf::app
