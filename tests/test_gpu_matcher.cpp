// GPU matcher against the CPU reference on random unit descriptors (fixed
// seeds): identical best and second-best indices except where squared
// distances tie within 1e-6 (float32 sums in another order), identical
// filtered match sets; and the real graf1 -> graf3 pair.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>

#include "baseline/matcher_plain.hpp"
#include "cpu/matcher.hpp"
#include "gl/error.hpp"
#include "io/image.hpp"
#include "match/matcher.hpp"
#include "support.hpp"
#include "surf/detector.hpp"

using namespace glsurf;

namespace {

Features random_features(int n, int size, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> gauss;
  Features f;
  f.descriptor_size = size;
  for (int i = 0; i < n; ++i) {
    KeyPoint k;
    k.laplacian = (rng() & 1) ? 1 : -1;
    f.keypoints.push_back(k);
    std::vector<float> d(static_cast<size_t>(size));
    double norm = 0;
    for (float& v : d) v = gauss(rng), norm += v * v;
    // Unit length, but for one value (+-1 would make every distance 0 or 4).
    for (float& v : d) f.descriptors.push_back(size > 1 ? static_cast<float>(v / std::sqrt(norm)) : v);
  }
  return f;
}

// Same index, or a different index at a distance within 1e-6 of the CPU's.
bool same_choice(int gpu, float gpu_d2, int cpu, float cpu_d2) {
  return gpu == cpu || (gpu >= 0 && cpu >= 0 && std::abs(gpu_d2 - cpu_d2) <= 1e-6f);
}

// How many queries differ from the CPU's choice (ties within 1e-6 allowed).
int differences(const std::vector<TwoNearest>& gpu, const std::vector<TwoNearest>& cpu) {
  int differ = 0;
  for (size_t i = 0; i < cpu.size(); ++i) {
    differ += !same_choice(gpu[i].best, gpu[i].best_d2, cpu[i].best, cpu[i].best_d2) ||
              !same_choice(gpu[i].second, gpu[i].second_d2, cpu[i].second, cpu[i].second_d2) ||
              std::abs(gpu[i].best_d2 - cpu[i].best_d2) > 1e-5f;
  }
  return differ;
}

// The production matcher (fused) and the plain baseline, checked alike.
enum class MatchMethod { Fused, Plain };

// Calls use(matcher) with a matcher of `method`.
template <class Use>
void with_matcher(MatchMethod method, const MatchConfig& config, std::size_t memory_budget, Use use) {
  if (method == MatchMethod::Fused) {
    GpuMatcher m(test::headless_context(), config, gl::ShaderSource::from_environment(), memory_budget);
    use(m);
  } else {
    baseline::PlainMatcher m(test::headless_context(), config, gl::ShaderSource::from_environment(),
                             memory_budget);
    use(m);
  }
}

}  // namespace

