// glsurf warp — synthetic sequences in the Oxford format with exact
// homographies; glsurf eval — the Mikolajczyk protocol on such a sequence.
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <sstream>

#include "app/cli.hpp"
#include "cpu/matcher.hpp"
#include "eval/metrics.hpp"
#include "gl/context.hpp"
#include "gl/error.hpp"
#include "glsurf/geometry.hpp"
#include "io/draw.hpp"
#include "io/image.hpp"
#include "io/output.hpp"
#include "io/warp.hpp"
#include "match/matcher.hpp"
#include "surf/detector.hpp"

namespace glsurf::app {

namespace fs = std::filesystem;

namespace {

std::vector<double> number_list(Args& args, const std::string& name) {
  const std::string text = args.option(name, "");
  std::vector<double> values;
  if (text.empty()) return values;
  if (text.back() == ',') throw UsageError(name + " wants numbers separated by commas, got '" + text + "'");
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    // Decimal only: strtod would also read hexadecimal ("0x10" as 16). Not
    // std::stod, which calls a subnormal result (1e-320) out of range.
    const bool decimal = !item.empty() && item.find_first_of("xX") == std::string::npos;
    char* end = nullptr;
    errno = 0;
    const double value = decimal ? std::strtod(item.c_str(), &end) : 0.0;
    if (!decimal || end != item.c_str() + item.size() || !std::isfinite(value)) {
      throw UsageError(name + " wants numbers separated by commas, got '" + item + "'");
    }
    if (errno == ERANGE && value == 0.0) {
      throw UsageError(name + ": '" + item + "' is too small to represent (it would be 0)");
    }
    values.push_back(value);
  }
  return values;
}

void require(const std::vector<double>& values, const std::string& name, bool (*ok)(double),
             const char* what) {
  for (double v : values)
    if (!ok(v)) {
      char value[32];
      std::snprintf(value, sizeof value, "%g", v);
      throw UsageError(name + " wants " + what + ", got " + value);
    }
}

void write_png_gray(const std::string& path, const GrayImage& image) {
  write_png(path, image.width, image.height, 1, image.pixels.data());
}

// An Oxford-format sequence: img1..imgN (any image name, is_image_name) and
// H1to2p..H1toNp, by number.
struct Sequence {
  std::map<int, std::string> images;
  std::map<int, Homography> homographies;
  std::map<int, std::string> homography_files;  // as found: H1tokp, H1tokp.xml, ...
};

// The number in `name` = prefix + digits + suffix, or -1; `path`, the file
// it names, is what an error shows.
int numbered(const std::string& name, const std::string& prefix, const std::string& suffix,
             const fs::path& path) {
  if (name.size() <= prefix.size() + suffix.size() || name.compare(0, prefix.size(), prefix) != 0 ||
      name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) {
    return -1;
  }
  const std::string digits = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
  // No leading zeros: img01 is not img1 (one file per number, as Oxford names them).
  if (digits[0] == '0' || digits.find_first_not_of("0123456789") != std::string::npos) return -1;
  // Every pair is scored, so one that cannot be is an error, not left out.
  if (digits.size() > 6) throw Error(path.string() + ": sequence numbers above 999999 are not supported");
  return std::stoi(digits);
}

// Reads the directory and every homography in it; a pair with only one of
// its image and homography, or an image under two names, is an error rather
// than a pair left out.
Sequence read_sequence(const fs::path& dir) {
  if (!fs::is_directory(dir)) throw Error(dir.string() + ": not a directory");
  Sequence seq;
  std::map<int, std::string> homography_files;
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    // H1tokp, also with the extension of a file in another of the formats
    // read_homography_file reads (the bundled assets/H1to3p.xml).
    const std::string extension = entry.path().extension().string();
    const bool known =
        extension == ".txt" || extension == ".xml" || extension == ".yml" || extension == ".yaml";
    if (const int k = numbered(known ? entry.path().stem().string() : name, "H1to", "p", entry.path());
        k >= 2) {
      if (homography_files.count(k)) {
        throw Error(dir.string() + ": H1to" + std::to_string(k) + "p is there twice (" +
                    fs::path(homography_files[k]).filename().string() + ", " + name + ")");
      }
      homography_files[k] = entry.path().string();
    }
    if (!is_image_name(name)) continue;
    std::string stem = entry.path().stem().string();  // img1, IMG1, Img1: one name
    std::transform(stem.begin(), stem.end(), stem.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    const int k = numbered(stem, "img", "", entry.path());
    if (k < 1) continue;
    if (seq.images.count(k))
      throw Error(dir.string() + ": img" + std::to_string(k) + " is there twice (" +
                  fs::path(seq.images[k]).filename().string() + ", " + name + ")");
    seq.images[k] = entry.path().string();
  }
  if (ec) throw Error(dir.string() + ": cannot read directory (" + ec.message() + ")");
  // Reading a pipe or a device could wait forever; a broken link is left
  // for the reader, which names it.
  auto require_regular = [](const std::string& path) {
    std::error_code error;
    const fs::file_status status = fs::status(path, error);
    if (fs::exists(status) && !fs::is_regular_file(status)) throw Error(path + ": not a regular file");
  };
  for (const auto& [k, path] : seq.images) require_regular(path);
  for (const auto& [k, path] : homography_files) require_regular(path);
  if (!seq.images.count(1)) throw Error(dir.string() + ": no img1 (img1.png, img1.ppm, ...)");
  for (const auto& [k, path] : seq.images) {
    if (k > 1 && !homography_files.count(k))
      throw Error(path + ": no H1to" + std::to_string(k) + "p beside it");
  }
  for (const auto& [k, path] : homography_files) {
    if (!seq.images.count(k)) throw Error(path + ": no img" + std::to_string(k) + " beside it");
    seq.homographies[k] = read_homography_file(path);
  }
  if (seq.homographies.empty()) throw Error(dir.string() + ": no pairs (img2 with H1to2p, ...)");
  seq.homography_files = std::move(homography_files);
  return seq;
}

// Moves the complete sequence from the staging directory inside the empty
// OUTDIR `out` into it, and removes the staging directory. SIGINT, SIGTERM and
// SIGHUP wait until the moves are done (a few renames), so that a signal never
// finds part of a sequence in OUTDIR. A name that someone else took in OUTDIR
// meanwhile is never replaced: the files moved so far are removed and the
// run fails. (A file system without RENAME_NOREPLACE checks the name first.)
void move_out_of_staging(const fs::path& staging, const std::string& out,
                         const std::vector<std::string>& names) {
  sigset_t block, previous;
  sigemptyset(&block);
  for (const int signal : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&block, signal);
  ::pthread_sigmask(SIG_BLOCK, &block, &previous);
  std::vector<fs::path> moved;
  int error = 0;
  std::string failed;
  for (const std::string& name : names) {
    const fs::path to = fs::path(out) / name;
    const fs::path from = staging / name;
    int status = ::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE);
    if (status != 0 && errno == EINVAL) {
      struct stat there {};
      status = ::lstat(to.c_str(), &there) == 0 ? (errno = EEXIST, -1) : ::rename(from.c_str(), to.c_str());
    }
    if (status != 0) {
      error = errno;
      failed = to.string();
      break;
    }
    moved.push_back(to);
  }
  if (error != 0) {
    for (const fs::path& p : moved) ::unlink(p.c_str());
  } else {
    ::rmdir(staging.c_str());
  }
  ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  if (error == EEXIST) throw Error(failed + ": appeared during the run; the sequence was not written");
  if (error != 0) throw Error(failed + ": cannot move into place (" + std::strerror(error) + ")");
}

}  // namespace

