#include "app/sequence.hpp"

#include <algorithm>
#include <cctype>

#include "gl/error.hpp"
#include "io/image.hpp"
#include "io/output.hpp"

namespace glsurf::app {

namespace fs = std::filesystem;

namespace {

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

}  // namespace

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

}  // namespace glsurf::app
