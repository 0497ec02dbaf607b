#!/usr/bin/env bash
# The slow TPC-H check, not run in CI: generates SF 1 (about 1.1 GB in 8 files) with
# `shoal tpchgen` and compares every file's md5 with the reference dbgen 2.14's (`dbgen -s 1`).
# The fast scale factors (0.01, 0.1) run as ctest tests labelled `tpch`.
#
# Usage: scripts/tpch_md5_sf1.sh [path/to/shoal]   (default: the first of build*/bin/shoal found)
# Needs about 1.1 GB free under ${TMPDIR:-/tmp}.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
shoal=${1:-}
if [[ -z "$shoal" ]]; then
  for candidate in "$repo"/build/bin/shoal "$repo"/build/*/bin/shoal "$repo"/build*/bin/shoal; do
    if [[ -x "$candidate" ]]; then
      shoal=$candidate
      break
    fi
  done
fi
if [[ -z "$shoal" || ! -x "$shoal" ]]; then
  echo "tpch_md5_sf1: no shoal binary found; build one or pass its path" >&2
  exit 2
fi
echo "using $shoal"
exec "$repo/tests/unit/io/tpch_md5_test.sh" "$shoal" 1
