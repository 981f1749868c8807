// common/orientation_inside.glsl — cpu::orientation_inside in GLSL: whether
// no box mean of a keypoint's orientation samples needs clipping, with 2
// pixels to spare (src/cpu/descriptor.hpp). The point list's compaction
// lists such keypoints first, so that the orientation samples pass can take
// them without clipping (orientation/samples.frag, INSIDE).
//
// Needs: uniform ivec2 u_image_size (the image's width and height) and
//        uniform float u_orientation_reach (cpu::kOrientationReach).
#include "common/sides.glsl"

// `keypoint` as the point list holds it: (x, y, size * laplacian, response).
bool orientation_inside(vec4 keypoint) {
  float s = 1.2 * abs(keypoint.z) / 9.0;
  float h = float(orientation_cross(s).x);  // the cross's longest side, on either axis
  float reach = u_orientation_reach * s;
  vec2 low = keypoint.xy - reach - 0.5 * h + 0.5;
  vec2 high = keypoint.xy + reach + 0.5 * h + 1.5;
  return all(greaterThanEqual(low, vec2(2.0))) && all(lessThanEqual(high, vec2(u_image_size) - 2.0));
}
