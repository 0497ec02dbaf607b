#!/usr/bin/env bash
# Installs what is missing, builds Shoal and runs every test: the command CI runs (.ci/run).
#
#   bash scripts/test.sh                 everything (what CI runs)
#   bash scripts/test.sh --quick         deps, format, layering, GCC build + all tests; no sanitizer,
#                                        (Clang) or clang-tidy phases (also: SHOAL_TEST_QUICK=1)
#   bash scripts/test.sh --skip=asan,tidy   skip named phases (also: SHOAL_TEST_SKIP=asan,tidy)
#   bash scripts/test.sh --only=gcc      run only the named phases (also: SHOAL_TEST_ONLY=gcc)
#   bash scripts/test.sh -j 2            parallel jobs for builds and ctest (also: SHOAL_JOBS)
#
# Phases, in order:
#   deps      scripts/install-deps.sh (Debian packages and npm test peers; idempotent)
#   format    scripts/format.sh --check (clang-format 14 on every *.h / *.cc)
#   layering  scripts/check-layering.sh (each layer includes only the layers below it)
#   gcc       GCC 12 Release build with -Werror (preset ci-gcc), then ctest: every test but the
#             mutation tests (label fuzz), which the asan phase runs
#   asan      Clang 14 -O1 build with AddressSanitizer + UBSan and -Werror (preset ci-asan): every
#             target (tests, fuzz drivers, slt runner, benchmarks), then ctest -L 'unit|fuzz'
#   tidy      scripts/tidy.sh over every folder of src/, in unity batches of 16 sources (the
#             headers are walked once per batch; see scripts/tidy.sh)
#
# Where CI's time goes, and why the phases are cut as they are (CONTRIBUTING.md, "CI time"):
#  - Two compilers must build warning-free, and the sanitizer build is one of them: Clang 14
#    compiles the -O1 ASan+UBSan code about twice as fast as GCC 12 (binder_expr.cc 8 s against
#    15 s, expr_test.cc 14 s against 31 s), and a separate Clang compile of every file (6 minutes
#    on CI) is no longer needed. GCC keeps the Release build, which every test runs against.
#  - CI=true turns the compiler cache off (CCACHE_DISABLE=1): CI's time is a cold build.
#  - The CI presets link with lld (-fuse-ld=lld): several times less CPU and wall time per
#    executable than GNU ld, and each build links some 30 of them.
#  - clang-tidy checked one file at a time costs 9-26 CPU s a file, most of it walking library
#    headers: all of src/ would take some 20 minutes on 2 cores. Checked in batches of 16
#    sources (scripts/tidy.sh), all of src/ takes about 4.
#  - Both CI presets build the libraries in unity batches of 16 sources (CMAKE_UNITY_BUILD): the
#    large headers are parsed once per batch. The ASan build of src/: 570 CPU s against 1,010 in
#    batches of 8 (GCC's whole build in batches of 8: some 800 CPU s against 1,400 file by file).
#  - Every process tunes glibc's malloc first (common/process_allocator.h): a quarter of CI's CPU
#    time was in the kernel (35 of 142 minutes), and in the test measured (DistributedTest's TPC-H
#    run) most of it was faulting in column buffers freed and allocated again.
#  - The mutation tests (label fuzz) run once, under the sanitizers; ctest starts the longest
#    tests first from times a CI run recorded (tests/ci/ctest_costs_*.txt).
#  - Test code compiles at -O0 (tests/CMakeLists.txt): optimising GoogleTest's large functions was
#    half of each build, and tests spend their time in the libraries, which keep their flags.
#
# Every phase runs even when an earlier one failed (so one CI log shows every problem), except a
# build's tests after that build failed; SHOAL_FAIL_FAST=1 stops at the first failure instead.
# The summary at the end lists each phase with its time, each ctest summary line, and a last line
# "N passed, N failed": tests passed and failed across all ctest runs, where a failed phase that
# runs no tests (format, layering, a build) counts as one failure. Exit status 0 only if all passed.
#
# With CI=true every phase runs: --quick, --skip and --only are ignored.
# Environment: SHOAL_BUILD_ROOT (default build; trees go to <root>/ci-gcc and ci-asan),
# SHOAL_JOBS (default nproc), SHOAL_TEST_TIMEOUT (seconds per test, default 600; the sanitizer run
# gets three times as much).
set -uo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo" || exit 1

all_phases=(deps format layering gcc asan tidy)
quick_skip=(asan tidy)

skip=${SHOAL_TEST_SKIP:-}
only=${SHOAL_TEST_ONLY:-}
quick=${SHOAL_TEST_QUICK:-0}
jobs=${SHOAL_JOBS:-$(nproc)}
while [ $# -gt 0 ]; do
  arg=$1
  shift
  case "$arg" in
    --quick) quick=1 ;;
    --skip=*) skip=${arg#--skip=} ;;
    --only=*) only=${arg#--only=} ;;
    -j)
      jobs=${1:-}
      shift || true
      ;;
    -j*) jobs=${arg#-j} ;;
    -h | --help)
      awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"
      exit 0
      ;;
    *)
      echo "test.sh: unknown argument $arg (see --help)" >&2
      exit 2
      ;;
  esac
