// The chaos test of issue 16: 3 `shoal worker` processes on loopback and a `shoal server`
// coordinator; one client session (pg_session.mjs, so that it sees whether rows arrived before an
// error) runs the 22 TPC-H queries at SF 0.1 in a loop while a controller, driven by a seeded
// PRNG, kills (SIGKILL) and restarts workers (same port) or freezes them (SIGSTOP, then SIGCONT).
// One worker at a time is disturbed, and the number and length of the disturbances are bounded.
// The loop runs first with retry_policy = query, then with retry_policy = none (`--policy task`
// adds or chooses task: every worker has a --shuffle-dir for it). Asserted:
//  - every answer equals DuckDB's stored one (tests/data/tpch/answers/sf0.1), never a wrong one;
//  - query: every query answers, except that an error may stand once rows had reached the client
//    (the server streams rows), and then it must be a clear one (SQLSTATE, a message naming the
//    worker);
//  - task: every query answers (the driver re-runs the lost worker's tasks and recomputes its
//    outputs before the first row is sent);
//  - none: every failure is a clear error (SQLSTATE 08xxx/57xxx or XX000 naming a worker) within
//    10 s of the disturbance that caused it (or of the query's start, when that came later);
//  - no query hangs (a per-query deadline), the session survives;
//  - at the end: the workers hold no task, no process started by the test (or its children) is
//    left, and the spill directories of the workers and of the coordinator are empty.
// The seed is printed first; SHOAL_CHAOS_SEED=N (or --seed N) replays a run's disturbances (their
// timing against the queries still depends on the machine's speed).
//
// Usage: node tests/integration/chaos.mjs <path to shoal> [--seed N] [--long] [--loops N]
//            [--events N (disturbances per policy; 0: a calm run, the baseline)]
//            [--policy query|none|task ... (default query then none)] [--sf SF (0.1)]
// CI runs the short form: per policy, loops of the 22 queries while the controller makes at most
// 6 disturbances in 45 s (freezes of 4-8 s), at least one loop; under 3 minutes on 2 loaded cores.
// --long (or SHOAL_CHAOS_LONG=1), for the closing measurement: at least three loops per policy,
// 20 s freezes, up to 40 disturbances in 10 minutes per policy. --events 0 is a calm run.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { DescribeStuckProcess, FailureReport } from './failure_report.mjs';
import { PgSession } from './pg_session.mjs';
import { ListeningAddress, WaitFor } from './wait.mjs';
import { Compare, OrderKeys, ParseCsv } from '../tpch/tpch_common.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..', '..');
function Usage(message) {
  if (message) console.error(message);
  console.error('usage: node chaos.mjs <shoal binary> [--seed N] [--long] [--loops N] ' +
                '[--events N] [--policy P ...] [--sf SF]');
  process.exit(2);
}
const shoal = process.argv[2];
if (!shoal) Usage();
let seed = process.env.SHOAL_CHAOS_SEED ? Number(process.env.SHOAL_CHAOS_SEED)
                                        : (Date.now() ^ (process.pid << 16)) >>> 0;
let long = process.env.SHOAL_CHAOS_LONG === '1';
let loops = 0;
let maxEvents = -1;
const policies = [];
let sf = '0.1';
for (let i = 3; i < process.argv.length; ++i) {
  const arg = process.argv[i];
  const value = () => {
    if (i + 1 >= process.argv.length) Usage(`${arg} needs a value`);
    return process.argv[++i];
  };
  if (arg === '--seed') seed = Number(value());
  else if (arg === '--long') long = true;
  else if (arg === '--loops') loops = Number(value());
  else if (arg === '--events') maxEvents = Number(value());
  else if (arg === '--policy') policies.push(value());
  else if (arg === '--sf') sf = value();
  else Usage(`unknown argument '${arg}'`);
}
if (!Number.isInteger(seed) || seed < 0) Usage('--seed needs a non-negative integer');
const config = {
  loops: loops > 0 ? loops : long ? 3 : 1,
  maxEvents: maxEvents >= 0 ? maxEvents : long ? 40 : 6,  // disturbances per policy
  chaosMs: long ? 600000 : 45000,    // the controller stops disturbing after this, per policy
  gapMs: long ? [2000, 8000] : [1500, 5000],  // calm between two disturbances
  freezeMs: long ? [20000, 20000] : [4000, 8000],
  restartDelayMs: [500, 3000],       // a killed worker stays dead this long
  queryDeadlineMs: long ? 300000 : 120000,
  noneFailWithinMs: 10000,
};
console.log(`chaos seed ${seed} (replay: SHOAL_CHAOS_SEED=${seed}), ${long ? 'long' : 'short'} ` +
            `form: ${config.loops} loop(s) of the 22 queries per policy at SF ${sf}`);

