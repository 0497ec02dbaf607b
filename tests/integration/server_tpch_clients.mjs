// The 22 TPC-H queries at SF 0.1 through `shoal server` running them on 2 `shoal worker`
// processes, from four real PostgreSQL clients, each compared with DuckDB's stored answers
// (tests/data/tpch/answers/sf0.1, tpch_common.mjs's Compare: the order of ORDER BY keys,
// numbers to 1e-9 relative):
//   - psql (simple protocol, --csv output);
//   - node-postgres (extended protocol: each query a named prepared statement, read through a
//     cursor in steps of 100 rows: Execute with a row limit, PortalSuspended);
//   - psycopg 3 (server-side binding, binary results): tests/server/tpch_psycopg.py;
//   - pgJDBC (PreparedStatement, fetchSize streaming inside a transaction):
//     tests/server/TpchJdbc.java, run as a single-file source by Debian's headless JRE.
// The four clients run at the same time, so the workers serve queries of four sessions at once.
// Then 50 node-postgres sessions at once each run two of the queries (simple protocol), and psql
// interrupted during a long query on the workers cancels it within 1 s, on the workers too.
//
// Usage: node tests/integration/server_tpch_clients.mjs <path to shoal>
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

import { Compare, OrderKeys, ParseCsv } from '../tpch/tpch_common.mjs';
import { CpuSeconds, ListeningAddress, WaitFor } from './wait.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..', '..');
const require = createRequire(path.join(repo, 'tests/server/package.json'));
const pg = require('pg');
const Cursor = require('pg-cursor');

