#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <random>
#include <sstream>

#include "gl/error.hpp"
#include "glsurf/geometry.hpp"
#include "io/output.hpp"
#include "match/linalg.hpp"

namespace glsurf {

using linalg::inverse_similarity;
using linalg::normaliser;
using linalg::smallest_eigenvector;
using linalg::SmallestEigen;

namespace {

// True if three of the points are (nearly) on a line: the angle at one of
// them is below about 0.06 degrees, or two coincide.
bool has_collinear_triple(const std::array<std::array<double, 2>, 4>& p) {
  for (int a = 0; a < 4; ++a)
    for (int b = a + 1; b < 4; ++b)
      for (int c = b + 1; c < 4; ++c) {
        const double ux = p[b][0] - p[a][0], uy = p[b][1] - p[a][1];
        const double vx = p[c][0] - p[a][0], vy = p[c][1] - p[a][1];
        const double cross = std::abs(ux * vy - uy * vx);
        if (!(cross > 1e-3 * std::hypot(ux, uy) * std::hypot(vx, vy))) return true;
      }
  return false;
}

}  // namespace

Homography multiply(const Homography& a, const Homography& b) {
  Homography c{};
  for (int r = 0; r < 3; ++r)
    for (int k = 0; k < 3; ++k)
      for (int q = 0; q < 3; ++q) c[r * 3 + q] += a[r * 3 + k] * b[k * 3 + q];
  return c;
}

Homography inverse(const Homography& h) {
  const double a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7], i = h[8];
  const double A = e * i - f * k, B = -(d * i - f * g), C = d * k - e * g;
  const double det = a * A + b * B + c * C;
  Homography inv = {A, -(b * i - c * k), b * f - c * e, B, a * i - c * g, -(a * f - c * d),
                    C, -(a * k - b * g), a * e - b * d};
  for (double& v : inv) v /= det;
  return inv;
}

void apply(const Homography& h, double x, double y, double& ox, double& oy) {
  const double w = h[6] * x + h[7] * y + h[8];
  ox = (h[0] * x + h[1] * y + h[2]) / w;
  oy = (h[3] * x + h[4] * y + h[5]) / w;
}

std::array<double, 4> jacobian(const Homography& h, double x, double y) {
  const double w = h[6] * x + h[7] * y + h[8];
  const double ox = (h[0] * x + h[1] * y + h[2]) / w, oy = (h[3] * x + h[4] * y + h[5]) / w;
  return {(h[0] - ox * h[6]) / w, (h[1] - ox * h[7]) / w, (h[3] - oy * h[6]) / w, (h[4] - oy * h[7]) / w};
}

double reprojection_error(const Homography& h, const PointPair& p) {
  double x = 0, y = 0;
  apply(h, p.ax, p.ay, x, y);
  const double e = std::hypot(x - p.bx, y - p.by);
  return std::isfinite(e) ? e : 1e300;
}

namespace {
// The centres of a width x height image's corner pixels.
std::array<std::array<double, 2>, 4> corners_of(int width, int height) {
  return {{{0, 0}, {width - 1.0, 0}, {0, height - 1.0}, {width - 1.0, height - 1.0}}};
}
}  // namespace

bool horizon_crosses(const Homography& h, int width, int height) {
  int positive = 0, negative = 0;
  for (const auto& c : corners_of(width, height)) {
    const double w = h[6] * c[0] + h[7] * c[1] + h[8];
    positive += w > 0;
    negative += w < 0;
  }
  return positive != 4 && negative != 4;
}

double corner_error(const Homography& estimate, const Homography& truth, int width, int height) {
  if (horizon_crosses(truth, width, height)) return std::numeric_limits<double>::quiet_NaN();
  double largest = 0;
  for (const auto& c : corners_of(width, height)) {
    double ex, ey, tx, ty;
    apply(estimate, c[0], c[1], ex, ey);
    apply(truth, c[0], c[1], tx, ty);
    const double d = std::hypot(ex - tx, ey - ty);
    largest = std::isnan(d) ? std::numeric_limits<double>::infinity() : std::max(largest, d);
  }
  return largest;
}

