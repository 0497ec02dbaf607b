#!/usr/bin/env bash
# Runs clang-tidy 14 with the repository's .clang-tidy over Shoal's own sources.
#
#   scripts/tidy.sh                      every src/ translation unit (what CI runs; a new
#                                        folder or file is in compile_commands.json, so checked)
#   scripts/tidy.sh src/shoal/common     only files under these paths (files or folders)
#   scripts/tidy.sh --per-file src/...   one clang-tidy run per source file instead of per batch
#   scripts/tidy.sh --fix src/shoal/cli  apply the fixes clang-tidy offers (review the diff!)
#
# Batches (the default). clang-tidy's matchers walk the whole AST of a translation unit, the
# standard library, gRPC and fmt headers included, and that walk, not our code, is most of its
# time: coordinator.cc takes 15 s to check against 2.5 s to parse. So sources are checked in
# CMake's unity batches (CMAKE_UNITY_BUILD, 16 sources of one library per translation unit), where
# the headers are walked once per batch: all of src/ in about a fifth of the per-file time, and
# the same findings, since a finding in a batched .cc is reported like one in a header. Two
# things differ, both covered elsewhere: the checks that only look at the main file
# (misc-unused-alias-decls, misc-unused-using-decls; the compilers' -Wunused-* flag most of the
# same) see nothing, and bugprone-suspicious-include is off (the batch file includes .cc files by
# design; check-layering.sh refuses such an include in our sources). Every source must therefore
# compile inside a batch: two files of one library must not define the same file-local name;
# CONTRIBUTING.md ("clang-tidy") says how to keep it so. --per-file checks one file at a time,
# with every check, as a compiler sees it.
#
# It configures a clang++-14 build tree (build/tidy-unity, or build/tidy with --per-file; under
# $SHOAL_BUILD_ROOT) for compile_commands.json, so that the flags are the ones clang's front end
# understands, and builds only the generated headers (flatbuffers, protobuf, version.h) that
# sources include; nothing is compiled. Diagnostics are de-duplicated (a header is checked once
# per translation unit that includes it) and counted per check. Exit status: 0 when clean, 1 when
# there is any finding or clang-tidy failed.
#
# Environment: SHOAL_BUILD_ROOT (default build), SHOAL_TIDY_BUILD_DIR (--per-file: an existing
# clang++-14 build tree to take compile_commands.json from), SHOAL_TIDY_BATCH (sources per batch,
# default 16), SHOAL_JOBS (default nproc), CLANG_TIDY (binary), CLANG_TIDY_EXTRA (more clang-tidy
# arguments, e.g. '-checks=clang-analyzer-*').
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"

fix=()
paths=()
per_file=0
for arg in "$@"; do
  case "$arg" in
    --fix) fix=(--fix) ;;
    --per-file) per_file=1 ;;
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
batch=${SHOAL_TIDY_BATCH:-16}
if [ "$per_file" = 1 ]; then
  build_dir=${SHOAL_TIDY_BUILD_DIR:-$build_root/tidy}
  unity=(-DCMAKE_UNITY_BUILD=OFF)
else
  build_dir=$build_root/tidy-unity
  unity=(-DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE="$batch")
fi
jobs=${SHOAL_JOBS:-$(nproc)}

mkdir -p "$build_root"
# A configure-only clang tree (unless SHOAL_TIDY_BUILD_DIR names an existing clang++-14 tree).
# Tests and benchmarks are not checked, so they are not configured.
if [ ! -f "$build_dir/build.ninja" ]; then
  cmake -S . -B "$build_dir" -G Ninja -DCMAKE_CXX_COMPILER=clang++-14 -DCMAKE_C_COMPILER=clang-14 \
    -DCMAKE_BUILD_TYPE=Debug -DCMAKE_EXPORT_COMPILE_COMMANDS=ON "${unity[@]}" \
    -DSHOAL_BUILD_TESTS=OFF -DSHOAL_BUILD_BENCH=OFF -DSHOAL_BUILD_FUZZ=OFF >"$build_dir.configure.log" 2>&1 ||
    { cat "$build_dir.configure.log" >&2; exit 1; }
elif [ "$per_file" = 0 ]; then
  # The batch size may have changed since the tree was configured.
  cmake "${unity[@]}" "$build_dir" >"$build_dir.configure.log" 2>&1 ||
    { cat "$build_dir.configure.log" >&2; exit 1; }
fi
ninja -C "$build_dir" build.ninja >/dev/null # re-runs CMake when a CMakeLists.txt changed
# Generated headers (custom-command outputs ending in .h) must exist before sources can be parsed.
mapfile -t generated < <(ninja -C "$build_dir" -t targets all 2>/dev/null |
  sed -n 's/^\(.*\.\(h\|hpp\|inc\)\): CUSTOM_COMMAND$/\1/p')
if [ ${#generated[@]} -gt 0 ]; then
  ninja -C "$build_dir" "${generated[@]}" >/dev/null
fi

# The translation units of compile_commands.json with a source under the requested paths: a
# source of ours, or a batch (unity_N_cxx.cxx) that includes one.
under_paths() {
  local f=$1 p
  for p in "${paths[@]}"; do
    if [ "$f" = "$p" ] || [ "${f#"$p"/}" != "$f" ]; then
      return 0
    fi
  done
  return 1
}
mapfile -t files < <(sed -n 's/^ *"file": "\(.*\)",\{0,1\}$/\1/p' "$build_dir/compile_commands.json" |
  sort -u | while read -r f; do
    case "$f" in
      */Unity/unity_*)
        members=$(sed -n 's|^#include "\(.*\)"$|\1|p' "$f" | sed "s|^$repo/||")
        for m in $members; do
          if under_paths "$m"; then
            echo "$f"
            break
          fi
        done
        ;;
      "$repo"/src/*) under_paths "${f#"$repo"/}" && echo "${f#"$repo"/}" ;;
    esac
  done)
if [ ${#files[@]} -eq 0 ]; then
  echo "tidy: no translation units under ${paths[*]}"
  exit 0
fi

logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
if [ "$per_file" = 1 ]; then
  what="${#files[@]} files"
else
  what="${#files[@]} batches of up to $batch files"
fi
echo "tidy: $tidy over $what under ${paths[*]} ($jobs jobs)"
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
header_filter="^$(regex_quote "$repo")/($(IFS='|'; echo "${alternatives[*]}"))/.*\\.(h|cc)$"
batch_checks=
[ "$per_file" = 1 ] || batch_checks=--checks=-bugprone-suspicious-include
# The repository's configuration by name: a batch lives in the build tree, which may be outside
# the checkout (SHOAL_BUILD_ROOT), where clang-tidy's search for .clang-tidy would not find it.
config=$repo/.clang-tidy
export config header_filter tidy_extra="${fix[*]:-} $batch_checks ${CLANG_TIDY_EXTRA:-}"
printf '%s\0' "${files[@]}" |
  xargs -0 -n 1 -P "$jobs" bash -c '"$tidy" -p "$build_dir" --config-file="$config" --quiet \
    --header-filter="$header_filter" $tidy_extra "$1" >"$logs/$(echo "$1" | tr / _).log" 2>&1' _ ||
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
  echo "tidy: $count findings in $what, $((SECONDS - start))s"
  exit 1
fi
if [ "$status" -ne 0 ]; then
  cat "$logs"/*.log >&2
  echo "tidy: clang-tidy failed (exit $status)" >&2
  exit 1
fi
echo "tidy: clean ($what, $((SECONDS - start))s)"
