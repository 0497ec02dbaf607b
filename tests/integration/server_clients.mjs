// `shoal server` driven by real PostgreSQL clients over real sockets (issue 14): the server runs
// as a process on an OS-chosen port over the TPC-H tables of SF 0.01, and each check has a
// deadline so a hang fails the test instead of stalling it.
//  1. start-up: the bound address is printed; a second server on that port is refused;
//  2. psql (simple protocol): several statements in one string, one result each, command tags,
//     an error with SQLSTATE and position, shared tables across sessions, settings per session,
//     transaction blocks and their status, COPY ... TO STDOUT (text, csv) and \copy;
//  3. node-postgres (extended protocol): parameters with inferred types, prepared statements by
//     name, a cursor read in row-limited steps (PortalSuspended), an error reply;
//  4. raw protocol bytes: a pipelined batch Parse/Bind/Execute x3 + Sync whose second statement
//     fails: the third is skipped, one ErrorResponse, then ReadyForQuery;
//  5. psycopg 3: server-side binding of typed parameters and binary results of every type;
//  6. cancel: psql interrupted during a long query stops it with 57014 within 1 s; the same
//     query under statement_timeout stops on its own;
//  7. a client that disconnects in the middle of a large result: the server stops working on it
//     (its CPU time stops growing) and keeps serving others.
//
// Usage: node tests/integration/server_clients.mjs <path to shoal>
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';

import { CpuSeconds, WaitFor } from './wait.mjs';

const require = createRequire(path.join(path.dirname(new URL(import.meta.url).pathname),
                                        '../server/package.json'));
const pg = require('pg');
const Cursor = require('pg-cursor');

const shoal = process.argv[2];
if (!shoal) {
  console.error('usage: node server_clients.mjs <shoal binary>');
  process.exit(2);
}
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'shoal-server-'));
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
function Check(condition, message) {
  if (!condition) Fail(message);
}
function Equal(actual, expected, what) {
  const a = JSON.stringify(actual);
  const e = JSON.stringify(expected);
  if (a !== e) Fail(`${what}:\n  expected ${e}\n  got      ${a}`);
}

// Starts `shoal server`; resolves with { child, port, log } once it prints its address.
async function StartServer(args, name) {
  const log = path.join(tmp, `${name}.log`);
  const fd = fs.openSync(log, 'w');
  const child = spawn(shoal, ['server', '--data-dir', path.join(tmp, name), ...args],
                      { stdio: ['ignore', fd, fd] });
  fs.closeSync(fd);
  children.push(child);
  const found = await WaitFor(() => {
    const m = fs.readFileSync(log, 'utf8').match(/listening on 127\.0\.0\.1:(\d+)/);
    if (m) return m[1];
    return child.exitCode !== null || child.signalCode !== null ? 'exited' : false;
  }, `${name} to listen`, 120000);
  return { child, port: found === 'exited' || !found ? null : Number(found), log };
}

function Psql(port, sql, extra = []) {
  return spawnSync('psql', ['-X', '-h', '127.0.0.1', '-p', String(port), '-U', 'tester',
                            '-d', 'shoal', '-v', 'ON_ERROR_STOP=1', ...extra, '-c', sql],
                   { encoding: 'utf8', timeout: 60000, env: { ...process.env, PGCONNECT_TIMEOUT: '10' } });
}

// ---- 1. start-up -------------------------------------------------------------------------------
const server = await StartServer(['--listen', '127.0.0.1:0', '--tpch', '0.01', '--threads', '8'],
                                 'server');
serverLog = server.log;
Check(server.port, `the server did not start: ${fs.readFileSync(server.log, 'utf8')}`);
const port = server.port;
{
  const second = await StartServer(['--listen', `127.0.0.1:${port}`], 'second');
  Check(second.port === null, 'a second server started on a port in use');
  await WaitFor(() => second.child.exitCode !== null, 'the second server to exit', 30000);
  const text = fs.readFileSync(second.log, 'utf8');
  Check(second.child.exitCode === 1 && /Address already in use/.test(text),
        `second server: exit ${second.child.exitCode}, output: ${text}`);
}
console.log(`server on port ${port}`);

