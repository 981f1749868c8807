// glsurf match — the main job: detect, describe and match two images, verify
// them geometrically (a homography, a fundamental matrix, or COLMAP's choice
// between the two), and report.
#include "app/match.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "app/cli.hpp"
#include "app/match_database.hpp"
#include "cpu/matcher.hpp"
#include "gl/context.hpp"
#include "gl/error.hpp"
#include "glsurf/geometry.hpp"
#include "io/draw.hpp"
#include "io/features.hpp"
#include "io/image.hpp"
#include "io/output.hpp"
#include "match/matcher.hpp"
#include "surf/detector.hpp"
#include "surf/tiles.hpp"

namespace glsurf::app {

namespace {

// --format of -o: given, or opencv when -o ends in .yml, .yaml or .xml;
// opencv's YAML or XML by the name (standard output: YAML); colmap's image
// names, the inputs' file names (as COLMAP names the images directly in
// its image path).
void matches_format(Request& r, const std::string& format) {
  if (!format.empty() && format != "txt" && format != "opencv" && format != "colmap") {
    throw UsageError("--format must be txt, opencv or colmap, not '" + format + "'");
  }
  if (!format.empty() && r.matches_path.empty()) {
    throw UsageError("--format " + format + " is the format of the matches: it needs -o FILE");
  }
  const bool named_file = standard_stream_of(r.matches_path) == 0;
  r.matches_format = !format.empty()                                                   ? format
                     : named_file && storage_kind(r.matches_path) != StorageKind::None ? "opencv"
                                                                                       : "txt";
  if (r.matches_format == "opencv") {
    r.matches_storage = named_file ? storage_kind(r.matches_path) : StorageKind::Yaml;
    if (r.matches_storage == StorageKind::None) {
      throw UsageError(
          "--format opencv: -o must end in .yml, .yaml (YAML) or .xml (XML), as OpenCV's "
          "FileStorage reads by the name, not '" +
          r.matches_path + "'");
    }
  }
  if (r.matches_format != "colmap") return;
  for (int i = 0; i < 2; ++i) {
    if (r.images[i] == "/dev/stdin") {
      throw UsageError(
          "--format colmap names the images in COLMAP's match list: a piped image (-) has no name");
    }
    r.image_names[i] = std::filesystem::path(r.images[i]).filename().string();
    if (r.image_names[i].find_first_of(" \t\r\n\v\f") != std::string::npos) {
      throw UsageError("--format colmap: COLMAP reads the image names as words; '" + r.image_names[i] +
                       "' has white space in it");
    }
  }
}

// The options and the outputs, checked before any work: no output may be an
// input or another output.
Request read_request(Args& args) {
  Request r;
  r.backend = backend_option(args);
  // The detector's and the loader's options given, refused later when both
  // inputs are feature files (which are matched as they are).
  const size_t before = args.taken().size();
  r.features = feature_options(args);
  r.tiling = tiling_options(args);
  r.load = load_options(args);
  r.image_options.assign(args.taken().begin() + static_cast<std::ptrdiff_t>(before), args.taken().end());
  r.matcher = match_options(args);
  r.geometry = args.option("--geometry");
  if (r.geometry != "h" && r.geometry != "f" && r.geometry != "auto") {
    throw UsageError("--geometry must be h, f or auto, not '" + r.geometry + "'");
  }
  r.matches_path = args.option("-o");
  const std::string format = args.option("--format");
  r.homography_path = args.option("--homography");
  r.fundamental_path = args.option("--fundamental");
  if (!r.homography_path.empty() && r.geometry == "f") {
    throw UsageError("--homography needs --geometry h or auto: --geometry f estimates no homography");
  }
  if (!r.fundamental_path.empty() && r.geometry == "h") {
    throw UsageError(
        "--fundamental needs --geometry f or auto: --geometry h estimates no fundamental matrix");
  }
  r.draw_path = args.option("--draw");
  if (!r.draw_path.empty()) check_png_name("--draw", r.draw_path);
  const size_t before_draw = args.taken().size();
  r.draw_outliers = args.flag("--draw-outliers");
  r.draw_max = args.option_int("--draw-max");
  const std::string draw_option = args.taken().size() > before_draw ? args.taken()[before_draw] : "";
  r.truth_path = args.option("--truth");
  r.images = args.positionals();
  args.finish();
  check_feature_options(r.features);
  if (r.draw_path.empty() && !draw_option.empty()) throw UsageError(draw_option + " needs --draw");
  if (r.images.empty()) {  // the bundled pair, with its ground truth
    r.images = {asset_dir() + "/graf1.png", asset_dir() + "/graf3.png"};
    if (r.truth_path.empty()) r.truth_path = asset_dir() + "/H1to3p.xml";
  }
  if (r.images.size() != 2) throw UsageError("match needs two images (or none, for the bundled pair)");
  for (std::string& image : r.images) image = input_path(image);
  if (r.images[0] == "/dev/stdin" && r.images[1] == "/dev/stdin") {
    throw UsageError("only one of the two images can be piped in (-)");
  }
  matches_format(r, format);
  std::vector<std::pair<std::string, std::filesystem::path>> named;  // option, the file it writes
  for (const auto& [option, path] : {std::pair<const char*, const std::string&>{"-o", r.matches_path},
                                     {"--homography", r.homography_path},
                                     {"--fundamental", r.fundamental_path},
                                     {"--draw", r.draw_path}}) {
    if (path.empty()) continue;
    check_not_an_input(option, path, {r.images[0], r.images[1], r.truth_path});
    check_writable(path);  // before the work, not after it
    const std::filesystem::path file = output_identity(path);
    for (const auto& [other, other_file] : named) {
      if (!file.empty() && file == other_file) {
        throw UsageError(std::string(option) + " " + path + " names the same file as " + other);
      }
    }
    named.emplace_back(option, file);
  }
  return r;
}

// The images' features, where they are images, and the matches.
std::vector<Match> find_matches(const Request& r, Inputs& in) {
  const std::vector<std::string>& images = r.images;
  if (r.backend != "gl") {
    Extractor extractor(r.features, r.tiling, nullptr);
    if (!in.file_a) in.fa = extractor.describe(in.a, images[0]);
    if (!in.file_b) in.fb = extractor.describe(in.b, images[1]);
    return cpu::match(in.fa, in.fb, r.matcher);
  }
  gl::Context context = headless_or_hint();
  std::unique_ptr<Extractor> extractor;  // for the images among the inputs
  if (!in.file_a || !in.file_b) {
    extractor = std::make_unique<Extractor>(r.features, r.tiling, &context);
    // The textures' limits too, both before either's work.
    if (!in.file_a) extractor->check_image(images[0], in.a);
    if (!in.file_b) extractor->check_image(images[1], in.b);
  }
  GpuMatcher matcher(context, r.matcher);
  // Both images' tiles are decided before either is detected (what is
  // available changes as the first one is). The descriptors stay on the GPU
  // for matching, unless an image is tiled (its descriptors come back from
  // each tile).
  const auto side_of = [&](bool file, const GrayImage& image) {
    return file ? 0 : extractor->tile_side(image);
  };
  const int side_a = side_of(in.file_a, in.a), side_b = side_of(in.file_b, in.b);
  if (!in.file_a && !in.file_b && side_a == 0 && side_b == 0 && extractor->keeps_on_gpu()) {
    DescriptorTextures ra, rb;
    in.fa = extractor->describe(in.a, images[0], &ra, nullptr, 0);
    in.fb = extractor->describe(in.b, images[1], &rb, nullptr, 0);
    return matcher.match(ra, rb);
  }
  if (!in.file_a) in.fa = extractor->describe(in.a, images[0], nullptr, nullptr, side_a);
  if (!in.file_b) in.fb = extractor->describe(in.b, images[1], nullptr, nullptr, side_b);
  return matcher.match(in.fa, in.fb);
}

// The geometric verification of the matches, whichever model did it.
struct Verification {
  std::vector<bool> inliers;  // per match; all false when no model was found
  std::string verdict;        // the summary's words on it
  // The models found, each null when none: the files are written from them,
  // the picture draws A's outline by the homography, the truth's corner
  // error is the homography's.
  const Homography* h = nullptr;
  const Fundamental* f = nullptr;
  HomographyResult h_result;
  FundamentalResult f_result;
  TwoViewGeometry two_view;
};

std::string printed(const char* format, int a, int b = 0, int c = 0) {
  char text[160];
  std::snprintf(text, sizeof text, format, a, b, c);
  return text;
}

// --geometry h (a homography, as before the others came), f (a fundamental
// matrix) or auto (COLMAP's configuration of an uncalibrated pair). A model
// file is written when its model was found: in auto mode, when its RANSAC
// found one with at least min_num_inliers inliers.
void verify(const std::string& geometry, size_t matches, const std::vector<PointPair>& pairs,
            Verification& v) {
  // One model's words: its inliers, or why there is none ("no homography").
  const auto one_model = [&](bool found, int inliers, size_t sample, int needed, const char* none,
                             const char* suffix) {
    if (found) return printed("%d inliers", inliers) + suffix;
    if (matches < sample) return std::string(none) + printed(" (%d inliers needed)", needed);  // no fit tried
    return std::string(none) + printed(" (best fit %d inliers, %d needed)", inliers, needed);
  };
  if (geometry == "h") {
    v.h_result = ransac_homography(pairs);
    const HomographyResult& h = v.h_result;
    v.verdict = one_model(h.found, h.inlier_count, 4, RansacConfig{}.min_inliers, "no homography", "");
    if (h.found) v.h = &h.h;
    v.inliers = h.inliers;
  } else if (geometry == "f") {
    v.f_result = ransac_fundamental(pairs);
    const FundamentalResult& f = v.f_result;
    v.verdict = one_model(f.found, f.inlier_count, 7, fundamental_ransac_config().min_inliers,
                          "no fundamental matrix", " (F)");
    if (f.found) v.f = &f.f;
    v.inliers = f.inliers;
  } else {
    const TwoViewOptions options;
    v.two_view = estimate_two_view_geometry(pairs, options);
    const TwoViewGeometry& g = v.two_view;
    const int needed = options.min_num_inliers;
    if (g.configuration == TwoViewConfiguration::degenerate) {
      v.verdict =
          matches < static_cast<size_t>(needed)
              ? printed("degenerate: no fundamental matrix, no homography (%d matches needed)", needed)
              : printed(
                    "degenerate: no fundamental matrix, no homography (best fits F %d, H %d inliers, "
                    "%d needed)",
                    g.f_inlier_count, g.h_inlier_count, needed);
    } else {
      v.verdict = std::string(to_string(g.configuration)) + ": " + printed("%d inliers", g.inlier_count) +
                  (g.inliers_from_h ? " (H)" : " (F)");
      if (g.h_found && g.h_inlier_count >= needed) v.h = &g.h;
      if (g.f_found && g.f_inlier_count >= needed) v.f = &g.f;
    }
    v.inliers = g.inliers;
  }
}

// The outputs asked for, staged to be written all or none: a failing
// --draw must not leave -o behind. A model file asked for is left out when
// its model was not found; the matches are written all the same.
void stage_outputs(OutputFiles& outputs, const Request& r, const Inputs& in,
                   const std::vector<Match>& matches, const Verification& v, double ms) {
  if (r.matches_format == "opencv") {
    outputs.add(r.matches_path, false,
                [&](std::ostream& out) { write_opencv_matches(out, matches, v.inliers, r.matches_storage); });
  } else if (r.matches_format == "colmap") {
    outputs.add(r.matches_path, false, [&](std::ostream& out) {
      write_colmap_matches(out, r.image_names[0], r.image_names[1], matches);
    });
  } else if (!r.matches_path.empty()) {
    outputs.add(r.matches_path, false, [&](std::ostream& out) {
      out << "# i j x1 y1 x2 y2 distance inlier\n";
      char line[192];
      for (size_t i = 0; i < matches.size(); ++i) {
        const KeyPoint &ka = in.fa.keypoints[static_cast<size_t>(matches[i].query)],
                       &kb = in.fb.keypoints[static_cast<size_t>(matches[i].train)];
        // %.9g: every float coordinate reads back exactly.
        std::snprintf(line, sizeof line, "%d %d %.9g %.9g %.9g %.9g %.7g %d\n", matches[i].query,
                      matches[i].train, ka.x, ka.y, kb.x, kb.y, matches[i].distance, v.inliers[i] ? 1 : 0);
        out << line;
      }
    });
  }
  if (!r.homography_path.empty() && v.h) {
    outputs.add(r.homography_path, false, [&](std::ostream& out) { write_homography(out, *v.h); });
  }
  if (!r.fundamental_path.empty() && v.f) {
    outputs.add(r.fundamental_path, false, [&](std::ostream& out) { write_fundamental(out, *v.f); });
  }
  if (!r.draw_path.empty()) {
    outputs.add(r.draw_path, true, [&, ms](std::ostream& out) {
      MatchDrawing d;
      d.a = &in.colour_a, d.b = &in.colour_b, d.fa = &in.fa, d.fb = &in.fb;
      d.matches = &matches, d.inliers = &v.inliers, d.h = v.h;
      const auto name = [](const std::string& path) {
        return std::filesystem::path(path).filename().string();
      };
      d.caption = {"A " + name(r.images[0]) + ": " + counted(in.fa.keypoints.size(), "feature") + "   B " +
                   name(r.images[1]) + ": " + counted(in.fb.keypoints.size(), "feature") + "   " +
                   counted(matches.size(), "match", "matches") + ", " + v.verdict + "   " +
                   std::to_string(std::lround(ms)) + " ms (" + r.backend + ")"};
      d.outliers = r.draw_outliers;
      d.max_drawn = r.draw_max;
      write_match_png(out, r.draw_path, d);
    });
  }
}

// The summary line, and with a ground truth the correct matches and the
// homography's corner error; on standard error when an output goes to
// standard output. Returns where it went.
FILE* print_summary(const Request& r, const Inputs& in, size_t matches, const std::vector<PointPair>& pairs,
                    const Verification& v, const Homography* truth, double ms) {
  bool output_on_stdout = false;
  for (const std::string& path : {r.matches_path, r.homography_path, r.fundamental_path, r.draw_path}) {
    output_on_stdout = output_on_stdout || (!path.empty() && standard_stream_of(path) == 1);
  }
  FILE* const summary = output_on_stdout ? stderr : stdout;
  std::fprintf(summary, "%s: %s, %s: %s, %s, %s, %.0f ms (%s)\n", one_line(r.images[0]).c_str(),
               counted(in.fa.keypoints.size(), "feature").c_str(), one_line(r.images[1]).c_str(),
               counted(in.fb.keypoints.size(), "feature").c_str(),
               counted(matches, "match", "matches").c_str(), v.verdict.c_str(), ms, r.backend.c_str());
  if (!truth) return summary;
  int correct = 0;
  for (const PointPair& p : pairs) correct += reprojection_error(*truth, p) < 3.0;
  std::string corner =
      in.file_a ? "n/a (A is a feature file: no image size)" : "n/a";  // or no homography found
  if (v.h && !in.file_a) {
    const double e = corner_error(*v.h, *truth, in.a.width, in.a.height);
    corner = std::isnan(e) ? "n/a (the truth sends part of A to infinity)" : std::to_string(e) + " px";
  }
  std::fprintf(summary, "against %s: %d correct matches (< 3 px), homography corner error %s\n",
               r.truth_path.c_str(), correct, corner.c_str());
  return summary;
}

// --database DB: the pairs of a set of images, detected into DB before.
int match_set(Args& args, const std::string& database) {
  DatabaseMatch run;
  run.database = database;
  run.pairs = args.option("--pairs");
  const std::string shard = args.option("--shard");
  if (!shard.empty()) run.shard = parse_shard(shard);
  run.quiet = args.flag("--quiet");
  run.backend = backend_option(args);
  run.matcher = match_options(args);
  const size_t before = args.taken().size();
  feature_options(args);
  tiling_options(args);
  load_options(args);
  for (const char* option :
       {"-o", "--format", "--homography", "--fundamental", "--geometry", "--draw", "--truth"})
    args.option(option);
  args.flag("--draw-outliers"), args.option_int("--draw-max");
  const std::vector<std::string> images = args.positionals();
  args.finish();
  if (args.taken().size() > before)
    throw UsageError(args.taken()[before] + " does not apply to --database (the features are in it)");
  if (!images.empty()) throw UsageError("--database takes no images: they are in the database");
  return match_database(run);
}

int match(Args& args) {
  if (const std::string database = args.option("--database"); !database.empty())
    return match_set(args, database);
  const size_t before = args.taken().size();
  args.option("--pairs"), args.option("--shard"), args.flag("--quiet");
  const std::string set_option = args.taken().size() > before ? args.taken()[before] : "";
  const Request r = read_request(args);
  if (!set_option.empty()) throw UsageError(set_option + " needs --database");
  Inputs in = read_inputs(r);
  if (r.matches_format == "colmap" && (in.file_a || in.file_b)) {
    throw UsageError("--format colmap names the images in COLMAP's match list: " +
                     r.images[in.file_a ? 0 : 1] + " is a feature file; give its image");
  }
  Homography truth{};  // read before the work: a bad one is an error then
  if (!r.truth_path.empty()) truth = read_homography_file(r.truth_path);

  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<Match> matches = find_matches(r, in);
  std::vector<PointPair> pairs;
  for (const Match& m : matches) {
    const KeyPoint &ka = in.fa.keypoints[static_cast<size_t>(m.query)],
                   &kb = in.fb.keypoints[static_cast<size_t>(m.train)];
    pairs.push_back({ka.x, ka.y, kb.x, kb.y});
  }
  Verification v;
  verify(r.geometry, matches.size(), pairs, v);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();

  // The model files asked for that have no model: not written, which the
  // exit status says; the matches are never lost.
  std::vector<std::string> unwritten;
  if (!r.homography_path.empty() && !v.h) unwritten.push_back("homography (" + r.homography_path + ")");
  if (!r.fundamental_path.empty() && !v.f)
    unwritten.push_back("fundamental matrix (" + r.fundamental_path + ")");
  OutputFiles outputs;
  stage_outputs(outputs, r, in, matches, v, ms);
  // The report comes before the outputs are committed: one that cannot be
  // written (a full disk, a closed descriptor) fails the run, and a failed
  // run leaves no output behind.
  if (print_summary(r, in, matches.size(), pairs, v, r.truth_path.empty() ? nullptr : &truth, ms) == stdout)
    flush_standard_output();
  outputs.commit();
  for (const std::string& what : unwritten) {
    std::fprintf(stderr, "glsurf: warning: no %s written: none found%s\n", one_line(what).c_str(),
                 r.matches_path.empty() ? "" : "; the matches are, all with inlier 0");
  }
  return unwritten.empty() ? 0 : 1;
}

OptionTable match_options_table() {
  OptionTable table = {
      text("-o", "FILE", "",
           "the matches: a header line '# i j x1 y1 x2 y2 distance inlier', then a line each (inlier 1 or 0; "
           "all 0 "
           "when no model is found: the matches are written all the same)",
           "none"),
      text("--format", "txt|opencv|colmap", "",
           "the format of -o: txt as above; opencv a FileStorage (YAML or XML by the name) with the matches "
           "as "
           "cv::DMatch and their inlier flags; colmap COLMAP's match list for matches_importer --match_type "
           "raw (the images' file names, then a line 'i j' per match)",
           "opencv where -o ends in .yml, .yaml or .xml, else txt"),
      text(
          "--geometry", "h|f|auto", "h",
          "the model that verifies the matches: h a homography (8 inliers, 3 px), f a fundamental matrix (15 "
          "inliers, 3 px Sampson distance), auto COLMAP's choice for an uncalibrated pair (F and H at 4 px, "
          "15 "
          "inliers; planar or panoramic when H has over 0.8 of F's inliers)"),
      text(
          "--homography", "FILE", "",
          "the homography found (3 lines; with h or auto). None found: not written, a warning, exit status 1",
          "none"),
      text("--fundamental", "FILE", "",
           "the fundamental matrix found (3 lines, x_b^T F x_a = 0; with f or auto). None found: not "
           "written, a "
           "warning, exit status 1",
           "none"),
      text("--draw", "FILE.png", "",
           "a picture of both images in colour with the inliers, A's outline mapped by the homography and "
           "a caption (PNG; a pair wider than 2000 pixels drawn scaled down)",
           "none"),
      flag("--draw-outliers", "with --draw: the outliers too, as faint red lines"),
      integer("--draw-max", "N", 300, 0, 1000000,
              "with --draw: at most N inliers (and N outliers) drawn, those of closest descriptors"),
      text("--truth", "H", "",
           "a ground-truth homography (Oxford text, or OpenCV XML/YAML): correct matches and corner error",
           "H1to3p.xml with the bundled pair, else none"),
      shared_option("--backend"),
      text("--database", "DB", "",
           "match the images that glsurf detect stored in DB (a COLMAP database) instead of A and B; "
           "the matches and two-view geometries go into it, pairs already in it are skipped",
           "none"),
      text("--pairs", "LIST", "exhaustive",
           "with --database: exhaustive, sequential[:K] (each image with the K after it by name; 10), "
           "or a file of lines NAME1 NAME2 (COLMAP's match list)"),
      shard_option("pairs"),
      flag("--quiet", "with --database: no progress, only errors")};
  for (const OptionTable& rows : {match_table(), detector_table(), sift_table(), tiling_table()})
    table.insert(table.end(), rows.begin(), rows.end());
  table.push_back(shared_option("--ignore-orientation"));
  return table;
}

}  // namespace

Command match_command() {
  return {"match",
          "[A B]",
          "detect, describe and match two images, and verify with a homography or a fundamental matrix",
          "With no images, the bundled graf1/graf3 pair and its ground truth. One of them may be - (an "
          "image piped in); either may instead be a feature file with descriptors (detect's output, "
          "named), matched as it is. A homography needs 8 inliers, a fundamental matrix 15.",
          match_options_table,
          match,
          "match assets/box.png assets/box_in_scene.png --homography H.txt --draw matches.png",
          {}};
}

}  // namespace glsurf::app
