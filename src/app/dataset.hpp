// The pieces that glsurf's set commands share (detect and match over a
// database, merge): a shard of the work, the images' names in the database,
// pair lists, and the progress report.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <future>
#include <string>
#include <utility>
#include <vector>

#include "app/args.hpp"
#include "glsurf/image.hpp"
#include "glsurf/types.hpp"

namespace glsurf::app {

// --shard k/n: the k-th of n shares of a list (1 <= k <= n), item i (from
// 0) going to shard i mod n + 1; the whole list when not given.
struct Shard {
  int k = 1, n = 1;
  bool takes(std::size_t index) const {
    return static_cast<int>(index % static_cast<std::size_t>(n)) == k - 1;
  }
  std::string name() const { return std::to_string(k) + "/" + std::to_string(n); }
};
// Throws UsageError for anything but k/n with 1 <= k <= n.
Shard parse_shard(const std::string& text);
Option shard_option(const std::string& what);

// The images of a set: each file with its name in the database, relative to
// the image directory `root` ('/' separated), sorted by name. The root is the
// one directory given, else the deepest directory holding every file.
struct ImageSet {
  std::string root;
  std::vector<std::pair<std::string, std::string>> files;  // (name, path as given)
};
ImageSet image_set(const std::vector<std::string>& arguments, const std::vector<std::string>& files);

// A line on standard error per step of work: on a terminal one line redrawn
// in place (count, rate, time left), otherwise a plain line every few
// seconds and at the end; nothing with `quiet`. note() prints a message
// (an error, a warning) on its own line without breaking the bar.
class Progress {
 public:
  Progress(std::string noun, std::size_t total, bool quiet);
  ~Progress();
  void step(std::size_t done = 1);
  void note(const std::string& line);
  // The last update, then the line left as it is.
  void finish();

 private:
  void draw(bool final);
  std::string noun_;
  std::size_t total_, done_ = 0;
  bool quiet_, terminal_, finished_ = false;
  std::chrono::steady_clock::time_point start_, last_;
};

// Images of a list decoded one ahead on a worker thread: while the caller
// detects in image i, image i + 1 is read and decoded, so that a batch of
// large images (a JPEG of 48 megapixels decodes in seconds) keeps the
// detector busy. At most two images are held at a time. take(i) is called
// for the indices of `order`, in that order; it returns image i (load_gray
// of paths[i] with `options`), or throws what loading it threw, and passes
// the load's warnings to options.warn on the calling thread, when the image
// is taken, so that they come in the list's order. GLSURF_DECODE_AHEAD=0
// decodes each image on its turn instead (one image held at a time).
class Prefetch {
 public:
  Prefetch(std::vector<std::string> paths, LoadOptions options, std::vector<std::size_t> order);
  // The worker holds no pointer into the object, but the pending load is its
  // own: not copied or moved.
  Prefetch(const Prefetch&) = delete;
  Prefetch& operator=(const Prefetch&) = delete;
  GrayImage take(std::size_t index);

 private:
  struct Loaded {
    GrayImage image;
    std::vector<std::string> warnings;
  };
  void start(std::size_t position);
  std::vector<std::string> paths_;
  LoadOptions options_;
  std::vector<std::size_t> order_;
  std::size_t next_position_ = 0;  // of next_ in order_
  std::future<Loaded> next_;
};

}  // namespace glsurf::app
