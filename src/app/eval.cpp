// glsurf eval — the Mikolajczyk protocol on an Oxford-format sequence:
// repeatability, correct matches, matching score, precision and homography
// corner error for each pair 1->k.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>

#include "app/cli.hpp"
#include "app/extractor.hpp"
#include "app/json.hpp"
#include "app/sequence.hpp"
#include "cpu/matcher.hpp"
#include "eval/metrics.hpp"
#include "gl/context.hpp"
#include "gl/error.hpp"
#include "io/image.hpp"
#include "io/output.hpp"
#include "match/matcher.hpp"
#include "surf/detector.hpp"

namespace glsurf::app {

namespace fs = std::filesystem;

namespace {

// Prints pair 1->k's row of the table to `listing` and returns its JSON
// record (after `records`, the ones before it).
std::string report_pair(FILE* listing, int pair_width, int k, const PairScore& s,
                        const std::string& records) {
  char corner[32];
  if (std::isnan(s.corner_error))
    std::snprintf(corner, sizeof corner, "%9s", "n/a");  // see PairScore
  else if (s.corner_error >= 0)
    std::snprintf(corner, sizeof corner, "%9.2f", s.corner_error);
  else
    std::snprintf(corner, sizeof corner, "%9s", "none");
  // A ratio over nothing (no matches; no keypoints visible in one image) is
  // n/a in the table and null in JSON, not 0.
  struct Ratio {
    char table[16] = "     n/a", json[16] = "null";
  };
  const auto ratio = [](double value, bool defined) {
    Ratio r;
    if (defined) {
      std::snprintf(r.table, sizeof r.table, "%7.1f%%", 100 * value);
      std::snprintf(r.json, sizeof r.json, "%.4f", value);
    }
    return r;
  };
  const bool visible = std::min(s.visible_a, s.visible_b) > 0;
  const Ratio repeatability = ratio(s.repeatability, visible), score = ratio(s.matching_score, visible),
              precision = ratio(s.precision, s.matches > 0);
  std::fprintf(listing, "%-*s %7d %7d %7d %7d %s %7d %8d %8d %s %s %s\n", pair_width,
               ("1->" + std::to_string(k)).c_str(), s.keypoints_a, s.keypoints_b, s.visible_a, s.visible_b,
               repeatability.table, s.matches, s.correct_3px, s.correct_5px, score.table, precision.table,
               corner);
  // JSON has no infinity: a corner error that is not a number is null,
  // and corner_error_note says why.
  char corner_json[32] = "null";
  const char* corner_note = "null";
  if (!s.homography_found)
    corner_note = "\"no homography found\"";
  else if (std::isnan(s.corner_error))
    corner_note = "\"the truth sends part of A to infinity\"";
  else if (std::isinf(s.corner_error))
    corner_note = "\"the estimate sends a corner of A to infinity\"";
  else
    std::snprintf(corner_json, sizeof corner_json, "%.6g", s.corner_error);
  char record[512];
  std::snprintf(record, sizeof record,
                "%s    {\"pair\": \"1-%d\", \"keypoints_a\": %d, \"keypoints_b\": %d, \"visible_a\": %d, "
                "\"visible_b\": %d, \"correspondences\": %d, \"repeatability\": %s, \"matches\": %d, "
                "\"correct_3px\": %d, \"correct_5px\": %d, \"matching_score\": %s, \"precision\": %s, "
                "\"homography_found\": %s, \"inliers\": %d, \"corner_error\": %s, \"corner_error_note\": %s}",
                records.empty() ? "" : ",\n", k, s.keypoints_a, s.keypoints_b, s.visible_a, s.visible_b,
                s.correspondences, repeatability.json, s.matches, s.correct_3px, s.correct_5px, score.json,
                precision.json, s.homography_found ? "true" : "false", s.inliers, corner_json, corner_note);
  return record;
}

int eval(Args& args) {
  const std::string backend = backend_option(args);
  const FeatureChoice choice = feature_options(args);
  const Tiling tiling = tiling_options(args);
  const MatchConfig match_config = match_options(args);
  const std::string json = args.option("--json");
  const LoadOptions load = load_options(args);
  const std::vector<std::string> positional = args.positionals();
  args.finish();
  check_feature_options(choice);
  // With the JSON on standard output, the table goes to standard error.
  FILE* const listing = standard_stream_of(json) == 1 ? stderr : stdout;
  if (positional.size() != 1)
    throw UsageError("eval needs a sequence directory (img1..imgN, H1to2p..H1toNp)");
  if (!json.empty()) check_writable(json);  // before the work, not after it
  const fs::path dir = positional[0];
  const Sequence sequence = read_sequence(dir);
  // Every image is read and its size checked before anything is printed,
  // so that a bad one is an error without a table half written above it.
  std::map<int, GrayImage> images;
  for (const auto& [k, path] : sequence.images) images.emplace(k, load_gray(path, load));
  for (const auto& [k, image] : images) check_image_size(sequence.images.at(k), image, choice, tiling);
  if (!json.empty()) {
    std::vector<std::string> inputs;
    for (const auto& [k, path] : sequence.images) inputs.push_back(path);
    for (const auto& [k, path] : sequence.homography_files) inputs.push_back(path);
    check_not_an_input("--json", json, inputs);
  }
  const GrayImage& a = images.at(1);

  std::unique_ptr<gl::Context> context;
  std::unique_ptr<GpuMatcher> matcher;
  if (backend == "gl") {
    context = std::make_unique<gl::Context>(headless_or_hint());
    matcher = std::make_unique<GpuMatcher>(*context, match_config);
  }
  Extractor extractor(choice, tiling, context.get());
  if (context) {
    for (const auto& [k, image] : images) extractor.check_image(sequence.images.at(k), image);
  }
  const Features fa = extractor.describe(a, sequence.images.at(1));
  std::fprintf(listing, "%s (%s backend; matching: %s; correct = reprojection error < 3 px)\n",
               dir.string().c_str(), backend.c_str(), match_summary(match_config).c_str());
  // The pair column fits the last pair's name ("1->k"), so that the columns
  // stay aligned from img10 or img100 on.
  const int pair_width =
      static_cast<int>(std::max<size_t>(5, 3 + std::to_string(images.rbegin()->first).size()));
  std::fprintf(listing, "%-*s %7s %7s %7s %7s %8s %7s %8s %8s %8s %8s %9s\n", pair_width, "pair", "kp A",
               "kp B", "vis A", "vis B", "repeat", "match", "correct", "<5px", "score", "precis",
               "corner px");
  std::string records;
  for (const auto& [k, truth] : sequence.homographies) {
    const GrayImage& b = images.at(k);
    const Features fb = extractor.describe(b, sequence.images.at(k));
    const std::vector<Match> matches = matcher ? matcher->match(fa, fb) : cpu::match(fa, fb, match_config);
    const PairScore s = score_pair(fa, fb, matches, truth, a.width, a.height, b.width, b.height);
    records += report_pair(listing, pair_width, k, s, records);
  }
  // A table that could not be written fails the run before the JSON is
  // written: a failed run leaves no output behind.
  if (listing == stdout) flush_standard_output();
  if (!json.empty()) {
    write_file_atomically(json, false, [&](std::ostream& out) {
      out << "{\n  \"sequence\": \"" << json_escaped(dir.string()) << "\",\n  \"backend\": \"" << backend
          << "\",\n  \"detector\": "
          << (choice.type == FeatureType::Sift ? detector_json(choice.sift) : detector_json(choice.surf))
          << ",\n  \"matcher\": " << matcher_json(match_config) << ",\n  \"pairs\": [\n"
          << records << "\n  ]\n}\n";
    });
  }
  return 0;
}

OptionTable eval_options() {
  OptionTable table = {
      text("--json", "OUT", "",
           "the scores as JSON (-: on standard output, the table then on standard error)", "none"),
      shared_option("--backend")};
  for (const OptionTable& rows : {detector_table(), sift_table(), tiling_table(), match_table()})
    table.insert(table.end(), rows.begin(), rows.end());
  table.push_back(shared_option("--ignore-orientation"));
  return table;
}

}  // namespace

Command eval_command() {
  return {"eval",
          "SEQDIR",
          "a sequence scored: repeatability, correct matches, matching score, homography error",
          "SEQDIR holds img1..imgN and H1to2p..H1toNp (the Oxford format; glsurf warp writes such "
          "sequences). Each pair 1->k is scored as Mikolajczyk et al. do: a match is correct when its "
          "reprojection error is under 3 px. Matching as in match; images as in detect.",
          eval_options,
          eval,
          "eval seq --json scores.json",
          {}};
}

}  // namespace glsurf::app
