// `shoal server` with many sessions (issue 14, item 4), over real sockets with node-postgres:
//  1. idle sessions hold no thread: 60 connections on a server of 2 threads all connect, stay
//     open, and each runs a query concurrently with the right answer (a thread per connection
//     would leave 58 of them waiting for a start-up reply);
//  2. admission: with --max-running-queries 1, while one long query runs, a trivial one waits in
//     the queue (its statement_timeout fires there: 57014), and runs once the long one is gone;
//  3. idle_session_timeout and idle_in_transaction_session_timeout close an idle session with
//     PostgreSQL's FATAL errors (57P05, 25P03).
//
// Usage: node tests/integration/server_sessions.mjs <path to shoal>
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';

import { WaitFor } from './wait.mjs';

const require = createRequire(path.join(path.dirname(new URL(import.meta.url).pathname),
                                        '../server/package.json'));
const pg = require('pg');

const shoal = process.argv[2];
if (!shoal) {
  console.error('usage: node server_sessions.mjs <shoal binary>');
  process.exit(2);
}
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'shoal-sessions-'));
let server = null;
process.on('exit', () => {
  if (server && server.exitCode === null && server.signalCode === null) server.kill('SIGKILL');
  fs.rmSync(tmp, { recursive: true, force: true });
});
const log = path.join(tmp, 'server.log');
function Fail(message) {
  console.error(`FAIL: ${message}`);
  if (fs.existsSync(log)) console.error(fs.readFileSync(log, 'utf8').split('\n').slice(-20).join('\n'));
  process.exit(1);
}
function Check(condition, message) {
  if (!condition) Fail(message);
}

const fd = fs.openSync(log, 'w');
server = spawn(shoal, ['server', '--listen', '127.0.0.1:0', '--data-dir', path.join(tmp, 'data'),
                       '--tpch', '0.01', '--threads', '2', '--max-running-queries', '1'],
               { stdio: ['ignore', fd, fd] });
fs.closeSync(fd);
const port = await WaitFor(() => {
  const m = fs.readFileSync(log, 'utf8').match(/listening on 127\.0\.0\.1:(\d+)/);
  return m ? Number(m[1]) : false;
}, 'the server to listen', 120000);
Check(port, 'the server did not start');

async function Connect() {
  const client = new pg.Client({ host: '127.0.0.1', port, user: 'tester', database: 'shoal',
                                 connectionTimeoutMillis: 30000 });
  client.on('error', () => {});  // a FATAL from the server ends the connection; checked below
  await client.connect();
  return client;
}

// ---- 1. 60 sessions on 2 threads ---------------------------------------------------------------
const clients = [];
for (let i = 0; i < 60; ++i) clients.push(await Connect());
const answers = await Promise.all(clients.map(
    (c, i) => c.query(`select count(*) + ${i} as n from nation where n_regionkey = ${i % 5}`)));
answers.forEach((r, i) => Check(Number(r.rows[0].n) === 5 + i, `session ${i}: ${r.rows[0].n}`));
console.log('60 sessions on 2 threads: all answered');

// ---- 2. admission: one query at a time, the others queue ---------------------------------------
const [longSession, probe] = clients;
await longSession.query('set statement_timeout = 3000');
const long = longSession.query('select sum(a.l_extendedprice * b.l_discount) from lineitem a cross join lineitem b')
                 .then(() => 'finished', (e) => e.code);
await probe.query('set statement_timeout = 300');
// A trivial statement times out only while it waits behind the long one.
const queued = await WaitFor(async () => {
  try {
    await probe.query('select 1 from nation limit 1');
    return false;
  } catch (e) {
    return e.code;
  }
}, 'a statement to wait behind the running one', 30000);
Check(queued === '57014', `a queued statement's timeout: ${queued}`);
await probe.query('set statement_timeout = 0');
// The long query ends (its own timeout stops it if it is still running); then the queue moves.
const longEnd = await long;
Check(longEnd === '57014' || longEnd === 'finished', `the long query: ${longEnd}`);
const after = await probe.query('select count(*) as n from region');
Check(Number(after.rows[0].n) === 5, 'a statement after the long one ran');
console.log('admission: queued behind the running statement, then ran');

// ---- 3. idle timeouts --------------------------------------------------------------------------
async function ClosedWith(client, setting) {
  const ended = new Promise((resolve) => {
    client.on('error', (e) => resolve(e.code || e.message));
    client.on('end', () => resolve('end'));
  });
  await client.query(setting);
  return ended;
}
const idle = clients[2];
const idleCode = await ClosedWith(idle, 'set idle_session_timeout = 200');
Check(idleCode === '57P05', `idle_session_timeout: ${idleCode}`);
const inBlock = clients[3];
await inBlock.query('set idle_in_transaction_session_timeout = 200');
const blockCode = await ClosedWith(inBlock, 'begin');
Check(blockCode === '25P03', `idle_in_transaction_session_timeout: ${blockCode}`);
console.log('idle timeouts: 57P05 and 25P03');

for (const c of clients.slice(4)) await c.end();
await longSession.end();
await probe.end();
server.kill('SIGTERM');
console.log('PASS');
process.exit(0);
