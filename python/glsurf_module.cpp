// glsurf's Python extension, `glsurf._glsurf` (the package glsurf/__init__.py
// re-exports it and adds the OpenCV helpers). Built on the public API alone
// (include/glsurf/*.hpp, linked as glsurf::glsurf); docs/python.md is its
// manual.
//
// Threads and the GL context:
// - one OpenGL context per process, made on the first GPU use (a gl Detector
//   or Matcher) and shared by every later one; it is never destroyed (the
//   process's exit takes it), so that objects freed late in the interpreter's
//   shutdown still find it;
// - a GPU call holds one process-wide lock, makes the context current on the
//   calling thread and releases it before it returns, so any Python thread
//   may use any object, one at a time; CPU objects take no lock;
// - the GIL is released while glsurf works (loading, detection, matching,
//   RANSAC), never while numpy memory is read or written. The thread that
//   holds the GL lock never waits for the GIL, so the two cannot deadlock.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <cstring>
#include <glsurf/glsurf.hpp>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace py = pybind11;

namespace {

// --- the process's GL context --------------------------------------------------

class GlContext {
 public:
  // The lock, held for the whole of a GPU call (the context's creation too).
  std::mutex mutex;

  // The context, made on the first call; the caller holds `mutex`. Throws
  // glsurf::Error (the library's reason and the CPU hint) when there is no
  // OpenGL 3.3, also on every later call: the first failure is kept.
  const glsurf::Context& get() {
    if (context_) return *context_;
    if (!failure_.empty()) throw glsurf::Error(failure_);
    try {
      context_ = std::make_unique<glsurf::Context>(glsurf::Context::headless());
      context_->release_current();  // headless() left it current on this thread
    } catch (const glsurf::Error& e) {
      failure_ = std::string(e.what()) + "; or use backend=\"cpu\"";
      throw glsurf::Error(failure_);
    }
    return *context_;
  }

