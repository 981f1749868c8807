#version 330 core
// view/colour.frag — the interpolated vertex colour (keypoints, text, panels).
#include "common/precision.glsl"

in vec4 v_colour;
layout(location = 0) out vec4 o_colour;

void main() { o_colour = v_colour; }
