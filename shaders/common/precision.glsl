// common/precision.glsl — explicit highp for float and int: the integer
// arithmetic holds 32-bit sums. Desktop GLSL accepts and ignores these
// statements; the shaders target GLSL 3.30, not GLSL ES (which would also
// need precisions for the integer samplers and constant output indices).
precision highp float;
precision highp int;
