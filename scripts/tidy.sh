#!/usr/bin/env bash
# Runs clang-tidy 14 with the repository's .clang-tidy over Shoal's own sources.
#
#   scripts/tidy.sh                      every src/ translation unit (what CI runs; a new
#                                        folder or file is in compile_commands.json, so checked)
#   scripts/tidy.sh src/shoal/common     only files under these paths (files or folders)
#   scripts/tidy.sh --fix src/shoal/cli  apply the fixes clang-tidy offers (review the diff!)
#
# It configures a clang++-14 build tree (build/tidy, or $SHOAL_BUILD_ROOT/tidy) for
# compile_commands.json, so that the flags are the ones clang's front end understands, and builds
# only the generated headers (flatbuffers, protobuf, version.h) that sources include; nothing is
# compiled. Diagnostics are de-duplicated (a header is checked once per file that includes it) and
# counted per check. Exit status: 0 when clean, 1 when there is any finding or clang-tidy failed.
#
# Environment: SHOAL_BUILD_ROOT (default build), SHOAL_TIDY_BUILD_DIR (an existing clang++-14 build
# tree to take compile_commands.json from), SHOAL_JOBS (default nproc), CLANG_TIDY (binary),
# CLANG_TIDY_EXTRA (more clang-tidy arguments, e.g. '-checks=clang-analyzer-*').
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"

fix=()
paths=()
for arg in "$@"; do
  case "$arg" in
    --fix) fix=(--fix) ;;
    -h | --help)
      awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"
      exit 0
      ;;
    -*)
      echo "tidy: unknown option $arg" >&2
      exit 2
      ;;
    *) paths+=("${arg%/}") ;;
  esac
