#!/bin/sh
# glsurf installed (cmake --install) into a scratch prefix, then a project
# that takes it in with find_package(glsurf) (tests/consumer_installed)
# configured, built and run on the bundled graf1 -> graf3 pair: its
# homography within 3 px of the ground truth at the corners, as
# example_register's. The package must not point into glsurf's source or
# build tree (checked in its files).
# Usage: consumer_find_package.sh CMAKE BUILD_DIR SOURCE_DIR CXX GENERATOR
set -u
cmake=$1 build=$2 source=$3 cxx=$4 generator=$5
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAILED: $*"; exit 1; }

out=$("$cmake" --install "$build" --prefix "$work/prefix" 2>&1) || fail "install: $out"
[ -x "$work/prefix/bin/glsurf" ] || fail "the CLI is not installed as bin/glsurf"
# Only the public headers, include/glsurf/*.hpp, at most 10 of them; none
# reaches an OpenGL, EGL, GLEW, GLFW or glm header.
headers=$(cd "$work/prefix/include" && find . -type f | sort | tr '\n' ' ')
[ -f "$work/prefix/include/glsurf/glsurf.hpp" ] || fail "the headers are not under include/glsurf: $headers"
count=$(find "$work/prefix/include" -type f | wc -l)
[ "$count" -le 10 ] && [ -z "$(find "$work/prefix/include" -mindepth 2 -type d)" ] &&
  [ "$(find "$work/prefix/include" -type f ! -name '*.hpp' | wc -l)" -eq 0 ] ||
  fail "more than the public headers are installed: $headers"
for h in "$work"/prefix/include/glsurf/*.hpp; do
  out=$("$cxx" -std=c++17 -fsyntax-only -I "$work/prefix/include" -x c++ "$h" 2>&1) || fail "$h does not compile alone: $out"
  deps=$("$cxx" -std=c++17 -M -I "$work/prefix/include" -x c++ "$h" 2>&1)
  if echo "$deps" | grep -E -q '/(GL|EGL|GLFW|KHR|glm)/'; then
    fail "$(basename "$h") reaches a GL header: $(echo "$deps" | grep -E -o '[^ ]*/(GL|EGL|GLFW|KHR|glm)/[^ ]*' | head -3)"
  fi
done
# The installed CLI takes its default images from the installed copy.
out=$("$work/prefix/bin/glsurf" bench detect --runs 1 --warmup 0 --sizes 64x48 --default-only 2>&1) ||
  fail "the installed CLI's bench: $out"
echo "$out" | grep -q "input: $work/prefix/share/glsurf/assets/graf1.png" ||
  fail "the installed CLI does not use the installed images: $out"
# The package names no path in glsurf's source or build tree.
if grep -rl -e "$source" -e "$build" "$work/prefix/lib/cmake/glsurf"; then fail "the package points into the source or build tree"; fi
out=$("$cmake" -S "$source/tests/consumer_installed" -B "$work/consumer" -G "$generator" \
      -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_PREFIX_PATH="$work/prefix" -DGLSURF_EXAMPLE="$source/examples/register.cpp" 2>&1) ||
  fail "configure the consumer: $out"
out=$("$cmake" --build "$work/consumer" 2>&1) || fail "build the consumer: $out"
out=$("$work/consumer/register" "$source/assets/graf1.png" "$source/assets/graf3.png" "$source/assets/H1to3p.xml" 2>&1) ||
  fail "run the consumer: $out"
echo "$out"
echo "$out" | grep -q "^corner error [0-2]\.[0-9][0-9] px$" || fail "the consumer's homography is not within 3 px"
echo "consumer_find_package: ok"
