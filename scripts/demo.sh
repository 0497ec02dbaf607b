#!/usr/bin/env bash
# Installs what is missing, builds the `shoal` binary and runs the main job: `shoal demo`.
#
#   bash scripts/demo.sh [ARGS...]   ARGS are passed to `shoal demo`
#
# Steps: scripts/install-deps.sh --no-npm (Debian packages; the npm peers are for tests only),
# configure the `release` preset (GCC 12, Release) into build/release, build only the `shoal`
# target, run build/release/bin/shoal demo. A second run rebuilds only what changed.
# Environment: SHOAL_BUILD_ROOT (default build), SHOAL_JOBS (default nproc).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"

case "${1:-}" in
  -h | --help)
    awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"
    exit 0
    ;;
esac

build_root=${SHOAL_BUILD_ROOT:-build}
build_dir="$build_root/release"
jobs=${SHOAL_JOBS:-$(nproc)}

echo "demo: installing missing packages"
bash scripts/install-deps.sh --no-npm

echo "demo: building shoal in $build_dir"
mkdir -p "$build_root"
if ! cmake --preset release -B "$build_dir" >"$build_root/release-configure.log" 2>&1; then
  cat "$build_root/release-configure.log" >&2
  exit 1
fi
cmake --build "$build_dir" --target shoal -j "$jobs"

echo "demo: $build_dir/bin/shoal demo${*:+ $*}"
exec "$build_dir/bin/shoal" demo "$@"
