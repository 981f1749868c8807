// glsurf match --database (match_database.cpp).
#pragma once

#include <string>

#include "app/dataset.hpp"
#include "match/types.hpp"

namespace glsurf::app {

struct DatabaseMatch {
  std::string database, backend;
  MatchConfig matcher;
  std::string pairs;  // exhaustive, sequential[:K] or a file of name pairs
  Shard shard;
  bool quiet = false;
};

// Matches and verifies every pair of the list (of the shard) not yet in the
// database, and stores the raw matches and the two-view geometries.
int match_database(const DatabaseMatch& run);

}  // namespace glsurf::app