 private:
  std::unique_ptr<glsurf::Context> context_;
  std::string failure_;
};

GlContext& gl_context() {
  static GlContext* const context = new GlContext;  // never destroyed (above)
  return *context;
}

// Runs `work` with the GL lock held and the context current on this thread;
// the context is released again whatever `work` does.
template <typename Work>
auto with_gl(Work&& work) {
  GlContext& gl = gl_context();
  std::lock_guard<std::mutex> lock(gl.mutex);
  const glsurf::Context& context = gl.get();
  context.make_current();
  struct Release {
    const glsurf::Context& context;
    ~Release() {
      try {
        context.release_current();
      } catch (const glsurf::Error&) {  // nothing to be done; the next make_current will say
      }
    }
  } release{context};
  return work(context);
}

bool parse_backend(const std::string& backend) {
  if (backend == "gl") return true;
  if (backend == "cpu") return false;
  throw py::value_error("backend must be \"gl\" or \"cpu\", not \"" + backend + "\"");
}

// --- arrays in -------------------------------------------------------------------

std::string shape_of(const py::array& a) {
  std::string s = "(";
  for (py::ssize_t i = 0; i < a.ndim(); ++i) s += (i ? ", " : "") + std::to_string(a.shape(i));
  return s + (a.ndim() == 1 ? ",)" : ")");
}

std::string dtype_name(const py::array& a) { return py::str(a.dtype()).cast<std::string>(); }

std::optional<std::string> as_path(const py::handle& image) {
  if (py::isinstance<py::str>(image) || py::isinstance<py::bytes>(image) ||
      py::hasattr(image, "__fspath__")) {
    const py::object path = py::module_::import("os").attr("fspath")(image);
    if (py::isinstance<py::bytes>(path)) return std::string(path.cast<py::bytes>());
    return path.cast<std::string>();
  }
  return std::nullopt;
}

// BGR -> grey with the ITU-R BT.601 weights in OpenCV's fixed point, rounded,
// exactly as glsurf's loader converts colour files: (4899 R + 9617 G + 1868 B
// + 2^13) / 2^14. (OpenCV 4.6's vectorised cvtColor rounds a few pixels one
// lower: 283 of graf1's 512,000.)
std::uint8_t grey_of_bgr(unsigned b, unsigned g, unsigned r) {
  return static_cast<std::uint8_t>((4899 * r + 9617 * g + 1868 * b + 8192) >> 14);
}

// A numpy image as glsurf's GrayImage: uint8, H x W grey, H x W x 1, H x W x 3
// (BGR, as cv2.imread gives it) or H x W x 4 (BGRA, alpha ignored), any
// strides. Throws ValueError naming what is wrong. Needs the GIL.
glsurf::GrayImage gray_from_array(const py::array& a) {
  const py::dtype dtype = a.dtype();
  if (dtype.kind() != 'u' || dtype.itemsize() != 1) {
    std::string hint;
    if (dtype.kind() == 'f')
      hint =
          " (float images are not taken: glsurf works on grey levels 0..255; scale and convert, e.g. "
          "(image * 255).round().astype(numpy.uint8))";
    else if (dtype.kind() == 'u' || dtype.kind() == 'i' || dtype.kind() == 'b')
      hint = " (convert to 0..255 and .astype(numpy.uint8))";
    throw py::value_error("image: dtype " + dtype_name(a) + ", expected uint8" + hint);
  }
  const py::ssize_t channels = a.ndim() == 3 ? a.shape(2) : 1;
  if (a.ndim() != 2 && a.ndim() != 3)
    throw py::value_error("image: shape " + shape_of(a) +
                          ", expected H x W (grey), H x W x 3 (BGR) or H x W x 4 (BGRA)");
  if (channels != 1 && channels != 3 && channels != 4)
    throw py::value_error("image: shape " + shape_of(a) + ": " + std::to_string(channels) +
                          " channels, expected 1 (grey), 3 (BGR) or 4 (BGRA)");
  const py::ssize_t h = a.shape(0), w = a.shape(1);
  if (h == 0 || w == 0) throw py::value_error("image: empty (shape " + shape_of(a) + ")");
  if (h > 16384 || w > 16384)
    throw py::value_error("image: shape " + shape_of(a) + " exceeds the limit of 16384 per side");

  glsurf::GrayImage image(static_cast<int>(w), static_cast<int>(h));
  const auto* base = static_cast<const std::uint8_t*>(a.data());
  const py::ssize_t sy = a.strides(0), sx = a.strides(1), sc = a.ndim() == 3 ? a.strides(2) : 0;
  std::uint8_t* out = image.pixels.data();
  if (channels == 1 && sx == 1 && sy == w) {
    std::memcpy(out, base, static_cast<size_t>(w * h));  // C-contiguous grey: one copy
    return image;
  }
  for (py::ssize_t y = 0; y < h; ++y) {
    const std::uint8_t* row = base + y * sy;
    for (py::ssize_t x = 0; x < w; ++x, ++out) {
      const std::uint8_t* p = row + x * sx;
      *out = channels == 1 ? p[0] : grey_of_bgr(p[0], p[sc], p[2 * sc]);
    }
  }
  return image;
}

// What an image argument holds: pixels already converted, or a path to load
// (without the GIL).
struct ImageArg {
  glsurf::GrayImage image;
  std::optional<std::string> path;
  glsurf::GrayImage load() && { return path ? glsurf::load_gray(*path) : std::move(image); }
};

ImageArg image_arg(const py::handle& image) {
  if (std::optional<std::string> path = as_path(image)) return {{}, std::move(path)};
  if (!py::isinstance<py::array>(image)) {
    throw py::type_error(
        "image: expected a numpy array (uint8, H x W, H x W x 3 BGR or H x W x 4 BGRA) or a path, not " +
        py::str(py::type::of(image).attr("__name__")).cast<std::string>());
  }
  return {gray_from_array(py::reinterpret_borrow<py::array>(image)), std::nullopt};
}

// A field of a structured array as a contiguous array of T, cast as numpy
// casts (e.g. float64 -> float32).
template <typename T>
py::array_t<T, py::array::c_style | py::array::forcecast> field(const py::array& a, const char* name) {
  return py::array_t<T, py::array::c_style | py::array::forcecast>::ensure(a[py::str(name)]);
}

// Keypoints as Detector.detect gives them: a structured array with the fields
// x, y, size, angle, response, octave, laplacian (any order, any numeric
// types; more fields are ignored).
std::vector<glsurf::KeyPoint> keypoints_from(const py::handle& obj, const char* what) {
  if (!py::isinstance<py::array>(obj))
    throw py::type_error(std::string(what) + ": expected a keypoint array (Detector.detect's first result)");
  const auto a = py::reinterpret_borrow<py::array>(obj);
  const py::object names = a.dtype().attr("names");
  static const char* const kFields[7] = {"x", "y", "size", "angle", "response", "octave", "laplacian"};
  for (const char* f : kFields) {
    if (names.is_none() || !names.contains(f))
      throw py::value_error(std::string(what) + ": dtype " + dtype_name(a) + " has no field '" + f +
                            "' (expected glsurf.keypoint_dtype)");
  }
  if (a.ndim() != 1) throw py::value_error(std::string(what) + ": shape " + shape_of(a) + ", expected (N,)");
  std::vector<glsurf::KeyPoint> out(static_cast<size_t>(a.shape(0)));
  if (a.dtype().equal(py::dtype::of<glsurf::KeyPoint>()) && (a.flags() & py::array::c_style)) {
    if (!out.empty()) std::memcpy(out.data(), a.data(), out.size() * sizeof(glsurf::KeyPoint));
    return out;
  }
  const auto x = field<float>(a, "x"), y = field<float>(a, "y"), size = field<float>(a, "size"),
             angle = field<float>(a, "angle"), response = field<float>(a, "response");
  const auto octave = field<std::int32_t>(a, "octave"), laplacian = field<std::int32_t>(a, "laplacian");
  for (size_t i = 0; i < out.size(); ++i) {
    const auto j = static_cast<py::ssize_t>(i);
    out[i] = {x.at(j), y.at(j), size.at(j), angle.at(j), response.at(j), octave.at(j), laplacian.at(j)};
  }
  return out;
}

// Descriptors: an N x D array of floats (float32, or any float type cast to
// it), any strides.
glsurf::Features descriptors_from(const py::handle& obj, const char* what) {
  if (!py::isinstance<py::array>(obj))
    throw py::type_error(std::string(what) + ": expected an N x D float32 descriptor array");
  const auto a = py::reinterpret_borrow<py::array>(obj);
  if (a.dtype().kind() != 'f')
    throw py::value_error(std::string(what) + ": dtype " + dtype_name(a) + ", expected float32 descriptors");
  if (a.ndim() != 2 || a.shape(1) == 0)
    throw py::value_error(std::string(what) + ": shape " + shape_of(a) +
                          ", expected N x D descriptors (D > 0)");
  const auto values = py::array_t<float, py::array::c_style | py::array::forcecast>::ensure(a);
  glsurf::Features f;
  f.descriptor_size = static_cast<int>(a.shape(1));
  f.descriptors.assign(values.data(), values.data() + values.size());
  f.keypoints.resize(static_cast<size_t>(a.shape(0)));  // laplacian 0: the sign filter passes every pair
  return f;
}

// A matcher argument: descriptors alone, or (keypoints, descriptors). `signs`
// says whether the keypoints' Laplacian signs came with them.
glsurf::Features features_from(const py::handle& obj, const char* what, bool& signs) {
  if (py::isinstance<py::tuple>(obj) || py::isinstance<py::list>(obj)) {
    const auto pair = py::reinterpret_borrow<py::sequence>(obj);
    if (pair.size() != 2)
      throw py::value_error(std::string(what) + ": expected descriptors or a pair (keypoints, descriptors)");
    glsurf::Features f = descriptors_from(pair[1], what);
    std::vector<glsurf::KeyPoint> keypoints = keypoints_from(pair[0], what);
    if (keypoints.size() != f.keypoints.size())
      throw py::value_error(std::string(what) + ": " + std::to_string(keypoints.size()) + " keypoints but " +
                            std::to_string(f.keypoints.size()) + " descriptors");
    f.keypoints = std::move(keypoints);
    signs = true;
    return f;
  }
  signs = false;
  return descriptors_from(obj, what);
}

// --- arrays out -----------------------------------------------------------------

// A numpy array over `values`' memory, which it then owns (no copy).
template <typename T>
py::array_t<T> array_of(std::vector<T>&& values, std::vector<py::ssize_t> shape) {
  if (values.empty()) return py::array_t<T>(shape);
  auto* owned = new std::vector<T>(std::move(values));
  py::capsule owner(owned, [](void* p) { delete static_cast<std::vector<T>*>(p); });
  return py::array_t<T>(shape, owned->data(), owner);
}

py::tuple features_out(glsurf::Features&& f, int descriptor_size) {
  const auto n = static_cast<py::ssize_t>(f.keypoints.size());
  if (f.descriptor_size > 0) descriptor_size = f.descriptor_size;
  py::array_t<glsurf::KeyPoint> keypoints = array_of(std::move(f.keypoints), {n});
  py::array_t<float> descriptors =
      array_of(std::move(f.descriptors), {n, static_cast<py::ssize_t>(descriptor_size)});
  return py::make_tuple(std::move(keypoints), std::move(descriptors));
}

// --- Detector --------------------------------------------------------------------

class PyDetector {
 public:
  PyDetector(float threshold, int max_features, std::optional<int> octaves, std::optional<int> layers,
             bool extended, bool upright, const std::string& backend, int sample_step,
             float second_orientation, const std::optional<double>& memory_budget, int tile_size,
             const std::string& features, float contrast_threshold, float edge_threshold, int first_octave,
             bool root_sift)
      : on_gpu_(parse_backend(backend)) {
    if (features != "surf" && features != "sift")
      throw py::value_error("features must be \"surf\" or \"sift\", not \"" + features + "\"");
    sift_ = features == "sift";
    const glsurf::SiftConfig sift_defaults;
    // A setting of the other detector, changed from its default, is a mistake.
    const char* foreign = nullptr;
    if (sift_) {
      foreign = threshold != 100.0f          ? "threshold"
                : extended                   ? "extended"
                : upright                    ? "upright"
                : sample_step != 1           ? "sample_step"
                : second_orientation != 0.0f ? "second_orientation"
                                             : nullptr;
    } else {
      foreign = contrast_threshold != sift_defaults.contrast_threshold ? "contrast_threshold"
                : edge_threshold != sift_defaults.edge_threshold       ? "edge_threshold"
                : first_octave != sift_defaults.first_octave           ? "first_octave"
                : root_sift                                            ? "root_sift"
                                                                       : nullptr;
    }
    if (foreign) {
      throw py::value_error(std::string(foreign) + " is " + (sift_ ? "SURF's" : "SIFT's") +
                            " setting; it does not apply to features=\"" + features + "\"");
    }
    config_.hessian_threshold = threshold;
    config_.max_features = max_features;
    if (octaves) config_.n_octaves = *octaves;
    if (layers) config_.n_octave_layers = *layers;
    config_.extended = extended;
    config_.upright = upright;
    config_.first_step = sample_step;
    config_.second_orientation = second_orientation;
    sift_config_.max_features = max_features;
    if (octaves) sift_config_.n_octaves = *octaves;
    if (layers) sift_config_.n_octave_layers = *layers;
    sift_config_.contrast_threshold = contrast_threshold;
    sift_config_.edge_threshold = edge_threshold;
    sift_config_.first_octave = first_octave;
    sift_config_.root_sift = root_sift;
    try {  // checks the ranges
      detector_ = std::make_unique<glsurf::Detector>(sift_ ? glsurf::Detector::sift_cpu(sift_config_)
                                                           : glsurf::Detector::cpu(config_));
    } catch (const glsurf::Error& e) {
      throw py::value_error(e.what());
    }
    glsurf::Tiling tiling;
    if (memory_budget && !(*memory_budget > 0))
      throw py::value_error("memory_budget must be a number of bytes > 0");
    if (tile_size < 0)
      throw py::value_error("tile_size must be 0 (tiles only where needed) or a side in pixels");
    tiling.memory_budget = memory_budget ? *memory_budget : -1;
    tiling.tile_size = tile_size;
    if (on_gpu_) {
      py::gil_scoped_release unlocked;
      detector_ = with_gl([&](const glsurf::Context& context) {
        return std::make_unique<glsurf::Detector>(sift_ ? glsurf::Detector::sift_gpu(context, sift_config_)
                                                        : glsurf::Detector::gpu(context, config_));
      });
    }
    detector_->set_tiling(tiling);
  }
  PyDetector(const PyDetector&) = delete;
  PyDetector& operator=(const PyDetector&) = delete;

