#!/usr/bin/env bash
# `shoal sql -f FILE`: an error names the file and the line where the failing statement ends, then
# shows "LINE n:" and the caret within that statement, as psql does ("psql:FILE:LINE: ERROR:");
# an unsupported statement (MERGE, TRUNCATE, ...) is named in words with what Shoal runs instead.
# Usage: sql_file_errors_test.sh <path to shoal>
set -u
shoal=$1
fail() { printf 'FAIL: %s\n' "$*"; exit 1; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

printf 'SELECT 1;\n\nCREATE TABLE t (total int);\nSELECT\n  total,\n  totl\nFROM t;\nSELECT 3;\n' \
  >"$dir/bad_column.sql"
err=$("$shoal" sql -f "$dir/bad_column.sql" 2>&1 >/dev/null)
rc=$?
[ "$rc" -eq 1 ] || fail "bad column: exit status $rc"
expected="shoal:$dir/bad_column.sql:7: ERROR:  column \"totl\" does not exist
LINE 3:   totl
          ^"
[ "${err%%$'\n'HINT*}" = "$expected" ] || fail "bad column: got
$err
expected
$expected"

# A meta-command in between: lines still count from the top of the file.
printf '\\timing off\nSELECT 1;\nSELECT nosuch FROM\n  nowhere;\n' >"$dir/meta.sql"
err=$("$shoal" sql -f "$dir/meta.sql" 2>&1 >/dev/null)
expected="shoal:$dir/meta.sql:4: ERROR:  relation \"nowhere\" does not exist
LINE 2:   nowhere;
          ^"
[ "${err%%$'\n'HINT*}" = "$expected" ] || fail "after a meta-command: got
$err
expected
$expected"

# A syntax error: the line of the error itself.
printf 'SELECT 1;\nSELECT 2;\nSELEC 3;\n' >"$dir/syntax.sql"
err=$("$shoal" sql -f "$dir/syntax.sql" 2>&1 >/dev/null)
grep -q "^shoal:$dir/syntax.sql:3: ERROR:  syntax error at or near \"SELEC\"" <<<"$err" ||
  fail "syntax error: $err"
grep -q '^LINE 1: SELEC 3;' <<<"$err" || fail "syntax error without LINE: $err"

# Unsupported statements are named, with SQLSTATE 0A000's advice.
printf 'CREATE TABLE t (a int);\nTRUNCATE t;\n' >"$dir/truncate.sql"
err=$("$shoal" sql -f "$dir/truncate.sql" 2>&1 >/dev/null)
grep -q "^shoal:$dir/truncate.sql:2: ERROR:  TRUNCATE is not supported" <<<"$err" ||
  fail "TRUNCATE: $err"
grep -q "^HINT:  Tables accept INSERT, UPDATE and DELETE" <<<"$err" ||
  fail "TRUNCATE without a hint: $err"
for stmt in "MERGE INTO t USING t AS s ON true WHEN MATCHED THEN DELETE" \
  "REINDEX TABLE t" "GRANT SELECT ON t TO public" "TRUNCATE t" "BEGIN"; do
  err=$("$shoal" sql -c "CREATE TABLE t (a int)" -c "$stmt" 2>&1 >/dev/null)
  word=${stmt%% *}
  [ "$word" = BEGIN ] && word="BEGIN / COMMIT / ROLLBACK"
  grep -q "^ERROR:  $word is not supported" <<<"$err" || fail "$stmt: $err"
  grep -q "statement type" <<<"$err" && fail "$stmt: numeric statement type: $err"
done
echo "sql file errors: ok"