int warp(Args args) {
  const std::vector<double> rotate = number_list(args, "--rotate"), scale = number_list(args, "--scale"),
                            perspective = number_list(args, "--perspective"),
                            blur = number_list(args, "--blur"),
                            brightness = number_list(args, "--brightness"),
                            noise = number_list(args, "--noise");
  const LoadOptions load = load_options(args);
  const std::vector<std::string> positional = args.positionals();
  args.finish();
  if (positional.size() != 2) throw UsageError("warp needs IMAGE OUTDIR");
  require(
      scale, "--scale", [](double v) { return v > 0; }, "positive numbers");
  require(
      blur, "--blur", [](double v) { return v >= 0; }, "numbers >= 0");
  require(
      noise, "--noise", [](double v) { return v >= 0; }, "numbers >= 0");
  size_t steps = 0;
  std::string first;  // the first list given, for the error
  const std::pair<const char*, const std::vector<double>*> lists[] = {
      {"--rotate", &rotate}, {"--scale", &scale},           {"--perspective", &perspective},
      {"--blur", &blur},     {"--brightness", &brightness}, {"--noise", &noise}};
  for (const auto& [name, list] : lists) {
    if (list->empty()) continue;
    if (steps != 0 && list->size() != steps) {
      throw UsageError("all warp lists must have the same length (" + first + " has " +
                       std::to_string(steps) + " values, " + name + " " + std::to_string(list->size()) + ")");
    }
    if (steps == 0) first = name;
    steps = list->size();
  }
  if (steps == 0)
    throw UsageError("warp needs at least one of --rotate --scale --perspective --blur --brightness --noise");
  const GrayImage image = load_gray(input_path(positional[0]), load);
  const std::string out = positional[1];
  // Every transform is checked before anything is written.
  const double cx = (image.width - 1) / 2.0, cy = (image.height - 1) / 2.0;
  std::vector<Homography> transforms;
  for (size_t k = 0; k < steps; ++k) {
    // Geometry, about the centre: scale and rotation (counter-clockwise on
    // screen), then a horizontal perspective tilt.
    // (fmod first: 1e308 degrees times pi would overflow to infinity.)
    const double a = (rotate.empty() ? 0 : std::fmod(rotate[k], 360.0)) * 3.14159265358979323846 / 180.0;
    const double s = scale.empty() ? 1.0 : scale[k];
    const double p = perspective.empty() ? 0.0 : perspective[k] / image.width;
    const Homography to_centre = {1, 0, -cx, 0, 1, -cy, 0, 0, 1}, back = {1, 0, cx, 0, 1, cy, 0, 0, 1};
    const Homography core = {
        s * std::cos(a), s * std::sin(a), 0, -s * std::sin(a), s * std::cos(a), 0, p, 0, 1};
    Homography h = multiply(back, multiply(core, to_centre));
    // Past the horizon, points would come back mirrored from the far side
    // (only a tilt moves it: p = 0 leaves w = 1). Checked before the
    // normalisation below, which a horizon through the centre defeats.
    if (horizon_crosses(h, image.width, image.height)) {
      char tilt[32];
      std::snprintf(tilt, sizeof tilt, "%g", perspective[k]);
      throw UsageError("warp " + std::to_string(k + 1) + ": --perspective " + tilt +
                       " puts the horizon across the image (a smaller tilt keeps it outside)");
    }
    for (double& v : h) v /= h[8];
    if (is_singular(h)) throw UsageError("warp " + std::to_string(k + 1) + ": the transform is singular");
    transforms.push_back(h);
  }
  // OUT never holds part of a sequence, nor files of an older one that eval
  // would score with it: it must be new or empty. The files are written into
  // a staging directory of this run's own: beside OUTDIR's place for a new
  // one (renamed into place once complete), inside an empty one (moved out
  // of it once complete). Anything else in OUTDIR is never touched.
  if (out.empty()) throw UsageError("warp needs a non-empty OUTDIR");
  // Elsewhere - is standard input or output; a sequence is a directory.
  if (out == "-")
    throw UsageError("warp writes a directory of images: OUTDIR cannot be - (give ./- for one of that name)");
  std::error_code ec;
  const bool exists = fs::exists(out, ec);
  if (exists && !(fs::is_directory(out, ec) && fs::is_empty(out, ec))) {
    throw Error(out + ": exists and is not an empty directory; warp writes a new sequence directory");
  }
  fs::path target = out;
  // Should SIGINT, SIGTERM or SIGHUP end the run, the staging directory goes.
  // Declared before `cleanup`, so released only after that has run.
  RemoveOnSignal held;
  // The parent directories this run makes for a new OUTDIR: a run that
  // fails removes them again (those still empty).
  MadeDirectories made;
  // A name no other run has, even a killed one with the same process id
  // (an interrupted run removes its staging directory, but one killed
  // outright leaves it behind, and nothing can tell it from a live run's in
  // another container).
  std::string name;
  if (exists) {
    name = (fs::path(out) / ".glsurf_warp.XXXXXX").string();
    if (!::mkdtemp(name.data()))
      throw Error(out + ": cannot create directory (" + std::strerror(errno) + ")");
  } else {
    // The directories above OUTDIR as the kernel finds them (a link
    // followed, then ".."), so that "lnk/../x" is the x beside lnk's
    // target; from the first missing one on, by name ("nosuch/../x" is x).
    // OUTDIR itself stays as given: a link there is judged below.
    fs::path given = fs::absolute(out);
    if (!given.has_filename()) given = given.parent_path();  // "new/"
    const fs::path last = given.filename();
    target = last == "." || last == ".." ? fs::weakly_canonical(given, ec)
                                         : fs::weakly_canonical(given.parent_path(), ec) / last;
    if (ec) target = given.lexically_normal();
    // What the final rename would find at the target ("dl/" a link to
    // nothing, "x/../full" a full directory) is refused before the work.
    const fs::file_status there = fs::symlink_status(target, ec);
    if (fs::is_symlink(there) && !fs::exists(fs::status(target, ec))) {
      throw Error(out + ": is a link to nothing; give a new or empty directory");
    }
    if (fs::exists(there) && !(fs::is_directory(there) && fs::is_empty(target, ec))) {
      throw Error(out + ": exists and is not an empty directory; warp writes a new sequence directory");
    }
    // The missing parents (MadeDirectories). Another run that made a parent
    // this one found already there may remove it again (it failed, and the
    // parent was empty) before the staging directory is made in it: then the
    // parents are made again.
    for (int attempt = 0;; ++attempt) {
      const int mkdir_error = made.make(target.parent_path());
      name = (target.parent_path() / ".glsurf_warp.XXXXXX").string();
      if (mkdir_error == 0 && ::mkdtemp(name.data())) break;
      const int error = mkdir_error != 0 ? mkdir_error : errno;
      if (error != ENOENT || attempt == 2) {
        throw Error(out + ": cannot create directory (" + std::strerror(error) + ")");
      }
    }
  }
  held = RemoveOnSignal(name, RemoveOnSignal::Directory);
  const fs::path dir = name;
  if (!exists) {
    const mode_t mask = ::umask(0);  // mkdtemp makes it 0700; OUTDIR gets the usual mode
    ::umask(mask);
    ::chmod(name.c_str(), 0777 & ~mask);
  }
  struct Cleanup {  // what an unfinished run wrote
    fs::path staging;
    ~Cleanup() {
      std::error_code ignored;
      if (!staging.empty()) fs::remove_all(staging, ignored);
    }
  } cleanup{dir};
  std::vector<std::string> names;  // in the order written
  // A file that cannot be written is named as in OUTDIR, not by its
  // staging path.
  const auto write_in_out = [&](const std::string& name,
                                const std::function<void(const std::string&)>& write) {
    names.push_back(name);
    const std::string path = (dir / name).string();
    try {
      write(path);
    } catch (const Error& e) {
      std::string why = e.what();
      if (why.rfind(path + ":", 0) != 0) throw;
      throw Error(why.replace(0, path.size(), (fs::path(out) / name).string()));
    }
  };
  auto write_image = [&](const std::string& name, const GrayImage& picture) {
    write_in_out(name, [&](const std::string& path) { write_png_gray(path, picture); });
  };
  write_image("img1.png", image);
  std::mt19937 rng(12345);
  for (size_t k = 0; k < steps; ++k) {
    const Homography& h = transforms[k];
    // Windowed-sinc resampling from image 1 (io/warp.hpp); zero outside.
    std::vector<double> warped = warp_image(image, h, image.width, image.height);
    // Photometry: Gaussian blur, brightness offset, Gaussian noise.
    if (!blur.empty() && blur[k] > 0) {
      const double sigma = blur[k];
      // Wider than the image changes nothing (edges are clamped). The
      // exponent is formed as (i / sigma)^2: 2 sigma^2 underflows to 0 for
      // a sigma near 1e-163, and 0 / 0 at the centre made the image black.
      const int radius = static_cast<int>(
          std::min(std::ceil(3 * sigma), static_cast<double>(std::max(image.width, image.height))));
      std::vector<double> kernel(static_cast<size_t>(2 * radius + 1));
      double total = 0;
      for (int i = -radius; i <= radius; ++i)
        total += kernel[static_cast<size_t>(i + radius)] = std::exp(-0.5 * (i / sigma) * (i / sigma));
      for (double& w : kernel) w /= total;
      std::vector<double> tmp(warped.size());
      for (int pass = 0; pass < 2; ++pass) {
        for (int y = 0; y < image.height; ++y)
          for (int x = 0; x < image.width; ++x) {
            double sum = 0;
            for (int i = -radius; i <= radius; ++i) {
              const int xx = pass == 0 ? std::clamp(x + i, 0, image.width - 1) : x;
              const int yy = pass == 1 ? std::clamp(y + i, 0, image.height - 1) : y;
              sum += kernel[static_cast<size_t>(i + radius)] *
                     warped[static_cast<size_t>(yy) * image.width + xx];
            }
            tmp[static_cast<size_t>(y) * image.width + x] = sum;
          }
        warped.swap(tmp);
      }
    }
    std::normal_distribution<double> gauss(0.0, noise.empty() ? 0.0 : noise[k]);
    GrayImage result(image.width, image.height);
    for (size_t i = 0; i < warped.size(); ++i) {
      double v = warped[i] + (brightness.empty() ? 0.0 : brightness[k]);
      if (!noise.empty() && noise[k] > 0) v += gauss(rng);
      result.pixels[i] = static_cast<std::uint8_t>(std::lround(std::clamp(v, 0.0, 255.0)));
    }
    const std::string n = std::to_string(k + 2);
    write_image("img" + n + ".png", result);
    write_in_out("H1to" + n + "p", [&](const std::string& path) { write_homography_file(path, h); });
  }
  // The report first: one that cannot be written fails the run, and a failed
  // run leaves no sequence behind.
  if (steps == 1) {
    std::printf("%s: img1, img2 with H1to2p\n", out.c_str());
  } else {
    std::printf("%s: img1..img%zu with H1to2p..H1to%zup\n", out.c_str(), steps + 1, steps + 1);
  }
  flush_standard_output();
  if (exists) {
    move_out_of_staging(dir, out, names);
  } else {
    fs::rename(dir, target, ec);
    if (ec) throw Error(out + ": cannot rename the sequence into place (" + ec.message() + ")");
  }
  held.release();  // complete: keep it
  made.keep();
  cleanup.staging.clear();
  return 0;
}