done
if ! [[ "$jobs" =~ ^[1-9][0-9]*$ ]]; then
  echo "test.sh: -j needs a positive number" >&2
  exit 2
fi
if [ "${CI:-}" = true ] && { [ "$quick" != 0 ] || [ -n "$skip" ] || [ -n "$only" ]; }; then
  echo "test.sh: CI=true: running every phase (ignoring --quick, --skip and --only)"
  quick=0 skip='' only=''
fi
if [ "$quick" != 0 ]; then
  skip="${skip:+$skip,}$(
    IFS=,
    echo "${quick_skip[*]}"
  )"
fi
for name in ${skip//,/ } ${only//,/ }; do
  case " ${all_phases[*]} " in
    *" $name "*) ;;
    *)
      echo "test.sh: unknown phase '$name' (phases: ${all_phases[*]})" >&2
      exit 2
      ;;
  esac
done

if [ "${CI:-}" = true ]; then
  # CMakeLists.txt compiles through ccache when it is installed; CI's time must be a cold build.
  export CCACHE_DISABLE=1
fi

build_root=${SHOAL_BUILD_ROOT:-build}
case "$build_root" in /*) ;; *) build_root="$repo/$build_root" ;; esac
mkdir -p "$build_root/logs"
timeout_s=${SHOAL_TEST_TIMEOUT:-600}
fail_fast=${SHOAL_FAIL_FAST:-0}

# Sanitizer runtime options (the debug-asan and tsan test presets carry the same).
asan_env=(
  "ASAN_OPTIONS=strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1:detect_leaks=1"
  "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1"
  "LSAN_OPTIONS=suppressions=$repo/.sanitizer-leak-suppressions.txt"
)

# ---------------------------------------------------------------------------------------------
# Bookkeeping: one row per phase, one summary line per ctest run.
phase_names=()
phase_results=()
phase_seconds=()
ctest_lines=()
ctest_failures=()
total_passed=0
total_failed=0
stopped=0

wanted() {
  local name=$1
  if [ -n "$only" ] && [[ ",$only," != *",$name,"* ]]; then
    return 1
  fi
  [[ ",$skip," != *",$name,"* ]]
}

banner() {
  printf '\n======== %s ========\n' "$*"
}

record() { # name result seconds
  phase_names+=("$1")
  phase_results+=("$2")
  phase_seconds+=("$3")
  if [ "$2" = FAILED ]; then
    [ "$fail_fast" = 1 ] && stopped=1
  fi
}

# run_step NAME COMMAND...: runs a phase that is a plain command; a failure counts as one failure.
run_step() {
  local name=$1
  shift
  if [ "$stopped" = 1 ] || ! wanted "$name"; then
    record "$name" skipped 0
    return 0
  fi
  banner "$name: $*"
  local start=$SECONDS
  if "$@"; then
    record "$name" ok $((SECONDS - start))
  else
    record "$name" FAILED $((SECONDS - start))
    total_failed=$((total_failed + 1))
  fi
}

# seed_ctest_costs BUILD_DIR PHASE: ctest starts the tests it knows to be long first, from the
# times it recorded in Testing/Temporary/CTestCostData.txt; a fresh tree has none and runs them in
# declaration order, which left the longest ones (the file-shuffle SQL logic tests, the mutation
# tests under ASan) to run last, alone. A tree without its own times gets those of a CI run
# (tests/ci/ctest_costs_<gcc|asan>.txt: "name runs seconds" lines); only the order changes.
seed_ctest_costs() {
  local dir=$1 phase=${2%%-*}
  local costs="$dir/Testing/Temporary/CTestCostData.txt" seed="$repo/tests/ci/ctest_costs_$phase.txt"
  if [ ! -s "$costs" ] && [ -f "$seed" ]; then
    mkdir -p "$dir/Testing/Temporary" && cp "$seed" "$costs"
  fi
}

# run_ctest NAME BUILD_DIR LOG [ENV...] -- [CTEST ARGS...]: runs ctest and adds its totals.
run_ctest() {
  local name=$1 dir=$2 log=$3
  shift 3
  local env_vars=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do
    env_vars+=("$1")
    shift
  done
  shift
  banner "$name: ctest $*"
  local start=$SECONDS status=0
  seed_ctest_costs "$dir" "$name"
  # The full output goes to the log; the console gets everything but the lines of passing tests.
  env "${env_vars[@]}" ctest --test-dir "$dir" --output-on-failure --no-tests=error \
    -j "$jobs" "$@" 2>&1 | tee "$log" |
    grep --line-buffered -v -E '^ *Start +[0-9]+: |^ *[0-9]+/[0-9]+ Test +#[0-9]+: .* Passed +[0-9.]+ sec$'
  status=${PIPESTATUS[0]}
  echo "($name: full ctest output in $log)"
  local line
  line=$(grep -E '^[0-9]+% tests passed, [0-9]+ tests? failed out of [0-9]+' "$log" | tail -1)
  if [ -n "$line" ]; then
    local failed total
    failed=$(sed -E 's/^[0-9]+% tests passed, ([0-9]+) tests? failed out of ([0-9]+).*/\1/' <<<"$line")
    total=$(sed -E 's/^[0-9]+% tests passed, ([0-9]+) tests? failed out of ([0-9]+).*/\2/' <<<"$line")
    total_passed=$((total_passed + total - failed))
    total_failed=$((total_failed + failed))
    ctest_lines+=("$name: $line")
    # ctest's own list of failed tests, for the summary.
    while IFS= read -r failure; do
      ctest_failures+=("$name: $failure")
    done < <(sed -n '/^The following tests FAILED:/,/^Errors while running CTest/p' "$log" |
      grep -E '^[[:space:]]+[0-9]+ - ' || true)
  else
    # No summary line: ctest itself failed (no tests found, bad test directory, ...).
    ctest_lines+=("$name: ctest printed no summary (exit $status); see $log")
    total_failed=$((total_failed + 1))
    [ "$status" -ne 0 ] || status=1
  fi
  if [ "$status" -eq 0 ]; then
    record "$name" ok $((SECONDS - start))
  else
    record "$name" FAILED $((SECONDS - start))
  fi
}

