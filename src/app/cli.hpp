// Shared pieces of the glsurf command line.
#pragma once

#include <string>
#include <vector>

#include "gl/context.hpp"
#include "gl/error.hpp"
#include "io/image.hpp"
#include "io/output.hpp"
#include "match/types.hpp"
#include "surf/keypoint.hpp"

namespace glsurf {
class GpuDetector;
struct DescriptorTextures;
struct GrayImage;
}  // namespace glsurf

namespace glsurf::app {

// A bad command line: exit status 2 (glsurf::Error otherwise exits 1).
class UsageError : public Error {
 public:
  using Error::Error;
};

// The command-line words after the subcommand. Options and flags are taken
// as they are read and marked used in place, so an option's value is the word
// that follows it on the command line, never a later one: `-o --upright a.png`
// is "-o needs a value", never -o a.png. A value cannot start with "--" (that
// is an option left without its value) or be a word an option read earlier
// took. finish() rejects whatever is left, naming an option or flag that was
// read and given again.
class Args {
 public:
  Args(std::vector<std::string> words) : words_(std::move(words)), used_(words_.size(), false) {}
  bool flag(const std::string& name);
  std::string option(const std::string& name, const std::string& fallback);
  int option_int(const std::string& name, int fallback, int min_value, int max_value);
  float option_float(const std::string& name, float fallback, float min_value, float max_value);
  // The first word, when it is not an option (a sub-subcommand such as
  // `bench integral`); empty otherwise.
  std::string next_word();
  // Words left that are not options: call after every option has been taken.
  std::vector<std::string> positionals();
  void finish() const;  // throws glsurf::Error naming an unknown option
  // The options and flags read so far that were given, in the order read.
  const std::vector<std::string>& taken() const { return taken_; }

 private:
  std::vector<std::string> words_;
  std::vector<bool> used_;                    // taken by flag(), option(), next_word() or positionals()
  std::vector<std::string> taken_;            // options and flags read
  std::vector<std::string> options_, flags_;  // the names asked for, given or not
};

// The file an image argument names: "-" is an image piped in (/dev/stdin).
inline std::string input_path(const std::string& name) { return name == "-" ? "/dev/stdin" : name; }

// The bundled images (graf1, graf3 and H1to3p.xml, box, box_in_scene): beside
// an installed glsurf (its bin/../share/glsurf/assets, as installed), else
// the source tree's assets/ that this build was made from.
std::string asset_dir();

// Options shared by the commands that detect: --backend gl|cpu, and
// --threshold --max-features --octaves --layers --sample-step --upright
// --extended.
std::string backend_option(Args& args);
// --format txt|bin, or "" when not given.
std::string format_option(Args& args);
// The feature format's name (also the extension of a batch's files): the one
// given, or without one bin when the output file `out_file` ends in .bin
// and txt otherwise ("" for a directory or standard output: txt).
std::string feature_format(const std::string& given, const std::string& out_file);
DetectorConfig detector_options(Args& args);
// Options of the commands that load images: --ignore-orientation (JPEGs'
// stored pixels rather than their EXIF orientation).
LoadOptions load_options(Args& args);
// Options shared by the commands that match: --ratio R (0 or 1 turn Lowe's
// test off) --max-distance D --no-mutual --no-sign.
MatchConfig match_options(Args& args);
// The matching settings in a few words ("ratio 0.8, mutual, Laplacian sign"),
// for a command's summary line.
std::string match_summary(const MatchConfig& config);

// Throws glsurf::Error "NAME: ..." when the detectors refuse the image for
// its size (image_size_problem; with a GPU `detector`, also its textures'
// limits: GpuDetector::size_problem): for a command to refuse it before any work.
void check_image_size(const std::string& name, const GrayImage& image, const DetectorConfig& config,
                      const GpuDetector* detector = nullptr);

// Keypoints and descriptors of `image`, read from `path`: on `detector`, or
// on the CPU reference when it is null (`resident`: see
// GpuDetector::detect_and_compute). An error names the file; a point list too
// small for every keypoint is a warning on stderr.
Features describe_file(GpuDetector* detector, const DetectorConfig& config, const GrayImage& image,
                       const std::string& path, DescriptorTextures* resident = nullptr);

// Throws UsageError when `output` (given with `option`) is the same regular
// file as one of `inputs` (by device and inode: also through another name
// or a link), which writing it would destroy.
void check_not_an_input(const std::string& option, const std::string& output,
                        const std::vector<std::string>& inputs);

// glsurf writes pictures as PNG only: a name with another extension
// (out.jpg, out.gif) is a usage error naming `option`, not a PNG under that
// name; a name without one (out) is taken as it is.
void check_png_name(const std::string& option, const std::string& path);

// "1 keypoint", "0 keypoints", "733 keypoints": `n` and the noun, in the
// plural (by default the noun and an s) unless n is 1.
inline std::string counted(size_t n, const std::string& noun, const std::string& plural = "") {
  return std::to_string(n) + " " + (n == 1 ? noun : plural.empty() ? noun + "s" : plural);
}

// one_line (io/output.hpp): a message naming a file keeps to one line.
using glsurf::one_line;

// Image names from the command line, each directory replaced by its images
// (images_in_directory), and "-" by /dev/stdin (an encoded image piped in).
// Other names are kept as given, to be reported when they are loaded.
// `listed`, if given, says for each name returned whether it came from a
// directory. The directories without images go to `empty_directories` if
// given, and are otherwise named in a warning on stderr when other names
// gave images.
std::vector<std::string> expand_image_arguments(const std::vector<std::string>& names,
                                                std::vector<bool>* listed = nullptr,
                                                std::vector<std::string>* empty_directories = nullptr);

// The detector's settings as a JSON object (one line), so that a JSON record
// says which settings produced it.
std::string detector_json(const DetectorConfig& config);
// The matching settings as a JSON object (one line); a filter that is off is null.
std::string matcher_json(const MatchConfig& config);

// A string's characters as the body of a JSON string literal; bytes that are
// not UTF-8 become U+FFFD, so that the JSON stays valid.
std::string json_escaped(const std::string& text);

// The headless context, or an error that also suggests --backend cpu.
gl::Context headless_or_hint();

int bench(Args args);
int detect(Args args);
int describe(Args args);
int match(Args args);
int view(Args args);
int warp(Args args);
int eval(Args args);

}  // namespace glsurf::app