const shoal = process.argv[2];
if (!shoal) {
  console.error('usage: node server_tpch_clients.mjs <shoal binary>');
  process.exit(2);
}
const sf = '0.1';
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'shoal-tpch-clients-'));
const children = [];
process.on('exit', () => {
  for (const c of children) {
    if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  }
  fs.rmSync(tmp, { recursive: true, force: true });
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(1));
function Fail(message) {
  console.error(`FAIL: ${message}`);
  for (const name of ['server.log', 'worker0.log', 'worker1.log']) {
    const file = path.join(tmp, name);
    if (fs.existsSync(file)) {
      console.error(`--- ${name} (last 15 lines):`);
      console.error(fs.readFileSync(file, 'utf8').split('\n').slice(-15).join('\n'));
    }
  }
  process.exit(1);
}

// Runs a process to its end; resolves with { status, stdout, stderr }.
function RunAsync(command, argv, options = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, argv, { stdio: ['ignore', 'pipe', 'pipe'], ...options });
    children.push(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

// ---- the cluster: 2 workers and the server -------------------------------------------------------
async function StartWorker(i) {
  const log = path.join(tmp, `worker${i}.log`);
  const fd = fs.openSync(log, 'w');
  const child = spawn(shoal, ['worker', '--insecure', '--listen', '127.0.0.1:0', '--threads', '2',
                               '--tpch', sf],
                      { stdio: ['ignore', fd, fd] });
  fs.closeSync(fd);
  children.push(child);
  workerPids.push(child.pid);
  return ListeningAddress(child, log);
}
const workerPids = [];
const workers = [await StartWorker(0), await StartWorker(1)];
if (!workers.every(Boolean)) Fail('a worker did not start');
const serverLog = path.join(tmp, 'server.log');
{
  const fd = fs.openSync(serverLog, 'w');
  const server = spawn(shoal, ['server', '--listen', '127.0.0.1:0', '--data-dir',
                               path.join(tmp, 'data'), '--tpch', sf, '--workers',
                               workers.join(','), '--insecure'],
                       { stdio: ['ignore', fd, fd] });
  fs.closeSync(fd);
  children.push(server);
}
const port = await WaitFor(() => {
  const m = fs.readFileSync(serverLog, 'utf8').match(/listening on 127\.0\.0\.1:(\d+)/);
  return m ? Number(m[1]) : false;
}, 'the server to listen', 300000);
if (!port) Fail('the server did not start');

const queryDir = path.join(repo, 'tests', 'data', 'tpch', 'queries');
const answerDir = path.join(repo, 'tests', 'data', 'tpch', 'answers', `sf${sf}`);
const names = fs.readdirSync(queryDir).filter((f) => /^q\d\d\.sql$/.test(f)).sort()
                  .map((f) => f.replace('.sql', ''));
if (names.length !== 22) Fail(`expected 22 queries, found ${names.length}`);
const querySql = (name) => fs.readFileSync(path.join(queryDir, `${name}.sql`), 'utf8');

// Compares one client's answer (header + rows of text, null for NULL) with DuckDB's.
const problems = [];
function Check(client, name, header, rows) {
  const expected = ParseCsv(fs.readFileSync(path.join(answerDir, `${name}.csv`), 'utf8'));
  const actual = [header, ...rows.map((r) => r.map((v) => (v === null ? '' : String(v))))];
  const keys = OrderKeys(querySql(name), expected[0]);
  const problem = Compare(expected, actual, keys);
  if (problem) problems.push(`${client} ${name}: ${problem}`);
}

// ---- psql ----------------------------------------------------------------------------------------
async function Psql() {
  for (const name of names) {
    const r = await RunAsync('psql', ['-X', '-q', '--csv', '-h', '127.0.0.1', '-p', String(port),
                                      '-U', 'tester', '-d', 'shoal', '-v', 'ON_ERROR_STOP=1',
                                      '-f', path.join(queryDir, `${name}.sql`)]);
    if (r.status !== 0) {
      problems.push(`psql ${name}: ${r.stderr}`);
      continue;
    }
    const table = ParseCsv(r.stdout);
    Check('psql', name, table[0], table.slice(1));
  }
}

// ---- node-postgres -------------------------------------------------------------------------------
async function NodePostgres() {
  const client = new pg.Client({ host: '127.0.0.1', port, user: 'tester', database: 'shoal' });
  await client.connect();
  // Every value as the server's text, as psql shows it (no Date or number conversion).
  const types = { getTypeParser: () => (value) => value };
  for (const name of names) {
    try {
      const cursor = client.query(new Cursor(querySql(name).trim().replace(/;$/, ''), [],
                                             { types, rowMode: 'array' }));
      const rows = [];
      for (;;) {
        const batch = await cursor.read(100);
        rows.push(...batch);
        if (batch.length < 100) break;
      }
      const header = cursor._result.fields.map((f) => f.name);
      await cursor.close();
      Check('node-postgres', name, header, rows);
    } catch (e) {
      problems.push(`node-postgres ${name}: ${e.code} ${e.message}`);
    }
  }
  await client.end();
}

// ---- psycopg 3 and pgJDBC: programs printing one JSON line per query ---------------------------
async function JsonLines(client, command, argv) {
  const r = await RunAsync(command, argv);
  if (r.status !== 0) {
    problems.push(`${client}: exit ${r.status}: ${r.stderr.slice(-2000)}`);
    return;
  }
  const seen = new Set();
  for (const line of r.stdout.split('\n').filter((l) => l.startsWith('{'))) {
    const answer = JSON.parse(line);
    seen.add(answer.query);
    if (answer.error) problems.push(`${client} ${answer.query}: ${answer.error}`);
    else Check(client, answer.query, answer.header, answer.rows);
  }
  for (const name of names) {
    if (!seen.has(name)) problems.push(`${client} ${name}: no answer`);
  }
}
const files = names.map((n) => path.join(queryDir, `${n}.sql`));
// Debian's python3-psycopg belongs to Debian's interpreter (not a pyenv one on PATH).
const python = fs.existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';

const started = Date.now();
await Promise.all([
  Psql(),
  NodePostgres(),
  JsonLines('psycopg', python, [path.join(repo, 'tests/server/tpch_psycopg.py'), String(port),
                                'tester', ...files]),
  JsonLines('pgJDBC', 'java', ['-cp', '/usr/share/java/postgresql.jar',
                               path.join(repo, 'tests/server/TpchJdbc.java'),
                               `jdbc:postgresql://127.0.0.1:${port}/shoal`, 'tester', ...files]),
]);
if (problems.length > 0) Fail(`${problems.length} wrong answers:\n${problems.join('\n')}`);
console.log(`four clients: 88 answers equal to DuckDB's in ${((Date.now() - started) / 1000).toFixed(1)} s`);

// ---- 50 sessions at once, each running two of the queries --------------------------------------
const fiftyStarted = Date.now();
await Promise.all(Array.from({ length: 50 }, async (_, s) => {
  const client = new pg.Client({ host: '127.0.0.1', port, user: 'tester', database: 'shoal' });
  await client.connect();
  const types = { getTypeParser: () => (value) => value };
  for (const name of [names[s % 22], names[(s * 7 + 3) % 22]]) {
    try {
      const r = await client.query({ text: querySql(name), rowMode: 'array', types });
      Check(`session ${s}`, name, r.fields.map((f) => f.name), r.rows);
    } catch (e) {
      problems.push(`session ${s} ${name}: ${e.code} ${e.message}`);
    }
  }
  await client.end();
}));
if (problems.length > 0) Fail(`${problems.length} wrong answers:\n${problems.join('\n')}`);
console.log(`50 sessions: 100 answers equal to DuckDB's in ${((Date.now() - fiftyStarted) / 1000).toFixed(1)} s`);
// ---- cancel of a query running on the workers ----------------------------------------------------
{
  const workersCpu = () => workerPids.reduce((sum, pid) => sum + CpuSeconds(pid), 0);
  const child = spawn('psql', ['-X', '-h', '127.0.0.1', '-p', String(port), '-U', 'tester', '-d',
                               'shoal', '-c', 'select count(*) from lineitem a, lineitem b ' +
                               'where a.l_partkey + b.l_partkey < 0'],
                      { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  const before = workersCpu();
  if (!await WaitFor(() => workersCpu() > before + 0.5, 'the workers to run the long query', 60000)) {
    Fail('the long query did not reach the workers');
  }
  const start = Date.now();
  child.kill('SIGINT');  // psql sends a CancelRequest on a new connection
  await exited;
  const ms = Date.now() - start;
  if (!/canceling statement due to user request/.test(stderr)) Fail(`cancel: ${stderr}`);
  if (ms >= 1000) Fail(`the cancel took ${ms} ms`);
  // The workers stop too: their CPU time stops growing.
  const settled = await WaitFor(async () => {
    const a = workersCpu();
    await new Promise((resolve) => setTimeout(resolve, 300));
    return workersCpu() - a < 0.05;
  }, 'the workers to stop the cancelled query', 30000);
  if (!settled) Fail('the workers kept running the cancelled query');
  console.log(`cancel of a distributed query: ${ms} ms, and the workers stopped`);
}
console.log(`PASS: TPC-H SF ${sf} on 2 workers: four clients and 50 sessions, ` +
            `all answers equal to DuckDB's, in ${((Date.now() - started) / 1000).toFixed(1)} s`);
process.exit(0);
