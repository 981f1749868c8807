#!/bin/sh
# The Python package as `cmake --install` lays it out: installed into a
# scratch prefix, imported from PREFIX/lib/python3/dist-packages (or
# GLSURF_PYTHON_INSTALL_DIR) in another directory, with no build tree on the
# path, and run on a bundled image with both backends.
# Usage: installed.sh CMAKE BUILD_DIR PYTHON INSTALL_DIR ASSETS
set -u
cmake=$1 build=$2 python=$3 dir=$4 assets=$5
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAILED: $*"; exit 1; }
"$python" -c "import numpy" 2>/dev/null || { echo "SKIP: $python cannot import numpy"; exit 77; }
out=$("$cmake" --install "$build" --prefix "$work/prefix" 2>&1) || fail "install: $out"
package="$work/prefix/$dir/glsurf"
[ -f "$package/__init__.py" ] && ls "$package"/_glsurf.*.so >/dev/null 2>&1 || fail "no package in $package: $(ls -R "$work/prefix/$dir" 2>&1)"
cd "$work" || exit 1
out=$(env -u PYTHONPATH PYTHONPATH="$work/prefix/$dir" "$python" -c "
import glsurf, sys
assert glsurf.__file__.startswith('$package'), glsurf.__file__
for backend in ('cpu', 'gl'):
    kp, d = glsurf.Detector(backend=backend).detect('$assets/box.png')
    print(backend, len(kp), d.shape[1])
" 2>&1) || fail "import or detect: $out"
echo "$out"
echo "$out" | grep -q "^cpu [0-9]* 64$" && echo "$out" | grep -q "^gl [0-9]* 64$" || fail "unexpected output"