done
[ ${#paths[@]} -gt 0 ] || paths=(src)
# A path that does not exist is a typo, not a clean result (`src` itself covers folders to come).
for p in "${paths[@]}"; do
  [ -e "$p" ] || { echo "tidy: no such file or folder: $p" >&2; exit 2; }
done

tidy=${CLANG_TIDY:-}
if [ -z "$tidy" ]; then
  for candidate in clang-tidy-14 clang-tidy; do
    if command -v "$candidate" >/dev/null 2>&1; then
      tidy=$candidate
      break
    fi
  done
fi
[ -n "$tidy" ] || { echo "tidy: clang-tidy-14 not found (scripts/install-deps.sh installs it)" >&2; exit 1; }
"$tidy" --version | grep -q 'version 14' ||
  echo "tidy: warning: $tidy is not version 14; .clang-tidy is written for 14" >&2

build_root=${SHOAL_BUILD_ROOT:-build}
build_dir=${SHOAL_TIDY_BUILD_DIR:-$build_root/tidy}
jobs=${SHOAL_JOBS:-$(nproc)}

mkdir -p "$build_root"
# A configure-only clang tree (unless SHOAL_TIDY_BUILD_DIR names an existing clang++-14 tree, as
# scripts/test.sh does). Tests and benchmarks are not checked, so they are not configured.
if [ ! -f "$build_dir/build.ninja" ]; then
  cmake -S . -B "$build_dir" -G Ninja -DCMAKE_CXX_COMPILER=clang++-14 -DCMAKE_C_COMPILER=clang-14 \
    -DCMAKE_BUILD_TYPE=Debug -DCMAKE_EXPORT_COMPILE_COMMANDS=ON \
    -DSHOAL_BUILD_TESTS=OFF -DSHOAL_BUILD_BENCH=OFF -DSHOAL_BUILD_FUZZ=OFF >"$build_dir.configure.log" 2>&1 ||
    { cat "$build_dir.configure.log" >&2; exit 1; }
fi
ninja -C "$build_dir" build.ninja >/dev/null # re-runs CMake when a CMakeLists.txt changed
# Generated headers (custom-command outputs ending in .h) must exist before sources can be parsed.
mapfile -t generated < <(ninja -C "$build_dir" -t targets all 2>/dev/null |
  sed -n 's/^\(.*\.\(h\|hpp\|inc\)\): CUSTOM_COMMAND$/\1/p')
if [ ${#generated[@]} -gt 0 ]; then
  ninja -C "$build_dir" "${generated[@]}" >/dev/null
fi

# The translation units of compile_commands.json under the requested paths.
mapfile -t files < <(sed -n 's/^ *"file": "\(.*\)",\{0,1\}$/\1/p' "$build_dir/compile_commands.json" |
  sed "s|^$repo/||" | grep '^src/' | sort -u | while read -r f; do
    for p in "${paths[@]}"; do
      if [ "$f" = "$p" ] || [ "${f#"$p"/}" != "$f" ]; then
        echo "$f"
        break
      fi
    done
  done)
if [ ${#files[@]} -eq 0 ]; then
  echo "tidy: no translation units under ${paths[*]}"
  exit 0
fi

logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
echo "tidy: $tidy over ${#files[@]} files under ${paths[*]} ($jobs jobs)"
start=$SECONDS
status=0
# One log per file, so parallel runs never interleave their lines.
export tidy build_dir logs
# Findings in headers are reported only for headers under the requested paths of this checkout
# (a file's folder stands for the file). Anchoring at the checkout also keeps out the generated
# headers build trees hold under build/<tree>/src/shoal/, which .clang-tidy's HeaderFilterRegex
# cannot exclude (clang-tidy 14 has no exclusion regex). And `tidy.sh src/shoal/cli` does not
# report findings in the headers of the layers cli includes: each folder answers for its own.
regex_quote() { printf '%s' "$1" | sed 's/[][\.*^$+?(){}|]/\\&/g'; }
alternatives=()
for p in "${paths[@]}"; do
  [ -d "$p" ] || p=$(dirname "$p")
  alternatives+=("$(regex_quote "$p")")
done
header_filter="^$(regex_quote "$repo")/($(IFS='|'; echo "${alternatives[*]}"))/.*\\.h$"
export header_filter tidy_extra="${fix[*]:-} ${CLANG_TIDY_EXTRA:-}"
printf '%s\0' "${files[@]}" |
  xargs -0 -n 1 -P "$jobs" bash -c '"$tidy" -p "$build_dir" --quiet --header-filter="$header_filter" \
    $tidy_extra "$1" >"$logs/$(echo "$1" | tr / _).log" 2>&1' _ ||
  status=$?

# Each distinct finding once (a header's finding repeats in every file that includes it), with
# the source line and caret clang-tidy printed under it; notes are left out.
report=$(cat "$logs"/*.log | awk -v repo="$repo/" '
  /^[^ ]+:[0-9]+:[0-9]+: (warning|error): / || /^(warning|error): .*\[[a-z]/ {
    line = $0; sub("^" repo, "", line)
    if (line in seen) { keep = 0; next }
    seen[line] = 1; keep = 1; print line; next
  }
  /^[^ ]+:[0-9]+:[0-9]+: note: / { keep = 0; next }
  /^[0-9]+ (warning|error)s? (generated|treated as errors?)/ { keep = 0; next }
  /^Suppressed [0-9]+ warnings/ || /^Use -header-filter/ { keep = 0; next }
  keep { print }
')
finding='^([^ ]+:[0-9]+:[0-9]+: )?(warning|error): .*\]$'
count=$(grep -c -E "$finding" <<<"$report" || true)
if [ "$count" -gt 0 ]; then
  printf '%s\n\n' "$report"
  echo "tidy: findings per check:"
  grep -E "$finding" <<<"$report" | sed -n 's/.*\[\([^]]*\)\]$/\1/p' |
    tr ',' '\n' | grep -v '^-warnings-as-errors$' | sort | uniq -c | sort -rn
  echo "tidy: $count findings in ${#files[@]} files, $((SECONDS - start))s"
  exit 1
fi
if [ "$status" -ne 0 ]; then
  cat "$logs"/*.log >&2
  echo "tidy: clang-tidy failed (exit $status)" >&2
  exit 1
fi
echo "tidy: clean (${#files[@]} files, $((SECONDS - start))s)"