# build_and_test PHASE PRESET CTEST_ENV... -- CTEST_ARGS...: configure + build, then ctest.
build_and_test() {
  local phase=$1 preset=$2
  shift 2
  local dir="$build_root/$preset"
  if [ "$stopped" = 1 ] || ! wanted "$phase"; then
    record "$phase-build" skipped 0
    record "$phase-test" skipped 0
    return 0
  fi
  banner "$phase-build: cmake --preset $preset -B $dir && cmake --build $dir -j $jobs"
  local start=$SECONDS
  if cmake --preset "$preset" -B "$dir" >"$build_root/logs/$phase-configure.log" 2>&1 ||
    { cat "$build_root/logs/$phase-configure.log"; false; }; then
    tail -n 3 "$build_root/logs/$phase-configure.log"
    if cmake --build "$dir" -j "$jobs"; then
      record "$phase-build" ok $((SECONDS - start))
      run_ctest "$phase-test" "$dir" "$build_root/logs/$phase-ctest.log" "$@"
      return 0
    fi
  fi
  record "$phase-build" FAILED $((SECONDS - start))
  total_failed=$((total_failed + 1))
  record "$phase-test" "skipped (build failed)" 0
}

# ---------------------------------------------------------------------------------------------
overall_start=$SECONDS
banner "Shoal tests in $repo (build trees under $build_root, $jobs jobs)"
echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD 2>/dev/null || echo ' (with local changes)')"

run_step deps bash scripts/install-deps.sh
for tool in g++-12 clang++-14 cmake ninja clang-format-14 clang-tidy-14 node; do
  printf '  %-16s %s\n' "$tool" "$("$tool" --version 2>/dev/null | head -1 || echo 'not found')"
done
run_step format bash scripts/format.sh --check
run_step layering bash scripts/check-layering.sh

# The fuzz label runs once, under the sanitizers, where a corrupted input that reads out of bounds
# is caught: in the Release build it would cost some 6 CPU minutes to find only crashes.
build_and_test gcc ci-gcc -- -LE fuzz --timeout "$timeout_s"
build_and_test asan ci-asan "${asan_env[@]}" -- -L 'unit|fuzz' --timeout $((timeout_s * 3))

# clang-tidy over every folder of src/ (a new folder or file is in compile_commands.json).
run_step tidy env SHOAL_BUILD_ROOT="$build_root" SHOAL_JOBS="$jobs" bash scripts/tidy.sh src

# ---------------------------------------------------------------------------------------------
banner "summary"
failed_phases=()
for i in "${!phase_names[@]}"; do
  printf '  %-14s %-24s %5ss\n' "${phase_names[$i]}" "${phase_results[$i]}" "${phase_seconds[$i]}"
  [ "${phase_results[$i]}" != FAILED ] || failed_phases+=("${phase_names[$i]}")
done
echo "  total time: $((SECONDS - overall_start))s"
echo
echo "ctest summaries:"
if [ ${#ctest_lines[@]} -eq 0 ]; then
  echo "  (no ctest run)"
fi
for line in "${ctest_lines[@]}"; do
  echo "  ${line%%: *}:"
  echo "${line#*: }"
done
if [ ${#ctest_failures[@]} -gt 0 ]; then
  echo
  echo "failed tests:"
  printf '  %s\n' "${ctest_failures[@]}"
fi
if [ ${#failed_phases[@]} -gt 0 ]; then
  echo
  echo "FAILED phases: ${failed_phases[*]}"
elif [ "$total_passed" -eq 0 ]; then
  echo
  echo "no test ran"
fi
echo "$total_passed passed, $total_failed failed"
if [ ${#failed_phases[@]} -gt 0 ] || [ "$total_failed" -gt 0 ]; then
  exit 1
fi
if [ "$total_passed" -eq 0 ] && [ "${CI:-}" = true ]; then
  exit 1
fi
exit 0
