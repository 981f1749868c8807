#include "match/types.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "gl/error.hpp"
#include "surf/keypoint.hpp"

namespace glsurf {

void check_matchable(const Features& query, const Features& train) {
  for (const Features* f : {&query, &train}) {
    const char* which = f == &query ? "query" : "train";
    if (f->descriptor_size < 0 ||
        f->descriptors.size() != f->keypoints.size() * static_cast<size_t>(f->descriptor_size)) {
      throw Error(std::string("cannot match: the ") + which +
                  " set's descriptor count does not match the keypoints (" +
                  std::to_string(f->descriptors.size()) + " values for " +
                  std::to_string(f->keypoints.size()) + " keypoints of " +
                  std::to_string(f->descriptor_size) + ")");
    }
    if (!f->keypoints.empty() && f->descriptor_size == 0) {
      throw Error(std::string("cannot match: the ") + which +
                  " set's keypoints without descriptors cannot be matched");
    }
  }
  if (query.type != train.type) {
    throw Error(std::string("cannot match ") + to_string(query.type) + " features against " +
                to_string(train.type) + " features");
  }
  if (!query.keypoints.empty() && !train.keypoints.empty() &&
      query.descriptor_size != train.descriptor_size) {
    throw Error("cannot match: descriptor sizes differ (" + std::to_string(query.descriptor_size) + " and " +
                std::to_string(train.descriptor_size) + " values)");
  }
}

bool passes_forward_filters(const TwoNearest& t, const MatchConfig& config) {
  if (t.best < 0) return false;
  const bool use_ratio = config.ratio > 0.0f && config.ratio < 1.0f;
  // Without a second candidate the ratio test cannot judge: no match.
  if (use_ratio && (t.second < 0 || !(t.best_d2 < config.ratio * config.ratio * t.second_d2))) return false;
  return !(config.max_distance > 0.0f && t.best_d2 > config.max_distance * config.max_distance);
}

std::vector<int> mutual_candidates(const std::vector<TwoNearest>& forward, const MatchConfig& config) {
  std::vector<int> trains;
  for (const TwoNearest& t : forward) {
    if (passes_forward_filters(t, config)) trains.push_back(t.best);
  }
  std::sort(trains.begin(), trains.end());
  trains.erase(std::unique(trains.begin(), trains.end()), trains.end());
  return trains;
}

std::vector<Match> filter_matches(const std::vector<TwoNearest>& forward,
                                  const std::vector<TwoNearest>& backward, const MatchConfig& config) {
  std::vector<Match> out;
  if (config.mutual) {
    for (const TwoNearest& t : forward) {
      GLSURF_EXPECTS(t.best < static_cast<int>(backward.size()), "the mutual check needs the backward lists");
    }
  }
  for (size_t i = 0; i < forward.size(); ++i) {
    const TwoNearest& t = forward[i];
    if (!passes_forward_filters(t, config)) continue;
    if (config.mutual && backward[static_cast<size_t>(t.best)].best != static_cast<int>(i)) continue;
    out.push_back({static_cast<int>(i), t.best, std::sqrt(std::max(t.best_d2, 0.0f))});
  }
  return out;
}

}  // namespace glsurf