// ---- 2. psql -----------------------------------------------------------------------------------
{
  let r = Psql(port, 'select 1 as a, \'x\' as b; select 2 as c');
  Check(r.status === 0, `psql failed: ${r.stderr}`);
  Equal(r.stdout, ' a | b \n---+---\n 1 | x\n(1 row)\n\n c \n---\n 2\n(1 row)\n\n',
        'two statements in one string');
  r = Psql(port, 'create table t (id int, name text); insert into t values (1, \'one\'), (2, NULL); ' +
                 'select id, name from t order by id', ['-A', '-t', '-e']);
  Check(r.status === 0, `psql failed: ${r.stderr}`);
  // psql prints one result per statement; -e echoes the query once, results follow.
  Check(r.stdout.includes('1|one\n2|\n'), `create/insert/select: ${r.stdout}`);
  // Tags as PostgreSQL's (psql prints them for statements without rows).
  r = Psql(port, 'create table t2 (x bigint); insert into t2 select id from t; drop table t2');
  Equal(r.stdout, 'CREATE TABLE\nINSERT 0 2\nDROP TABLE\n', `command tags (${r.stderr})`);
  // Tables are shared across sessions: this is a new connection.
  r = Psql(port, 'select count(*) from t', ['-A', '-t']);
  Equal(r.stdout, '2\n', 'a table created by another session');
  // An error: SQLSTATE, message and position (psql's LINE/caret comes from the position).
  r = Psql(port, 'select 1; select nosuchcolumn from t', ['-v', 'VERBOSITY=verbose']);
  Check(r.status !== 0, 'an error must fail psql');
  Check(/ERROR:  42703: column "nosuchcolumn" does not exist/.test(r.stderr) &&
        /LINE 1: select 1; select nosuchcolumn from t\n {25}\^/.test(r.stderr), `error report: ${r.stderr}`);
  // An empty query string.
  r = Psql(port, ';');
  Check(r.status === 0, `empty query: ${r.stderr}`);
  // Settings stay per session.
  r = Psql(port, 'set batch_size = 7; show batch_size', ['-A', '-t']);
  Equal(r.stdout, 'SET\n7\n', 'SET in a session');
  r = Psql(port, 'show batch_size', ['-A', '-t']);
  Check(r.stdout !== '7\n', 'a setting leaked into another session');
  // TPC-H data and the types of its columns.
  r = Psql(port, 'select l_orderkey, l_quantity, l_shipdate, l_comment from lineitem ' +
                 'order by l_orderkey, l_linenumber limit 2', ['-A', '-t']);
  Check(r.status === 0 && r.stdout.split('\n').length === 3, `lineitem: ${r.stdout} ${r.stderr}`);
  // COPY ... TO STDOUT in text and csv (and psql's \copy, which uses it), escapes and NULLs as
  // PostgreSQL writes them.
  r = Psql(port, "create table c (a int, b text); insert into c values (1, 'x,y'), (2, NULL), " +
                 "(3, E'tab\\tand \\\\ back'), (4, '')");
  Check(r.status === 0, `copy table: ${r.stderr}`);
  r = Psql(port, 'copy (select * from c order by a) to stdout');
  Equal(r.stdout, '1\tx,y\n2\t\\N\n3\ttab\\tand \\\\ back\n4\t\n', 'COPY TO STDOUT (text)');
  r = Psql(port, 'copy (select * from c order by a) to stdout with (format csv, header)');
  Equal(r.stdout, 'a,b\n1,"x,y"\n2,\n3,tab\tand \\ back\n4,""\n', 'COPY TO STDOUT (csv)');
  const copied = path.join(tmp, 'nation.csv');
  r = Psql(port, `\\copy (select n_nationkey, n_name from nation order by 1) to '${copied}' with csv`);
  Check(r.status === 0, `\\copy: ${r.stderr}`);
  const lines = fs.readFileSync(copied, 'utf8').split('\n');
  Equal([lines.length, lines[0]], [26, '0,ALGERIA'], '\\copy of nation');
  // A transaction block: psql shows the status in its prompt; here the errors and notices.
  r = Psql(port, 'begin; select 1; commit', ['-A', '-t']);
  Check(r.status === 0, `begin/commit: ${r.stderr}`);
  r = spawnSync('psql', ['-X', '-h', '127.0.0.1', '-p', String(port), '-U', 'tester', '-d', 'shoal',
                         '-A', '-t'],
                { input: 'begin;\nselect nosuch;\nselect 1;\nrollback;\nselect 2;\ncommit;\n',
                  encoding: 'utf8', timeout: 60000 });
  Check(/current transaction is aborted, commands ignored until end of transaction block/.test(r.stderr),
        `aborted block: ${r.stderr}`);
  Check(/WARNING:  there is no transaction in progress/.test(r.stderr), `commit outside: ${r.stderr}`);
  Equal(r.stdout, 'BEGIN\nROLLBACK\n2\nCOMMIT\n', 'the block as PostgreSQL runs it');
  console.log('psql: ok');
}

