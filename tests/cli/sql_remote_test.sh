#!/usr/bin/env bash
# `shoal sql --host` against `shoal server --tpch 0.01`: the same statements print exactly what
# the in-process `shoal sql --tpch 0.01` prints (stdout, stderr and exit status), for -c (several
# statements, every output format) and for -f files with errors (file, line, LINE n and caret);
# a postgresql:// URL; Ctrl-C cancels the statement on the server; a SCRAM-authenticated
# connection with PGPASSWORD or --password-file, a wrong or missing password; flags of the other
# mode refused.
# Usage: sql_remote_test.sh <path to shoal>
set -u
shoal=$1
dir=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; done
  rm -rf "$dir"
}
trap cleanup EXIT
fail() {
  printf 'FAIL: %s\n' "$*"
  exit 1
}
# No settings of the developer's leak in: no PG* variables, no ~/.pgpass.
unset PGHOST PGPORT PGUSER PGDATABASE PGPASSWORD PGPASSFILE PGSSLMODE PGSSLROOTCERT PGAPPNAME
export HOME=$dir

# Polls `$@` for up to 120 s.
wait_for() {
  local deadline=$((SECONDS + 120))
  until "$@"; do
    [ $SECONDS -lt $deadline ] || fail "timed out waiting for $what"
    sleep 0.05
  done
}

# start_server NAME ARGS...: a server on an OS-chosen port; sets $port and $server_pid.
start_server() {
  local name=$1
  shift
  "$shoal" server --listen 127.0.0.1:0 --data-dir "$dir/$name" "$@" >"$dir/$name.log" 2>&1 &
  server_pid=$!
  pids+=("$server_pid")
  listening() { grep -q 'listening on' "$dir/$name.log" || ! kill -0 "$server_pid" 2>/dev/null; }
  what="server $name to listen" wait_for listening
  port=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$dir/$name.log")
  [ -n "$port" ] || fail "server $name did not start: $(cat "$dir/$name.log")"
}

start_server plain --tpch 0.01
plain_port=$port
plain_pid=$server_pid

# same LABEL ARGS...: `shoal sql ARGS` in process and against the server print the same.
same() {
  local label=$1
  shift
  "$shoal" sql --tpch 0.01 "$@" >"$dir/local.out" 2>"$dir/local.err"
  local lrc=$?
  "$shoal" sql --host 127.0.0.1 --port "$plain_port" "$@" >"$dir/remote.out" 2>"$dir/remote.err"
  local rrc=$?
  [ "$lrc" -eq "$rrc" ] || fail "$label: exit status $lrc in process, $rrc remote: $(cat "$dir/remote.err")"
  cmp -s "$dir/local.out" "$dir/remote.out" ||
    fail "$label: stdout differs: $(diff "$dir/local.out" "$dir/remote.out" | head -20)"
  cmp -s "$dir/local.err" "$dir/remote.err" ||
    fail "$label: stderr differs: $(diff "$dir/local.err" "$dir/remote.err" | head -20)"
  [ -s "$dir/local.out" ] || [ -s "$dir/local.err" ] || fail "$label: no output at all"
}

q1="SELECT l_returnflag, l_linestatus, sum(l_quantity) AS sum_qty, avg(l_discount) AS avg_disc,
  count(*) AS count_order, min(l_shipdate) AS first_ship FROM lineitem
  GROUP BY l_returnflag, l_linestatus ORDER BY l_returnflag, l_linestatus"
types="SELECT true AS t, NULL::boolean AS n, 7::smallint AS i2, 3000000000 AS i8, 1.5::real AS f4,
  0.1::float8 AS f8, 'NaN'::float8 AS nan, 123.45::numeric(10, 2) AS d, 'two
lines' AS s, '\\x00ff'::bytea AS by, date '2024-02-29' AS dt,
  timestamp '2024-01-02 03:04:05.123456' AS ts, interval '1 year 2 months 3 days 4 hours 5 minutes 6.5 seconds' AS iv,
  interval '-1 day 2 hours' AS iv2, timestamptz '2024-01-02 03:04:05+02' AS tz"
# remote_has TEXT: the last remote run printed TEXT (so a comparison of two errors passes nothing).
remote_has() { grep -qF -- "$1" "$dir/remote.out" || fail "no '$1' in: $(cat "$dir/remote.out" "$dir/remote.err")"; }
for format in table csv json; do
  same "q1 $format" --format "$format" -c "$q1"
  remote_has count_order
  same "types $format" --format "$format" -c "$types"
  remote_has "-1 days +02:00:00"
done
same "several statements" -c "CREATE TABLE remote_t (a int, b text); INSERT INTO remote_t VALUES (1, 'x'), (2, NULL);
SELECT * FROM remote_t ORDER BY a; DROP TABLE remote_t" -c "SELECT n_name FROM nation WHERE n_nationkey < 3 ORDER BY 1"
same "no rows" -c "SELECT * FROM region WHERE r_regionkey < 0"
same "an error in -c" -c "SELECT 1; SELECT nosuch FROM nation"
same "a meta-command" -c "SELECT 1" -c '\q' -c "SELECT 2"

