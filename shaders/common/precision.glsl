// common/precision.glsl — explicit precision, so the shaders also compile as
// GLSL ES 3.00 (where int/uint arithmetic must be highp to hold 32-bit sums).
// Desktop GLSL accepts and ignores these statements.
precision highp float;
precision highp int;