  // A GPU detector's textures and programs are deleted with the context
  // current on this thread.
  ~PyDetector() {
    if (!on_gpu_ || !detector_) return;
    try {
      with_gl([&](const glsurf::Context&) {
        detector_.reset();
        return 0;
      });
    } catch (...) {  // no context to delete them in: they stay with it
      (void)detector_.release();
    }
  }

  py::tuple detect(const py::handle& image) {
    ImageArg arg = image_arg(image);
    glsurf::Features f;
    {
      py::gil_scoped_release unlocked;
      glsurf::GrayImage gray = std::move(arg).load();
      f = run([&] { return detector_->detect_and_compute(gray); });
    }
    return features_out(std::move(f), descriptor_size());
  }

  py::tuple compute(const py::handle& image, const py::handle& keypoints) {
    ImageArg arg = image_arg(image);
    std::vector<glsurf::KeyPoint> points = keypoints_from(keypoints, "keypoints");
    glsurf::Features f;
    {
      py::gil_scoped_release unlocked;
      glsurf::GrayImage gray = std::move(arg).load();
      f = run([&] { return detector_->compute(gray, std::move(points)); });
    }
    return features_out(std::move(f), descriptor_size());
  }

  const glsurf::Tiling& tiling() const { return detector_->tiling(); }
  const glsurf::DetectorConfig& config() const { return config_; }
  const glsurf::SiftConfig& sift_config() const { return sift_config_; }
  bool sift() const { return sift_; }
  bool on_gpu() const { return on_gpu_; }
  int descriptor_size() const { return sift_ || config_.extended ? 128 : 64; }

