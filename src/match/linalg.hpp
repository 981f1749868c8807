// Small dense linear algebra for the two-view estimators (homography.cpp,
// fundamental.cpp): Hartley's normalisation and the eigen decomposition of a
// small symmetric matrix by cyclic Jacobi rotations. Double precision,
// row-major arrays; private to the library.
#pragma once

#include <array>
#include <cmath>
#include <vector>

namespace glsurf::linalg {

// Similarity that moves the points' centroid to the origin and their mean
// distance to sqrt(2) (Hartley's normalisation), as a 3x3 row-major matrix.
std::array<double, 9> normaliser(const std::vector<std::array<double, 2>>& p);
// The inverse of a normaliser's similarity.
std::array<double, 9> inverse_similarity(const std::array<double, 9>& t);

// The eigen decomposition of a symmetric N x N matrix a = V diag(values) V^T
// by cyclic Jacobi rotations (at most 60 sweeps, until the off-diagonal sum
// of squares is below 1e-30): values unsorted, column i of `vectors`
// (row-major) the unit eigenvector of values[i].
template <int N>
struct SymmetricEigen {
  std::array<double, N> values;
  std::array<double, N * N> vectors;
};

template <int N>
SymmetricEigen<N> symmetric_eigen(std::array<double, N * N> a) {
  std::array<double, N * N> v{};
  for (int i = 0; i < N; ++i) v[i * N + i] = 1;
  for (int sweep = 0; sweep < 60; ++sweep) {
    double off = 0;
    for (int p = 0; p < N; ++p)
      for (int q = p + 1; q < N; ++q) off += a[p * N + q] * a[p * N + q];
    if (off < 1e-30) break;
    for (int p = 0; p < N; ++p) {
      for (int q = p + 1; q < N; ++q) {
        if (std::abs(a[p * N + q]) < 1e-300) continue;
        const double theta = (a[q * N + q] - a[p * N + p]) / (2 * a[p * N + q]);
        const double t = (theta >= 0 ? 1 : -1) / (std::abs(theta) + std::sqrt(theta * theta + 1));
        const double c = 1 / std::sqrt(t * t + 1), s = t * c;
        for (int k = 0; k < N; ++k) {
          const double akp = a[k * N + p], akq = a[k * N + q];
          a[k * N + p] = c * akp - s * akq;
          a[k * N + q] = s * akp + c * akq;
        }
        for (int k = 0; k < N; ++k) {
          const double apk = a[p * N + k], aqk = a[q * N + k];
          a[p * N + k] = c * apk - s * aqk;
          a[q * N + k] = s * apk + c * aqk;
        }
        for (int k = 0; k < N; ++k) {
          const double vkp = v[k * N + p], vkq = v[k * N + q];
          v[k * N + p] = c * vkp - s * vkq;
          v[k * N + q] = s * vkp + c * vkq;
        }
      }
    }
  }
  SymmetricEigen<N> out;
  for (int i = 0; i < N; ++i) out.values[i] = a[i * N + i];
  out.vectors = v;
  return out;
}

// The eigenvector of the smallest eigenvalue of a symmetric 9x9 matrix, and
// how far the next one is from it: the second smallest eigenvalue over the
// largest (0 when the smallest is not unique).
struct SmallestEigen {
  std::array<double, 9> vector;
  double gap;
};
SmallestEigen smallest_eigenvector(const std::array<double, 81>& a);

// 3x3 row-major helpers.
std::array<double, 9> multiply3(const std::array<double, 9>& a, const std::array<double, 9>& b);
std::array<double, 9> transpose3(const std::array<double, 9>& a);
double determinant3(const std::array<double, 9>& a);

}  // namespace glsurf::linalg
