// Shared pieces of the glsurf command line.
#pragma once

#include <string>
#include <vector>

#include "app/args.hpp"
#include "app/command.hpp"
#include "gl/context.hpp"
#include "gl/error.hpp"
#include "io/exchange.hpp"
#include "io/features.hpp"
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

// The file an image argument names: "-" is an image piped in (/dev/stdin).
inline std::string input_path(const std::string& name) { return name == "-" ? "/dev/stdin" : name; }

// The bundled images (graf1, graf3 and H1to3p.xml, box, box_in_scene): beside
// an installed glsurf (its bin/../share/glsurf/assets, as installed), else
// the source tree's assets/ that this build was made from.
std::string asset_dir();

// Rows shared by the option tables, by name: --backend, --format, the
// detector's (--threshold --max-features --octaves --layers --sample-step
// --upright --extended --second-orientation), the loader's
// (--ignore-orientation) and the matcher's (--ratio --max-distance
// --no-mutual --no-sign).
Option shared_option(const std::string& name);
// Those rows, in that order, for a table.
OptionTable detector_table();
OptionTable match_table();

// --backend gl|cpu.
std::string backend_option(Args& args);
// --format txt|bin|opencv|colmap|lowe, or "" when not given.
std::string format_option(Args& args);
// The feature format's name: the one given, or without one by the name of
// the output file `out_file` (any case): bin for .bin, opencv for .yml,
// .yaml and .xml, lowe for .key, txt otherwise ("" for a directory or
// standard output: txt). colmap is never guessed (its files are .txt).
std::string feature_format(const std::string& given, const std::string& out_file);

// How the features of one image are written in a format.
struct FeatureWriter {
  std::string format;                       // txt, bin, opencv, colmap or lowe
  bool binary = false;                      // bin
  StorageKind storage = StorageKind::None;  // opencv: YAML or XML
  void write(std::ostream& out, const Features& features) const;
  // The file of `image` in a batch's directory `dir`: NAME.txt, .bin, .yml
  // (YAML) or .key, NAME the image's file name without its extension; for
  // colmap IMAGE_NAME.txt, the file name with its extension and .txt
  // (box.png.txt), where COLMAP's feature_importer looks for it.
  std::string batch_file(const std::string& dir, const std::string& image) const;
};
// The writer of `format` for the output `out_file` (a file; "" or "-":
// standard output; ignored for a batch's directory, `batch`). A usage error
// when a named file does not fit the format: opencv needs .yml, .yaml or
// .xml (which picks YAML or XML, as OpenCV's FileStorage does; standard
// output and a batch get YAML), colmap a name ending in .txt.
FeatureWriter feature_writer(const std::string& format, const std::string& out_file, bool batch);
// The detector's options (detector_table's rows).
DetectorConfig detector_options(Args& args);
// --memory-budget and --tile-size: whether and how an image is detected in
// tiles (glsurf::Tiling, surf/tiles.hpp).
OptionTable tiling_table();
Tiling tiling_options(Args& args);
// "2G", "512M", "1.5GB", "300000": bytes; -1 for anything else.
double parse_bytes(const std::string& text);
// --ignore-orientation (JPEGs' stored pixels rather than their EXIF orientation).
LoadOptions load_options(Args& args);
// The matcher's options (match_table's rows).
MatchConfig match_options(Args& args);
// The matching settings in a few words ("ratio 0.8, mutual, Laplacian sign"),
// for a command's summary line.
std::string match_summary(const MatchConfig& config);

// Throws glsurf::Error "NAME: ..." when the detectors refuse the image for
// its size (image_size_problem), or when not even tiles of it fit the memory
// budget or a GPU `detector`'s textures: for a command to refuse it before
// any work.
void check_image_size(const std::string& name, const GrayImage& image, const DetectorConfig& config,
                      const Tiling& tiling, const GpuDetector* detector = nullptr);
// Keypoints and descriptors of `image`, read from `path`: on `detector`, or
// on the CPU reference when it is null (with `resident`, the descriptors stay
// on the GPU: GpuDetector::detect_and_compute), in tiles where tile_side
// (surf/tiles.hpp) says so (then the descriptors come back to the host, `resident` is left as
// it is: a caller that wants them resident checks tile_side first). An error
// names the file; a point list too small for every keypoint is a warning on
// stderr.
// `tiles`, when given, gets the number of tiles (1: in one piece); `side`
// >= 0 is the tile side decided before (detect_and_compute_tiled).
Features describe_file(GpuDetector* detector, const DetectorConfig& config, const Tiling& tiling,
                       const GrayImage& image, const std::string& path,
                       DescriptorTextures* resident = nullptr, int* tiles = nullptr, int side = -1);

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

// The headless context, or an error that also suggests --backend cpu.
gl::Context headless_or_hint();

}  // namespace glsurf::app
