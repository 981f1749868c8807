#include "cpu/matcher.hpp"

#include "gl/error.hpp"
#include "gl/shared_constants.hpp"

namespace glsurf::cpu {

namespace {
using shader::kNoCandidate;  // the GPU matcher's "none"
}  // namespace

std::vector<TwoNearest> two_nearest(const Features& query, const Features& train, bool laplacian) {
  check_matchable(query, train);
  const int n = query.descriptor_size;
  std::vector<TwoNearest> out(query.keypoints.size());
  for (size_t i = 0; i < query.keypoints.size(); ++i) {
    TwoNearest& t = out[i];
    const float* q = query.descriptor(i);
    for (size_t j = 0; j < train.keypoints.size(); ++j) {
      // Signs as the GPU sees them: laplacian >= 0 counts as +1.
      if (laplacian && (query.keypoints[i].laplacian >= 0) != (train.keypoints[j].laplacian >= 0)) continue;
      const float* d = train.descriptor(j);
      float d2 = 0;
      for (int c = 0; c < n; ++c) d2 += (q[c] - d[c]) * (q[c] - d[c]);
      if (!(d2 < kNoCandidate)) continue;  // NaN or beyond the GPU's "none" (1e30): never a candidate
      if (t.best < 0 || d2 < t.best_d2) {
        t.second = t.best;
        t.second_d2 = t.best_d2;
        t.best = static_cast<int>(j);
        t.best_d2 = d2;
      } else if (t.second < 0 || d2 < t.second_d2) {
        t.second = static_cast<int>(j);
        t.second_d2 = d2;
      }
    }
  }
  return out;
}

std::vector<Match> match(const Features& query, const Features& train, const MatchConfig& config) {
  const std::vector<TwoNearest> forward = two_nearest(query, train, config.laplacian);
  const std::vector<TwoNearest> backward =
      config.mutual ? two_nearest(train, query, config.laplacian) : std::vector<TwoNearest>{};
  return filter_matches(forward, backward, config);
}

}  // namespace glsurf::cpu