// mulberry32: small, seeded, and the same on every machine.
function Prng(s) {
  let a = s >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = Prng(seed);
const Between = ([lo, hi]) => lo + Math.floor(random() * (hi - lo + 1));
const Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Every process the test starts carries this in its environment, and so do their children: the
// leak check at the end looks for it in /proc.
const runMark = `chaos-${process.pid}-${seed}`;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'shoal-chaos-'));
const children = [];
function KillChildren() {
  for (const c of children) {
    if (c.exitCode === null && c.signalCode === null) {
      c.kill('SIGCONT');
      c.kill('SIGKILL');
    }
  }
}
let keepTmp = false;
process.on('exit', () => {
  KillChildren();
  if (!keepTmp) fs.rmSync(tmp, { recursive: true, force: true });
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(1));

const workers = [];  // { name, address, child, log, spill }, the current incarnation of each
const serverLog = path.join(tmp, 'server.log');
// The failure report shows the last lines of every worker's log and of the server's.
const { Fail: FailWithLogs } = FailureReport({
  * [Symbol.iterator]() {
    yield* workers;
    if (fs.existsSync(serverLog)) yield { address: 'coordinator (shoal server)', log: serverLog };
  },
});
function Fail(message) {
  keepTmp = !!process.env.SHOAL_CHAOS_KEEP;
  FailWithLogs(`${message}\n  (seed ${seed}: SHOAL_CHAOS_SEED=${seed} replays the disturbances)`);
}

function Spawn(args, log, spill) {
  fs.mkdirSync(spill, { recursive: true });
  const fd = fs.openSync(log, 'a');
  const child = spawn(shoal, args, {
    stdio: ['ignore', fd, fd],
    env: { ...process.env, SHOAL_LOG_LEVEL: 'info', TMPDIR: spill, SHOAL_CHAOS_RUN: runMark },
  });
  fs.closeSync(fd);
  children.push(child);
  return child;
}

let incarnations = 0;
async function StartWorker(name, listen = '127.0.0.1:0') {
  const log = path.join(tmp, `${name}.log`);
  fs.appendFileSync(log, `--- started ${new Date().toISOString()}\n`);
  const spill = path.join(tmp, 'spill', `${name}-${++incarnations}`);
  // Shuffle tasks (retry_policy = task) keep their files here, one directory per incarnation.
  const shuffle = path.join(tmp, 'shuffle', `${name}-${incarnations}`);
  const child = Spawn(['worker', '--insecure', '--listen', listen, '--threads', '2', '--tpch', sf,
                       '--task-ttl', '5s', '--spill-dir', spill, '--shuffle-dir', shuffle], log,
                      spill);
  // The log is appended to across restarts: look for the listening line after this start.
  const from = fs.statSync(log).size;
  const exited = () => child.exitCode !== null || child.signalCode !== null;
  const address = await WaitFor(() => {
    const m = fs.readFileSync(log, 'utf8').slice(from).match(/listening on (\S+)/);
    return m ? m[1] : exited() ? 'exited' : false;
  }, `worker ${name} to listen`, 120000);
  if (!address || address === 'exited') {
    throw new Error(`worker ${name} did not start: ${fs.readFileSync(log, 'utf8').slice(from)}`);
  }
  return { name, address, child, log, spill, shuffle };
}

try {
  for (const w of await Promise.all(['w1', 'w2', 'w3'].map((n) => StartWorker(n)))) workers.push(w);
} catch (e) {
  Fail(e.message);
}
console.log(`workers: ${workers.map((w) => w.address).join(', ')}`);

const serverSpill = path.join(tmp, 'spill', 'server');
const server = Spawn(['server', '--data-dir', path.join(tmp, 'server'), '--insecure', '--listen',
                      '127.0.0.1:0', '--tpch', sf,
                      '--workers', workers.map((w) => w.address).join(',')], serverLog, serverSpill);
const port = await WaitFor(() => {
  const m = fs.readFileSync(serverLog, 'utf8').match(/listening on 127\.0\.0\.1:(\d+)/);
  return m ? Number(m[1]) : server.exitCode !== null ? 'exited' : false;
}, 'the server to listen', 120000);
if (typeof port !== 'number') Fail(`the server did not start: ${fs.readFileSync(serverLog, 'utf8')}`);

const queries = Array.from({ length: 22 }, (_, i) => {
  const name = `q${String(i + 1).padStart(2, '0')}`;
  const text = fs.readFileSync(path.join(repo, 'tests', 'data', 'tpch', 'queries', `${name}.sql`),
                               'utf8');
  const expected = ParseCsv(fs.readFileSync(
      path.join(repo, 'tests', 'data', 'tpch', 'answers', `sf${sf}`, `${name}.csv`), 'utf8'));
  return { name, sql: text.trim().replace(/;$/, ''), expected, keys: OrderKeys(text, expected[0]) };
});

// The controller: disturbs one worker at a time until stopped or out of events. Each event is
// logged with its time so that a failure can be matched with the disturbance behind it.
const events = [];
let stopChaos = false;
async function Controller(policy) {
  let count = 0;
  const started = Date.now();
  while (!stopChaos && count < config.maxEvents && Date.now() - started < config.chaosMs) {
    const gap = Between(config.gapMs);
    const which = Math.floor(random() * 3);
    const kill = random() < 0.5;
    const pause = kill ? Between(config.restartDelayMs) : Between(config.freezeMs);
    const until = Date.now() + gap;
    await WaitFor(() => stopChaos || Date.now() >= until, 'the calm between disturbances', gap + 1000);
    if (stopChaos) break;
    ++count;
    const w = workers[which];
    const event = { policy, kind: kill ? 'kill' : 'freeze', worker: w.name, at: Date.now(),
                    ms: pause };
    events.push(event);
    console.log(`  [chaos] ${event.kind} ${w.name} (${w.address}) for ${pause} ms`);
    if (kill) {
      w.child.kill('SIGKILL');
      await new Promise((resolve) => (w.child.exitCode !== null || w.child.signalCode !== null
                                          ? resolve() : w.child.once('exit', resolve)));
      await Sleep(pause);
      try {
        workers[which] = { ...await StartWorker(w.name, w.address) };
      } catch (e) {
        Fail(`restarting ${w.name}: ${e.message}`);
      }
    } else {
      w.child.kill('SIGSTOP');
      await Sleep(pause);
      w.child.kill('SIGCONT');
    }
    event.end = Date.now();
  }
}

// A clear error: it has a SQLSTATE and a message that says what broke (a worker, a connection).
function ClearError(e) {
  return e && /^[0-9A-Z]{5}$/.test(e.C ?? '') && e.C !== '00000' &&
         /worker|connection|unavailable|unreachable/i.test(e.M ?? '');
}

const session = await PgSession.Connect('127.0.0.1', port).catch((e) => Fail(e.message));
const stats = {};
async function RunPolicy(policy) {
  const s = { answered: 0, failed: 0, retried: 0, failedAfterRows: 0, slowestFailMs: 0,
              unexplained: [] };
  stats[policy] = s;
  for (const sql of [`SET retry_policy = '${policy}'`, "SET dist_bytes_per_task = '64kB'",
                     "SET threads = '2'"]) {
    const r = await session.Query(sql, 30000);
    if (r.error || r.hung || r.closed) Fail(`${sql}: ${JSON.stringify(r)}`);
  }
  stopChaos = false;
  let chaosDone = false;
  const chaos = Controller(policy).then(() => { chaosDone = true; });
  const started = Date.now();
  // The loops asked for, and then more until the controller is done (out of disturbances or of
  // time), so that every disturbance meets running queries.
  for (let loop = 1; loop <= config.loops || !chaosDone; ++loop) {
    for (const q of queries) {
      const at = Date.now();
      const r = await session.Query(q.sql, config.queryDeadlineMs);
      const end = Date.now();
      const where = `${policy} loop ${loop} ${q.name}`;
      if (r.hung) {
        Fail(`${where} hung: no answer within ${config.queryDeadlineMs / 1000} s ` +
             `(disturbances so far: ${JSON.stringify(events.filter((e) => e.policy === policy))})`);
      }
      if (r.closed) Fail(`${where}: the session ended: ${r.closed}`);
      if (r.notices.some((n) => /running the query again/.test(n))) ++s.retried;
      if (!r.error) {
        const problem = Compare(q.expected, [r.header, ...r.rows], q.keys);
        if (problem !== null) Fail(`${where} gave a WRONG ANSWER: ${problem}`);
        ++s.answered;
        continue;
      }
      ++s.failed;
      const message = `${r.error.C} ${r.error.M}`.split('\n')[0];
      if (!ClearError(r.error)) Fail(`${where} failed with an unclear error: ${JSON.stringify(r.error)}`);
      // The disturbance behind it: the last one that began before the error.
      const cause = events.filter((e) => e.at <= end).pop();
      const from = Math.max(at, cause?.at ?? at);
      const ms = end - from;
      if (policy === 'task') {
        Fail(`${where} failed under retry_policy = task: ${message}`);
      } else if (policy === 'query') {
        if (r.rowsBeforeError === 0) {
          Fail(`${where} failed under retry_policy = query before any row was sent: ${message}` +
               `\n  notices: ${r.notices.join(' | ')}`);
        }
        ++s.failedAfterRows;
      } else {
        s.slowestFailMs = Math.max(s.slowestFailMs, ms);
        if (ms > config.noneFailWithinMs) {
          Fail(`${where} failed ${(ms / 1000).toFixed(1)} s after ${cause ? `the ${cause.kind} ` +
               `of ${cause.worker}` : 'its start'} (more than 10 s): ${message}`);
        }
      }
      // A failure with no disturbance during the query or just before it is worth a look.
      if (!cause || (cause.end ?? end) + 5000 < at) s.unexplained.push(`${where}: ${message}`);
      console.log(`  ${where}: error after ${(ms / 1000).toFixed(1)} s: ${message}`);
    }
    console.log(`${policy}: loop ${loop} done after ${((Date.now() - started) / 1000).toFixed(0)} s`);
  }
  stopChaos = true;
  await chaos;
  const n = events.filter((e) => e.policy === policy).length;
  console.log(`retry_policy = ${policy}: ${s.answered} answered right, ${s.failed} failed ` +
              `(${s.failedAfterRows} after rows were sent), ${s.retried} retried, ` +
              `${n} disturbances` + (policy === 'none' && s.failed > 0
                  ? `, slowest failure ${(s.slowestFailMs / 1000).toFixed(1)} s` : ''));
  for (const u of s.unexplained) console.log(`  NOTE: a failure without a disturbance near it: ${u}`);
}

for (const policy of policies.length > 0 ? policies : ['query', 'none']) await RunPolicy(policy);
session.Close();

// No task left on the workers: each one's last "(N tasks held)" goes to 0 (their TTL is 5 s).
for (const w of workers) {
  const drained = await WaitFor(() => {
    const held = [...fs.readFileSync(w.log, 'utf8').matchAll(/\((\d+) tasks held\)/g)];
    return held.length === 0 || held[held.length - 1][1] === '0';
  }, `worker ${w.name} to hold no task`, 30000);
  if (!drained) Fail(`worker ${w.name} still holds tasks after the queries ended`);
}

// Graceful stop of everything, then: no process carrying the run's mark, no spill file left by the
// processes alive at the end (a SIGKILLed worker's files are its own incarnation's directory).
server.kill('SIGTERM');
for (const w of workers) w.child.kill('SIGTERM');
const stopped = await WaitFor(() => children.every((c) => c.exitCode !== null || c.signalCode !== null),
                              'the server and workers to stop', 30000);
if (!stopped) {
  const stuck = children.filter((c) => c.exitCode === null && c.signalCode === null);
  for (const c of stuck) console.error(DescribeStuckProcess(c.pid));
  Fail(`${stuck.length} of the server and workers did not stop on SIGTERM: ` +
       stuck.map((c) => c === server ? `server (pid ${c.pid})` :
                 `worker ${workers.find((w) => w.child === c)?.name ?? '?'} (pid ${c.pid})`)
           .join(', '));
}
function Marked() {
  const found = [];
  for (const pid of fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      if (fs.readFileSync(`/proc/${pid}/environ`, 'latin1').includes(`SHOAL_CHAOS_RUN=${runMark}\0`)) {
        found.push(`${pid} ${fs.readFileSync(`/proc/${pid}/cmdline`, 'latin1').replaceAll('\0', ' ')}`);
      }
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found;
}
if (!await WaitFor(() => Marked().length === 0, 'no process of the run to be left', 10000)) {
  Fail(`processes left behind:\n  ${Marked().join('\n  ')}`);
}
for (const dir of [serverSpill, ...workers.map((w) => w.spill)]) {
  const left = fs.readdirSync(dir);
  if (left.length > 0) Fail(`files left in ${dir}: ${left.join(', ')}`);
}
// Query directories the drivers could not drop (best effort: a worker frozen when its query
// ended keeps its directory until `shoal shuffle gc`): reported, not a failure.
for (const w of workers) {
  const left = fs.existsSync(w.shuffle) ? fs.readdirSync(w.shuffle).filter((f) => f.startsWith('q-'))
    : [];
  if (left.length > 0) console.log(`NOTE: ${left.length} shuffle query directories left in ${w.shuffle}`);
}
console.log(`chaos: all checks passed (seed ${seed}, ${events.length} disturbances)`);
process.exit(0);
