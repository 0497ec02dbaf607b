// Failure handling and operations of the distributed engine with real processes: `shoal worker`s
// on loopback (OS-chosen ports) and `shoal sql --workers ...`. Checks, each with a deadline so a
// hang fails the test instead of stalling it:
//  1. a worker that is not reachable at start: a quick, clear error naming its address;
//  2. versions: a worker started with --version V is refused by a default coordinator (the error
//     names both versions) and accepted with --worker-version V; a bad --task-ttl is refused;
//  3. --workers file:PATH and repeated --header K=V give the single-node answer; a bad header is
//     refused before any query;
//  4. a worker's error reaches the user with the worker's address, stage, task and the original
//     message;
//  5. a worker killed mid-query: the query fails within seconds naming the killed worker, and the
//     surviving worker ends up holding no task (its log, SHOAL_LOG_LEVEL=info, reports
//     "(0 tasks held)") and still answers queries.
//
// Usage: node tests/integration/worker_failures.mjs <path to shoal>
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { FailureReport } from './failure_report.mjs';
import { CpuSeconds, ListeningAddress, WaitFor } from './wait.mjs';

const shoal = process.argv[2];
if (!shoal) {
  console.error('usage: node worker_failures.mjs <shoal binary>');
  process.exit(2);
}
const sf = '0.01';
const started = Date.now();
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'shoal-failures-'));
const workers = [];
function KillWorkers() {
  for (const w of workers) {
    if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGKILL');
  }
}
process.on('exit', () => {
  KillWorkers();
  fs.rmSync(tmp, { recursive: true, force: true });
});
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => process.exit(1));
}

const { Fail, Expect } = FailureReport(workers);

// Starts a worker on a free port; resolves once it listens. Output goes to a file (nobody drains
// a pipe while spawnSync blocks the event loop).
async function StartWorker(extra = []) {
  const log = path.join(tmp, `worker${workers.length}.log`);
  const fd = fs.openSync(log, 'w');
  const child = spawn(shoal, ['worker', '--insecure', '--listen', '127.0.0.1:0', '--threads', '2', '--tpch', sf,
                              ...extra],
                      { stdio: ['ignore', fd, fd], env: { ...process.env, SHOAL_LOG_LEVEL: 'info' } });
  fs.closeSync(fd);
  const worker = { child, log, address: '' };
  workers.push(worker);
  worker.address = await ListeningAddress(child, log);
  return worker;
}

