// glsurf match --database: every pair of a list matched in one process. Each
// image's descriptors are uploaded once and stay on the GPU while a pair
// still needs them; each pair's raw matches and its two-view geometry are
// stored, one transaction per image's pairs, so that a killed run leaves a
// consistent database and a rerun matches only the pairs it lacks.
#include "app/match_database.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>

#include "app/cli.hpp"
#include "app/dataset.hpp"
#include "cpu/matcher.hpp"
#include "database/colmap.hpp"
#include "glsurf/geometry.hpp"
#include "io/output.hpp"
#include "match/matcher.hpp"

namespace glsurf::app {

namespace {

using colmap::ImageId;
using Pair = std::pair<ImageId, ImageId>;  // the smaller id first

std::string matcher_signature(const MatchConfig& c, const std::string& backend) {
  char text[192];
  std::snprintf(text, sizeof text, "backend=%s ratio=%g mutual=%d laplacian=%d max-distance=%g geometry=auto",
                backend.c_str(), c.ratio, c.mutual ? 1 : 0, c.laplacian ? 1 : 0, c.max_distance);
  return text;
}

Pair ordered(ImageId a, ImageId b) { return a < b ? Pair{a, b} : Pair{b, a}; }

// COLMAP's match-list format: one "NAME1 NAME2" per line; blank lines and
// lines starting with # are skipped.
std::vector<Pair> pairs_from_file(const std::string& path, const std::map<std::string, ImageId>& ids) {
  std::ifstream in(path);
  if (!in) throw Error(path + ": cannot read the pair list");
  std::vector<Pair> pairs;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::istringstream words(line);
    std::string a, b, extra;
    if (!(words >> a) || a[0] == '#') continue;
    const std::string where = path + ":" + std::to_string(number) + ": ";
    if (!(words >> b) || (words >> extra)) throw Error(where + "expected two image names, found: " + line);
    for (const std::string& name : {a, b}) {
      if (!ids.count(name)) throw Error(where + "no image " + name + " in the database");
    }
    if (a == b) throw Error(where + "an image paired with itself: " + a);
    pairs.push_back(ordered(ids.at(a), ids.at(b)));
  }
  if (in.bad()) throw Error(path + ": cannot read the pair list");
  return pairs;
}

// The pairs that --pairs names: exhaustive, sequential[:K] (each image with
// the K after it in name order, COLMAP's sequential matcher; K = 10 when not
// given) or a file. Repeated pairs are matched once.
std::vector<Pair> pair_list(const std::string& spec, const std::vector<colmap::Image>& images) {
  std::vector<colmap::Image> by_name = images;
  std::sort(by_name.begin(), by_name.end(),
            [](const colmap::Image& a, const colmap::Image& b) { return a.name < b.name; });
  std::vector<Pair> pairs;
  if (spec == "exhaustive") {
    for (size_t i = 0; i < images.size(); ++i) {
      for (size_t j = i + 1; j < images.size(); ++j) pairs.push_back(ordered(images[i].id, images[j].id));
    }
  } else if (spec.rfind("sequential", 0) == 0) {
    long k = 10;
    if (spec != "sequential") {
      char* end = nullptr;
      k = spec[10] == ':' ? std::strtol(spec.c_str() + 11, &end, 10) : 0;
      if (spec[10] != ':' || !end || *end || spec.size() == 11 || k < 1 || k > 1000000)
        throw UsageError("--pairs sequential:K takes a K from 1 on, not " + spec);
    }
    for (size_t i = 0; i < by_name.size(); ++i) {
      for (size_t j = i + 1; j < by_name.size() && j <= i + static_cast<size_t>(k); ++j)
        pairs.push_back(ordered(by_name[i].id, by_name[j].id));
    }
  } else {
    std::map<std::string, ImageId> ids;
    for (const colmap::Image& image : images) ids[image.name] = image.id;
    pairs = pairs_from_file(spec, ids);
  }
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  return pairs;
}

// A pair's verification as COLMAP's matchers make it (estimate_two_view_geometry),
// in COLMAP's pixel convention (keypoints + 0.5), so
// that the stored F and H are those of the keypoints colmap reads.
colmap::TwoView verify(const Features& a, const Features& b, const std::vector<Match>& matches) {
  std::vector<PointPair> points;
  points.reserve(matches.size());
  for (const Match& m : matches) {
    const KeyPoint &ka = a.keypoints[static_cast<size_t>(m.query)],
                   &kb = b.keypoints[static_cast<size_t>(m.train)];
    points.push_back({ka.x + 0.5, ka.y + 0.5, kb.x + 0.5, kb.y + 0.5});
  }
  const TwoViewGeometry g = estimate_two_view_geometry(points);
  colmap::TwoView view;
  view.config = static_cast<int>(g.configuration);
  if (g.f_found) view.f = g.f;
  if (g.h_found) view.h = g.h;
  for (size_t i = 0; i < matches.size(); ++i) {
    if (g.inliers[i]) view.inliers.push_back(matches[i]);
  }
  return view;
}

}  // namespace