 private:
  template <typename Work>
  glsurf::Features run(Work&& work) {
    if (!on_gpu_) return work();
    return with_gl([&](const glsurf::Context&) { return work(); });
  }

  bool on_gpu_;
  bool sift_ = false;
  glsurf::DetectorConfig config_;
  glsurf::SiftConfig sift_config_;
  std::unique_ptr<glsurf::Detector> detector_;
};

// --- Matcher ---------------------------------------------------------------------

py::array_t<glsurf::Match> matches_out(std::vector<glsurf::Match>&& m) {
  const auto n = static_cast<py::ssize_t>(m.size());
  return array_of(std::move(m), {n});
}

class PyMatcher {
 public:
  PyMatcher(float ratio, bool mutual, bool laplacian, float max_distance, const std::string& backend)
      : on_gpu_(parse_backend(backend)) {
    if (!(ratio >= 0)) throw py::value_error("ratio must be >= 0 (0 or >= 1 turns the ratio test off)");
    if (!(max_distance >= 0)) throw py::value_error("max_distance must be >= 0 (0: no limit)");
    config_.ratio = ratio;
    config_.mutual = mutual;
    config_.laplacian = laplacian;
    config_.max_distance = max_distance;
    if (!on_gpu_) {
      signed_ = std::make_unique<glsurf::Matcher>(glsurf::Matcher::cpu(config_));
      unsigned_ = std::make_unique<glsurf::Matcher>(glsurf::Matcher::cpu(unsigned_config()));
      return;
    }
    // The GPU matcher without the sign filter is made when first needed.
    py::gil_scoped_release unlocked;
    with_gl([&](const glsurf::Context& context) {
      signed_ = std::make_unique<glsurf::Matcher>(glsurf::Matcher::gpu(context, config_));
      return 0;
    });
  }
  PyMatcher(const PyMatcher&) = delete;
  PyMatcher& operator=(const PyMatcher&) = delete;

  ~PyMatcher() {
    if (!on_gpu_) return;
    try {
      with_gl([&](const glsurf::Context&) {
        signed_.reset();
        unsigned_.reset();
        return 0;
      });
    } catch (...) {
      (void)signed_.release();
      (void)unsigned_.release();
    }
  }

  py::array_t<glsurf::Match> match(const py::handle& query, const py::handle& train) {
    bool query_signs = false, train_signs = false;
    const glsurf::Features q = features_from(query, "query", query_signs);
    const glsurf::Features t = features_from(train, "train", train_signs);
    std::vector<glsurf::Match> m;
    {
      py::gil_scoped_release unlocked;
      m = run([&](const glsurf::Context* context) {
        return matcher(query_signs && train_signs, context).match(q, t);
      });
    }
    return matches_out(std::move(m));
  }

  py::list match_many(const py::handle& query, const py::sequence& trains) {
    bool query_signs = false;
    const glsurf::Features q = features_from(query, "query", query_signs);
    std::vector<glsurf::Features> ts;
    std::vector<bool> signs;
    for (size_t i = 0; i < trains.size(); ++i) {
      bool s = false;
      const std::string what = "trains[" + std::to_string(i) + "]";
      ts.push_back(features_from(trains[i], what.c_str(), s));
      signs.push_back(s);
    }
    std::vector<std::vector<glsurf::Match>> all(ts.size());
    {
      py::gil_scoped_release unlocked;
      run([&](const glsurf::Context* context) {
        for (size_t i = 0; i < ts.size(); ++i)
          all[i] = matcher(query_signs && signs[i], context).match(q, ts[i]);
        return std::vector<glsurf::Match>{};
      });
    }
    py::list out;
    for (auto& m : all) out.append(matches_out(std::move(m)));
    return out;
  }

  const glsurf::MatchConfig& config() const { return config_; }
  bool on_gpu() const { return on_gpu_; }

 private:
  glsurf::MatchConfig unsigned_config() const {
    glsurf::MatchConfig c = config_;
    c.laplacian = false;
    return c;
  }

  // The sign filter needs both sides' signs; without them it is off. On the
  // GPU, `context` is current and the GL lock held (run).
  glsurf::Matcher& matcher(bool signs, const glsurf::Context* context) {
    if (signs || !config_.laplacian) return *signed_;
    if (!unsigned_)
      unsigned_ = std::make_unique<glsurf::Matcher>(glsurf::Matcher::gpu(*context, unsigned_config()));
    return *unsigned_;
  }

  // work(context): context null on the CPU; on the GPU current, under the lock.
  template <typename Work>
  std::vector<glsurf::Match> run(Work&& work) {
    if (!on_gpu_) return work(nullptr);
    return with_gl([&](const glsurf::Context& context) { return work(&context); });
  }

