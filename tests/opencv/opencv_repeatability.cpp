// OpenCV's figure for glsurf eval's repeatability, for the agreement test
// (tests/cli_eval_opencv.sh). Reads the two images' keypoints (glsurf's txt
// feature format: x y size per line after the "N D" header), the images'
// sizes and the homography A -> B (Oxford text, or an OpenCV FileStorage
// file), keeps the keypoints in the common part as the protocol does (docs/
// evaluation.md), and prints what cv::evaluateFeatureDetector gives for them.
// cv::evaluateFeatureDetector filters A's keypoints by A alone and B's by
// their projection into A alone; after this pre-filter those filters keep
// everything, and its denominator is the protocol's.
//
// Also printed, for the same keypoints: the figure of a circle model (each
// region of B mapped into A as a circle of radius scaled by sqrt|det J|, the
// rest as the protocol), and the median over A's kept keypoints of the
// viewpoint angle acos(s2 / s1) that the homography's local affine map
// (singular values s1 >= s2) amounts to.
//
// Usage: opencv_repeatability KP_A KP_B WIDTH_A HEIGHT_A WIDTH_B HEIGHT_B H
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <opencv2/core.hpp>
#include <opencv2/features2d.hpp>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

std::vector<cv::KeyPoint> read_keypoints(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot open");
  std::string line;
  std::getline(in, line);
  std::istringstream header(line);
  size_t n = 0, d = 0;
  if (!(header >> n >> d)) throw std::runtime_error(path + ": no \"N D\" header");
  std::vector<cv::KeyPoint> keypoints;
  while (keypoints.size() < n && std::getline(in, line)) {
    std::istringstream fields(line);
    float x, y, size;
    if (!(fields >> x >> y >> size)) throw std::runtime_error(path + ": bad line: " + line);
    keypoints.emplace_back(x, y, size);
  }
  if (keypoints.size() != n) throw std::runtime_error(path + ": fewer keypoints than its header says");
  return keypoints;
}

cv::Matx33d read_homography(const std::string& path) {
  cv::Matx33d h;
  const std::string ext = path.size() > 4 ? path.substr(path.size() - 4) : "";
  if (ext == ".xml" || ext == ".yml") {
    cv::FileStorage fs(path, cv::FileStorage::READ);
    cv::Mat m;
    // The first node, whatever its name (Oxford's XML files call it H13, H14, ...).
    for (const cv::FileNode& node : fs.root()) {
      node >> m;
      break;
    }
    if (m.rows != 3 || m.cols != 3) throw std::runtime_error(path + ": no 3x3 matrix");
    m.convertTo(m, CV_64F);
    for (int i = 0; i < 9; ++i) h.val[i] = m.at<double>(i / 3, i % 3);
    return h;
  }
  std::ifstream in(path);
  for (int i = 0; i < 9; ++i)
    if (!(in >> h.val[i])) throw std::runtime_error(path + ": not 9 numbers");
  return h;
}

cv::Matx22d jacobian(const cv::Matx33d& h, double x, double y) {
  const double w = h(2, 0) * x + h(2, 1) * y + h(2, 2);
  const double u = (h(0, 0) * x + h(0, 1) * y + h(0, 2)) / w, v = (h(1, 0) * x + h(1, 1) * y + h(1, 2)) / w;
  return cv::Matx22d((h(0, 0) - u * h(2, 0)) / w, (h(0, 1) - u * h(2, 1)) / w, (h(1, 0) - v * h(2, 0)) / w,
                     (h(1, 1) - v * h(2, 1)) / w);
}

cv::Point2d apply(const cv::Matx33d& h, cv::Point2d p) {
  const cv::Vec3d q = h * cv::Vec3d(p.x, p.y, 1);
  return {q[0] / q[2], q[1] / q[2]};
}

// The circle of radius r about p mapped by h (local affine map), as
// M = (J J^T r^2)^-1; whether its bounding box lies inside (0, w) x (0, h).
bool box_inside(cv::Point2d c, const cv::Matx22d& m, int width, int height) {
  const double det = m(0, 0) * m(1, 1) - m(0, 1) * m(1, 0);
  const double hw = std::sqrt(m(1, 1) / det), hh = std::sqrt(m(0, 0) / det);
  return c.x - hw > 0 && c.x + hw < width && c.y - hh > 0 && c.y + hh < height;
}

// The protocol's common part: the region inside its own image and, mapped by
// h, inside the other. Points that h sends beyond its horizon (w of the other
// sign than at the image's centre) are out.
std::vector<cv::KeyPoint> common_part(const std::vector<cv::KeyPoint>& k, const cv::Matx33d& h, int width,
                                      int height, int other_width, int other_height) {
  std::vector<cv::KeyPoint> kept;
  const double reference = h(2, 0) * (width - 1) / 2.0 + h(2, 1) * (height - 1) / 2.0 + h(2, 2);
  for (const cv::KeyPoint& p : k) {
    const double r = p.size / 2.0;
    const cv::Matx22d own(1 / (r * r), 0, 0, 1 / (r * r));
    if (!box_inside(p.pt, own, width, height)) continue;
    if ((h(2, 0) * p.pt.x + h(2, 1) * p.pt.y + h(2, 2)) * reference <= 0) continue;
    const cv::Matx22d j = jacobian(h, p.pt.x, p.pt.y);
    const cv::Matx22d mapped = (j * j.t() * (r * r)).inv();
    if (!box_inside(apply(h, p.pt), mapped, other_width, other_height)) continue;
    kept.push_back(p);
  }
  return kept;
}

