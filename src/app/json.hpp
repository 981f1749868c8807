// JSON for the records bench and eval write.
#pragma once

#include <string>

#include "match/types.hpp"
#include "surf/keypoint.hpp"

namespace glsurf::app {

// A string's characters as the body of a JSON string literal; bytes that are
// not UTF-8 become U+FFFD, so that the JSON stays valid.
std::string json_escaped(const std::string& text);

// The detector's settings as a JSON object (one line), so that a JSON record
// says which settings produced it.
std::string detector_json(const DetectorConfig& config);
// SIFT's options, with "features": "sift" (SURF's have no such key).
std::string detector_json(const SiftConfig& config);
// The matching settings as a JSON object (one line); a filter that is off is null.
std::string matcher_json(const MatchConfig& config);

}  // namespace glsurf::app