  bool on_gpu_;
  glsurf::MatchConfig config_;
  std::unique_ptr<glsurf::Matcher> signed_, unsigned_;
};

// --- geometry --------------------------------------------------------------------

std::vector<glsurf::PointPair> pairs_from(const py::handle& pts1, const py::handle& pts2) {
  using Points = py::array_t<double, py::array::c_style | py::array::forcecast>;
  const auto check = [](const py::handle& obj, const char* what) {
    const py::array a = py::array::ensure(obj);
    if (!a) throw py::type_error(std::string(what) + ": expected an N x 2 array of points");
    if (a.dtype().kind() != 'f' && a.dtype().kind() != 'i' && a.dtype().kind() != 'u')
      throw py::value_error(std::string(what) + ": dtype " + dtype_name(a) + ", expected numbers");
    // N x 2, or OpenCV's N x 1 x 2
    if (!((a.ndim() == 2 && a.shape(1) == 2) || (a.ndim() == 3 && a.shape(1) == 1 && a.shape(2) == 2)))
      throw py::value_error(std::string(what) + ": shape " + shape_of(a) + ", expected N x 2 points");
    return Points::ensure(a);
  };
  const Points a = check(pts1, "pts1"), b = check(pts2, "pts2");
  if (a.shape(0) != b.shape(0))
    throw py::value_error("pts1 and pts2: " + std::to_string(a.shape(0)) + " and " +
                          std::to_string(b.shape(0)) + " points, expected as many");
  std::vector<glsurf::PointPair> pairs(static_cast<size_t>(a.shape(0)));
  const double *pa = a.data(), *pb = b.data();
  for (size_t i = 0; i < pairs.size(); ++i) pairs[i] = {pa[2 * i], pa[2 * i + 1], pb[2 * i], pb[2 * i + 1]};
  return pairs;
}

py::array_t<double> matrix_of(const std::array<double, 9>& m) {
  py::array_t<double> out({3, 3});
  std::memcpy(out.mutable_data(), m.data(), sizeof(double) * 9);
  return out;
}

py::array_t<bool> mask_of(const std::vector<bool>& inliers) {
  py::array_t<bool> out(static_cast<py::ssize_t>(inliers.size()));
  bool* p = out.mutable_data();
  for (size_t i = 0; i < inliers.size(); ++i) p[i] = inliers[i];
  return out;
}

py::tuple find_homography(const py::handle& pts1, const py::handle& pts2, double threshold,
                          int max_iterations, double confidence, std::uint32_t seed, int min_inliers) {
  const std::vector<glsurf::PointPair> pairs = pairs_from(pts1, pts2);
  glsurf::RansacConfig config;
  config.threshold = threshold;
  config.max_iterations = max_iterations;
  config.confidence = confidence;
  config.seed = seed;
  config.min_inliers = min_inliers;
  glsurf::HomographyResult r;
  {
    py::gil_scoped_release unlocked;
    r = glsurf::ransac_homography(pairs, config);
  }
  if (r.inliers.size() != pairs.size()) r.inliers.assign(pairs.size(), false);
  return py::make_tuple(r.found ? py::object(matrix_of(r.h)) : py::none(), mask_of(r.inliers));
}

py::tuple find_fundamental(const py::handle& pts1, const py::handle& pts2, double threshold,
                           int max_iterations, double confidence, std::uint32_t seed, int min_inliers) {
  const std::vector<glsurf::PointPair> pairs = pairs_from(pts1, pts2);
  glsurf::RansacConfig config = glsurf::fundamental_ransac_config();
  config.threshold = threshold;
  config.max_iterations = max_iterations;
  config.confidence = confidence;
  config.seed = seed;
  config.min_inliers = min_inliers;
  glsurf::FundamentalResult r;
  {
    py::gil_scoped_release unlocked;
    r = glsurf::ransac_fundamental(pairs, config);
  }
  if (r.inliers.size() != pairs.size()) r.inliers.assign(pairs.size(), false);
  return py::make_tuple(r.found ? py::object(matrix_of(r.f)) : py::none(), mask_of(r.inliers));
}

py::dict two_view_geometry(const py::handle& pts1, const py::handle& pts2, int min_num_inliers,
                           double max_error, double confidence, int max_num_trials, double max_h_inlier_ratio,
                           std::uint32_t seed) {
  const std::vector<glsurf::PointPair> pairs = pairs_from(pts1, pts2);
  glsurf::TwoViewOptions options;
  options.min_num_inliers = min_num_inliers;
  options.max_error = max_error;
  options.confidence = confidence;
  options.max_num_trials = max_num_trials;
  options.max_h_inlier_ratio = max_h_inlier_ratio;
  options.seed = seed;
  glsurf::TwoViewGeometry g;
  {
    py::gil_scoped_release unlocked;
    g = glsurf::estimate_two_view_geometry(pairs, options);
  }
  if (g.inliers.size() != pairs.size()) g.inliers.assign(pairs.size(), false);
  py::dict out;
  out["configuration"] = glsurf::to_string(g.configuration);
  out["F"] = g.f_found ? py::object(matrix_of(g.f)) : py::none();
  out["H"] = g.h_found ? py::object(matrix_of(g.h)) : py::none();
  out["f_inliers"] = g.f_inlier_count;
  out["h_inliers"] = g.h_inlier_count;
  out["inliers_from_h"] = g.inliers_from_h;
  out["inliers"] = mask_of(g.inliers);
  return out;
}

// --- docstrings -------------------------------------------------------------------

constexpr const char* kModuleDoc =
    R"(SURF keypoints, descriptors and matching on any OpenGL 3.3 driver (glsurf).