// ---- 3. node-postgres ------------------------------------------------------------------------------
{
  const client = new pg.Client({ host: '127.0.0.1', port, user: 'tester', database: 'shoal',
                                 application_name: 'node-test' });
  await client.connect();
  let r = await client.query('select $1::int + 1 as n, $2 as s', [41, 'hello']);
  Equal(r.rows, [{ n: 42, s: 'hello' }], 'parameters');
  // An unknown-typed parameter takes the type of the column it is compared with.
  r = await client.query('select count(*) as c from lineitem where l_quantity > $1 and l_shipmode = $2',
                         ['45', 'AIR']);
  const expected = (await client.query("select count(*) as c from lineitem where l_quantity > 45 and l_shipmode = 'AIR'")).rows;
  Equal(r.rows, expected, 'parameters typed by their use');
  Check(Number(expected[0].c) > 0, 'the filter should select some rows');
  // A named prepared statement, executed twice.
  for (const k of [1, 2]) {
    r = await client.query({ name: 'by_key', text: 'select o_orderkey from orders where o_orderkey = $1',
                             values: [k] });
    Equal(r.rows.map((x) => Number(x.o_orderkey)), [k], `prepared statement run ${k}`);
  }
  r = await client.query('show application_name').catch((e) => e);
  // A cursor: rows in steps of 100 (Execute with a row limit, PortalSuspended between).
  await client.query('begin');
  const cursor = client.query(new Cursor('select o_orderkey from orders order by o_orderkey'));
  let total = 0;
  let steps = 0;
  let last = 0;
  for (;;) {
    const rows = await cursor.read(100);
    if (rows.length === 0) break;
    Check(rows.length <= 100, 'a cursor step returned more rows than asked');
    for (const row of rows) {
      Check(Number(row.o_orderkey) > last, 'cursor rows out of order');
      last = Number(row.o_orderkey);
    }
    total += rows.length;
    ++steps;
  }
  await cursor.close();
  await client.query('commit');
  Equal(total, 15000, 'rows through the cursor');
  Check(steps === 150, `cursor steps: ${steps}`);
  // An error: the client gets SQLSTATE and position; the connection goes on.
  const err = await client.query('select 1/0').catch((e) => e);
  Check(err instanceof Error && err.code === '22012', `division by zero: ${err.code} ${err.message}`);
  const bad = await client.query('select nosuch from orders').catch((e) => e);
  Equal([bad.code, bad.position], ['42703', '8'], 'error code and position');
  r = await client.query('select 3 as x');
  Equal(r.rows, [{ x: 3 }], 'the connection works after errors');
  await client.end();
  console.log('node-postgres: ok');
}

