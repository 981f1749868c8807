// glsurf merge OUT.db SHARD.db... — the databases of a sharded run (detect
// or match with --shard k/n) folded into one. Shards must have been made with
// the same options from the same image list: the image ids agree then (an
// image's id is its place in that list), and a shard's rows are copied as
// they are. One transaction per shard.
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>

#include "app/cli.hpp"
#include "database/colmap.hpp"
#include "io/output.hpp"

namespace glsurf::app {

namespace fs = std::filesystem;

namespace {

// The rows of `shard` (attached as s) that OUT lacks, table by table.
const char* const kCopy = R"(
INSERT INTO main.cameras SELECT * FROM s.cameras WHERE camera_id NOT IN (SELECT camera_id FROM main.cameras);
INSERT INTO main.images SELECT * FROM s.images WHERE image_id NOT IN (SELECT image_id FROM main.images);
INSERT INTO main.keypoints SELECT * FROM s.keypoints WHERE image_id NOT IN (SELECT image_id FROM main.keypoints);
INSERT INTO main.descriptors SELECT * FROM s.descriptors
  WHERE image_id NOT IN (SELECT image_id FROM main.descriptors);
INSERT INTO main.glsurf_features SELECT * FROM s.glsurf_features
  WHERE image_id NOT IN (SELECT image_id FROM main.glsurf_features);
INSERT INTO main.matches SELECT * FROM s.matches WHERE pair_id NOT IN (SELECT pair_id FROM main.matches);
INSERT INTO main.two_view_geometries SELECT * FROM s.two_view_geometries
  WHERE pair_id NOT IN (SELECT pair_id FROM main.two_view_geometries);
)";

// What every database of a merge must agree on: the options (settings) and
// which image has which id. Throws naming the first database that disagrees.
class Agreement {
 public:
  void add(colmap::Database& db) {
    for (const char* key : {"detector", "matcher", "image_root"}) {
      const std::string value = db.setting(key);
      if (value.empty()) continue;
      const auto [it, added] = settings_.emplace(key, std::make_pair(value, db.path()));
      if (!added && it->second.first != value) {
        throw Error(db.path() + ": made with another " + key + " than " + it->second.second + " (" + value +
                    "; there: " + it->second.first + ")");
      }
    }
    for (const colmap::Image& image : db.images(false)) {
      const auto [by_name, new_name] = ids_.emplace(image.name, std::make_pair(image.id, db.path()));
      const auto [by_id, new_id] = names_.emplace(image.id, image.name);
      if ((!new_name && by_name->second.first != image.id) || (!new_id && by_id->second != image.name)) {
        throw Error(db.path() + ": image " + image.name + " has id " + std::to_string(image.id) +
                    ", another id or image in " + (new_name ? by_id->second : by_name->second.second) +
                    ": shards must come from one image list (the same DIR or files)");
      }
    }
  }
  void store(colmap::Database& out) const {
    for (const auto& [key, value] : settings_) out.set_setting(key, value.first);
  }

 private:
  std::map<std::string, std::pair<std::string, std::string>> settings_;  // key -> value, its database
  std::map<std::string, std::pair<colmap::ImageId, std::string>> ids_;   // name -> id, its database
  std::map<colmap::ImageId, std::string> names_;
};

int merge(Args& args) {
  const bool quiet = args.flag("--quiet");
  const std::vector<std::string> names = args.positionals();
  args.finish();
  if (names.size() < 2) throw UsageError("merge needs OUT.db and at least one shard database");
  const std::string& out_path = names.front();
  const std::vector<std::string> shards(names.begin() + 1, names.end());
  // Every database is checked before anything is written.
  Agreement agreement;
  for (const std::string& shard : shards) {
    check_not_an_input("OUT.db", out_path, {shard});
    colmap::Database db(shard, colmap::Database::Access::Read);
    if (db.setting("schema").empty()) throw Error(shard + ": not made by glsurf (no glsurf tables)");
    agreement.add(db);
  }
  auto out = std::make_unique<colmap::Database>(out_path, colmap::Database::Access::Write);
  const bool created = out->created();
  try {
    const OutputLock lock(out_path);
    agreement.add(*out);
    agreement.store(*out);
    for (const std::string& shard : shards) {
      sql::Statement attach(out->connection(), "ATTACH DATABASE ? AS s");
      attach.bind(1, shard).run();
      {
        sql::Transaction t(out->connection());
        out->connection().exec(kCopy);
        t.commit();
      }
      out->connection().exec("DETACH DATABASE s");
    }
  } catch (...) {
    if (created) {  // nothing of it is wanted
      out.reset();
      fs::remove(out_path);
    }
    throw;
  }
  if (!quiet) {
    const size_t images = out->images(true).size();
    sql::Statement pairs(out->connection(), "SELECT count(*) FROM matches");
    pairs.step();
    std::fprintf(stderr, "%s: %s, %s, from %s\n", one_line(out_path).c_str(),
                 counted(images, "image").c_str(),
                 counted(static_cast<size_t>(pairs.integer(0)), "pair").c_str(),
                 counted(shards.size(), "database").c_str());
  }
  return 0;
}

OptionTable merge_options() { return {flag("--quiet", "no summary")}; }

}  // namespace

Command merge_command() {
  return {"merge",
          "OUT.db SHARD.db...",
          "fold the databases of a sharded detect or match (--shard k/n) into one",
          "OUT.db is made when missing, or added to (e.g. the database the match shards started from). "
          "Shards made with other options, or from another image list, are refused before anything is "
          "written.",
          merge_options,
          merge,
          "merge scene.db part1.db part2.db part3.db",
          {}};
}

}  // namespace glsurf::app
