// "Did you mean": the known name nearest to a mistyped one.
#pragma once

#include <string>
#include <vector>

namespace glsurf::app {

// The optimal-string-alignment distance (Damerau–Levenshtein without
// repeated edits of one substring): insertions, deletions, substitutions and
// transpositions of two neighbours each count 1. "detcet" -> "detect" is 1.
int edit_distance(const std::string& a, const std::string& b);

// The name of `known` nearest to `word` within 2 edits (and fewer edits than
// half of `word`, so that "-x" does not suggest "-o"), the first of those as
// near; "" when none is that near.
std::string nearest(const std::string& word, const std::vector<std::string>& known);

}  // namespace glsurf::app
