#!/usr/bin/env bash
# End-to-end check of `shoal tpchgen` against the reference dbgen 2.14: generates a scale factor
# into a temporary directory and compares the md5 of every .tbl file with dbgen's (`dbgen -s SF`).
# At SF 0.01 it also checks that --parts files concatenate to the same bytes with any thread count,
# and that bad arguments fail with exit status 1.
#
# Usage: tpch_md5_test.sh <shoal binary> <scale factor: 0.01 | 0.1 | 1>
set -euo pipefail

shoal=$1
sf=$2

declare -A expected
case "$sf" in
  0.01)
    expected=(
      [region]=c235841b00d29ad4f817771fcc851207 [nation]=2f588e0b7fa72939b498c2abecd9fbbe
      [supplier]=56e0621c472064c2a998757c70b44043 [customer]=a8aa97edad6d47b183a569759fbd3eec
      [part]=9cce16188c241c25617ca5ed6191e37e [partsupp]=c6889c3ed0939ca02475f7fb410cbb50
      [orders]=c8d2008fb47f47f9e56543d4cb0f4e6a [lineitem]=4c6d44350a1f7974f56f5d3d7091c2be) ;;
  0.1)
    expected=(
      [region]=c235841b00d29ad4f817771fcc851207 [nation]=2f588e0b7fa72939b498c2abecd9fbbe
      [supplier]=85f567a75bd806f3ccff89341866ab1c [customer]=8f279b30fee7203e32886be01efd823b
      [part]=3f5dc86fbedff28bf1a88bea8341aa6f [partsupp]=e3bd40ee500c9cc88fd14a4dc904c09e
      [orders]=2520d48234df183e47c57027a52007ee [lineitem]=dec17abbc566d431f5808c5c9f81b8a5) ;;
  1)
    expected=(
      [region]=c235841b00d29ad4f817771fcc851207 [nation]=2f588e0b7fa72939b498c2abecd9fbbe
      [supplier]=565f8733ecdb2faf654a3efe0a422957 [customer]=b662b705bc3ac183c1942367cf522e42
      [part]=b7ca9b82dc3d9c6543a96faac588a281 [partsupp]=1b531d9b3963dd72c920179b31135e84
      [orders]=62264a9feaa3a3fd59805910dfe18a30 [lineitem]=e6368ad3f339bf1d4a3b8a1beba23870) ;;
  *) echo "no reference md5 sums for SF $sf" >&2; exit 2 ;;
esac

tmp=$(mktemp -d "${TMPDIR:-/tmp}/shoal-tpch-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
failures=0

check_md5() {  # <label> <table> <md5 of the produced bytes>
  if [[ "$3" == "${expected[$2]}" ]]; then
    echo "ok   $1 $2 $3"
  else
    echo "FAIL $1 $2 $3, dbgen: ${expected[$2]}"
    failures=$((failures + 1))
  fi
}

start=$(date +%s%N)
"$shoal" tpchgen --scale-factor "$sf" --output "$tmp/single" --quiet
end=$(date +%s%N)
echo "SF $sf generated in $(( (end - start) / 1000000 )) ms"
for table in "${!expected[@]}"; do
  check_md5 single "$table" "$(md5sum < "$tmp/single/$table.tbl" | cut -d' ' -f1)"
done

if [[ "$sf" == "0.01" ]]; then
  "$shoal" tpchgen --scale-factor "$sf" --output "$tmp/parts" --parts 4 --threads 3 --quiet
  for table in "${!expected[@]}"; do
    [[ -f "$tmp/parts/$table/part-4.tbl" ]] || { echo "FAIL no $table/part-4.tbl"; failures=$((failures + 1)); }
    check_md5 parts "$table" "$(cat "$tmp/parts/$table"/part-*.tbl | md5sum | cut -d' ' -f1)"
  done
  "$shoal" tpchgen --scale-factor "$sf" --output "$tmp/one" --threads 1 --tables lineitem,nation --quiet
  check_md5 one-thread lineitem "$(md5sum < "$tmp/one/lineitem.tbl" | cut -d' ' -f1)"
  check_md5 one-thread nation "$(md5sum < "$tmp/one/nation.tbl" | cut -d' ' -f1)"
  [[ ! -e "$tmp/one/orders.tbl" ]] || { echo "FAIL orders.tbl written though not asked for"; failures=$((failures + 1)); }

  expect_error() {  # <expected message fragment> <args...>
    local fragment=$1
    shift
    set +e
    err=$("$shoal" tpchgen "$@" 2>&1 >/dev/null)
    status=$?
    set -e
    if [[ $status -eq 1 && "$err" == *"$fragment"* ]]; then
      echo "ok   error: $err"
    else
      echo "FAIL tpchgen $* exited $status with: $err"
      failures=$((failures + 1))
    fi
  }
  touch "$tmp/a-file"
  expect_error "not a number" --scale-factor abc --output "$tmp/bad"
  expect_error "must be positive" --scale-factor 0 --output "$tmp/bad"
  expect_error "must be positive" --scale-factor -1 --output "$tmp/bad"
  expect_error "cannot create directory" --scale-factor 0.01 --output "$tmp/a-file/out"
  expect_error "unknown output format" --scale-factor 0.01 --output "$tmp/bad" --format xml
fi

if [[ $failures -ne 0 ]]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "all checks passed"