printf 'SELECT count(*) FROM orders;\n\nCREATE TABLE remote_f (total int);\nSELECT\n  total,\n  totl\nFROM remote_f;\nSELECT 3;\n' \
  >"$dir/bad_column.sql"
same "-f with a bad column" -f "$dir/bad_column.sql" -c "DROP TABLE remote_f"
"$shoal" sql --host 127.0.0.1 --port "$plain_port" -c "DROP TABLE remote_f" >/dev/null 2>&1
printf 'SELECT 1;\nSELECT 2;\nSELEC 3;\n' >"$dir/syntax.sql"
same "-f with a syntax error" -f "$dir/syntax.sql"
grep -q "^shoal:$dir/syntax.sql:3: ERROR:  syntax error at or near \"SELEC\"" "$dir/remote.err" ||
  fail "syntax error report: $(cat "$dir/remote.err")"
printf 'SELECT r_name FROM region ORDER BY 1;\nSELECT * FROM natoin;\n' >"$dir/no_table.sql"
same "-f with an unknown table" -f "$dir/no_table.sql"

# COPY ... TO STDOUT: the rows on stdout and no tag, as psql prints them.
out=$("$shoal" sql --host 127.0.0.1 --port "$plain_port" -c "COPY (SELECT 1, 'a b') TO STDOUT" 2>&1)
[ "$out" = "$(printf '1\ta b')" ] || fail "COPY TO STDOUT: $out"

# A postgresql:// URL, as an argument or as --dbname.
out=$("$shoal" sql "postgresql://tester@127.0.0.1:$plain_port/shoal?sslmode=disable" -c "SELECT 41 + 1 AS answer" 2>&1)
[ "$out" = "$(printf ' answer \n--------\n     42\n(1 row)\n')" ] || fail "URL: $out"
out=$("$shoal" sql -d "postgres://127.0.0.1:$plain_port/x" -c "SELECT 'url' AS how" --format csv 2>&1)
[ "$out" = "$(printf 'how\nurl')" ] || fail "URL in --dbname: $out"

# Flags of the other mode, bad URLs, and no server.
err=$("$shoal" sql --host 127.0.0.1 --port "$plain_port" --tpch 0.01 -c "SELECT 1" 2>&1) &&
  fail "--tpch with --host was accepted"
grep -q "^ERROR:  --tpch sets up the engine in this process" <<<"$err" || fail "--tpch with --host: $err"
err=$("$shoal" sql --port "$plain_port" -c "SELECT 1" 2>&1) && fail "--port without --host was accepted"
grep -q "^ERROR:  --port applies to a server" <<<"$err" || fail "--port alone: $err"
err=$("$shoal" sql "postgresql://tester:secret@127.0.0.1:$plain_port/shoal" -c "SELECT 1" 2>&1) &&
  fail "a password in the URL was accepted"
grep -q "^ERROR:  a password in the connection URL is refused" <<<"$err" || fail "URL password: $err"
err=$("$shoal" sql --host 127.0.0.1 --port 1 -c "SELECT 1" 2>&1) && fail "port 1 connected"
grep -q 'connection to server at "127.0.0.1" (127.0.0.1), port 1 failed: Connection refused' <<<"$err" ||
  fail "refused connection: $err"

