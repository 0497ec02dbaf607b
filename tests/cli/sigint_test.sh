#!/usr/bin/env bash
# Ctrl-C in `shoal sql`: SIGINT cancels the running statement within a second, prints
# PostgreSQL's "canceling statement due to user request", and -c mode exits with status 1.
# Usage: sigint_test.sh <path to shoal>
set -u
shoal=$1
err=$(mktemp)
trap 'rm -f "$err"' EXIT
# Billions of joined rows: runs for minutes unless cancelled.
"$shoal" sql --tpch 0.01 -c "SELECT count(*) FROM lineitem a JOIN lineitem b ON a.l_linenumber = b.l_linenumber JOIN lineitem c ON b.l_linenumber = c.l_linenumber" \
  >/dev/null 2>"$err" &
pid=$!
sleep 5
if ! kill -0 "$pid" 2>/dev/null; then
  echo "FAIL: the query ended before it could be interrupted"; cat "$err"; exit 1
fi
start=$(date +%s%N)
kill -INT "$pid"
wait "$pid"
rc=$?
elapsed_ms=$(( ($(date +%s%N) - start) / 1000000 ))
echo "exit status $rc after ${elapsed_ms} ms"; cat "$err"
fail=0
[ "$rc" -eq 1 ] || { echo "FAIL: expected exit status 1"; fail=1; }
grep -q "ERROR:  canceling statement due to user request" "$err" || { echo "FAIL: no cancel message"; fail=1; }
[ "$elapsed_ms" -lt 1000 ] || { echo "FAIL: took ${elapsed_ms} ms to stop (limit 1000)"; fail=1; }
exit $fail
