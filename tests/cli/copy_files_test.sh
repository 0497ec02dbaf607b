#!/usr/bin/env bash
# COPY ... TO and directory tables from the command line (issue 13, items 9 and 12):
#   - a COPY killed with SIGKILL leaves its ".shoal-tmp-<pid>-..." file; a table over the
#     directory never reads it, and the next write into the directory removes it;
#   - COPY over a read-only file is refused with PostgreSQL's permission-denied error and leaves
#     the file as it was; replacing a writable file keeps its mode;
#   - EXPLAIN names the files a directory table reads, on one node and across workers, and leaves
#     out _SUCCESS, README.txt and hidden files.
# Usage: copy_files_test.sh <path to shoal>
set -u
shoal=$1
dir=$(mktemp -d)
trap 'kill -KILL "${pid:-}" 2>/dev/null; rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# Polls `$@` (a command) for up to 60 s; fails naming $what on timeout.
wait_for() {
  local deadline=$((SECONDS + 60))
  until "$@"; do
    [ $SECONDS -lt $deadline ] || fail "timed out waiting for $what"
    sleep 0.01  # the poll interval
  done
}

data=$dir/data
mkdir "$data"
"$shoal" sql -c "COPY (SELECT 1 AS k UNION ALL SELECT 2) TO '$data/a.csv'" >/dev/null ||
  fail "COPY of a.csv failed"

# A COPY that writes for minutes (a join of billions of rows), killed once its temporary exists.
"$shoal" sql --tpch 0.01 -c "COPY (SELECT a.l_orderkey FROM lineitem a JOIN lineitem b ON \
a.l_linenumber = b.l_linenumber) TO '$data/big.csv'" >"$dir/out" 2>"$dir/err" &
pid=$!
temporaries() { ls -A "$data" | grep '^\.shoal-tmp-' ; }
has_growing_temporary() {
  local t
  t=$(temporaries | head -1)
  [ -n "$t" ] && [ "$(stat -c %s "$data/$t" 2>/dev/null || echo 0)" -gt 0 ]
}
what="the COPY's temporary file" wait_for has_growing_temporary
kill -0 "$pid" 2>/dev/null || fail "the COPY ended before it could be killed: $(cat "$dir/err")"
kill -KILL "$pid"
wait "$pid" 2>/dev/null
stale=$(temporaries)
[ -n "$stale" ] || fail "no temporary left behind by the killed COPY (test cannot show cleanup)"
grep -q "^\.shoal-tmp-$pid-" <<<"$stale" || fail "temporary not named after its process: $stale"
[ -e "$data/big.csv" ] && fail "the killed COPY published big.csv"

# A table over the directory reads a.csv only, not the stale temporary.
count=$("$shoal" sql --format csv -c "CREATE EXTERNAL TABLE t STORED AS CSV LOCATION '$data' OPTIONS ('header' 'true')" \
  -c "SELECT count(*) AS n FROM t" 2>&1) || fail "reading the directory failed: $count"
grep -qx "2" <<<"$count" || fail "the directory table read more than a.csv: $count"

# The next write into the directory removes the dead process's temporary.
"$shoal" sql -c "COPY (SELECT 3 AS k) TO '$data/c.csv'" >/dev/null || fail "COPY of c.csv failed"
[ -z "$(temporaries)" ] || fail "stale temporary not removed: $(temporaries)"
[ -f "$data/c.csv" ] || fail "c.csv not written"

# COPY over a read-only file: refused with 42501, the file untouched.
echo "keep me" >"$data/ro.csv"
chmod 0444 "$data/ro.csv"
err=$("$shoal" sql -c "COPY (SELECT 1 AS k) TO '$data/ro.csv'" 2>&1 >/dev/null)
rc=$?
[ "$rc" -eq 1 ] || fail "COPY over a read-only file exited with $rc: $err"
grep -q "could not open file \"$data/ro.csv\" for writing: Permission denied" <<<"$err" ||
  fail "unclear error for a read-only file: $err"
[ "$(cat "$data/ro.csv")" = "keep me" ] || fail "the read-only file changed"
[ "$(stat -c %a "$data/ro.csv")" = 444 ] || fail "the read-only file's mode changed"
# Replacing a writable file keeps its mode.
chmod 0640 "$data/c.csv"
"$shoal" sql -c "COPY (SELECT 4 AS k) TO '$data/c.csv'" >/dev/null || fail "rewriting c.csv failed"
[ "$(stat -c %a "$data/c.csv")" = 640 ] || fail "replacing c.csv changed its mode to $(stat -c %a "$data/c.csv")"
grep -qx 4 "$data/c.csv" || fail "c.csv was not replaced"

# EXPLAIN names the files read; Spark's marker, a README and hidden files are left out.
pq=$dir/pq
mkdir "$pq"
"$shoal" sql -c "COPY (SELECT 1 AS k) TO '$pq/part-0.parquet'" \
  -c "COPY (SELECT 2 AS k) TO '$pq/part-1.parquet'" >/dev/null || fail "writing Parquet failed"
touch "$pq/_SUCCESS" "$pq/.part-0.parquet.crc"
echo "not data" >"$pq/README.txt"
for mode in "" "--workers inproc:3"; do
  # shellcheck disable=SC2086
  out=$("$shoal" sql $mode --format csv -c "CREATE EXTERNAL TABLE p STORED AS PARQUET LOCATION '$pq'" \
    -c "SELECT sum(k) AS s FROM p" -c "EXPLAIN SELECT sum(k) FROM p" 2>&1) ||
    fail "directory table ($mode) failed: $out"
  grep -qx 3 <<<"$out" || fail "wrong sum ($mode): $out"
  grep -q "2 files: $pq/part-0.parquet, $pq/part-1.parquet" <<<"$out" ||
    fail "EXPLAIN ($mode) does not name the files read: $out"
done
echo "copy and directory files: ok"
