#version 330 core
// select/histogram.frag — each point adds 1 to its bin (additive blending on
// R32F: exact for counts below 2^24).
#include "common/precision.glsl"

layout(location = 0) out float o_count;

void main() { o_count = 1.0; }
