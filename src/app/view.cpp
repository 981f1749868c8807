// glsurf view — images as a sequence in a window (or offscreen), with their
// keypoints drawn from the GPU as they are found (view_session.cpp).
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/cli.hpp"
#include "app/extractor.hpp"
#include "app/view_session.hpp"
#include "io/image.hpp"
#include "io/output.hpp"
#include "surf/detector.hpp"
#include "window/viewer.hpp"

namespace glsurf::app {

Error ViewInputs::nothing_to_show() const {
  std::string where;
  for (const std::string& name : names) where += (where.empty() ? "" : ", ") + name;
  if (!skipped) return Error("no images to show in " + where);
  return Error(skipped == 1
                   ? "the one image in " + where + " could not be shown"
                   : "none of the " + std::to_string(skipped) + " images in " + where + " could be shown");
}

namespace {

ViewOptions read_options(Args& args) {
  ViewOptions o;
  o.headless = args.flag("--headless");
  o.frames = args.option_int("--frames");
  o.screenshot = args.option("--screenshot");
  if (!o.screenshot.empty()) check_png_name("--screenshot", o.screenshot);
  const std::string hud = args.option("--hud");
  if (hud != "on" && hud != "off") throw UsageError("--hud must be on or off, got '" + hud + "'");
  o.hud = hud == "on";
  o.start_matching = args.flag("--match");
  o.matcher = match_options(args);
  const std::string features = args.option("--features");
  if (features != "surf" && features != "sift")
    throw UsageError("--features must be surf or sift, not '" + features + "'");
  o.sift = features == "sift";
  const size_t before = args.taken().size();
  o.detector.hessian_threshold = args.option_float("--threshold");
  o.detector.max_features = args.option_int("--max-features");
  o.detector.upright = args.flag("--upright");
  o.detector.first_step = args.option_int("--sample-step");
  o.second_orientation = args.option_float("--second-orientation");
  o.sift_config.contrast_threshold = args.option_float("--contrast-threshold");
  o.sift_config.edge_threshold = args.option_float("--edge-threshold");
  o.sift_config.first_octave = args.option_int("--first-octave");
  o.sift_config.root_sift = args.flag("--root-sift");
  o.sift_config.max_features = o.detector.max_features;
  // An option of the other detector (checked after finish(): an unknown option is reported first).
  std::string misplaced;
  for (size_t i = before; i < args.taken().size() && misplaced.empty(); ++i) {
    const std::string& option = args.taken()[i];
    const bool sift_only = option == "--contrast-threshold" || option == "--edge-threshold" ||
                           option == "--first-octave" || option == "--root-sift";
    if (option != "--max-features" && sift_only != o.sift) {
      misplaced = option + " is " + (o.sift ? "SURF's" : "SIFT's") +
                  " option; it does not apply to --features " + features;
    }
  }
  if (o.second_orientation > 0 && o.detector.upright) {
    throw UsageError("--second-orientation needs oriented keypoints, not --upright");
  }
  o.width = args.option_int("--width");
  o.height = args.option_int("--height");
  o.raw = args.option("--raw");
  o.load = load_options(args);
  o.pix = args.option("--pix");
  o.names = args.positionals();
  args.finish();
  if (!misplaced.empty()) throw UsageError(misplaced);
  if (!o.screenshot.empty()) check_writable(o.screenshot);  // before the session, not after it
  return o;
}

// The images to show, every one loaded first, or the raw stream. A bad file
// named on the command line stops the viewer with one line; one found in a
// directory is skipped with a warning (and the exit status is 1), so one
// broken file does not keep the rest of a directory from being shown.
void load_inputs(ViewOptions& o, ViewInputs& in) {
  const std::string& raw = o.raw;
  std::string& pix = o.pix;
  std::vector<std::string>& names = in.names;
  names = o.names;
  const DetectorConfig& config = o.detector;
  if (!pix.empty() && raw.empty()) throw UsageError("--pix describes --raw frames; give --raw WxH too");
  if (pix.empty()) pix = "gray";
  if (!raw.empty()) {
    // W and H: decimal digits only, read without wrapping (4294967360 is
    // not 64), each at most 16384 (GL_MAX_TEXTURE_SIZE of most desktop GPUs).
    const size_t x = raw.find('x');
    const auto digits = [](const std::string& t) {
      return !t.empty() && std::all_of(t.begin(), t.end(), [](char c) { return c >= '0' && c <= '9'; });
    };
    if (x == std::string::npos || !digits(raw.substr(0, x)) || !digits(raw.substr(x + 1)))
      throw UsageError("--raw wants WxH, got '" + raw + "'");
    const int most = 16384;  // a frame is one texture, never tiled
    const auto side = [&](const std::string& t) {
      const std::string trimmed = t.substr(std::min(t.find_first_not_of('0'), t.size()));
      if (trimmed.size() > 9 || std::stoi("0" + trimmed) > most)
        throw UsageError("--raw " + raw + ": frames of at most " + std::to_string(most) + " per side");
      return std::stoi("0" + trimmed);
    };
    const int rw = side(raw.substr(0, x)), rh = side(raw.substr(x + 1));
    if (rw < 1 || rh < 1) throw UsageError("--raw wants WxH, got '" + raw + "'");
    if (pix != "gray" && pix != "rgb") throw UsageError("--pix must be gray or rgb");
    if (names.size() != 1 || names[0] != "-")
      throw UsageError("--raw reads standard input: give - as the input");
    const std::string why = image_size_problem(rw, rh, config);
    if (!why.empty()) throw Error("--raw " + raw + ": frames too small: " + why);
    in.stream = std::make_unique<RawStream>(rw, rh, pix == "rgb", o.headless);
    in.files = {"standard input"};
    in.images.emplace_back(rw, rh, 0);  // shown until the first frame arrives
  } else {
    if (names.empty()) names = {asset_dir()};
    std::vector<bool> listed;
    const std::vector<std::string> found = expand_image_arguments(names, &listed);
    if (!o.screenshot.empty()) check_not_an_input("--screenshot", o.screenshot, found);
    for (size_t i = 0; i < found.size(); ++i) {
      try {
        GrayImage image = load_gray(found[i], o.load);
        if (const std::string why = image_size_problem(image.width, image.height, config); !why.empty())
          throw Error(found[i] + ": " + why);
        in.files.push_back(found[i]);
        in.images.push_back(std::move(image));
        in.from_directory.push_back(listed[i]);
      } catch (const Error& e) {
        if (!listed[i]) throw;
        std::fprintf(stderr, "glsurf: warning: %s; skipped\n", one_line(e.what()).c_str());
        ++in.skipped;
      }
    }
    if (in.files.empty()) throw in.nothing_to_show();
  }
}

// The view's size: as given, one side from the other by the first image's
// aspect, or from the first image.
void fit_view(ViewOptions& o, const GrayImage& first) {
  int& width = o.width;
  int& height = o.height;
  // Match mode shows two images side by side: a view for twice the width.
  const int across = o.start_matching ? 2 : 1;
  const double aspect = static_cast<double>(across) * first.width / first.height;
  // Room below the image for the HUD's strip when the height is not given:
  // its usual five lines and the legend (two in match mode).
  const auto strip = [&] {
    return o.hud ? static_cast<int>(std::ceil(hud_strip_height(width, o.start_matching ? 7 : 6))) : 0;
  };
  if (width == 0 && height == 0) {
    const ViewSize size = initial_view_size(across * first.width, first.height);
    width = size.width;
    height = size.height + strip();
  } else if (height == 0) {  // one side given: the other by the first image's aspect
    height = static_cast<int>(std::min(16384.0, std::round(width / aspect) + strip()));
  } else if (width == 0) {
    width = static_cast<int>(std::min(16384.0, std::round(height * aspect)));
  }
  // At least a pixel each way, and one per half in match mode (a 2000 x 1
  // image would otherwise ask for a view 0 pixels high).
  width = std::max(width, 2);
  height = std::max(height, 1);
}

int view(Args& args) {
  ViewOptions o = read_options(args);
  ViewInputs in;
  load_inputs(o, in);
  if (o.headless && o.frames == 0 && !in.stream) {
    throw UsageError("--headless needs --frames N (or a --raw stream)");
  }
  fit_view(o, in.images.front());
  return run_view_session(o, in);
}

OptionTable view_options() {
  OptionTable table = {
      flag("--headless", "no window: an offscreen frame (needs --frames N, or a --raw stream)"),
      integer("--frames", "N", 0, 0, 1 << 30,
              "stop after N frames (0: when the window closes or a stream ends)"),
      text("--screenshot", "FILE.png", "", "the last frame's picture, written at the end", "none"),
      integer("--width", "W", 0, 0, 16384, "the view's width (0: from --height, or from the first image)"),
      integer("--height", "H", 0, 0, 16384, "the view's height (0: from --width, or from the first image)"),
      text("--hud", "on|off", "on",
           "the heads-up display: file, keypoints, settings, frame rate, GPU ms per stage"),
      text("--raw", "WxH", "",
           "raw frames of W x H pixels from standard input (give - as the input; e.g. from ffmpeg)", "none"),
      text("--pix", "gray|rgb", "", "the --raw frames' pixels: 8-bit grey, or 8-bit RGB", "gray"),
      shared_option("--threshold"),
      shared_option("--max-features"),
      shared_option("--upright"),
      shared_option("--sample-step"),
      shared_option("--second-orientation"),
      *find_option(sift_table(), "--features"),
      *find_option(sift_table(), "--contrast-threshold"),
      *find_option(sift_table(), "--edge-threshold"),
      *find_option(sift_table(), "--first-octave"),
      *find_option(sift_table(), "--root-sift"),
      flag("--match", "start in match mode: the first frame is the reference, matched against each frame"),
  };
  for (const Option& row : match_table()) table.push_back(row);
  table.push_back(shared_option("--ignore-orientation"));
  return table;
}

}  // namespace

Command view_command() {
  return {"view",
          "[IMAGE|DIR...|-]",
          "images in a window with their keypoints drawn from the GPU",
          "With no images, the bundled ones. Keys: space pause, n/p next/previous, +/- threshold (SIFT: the "
          "contrast threshold), u upright (SURF), "
          "m match mode, r set reference, k the strongest 100/300/1000/all keypoints, s screenshot, h help, "
          "q/Esc quit. In match mode a second "
          "orientation's entries are matched too, as match does.",
          view_options,
          view,
          "view assets --match",
          {}};
}

}  // namespace glsurf::app
