// `shoal server --data-dir` keeps its catalog and its tables' rows (issue 14 item 2): the server
// runs as a process on an OS-chosen port, clients are node-postgres sessions.
//  1. tables (CREATE TABLE, CREATE TABLE AS, INSERT, DELETE, UPDATE, ALTER TABLE), a view, an
//     external table and a unique index survive a restart with the same answers, and the index
//     still refuses a duplicate;
//  2. two sessions inserting into one table at the same time while a third rewrites it with
//     UPDATEs: the table holds the sum of their rows; two sessions creating views at the same
//     time: every view is in the catalog after a restart;
//  3. SIGKILL during a large INSERT ... SELECT (killed once the table's directory shows the write
//     under way): after a restart the table holds exactly the rows of the committed statements,
//     and no file of the killed write is left;
//  4. DuckDB reads the Parquet files a table's manifest names and gets Shoal's answer (files
//     written before RENAME COLUMN / ADD COLUMN keep the columns they were written with).
//
// Usage: node tests/integration/server_durable.mjs <path to shoal>
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

import { WaitFor } from './wait.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const pg = createRequire(path.join(here, '../server/package.json'))('pg');
const { DuckDBInstance } = createRequire(path.join(here, '../tpch/package.json'))(
  '@duckdb/node-api');

