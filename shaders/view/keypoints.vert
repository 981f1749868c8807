#version 330 core
// view/keypoints.vert — keypoint k (the instance) as a circle of radius
// size / 2 (32 line segments, vertices 0..63) and a tick from its centre
// along its orientation (vertices 64, 65), read straight from the detector's
// point list on the GPU (vertex texture fetch; no readback); drawn with 68
// vertices, a second tick along its second orientation (66, 67), outside
// the view where it has none.
//
// Inputs:   u_list    point list (RGBA32F: x, y, size * laplacian, response)
//           u_angles  orientation per keypoint (R32F, degrees ccw on screen)
//           u_second_angles  second orientation per keypoint, -1 for none
// Uniforms: u_offset, u_scale   view pixel = u_offset + u_scale * image pixel
//           u_view_size         the view in pixels
// Output:   clip position; v_colour by Laplacian sign (dark blobs cyan,
//           light blobs orange)

uniform sampler2D u_list;
uniform sampler2D u_angles;
uniform sampler2D u_second_angles;
uniform vec2 u_offset;
uniform float u_scale;
uniform vec2 u_view_size;

out vec4 v_colour;

const float kTwoPi = 6.28318530717958647692;

void main() {
  ivec2 texel = ivec2(gl_InstanceID % 1024, gl_InstanceID / 1024);
  vec4 k = texelFetch(u_list, texel, 0);
  float radius = 0.5 * abs(k.z);
  vec2 offset;
  if (gl_VertexID < 64) {
    int corner = (gl_VertexID + 1) / 2;  // 0, 1, 1, 2, 2, 3, ... 31, 32: segment ends
    float a = kTwoPi * float(corner) / 32.0;
    offset = radius * vec2(cos(a), sin(a));
  } else {
    bool second = gl_VertexID >= 66;
    float angle = second ? texelFetch(u_second_angles, texel, 0).r : texelFetch(u_angles, texel, 0).r;
    float a = radians(angle);
    offset = gl_VertexID % 2 == 0 ? vec2(0.0) : radius * vec2(cos(a), -sin(a));  // ccw on screen, y down
    if (second && angle < 0.0) {  // no second orientation: clipped away
      gl_Position = vec4(2.0, 2.0, 0.0, 1.0);
      v_colour = vec4(0.0);
      return;
    }
  }
  vec2 p = u_offset + u_scale * (k.xy + offset);
  gl_Position = vec4((p + 0.5) / u_view_size * 2.0 - 1.0, 0.0, 1.0);
  v_colour = k.z > 0.0 ? vec4(0.1, 0.85, 1.0, 1.0) : vec4(1.0, 0.55, 0.1, 1.0);
}
