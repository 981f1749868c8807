#!/bin/sh
# ctest's entry for the Python tests: PYTHON -m pytest TESTDIR -q, or exit 77
# (skipped) naming what is missing.
# Usage: run_pytest.sh PYTHON TESTDIR
python=$1 tests=$2
for module in pytest numpy cv2; do
  if ! "$python" -c "import $module" 2>/dev/null; then
    echo "SKIP: $python cannot import $module (Debian: python3-pytest python3-numpy python3-opencv)"
    exit 77
  fi
done
exec "$python" -m pytest "$tests" -q -p no:cacheprovider