const shoal = process.argv[2];
if (!shoal) {
  console.error('usage: node server_durable.mjs <shoal binary>');
  process.exit(2);
}
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'shoal-durable-'));
const dataDir = path.join(tmp, 'data');
const children = [];
process.on('exit', () => {
  for (const c of children) {
    if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  }
  fs.rmSync(tmp, { recursive: true, force: true });
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(1));

let serverLog = '';
function Fail(message) {
  console.error(`FAIL: ${message}`);
  if (serverLog) {
    console.error('--- server log (last 30 lines):');
    console.error(fs.readFileSync(serverLog, 'utf8').split('\n').slice(-30).join('\n'));
  }
  process.exit(1);
}
function Equal(actual, expected, what) {
  const a = JSON.stringify(actual);
  const e = JSON.stringify(expected);
  if (a !== e) Fail(`${what}:\n  expected ${e}\n  got      ${a}`);
}

let starts = 0;
// Starts `shoal server` over the data directory; resolves with { child, port } once it listens.
async function StartServer() {
  serverLog = path.join(tmp, `server-${++starts}.log`);
  const fd = fs.openSync(serverLog, 'w');
  const child = spawn(shoal, ['server', '--listen', '127.0.0.1:0', '--data-dir', dataDir,
                              '--threads', '8'], { stdio: ['ignore', fd, fd] });
  fs.closeSync(fd);
  children.push(child);
  const found = await WaitFor(() => {
    const m = fs.readFileSync(serverLog, 'utf8').match(/listening on 127\.0\.0\.1:(\d+)/);
    if (m) return m[1];
    return child.exitCode !== null || child.signalCode !== null ? 'exited' : false;
  }, 'the server to listen', 120000);
  if (!found || found === 'exited') Fail('the server did not start');
  return { child, port: Number(found) };
}

async function Stop(server, signal) {
  const gone = new Promise((resolve) => {
    if (server.child.exitCode !== null || server.child.signalCode !== null) resolve();
    else server.child.on('exit', resolve);
  });
  server.child.kill(signal);
  await gone;
}

async function Connect(server) {
  const client = new pg.Client({ host: '127.0.0.1', port: server.port, user: 'tester',
                                 database: 'shoal' });
  client.on('error', () => {});  // a killed server: the pending query reports it
  await client.connect();
  return client;
}

async function Rows(client, sql) {
  const r = await client.query({ text: sql, rowMode: 'array' });
  return r.rows;
}

async function ErrorCode(client, sql) {
  try {
    await client.query(sql);
  } catch (e) {
    return e.code;
  }
  return 'no error';
}

// The directory of table `name`, from the catalog file (engine/durable_catalog.h).
function TableDir(name) {
  const text = fs.readFileSync(path.join(dataDir, 'catalog'), 'utf8');
  for (const line of text.split('\n')) {
    const f = line.split('\t');
    if (f[0] === 'table' && f[2] === name) return path.join(dataDir, 'tables', f[3]);
  }
  Fail(`table ${name} is not in the catalog file:\n${text}`);
}

// The data files the committed manifest of table `name` names.
function ManifestFiles(name) {
  const dir = TableDir(name);
  return fs.readFileSync(path.join(dir, 'manifest'), 'utf8').split('\n')
    .filter((l) => l.startsWith('file\t')).map((l) => path.join(dir, l.split('\t')[1]));
}

const queries = [
  'SELECT * FROM t ORDER BY k',
  'SELECT * FROM v',
  'SELECT count(*), sum(a) FROM c',
  'SELECT count(*) FROM e',
  'SELECT k, extra FROM t WHERE k < 5 ORDER BY k',
];

// 1. Everything survives a restart.
let server = await StartServer();
let client = await Connect(server);
const parquetFile = path.join(here, '../data/parquet/types_snappy.parquet');
for (const sql of [
  'CREATE TABLE t (a int PRIMARY KEY, b text NOT NULL, c numeric(10,2))',
  "INSERT INTO t SELECT g, 'v' || g, g * 0.5 FROM generate_series(1, 100) g",
  'DELETE FROM t WHERE a % 10 = 0',
  "UPDATE t SET b = b || '!', c = c * 2 WHERE a < 20",
  'CREATE TABLE c AS SELECT a, b FROM t WHERE a > 50',
  'ALTER TABLE t RENAME COLUMN a TO k',
  "ALTER TABLE t ADD COLUMN extra text DEFAULT 'x'",
  'CREATE VIEW v AS SELECT count(*) AS n, sum(k) AS s, max(b) AS m FROM t',
  `CREATE EXTERNAL TABLE e STORED AS PARQUET LOCATION '${parquetFile}'`,
  'CREATE UNIQUE INDEX c_b ON c (b)',
]) {
  await client.query(sql);
}
const before = [];
for (const q of queries) before.push(await Rows(client, q));
Equal(before[1], [['90', '4500', 'v99']], 'the view before the restart');
await client.end();
await Stop(server, 'SIGTERM');

server = await StartServer();
client = await Connect(server);
for (let i = 0; i < queries.length; ++i) {
  Equal(await Rows(client, queries[i]), before[i], `after a restart: ${queries[i]}`);
}
Equal(await ErrorCode(client, "INSERT INTO c VALUES (1000, 'v51')"), '23505',
      'the unique index after a restart');
Equal(await ErrorCode(client, 'INSERT INTO t (k, b) VALUES (1, \'dup\')'), '23505',
      'the primary key after a restart');
Equal(await ErrorCode(client, 'DROP TABLE t'), '2BP01', 'DROP of a table a view reads');
await client.query('DROP TABLE c');
console.log('restart: ok');

// 2. Concurrent writers of one table; concurrent DDL.
await client.query('CREATE TABLE conc (s int, i int)');
const writers = [];
for (let s = 0; s < 2; ++s) {
  writers.push((async () => {
    const c = await Connect(server);
    for (let i = 0; i < 20; ++i) {
      await c.query(`INSERT INTO conc SELECT ${s}, g FROM generate_series(1, 50) g`);
      await c.query(`CREATE VIEW conc_${s}_${i} AS SELECT ${i} AS i`);
    }
    await c.end();
  })());
}
// A third session rewrites the table meanwhile (UPDATE commits all of its rows): it must not
// lose the rows the others commit between its binding and its commit.
writers.push((async () => {
  const c = await Connect(server);
  for (let i = 0; i < 20; ++i) await c.query('UPDATE conc SET i = i + 1000 WHERE s = 0 AND i < 0');
  for (let i = 0; i < 20; ++i) await c.query('UPDATE conc SET i = i WHERE s = 0');
  await c.end();
})());
await Promise.all(writers);
Equal(await Rows(client, 'SELECT s, count(*) FROM conc GROUP BY s ORDER BY s'),
      [[0, '1000'], [1, '1000']], 'rows of two concurrent writers and an UPDATE');
await client.end();
await Stop(server, 'SIGTERM');
server = await StartServer();
client = await Connect(server);
Equal(await Rows(client, 'SELECT count(*) FROM conc'), [['2000']], 'concurrent rows after restart');
for (let s = 0; s < 2; ++s) {
  for (let i = 0; i < 20; ++i) {
    Equal(await Rows(client, `SELECT i FROM conc_${s}_${i}`), [[i]], `view conc_${s}_${i}`);
  }
}
console.log('concurrent writers: ok');

// 3. SIGKILL during a large INSERT ... SELECT.
await client.query('CREATE TABLE big (a bigint, b text)');
let committed = 0;
let killedMidWrite = 0;
let smallRows = 0;
const kBig = 3000000;
for (let attempt = 0; attempt < 8 && killedMidWrite < 2; ++attempt) {
  // A small committed statement first: a restart must never lose it.
  await client.query(`INSERT INTO big SELECT g, 'small' FROM generate_series(1, 10) g`);
  committed += 10;
  smallRows += 10;
  const dir = TableDir('big');
  const filesBefore = new Set(fs.readdirSync(dir));
  const insert = client.query(
    `INSERT INTO big SELECT g, 'row number ' || g FROM generate_series(1, ${kBig}) g`)
    .then(() => 'done', () => 'failed');
  // Activity: a file of the write appears in the table's directory (the data file's temporary).
  const active = await WaitFor(
    () => fs.readdirSync(dir).some((f) => !filesBefore.has(f)), 'the INSERT to write', 120000);
  if (!active) Fail('the INSERT never wrote into its table directory');
  await Stop(server, 'SIGKILL');
  const outcome = await insert;
  server = await StartServer();
  client = await Connect(server);
  const count = Number((await Rows(client, 'SELECT count(*) FROM big'))[0][0]);
  if (count === committed) {
    ++killedMidWrite;
  } else if (count === committed + kBig && outcome === 'done') {
    committed += kBig;  // it committed before the kill, and said so
  } else if (count === committed + kBig) {
    committed += kBig;  // committed, then killed before the reply: the client cannot tell
  } else {
    Fail(`after SIGKILL mid-INSERT the table holds ${count} rows, committed ${committed}`);
  }
  // Nothing of the killed write is left: only the manifest and the files it names.
  const left = fs.readdirSync(dir).filter((f) => f !== 'manifest');
  Equal(left.sort(), ManifestFiles('big').map((f) => path.basename(f)).sort(),
        'the files of a table after a kill');
}
if (killedMidWrite === 0) Fail('no kill landed in the middle of the INSERT');
Equal(await Rows(client, "SELECT count(*) FROM big WHERE b = 'small'"), [[String(smallRows)]],
      'the small committed INSERTs after the kills');
console.log(`SIGKILL mid-INSERT: ok (${killedMidWrite} kills mid-write, ${committed} rows)`);

// 4. DuckDB reads the table's Parquet files. A file keeps the columns it was written with: one
// written before RENAME COLUMN still names k `a`, one written before ADD COLUMN has no `extra`;
// the manifest maps a file's columns to the table's by position, and so does this check (k, b
// are the first two).
const shoalAnswer = await Rows(client, 'SELECT count(*), sum(k), min(b), max(b) FROM t');
const duck = await (await DuckDBInstance.create(':memory:')).connect();
let duckCount = 0;
let duckSum = 0;
const duckB = [];
for (const file of ManifestFiles('t')) {
  const reader = await duck.runAndReadAll(`SELECT * FROM read_parquet('${file}')`);
  for (const row of reader.getRows()) {
    ++duckCount;
    duckSum += Number(row[0]);
    duckB.push(String(row[1]));
  }
}
duckB.sort();
Equal([[String(duckCount), String(duckSum), duckB[0], duckB[duckB.length - 1]]],
      shoalAnswer.map((r) => r.map(String)), 'DuckDB over the Parquet files of t');
console.log('DuckDB reads the files: ok');

await client.end();
await Stop(server, 'SIGTERM');
console.log('server durable: ok');
