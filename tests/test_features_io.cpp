// Feature files: both formats read back what was written, bit for bit.
// (KeyPoint aggregates below: x, y, size, angle, response, octave, laplacian.)
#include <doctest/doctest.h>

#include "gl/error.hpp"
#include "io/features.hpp"

#include <cstdio>
#include <filesystem>
#include <sstream>

using namespace glsurf;

TEST_SUITE("cpu") {

TEST_CASE("txt and bin feature files round-trip every field exactly") {
  std::vector<KeyPoint> ks(3);
  ks[0] = {1.25f, 2.5f, 9.0f, -1.0f, 12345.678f, 1, 0};
  ks[1] = {0.1f, 799.123456f, 50.5f, 359.9f, 1e-3f, -1, 3};
  ks[2] = {3.3333333f, 1e6f, 1.0f, 0.0f, 3.4e38f, -1, 7};
  Features features;
  features.keypoints = ks;
  features.descriptor_size = 2;
  features.descriptors = {0.5f, -0.25f, 1e-7f, 0.7071068f, -1.0f, 0.333333343f};
  const auto dir = std::filesystem::temp_directory_path();
  for (const FeatureFormat f : {FeatureFormat::Txt, FeatureFormat::Bin}) {
    const std::string path = (dir / (f == FeatureFormat::Txt ? "glsurf_rt.txt" : "glsurf_rt.bin")).string();
    write_features_file(path, features, f);
    const Features read = read_features_file(path);
    const std::vector<KeyPoint>& back = read.keypoints;
    std::remove(path.c_str());
    CHECK(read.descriptor_size == 2);
    CHECK(read.descriptors == features.descriptors);
    REQUIRE(back.size() == ks.size());
    for (size_t i = 0; i < ks.size(); ++i) {
      CHECK(back[i].x == ks[i].x);
      CHECK(back[i].y == ks[i].y);
      CHECK(back[i].size == ks[i].size);
      CHECK(back[i].angle == ks[i].angle);
      CHECK(back[i].response == ks[i].response);
      CHECK(back[i].laplacian == ks[i].laplacian);
      CHECK(back[i].octave == ks[i].octave);
    }
  }
}

TEST_CASE("the txt format is N D, then one line per keypoint with its D values") {
  KeyPoint k;
  k.x = 1.5f;
  k.y = 2.0f;
  k.size = 9.0f;
  k.response = 100.0f;
  k.laplacian = -1;
  k.octave = 0;
  Features f;
  f.keypoints = {k};
  f.descriptor_size = 2;
  f.descriptors = {0.25f, -0.5f};
  std::ostringstream out;
  write_features(out, f, FeatureFormat::Txt);
  CHECK(out.str() == "1 2\n1.5 2 9 -1 100 -1 0 0.25 -0.5\n");
}

TEST_CASE("a failed write leaves no file behind") {
  const std::string path = (std::filesystem::temp_directory_path() / "glsurf_never.txt").string();
  std::remove(path.c_str());
  CHECK_THROWS_AS(write_file_atomically(path, false, [](std::ostream& out) {
                    out << "partial";
                    throw Error("disk full, say");
                  }),
                  Error);
  CHECK(!std::filesystem::exists(path));
  CHECK_THROWS_WITH_AS(write_features_file("/nonexistent_dir/x.txt", Features{}, FeatureFormat::Txt),
                       doctest::Contains("/nonexistent_dir/x.txt"), Error);
}

}  // TEST_SUITE
