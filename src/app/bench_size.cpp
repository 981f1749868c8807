// glsurf bench size — time and peak memory against image size: detect and
// describe an image of 1 to 400 megapixels (or any list), the gl and the cpu
// backends side by side, each size in its own child process so that each
// peak resident set (the kernel's, from wait4) is that size's alone. The
// two backends alternate at every size (gl, cpu, gl, cpu, ...).
//
// The image is the bundled graf1 photograph mirrored end to end over the
// whole size: photo texture everywhere, as many keypoints a pixel at every
// size. The child makes it (1 byte a pixel, counted in its peak) and times
// only the detection and description, tiles included, as detect spends them.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "app/bench_common.hpp"
#include "app/json.hpp"
#include "gl/context.hpp"
#include "io/image.hpp"
#include "io/output.hpp"
#include "surf/detector.hpp"
#include "surf/tiles.hpp"

namespace glsurf::app {

namespace {

const char* const kBackends[2] = {"gl", "cpu"};

// graf1 mirrored end to end over width x height (reflection at each edge).
GrayImage mirrored_photo(int width, int height) {
  const GrayImage photo = load_gray(asset_dir() + "/graf1.png");
  const auto reflect = [](long long i, int n) {
    const long long period = 2LL * n - 2, r = i % period;
    return static_cast<int>(r < n ? r : period - r);
  };
  GrayImage image;
  image.width = width;
  image.height = height;
  image.pixels.resize(static_cast<size_t>(width) * static_cast<size_t>(height));
  std::vector<int> column(static_cast<size_t>(width));
  for (int x = 0; x < width; ++x) column[static_cast<size_t>(x)] = reflect(x, photo.width);
  for (int y = 0; y < height; ++y) {
    const std::uint8_t* row = &photo.pixels[static_cast<size_t>(reflect(y, photo.height)) * photo.width];
    std::uint8_t* out = &image.pixels[static_cast<size_t>(y) * width];
    for (int x = 0; x < width; ++x) out[x] = row[column[static_cast<size_t>(x)]];
  }
  return image;
}

// The child: one size on one backend; prints "ms keypoints tiles".
int run_one(const std::string& backend, int width, int height, const DetectorConfig& config,
            const Tiling& tiling) {
  const GrayImage image = mirrored_photo(width, height);
  std::unique_ptr<gl::Context> context;
  std::unique_ptr<GpuDetector> detector;
  if (backend == "gl") {
    context = std::make_unique<gl::Context>(headless_or_hint());
    detector = std::make_unique<GpuDetector>(*context, config);
  }
  const Clock::time_point t0 = Clock::now();
  const TiledDetection d = detect_and_compute_tiled(detector.get(), config, tiling, image);
  if (detector) gl::finish();
  std::printf("%.1f %zu %d\n", ms_since(t0), d.features.keypoints.size(), d.tiles);
  return 0;
}

struct Measured {
  double ms = 0, peak_bytes = 0;
  long long keypoints = 0;
  int tiles = 0;
  std::string error;  // the child's last line where it failed
};

// `argv` run as a child: its line on standard output and its peak RSS.
Measured measure(const std::vector<std::string>& argv) {
  int out[2];
  if (pipe(out) != 0) throw Error(std::string("pipe: ") + std::strerror(errno));
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) throw Error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    dup2(out[1], 1);
    dup2(out[1], 2);
    close(out[0]);
    close(out[1]);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv("/proc/self/exe", args.data());
    _exit(127);
  }
  close(out[1]);
  std::string text;
  char buffer[4096];
  for (ssize_t n; (n = read(out[0], buffer, sizeof buffer)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    text.append(buffer, static_cast<size_t>(n));
  }
  close(out[0]);
  int status = 0;
  struct rusage usage {};
  while (wait4(pid, &status, 0, &usage) < 0 && errno == EINTR) {
  }
  Measured m;
  m.peak_bytes = static_cast<double>(usage.ru_maxrss) * 1024.0;
  const size_t last = text.find_last_of('\n', text.size() >= 2 ? text.size() - 2 : 0);
  const std::string line = text.substr(last == std::string::npos ? 0 : last + 1);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
      std::sscanf(line.c_str(), "%lf %lld %d", &m.ms, &m.keypoints, &m.tiles) != 3) {
    m.error = one_line(line.empty() ? "no output" : line);
    if (WIFSIGNALED(status)) m.error = "killed by signal " + std::to_string(WTERMSIG(status));
  }
  return m;
}

