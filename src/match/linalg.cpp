#include "match/linalg.hpp"

#include <algorithm>
#include <limits>

namespace glsurf::linalg {

std::array<double, 9> normaliser(const std::vector<std::array<double, 2>>& p) {
  double cx = 0, cy = 0;
  for (const auto& q : p) cx += q[0], cy += q[1];
  cx /= p.size();
  cy /= p.size();
  double mean = 0;
  for (const auto& q : p) mean += std::hypot(q[0] - cx, q[1] - cy);
  mean /= p.size();
  const double s = mean > 0 ? std::sqrt(2.0) / mean : 1.0;
  return {s, 0, -s * cx, 0, s, -s * cy, 0, 0, 1};
}

std::array<double, 9> inverse_similarity(const std::array<double, 9>& t) {
  const double s = t[0];
  return {1 / s, 0, -t[2] / s, 0, 1 / s, -t[5] / s, 0, 0, 1};
}

SmallestEigen smallest_eigenvector(const std::array<double, 81>& a) {
  const SymmetricEigen<9> e = symmetric_eigen<9>(a);
  int best = 0;
  for (int i = 1; i < 9; ++i)
    if (e.values[i] < e.values[best]) best = i;
  double second = std::numeric_limits<double>::infinity(), largest = 0;
  for (int i = 0; i < 9; ++i) {
    largest = std::max(largest, e.values[i]);
    if (i != best) second = std::min(second, e.values[i]);
  }
  SmallestEigen out{{}, largest > 0 ? second / largest : 0.0};
  for (int k = 0; k < 9; ++k) out.vector[k] = e.vectors[k * 9 + best];
  return out;
}

std::array<double, 9> multiply3(const std::array<double, 9>& a, const std::array<double, 9>& b) {
  std::array<double, 9> c{};
  for (int r = 0; r < 3; ++r)
    for (int k = 0; k < 3; ++k)
      for (int q = 0; q < 3; ++q) c[r * 3 + q] += a[r * 3 + k] * b[k * 3 + q];
  return c;
}

std::array<double, 9> transpose3(const std::array<double, 9>& a) {
  return {a[0], a[3], a[6], a[1], a[4], a[7], a[2], a[5], a[8]};
}

double determinant3(const std::array<double, 9>& a) {
  return a[0] * (a[4] * a[8] - a[5] * a[7]) - a[1] * (a[3] * a[8] - a[5] * a[6]) +
         a[2] * (a[3] * a[7] - a[4] * a[6]);
}

}  // namespace glsurf::linalg
