#!/bin/bash
# Records the statements pgJDBC, psycopg 3 and node-postgres send to PostgreSQL 15 when they
# connect and run the programs of this directory (JdbcMetadata.java: getTables, getColumns,
# getPrimaryKeys), into <client>.jsonl: one {"sql": ..., "params": [...]} per statement. Run as
# root with Debian's postgresql-15 running; log_statement is turned on for the run and restored.
# A statement is the client's whose session (%c) names it in application_name, also the ones
# logged before the client set that name (pgJDBC's SET statements).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
pg() { su postgres -c "psql -X -q -v ON_ERROR_STOP=1 $*"; }
pg -c "'drop database if exists shoal'"
pg -c "'drop role if exists tester'"
pg -c "\"create role tester superuser createrole createdb bypassrls login password 'tester'\""
pg -c "'create database shoal owner tester template template0 lc_collate \"C\" lc_ctype \"C\"'"
(echo "set session authorization tester;"; cat "$here/../psql_describe/setup.sql") |
  su postgres -c "psql -X -q -v ON_ERROR_STOP=1 -d shoal"
log=$(su postgres -c "psql -X -At -c 'select pg_current_logfile()'" || true)
pg -c "\"alter system set log_statement = 'all'\""
pg -c "\"alter system set log_line_prefix = '@@%c|%a@@ '\""
pg -c "'select pg_reload_conf()'"
sleep 1
datadir=$(su postgres -c "psql -X -At -c 'show data_directory'")
logfile=/var/log/postgresql/postgresql-15-main.log
start=$(wc -l < "$logfile")
java -cp /usr/share/java/postgresql.jar "$here/JdbcMetadata.java" \
  "jdbc:postgresql://127.0.0.1:5432/shoal?ApplicationName=pgjdbc&password=tester" tester \
  > "$here/pgjdbc.out"
/usr/bin/python3 "$here/psycopg_client.py" \
  "host=127.0.0.1 port=5432 dbname=shoal user=tester password=tester application_name=psycopg"
node "$here/node_pg_client.mjs" 5432 tester tester
sleep 1
pg -c "'alter system reset log_statement'"
pg -c "'alter system reset log_line_prefix'"
pg -c "'select pg_reload_conf()'"
tail -n +"$((start + 1))" "$logfile" | /usr/bin/python3 "$here/parse_log.py" "$here"
pg -c "'drop database shoal'"
pg -c "'drop role tester'"
