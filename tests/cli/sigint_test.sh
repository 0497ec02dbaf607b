#!/usr/bin/env bash
# Ctrl-C in `shoal sql`: SIGINT cancels the running statement within a second, prints
# PostgreSQL's "canceling statement due to user request", and -c mode exits with status 1.
# Usage: sigint_test.sh <path to shoal>
set -u
shoal=$1
dir=$(mktemp -d)
trap 'kill -KILL "${pid:-}" 2>/dev/null; rm -rf "$dir"' EXIT
out=$dir/out
err=$dir/err

# CPU time (user + system) of process $1 in clock ticks (100 a second), from /proc/PID/stat.
cpu_ticks() {
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || { echo -1; return; }
  stat=${stat##*) }  # the fields after the command name
  read -r -a f <<<"$stat"
  echo $((f[11] + f[12]))
}

# Polls `$@` (a command) for up to 60 s; fails the test naming $what on timeout.
wait_for() {
  local deadline=$((SECONDS + 60))
  until "$@"; do
    if [ $SECONDS -ge $deadline ]; then
      echo "FAIL: timed out waiting for $what"; cat "$err"; exit 1
    fi
    sleep 0.01  # the poll interval
  done
}

# A marker statement, then billions of joined rows: runs for minutes unless cancelled. The
# marker's result appears (stdout is flushed per statement) once the TPC-H tables exist and the
# long statement starts.
"$shoal" sql --tpch 0.01 -c "SELECT 'marker'" \
  -c "SELECT count(*) FROM lineitem a JOIN lineitem b ON a.l_linenumber = b.l_linenumber JOIN lineitem c ON b.l_linenumber = c.l_linenumber" \
  >"$out" 2>"$err" &
pid=$!
marker_printed() { grep -q marker "$out"; }
what="the marker statement's result" wait_for marker_printed
# The statement runs: the process burns CPU on the join (a quarter second of it).
base=$(cpu_ticks "$pid")
joining() { [ "$(cpu_ticks "$pid")" -ge $((base + 25)) ]; }
what="the join to run" wait_for joining
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
grep -q "count" "$out" && { echo "FAIL: the cancelled statement printed a result"; fail=1; }
[ "$elapsed_ms" -lt 1000 ] || { echo "FAIL: took ${elapsed_ms} ms to stop (limit 1000)"; fail=1; }
exit $fail