// ---- 4. raw protocol: an error in the middle of a pipelined batch ----------------------------------
function Int32(v) {
  const b = Buffer.alloc(4);
  b.writeInt32BE(v);
  return b;
}
function Int16(v) {
  const b = Buffer.alloc(2);
  b.writeInt16BE(v);
  return b;
}
function Message(type, ...parts) {
  const body = Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p + '\0') : p)));
  return Buffer.concat([Buffer.from(type), Int32(body.length + 4), body]);
}
function Startup() {
  const body = Buffer.concat([Int32(196608), Buffer.from('user\0tester\0database\0shoal\0\0')]);
  return Buffer.concat([Int32(body.length + 4), body]);
}
// Sends `bytes` after start-up and collects messages until `done(messages)` holds.
function RawSession(bytes, done, keepOpen = false) {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let buffer = Buffer.alloc(0);
    const messages = [];
    let ready = false;
    const timer = setTimeout(() => { socket.destroy(); reject(new Error(`raw session timed out: ${JSON.stringify(messages.map((m) => m.type))}`)); }, 30000);
    socket.on('connect', () => socket.write(Startup()));
    socket.on('data', (data) => {
      buffer = Buffer.concat([buffer, data]);
      while (buffer.length >= 5) {
        const len = buffer.readInt32BE(1);
        if (buffer.length < len + 1) break;
        const m = { type: String.fromCharCode(buffer[0]), body: buffer.subarray(5, len + 1) };
        buffer = buffer.subarray(len + 1);
        if (!ready) {
          if (m.type === 'Z') {
            ready = true;
            socket.write(bytes);
          }
          continue;
        }
        messages.push(m);
        if (done(messages)) {
          clearTimeout(timer);
          if (!keepOpen) socket.end(Message('X'));
          resolve({ messages, socket });
          return;
        }
      }
    });
    socket.on('error', (e) => { clearTimeout(timer); reject(e); });
  });
}
function ErrorFields(body) {
  const fields = {};
  let i = 0;
  while (i < body.length && body[i] !== 0) {
    const code = String.fromCharCode(body[i]);
    const end = body.indexOf(0, i + 1);
    fields[code] = body.subarray(i + 1, end).toString();
    i = end + 1;
  }
  return fields;
}
{
  const batch = Buffer.concat([
    Message('P', '', 'select 1', Int16(0)), Message('B', '', '', Int16(0), Int16(0), Int16(0)),
    Message('E', '', Int32(0)),
    Message('P', '', 'select 1/0', Int16(0)), Message('B', '', '', Int16(0), Int16(0), Int16(0)),
    Message('E', '', Int32(0)),
    Message('P', '', 'select 3', Int16(0)), Message('B', '', '', Int16(0), Int16(0), Int16(0)),
    Message('E', '', Int32(0)),
    Message('S'),
    Message('Q', 'select 4'),
  ]);
  const { messages } = await RawSession(batch, (ms) => ms.filter((m) => m.type === 'Z').length === 2);
  const types = messages.map((m) => m.type).join('');
  // 1: ParseComplete BindComplete DataRow CommandComplete; 2: ParseComplete BindComplete Error;
  // 3: skipped; Sync: ReadyForQuery; then the simple query.
  Equal(types, '12DC12EZTDCZ', 'messages of the batch');
  const e = ErrorFields(messages.find((m) => m.type === 'E').body);
  Equal([e.S, e.C], ['ERROR', '22012'], 'the batch error');
  // A bad message type closes the connection with a FATAL error.
  const fatal = await RawSession(Buffer.from([0x7a, 0, 0, 0, 4]), (ms) => ms.some((m) => m.type === 'E'));
  const f = ErrorFields(fatal.messages.find((m) => m.type === 'E').body);
  Equal([f.S, f.C], ['FATAL', '08P01'], 'an unknown message type');
  console.log('raw protocol: ok');
}

