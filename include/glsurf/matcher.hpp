// Nearest-neighbour matching of descriptors, on the GPU (Chariot 2008: a
// distance texture reduced to the two nearest per query) or on the CPU.
//
//   | field            | default | meaning                                          |
//   |------------------|---------|--------------------------------------------------|
//   | ratio            | 0.8     | keep a match when best < ratio * second best     |
//   |                  |         | (distances, not squared; 0 or >= 1 disables)     |
//   | mutual           | true    | keep i -> j only if j's best match is i          |
//   | laplacian        | true    | points of opposite Laplacian sign never match    |
//   | max_distance     | 0       | drop matches farther than this (0: no limit)     |
//
// Distances are Euclidean between descriptors (unit length, so in [0, 2]).
// Both matchers give the same matches, in query order.
#pragma once

#include <memory>
#include <vector>

#include "glsurf/types.hpp"

namespace glsurf {

class Context;

struct MatchConfig {
  float ratio = 0.8f;
  bool mutual = true;
  bool laplacian = true;
  float max_distance = 0.0f;
};

class Matcher {
 public:
  static Matcher gpu(const Context& context, const MatchConfig& config = {});
  static Matcher cpu(const MatchConfig& config = {});

  Matcher(Matcher&&) noexcept;
  Matcher& operator=(Matcher&&) noexcept;
  ~Matcher();

  // Matches of `query`'s keypoints in `train`. Throws glsurf::Error when the
  // two sets' descriptor sizes differ (or a set's descriptors do not fill it).
  std::vector<Match> match(const Features& query, const Features& train);

  const MatchConfig& config() const;
  bool on_gpu() const;

 private:
  struct Impl;
  Impl& impl() const;  // throws glsurf::Error after a move
  explicit Matcher(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace glsurf
