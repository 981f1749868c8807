# Shared start of the cli_*.sh end-to-end tests (sourced): arguments
# GLSURF ASSETS, a scratch folder removed on exit, and fail().
set -u
glsurf=$1
assets=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAILED: $*"; exit 1; }