double circle_overlap_error(double d, double r1, double r2) {
  const double pi = 3.14159265358979323846;
  const double small = std::min(r1, r2), large = std::max(r1, r2);
  double both = 0;
  if (d >= r1 + r2) return 1.0;
  if (d <= large - small) {
    both = pi * small * small;
  } else {
    const double a1 = std::acos(std::clamp((d * d + r1 * r1 - r2 * r2) / (2 * d * r1), -1.0, 1.0));
    const double a2 = std::acos(std::clamp((d * d + r2 * r2 - r1 * r1) / (2 * d * r2), -1.0, 1.0));
    both = r1 * r1 * (a1 - std::sin(2 * a1) / 2) + r2 * r2 * (a2 - std::sin(2 * a2) / 2);
  }
  return 1.0 - both / (pi * r1 * r1 + pi * r2 * r2 - both);
}

// The circle model on the kept keypoints: B's regions mapped into A as circles.
int circle_correspondences(const std::vector<cv::KeyPoint>& a, const std::vector<cv::KeyPoint>& b,
                           const cv::Matx33d& h) {
  const cv::Matx33d back = h.inv();
  struct Candidate {
    double error;
    size_t i, j;
  };
  std::vector<Candidate> candidates;
  for (size_t j = 0; j < b.size(); ++j) {
    const cv::Point2d c = apply(back, b[j].pt);
    const double rb =
        b[j].size / 2.0 * std::sqrt(std::abs(cv::determinant(jacobian(back, b[j].pt.x, b[j].pt.y))));
    for (size_t i = 0; i < a.size(); ++i) {
      const double ra = a[i].size / 2.0, d = std::hypot(c.x - a[i].pt.x, c.y - a[i].pt.y);
      if (d >= 4 * ra) continue;
      const double f = 30 / ra, e = circle_overlap_error(d, 30, rb * f);
      if (e < 0.4) candidates.push_back({e, i, j});
    }
  }
  std::sort(candidates.begin(), candidates.end(), [](const Candidate& p, const Candidate& q) {
    return p.error < q.error || (p.error == q.error && (p.i < q.i || (p.i == q.i && p.j < q.j)));
  });
  std::vector<bool> used_a(a.size()), used_b(b.size());
  int count = 0;
  for (const Candidate& c : candidates) {
    if (used_a[c.i] || used_b[c.j]) continue;
    used_a[c.i] = used_b[c.j] = true;
    ++count;
  }
  return count;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 8) {
    std::fprintf(stderr, "usage: %s KP_A KP_B WIDTH_A HEIGHT_A WIDTH_B HEIGHT_B H\n", argv[0]);
    return 2;
  }
  try {
    cv::setNumThreads(0);  // one pair of regions is too small a job to share out
    const int wa = std::stoi(argv[3]), ha = std::stoi(argv[4]), wb = std::stoi(argv[5]),
              hb = std::stoi(argv[6]);
    const cv::Matx33d h = read_homography(argv[7]);
    const std::vector<cv::KeyPoint> a = common_part(read_keypoints(argv[1]), h, wa, ha, wb, hb);
    const std::vector<cv::KeyPoint> b = common_part(read_keypoints(argv[2]), h.inv(), wb, hb, wa, ha);
    std::vector<double> tilt;
    for (const cv::KeyPoint& k : a) {
      cv::Matx21d s;
      cv::SVD::compute(jacobian(h, k.pt.x, k.pt.y), s);
      tilt.push_back(std::acos(std::min(s(1) / s(0), 1.0)) * 180 / 3.14159265358979323846);
    }
    std::sort(tilt.begin(), tilt.end());
    float repeatability = 0;
    int correspondences = 0;
    if (!a.empty() && !b.empty()) {
      std::vector<cv::KeyPoint> ka = a, kb = b;  // evaluateFeatureDetector may detect into empty lists
      cv::evaluateFeatureDetector(cv::Mat(ha, wa, CV_8U), cv::Mat(hb, wb, CV_8U), cv::Mat(h), &ka, &kb,
                                  repeatability, correspondences);
      if (correspondences < 0) repeatability = 0, correspondences = 0;  // it says -1 for none
    }
    const int circle = circle_correspondences(a, b, h);
    const size_t least = std::min(a.size(), b.size());
    std::printf(
        "visible_a %zu visible_b %zu opencv_correspondences %d opencv_repeatability %.4f "
        "circle_correspondences %d circle_repeatability %.4f median_tilt_deg %.1f\n",
        a.size(), b.size(), correspondences, static_cast<double>(repeatability), circle,
        least ? static_cast<double>(circle) / least : 0.0, tilt.empty() ? 0.0 : tilt[tilt.size() / 2]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "opencv_repeatability: %s\n", e.what());
    return 1;
  }
  return 0;
}
