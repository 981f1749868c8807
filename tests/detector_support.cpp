// Helpers shared by the GPU detector and stage tests (detector_support.hpp).
#include "detector_support.hpp"

#include <cmath>
#include <cstddef>
#include <map>
#include <utility>

namespace glsurf::test {

double matched_fraction(const std::vector<KeyPoint>& a, const std::vector<KeyPoint>& b) {
  if (a.empty()) return 1.0;
  std::map<std::pair<int, int>, std::vector<const KeyPoint*>> cells;
  for (const KeyPoint& q : b)
    cells[{static_cast<int>(std::floor(q.x)), static_cast<int>(std::floor(q.y))}].push_back(&q);
  size_t matched = 0;
  for (const KeyPoint& p : a) {
    bool found = false;
    const int cx = static_cast<int>(std::floor(p.x)), cy = static_cast<int>(std::floor(p.y));
    for (int dy = -1; dy <= 1 && !found; ++dy) {
      for (int dx = -1; dx <= 1 && !found; ++dx) {
        const auto it = cells.find({cx + dx, cy + dy});
        if (it == cells.end()) continue;
        for (const KeyPoint* q : it->second) {
          if (std::hypot(p.x - q->x, p.y - q->y) <= 0.1 && std::abs(p.size - q->size) <= 0.01 * p.size &&
              p.laplacian == q->laplacian) {
            found = true;
            break;
          }
        }
      }
    }
    matched += found;
  }
  return static_cast<double>(matched) / a.size();
}

}  // namespace glsurf::test
