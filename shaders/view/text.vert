#version 330 core
// view/text.vert — heads-up display geometry (stb_easy_font quads split into
// triangles, and the panels behind them) in view pixels, y down.
//
// Attributes: 0 position (view pixels), 1 colour (RGBA, 0..1)
// Uniform:    u_view_size

layout(location = 0) in vec2 a_position;
layout(location = 1) in vec4 a_colour;

uniform vec2 u_view_size;

out vec4 v_colour;

void main() {
  gl_Position = vec4(a_position / u_view_size * 2.0 - 1.0, 0.0, 1.0);
  v_colour = a_colour;
}