// ---- 5. psycopg 3 ------------------------------------------------------------------------------
{
  const script = `
import datetime, decimal, sys
import psycopg
conn = psycopg.connect(host='127.0.0.1', port=${port}, user='tester', dbname='shoal', autocommit=True)
cur = conn.cursor(binary=True)
cur.execute("select %s::int4 + 1, %s::int8 * 2, %s::float8 / 2, %s::text || '!', %s::bool, %s::date, %s::numeric(10,2), %s::bytea",
            (41, 2**40, 3.0, 'hi', True, datetime.date(2024, 2, 29), decimal.Decimal('12.34'), b'\\x00\\xff'))
row = cur.fetchone()
want = (42, 2**41, 1.5, 'hi!', True, datetime.date(2024, 2, 29), decimal.Decimal('12.34'), b'\\x00\\xff')
assert row == want, (row, want)
cur.execute("select timestamp '2024-01-02 03:04:05.5', timestamptz '2024-01-02 03:04:05+00', interval '1 day 2 hours', 1.5::float4, 7::smallint")
row = cur.fetchone()
assert row[0] == datetime.datetime(2024, 1, 2, 3, 4, 5, 500000), row
assert row[1] == datetime.datetime(2024, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc), row
assert row[2] == datetime.timedelta(days=1, hours=2), row
assert row[3] == 1.5 and row[4] == 7, row
cur.execute("select count(*) from orders where o_orderdate < %s and o_totalprice > %s",
            (datetime.date(1995, 1, 1), decimal.Decimal('100000.5')))
binary_count = cur.fetchone()[0]
text = conn.cursor()
text.execute("select count(*) from orders where o_orderdate < date '1995-01-01' and o_totalprice > 100000.5")
assert binary_count == text.fetchone()[0] and binary_count > 0, binary_count
cur.execute("select o_orderkey, o_totalprice from orders order by o_orderkey limit 3")
rows = cur.fetchall()
assert [r[0] for r in rows] == [1, 2, 3] and all(isinstance(r[1], decimal.Decimal) for r in rows), rows
# Typed NULLs and an error with its SQLSTATE.
cur.execute("select %s::int is null", (None,))
assert cur.fetchone()[0] is True
try:
    cur.execute("select nosuch")
    sys.exit("no error")
except psycopg.errors.UndefinedColumn:
    pass
print("psycopg ok")
`;
  // Debian's python3-psycopg is installed for Debian's own interpreter (not a pyenv one on PATH).
  const python = fs.existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
  const r = spawnSync(python, ['-c', script], { encoding: 'utf8', timeout: 60000 });
  Check(r.status === 0 && r.stdout.includes('psycopg ok'), `psycopg: ${r.stdout}\n${r.stderr}`);
  console.log('psycopg: ok');
}

// ---- 6. cancel ---------------------------------------------------------------------------------------
const kLongQuery = 'select count(*) from lineitem a, lineitem b where a.l_partkey + b.l_partkey < 0';
{
  const child = spawn('psql', ['-X', '-h', '127.0.0.1', '-p', String(port), '-U', 'tester', '-d',
                               'shoal', '-c', kLongQuery], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  // Wait until the server works on it (its CPU time grows), then interrupt psql: it sends a
  // CancelRequest on a new connection.
  const before = CpuSeconds(server.child.pid);
  Check(await WaitFor(() => CpuSeconds(server.child.pid) > before + 0.3, 'the long query to run', 30000),
        'the long query did not start');
  const start = Date.now();
  child.kill('SIGINT');
  await exited;
  const ms = Date.now() - start;
  Check(/canceling statement due to user request/.test(stderr), `cancel: ${stderr}`);
  Check(ms < 1000, `the cancel took ${ms} ms`);
  console.log(`cancel: ok (${ms} ms)`);
}

// statement_timeout: the same long query stops on its own, with the timeout's message.
{
  const start = Date.now();
  const r = Psql(port, `set statement_timeout = 300; ${kLongQuery}`);
  const ms = Date.now() - start;
  Check(r.status !== 0 && /ERROR:  canceling statement due to statement timeout/.test(r.stderr),
        `statement_timeout: ${r.stderr}`);
  Check(ms < 5000, `statement_timeout took ${ms} ms`);
  console.log(`statement_timeout: ok (${ms} ms)`);
}

// ---- 7. a client that goes away in the middle of a result --------------------------------------------
{
  const { socket } = await RawSession(Message('Q', 'select a.l_comment, b.l_comment from lineitem a, lineitem b'),
                                      (ms) => ms.filter((m) => m.type === 'D').length > 1000, true);
  socket.destroy();
  // The server's CPU time stops growing once the query is cancelled.
  const settled = await WaitFor(async () => {
    const a = CpuSeconds(server.child.pid);
    await new Promise((resolve) => setTimeout(resolve, 300));
    return CpuSeconds(server.child.pid) - a < 0.05;
  }, 'the server to stop the abandoned query', 30000);
  Check(settled, 'the server kept working on the query of a client that went away');
  const r = Psql(port, 'select 5', ['-A', '-t']);
  Equal(r.stdout, '5\n', 'the server serves others after the disconnect');
  console.log('disconnect: ok');
}

server.child.kill('SIGTERM');
await WaitFor(() => server.child.exitCode !== null || server.child.signalCode !== null,
              'the server to stop on SIGTERM', 30000);
Check(server.child.exitCode === 0,
      `server exit status ${server.child.exitCode} (signal ${server.child.signalCode})`);
console.log('server_clients: all checks passed');
