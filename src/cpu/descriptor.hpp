// CPU reference orientation and descriptor (SURF, Bay et al. 2008), the same
// rules and parameters as the GPU passes.
//
// Scale: s = 1.2 * size / 9. Haar wavelets are axis-aligned boxes from the
// integral image, side h pixels (even), centred exactly on the (real) sample
// point: dx = mean of the right half - mean of the left half, dy = bottom -
// top. Box means at sub-pixel positions interpolate bilinearly between the
// four pixel-aligned boxes around them, which is the exact area mean of the
// piecewise-constant image (Terriberry et al. sample sub-pixel positions too),
// so responses vary continuously with position and the GPU's float32 sample
// positions give the same results as the CPU's. Near the border aligned boxes
// are clipped and averaged over what is left (adding a constant to the image
// still changes nothing); a half wholly outside makes the response 0.
//
// Orientation (`orientation`): at the lattice points (x, y) + (2/3) s (i, j),
// i^2 + j^2 <= 64 (197 points within radius 5.33s), the gradient of the image
// smoothed by a cross of two boxes (orientation_cross: long x short and short x
// long, the sides nearest h sqrt(3/2) and h / sqrt(2) for the side h nearest
// 2s), by central differences of its means 0.35 s either side, weighted by a
// Gaussian of sigma 3.75 s. The dominant direction is that of the largest
// window sum, a window around direction phi weighting each sample by
// max(0, 2 cos(delta) - 1)^2 (delta: its angle to phi; the weight falls
// smoothly to 0 at pi/3 and is one half at about 31 degrees, so it spans
// the pi/3 of SURF's window at half height). The windows tried point in
// kOrientationCandidates directions; the best is recentred on its own sum,
// every second step extrapolated to the fixed point by Aitken's delta-squared
// rule (leaps of up to 1 degree, and 1 degree towards a farther point ahead:
// longer leaps let float32 and float64 part ways at a few keypoints), until a
// sum's direction moves by less than 0.01 degrees (at most kOrientationMaxSums
// sums), and the angle is the last sum's direction.
//   This departs from Bay et al.'s Haar responses in a hard-edged window on
// a lattice of spacing s: a Haar pair smooths dx and dy differently (tent
// across, box along), so their direction is biased for any edge off the
// axes; a hard window's sum jumps as samples cross its edges; and a lattice
// as coarse as the smoothing does not turn with the image.
//   The cross, not a square box: a square's frequency response is not
// isotropic beyond second order (its w_x^2 w_y^2 term is 10/3 times its w_x^4
// term, where a radial function's is twice), so the smoothed gradient's
// direction depends on the pattern's angle to the axes. The mean of a
// w x v and a v x w box is isotropic to fourth order when v / w = 1/sqrt(3),
// and with w^2 + v^2 = 2 h^2 it smooths as much as the h x h square. On
// rotated photos it turns more repeated points within 3 degrees than the
// square did, and finds more partners' descriptors nearest
// (docs/notes/orientation.md). The cross takes twice the square's look-ups
// per sample; the smaller lattice pays back part of that.
//   Choices made over four photos and several angles (docs/notes/orientation.md,
// Orientation and descriptors): sigma 3.75 s (SURF's is 2.5 s) and radius
// 5.33 s, the offset 0.35 s (was s/2), and sides rounded from the side
// nearest 2s (was the nearest even side, which jumps by two pixels where a
// keypoint's size crosses a step, so that a size found slightly differently
// in a turned image changed the smoothing by up to half).
// tests/test_gpu_orientation.cpp measures it on the GPU.
//
// Descriptor (`describe`): a 20s x 20s window rotated to the orientation,
// 4 x 4 sub-regions of 5 x 5 samples spaced s, Haar side
// even_side(kDescriptorHaar s) (about 4s); responses rotated into the
// keypoint's frame and weighted by a Gaussian of sigma kDescriptorSigma s
// (6s) centred on the keypoint; per sub-region (sum dx, sum dy, sum |dx|,
// sum |dy|), or for `extended` OpenCV's 8 values (sums of dx and |dx| split
// by the sign of dy, of dy and |dy| by the sign of dx); sub-regions row by
// row; then L2-normalised.
//   The layout is Bay et al.'s paper's; the Haar side and the weight are
// wider than its 2s and 3.3s. Bay's own implementation also smooths more
// than the paper says (Haar side about 3.3s, samples spread over the window
// with a Gaussian of about 10s and shared between neighbouring sub-regions).
// A side of 2s leaves the responses to fine texture that blur or a
// viewpoint change alters, and a sigma of 3.3s gives the outer sub-regions
// little weight; 4s and 6s give the most correct matches, most of the gain
// on blur, and sides 3.3s to 5s and sigmas 5s to 10s are close to them
// (tools/compare_peers.py; docs/notes/keypoint-quality.md).
//   The split counts a component as negative only below -kSplitTolerance
// times the other one. Where the image is constant along one axis, the
// rotated response across it is zero but for rounding (the angle lands a
// hair off 180 degrees, sin(pi) is not 0), and OpenCV's plain sign moved
// the whole other component between the halves by that rounding, which
// float32 and float64 round differently: on such an image the GPU's and
// the CPU's extended descriptors had cosine 0 at some keypoints.
#pragma once

