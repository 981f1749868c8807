# Sourced by shell scripts: find_python MODULES sets $python to the first
# python3 that imports MODULES ("numpy, cv2"), or to "" when none does. The
# first python3 on PATH may be one without Debian's packages (pyenv's), so
# Debian's /usr/bin/python3 is tried after it; $PYTHON, when set, first.
find_python() {
  python=""
  for candidate in ${PYTHON:-} python3 /usr/bin/python3; do
    if command -v "$candidate" >/dev/null && "$candidate" -c "import $1" 2>/dev/null; then
      python=$candidate
      return 0
    fi
  done
  return 1
}
