#!/bin/bash
# Records PostgreSQL 15's answers to psql's describe commands over setup.sql into expected/: run
# as root on a machine with Debian's postgresql-15 (pg_ctlcluster 15 main start). The objects
# are created by a role "tester" (with the attributes Shoal gives every user: superuser, create
# role, create DB, bypass RLS), the user the integration test connects to `shoal server` as,
# so owners agree; the database is "shoal", with the C collation Shoal compares text in (\l shoal
# lists it alone: PostgreSQL has postgres and the templates too, Shoal has one database).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
pg() { su postgres -c "psql -X -q -v ON_ERROR_STOP=1 $*"; }
pg -c "'drop database if exists shoal'"
pg -c "'drop role if exists tester'" || true
pg -c "'create role tester superuser createrole createdb bypassrls login'"
pg -c "'create database shoal owner tester template template0 lc_collate \"C\" lc_ctype \"C\"'"
(echo "set session authorization tester;"; cat "$here/setup.sql") | su postgres -c "psql -X -q -v ON_ERROR_STOP=1 -d shoal"
mkdir -p "$here/expected"
i=0
while IFS= read -r command; do
  i=$((i + 1))
  out="$here/expected/$(printf %02d $i).out"
  su postgres -c "psql -X -d shoal -c '$command'" > "$out" 2>&1
done < "$here/commands.txt"
pg -c "'drop database shoal'"
pg -c "'drop role tester'"
