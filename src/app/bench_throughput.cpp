// glsurf bench throughput — an image set through the commands a user runs:
// images per second of `detect --database` and pairs per second of
// `match --database --pairs exhaustive`, GL and CPU backends side by side in
// one process, rounds alternating between them (A B A B).
//
// The set is made at run time from the bundled photographs: each image a
// crop of one of them, turned and scaled at random (fixed seed), resampled
// with glsurf's own warp (io/warp.hpp) and written as PNG; no two alike.
// What is timed is the whole call of detect_into_database / match_database
// on a fresh database: context creation and shader compilation, PNG
// decoding, SQLite, and the two-view verification, as `glsurf detect` and
// `glsurf match` spend them (less the process start).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "app/bench_common.hpp"
#include "app/detect_database.hpp"
#include "app/json.hpp"
#include "app/match_database.hpp"
#include "database/colmap.hpp"
#include "database/sqlite.hpp"
#include "gl/context.hpp"
#include "io/draw.hpp"
#include "io/image.hpp"
#include "io/output.hpp"
#include "io/warp.hpp"

namespace glsurf::app {

namespace {

namespace fs = std::filesystem;

const char* const kBackends[2] = {"gl", "cpu"};

// `count` distinct width x height views of the bundled photographs into
// `dir` (view_000.png, ...): photo i mod 3 (graf1, graf3, box_in_scene),
// turned by -25..25 degrees, scaled 1 to 1.5 times the least scale at which
// the turned frame fits inside the photo, at a random place in it. Returns
// the files' paths.
std::vector<std::string> make_views(const std::string& dir, int count, int width, int height) {
  const std::string assets = asset_dir();
  const GrayImage photos[3] = {load_gray(assets + "/graf1.png"), load_gray(assets + "/graf3.png"),
                               load_gray(assets + "/box_in_scene.png")};
  std::mt19937 rng(51);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<std::string> paths;
  std::vector<std::uint8_t> pixels(static_cast<size_t>(width) * static_cast<size_t>(height));
  for (int i = 0; i < count; ++i) {
    const GrayImage& photo = photos[i % 3];
    const double turn = (unit(rng) - 0.5) * 50.0 * M_PI / 180.0;
    const double c = std::cos(turn), s = std::sin(turn);
    // The output frame's half extents back in the photo at scale 1, and the
    // room the photo leaves (3 px kept clear for the resampling kernel).
    const double half_x = 0.5 * (width * std::abs(c) + height * std::abs(s));
    const double half_y = 0.5 * (width * std::abs(s) + height * std::abs(c));
    const double room_x = 0.5 * (photo.width - 7), room_y = 0.5 * (photo.height - 7);
    const double scale = std::max(half_x / room_x, half_y / room_y) * (1.0 + 0.5 * unit(rng));
    const double ex = half_x / scale, ey = half_y / scale;
    const double cx = 3 + ex + unit(rng) * (photo.width - 7 - 2 * ex);
    const double cy = 3 + ey + unit(rng) * (photo.height - 7 - 2 * ey);
    // Photo point p goes to scale * R (p - centre) + the output's centre.
    const double ox = 0.5 * (width - 1), oy = 0.5 * (height - 1);
    const Homography to_output = {scale * c, -scale * s, ox - scale * (c * cx - s * cy),
                                  scale * s, scale * c,  oy - scale * (s * cx + c * cy),
                                  0,         0,          1};
    const std::vector<double> values = warp_image(photo, to_output, width, height);
    for (size_t k = 0; k < values.size(); ++k)
      pixels[k] = static_cast<std::uint8_t>(std::clamp(std::lround(values[k]), 0L, 255L));
    char name[32];
    std::snprintf(name, sizeof name, "/view_%03d.png", i);
    paths.push_back(dir + name);
    write_png(paths.back(), width, height, 1, pixels.data());
  }
  return paths;
}

// One integer from a query on the database at `path` (0 for NULL).
std::int64_t count_in(const std::string& path, const std::string& query) {
  sql::Connection db(path, sql::Connection::Mode::ReadOnly);
  sql::Statement s = db.prepare(query);
  return s.step() && !s.is_null(0) ? s.integer(0) : 0;
}

// The times of one step, per backend (seconds, one per round).
struct Timed {
  std::vector<double> seconds[2];
  std::int64_t check[2] = {-1, -1};  // per backend, of the last round: keypoints or verified pairs
};

std::string times_json(const std::vector<double>& seconds) {
  std::string text = "[";
  for (size_t i = 0; i < seconds.size(); ++i) {
    char value[32];
    std::snprintf(value, sizeof value, "%s%.3f", i ? ", " : "", seconds[i]);
    text += value;
  }
  return text + "]";
}

// A step's JSON: per backend the seconds of each round, their median, the
// rate (`unit` per second) and the check; gl_over_cpu: how many times the
// CPU's median the GL backend's rate is.
std::string step_json(const Timed& t, const std::string& unit, double work, const std::string& check_name,
                      const std::string& extra) {
  std::string text = "{" + extra;
  for (int b = 0; b < 2; ++b) {
    char head[256];
    const double m = median(t.seconds[b]);
    std::snprintf(head, sizeof head,
                  "\"%s\": {\"seconds\": %s, \"median_s\": %.3f, \"%s_per_s\": %.3f, \"%s\": %lld}, ",
                  kBackends[b], times_json(t.seconds[b]).c_str(), m, unit.c_str(), work / m,
                  check_name.c_str(), static_cast<long long>(t.check[b]));
    text += head;
  }
  char ratio[64];
  std::snprintf(ratio, sizeof ratio, "\"gl_over_cpu\": %.3f}", median(t.seconds[1]) / median(t.seconds[0]));
  return text + ratio;
}

void print_row(FILE* listing, const char* step, const Timed& t, const char* unit, double work) {
  const double gl = median(t.seconds[0]), cpu = median(t.seconds[1]);
  std::fprintf(listing, "%-30s | %8.2f %9.2f %-8s | %8.2f %9.2f %-8s | %6.2fx\n", step, gl, work / gl, unit,
               cpu, work / cpu, unit, cpu / gl);
  std::fflush(listing);
}

int run_throughput(Args& args) {
  const int images = args.option_int("--images");
  const int set = args.option_int("--set");
  const int max_features = args.option_int("--features");
  const int rounds = args.option_int("--rounds");
  const std::vector<std::pair<int, int>> sizes = parse_sizes(args.option("--size"));
  const std::string keep = args.option("--keep");
  const std::string json = args.option("--json");
  args.finish();
  if (sizes.size() != 1) throw UsageError("--size wants one WxH");
  const auto [width, height] = sizes.front();
  if (width < 32 || height < 32 || width > 4096 || height > 4096)
    throw UsageError("--size wants WxH from 32x32 to 4096x4096");
  FILE* const listing = standard_stream_of(json) == 1 ? stderr : stdout;
  if (!json.empty()) check_writable(json);  // before minutes of work, not after them

  // The working folder: --keep's (made here, left), else a temporary one.
  std::string dir = keep;
  if (keep.empty()) {
    std::string pattern = (fs::temp_directory_path() / "glsurf-throughput.XXXXXX").string();
    if (!mkdtemp(pattern.data())) throw Error(pattern + ": cannot create a temporary directory");
    dir = pattern;
  } else {
    std::error_code ec;
    if (fs::exists(keep, ec)) throw UsageError("--keep " + keep + ": exists; name a new folder");
    if (!fs::create_directories(keep, ec) || ec) throw Error(keep + ": cannot create the folder");
  }
  struct Cleanup {
    std::string dir;
    ~Cleanup() {
      std::error_code ec;
      if (!dir.empty()) fs::remove_all(dir, ec);
    }
  } cleanup{keep.empty() ? dir : ""};

  std::string renderer, version;
  bool software = false;
  {
    const gl::Context ctx = headless_or_hint();
    renderer = ctx.info().renderer, version = ctx.info().version, software = ctx.info().software();
  }
  std::fprintf(listing, "glsurf bench throughput — %s, %s%s\n", renderer.c_str(), version.c_str(),
               software_note(software));

  const std::string image_dir = dir + "/images";
  fs::create_directories(image_dir);
  const Clock::time_point made_at = Clock::now();
  const std::vector<std::string> files = make_views(image_dir, std::max(images, set), width, height);
  const double made_s = ms_since(made_at) / 1000.0;
  const std::vector<std::string> detect_files(files.begin(), files.begin() + images);
  const std::vector<std::string> set_files(files.begin(), files.begin() + set);
  const double pairs = 0.5 * set * (set - 1);

  DetectorConfig detect_config, set_config;
  set_config.max_features = max_features;
  const MatchConfig match_config;
  std::fprintf(
      listing,
      "  %d views %dx%d (turned, scaled crops of graf1, graf3, box_in_scene; PNG; made in %.1f s, not "
      "timed)\n"
      "  detect: detect --database over %d images, default detector; match: match --database --pairs\n"
      "  exhaustive over %d of them (%.0f pairs), features detected once (gl, --max-features %d) and the\n"
      "  database copied for each run. Seconds: the whole call (context, shaders, decoding, SQLite,\n"
      "  verification), median of %d round%s, backends alternating (gl cpu gl cpu ...)\n\n",
      std::max(images, set), width, height, made_s, images, set, pairs, max_features, rounds,
      rounds == 1 ? "" : "s");

  // (a) detect: a fresh database per run.
  Timed detect;
  for (int r = 0; r < rounds; ++r) {
    for (int b = 0; b < 2; ++b) {
      const std::string db = dir + "/detect_" + kBackends[b] + ".db";
      fs::remove(db);
      const Clock::time_point t0 = Clock::now();
      DatabaseDetect run;
      run.database = db, run.backend = kBackends[b], run.choice.surf = detect_config,
      run.names = detect_files;
      run.quiet = true;
      const int status = detect_into_database(run);
      detect.seconds[b].push_back(ms_since(t0) / 1000.0);
      if (status != 0) throw Error(std::string("detect --backend ") + kBackends[b] + " failed");
      detect.check[b] = count_in(db, "SELECT sum(rows) FROM keypoints");
      if (count_in(db, "SELECT count(*) FROM images") != images)
        throw Error(db + ": not every image was stored");
    }
  }

  // (b) match: features of the set once, then a copy of that database per run.
  const std::string features_db = dir + "/set_features.db";
  DatabaseDetect set_run;
  set_run.database = features_db, set_run.backend = "gl", set_run.choice.surf = set_config,
  set_run.names = set_files;
  set_run.quiet = true;
  if (detect_into_database(set_run) != 0) throw Error("detect of the matching set failed");
  const std::int64_t set_keypoints = count_in(features_db, "SELECT sum(rows) FROM keypoints");
  Timed match;
  for (int r = 0; r < rounds; ++r) {
    for (int b = 0; b < 2; ++b) {
      const std::string db = dir + "/match_" + kBackends[b] + ".db";
      fs::copy_file(features_db, db, fs::copy_options::overwrite_existing);
      DatabaseMatch run;
      run.database = db;
      run.backend = kBackends[b];
      run.matcher = match_config;
      run.pairs = "exhaustive";
      run.quiet = true;
      const Clock::time_point t0 = Clock::now();
      match_database(run);
      match.seconds[b].push_back(ms_since(t0) / 1000.0);
      match.check[b] = count_in(db, "SELECT count(*) FROM two_view_geometries WHERE rows > 0");
      if (count_in(db, "SELECT count(*) FROM matches") != static_cast<std::int64_t>(pairs))
        throw Error(db + ": not every pair was stored");
    }
  }

  std::fprintf(listing, "%-30s | %-28s | %-28s | %s\n", "", "gl: s, rate", "cpu: s, rate", "gl/cpu");
  char step[64];
  std::snprintf(step, sizeof step, "detect, %d images", images);
  print_row(listing, step, detect, "images/s", images);
  std::snprintf(step, sizeof step, "match, %d images, %.0f pairs", set, pairs);
  print_row(listing, step, match, "pairs/s", pairs);
  std::fprintf(listing,
               "\n  keypoints stored: detect gl %lld, cpu %lld; matching set: %.0f per image on average;\n"
               "  pairs verified (with inliers): gl %lld, cpu %lld of %.0f\n",
               static_cast<long long>(detect.check[0]), static_cast<long long>(detect.check[1]),
               static_cast<double>(set_keypoints) / set, static_cast<long long>(match.check[0]),
               static_cast<long long>(match.check[1]), pairs);
  if (software)
    std::fprintf(listing, "  llvmpipe: both columns ran on the CPU; gl/cpu compares two CPU code paths\n");
  if (!keep.empty()) std::fprintf(listing, "  images and databases kept in %s\n", keep.c_str());

  if (!json.empty()) {
    char size[32], extra_detect[64], extra_match[128];
    std::snprintf(size, sizeof size, "%dx%d", width, height);
    std::snprintf(extra_detect, sizeof extra_detect, "\"images\": %d, ", images);
    std::snprintf(extra_match, sizeof extra_match,
                  "\"images\": %d, \"pairs\": %.0f, \"max_features\": %d, \"mean_features\": %.1f, ", set,
                  pairs, max_features, static_cast<double>(set_keypoints) / set);
    write_file_atomically(json, false, [&](std::ostream& out) {
      out << "{\n  \"renderer\": \"" << json_escaped(renderer) << "\",\n  \"version\": \""
          << json_escaped(version) << "\",\n  \"software\": " << (software ? "true" : "false")
          << ",\n  \"image_size\": \"" << size << "\",\n  \"rounds\": " << rounds
          << ",\n  \"detector\": " << detector_json(detect_config)
          << ",\n  \"matcher\": " << matcher_json(match_config)
          << ",\n  \"detect\": " << step_json(detect, "images", images, "keypoints", extra_detect)
          << ",\n  \"match\": " << step_json(match, "pairs", pairs, "verified_pairs", extra_match) << "\n}\n";
    });
  }
  return 0;
}

OptionTable throughput_options() {
  return {
      integer("--images", "N", 100, 1, 100000, "images for detect"),
      integer("--set", "N", 50, 2, 2000, "images for exhaustive matching (N (N - 1) / 2 pairs)"),
      integer("--features", "N", 2000, 1, 65536, "the matching set's --max-features"),
      integer("--rounds", "N", 2, 1, 100, "rounds of gl then cpu (the median is shown)"),
      text("--size", "WxH", "640x480", "the images' size"),
      text("--keep", "DIR", "", "make the images and databases in DIR (a new folder) and leave them there",
           "a temporary folder, removed"),
      text("--json", "OUT", "",
           "the results as JSON (-: on standard output, the table then on standard error)", "none")};
}

}  // namespace

Command bench_throughput_command() {
  return {"bench throughput",
          "",
          "images/s of detect --database and pairs/s of match --database, gl and cpu backends",
          "An image set made from the bundled photos (turned, scaled crops) through the real code paths: "
          "detect into a fresh COLMAP database, then exhaustive matching with verification, on the gl and "
          "the cpu backend in alternating rounds. Times include context creation, decoding and SQLite.",
          throughput_options,
          run_throughput,
          "bench throughput --images 20 --set 10 --json throughput.json",
          {}};
}

}  // namespace glsurf::app
