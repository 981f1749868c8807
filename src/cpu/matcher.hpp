// CPU reference matcher: brute-force two nearest neighbours in both
// directions, then the filters of match/types.hpp. Ties in distance go to the
// lower index, as in the GPU matcher.
#pragma once

#include "match/types.hpp"
#include "surf/keypoint.hpp"

namespace glsurf::cpu {

// Two nearest train descriptors for every query (squared distances). With
// `laplacian`, candidates of the other Laplacian sign are skipped (a
// laplacian of 0 counts as +1, as on the GPU). Non-finite distances (NaN
// descriptors) and distances of 1e30 or more are never candidates.
std::vector<TwoNearest> two_nearest(const Features& query, const Features& train, bool laplacian);

std::vector<Match> match(const Features& query, const Features& train, const MatchConfig& config);

}  // namespace glsurf::cpu