# Ctrl-C: the statement running on the server is cancelled (57014) within a second.
cpu_ticks() {
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || { echo -1; return; }
  stat=${stat##*) }
  read -r -a f <<<"$stat"
  echo $((f[11] + f[12]))
}
"$shoal" sql --host 127.0.0.1 --port "$plain_port" -c "SELECT 'marker'" \
  -c "SELECT count(*) FROM lineitem a JOIN lineitem b ON a.l_linenumber = b.l_linenumber JOIN lineitem c ON b.l_linenumber = c.l_linenumber" \
  >"$dir/cancel.out" 2>"$dir/cancel.err" &
client=$!
pids+=("$client")
marker_printed() { grep -q marker "$dir/cancel.out"; }
what="the marker statement's result" wait_for marker_printed
base=$(cpu_ticks "$plain_pid")
joining() { [ "$(cpu_ticks "$plain_pid")" -ge $((base + 25)) ]; }
what="the server to run the join" wait_for joining
kill -0 "$client" 2>/dev/null || fail "the query ended before it could be interrupted"
start=$(date +%s%N)
kill -INT "$client"
wait "$client"
rc=$?
elapsed_ms=$((($(date +%s%N) - start) / 1000000))
[ "$rc" -eq 1 ] || fail "Ctrl-C: exit status $rc: $(cat "$dir/cancel.err")"
grep -q "^ERROR:  canceling statement due to user request" "$dir/cancel.err" ||
  fail "Ctrl-C: $(cat "$dir/cancel.err")"
[ "$elapsed_ms" -lt 1000 ] || fail "Ctrl-C took ${elapsed_ms} ms (limit 1000)"
# The server is free again: its CPU time stops growing.
idle() {
  local a
  a=$(cpu_ticks "$plain_pid")
  sleep 0.3
  [ $(($(cpu_ticks "$plain_pid") - a)) -lt 5 ]
}
what="the server to stop the cancelled join" wait_for idle

# SCRAM-SHA-256: a server whose rules want a password for every connection.
mkdir -p "$dir/auth"
printf 'host all all all scram-sha-256\n' >"$dir/auth/hba.conf"
printf 'correct horse\n' | "$shoal" server passwd alice --data-dir "$dir/auth" 2>/dev/null ||
  fail "shoal server passwd"
start_server auth
auth_port=$port
out=$(PGPASSWORD='correct horse' "$shoal" sql --host 127.0.0.1 --port "$auth_port" -U alice \
  -c "SELECT 1 AS one" 2>&1) || fail "SCRAM with PGPASSWORD: $out"
[ "$out" = "$(printf ' one \n-----\n   1\n(1 row)\n')" ] || fail "SCRAM with PGPASSWORD: $out"
err=$(PGPASSWORD='wrong' "$shoal" sql --host 127.0.0.1 --port "$auth_port" -U alice -c "SELECT 1" 2>&1) &&
  fail "a wrong password connected"
grep -q '^ERROR:  password authentication failed for user "alice"' <<<"$err" || fail "wrong password: $err"
printf '127.0.0.1:%s:*:alice:correct horse\n' "$auth_port" >"$dir/pgpass"
chmod 600 "$dir/pgpass"
out=$("$shoal" sql "postgresql://alice@127.0.0.1:$auth_port/shoal" --password-file "$dir/pgpass" \
  --format csv -c "SELECT 'file' AS pw" 2>&1) || fail "--password-file: $out"
[ "$out" = "$(printf 'pw\nfile')" ] || fail "--password-file: $out"
chmod 644 "$dir/pgpass"
err=$("$shoal" sql --host 127.0.0.1 --port "$auth_port" -U alice --password-file "$dir/pgpass" -c "SELECT 1" 2>&1) &&
  fail "a password file others may read was used"
grep -q "group or world access" <<<"$err" || fail "readable password file: $err"
# No password and no terminal to ask on (setsid: no controlling terminal).
err=$(setsid -w "$shoal" sql --host 127.0.0.1 --port "$auth_port" -U alice -c "SELECT 1" 2>&1 </dev/null) &&
  fail "no password connected"
grep -q "^ERROR:  the server asks for a password and there is no terminal to ask it on" <<<"$err" ||
  fail "no password: $err"
grep -q "^HINT:  set PGPASSWORD" <<<"$err" || fail "no password, no hint: $err"

# TLS: sslmode=require over the server's certificate; then the server stops (SIGTERM) while the
# connection is open and exits with status 0 (OpenSSL's writes to the closed socket once raised
# SIGPIPE and ended it with 141).
bash "$(dirname "${BASH_SOURCE[0]}")/../../scripts/make-test-certs.sh" "$dir/certs" >/dev/null ||
  fail "make-test-certs.sh"
start_server tls --tls-cert "$dir/certs/node.pem" --tls-key "$dir/certs/node.key"
tls_port=$port
tls_pid=$server_pid
out=$("$shoal" sql --host 127.0.0.1 --port "$tls_port" --sslmode verify-full \
  --sslrootcert "$dir/certs/ca.pem" --format csv -c "SELECT 'tls' AS how" 2>&1) || fail "verify-full: $out"
[ "$out" = "$(printf 'how\ntls')" ] || fail "verify-full: $out"
err=$("$shoal" sql --host 127.0.0.1 --port "$plain_port" --sslmode require -c "SELECT 1" 2>&1) &&
  fail "sslmode=require connected to a server without TLS"
grep -q "server does not support SSL, but SSL was required" <<<"$err" || fail "require: $err"
# An idle connection: `shoal sql` connects, then waits for its script on stdin.
mkfifo "$dir/script"
"$shoal" sql --host 127.0.0.1 --port "$tls_port" --sslmode require -f - <"$dir/script" \
  >"$dir/idle.out" 2>&1 &
idle=$!
pids+=("$idle")
exec 3>"$dir/script"
# Established (state 01) with the server's port as the remote end: /proc/net/tcp lists it.
connected() { grep -q ":$(printf '%04X' "$tls_port") 01 " /proc/net/tcp; }
what="the idle TLS connection" wait_for connected
kill -TERM "$tls_pid"
wait "$tls_pid"
rc=$?
exec 3>&-
wait "$idle"
[ "$rc" -eq 0 ] || fail "the TLS server stopped with exit status $rc: $(cat "$dir/tls.log")"
echo "sql remote: ok"