// Runs `shoal sql` to completion (with a deadline) and returns {code, stdout, stderr, seconds}.
function Sql(args, timeoutSeconds = 60) {
  const t0 = Date.now();
  const r = spawnSync(shoal, ['sql', '--insecure', '--tpch', sf, '--format', 'csv', ...args],
                      { encoding: 'utf8', timeout: timeoutSeconds * 1000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, seconds: (Date.now() - t0) / 1000,
           timedOut: r.error?.code === 'ETIMEDOUT' };
}


let a;
let b;
let other;
try {
  [a, b, other] = await Promise.all([StartWorker(), StartWorker(),
                                     StartWorker(['--version', '0.0.0-other'])]);
} catch (e) {
  Fail(e.message);
}
const both = `${a.address},${b.address}`;
const answerSql = 'SELECT l_returnflag, count(*), sum(l_quantity) FROM lineitem ' +
                  'GROUP BY l_returnflag ORDER BY 1';
const expected = Sql(['-c', answerSql]);
Expect(expected.code === 0, 'the single-node query failed', expected);
const small = ['-c', "SET dist_bytes_per_task = '64kB'"];

// 1. Not reachable at start.
{
  const r = Sql(['--workers', '127.0.0.1:1', '-c', 'SELECT 1'], 30);
  Expect(!r.timedOut && r.code !== 0, 'an unreachable worker did not fail the shell', r);
  Expect(r.stderr.includes('127.0.0.1:1') && /unreachable/.test(r.stderr),
         'the error does not name the unreachable worker', r);
  Expect(r.seconds < 15, `an unreachable worker took ${r.seconds} s to report`, r);
  console.log(`unreachable worker: failed in ${r.seconds.toFixed(1)} s`);
}

// 2. Versions.
{
  const refused = Sql(['--workers', other.address, '-c', 'SELECT 1']);
  Expect(refused.code !== 0 && refused.stderr.includes('0.0.0-other') &&
         refused.stderr.includes(other.address), 'a version mismatch was not refused clearly',
         refused);
  const accepted = Sql(['--workers', other.address, '--worker-version', '0.0.0-other', ...small,
                        '-c', answerSql]);
  Expect(accepted.code === 0 && accepted.stdout === expected.stdout,
         '--worker-version did not accept the worker or gave a wrong answer', accepted);
  console.log('versions: mismatch refused, --worker-version accepted');
}

// 2b. Worker flags are checked before the worker listens.
{
  const r = spawnSync(shoal, ['worker', '--insecure', '--listen', '127.0.0.1:0', '--task-ttl', '5x'],
                      { encoding: 'utf8', timeout: 30000 });
  Expect(r.status === 1 && /not a duration/.test(r.stderr), 'a bad --task-ttl was accepted',
         { code: r.status, stdout: r.stdout, stderr: r.stderr });
}

// 3. Worker file and headers.
{
  const file = path.join(tmp, 'workers');
  fs.writeFileSync(file, `# test workers\n${a.address}\n\n${b.address}  # second\n`);
  const r = Sql(['--workers', `file:${file}`, '--header', 'trace-id=t-1', '--header', 'tenant=x',
                 ...small, '-c', answerSql]);
  Expect(r.code === 0 && r.stdout === expected.stdout,
         'a file of workers with headers gave a wrong answer', r);
  const bad = Sql(['--workers', both, '--header', 'Not A Header', '-c', 'SELECT 1']);
  Expect(bad.code !== 0 && /header/.test(bad.stderr), 'a bad --header was accepted', bad);
  const dns = Sql(['--workers', `dns:localhost:${b.address.split(':')[1]}`, ...small,
                   '-c', answerSql]);
  // localhost may also resolve to ::1, where no worker listens: then the error names it.
  Expect(dns.code === 0 ? dns.stdout === expected.stdout : dns.stderr.includes('[::1]'),
         '--workers dns:localhost:PORT failed', dns);
  console.log('file:, dns: and --header: ok');
}

// 4. A worker's error reaches the user with the worker's address, stage, task and message.
{
  const r = Sql(['--workers', both, ...small, '-c',
                 'SELECT l_returnflag, sum(l_quantity / (l_linenumber - l_linenumber)) ' +
                 'FROM lineitem GROUP BY l_returnflag']);
  Expect(r.code !== 0, 'a division by zero on the workers did not fail', r);
  Expect(/division by zero/.test(r.stderr), 'the original message is lost', r);
  Expect(r.stderr.includes(a.address) || r.stderr.includes(b.address),
         'the error does not name the worker', r);
  Expect(/stage \d+/.test(r.stderr) && /task/.test(r.stderr),
         'the error does not name the stage and task', r);
  console.log(`worker error: ${r.stderr.trim().split('\n')[0]}`);
}

// 5. A worker killed mid-query.
{
  const t0 = Date.now();
  const slow = spawn(shoal, ['sql', '--insecure', '--tpch', sf, '--workers', both, ...small, '-c',
                             'SELECT count(*) FROM lineitem a, lineitem b ' +
                             'WHERE a.l_orderkey + b.l_orderkey < 0'],
                     { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  slow.stderr.on('data', (d) => { err += d; });
  const exited = new Promise((resolve) => slow.on('exit', (c) => resolve(c)));
  let ended = false;
  exited.then(() => { ended = true; });
  // Kill b once the query runs on it (the coordinator generates its tables first): b's CPU time
  // grows. An idle worker uses next to none.
  const idle = CpuSeconds(b.child.pid);
  let killedAt = 0;
  if (await WaitFor(() => ended || CpuSeconds(b.child.pid) - idle >= 0.3,
                    `worker ${b.address} to run the query`) && !ended) {
    b.child.kill('SIGKILL');
    killedAt = Date.now();
  }
  const guard = setTimeout(() => slow.kill('SIGKILL'), 120000);
  const code = await exited;
  clearTimeout(guard);
  const r = { code, stdout: '', stderr: err };
  Expect(killedAt !== 0, 'the query ended before the worker could be killed', r);
  Expect(code !== null, 'the query hung after a worker was killed', r);
  Expect(code !== 0, 'the query succeeded although a worker was killed', r);
  const seconds = (Date.now() - killedAt) / 1000;
  Expect(seconds < 20, `the query took ${seconds} s to fail after the kill`, r);
  Expect(err.includes(b.address), 'the error does not name the killed worker', r);
  Expect(/stage \d+/.test(err) && /task/.test(err), 'the error does not name stage and task', r);
  console.log(`killed worker: query failed ${seconds.toFixed(1)} s after the kill: ` +
              err.trim().split('\n')[0]);
  // The survivor drops every task of the query: its last "tasks held" line says 0.
  let last = '';
  const drained = await WaitFor(() => {
    const held = fs.readFileSync(a.log, 'utf8').match(/\((\d+) tasks held\)/g) ?? [];
    last = held.length ? held[held.length - 1] : '';
    return last === '(0 tasks held)';
  }, 'the surviving worker to drop the query\'s tasks', 20000);
  if (!drained) Fail(`the surviving worker still holds tasks: '${last}'`);
  const after = Sql(['--workers', a.address, ...small, '-c', answerSql]);
  Expect(after.code === 0 && after.stdout === expected.stdout,
         'the surviving worker does not answer after the failure', after);
  console.log('surviving worker: no task held, still answers');
}
console.log(`worker failures: ok (${((Date.now() - started) / 1000).toFixed(1)} s)`);
process.exit(0);
