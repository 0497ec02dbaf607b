#!/usr/bin/env bash
# `shoal sql --workers inproc:N`: queries run across N in-process workers (EXPLAIN shows network
# stages with several tasks) and give the single-node answer; a bad N is a clear error, exit 1.
# Usage: inproc_workers_test.sh <path to shoal>
set -u
shoal=$1
fail() { echo "FAIL: $*"; exit 1; }
query="SELECT l_returnflag, count(*), sum(l_quantity) FROM lineitem GROUP BY l_returnflag ORDER BY 1"
local_out=$("$shoal" sql --tpch 0.01 --format csv -c "$query") || fail "single-node run failed"
dist_out=$("$shoal" sql --tpch 0.01 --workers inproc:3 --format csv \
  -c "SET dist_bytes_per_task = '64kB'" -c "$query" 2>&1) || fail "inproc run failed: $dist_out"
dist_out=${dist_out#SET$'\n'}
[ "$dist_out" = "$local_out" ] || fail "answers differ:\n$local_out\n---\n$dist_out"
explain=$("$shoal" sql --tpch 0.01 --workers inproc:3 -c "SET dist_bytes_per_task = '64kB'" \
  -c "EXPLAIN $query" 2>&1) || fail "EXPLAIN failed: $explain"
for word in NetworkShuffle NetworkCoalesce "tasks=3"; do
  grep -q "$word" <<<"$explain" || fail "EXPLAIN lacks $word: $explain"
done
for bad in inproc:0 inproc:x inproc: inproc:100000; do
  err=$("$shoal" sql --workers "$bad" -c "SELECT 1" 2>&1 >/dev/null)
  rc=$?
  [ "$rc" -eq 1 ] || fail "--workers $bad exited with $rc"
  grep -q "expected inproc:N" <<<"$err" || fail "--workers $bad: unclear error: $err"
done
echo "inproc workers: ok"