    import cv2, glsurf
    det = glsurf.Detector(threshold=400)                 # backend="gl"; "cpu" needs no OpenGL
    kp1, d1 = det.detect(cv2.imread("a.png"))            # numpy arrays in, numpy arrays out
    kp2, d2 = det.detect("b.png")                        # or a path, read by glsurf's loader
    m = glsurf.Matcher().match((kp1, d1), (kp2, d2))     # query, train, distance
    H, inliers = glsurf.find_homography(*glsurf.matched_points(kp1, kp2, m))

Conventions: (0, 0) is the centre of the top-left pixel, x right, y down
(OpenCV's); keypoints carry OpenCV KeyPoint's fields (size, angle in degrees,
response, octave) plus the Laplacian's sign (class_id in glsurf.to_cv2).
Descriptors are float32 rows of unit length (64 values, 128 when extended).

One OpenGL context serves the whole process: made headless (EGL) on the first
backend="gl" object, shared by every later one, used by one thread at a time
(a lock). The GIL is released while glsurf works. Errors: ValueError for a bad
argument, TypeError for one of the wrong kind, glsurf.Error (a RuntimeError)
for what glsurf refuses or cannot do (an unreadable file, no OpenGL, an image
too small), with glsurf's one-line message. See docs/python.md.)";

constexpr const char* kDetectorDoc =
    R"(SURF (Bay et al. 2008) or SIFT (Lowe 2004) detector and descriptor, on the GPU or the CPU.

Detector(threshold=100, max_features=0, octaves=None, layers=None, extended=False,
         upright=False, backend="gl", sample_step=1, second_orientation=0,
         memory_budget=None, tile_size=0, features="surf",
         contrast_threshold=0.04, edge_threshold=10, first_octave=-1, root_sift=False)

  features            "surf" or "sift" (128 values >= 0; SIFT's own settings
                      are contrast_threshold, edge_threshold, first_octave and
                      root_sift, as `glsurf detect --features sift`; SURF's
                      threshold, extended, upright, sample_step and
                      second_orientation do not apply to it; no tiles)

  threshold           keep samples with det(H) > threshold (OpenCV's
                      hessianThreshold; grey levels 0..255)
  max_features        keep the N strongest keypoints; 0 keeps all (the GPU's
                      point list then holds 65,536)
  octaves, layers     OpenCV's nOctaves, nOctaveLayers (None: SURF 4 and 2,
                      SIFT 0, as many as the image allows, and 3)
  extended            128-value descriptors instead of 64
  upright             U-SURF: no orientation, every angle 0
  backend             "gl" (OpenGL 3.3, headless EGL; llvmpipe without a GPU)
                      or "cpu" (the reference implementation, no OpenGL)
  sample_step         the first octave's sampling step (1 as OpenCV; 2 as
                      OpenSURF: faster, fewer points)
  second_orientation  > 0: a keypoint whose second orientation peak reaches
                      this fraction of the first is listed again at that angle
  memory_budget       bytes one detection may take, the image included (None:
                      what the machine has available); a larger image is
                      detected in overlapping tiles, with the same keypoints
  tile_size           > 0: tiles of at most this side for any larger image

The same settings give the same keypoints and descriptors as
`glsurf detect --backend gl|cpu`. Raises ValueError for a setting out of range
and glsurf.Error when backend="gl" and there is no OpenGL 3.3 (the message
says what was tried, and suggests backend="cpu").)";

constexpr const char* kDetectDoc = R"(detect(image) -> (keypoints, descriptors)

SURF keypoints with orientation and descriptors, strongest first (OpenCV's
detectAndCompute).

image: a numpy uint8 array, H x W (grey), H x W x 3 (BGR, as cv2.imread
  gives it) or H x W x 4 (BGRA; alpha ignored), any strides (views are
  copied); colour becomes grey as glsurf's loader makes it of a colour file
  (BT.601 weights in OpenCV's fixed point), so detect(cv2.imread(p)) equals
  detect(p) for an 8-bit PNG. Or a path (str, bytes, os.PathLike) read by
  glsurf's loader (PNG, JPEG with its EXIF orientation, BMP, TGA, PGM/PPM).

Returns keypoints, a structured array of glsurf.keypoint_dtype (x, y, size,
angle, response: float32; octave, laplacian: int32), and descriptors, a
float32 array of N x 64 (N x 128 when extended).

Raises ValueError for a bad array (dtype not uint8, float images included;
wrong number of dimensions or channels; empty), TypeError for neither an
array nor a path, glsurf.Error for an unreadable file or an image smaller
than the smallest filter.)";

constexpr const char* kComputeDoc = R"(compute(image, keypoints) -> (keypoints, descriptors)

Orientation (unless upright) and descriptors of given keypoints, in their
order (OpenCV's compute); every field but the angle is kept. `keypoints` is
an array with glsurf.keypoint_dtype's fields (e.g. detect's); `image` as for
detect. Raises glsurf.Error for a keypoint outside the image or of a size
outside [1, 7680].)";

constexpr const char* kMatcherDoc = R"(Nearest-neighbour matching of SURF descriptors, on the GPU or the CPU.

Matcher(ratio=0.8, mutual=True, laplacian=True, max_distance=0, backend="gl")

  ratio         keep a match when best < ratio * second best (distances;
                0 or >= 1 turns the test off)
  mutual        keep i -> j only if j's best match is i
  laplacian     keypoints of opposite Laplacian sign never match; needs the
                keypoints (see match)
  max_distance  drop matches farther apart than this (0: no limit)
  backend       "gl" or "cpu", as for Detector

Distances are Euclidean between descriptors (in [0, 2]). Both backends give
the same matches as `glsurf match` with the same options.)";

constexpr const char* kMatchDoc = R"(match(query, train) -> matches

Matches of query's keypoints in train, in query order: a structured array of
glsurf.match_dtype (query, train: int32 indices; distance: float32), the
fields of cv2.DMatch (queryIdx, trainIdx, distance).

query, train: each either a pair (keypoints, descriptors), as Detector.detect
returns it, or descriptors alone (an N x D float array; float64 is cast to
float32). The Laplacian sign filter needs both sides' keypoints: when either
side is descriptors alone it cannot apply and is off for that call (as if
laplacian=False). The two sides' descriptor sizes must agree; the GPU takes
descriptors of up to 128 values, the CPU any length.)";

constexpr const char* kMatchManyDoc = R"(match_many(query, trains) -> list of matches

match(query, t) for each t in trains (a list of pairs or descriptor arrays),
under one hold of the GL lock and one release of the GIL. Each pair is
uploaded as match uploads it: the public API keeps no descriptors on the GPU
between calls.)";

constexpr const char* kHomographyDoc =
    R"(find_homography(pts1, pts2, threshold=3.0, max_iterations=5000, confidence=0.999, seed=1, min_inliers=8)
    -> (H, inliers)