int match_database(const DatabaseMatch& run) {
  colmap::Database db(run.database, colmap::Database::Access::Update);
  const OutputLock lock(run.database);
  const std::vector<colmap::Image> images = db.images(true);
  if (images.size() < 2) {
    throw Error(run.database + ": " + counted(images.size(), "image") +
                " with glsurf features; run glsurf detect DIR --database " + run.database + " first");
  }
  const std::vector<Pair> all = pair_list(run.pairs, images);  // a bad list: refused before any write
  db.require_setting("matcher", matcher_signature(run.matcher, run.backend), "matches");
  std::vector<Pair> todo;
  size_t stored_before = 0;
  for (size_t i = 0; i < all.size(); ++i) {
    if (!run.shard.takes(i)) continue;
    if (db.has_pair(all[i].first, all[i].second))
      ++stored_before;
    else
      todo.push_back(all[i]);
  }

  // Each image's features, read when first needed; on the GPU its
  // descriptors too, until its last pair is done.
  std::map<ImageId, size_t> last_use;  // image -> index of its last pair in todo
  for (size_t i = 0; i < todo.size(); ++i) last_use[todo[i].first] = last_use[todo[i].second] = i;
  std::map<ImageId, Features> features;
  std::map<ImageId, DescriptorTextures> resident;
  std::unique_ptr<gl::Context> context;
  std::unique_ptr<GpuMatcher> matcher;
  if (run.backend == "gl" && !todo.empty()) {
    context = std::make_unique<gl::Context>(headless_or_hint());
    matcher = std::make_unique<GpuMatcher>(*context, run.matcher);
  }
  const auto load = [&](ImageId id) -> const Features& {
    auto it = features.find(id);
    if (it == features.end()) {
      it = features.emplace(id, db.features(id)).first;
      if (matcher) resident.emplace(id, upload_descriptors(it->second, "image", true));
    }
    return it->second;
  };

  Progress progress("pairs", todo.size(), run.quiet);
  const auto t0 = std::chrono::steady_clock::now();
  std::map<int, size_t> configs;  // COLMAP configuration of the verified pairs -> pairs
  size_t verified = 0;
  // The pairs of one query image (todo is sorted by it), matched and stored
  // together.
  for (size_t begin = 0; begin < todo.size();) {
    size_t end = begin;
    while (end < todo.size() && todo[end].first == todo[begin].first) ++end;
    const ImageId query = todo[begin].first;
    struct Result {
      Pair pair;
      std::vector<Match> matches;
      colmap::TwoView geometry;
    };
    std::vector<Result> results;
    for (size_t i = begin; i < end; ++i) {
      const ImageId train = todo[i].second;
      const Features& fa = load(query);
      const Features& fb = load(train);
      std::vector<Match> matches =
          matcher ? matcher->match(resident.at(query), resident.at(train)) : cpu::match(fa, fb, run.matcher);
      colmap::TwoView geometry = verify(fa, fb, matches);
      results.push_back({todo[i], std::move(matches), std::move(geometry)});
    }
    sql::Transaction t(db.connection());
    for (const Result& r : results) {
      db.add_pair(r.pair.first, r.pair.second, r.matches, r.geometry);
      if (!r.geometry.inliers.empty()) ++verified, ++configs[r.geometry.config];
    }
    t.commit();
    for (size_t i = begin; i < end; ++i) {
      for (const ImageId id : {todo[i].first, todo[i].second}) {
        if (last_use[id] == i) {
          resident.erase(id);
          features.erase(id);
        }
      }
    }
    progress.step(end - begin);
    begin = end;
  }
  progress.finish();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  if (!run.quiet) {
    std::string summary = counted(all.size(), "pair");
    if (run.shard.n > 1)
      summary += ", shard " + run.shard.name() + ": " + counted(todo.size() + stored_before, "pair");
    char rate[64];
    std::snprintf(rate, sizeof rate, " in %.1f s (%.1f pairs/s, %s)", seconds,
                  seconds > 0 ? todo.size() / seconds : 0.0, run.backend.c_str());
    summary += ": " + std::to_string(todo.size()) + " matched" + (todo.empty() ? "" : rate) + ", " +
               std::to_string(verified) + " verified";
    std::string kinds;
    for (const auto& [config, count] : configs) {
      kinds += (kinds.empty() ? " (" : ", ") + std::to_string(count) + " " +
               to_string(static_cast<TwoViewConfiguration>(config));
    }
    if (!kinds.empty()) summary += kinds + ")";
    if (stored_before > 0) summary += ", " + std::to_string(stored_before) + " already in the database";
    std::fprintf(stderr, "%s\n", one_line(summary).c_str());
  }
  return 0;
}

}  // namespace glsurf::app
