// What PostgreSQL clients ask `shoal server`'s system catalogs (issue 14 item 3), against answers
// recorded from PostgreSQL 15:
//  1. psql's describe commands (\d, \dt, \dv, \di, \dn, \df, \l, \d TABLE) over the objects of
//     tests/server/psql_describe/setup.sql print what PostgreSQL printed
//     (tests/server/psql_describe/expected/, recorded by record.sh there);
//  2. the statements pgJDBC, psycopg 3 and node-postgres sent to PostgreSQL while connecting and
//     reading metadata (tests/server/client_queries/*.jsonl, recorded by record.sh there) run
//     without error, with their parameters, over the extended protocol;
//  3. the client programs themselves: pgJDBC's DatabaseMetaData.getTables / getColumns list the
//     tables and columns PostgreSQL listed, psycopg 3 and node-postgres run their queries.
// Connections are made as user "tester", the role record.sh creates the objects as in
// PostgreSQL, so owners agree.
//
// Usage: node tests/integration/server_catalog.mjs <path to shoal>
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';

import { WaitFor } from './wait.mjs';

const here = path.dirname(new URL(import.meta.url).pathname);
const serverDir = path.join(here, '../server');
const require = createRequire(path.join(serverDir, 'package.json'));
const pg = require('pg');

const shoal = process.argv[2];
if (!shoal) {
  console.error('usage: node server_catalog.mjs <shoal binary>');
  process.exit(2);
}
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'shoal-catalog-'));
const children = [];
process.on('exit', () => {
  for (const c of children) {
    if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  }
  fs.rmSync(tmp, { recursive: true, force: true });
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(1));

let failures = 0;
function Fail(message) {
  console.error(`FAIL: ${message}`);
  failures++;
}

const log = path.join(tmp, 'server.log');
{
  const fd = fs.openSync(log, 'w');
  children.push(spawn(shoal, ['server', '--data-dir', path.join(tmp, 'data'), '--listen',
                              '127.0.0.1:0', '--threads', '4'], { stdio: ['ignore', fd, fd] }));
  fs.closeSync(fd);
}
const port = Number(await WaitFor(() => {
  const m = fs.readFileSync(log, 'utf8').match(/listening on 127\.0\.0\.1:(\d+)/);
  return m ? m[1] : false;
}, 'the server to listen', 120000));

function Psql(args) {
  return spawnSync('psql', ['-X', '-h', '127.0.0.1', '-p', String(port), '-U', 'tester', '-d',
                            'shoal', ...args],
                   { encoding: 'utf8', timeout: 60000, env: { ...process.env, PGCONNECT_TIMEOUT: '10' } });
}

// ---- 1. psql's describe commands -----------------------------------------------------------------
const describe = path.join(serverDir, 'psql_describe');
{
  const r = Psql(['-q', '-v', 'ON_ERROR_STOP=1', '-f', path.join(describe, 'setup.sql')]);
  if (r.status !== 0) {
    console.error(`setup.sql failed: ${r.stderr}`);
    process.exit(1);
  }
}
const commands = fs.readFileSync(path.join(describe, 'commands.txt'), 'utf8').split('\n')
  .filter((line) => line.trim() !== '');
commands.forEach((command, i) => {
  const expected = fs.readFileSync(path.join(describe, 'expected',
                                             `${String(i + 1).padStart(2, '0')}.out`), 'utf8');
  const r = Psql(['-c', command]);
  const actual = r.stdout + r.stderr;
  if (actual !== expected)
    Fail(`psql ${command}:\n--- expected (PostgreSQL 15)\n${expected}--- got\n${actual}`);
  else
    console.log(`ok psql ${command}`);
});

// ---- 2. the recorded statements of pgJDBC, psycopg 3 and node-postgres ----------------------------
// Statements Shoal cannot run yet, each with the reason; everything else must succeed.
const knownGaps = new Map([
  // getPrimaryKeys: a set-returning function with a composite result (_pg_expandarray), which
  // Shoal has no types for.
  ['information_schema._pg_expandarray', 'composite types and set-returning functions in SELECT'],
]);
const queries = path.join(serverDir, 'client_queries');
{
  const client = new pg.Client({ host: '127.0.0.1', port, user: 'tester', database: 'shoal' });
  await client.connect();
  for (const file of ['pgjdbc.jsonl', 'psycopg.jsonl', 'node-pg.jsonl']) {
    const lines = fs.readFileSync(path.join(queries, file), 'utf8').split('\n').filter(Boolean);
    for (const line of lines) {
      const { sql, params } = JSON.parse(line);
      const gap = [...knownGaps.keys()].find((k) => sql.includes(k));
      try {
        await client.query(sql, params);
        if (gap) Fail(`${file}: now runs, remove it from knownGaps: ${sql.slice(0, 100)}`);
      } catch (e) {
        if (!gap) Fail(`${file}: ${e.code} ${e.message} in ${sql.slice(0, 200)}`);
      }
    }
    console.log(`ok ${file}: ${lines.length} statements`);
  }
  await client.end();
}

// ---- 3. the client programs ----------------------------------------------------------------------
{
  const r = spawnSync('java', ['-cp', '/usr/share/java/postgresql.jar',
                               path.join(queries, 'JdbcMetadata.java'),
                               `jdbc:postgresql://127.0.0.1:${port}/shoal`, 'tester'],
                      { encoding: 'utf8', timeout: 120000 });
  // What PostgreSQL printed for the same program (record.sh's run: pgjdbc.out), but
  // getPrimaryKeys (a known gap, above).
  const withoutKeys = (text) => text.split('\n').filter((l) => !l.startsWith('primary key'))
    .join('\n').trim();
  const expected = withoutKeys(fs.readFileSync(path.join(queries, 'pgjdbc.out'), 'utf8'));
  const got = withoutKeys(r.stdout);
  if (got !== expected)
    Fail(`pgJDBC DatabaseMetaData:\n--- expected\n${expected}\n--- got\n${got}\n${r.stderr}`);
  else
    console.log('ok pgJDBC getTables / getColumns');
}
{
  const r = spawnSync('/usr/bin/python3', [path.join(queries, 'psycopg_client.py'),
                                           `host=127.0.0.1 port=${port} dbname=shoal user=tester`],
                      { encoding: 'utf8', timeout: 60000 });
  const expected = "psycopg 2\npsycopg tables ['big_orders', 'customers', 'orders']\n" +
    "psycopg arrays ([1, None, 3], ['x', 'y z'], [[1], [2]])\n" +
    "psycopg binary arrays ([1, None, 3], ['x', 'y z'], [[1], [2]])\n";
  if (r.stdout !== expected) Fail(`psycopg: ${r.stdout} ${r.stderr}`);
  else console.log('ok psycopg');
}
{
  const r = spawnSync('node', [path.join(queries, 'node_pg_client.mjs'), String(port), 'tester'],
                      { encoding: 'utf8', timeout: 60000 });
  if (r.stdout !== 'node-pg 2\n') Fail(`node-postgres: ${r.stdout} ${r.stderr}`);
  else console.log('ok node-postgres');
}

if (failures > 0) {
  console.error(`${failures} failure(s); server log: ${fs.readFileSync(log, 'utf8').slice(-2000)}`);
  process.exit(1);
}
console.log('PASS');
process.exit(0);  // the exit handler stops the server
