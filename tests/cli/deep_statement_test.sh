#!/usr/bin/env bash
# Statements of any depth end in an answer or in SQLSTATE 54001 with exit status 1, never in a
# signal (issue 13, item 8: 30,000 terms used to crash with SIGSEGV); invalid UTF-8 is 22021; and
# stderr carries only Shoal's own lines. Usage: deep_statement_test.sh <path to shoal>
set -u
shoal=$1
fail() { echo "FAIL: $*"; exit 1; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
chain() {  # chain N OPERATOR TERM: SELECT TERM OP TERM ... (N terms)
  python3 -c "import sys; n, op, t = int(sys.argv[1]), sys.argv[2], sys.argv[3]; print('SELECT ' + op.join([t] * n) + ';')" "$@"
}
# Each case: file, then what stdout or stderr must show (an answer, or 54001).
chain 30000 + 1 >"$dir/plus30k.sql"
chain 60000 '||' "'x'" >"$dir/cat60k.sql"
python3 -c "print('SELECT 1 + ' + '(' * 50000 + '1' + ')' * 50000 + ';')" >"$dir/parens50k.sql"
# A 5,000-way UNION ALL (nested unions used to be cubic in the arms: over 6 minutes).
python3 -c "print('SELECT count(*) FROM (' + ' UNION ALL '.join(['SELECT 1 AS x'] * 5000) + ') u;')" \
  >"$dir/union5k.sql"
for f in plus30k cat60k parens50k union5k; do
  out=$("$shoal" sql -f "$dir/$f.sql" 2>"$dir/$f.err")
  rc=$?
  printf '%s\n' "$out" >"$dir/$f.out"
  err=$(cat "$dir/$f.err")
  [ "$rc" -le 1 ] || fail "$f: exit status $rc (a signal?): $err"
  if [ "$rc" -eq 1 ]; then
    # 54001, or (50,000 parentheses) the grammar's own nesting limit, as PostgreSQL's parser
    # reports it: 'memory exhausted at or near "("'.
    grep -q "54001\|stack depth limit exceeded\|memory exhausted at or near" <<<"$err" ||
      fail "$f: error other than 54001: $(head -c 500 <<<"$err")"
  else
    [ -n "$out" ] || fail "$f: no answer and no error"
  fi
  # Only Shoal's lines on stderr: no gRPC/protobuf/libpg_query log lines.
  if grep -v "^shoal:[^ ]*: ERROR\|^ERROR\|^HINT\|^DETAIL\|^LINE\|^ *\^\|^CONTEXT\|^psql\|^  " <<<"$err" | grep -q .; then
    fail "$f: foreign lines on stderr: $(head -c 500 <<<"$err")"
  fi
  echo "$f: exit $rc"
done
grep -qx ' *5000' "$dir/union5k.out" || fail "union5k: the count is not 5000: $(head -c 300 "$dir/union5k.out")"

# The same through 3 in-process workers (plans travel through the codec).
out=$("$shoal" sql --workers inproc:3 -f "$dir/plus30k.sql" 2>"$dir/w.err")
rc=$?
[ "$rc" -le 1 ] || fail "inproc plus30k: exit status $rc: $(cat "$dir/w.err")"
# Invalid UTF-8: 22021 naming the byte, before the parser sees it.
printf "SELECT 'ab\xc3(';\n" >"$dir/utf8.sql"
err=$("$shoal" sql -f "$dir/utf8.sql" 2>&1 >/dev/null)
rc=$?
[ "$rc" -eq 1 ] || fail "invalid UTF-8: exit status $rc"
grep -q 'invalid byte sequence for encoding "UTF8": 0xc3 0x28' <<<"$err" ||
  fail "invalid UTF-8: unclear error: $err"
echo "deep statements: ok"
