#include "app/dataset.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "app/cli.hpp"

namespace glsurf::app {

namespace fs = std::filesystem;

Shard parse_shard(const std::string& text) {
  Shard s;
  char rest = 0;
  if (std::sscanf(text.c_str(), "%d/%d%c", &s.k, &s.n, &rest) != 2 ||
      text.find_first_of(" +-") != std::string::npos || s.n < 1 || s.n > 1000000 || s.k < 1 || s.k > s.n) {
    throw UsageError("--shard takes k/n with 1 <= k <= n (1/4 .. 4/4), not " + text);
  }
  return s;
}

Option shard_option(const std::string& what) {
  return text("--shard", "k/n", "",
              "do the k-th of n shares of the " + what +
                  " (item i goes to shard i mod n + 1); glsurf merge joins the databases",
              "all");
}

ImageSet image_set(const std::vector<std::string>& arguments, const std::vector<std::string>& files) {
  ImageSet set;
  std::error_code ec;
  std::vector<fs::path> paths;
  for (const std::string& file : files) paths.push_back(fs::absolute(file, ec).lexically_normal());
  fs::path root;
  if (arguments.size() == 1 && fs::is_directory(arguments[0], ec)) {
    root = fs::absolute(arguments[0], ec).lexically_normal();
  } else {
    root = paths.front().parent_path();
    for (const fs::path& p : paths) {
      // The longest common prefix of the directories.
      const fs::path dir = p.parent_path();
      fs::path common;
      auto a = root.begin(), b = dir.begin();
      for (; a != root.end() && b != dir.end() && *a == *b; ++a, ++b) common /= *a;
      root = common;
    }
  }
  if (!root.empty() && root.filename().empty()) root = root.parent_path();  // "dir/" -> "dir"
  set.root = root.string();
  for (size_t i = 0; i < files.size(); ++i)
    set.files.emplace_back(paths[i].lexically_relative(root).generic_string(), files[i]);
  std::sort(set.files.begin(), set.files.end());
  return set;
}

Progress::Progress(std::string noun, std::size_t total, bool quiet)
    : noun_(std::move(noun)),
      total_(total),
      quiet_(quiet),
      terminal_(::isatty(2) == 1),
      start_(std::chrono::steady_clock::now()),
      last_(start_) {}

Progress::~Progress() {
  if (!finished_ && terminal_ && !quiet_ && done_ > 0) std::fputc('\n', stderr);
}

void Progress::step(std::size_t done) {
  done_ += done;
  const auto now = std::chrono::steady_clock::now();
  const double since = std::chrono::duration<double>(now - last_).count();
  if (since >= (terminal_ ? 0.2 : 10.0)) {
    last_ = now;
    draw(false);
  }
}

void Progress::note(const std::string& line) {
  if (terminal_ && !quiet_) std::fputs("\r\033[K", stderr);
  std::fprintf(stderr, "%s\n", one_line(line).c_str());
  if (terminal_ && !quiet_) draw(false);
}

void Progress::finish() {
  if (finished_) return;
  if (terminal_ && total_ > 0) draw(true);  // elsewhere the command's summary says it
  finished_ = true;
}

void Progress::draw(bool final) {
  if (quiet_) return;
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const double rate = seconds > 0 ? done_ / seconds : 0;
  char text[160];
  const int n = std::snprintf(text, sizeof text, "%zu/%zu %s, %.1f/s", done_, total_, noun_.c_str(), rate);
  std::string line(text, static_cast<size_t>(std::max(n, 0)));
  if (final) {
    std::snprintf(text, sizeof text, ", %.1f s", seconds);
  } else if (rate > 0 && done_ < total_) {
    const long left = std::lround((total_ - done_) / rate);
    std::snprintf(text, sizeof text, ", %ld:%02ld left", left / 60, left % 60);
  } else {
    text[0] = 0;
  }
  line += text;
  if (terminal_) {
    constexpr int kWidth = 24;
    const int filled = total_ ? static_cast<int>(kWidth * done_ / total_) : kWidth;
    const std::string bar = "[" + std::string(filled, '#') + std::string(kWidth - filled, '.') + "] ";
    std::fprintf(stderr, "\r\033[K%s%s%s", bar.c_str(), line.c_str(), final ? "\n" : "");
  } else {
    std::fprintf(stderr, "%s\n", line.c_str());
  }
  std::fflush(stderr);
}

Prefetch::Prefetch(std::vector<std::string> paths, LoadOptions options, std::vector<std::size_t> order)
    : paths_(std::move(paths)), options_(std::move(options)), order_(std::move(order)) {}

void Prefetch::start(std::size_t position) {
  next_position_ = position;
  next_ = std::future<Loaded>();
  if (position >= order_.size()) return;
  next_ = std::async(std::launch::async, [options = options_, path = paths_[order_[position]]]() mutable {
    Loaded loaded;
    if (options.warn) options.warn = [&loaded](const std::string& line) { loaded.warnings.push_back(line); };
    loaded.image = load_gray(path, options);
    return loaded;
  });
}

GrayImage Prefetch::take(std::size_t index) {
  // GLSURF_DECODE_AHEAD=0: each image decoded on its turn (one image held).
  static const bool ahead = [] {
    const char* value = std::getenv("GLSURF_DECODE_AHEAD");
    return !value || std::string(value) != "0";
  }();
  if (!ahead) return load_gray(paths_.at(index), options_);
  std::size_t position = next_position_;
  while (position < order_.size() && order_[position] != index) ++position;
  if (position == order_.size()) return load_gray(paths_.at(index), options_);  // not in the list
  if (position != next_position_ || !next_.valid()) start(position);
  std::future<Loaded> current = std::move(next_);
  start(position + 1);  // decoded while the caller works on this one
  Loaded loaded = current.get();
  if (options_.warn)
    for (const std::string& line : loaded.warnings) options_.warn(line);
  return std::move(loaded.image);
}

}  // namespace glsurf::app