TEST_SUITE("gl") {
  TEST_CASE("GPU two nearest neighbours equal the CPU's on random descriptors, any sizes") {
    struct Case {
      int queries, trains, size;
    };
    unsigned seed = 1;
    for (const Case c : {Case{1, 1, 64}, Case{2, 2, 64}, Case{3, 3, 64}, Case{7, 7, 64}, Case{100, 100, 64},
                         Case{1000, 1000, 64}, Case{4096, 4096, 64}, Case{5, 300, 64}, Case{300, 5, 64},
                         Case{1000, 65, 128}, Case{129, 2000, 128}, Case{70, 90, 36}, Case{40, 50, 4},
                         // Lengths that are not a multiple of 4 (descriptor files), padded with zeros.
                         Case{60, 70, 62}, Case{50, 40, 3}, Case{30, 30, 1}, Case{65, 300, 127}}) {
      const Features q = random_features(c.queries, c.size, seed++),
                     t = random_features(c.trains, c.size, seed++);
      for (const bool laplacian : {true, false}) {
        const std::vector<TwoNearest> cpu = cpu::two_nearest(q, t, laplacian);
        MatchConfig config;
        config.laplacian = laplacian;
        for (const MatchMethod method : {MatchMethod::Fused, MatchMethod::Plain}) {
          with_matcher(method, config, std::size_t(64) << 20, [&](auto& m) {
            m.runner().set_check_every_pass(true);
            const std::vector<TwoNearest> gpu = m.two_nearest(q, t);
            REQUIRE(gpu.size() == cpu.size());
            INFO(c.queries << " x " << c.trains << " (" << c.size << "-D), laplacian " << laplacian << ", "
                           << (method == MatchMethod::Fused ? "fused" : "plain"));
            CHECK(differences(gpu, cpu) == 0);
          });
        }
      }
    }
    CHECK_NOTHROW(gl::check_gl_errors("end of test"));
  }

  TEST_CASE("fused matcher with the trains in several buffer chunks equals the CPU") {
    // Buffer textures capped at the GL 3.3 minimum, 65,536 texels (62 whole
    // rows of 1024 per chunk): 64-D trains come in chunks of 3,968, 128-D in
    // chunks of 1,984, and 36-D (9 texels, chunks of 7,040) start mid-row.
    // Several query tiles (a small memory budget) re-copy each chunk.
    struct Case {
      int queries, trains, size;
    };
    unsigned seed = 500;
    for (const Case c : {Case{300, 5000, 64}, Case{200, 2500, 128}, Case{100, 8000, 36}}) {
      const Features q = random_features(c.queries, c.size, seed++),
                     t = random_features(c.trains, c.size, seed++);
      const std::vector<TwoNearest> cpu = cpu::two_nearest(q, t, true);
      GpuMatcher m(test::headless_context(), MatchConfig{}, gl::ShaderSource::from_environment(),
                   std::size_t(64) << 10);
      m.runner().set_check_every_pass(true);
      m.limit_buffer_texels(65536);
      const std::vector<TwoNearest> gpu = m.two_nearest(q, t);
      INFO(c.queries << " x " << c.trains << " (" << c.size << "-D)");
      REQUIRE(gpu.size() == cpu.size());
      CHECK(differences(gpu, cpu) == 0);
    }
    CHECK_NOTHROW(gl::check_gl_errors("end of test"));
  }

  TEST_CASE("GPU filtered matches equal the CPU's (ratio, mutual, sign, max distance)") {
    // Noisy copies of the train set as queries, so there are real matches.
    const Features t = random_features(800, 64, 99);
    Features q = t;
    std::mt19937 rng(5);
    std::normal_distribution<float> noise(0.0f, 0.05f);
    for (size_t i = 0; i < q.keypoints.size(); ++i) {
      double norm = 0;
      for (int c = 0; c < 64; ++c) {
        float& v = q.descriptors[i * 64 + static_cast<size_t>(c)];
        v += noise(rng);
        norm += v * v;
      }
      for (int c = 0; c < 64; ++c)
        q.descriptors[i * 64 + static_cast<size_t>(c)] /= static_cast<float>(std::sqrt(norm));
    }
    for (const MatchConfig config :
         {MatchConfig{}, MatchConfig{0.8f, false, true, 0.0f}, MatchConfig{0.0f, true, false, 0.0f},
          MatchConfig{0.9f, true, true, 0.3f}}) {
      const std::vector<Match> cpu = cpu::match(q, t, config);
      // Fused: the mutual check matches back the kept trains. Plain: both
      // directions from one distance texture, here in tiles of 97 queries
      // (4 bytes of distance per train, 16 per reduction texel: 400 + 200 + ...
      // + 1 = 802 texels, 16,032 bytes per query).
      for (const MatchMethod method : {MatchMethod::Fused, MatchMethod::Plain}) {
        std::vector<Match> gpu;
        with_matcher(method, config,
                     method == MatchMethod::Plain ? std::size_t(97 * 16032) : std::size_t(64) << 20,
                     [&](auto& m) { gpu = m.match(q, t); });
        INFO("ratio " << config.ratio << " mutual " << config.mutual << " laplacian " << config.laplacian
                      << " max " << config.max_distance
                      << (method == MatchMethod::Plain ? " plain" : " fused") << ": GPU " << gpu.size()
                      << ", CPU " << cpu.size());
        REQUIRE(gpu.size() == cpu.size());
        REQUIRE(!cpu.empty());
        bool same = true;
        for (size_t i = 0; i < cpu.size(); ++i)
          same = same && gpu[i].query == cpu[i].query && gpu[i].train == cpu[i].train;
        CHECK(same);
      }
    }
  }

  TEST_CASE(
      "descriptors kept on the GPU match exactly like uploaded ones, 64 and 128 values, second "
      "orientations") {
    const GrayImage a = load_gray(GLSURF_TEST_ASSET_DIR "/box.png");
    const GrayImage b = load_gray(GLSURF_TEST_ASSET_DIR "/box_in_scene.png");
    DescriptorTextures kept64, kept128;  // from the first two variants
    for (const int variant : {0, 1, 2}) {
      const bool extended = variant == 1;
      DetectorConfig config;
      config.extended = extended;
      config.max_features = 600;  // trimmed lists: the kept keypoints only, in order
      // Entries past the point list's (a keypoint's second orientation) take
      // their Laplacian sign from their keypoint's entry.
      config.second_orientation = variant == 2 ? 0.8f : 0.0f;
      GpuDetector detector(test::headless_context(), config);
      detector.runner().set_check_every_pass(true);
      DescriptorTextures ra, rb;
      const Features ka = detector.detect_and_compute(a, &ra);  // keypoints only: descriptors stay on the GPU
      const Features kb = detector.detect_and_compute(b, &rb);
      CHECK(ka.descriptors.empty());
      const Features fa = detector.detect_and_compute(a), fb = detector.detect_and_compute(b);
      REQUIRE(ra.count == static_cast<int>(fa.keypoints.size()));
      REQUIRE(rb.count == static_cast<int>(fb.keypoints.size()));
      REQUIRE(ka.keypoints.size() == fa.keypoints.size());
      REQUIRE(kb.keypoints.size() == fb.keypoints.size());
      if (variant == 2) {
        // Some keypoints have two entries: the same point, apart by angle.
        int twice = 0;
        for (size_t i = 1; i < fb.keypoints.size(); ++i) {
          twice += fb.keypoints[i].x == fb.keypoints[i - 1].x && fb.keypoints[i].y == fb.keypoints[i - 1].y;
        }
        CHECK(twice > 30);
      }
      GpuMatcher matcher(test::headless_context(), MatchConfig{});
      const std::vector<Match> resident = matcher.match(ra, rb), uploaded = matcher.match(fa, fb);
      INFO((extended ? "128" : "64") << " values" << (variant == 2 ? ", second orientations" : "") << ": "
                                     << resident.size() << " / " << uploaded.size() << " matches");
      REQUIRE(uploaded.size() > 20);
      REQUIRE(resident.size() == uploaded.size());
      bool same = true;
      for (size_t i = 0; i < resident.size(); ++i) {
        same = same && resident[i].query == uploaded[i].query && resident[i].train == uploaded[i].train &&
               resident[i].distance == uploaded[i].distance;
      }
      CHECK(same);
      if (variant == 0) kept64 = std::move(ra);
      if (variant == 1) kept128 = std::move(ra);
    }
    // Sets of 128 and 64 values cannot be matched: refused as host sets are.
    GpuMatcher matcher(test::headless_context(), MatchConfig{});
    CHECK_THROWS_WITH_AS(matcher.match(kept128, kept64),
                         doctest::Contains("descriptor sizes differ (128 and 64 values)"), Error);
    CHECK_NOTHROW(gl::check_gl_errors("end of test"));
  }

  TEST_CASE("one against many: matches per image, as matching each pair") {
    DetectorConfig config;
    config.max_features = 400;
    GpuDetector detector(test::headless_context(), config);
    DescriptorTextures incoming, box, graf;
    const GrayImage scene = load_gray(GLSURF_TEST_ASSET_DIR "/box_in_scene.png");
    const GrayImage object = load_gray(GLSURF_TEST_ASSET_DIR "/box.png");
    const GrayImage wall = load_gray(GLSURF_TEST_ASSET_DIR "/graf1.png");
    detector.detect_and_compute(scene, &incoming);
    detector.detect_and_compute(object, &box);
    detector.detect_and_compute(wall, &graf);
    const Features fq = detector.detect_and_compute(scene), fb = detector.detect_and_compute(object),
                   fg = detector.detect_and_compute(wall);
    GpuMatcher matcher(test::headless_context(), MatchConfig{});
    const std::vector<std::vector<Match>> many = matcher.match_many(incoming, {&box, &graf});
    REQUIRE(many.size() == 2);
    const std::vector<Match> with_box = cpu::match(fq, fb, MatchConfig{}),
                             with_graf = cpu::match(fq, fg, MatchConfig{});
    const auto pairs = [](const std::vector<Match>& matches) {
      std::vector<std::pair<int, int>> out;
      for (const Match& m : matches) out.emplace_back(m.query, m.train);
      std::sort(out.begin(), out.end());
      return out;
    };
    CHECK(pairs(many[0]) == pairs(with_box));
    CHECK(pairs(many[1]) == pairs(with_graf));
    CHECK(many[0].size() > 2 * many[1].size());  // the box is in the scene, the graffiti is not
  }

  TEST_CASE("small memory budgets tile the queries, partial groups included, without changing the result") {
    const Features q = random_features(3001, 64, 11), t = random_features(700, 64, 12);
    const std::vector<TwoNearest> cpu = cpu::two_nearest(q, t, true);
    // 11 blocks need 21 texels of levels, 336 bytes per query: tiles of 48, 97 and 1001 queries.
    for (const std::size_t budget : {std::size_t(16384), std::size_t(32592), std::size_t(336336)}) {
      for (const MatchMethod method : {MatchMethod::Fused, MatchMethod::Plain}) {
        std::vector<TwoNearest> gpu;
        with_matcher(method, MatchConfig{}, budget, [&](auto& tiled) { gpu = tiled.two_nearest(q, t); });
        REQUIRE(gpu.size() == cpu.size());
        INFO("budget " << budget << ", " << (method == MatchMethod::Fused ? "fused" : "plain"));
        CHECK(differences(gpu, cpu) == 0);
      }
    }
  }

  TEST_CASE("NaN descriptors and zero Laplacians: GPU as the CPU") {
    Features q = random_features(50, 64, 31), t = random_features(60, 64, 32);
    for (size_t i = 0; i < q.keypoints.size(); i += 3) q.keypoints[i].laplacian = 0;
    for (size_t c = 0; c < 64; ++c) t.descriptors[5 * 64 + c] = std::nanf("");
    const std::vector<TwoNearest> cpu = cpu::two_nearest(q, t, true);
    for (const MatchMethod method : {MatchMethod::Fused, MatchMethod::Plain}) {
      std::vector<TwoNearest> gpu;
      with_matcher(method, MatchConfig{}, std::size_t(64) << 20, [&](auto& m) { gpu = m.two_nearest(q, t); });
      REQUIRE(gpu.size() == cpu.size());
      int differ = 0;
      for (size_t i = 0; i < cpu.size(); ++i)
        differ += gpu[i].best != cpu[i].best || gpu[i].second != cpu[i].second;
      CHECK(differ == 0);
    }
  }

  TEST_CASE("empty feature sets match nothing") {
    GpuMatcher m(test::headless_context(), MatchConfig{});
    const Features none = random_features(0, 64, 1), some = random_features(10, 64, 2);
    CHECK(m.match(none, some).empty());
    CHECK(m.match(some, none).empty());
    // Also a set of no particular size (Features{}: descriptor_size 0), as the CPU.
    CHECK(m.match(Features{}, some).empty());
    CHECK(m.match(some, Features{}).empty());
    CHECK(cpu::match(Features{}, some, MatchConfig{}).empty());
    const std::vector<TwoNearest> alone = m.two_nearest(some, Features{});
    REQUIRE(alone.size() == 10);
    CHECK(alone[9].best == -1);
  }

  TEST_CASE("sets that cannot be matched are refused alike by the GPU and the CPU, with glsurf::Error") {
    GpuMatcher m(test::headless_context(), MatchConfig{});
    const Features some = random_features(10, 64, 2);
    Features short_one = random_features(3, 64, 3);
    short_one.descriptors.resize(64);  // one descriptor for three keypoints
    Features bare = some;              // keypoints whose descriptors were never read back
    bare.descriptors.clear();
    bare.descriptor_size = 0;
    for (const Features* bad : {&short_one, &bare}) {
      const char* why = bad == &bare ? "keypoints without descriptors" : "descriptor count does not match";
      CHECK_THROWS_WITH_AS(m.match(*bad, some), doctest::Contains(why), Error);
      CHECK_THROWS_WITH_AS(m.match(some, *bad), doctest::Contains(why), Error);
      CHECK_THROWS_WITH_AS(cpu::match(*bad, some, MatchConfig{}), doctest::Contains(why), Error);
      CHECK_THROWS_WITH_AS(cpu::match(some, *bad, MatchConfig{}), doctest::Contains(why), Error);
    }
    const Features wide = random_features(10, 128, 4);
    CHECK_THROWS_WITH_AS(m.match(wide, some),
                         doctest::Contains("descriptor sizes differ (128 and 64 values)"), Error);
    CHECK_THROWS_WITH_AS(cpu::match(wide, some, MatchConfig{}), doctest::Contains("descriptor sizes differ"),
                         Error);
    CHECK_THROWS_WITH_AS(m.two_nearest(some, short_one),
                         doctest::Contains("the train set's descriptor count"), Error);
  }

}  // TEST_SUITE