bool fit_homography(const std::vector<PointPair>& pairs, Homography& h) {
  if (pairs.size() < 4) return false;
  std::vector<std::array<double, 2>> a, b;
  for (const PointPair& p : pairs) a.push_back({p.ax, p.ay}), b.push_back({p.bx, p.by});
  const auto ta = normaliser(a), tb = normaliser(b);
  // A^T A of the DLT system, two rows per pair, accumulated directly.
  std::array<double, 81> ata{};
  for (size_t i = 0; i < pairs.size(); ++i) {
    const double x = ta[0] * a[i][0] + ta[2], y = ta[4] * a[i][1] + ta[5];
    const double u = tb[0] * b[i][0] + tb[2], v = tb[4] * b[i][1] + tb[5];
    const double r1[9] = {-x, -y, -1, 0, 0, 0, u * x, u * y, u};
    const double r2[9] = {0, 0, 0, -x, -y, -1, v * x, v * y, v};
    for (int p = 0; p < 9; ++p)
      for (int q = 0; q < 9; ++q) ata[p * 9 + q] += r1[p] * r1[q] + r2[p] * r2[q];
  }
  const SmallestEigen eigen = smallest_eigenvector(ata);
  // Two (near) zero eigenvalues: the pairs fit a whole family of maps, as
  // four pairs do when three of their points lie on a line.
  if (!(eigen.gap > 1e-10)) return false;
  const std::array<double, 9>& hn = eigen.vector;
  // A (near) singular H maps the plane to a line: collinear or repeated points.
  const double det = hn[0] * (hn[4] * hn[8] - hn[5] * hn[7]) - hn[1] * (hn[3] * hn[8] - hn[5] * hn[6]) +
                     hn[2] * (hn[3] * hn[7] - hn[4] * hn[6]);
  if (!(std::abs(det) > 1e-8)) return false;
  // Undo the normalisations: H = Tb^-1 Hn Ta.
  Homography out = multiply(multiply(inverse_similarity(tb), hn), ta);
  if (std::abs(out[8]) < 1e-12) return false;
  for (double& e : out) e /= out[8];
  for (double e : out)
    if (!std::isfinite(e)) return false;
  h = out;
  return true;
}

HomographyResult ransac_homography(const std::vector<PointPair>& pairs, const RansacConfig& config) {
  HomographyResult best;
  best.inliers.assign(pairs.size(), false);
  // With 4 to min_inliers - 1 pairs no fit can count, but the best one's
  // inlier count is still reported.
  if (pairs.size() < 4) return best;
  std::mt19937 rng(config.seed);
  std::uniform_int_distribution<size_t> pick(0, pairs.size() - 1);
  int iterations = config.max_iterations;
  for (int it = 0; it < iterations; ++it) {
    size_t s[4];
    for (int k = 0; k < 4; ++k) {
      bool repeat = true;
      while (repeat) {
        s[k] = pick(rng);
        repeat = false;
        for (int m = 0; m < k; ++m) repeat = repeat || s[m] == s[k];
      }
    }
    std::array<std::array<double, 2>, 4> in_a, in_b;
    for (int k = 0; k < 4; ++k) {
      in_a[static_cast<size_t>(k)] = {pairs[s[k]].ax, pairs[s[k]].ay};
      in_b[static_cast<size_t>(k)] = {pairs[s[k]].bx, pairs[s[k]].by};
    }
    if (has_collinear_triple(in_a) || has_collinear_triple(in_b)) continue;  // degenerate sample
    Homography h;
    if (!fit_homography({pairs[s[0]], pairs[s[1]], pairs[s[2]], pairs[s[3]]}, h)) continue;
    int count = 0;
    for (const PointPair& p : pairs) count += reprojection_error(h, p) < config.threshold;
    if (count > best.inlier_count) {
      best.inlier_count = count;
      best.h = h;
      best.found = true;
      if (count == static_cast<int>(pairs.size())) break;  // cannot do better
      // Adaptive stopping: enough iterations to draw one all-inlier sample.
      // Compared as doubles: with few inliers `needed` exceeds any int.
      const double w = static_cast<double>(count) / pairs.size();
      const double p4 = std::pow(w, 4);
      if (p4 > 0 && p4 < 1) {
        const double needed = std::ceil(std::log(1 - config.confidence) / std::log1p(-p4));
        if (needed < iterations - it - 1) iterations = static_cast<int>(needed) + it + 1;
      }
    }
  }
  if (!best.found) return best;
  // Refit on the inliers (twice: the refit can bring in or drop a few).
  for (int round = 0; round < 2; ++round) {
    std::vector<PointPair> in;
    for (const PointPair& p : pairs)
      if (reprojection_error(best.h, p) < config.threshold) in.push_back(p);
    Homography refit;
    if (in.size() >= 4 && fit_homography(in, refit)) best.h = refit;
  }
  best.inlier_count = 0;
  for (size_t i = 0; i < pairs.size(); ++i) {
    best.inliers[i] = reprojection_error(best.h, pairs[i]) < config.threshold;
    best.inlier_count += best.inliers[i];
  }
  // Repeated pairs (the same two points twice) support a fit once.
  std::vector<PointPair> distinct;
  for (size_t i = 0; i < pairs.size(); ++i)
    if (best.inliers[i]) distinct.push_back(pairs[i]);
  const auto key = [](const PointPair& p) { return std::array<double, 4>{p.ax, p.ay, p.bx, p.by}; };
  std::sort(distinct.begin(), distinct.end(),
            [&](const PointPair& p, const PointPair& q) { return key(p) < key(q); });
  const auto repeats = std::unique(distinct.begin(), distinct.end(),
                                   [&](const PointPair& p, const PointPair& q) { return key(p) == key(q); });
  if (repeats - distinct.begin() < config.min_inliers) {  // a chance fit: report none
    best.found = false;
    best.h = Homography{};
    best.inliers.assign(pairs.size(), false);
  }
  return best;
}

