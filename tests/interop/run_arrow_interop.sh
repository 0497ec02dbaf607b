#!/usr/bin/env bash
# Arrow IPC interop test between Shoal and apache-arrow (JavaScript); see README.md beside this.
#
#   tests/interop/run_arrow_interop.sh TOOL [WORK_DIR]
#
# TOOL is the built shoal_arrow_interop_tool. WORK_DIR keeps every file written and read, for
# inspection; without it a temporary directory is used and removed if everything passed. Exits 1
# if any step fails.
set -uo pipefail

if [ $# -lt 1 ] || [ ! -x "$1" ]; then
  echo "usage: $0 TOOL [WORK_DIR]  (TOOL: the built shoal_arrow_interop_tool)" >&2
  exit 2
fi
tool=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
if [ $# -ge 2 ]; then
  work=$2
  own_work=0
else
  work=$(mktemp -d -t shoal-arrow-interop.XXXXXX)
  own_work=1
fi
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

for cmd in node npm; do
  if ! command -v "$cmd" >/dev/null 2>&1; then
    echo "arrow_interop: $cmd not found (scripts/install-deps.sh installs it)" >&2
    exit 1
  fi
done
if [ ! -d "$here/node_modules/apache-arrow" ]; then
  echo "arrow_interop: installing the npm packages of $here"
  (cd "$here" && npm ci --no-audit --no-fund --loglevel=error) || {
    echo "arrow_interop: npm ci failed" >&2
    exit 1
  }
fi

rm -rf "$work"
mkdir -p "$work/shoal" "$work/js" "$work/js_read_by_shoal"
passed=0
failed=0
step() {
  local name=$1
  shift
  if "$@"; then
    passed=$((passed + 1))
    echo "PASS $name"
  else
    failed=$((failed + 1))
    echo "FAIL $name"
  fi
}

# Shoal writes, apache-arrow reads.
step "shoal write" "$tool" write "$work/shoal"
step "apache-arrow reads Shoal's files" node "$here/read_shoal.mjs" "$work/shoal"

# apache-arrow writes, Shoal reads; the JSON Shoal produces is compared with the specification.
step "apache-arrow write" node "$here/write_js.mjs" "$work/js"
shopt -s nullglob
js_files=("$work/js"/*.arrow "$work/js"/*.arrows)
if [ ${#js_files[@]} -lt 10 ]; then
  failed=$((failed + 1))
  echo "FAIL apache-arrow wrote ${#js_files[@]} files, expected at least 10"
fi
for file in "${js_files[@]}"; do
  base=$(basename "$file")
  base=${base%.*}
  out="$work/js_read_by_shoal/$base.json"
  step "shoal reads $base" bash -c '"$1" read "$2" "$3" && node "$4/compare_json.mjs" "$5" "$3"' _ \
    "$tool" "$file" "$out" "$here" "$work/js/$base.expected.json"
done

if [ "$failed" -eq 0 ] && [ "$own_work" -eq 1 ]; then
  rm -rf "$work"
  echo "arrow_interop: $passed passed, $failed failed"
else
  echo "arrow_interop: $passed passed, $failed failed (files in $work)"
fi
[ "$failed" -eq 0 ]