TEST_SUITE("gl") {
  TEST_CASE("bounded draws: passes drawn in bands give the same matches and keypoints") {
    // A display's watchdog kills long draws (PassRunner::kMaxDrawWork); with a
    // bound of 2^16 units the matcher's two_nearest pass (64 trains x 8
    // queries x 16 texels per fragment) and the detector's passes are drawn
    // in many bands, and every result stays bit for bit the same.
    const Features a = random_features(700, 64, 11), b = random_features(900, 64, 12);
    GpuMatcher whole(test::headless_context(), MatchConfig{});
    GpuMatcher banded(test::headless_context(), MatchConfig{});
    banded.runner().set_max_draw_work(1 << 16);
    const std::vector<Match> expected = whole.match(a, b), got = banded.match(a, b);
    REQUIRE(expected.size() == got.size());
    for (size_t i = 0; i < got.size(); ++i) {
      CHECK(got[i].query == expected[i].query);
      CHECK(got[i].train == expected[i].train);
      CHECK(got[i].distance == expected[i].distance);
    }
    CHECK(whole.runner().draws_issued() == whole.runner().passes_run());
    CHECK(banded.runner().draws_issued() > 4 * banded.runner().passes_run());

    const GrayImage image = load_gray(GLSURF_TEST_ASSET_DIR "/graf1.png");
    GpuDetector one(test::headless_context(), DetectorConfig{});
    GpuDetector bands(test::headless_context(), DetectorConfig{});
    bands.runner().set_max_draw_work(1 << 16);
    const Features fa = one.detect_and_compute(image), fb = bands.detect_and_compute(image);
    CHECK(bands.runner().draws_issued() > 2 * bands.runner().passes_run());
    REQUIRE(fa.keypoints.size() == fb.keypoints.size());
    CHECK(fa.descriptors == fb.descriptors);
    for (size_t i = 0; i < fa.keypoints.size(); ++i) {
      CHECK(fa.keypoints[i].x == fb.keypoints[i].x);
      CHECK(fa.keypoints[i].angle == fb.keypoints[i].angle);
    }
  }
}

TEST_SUITE("gl") {
  TEST_CASE("a lost context is an error at the next stage boundary, not garbage") {
    const Features a = random_features(50, 64, 21), b = random_features(60, 64, 22);
    GpuMatcher matcher(test::headless_context(), MatchConfig{});
    GpuDetector detector(test::headless_context(), DetectorConfig{});
    const GrayImage image = load_gray(GLSURF_TEST_ASSET_DIR "/box.png");
    gl::simulate_context_loss(true);
    const auto lost = [](const auto& call) {
      try {
        call();
      } catch (const Error& e) {
        return std::string(e.what()).find("the GPU was reset and the OpenGL context is lost") !=
               std::string::npos;
      }
      return false;
    };
    CHECK(lost([&] { matcher.match(a, b); }));
    CHECK(lost([&] { detector.detect_and_compute(image); }));
    gl::simulate_context_loss(false);
    CHECK_NOTHROW(matcher.match(a, b));
    CHECK_NOTHROW(detector.detect_and_compute(image));
  }
}