int eval(Args args) {
  const std::string backend = backend_option(args);
  const DetectorConfig config = detector_options(args);
  const MatchConfig match_config = match_options(args);
  const std::string json = args.option("--json", "");
  const LoadOptions load = load_options(args);
  const std::vector<std::string> positional = args.positionals();
  args.finish();
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
  for (const auto& [k, image] : images) check_image_size(sequence.images.at(k), image, config);
  if (!json.empty()) {
    std::vector<std::string> inputs;
    for (const auto& [k, path] : sequence.images) inputs.push_back(path);
    for (const auto& [k, path] : sequence.homography_files) inputs.push_back(path);
    check_not_an_input("--json", json, inputs);
  }
  const GrayImage& a = images.at(1);

  std::unique_ptr<gl::Context> context;
  std::unique_ptr<GpuDetector> detector;
  std::unique_ptr<GpuMatcher> matcher;
  if (backend == "gl") {
    context = std::make_unique<gl::Context>(headless_or_hint());
    detector = std::make_unique<GpuDetector>(*context, config);
    matcher = std::make_unique<GpuMatcher>(*context, match_config);
    for (const auto& [k, image] : images)
      check_image_size(sequence.images.at(k), image, config, detector.get());
  }
  const Features fa = describe_file(detector.get(), config, a, sequence.images.at(1));
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
    const Features fb = describe_file(detector.get(), config, b, sequence.images.at(k));
    const std::vector<Match> matches = matcher ? matcher->match(fa, fb) : cpu::match(fa, fb, match_config);
    const PairScore s = score_pair(fa, fb, matches, truth, a.width, a.height, b.width, b.height);
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
    std::snprintf(
        record, sizeof record,
        "%s    {\"pair\": \"1-%d\", \"keypoints_a\": %d, \"keypoints_b\": %d, \"visible_a\": %d, "
        "\"visible_b\": %d, \"correspondences\": %d, \"repeatability\": %s, \"matches\": %d, "
        "\"correct_3px\": %d, \"correct_5px\": %d, \"matching_score\": %s, \"precision\": %s, "
        "\"homography_found\": %s, \"inliers\": %d, \"corner_error\": %s, \"corner_error_note\": %s}",
        records.empty() ? "" : ",\n", k, s.keypoints_a, s.keypoints_b, s.visible_a, s.visible_b,
        s.correspondences, repeatability.json, s.matches, s.correct_3px, s.correct_5px, score.json,
        precision.json, s.homography_found ? "true" : "false", s.inliers, corner_json, corner_note);
    records += record;
  }
  // A table that could not be written fails the run before the JSON is
  // written: a failed run leaves no output behind.
  if (listing == stdout) flush_standard_output();
  if (!json.empty()) {
    write_file_atomically(json, false, [&](std::ostream& out) {
      out << "{\n  \"sequence\": \"" << json_escaped(dir.string()) << "\",\n  \"backend\": \"" << backend
          << "\",\n  \"detector\": " << detector_json(config)
          << ",\n  \"matcher\": " << matcher_json(match_config) << ",\n  \"pairs\": [\n"
          << records << "\n  ]\n}\n";
    });
  }
  return 0;
}

}  // namespace glsurf::app