int run_size(Args& args) {
  const std::string one = args.option("--one");
  const std::string backend_given = args.option("--backend");
  const std::vector<int> megapixels = int_list("--megapixels", args.option("--megapixels"), 2000);
  const int max_features = args.option_int("--max-features");
  const std::string budget = args.option("--memory-budget");
  const int tile_size = args.option_int("--tile-size");
  const std::string json = args.option("--json");
  args.finish();
  DetectorConfig config;
  config.max_features = max_features;
  Tiling tiling;
  tiling.tile_size = tile_size;
  if (!budget.empty()) {
    tiling.memory_budget = parse_bytes(budget);
    if (tiling.memory_budget < 0)
      throw UsageError("--memory-budget must be a size such as 2G, not '" + budget + "'");
  }
  if (backend_given != "gl" && backend_given != "cpu" && backend_given != "both")
    throw UsageError("--backend must be gl, cpu or both, not '" + backend_given + "'");
  if (!one.empty()) {
    const std::vector<std::pair<int, int>> size = parse_sizes(one);
    if (size.size() != 1 || backend_given == "both")
      throw UsageError("--one wants one WxH and --backend gl or cpu");
    return run_one(backend_given, size[0].first, size[0].second, config, tiling);
  }
  FILE* const listing = standard_stream_of(json) == 1 ? stderr : stdout;
  if (!json.empty()) check_writable(json);
  std::fprintf(listing,
               "detect + describe of graf1 mirrored over each size, --max-features %d, memory budget %s, "
               "--tile-size %d; each size in a child process (peak RSS from the kernel)%s\n",
               max_features, budget.empty() ? "what is available" : budget.c_str(), tile_size,
               software_note(backend_given != "cpu" && gl::Context::headless().info().software()));
  std::fprintf(listing, "%8s %-12s", "MP", "size");
  for (const char* backend : kBackends) {
    if (backend_given == "both" || backend_given == backend)
      std::fprintf(listing, " | %-4s %9s %8s %6s %10s %9s", "", "ms", "ms/MP", "tiles", "peak MB", "B/pixel");
  }
  std::fprintf(listing, "\n");
  std::string rows;
  for (const int mp : megapixels) {
    // 4:3, both sides even.
    const int height = 2 * static_cast<int>(std::lround(std::sqrt(mp * 1e6 * 3.0 / 4.0) / 2.0));
    const int width = 2 * static_cast<int>(std::lround(height * 4.0 / 3.0 / 2.0));
    const std::string size = std::to_string(width) + "x" + std::to_string(height);
    std::fprintf(listing, "%8d %-12s", mp, size.c_str());
    for (const char* backend : kBackends) {
      if (backend_given != "both" && backend_given != backend) continue;
      std::vector<std::string> argv = {"glsurf",
                                       "bench",
                                       "size",
                                       "--one",
                                       size,
                                       "--backend",
                                       backend,
                                       "--max-features",
                                       std::to_string(max_features)};
      if (!budget.empty()) argv.insert(argv.end(), {"--memory-budget", budget});
      if (tile_size > 0) argv.insert(argv.end(), {"--tile-size", std::to_string(tile_size)});
      const Measured m = measure(argv);
      const double pixels = static_cast<double>(width) * height;
      if (!m.error.empty()) {
        std::fprintf(listing, " | %-4s failed: %s", backend, m.error.c_str());
      } else {
        std::fprintf(listing, " | %-4s %9.0f %8.1f %6d %10.0f %9.1f", backend, m.ms, m.ms / (pixels / 1e6),
                     m.tiles, m.peak_bytes / 1e6, m.peak_bytes / pixels);
      }
      std::fflush(listing);
      char row[512];
      std::snprintf(
          row, sizeof row,
          "%s{\"megapixels\": %d, \"width\": %d, \"height\": %d, \"backend\": \"%s\", \"ms\": %.1f, "
          "\"keypoints\": %lld, \"tiles\": %d, \"peak_rss_bytes\": %.0f, \"error\": %s}",
          rows.empty() ? "" : ",\n  ", mp, width, height, backend, m.ms, m.keypoints, m.tiles, m.peak_bytes,
          m.error.empty() ? "null" : ("\"" + json_escaped(m.error) + "\"").c_str());
      rows += row;
    }
    std::fprintf(listing, "\n");
  }
  if (!json.empty()) {
    const std::string text = "{\"benchmark\": \"size\", \"max_features\": " + std::to_string(max_features) +
                             ", \"rows\": [\n  " + rows + "]}\n";
    write_file_atomically(json, false, [&](std::ostream& out) { out << text; });
  }
  return 0;
}

OptionTable size_options() {
  return {text("--megapixels", "LIST", "1,2,4,12,48,100,400", "image sizes in megapixels (4:3)"),
          text("--backend", "gl|cpu|both", "both", "the backends, alternating at each size"),
          integer("--max-features", "N", 10000, 0, 1 << 20, "keypoints kept per image (0: all)"),
          text("--memory-budget", "BYTES", "", "as detect's (e.g. 2G)", "what is available"),
          integer("--tile-size", "N", 0, 0, 1 << 20, "as detect's"),
          text("--one", "WxH", "", "measure one size on one --backend in this process (what each child runs)",
               "every size of --megapixels, each in a child"),
          text("--json", "OUT", "",
               "the results as JSON (-: on standard output, the table then on standard error)", "none")};
}

}  // namespace

Command bench_size_command() {
  return {"bench size",
          "",
          "time and peak memory of detect + describe from 1 to 400 megapixels, gl and cpu",
          "Each size in a child process, its peak resident set from the kernel; the image is the bundled "
          "graf1 mirrored over the size. Images larger than the memory budget or the GPU's textures are "
          "detected in tiles; the table says how many.",
          size_options,
          run_size,
          "bench size --megapixels 1,12,48 --json size.json",
          {}};
}

}  // namespace glsurf::app
