#include "match/types.hpp"

#include "gl/error.hpp"

#include <algorithm>
#include <cmath>

namespace glsurf {

std::vector<Match> filter_matches(const std::vector<TwoNearest>& forward, const std::vector<TwoNearest>& backward,
                                  const MatchConfig& config) {
  const bool use_ratio = config.ratio > 0.0f && config.ratio < 1.0f;
  const float ratio2 = config.ratio * config.ratio;
  const float max2 = config.max_distance * config.max_distance;
  std::vector<Match> out;
  if (config.mutual) {
    for (const TwoNearest& t : forward) {
      GLSURF_EXPECTS(t.best < static_cast<int>(backward.size()), "the mutual check needs the backward lists");
    }
  }
  for (size_t i = 0; i < forward.size(); ++i) {
    const TwoNearest& t = forward[i];
    if (t.best < 0) continue;
    // Without a second candidate the ratio test cannot judge: no match.
    if (use_ratio && (t.second < 0 || !(t.best_d2 < ratio2 * t.second_d2))) continue;
    if (config.max_distance > 0.0f && t.best_d2 > max2) continue;
    if (config.mutual && backward[static_cast<size_t>(t.best)].best != static_cast<int>(i)) continue;
    out.push_back({static_cast<int>(i), t.best, std::sqrt(std::max(t.best_d2, 0.0f))});
  }
  return out;
}

}  // namespace glsurf
