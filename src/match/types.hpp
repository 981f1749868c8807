// Matching vocabulary shared by the GPU matcher and the CPU reference
// (MatchConfig and Match are public: glsurf/matcher.hpp, glsurf/types.hpp).
#pragma once

#include <vector>

#include "glsurf/matcher.hpp"
#include "glsurf/types.hpp"

namespace glsurf {

// The two nearest train descriptors of one query (index -1 when there are
// fewer candidates), squared distances.
struct TwoNearest {
  int best = -1, second = -1;
  float best_d2 = 0, second_d2 = 0;
};

// Throws glsurf::Error unless the two sets can be matched: each holds
// descriptor_size values for every keypoint, and where both have keypoints
// their sizes agree and are positive. A set with no keypoints matches
// nothing, whatever its size. (The GPU matcher also needs at most
// GpuMatcher::kMaxDescriptorSize values.)
void check_matchable(const Features& query, const Features& train);

// The filters that need only the query's own two nearest: ratio and maximum
// distance (the mutual check also needs the backward lists).
bool passes_forward_filters(const TwoNearest& t, const MatchConfig& config);

// The trains that some query keeps after the forward filters, ascending: the
// only ones whose backward lists the mutual check reads.
std::vector<int> mutual_candidates(const std::vector<TwoNearest>& forward, const MatchConfig& config);

// Applies ratio, max-distance and mutual filters to the two-nearest lists of
// both directions (`backward` may be empty when mutual is off; with it on,
// only the entries of mutual_candidates() are read).
std::vector<Match> filter_matches(const std::vector<TwoNearest>& forward,
                                  const std::vector<TwoNearest>& backward, const MatchConfig& config);

}  // namespace glsurf
