#version 330 core
// common/fullscreen.vert — the one vertex shader of every full-screen pass.
//
// Input:  none (drawn with glDrawArrays(GL_TRIANGLES, 0, 3) from an empty VAO).
// Output: a triangle covering clip space [-1, 1]^2, so each fragment of the
//         viewport runs once, at gl_FragCoord.xy = texel index + 0.5.

void main() {
  // vertex 0 -> (-1, -1), 1 -> (3, -1), 2 -> (-1, 3)
  vec2 corner = vec2(float((gl_VertexID << 1) & 2), float(gl_VertexID & 2));
  gl_Position = vec4(corner * 2.0 - 1.0, 0.0, 1.0);
}