#include <array>
#include <cmath>
#include <vector>

#include "cpu/integral.hpp"
#include "surf/keypoint.hpp"

namespace glsurf::cpu {

// Window directions tried, evenly spaced: 32 (11.25 degrees apart) find the
// basin of the largest window sum as well as 64 did, and the recentring then
// climbs it (docs/notes/orientation.md: as many points turned and matched). A second orientation needs 64: at
// 32 a weaker peak 90 degrees from the first can lie on the first's shoulder between two candidates and go
// unseen (test_cpu_descriptor.cpp, crossing edges).
constexpr int kOrientationCandidates = 32;
constexpr int kSecondOrientationCandidates = 64;
constexpr int orientation_candidates(double second_ratio) {
  return second_ratio > 0 ? kSecondOrientationCandidates : kOrientationCandidates;
}
constexpr int kOrientationMaxSums = 20;            // window sums of the recentring, at most
constexpr double kOrientationSettled = 1.7453e-4;  // 0.01 degrees in radians: the recentring's stop
constexpr double kOrientationLeap = 1.7453e-2;     // 1 degree in radians: the largest extrapolated step
constexpr double kOrientationStep = 2.0 / 3.0;     // lattice spacing, in s
constexpr int kOrientationSteps = 8;               // lattice radius in steps (5.33s)
constexpr double kOrientationOffset = 0.35;        // central differences this many s either side
constexpr double kOrientationSigma = 3.75;         // Gaussian weight of the samples, in s
// How far the orientation samples' box centres lie from the keypoint along
// each axis, in s: the lattice's radius and the difference offset.
constexpr double kOrientationReach = kOrientationSteps * kOrientationStep + kOrientationOffset;
constexpr double kDescriptorHaar = 4.0;    // descriptor's Haar side, in s (even_side of it)
constexpr double kDescriptorSigma = 6.0;   // descriptor's Gaussian weight, in s
constexpr double kSplitTolerance = 1e-4;   // extended descriptor's sign split, relative
constexpr double kSecondSeparation = 1.0;  // degrees: a second orientation must settle farther away

// The orientation lattice: the points (i, j) with i^2 + j^2 <= kOrientationSteps^2,
// row by row (j, then i). One rule for the count and the points.
struct LatticePoint {
  int i = 0, j = 0;
};
constexpr bool in_lattice(int i, int j) { return i * i + j * j <= kOrientationSteps * kOrientationSteps; }
constexpr int lattice_size() {
  int n = 0;
  for (int j = -kOrientationSteps; j <= kOrientationSteps; ++j)
    for (int i = -kOrientationSteps; i <= kOrientationSteps; ++i) n += in_lattice(i, j);
  return n;
}
constexpr int kOrientationSamples = lattice_size();  // 197
constexpr std::array<LatticePoint, kOrientationSamples> orientation_lattice() {
  std::array<LatticePoint, kOrientationSamples> points{};
  int n = 0;
  for (int j = -kOrientationSteps; j <= kOrientationSteps; ++j)
    for (int i = -kOrientationSteps; i <= kOrientationSteps; ++i)
      if (in_lattice(i, j)) points[static_cast<size_t>(n++)] = LatticePoint{i, j};
  return points;
}
constexpr std::array<LatticePoint, kOrientationSamples> kOrientationLattice = orientation_lattice();
// A lattice point's Gaussian weight (sigma kOrientationSigma s): it does not
// depend on s, so the GPU reads it with the point (surf/descriptor.cpp).
inline double orientation_weight(const LatticePoint& p) {
  const double r2 = (p.i * p.i + p.j * p.j) * kOrientationStep * kOrientationStep;
  return std::exp(-r2 / (2.0 * kOrientationSigma * kOrientationSigma));
}

// The orientation's smoothing cross for scale s: the mean of a long_side x
// short_side box and a short_side x long_side one (x by y), the sides the
// whole numbers nearest h sqrt(3/2) and h / sqrt(2) for h the side nearest
// 2s (at least 2): h = 2 gives 2 and 1, h = 3 gives 4 and 2.
struct OrientationCross {
  int long_side = 0, short_side = 0;
};
OrientationCross orientation_cross(double s);

// Whether no box mean of keypoint k's orientation samples (orientation_cross's
// boxes, kOrientationOffset s either side of the lattice points
// within kOrientationSteps steps) needs clipping in a width x height image:
// each box, and the box a pixel further on that its sub-pixel mean also
// takes, lies inside, with 2 pixels to spare for the GPU's float32
// positions and scale. The GPU's orientation samples take such keypoints'
// box means without the clipping arithmetic (shaders/common/haar.glsl,
// cross_gradient_inside); it does not change the rule. The point list's
// compaction evaluates the same test in GLSL to list such keypoints first
// (shaders/common/orientation_inside.glsl).
bool orientation_inside(const KeyPoint& k, int width, int height);

struct Orientation {
  float angle = 0;          // degrees, counter-clockwise on screen, [0, 360)
  float strength = 0;       // |sum| of the best candidate window
  float runner_up = 0;      // with find_runner_up: best |sum| among candidates whose
                            // refinement ends > 0.5 degrees away
  float second_angle = -1;  // with second_ratio > 0: a second orientation, or -1 (none)
};
// find_runner_up refines every candidate (about twice the cost); tests use it
// to leave out keypoints where float rounding can tip the choice.
// second_ratio > 0 (DetectorConfig::second_orientation) tries
// orientation_candidates(second_ratio) directions and also looks for a
// second orientation, as SIFT does (Lowe 2004, section 5): the largest local
// maximum of the candidate windows' |sum| (over the circle of candidates:
// larger than the one before, not smaller than the one after) other than the
// best candidate, if its |sum| is at least second_ratio times the best's,
// recentred as the first; kept when it settles more than kSecondSeparation
// degrees from the first orientation.
Orientation orientation(const IntegralImage& integral, const KeyPoint& keypoint, bool find_runner_up = false,
                        double second_ratio = 0);

// Writes descriptor_size values; `angle_degrees` as KeyPoint::angle.
void describe(const IntegralImage& integral, const KeyPoint& keypoint, float angle_degrees, bool extended,
              float* out);

// Orientation (unless config.upright, or angles is Keep) and descriptors for
// every keypoint. Returns keypoints.size() * descriptor_size(config) values,
// row by row.
std::vector<float> describe_all(const IntegralImage& integral, std::vector<KeyPoint>& keypoints,
                                const DetectorConfig& config, Angles angles = Angles::Compute);

// cpu::detect, then orientation and descriptors: the --backend cpu path.
Features detect_and_compute(const GrayImage& image, const DetectorConfig& config, const TileCore& core = {});

// The largest keypoint size compute() takes: the descriptor's Haar boxes
// (side even_side(kDescriptorHaar s), 0.53 size, 4,096 at 7,680) are its
// largest, and a half of one then holds 2048 x 4096 pixels, whose sum of
// 255s (2.14e9) stays below 2^31, so that the 32-bit box sums and their
// signed differences stay exact on an image of any size.
constexpr float kMaxKeypointSize = 7680.0f;
// The smallest: one pixel. Below it the boxes cannot shrink (2 pixels at
// least) and the orientation's offsets (0.35s, s = 1.2 size / 9) fall below
// what the GPU's float32 sample positions resolve (at size 1e-10 it saw a
// flat patch where the CPU found the gradient).
constexpr float kMinKeypointSize = 1.0f;

// Why `keypoint` cannot be described in a width x height image, or "" when
// it can: x, y and size must be finite, the position inside the image
// ([-0.5, width - 0.5] x [-0.5, height - 0.5], pixel centres at integers)
// and kMinKeypointSize <= size <= kMaxKeypointSize; with Angles::Keep, the
// angle in [0, 360] too (OpenCV's -1 means none). The other fields do not
// matter.
std::string keypoint_problem(const KeyPoint& keypoint, int width, int height,
                             Angles angles = Angles::Compute);
// The index of the first of `keypoints` that keypoint_problem refuses, with
// its reason in `why`; -1 (and `why` empty) when every one can be described.
long first_keypoint_problem(const std::vector<KeyPoint>& keypoints, int width, int height, std::string& why,
                            Angles angles = Angles::Compute);
// Why `config` cannot describe given keypoints with `angles`, or "": upright
// descriptors are taken at angle 0, so they keep no angle.
std::string angles_problem(const DetectorConfig& config, Angles angles);

// Orientation (unless config.upright, or angles is Keep) and descriptors of
// given keypoints (from another detector, a tracker, a file): as
// detect_and_compute, but the keypoints keep their order and every field
// except the angle (and that too with Keep). Only config.upright and
// config.extended matter. Throws glsurf::Error naming the first keypoint
// that keypoint_problem refuses, or angles_problem's reason.
Features compute(const GrayImage& image, std::vector<KeyPoint> keypoints, const DetectorConfig& config,
                 Angles angles = Angles::Compute);

}  // namespace glsurf::cpu