The homography taking pts1 to pts2: normalised DLT inside RANSAC, refitted on
the inliers (glsurf::ransac_homography, what `glsurf match` runs). pts1,
pts2: N x 2 (or OpenCV's N x 1 x 2) arrays of points in pixels.
H: a 3 x 3 float64 array, (x', y', w') = H (x, y, 1), or None when fewer than
min_inliers pairs agree; inliers: a bool array of N (all False when None).
threshold: the reprojection error in pixels of an inlier. Fixed seed:
repeatable.)";

constexpr const char* kFundamentalDoc =
    R"(find_fundamental(pts1, pts2, threshold=3.0, max_iterations=10000, confidence=0.999, seed=1, min_inliers=15)
    -> (F, inliers)

The fundamental matrix with x2^T F x1 = 0 (unit Frobenius norm): 7-point
RANSAC, inliers by Sampson distance below threshold (pixels), 8-point
least-squares refits (glsurf::ransac_fundamental, `glsurf match --geometry f`).
F: 3 x 3 float64 or None when fewer than min_inliers pairs agree; inliers: a
bool array of N.)";

constexpr const char* kTwoViewDoc =
    R"(two_view_geometry(pts1, pts2, min_num_inliers=15, max_error=4.0, confidence=0.999, max_num_trials=10000, max_h_inlier_ratio=0.8, seed=1)
    -> dict

COLMAP 3.8's configuration of an uncalibrated pair (glsurf::
estimate_two_view_geometry, `glsurf match --geometry auto`): F and H both
estimated; "planar or panoramic" when H's inliers exceed max_h_inlier_ratio
of F's, else "uncalibrated"; "degenerate" with too few matches or inliers.

Keys: configuration (str), F and H (3 x 3 float64 or None), f_inliers and
h_inliers (counts), inliers_from_h (bool), inliers (bool array of N: the
chosen model's).)";

}  // namespace