Homography read_homography_file(const std::string& path) {
  // A homography file is a few hundred bytes; reading stops past kMaxBytes,
  // so that a wrong name (/dev/zero, a video) fails at once instead of
  // filling the memory.
  constexpr size_t kMaxBytes = 1 << 20;
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw Error(path + ": is a directory, not a homography file");
  std::unique_ptr<FILE, int (*)(FILE*)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!file) throw Error(path + ": cannot open file (" + std::strerror(errno) + ")");
  // Read in blocks as the file goes, not into one buffer of the largest
  // size: a few hundred bytes cost a few hundred bytes.
  std::string text;
  char block[4096];
  for (size_t n; text.size() <= kMaxBytes && (n = std::fread(block, 1, sizeof block, file.get())) > 0;) {
    text.append(block, n);
  }
  if (std::ferror(file.get())) throw Error(path + ": cannot read file");
  if (text.size() > kMaxBytes) throw Error(path + ": over 1 MiB, too large for a homography file");
  // An OpenCV FileStorage matrix (XML or YAML) must say it is 3 x 3; its
  // numbers are in data. Anything else is a plain list of 9 numbers.
  auto field = [&](const std::string& xml, const std::string& yaml) -> std::string {
    size_t at = text.find(xml);
    if (at != std::string::npos) return text.substr(at + xml.size(), 16);
    for (at = text.find(yaml); at != std::string::npos; at = text.find(yaml, at + 1)) {
      if (at == 0 || std::isspace(static_cast<unsigned char>(text[at - 1])))
        return text.substr(at + yaml.size(), 16);
    }
    return "";
  };
  const std::string rows = field("<rows>", "rows:"), cols = field("<cols>", "cols:");
  if (!rows.empty() || !cols.empty()) {
    if (std::atoi(rows.c_str()) != 3 || std::atoi(cols.c_str()) != 3) {
      throw Error(path + ": the matrix is not 3x3");
    }
  }
  const size_t data = text.find("<data>");
  if (data != std::string::npos) {
    const size_t end = text.find("</data>", data);
    text = text.substr(data + 6, end == std::string::npos ? std::string::npos : end - data - 6);
  } else {
    size_t at = text.find("data:");
    while (at != std::string::npos && at > 0 && !std::isspace(static_cast<unsigned char>(text[at - 1]))) {
      at = text.find("data:", at + 1);  // not e.g. "metadata:"
    }
    if (at != std::string::npos) {
      text = text.substr(
          at + 5, text.find(']', at) == std::string::npos ? std::string::npos : text.find(']', at) - at - 5);
      for (char& c : text)
        if (c == '[' || c == ',') c = ' ';
    }
  }
  std::istringstream numbers(text);
  Homography h{};
  for (double& v : h) {
    if (!(numbers >> v)) throw Error(path + ": expected 9 numbers for a 3x3 homography");
  }
  std::string extra;
  if (numbers >> extra) throw Error(path + ": more than 9 numbers for a 3x3 homography");
  if (is_singular(h)) throw Error(path + ": the homography is singular");
  // Defined up to scale: one far from 1 (beyond 2^+-64) is brought into [1,
  // 2) by a power of two, exact unless an entry underflows, so that the products of
  // its entries that the evaluation forms stay finite (a file multiplied by
  // 1e160 scores as the file itself). Other files are kept as they are.
  const int exponent = std::ilogb(homography_scale(h));
  if (std::abs(exponent) > 64) {
    for (double& v : h) v = std::ldexp(v, -exponent);
  }
  return h;
}

double homography_scale(const Homography& h) {
  double scale = 0;
  for (const size_t i : {0, 1, 3, 4, 8}) scale = std::max(scale, std::abs(h[i]));
  return scale;
}

bool is_singular(const Homography& h) {
  // Defined up to scale: divide by homography_scale first.
  const double scale = homography_scale(h);
  Homography u = h;
  for (double& v : u) v /= scale;  // scale 0 gives NaNs: singular below
  const double det = u[0] * (u[4] * u[8] - u[5] * u[7]) - u[1] * (u[3] * u[8] - u[5] * u[6]) +
                     u[2] * (u[3] * u[7] - u[4] * u[6]);
  return !(std::abs(det) > 1e-12) || !std::isfinite(det);
}

void write_homography(std::ostream& out, const Homography& h) {
  char line[128];
  for (int r = 0; r < 3; ++r) {
    std::snprintf(line, sizeof line, "%.10g %.10g %.10g\n", h[r * 3], h[r * 3 + 1], h[r * 3 + 2]);
    out << line;
  }
}

void write_homography_file(const std::string& path, const Homography& h) {
  write_file_atomically(path, false, [&](std::ostream& out) { write_homography(out, h); });
}

}  // namespace glsurf