PYBIND11_MODULE(_glsurf, m) {
  m.doc() = kModuleDoc;
  // numpy's views of glsurf::KeyPoint and glsurf::Match, field for field (no padding)
  PYBIND11_NUMPY_DTYPE(glsurf::KeyPoint, x, y, size, angle, response, octave, laplacian);
  PYBIND11_NUMPY_DTYPE(glsurf::Match, query, train, distance);
  py::register_exception<glsurf::Error>(m, "Error", PyExc_RuntimeError);
  m.attr("Error").attr("__doc__") =
      "What glsurf refuses or cannot do, with its one-line message: an unreadable or bad file, no OpenGL 3.3 "
      "context, an image too small or too large, descriptors of different sizes. A RuntimeError.";
  m.attr("keypoint_dtype") = py::dtype::of<glsurf::KeyPoint>();
  m.attr("match_dtype") = py::dtype::of<glsurf::Match>();

  py::class_<PyDetector>(m, "Detector", kDetectorDoc)
      .def(py::init<float, int, std::optional<int>, std::optional<int>, bool, bool, const std::string&, int,
                    float, const std::optional<double>&, int, const std::string&, float, float, int, bool>(),
           py::arg("threshold") = 100.0f, py::arg("max_features") = 0, py::arg("octaves") = py::none(),
           py::arg("layers") = py::none(), py::arg("extended") = false, py::arg("upright") = false,
           py::arg("backend") = "gl", py::arg("sample_step") = 1, py::arg("second_orientation") = 0.0f,
           py::arg("memory_budget") = py::none(), py::arg("tile_size") = 0, py::arg("features") = "surf",
           py::arg("contrast_threshold") = glsurf::SiftConfig{}.contrast_threshold,
           py::arg("edge_threshold") = glsurf::SiftConfig{}.edge_threshold,
           py::arg("first_octave") = glsurf::SiftConfig{}.first_octave, py::arg("root_sift") = false)
      .def("detect", &PyDetector::detect, py::arg("image"), kDetectDoc)
      .def("compute", &PyDetector::compute, py::arg("image"), py::arg("keypoints"), kComputeDoc)
      .def_property_readonly(
          "backend", [](const PyDetector& d) { return d.on_gpu() ? "gl" : "cpu"; }, "\"gl\" or \"cpu\"")
      .def_property_readonly(
          "threshold", [](const PyDetector& d) { return d.config().hessian_threshold; }, "det(H) threshold")
      .def_property_readonly(
          "memory_budget",
          [](const PyDetector& d) -> std::optional<double> {
            const double budget = d.tiling().memory_budget;
            return budget < 0 ? std::nullopt : std::optional<double>(budget);
          },
          "bytes one detection may take (None: what is available)")
      .def_property_readonly(
          "tile_size", [](const PyDetector& d) { return d.tiling().tile_size; }, "0: tiles only where needed")
      .def_property_readonly(
          "features", [](const PyDetector& d) { return d.sift() ? "sift" : "surf"; }, "\"surf\" or \"sift\"")
      .def_property_readonly(
          "max_features", [](const PyDetector& d) { return d.config().max_features; }, "0: all")
      .def_property_readonly(
          "octaves",
          [](const PyDetector& d) { return d.sift() ? d.sift_config().n_octaves : d.config().n_octaves; },
          "octaves of the scale space (SIFT: 0, as many as the image allows)")
      .def_property_readonly(
          "layers",
          [](const PyDetector& d) {
            return d.sift() ? d.sift_config().n_octave_layers : d.config().n_octave_layers;
          },
          "layers per octave")
      .def_property_readonly(
          "contrast_threshold", [](const PyDetector& d) { return d.sift_config().contrast_threshold; },
          "SIFT's contrast threshold")
      .def_property_readonly(
          "edge_threshold", [](const PyDetector& d) { return d.sift_config().edge_threshold; },
          "SIFT's edge threshold")
      .def_property_readonly(
          "first_octave", [](const PyDetector& d) { return d.sift_config().first_octave; },
          "SIFT: -1 doubles the image first")
      .def_property_readonly(
          "root_sift", [](const PyDetector& d) { return d.sift_config().root_sift; }, "SIFT: RootSIFT")
      .def_property_readonly(
          "extended", [](const PyDetector& d) { return d.config().extended; }, "128-value descriptors")
      .def_property_readonly(
          "upright", [](const PyDetector& d) { return d.config().upright; }, "no orientation")
      .def_property_readonly(
          "sample_step", [](const PyDetector& d) { return d.config().first_step; }, "first octave's step")
      .def_property_readonly(
          "second_orientation", [](const PyDetector& d) { return d.config().second_orientation; },
          "0: one orientation")
      .def_property_readonly("descriptor_size", &PyDetector::descriptor_size,
                             "64, or 128 when extended or SIFT")
      .def("__repr__", [](const PyDetector& d) {
        if (d.sift()) {
          const glsurf::SiftConfig& c = d.sift_config();
          return py::str(
                     "glsurf.Detector(features='sift', max_features={}, octaves={}, layers={}, "
                     "contrast_threshold={}, edge_threshold={}, first_octave={}, root_sift={}, backend={!r})")
              .format(c.max_features, c.n_octaves, c.n_octave_layers, c.contrast_threshold, c.edge_threshold,
                      c.first_octave, c.root_sift, d.on_gpu() ? "gl" : "cpu");
        }
        const glsurf::DetectorConfig& c = d.config();
        return py::str(
                   "glsurf.Detector(threshold={}, max_features={}, octaves={}, layers={}, extended={}, "
                   "upright={}, backend={!r}, sample_step={}, second_orientation={})")
            .format(c.hessian_threshold, c.max_features, c.n_octaves, c.n_octave_layers, c.extended,
                    c.upright, d.on_gpu() ? "gl" : "cpu", c.first_step, c.second_orientation);
      });

  py::class_<PyMatcher>(m, "Matcher", kMatcherDoc)
      .def(py::init<float, bool, bool, float, const std::string&>(), py::arg("ratio") = 0.8f,
           py::arg("mutual") = true, py::arg("laplacian") = true, py::arg("max_distance") = 0.0f,
           py::arg("backend") = "gl")
      .def("match", &PyMatcher::match, py::arg("query"), py::arg("train"), kMatchDoc)
      .def("match_many", &PyMatcher::match_many, py::arg("query"), py::arg("trains"), kMatchManyDoc)
      .def_property_readonly(
          "backend", [](const PyMatcher& x) { return x.on_gpu() ? "gl" : "cpu"; }, "\"gl\" or \"cpu\"")
      .def_property_readonly(
          "ratio", [](const PyMatcher& x) { return x.config().ratio; }, "ratio test")
      .def_property_readonly(
          "mutual", [](const PyMatcher& x) { return x.config().mutual; }, "mutual nearest neighbours only")
      .def_property_readonly(
          "laplacian", [](const PyMatcher& x) { return x.config().laplacian; }, "sign filter")
      .def_property_readonly(
          "max_distance", [](const PyMatcher& x) { return x.config().max_distance; }, "0: no limit")
      .def("__repr__", [](const PyMatcher& x) {
        const glsurf::MatchConfig& c = x.config();
        return py::str("glsurf.Matcher(ratio={}, mutual={}, laplacian={}, max_distance={}, backend={!r})")
            .format(c.ratio, c.mutual, c.laplacian, c.max_distance, x.on_gpu() ? "gl" : "cpu");
      });

  m.def("find_homography", &find_homography, py::arg("pts1"), py::arg("pts2"), py::arg("threshold") = 3.0,
        py::arg("max_iterations") = 5000, py::arg("confidence") = 0.999, py::arg("seed") = 1u,
        py::arg("min_inliers") = 8, kHomographyDoc);
  m.def("find_fundamental", &find_fundamental, py::arg("pts1"), py::arg("pts2"), py::arg("threshold") = 3.0,
        py::arg("max_iterations") = 10000, py::arg("confidence") = 0.999, py::arg("seed") = 1u,
        py::arg("min_inliers") = 15, kFundamentalDoc);
  m.def("two_view_geometry", &two_view_geometry, py::arg("pts1"), py::arg("pts2"),
        py::arg("min_num_inliers") = 15, py::arg("max_error") = 4.0, py::arg("confidence") = 0.999,
        py::arg("max_num_trials") = 10000, py::arg("max_h_inlier_ratio") = 0.8, py::arg("seed") = 1u,
        kTwoViewDoc);

  m.def(
      "load_gray",
      [](const py::handle& path) {
        const std::optional<std::string> p = as_path(path);
        if (!p) throw py::type_error("load_gray: expected a path (str, bytes or os.PathLike)");
        glsurf::GrayImage image;
        {
          py::gil_scoped_release unlocked;
          image = glsurf::load_gray(*p);
        }
        return array_of(std::move(image.pixels), {image.height, image.width});
      },
      py::arg("path"),
      R"(load_gray(path) -> H x W uint8 array

An image file as grey levels, read by glsurf's loader (the one Detector.detect
uses for a path, and the CLI): PNG, JPEG (turned as its EXIF orientation
says), BMP, TGA, binary PGM/PPM; colour to grey with OpenCV's weights.
Raises glsurf.Error naming the file and the reason.)");

  m.def(
      "context_info",
      [] {
        glsurf::ContextInfo info;
        {
          py::gil_scoped_release unlocked;
          info = with_gl([](const glsurf::Context& c) { return c.info(); });
        }
        py::dict out;
        out["vendor"] = info.vendor;
        out["renderer"] = info.renderer;
        out["version"] = info.version;
        out["glsl_version"] = info.glsl_version;
        out["platform"] = info.platform;
        out["max_texture_size"] = info.max_texture_size;
        out["software"] = info.software;
        return out;
      },
      R"(context_info() -> dict

The process's OpenGL context (made now if no backend="gl" object made it yet):
vendor, renderer, version, glsl_version, platform ("EGL device", ...),
max_texture_size, software (True on Mesa's llvmpipe: the "GPU" is the CPU).
Raises glsurf.Error when there is no OpenGL 3.3.)");
}
