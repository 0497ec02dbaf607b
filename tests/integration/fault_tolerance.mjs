// Fault tolerance of the distributed engine with real processes (issue 16): `shoal worker`s on
// loopback (OS-chosen ports) and `shoal sql --workers ...`. Each check is a regression test of a
// bug an operator hit, with a deadline so that a hang fails instead of stalling:
//  1. one unreachable address in --workers: the session starts on the live workers, with a
//     warning naming the skipped one, and answers right;
//     and a worker that was down when the session started is used by the session's queries once
//     it answers (the health check brings it back);
//  2. a worker restarted (same port) under an open session: the session's next query answers
//     right (it failed with "Broken pipe");
//  3. a query that runs longer than the workers' --task-ttl (a worker frozen with SIGSTOP
//     mid-query makes it so) answers right: the TTL counts from the coordinator's last contact
//     (heartbeats), not from the task's start;
//  4. a coordinator frozen mid-query for longer than the TTL: its tasks expire, and the error
//     says "task expired after N s without contact from the coordinator";
//  5. a worker killed mid-query: under retry_policy = none (the default) the query fails within
//     10 s with an error naming the worker; under retry_policy = query it runs again on the
//     worker left and answers right, with a NOTICE saying so; the same through `shoal server`
//     and psql (the server's streaming cursor retries while it has sent no row).
//
// Usage: node tests/integration/fault_tolerance.mjs <path to shoal>
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

import { FailureReport } from './failure_report.mjs';
import { CpuSeconds, ListeningAddress, WaitFor } from './wait.mjs';

const shoal = process.argv[2];
if (!shoal) {
  console.error('usage: node fault_tolerance.mjs <shoal binary>');
  process.exit(2);
}
const sf = '0.01';
const ttl = '1s';
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'shoal-faults-'));
const children = [];
process.on('exit', () => {
  for (const c of children) {
    if (c.exitCode === null && c.signalCode === null) {
      c.kill('SIGCONT');
      c.kill('SIGKILL');
    }
  }
  fs.rmSync(tmp, { recursive: true, force: true });
});
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => process.exit(1));
}

const workers = [];
const { Fail, Expect } = FailureReport(workers);


// Starts a worker (on `listen`, default a free port); resolves once it listens.
async function StartWorker(name, listen = '127.0.0.1:0') {
  const log = path.join(tmp, `${name}.log`);
  const fd = fs.openSync(log, 'w');
  const child = spawn(shoal, ['worker', '--insecure', '--listen', listen, '--threads', '2', '--tpch', sf,
                              '--task-ttl', ttl],
                      { stdio: ['ignore', fd, fd], env: { ...process.env, SHOAL_LOG_LEVEL: 'info' } });
  fs.closeSync(fd);
  children.push(child);
  const worker = { name, child, log, address: '' };
  worker.address = await ListeningAddress(child, log);
  return worker;
}

function Sql(args, timeoutSeconds = 120) {
  const r = spawnSync(shoal, ['sql', '--insecure', '--tpch', sf, '--format', 'csv', ...args],
                      { encoding: 'utf8', timeout: timeoutSeconds * 1000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

// Starts `shoal sql` in the background; `done` resolves with {code, stdout, stderr}.
function SqlInBackground(args) {
  const child = spawn(shoal, ['sql', '--insecure', '--tpch', sf, '--format', 'csv', ...args],
                      { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  const r = { child, stdout: '', stderr: '', code: undefined };
  child.stdout.on('data', (d) => { r.stdout += d; });
  child.stderr.on('data', (d) => { r.stderr += d; });
  r.done = new Promise((resolve) => child.on('exit', (code) => { r.code = code; resolve(r); }));
  return r;
}

// Waits for `r` to end within `seconds`; kills it (a hang) otherwise.
async function Ended(r, seconds) {
  const guard = setTimeout(() => { r.child.kill('SIGCONT'); r.child.kill('SIGKILL'); },
                           seconds * 1000);
  await r.done;
  clearTimeout(guard);
  return r;
}

const answerSql = 'SELECT l_returnflag, count(*), sum(l_quantity) FROM lineitem ' +
                  'GROUP BY l_returnflag ORDER BY 1';
const small = ['-c', "SET dist_bytes_per_task = '64kB'"];
const expected = Sql(['-c', answerSql]);
Expect(expected.code === 0 && expected.stdout.length > 0, 'the single-node query failed', expected);

let a;
let b;
try {
  [a, b] = await Promise.all([StartWorker('a'), StartWorker('b')]);
  workers.push(a, b);
} catch (e) {
  Fail(e.message);
}

// 1. One unreachable address among the workers.
{
  const r = Sql(['--workers', `${a.address},127.0.0.1:1,${b.address}`, ...small, '-c', answerSql]);
  Expect(r.code === 0 && r.stdout === expected.stdout,
         'an unreachable worker among live ones stopped the session or changed the answer', r);
  Expect(r.stderr.includes('127.0.0.1:1'), 'no warning names the skipped worker', r);
  console.log(`unreachable worker skipped: ${r.stderr.trim().split('\n')[0]}`);
}

// 1b. A worker down when the session starts, started later on its address: the session's
// coordinator checks it again in the background (every 2 s) and the next query uses it.
{
  const port = await new Promise((resolve) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const p = server.address().port;
      server.close(() => resolve(p));
    });
  });
  const late = `127.0.0.1:${port}`;
  const fifo = path.join(tmp, 'late-worker');
  spawnSync('mkfifo', [fifo]);
  const session = SqlInBackground(['--workers', `${a.address},${late}`, ...small,
                                   '-c', answerSql, '-f', fifo, '-c', answerSql]);
  if (!await WaitFor(() => session.stdout.length >= expected.stdout.length ||
                           session.code !== undefined, 'the first query of the session')) {
    Fail('the first query with a worker down did not answer');
  }
  Expect(session.code === undefined && session.stdout === expected.stdout &&
         session.stderr.includes(late),
         'a worker down at the start stopped the session, or no warning named it', session);
  let c;
  try {
    c = await StartWorker('c', late);
    workers.push(c);
  } catch (e) {
    Fail(`the late worker did not start on port ${port}: ${e.message}`);
  }
  const back = await WaitFor(() => session.stderr.includes(`worker ${late} answers again`),
                             'the session to find the late worker back');
  fs.writeFileSync(fifo, 'SELECT 1;\n');  // unblocks the session
  await Ended(session, 120);
  Expect(back, 'the session never noticed that the late worker answers', session);
  Expect(session.code === 0 && session.stdout.endsWith(expected.stdout),
         'the query after the late worker came back failed or answered wrong', session);
  // Its tasks ran there: the worker logs each task it ends.
  const ran =
      (fs.readFileSync(c.log, 'utf8').match(/ended stage \d+ task \d+ of query/g) ?? []).length;
  Expect(ran > 0, 'the late worker ran no task of the session\'s next query', session);
  c.child.kill('SIGKILL');
  workers.pop();
  console.log(`late worker back in use: it ran ${ran} tasks of the session's next query`);
}

// 2. A worker restarted under an open session. The session runs a query, then reads a FIFO (which
// blocks it until the worker is back), then runs the query again.
{
  const fifo = path.join(tmp, 'between');
  spawnSync('mkfifo', [fifo]);
  const session = SqlInBackground(['--workers', `${a.address},${b.address}`, ...small,
                                   '-c', answerSql, '-f', fifo, '-c', answerSql]);
  if (!await WaitFor(() => session.stdout.length >= expected.stdout.length ||
                           session.code !== undefined, 'the first query of the session')) {
    Fail('the first query did not answer');
  }
  Expect(session.code === undefined && session.stdout === expected.stdout,
         'the first query of the session failed', session);
  const port = b.address.split(':').pop();
  b.child.kill('SIGKILL');
  await new Promise((resolve) => b.child.once('exit', resolve));
  try {
    const restarted = await StartWorker('b-restarted', `127.0.0.1:${port}`);
    workers[1] = restarted;
    b = restarted;
  } catch (e) {
    Fail(`the worker did not restart on port ${port}: ${e.message}`);
  }
  fs.writeFileSync(fifo, 'SELECT 1;\n');  // unblocks the session
  await Ended(session, 120);
  Expect(session.code === 0, 'the first query after a worker restart failed', session);
  Expect(session.stdout.startsWith(expected.stdout) && session.stdout.endsWith(expected.stdout) &&
         session.stdout.length > 2 * expected.stdout.length,
         'the session gave a wrong answer after a worker restart', session);
  console.log('worker restart: the next query of the open session answered right');
}

// 3. A query longer than the TTL: worker b is frozen mid-query for longer than the TTL (but well
// within the transport's keepalive timeout of 3 s, so nobody declares it dead).
{
  const both = `${a.address},${b.address}`;
  const q = SqlInBackground(['--workers', both, ...small, '-c',
                             'SELECT count(*) FROM lineitem a, orders b ' +
                             'WHERE a.l_orderkey + b.o_orderkey < 0']);
  const idle = CpuSeconds(b.child.pid);
  const running = await WaitFor(() => q.code !== undefined || CpuSeconds(b.child.pid) - idle >= 0.3,
                                'worker b to run the query');
  Expect(running && q.code === undefined, 'the query ended before worker b could be frozen', q);
  b.child.kill('SIGSTOP');
  const frozenAt = Date.now();
  // The freeze is the point of the test: 1.6 times the TTL.
  await WaitFor(() => Date.now() - frozenAt >= 1600, 'the freeze to last 1.6 s');
  b.child.kill('SIGCONT');
  await Ended(q, 300);
  Expect(q.code === 0 && q.stdout.trim().split('\n').pop() === '0',
         'a query that ran longer than the task TTL did not answer', q);
  Expect(!/user request/.test(q.stderr), 'the query was cancelled "due to user request"', q);
  console.log('a query longer than the task TTL answered');
}

// 4. A coordinator frozen mid-query: the workers drop its tasks one TTL later, and the error says
// why once it runs again.
{
  const q = SqlInBackground(['--workers', `${a.address},${b.address}`, ...small, '-c',
                             'SELECT count(*) FROM lineitem a, lineitem b ' +
                             'WHERE a.l_orderkey + b.l_orderkey < 0']);
  const idle = CpuSeconds(a.child.pid);
  const running = await WaitFor(() => q.code !== undefined || CpuSeconds(a.child.pid) - idle >= 0.3,
                                'worker a to run the query');
  Expect(running && q.code === undefined, 'the query ended before its coordinator was frozen', q);
  // Thawed once worker a has dropped every task of the query, not at its first drop: a producer
  // task whose output its consumers had already read can expire a few milliseconds before the
  // tasks still running, and thawing then let those live on and the query answer. Only what a
  // logs from now on counts (an earlier test may have left a drop line in its log).
  const logged = fs.readFileSync(a.log, 'utf8').length;
  q.child.kill('SIGSTOP');
  const dropped = await WaitFor(() => {
    const since = fs.readFileSync(a.log, 'utf8').slice(logged);
    return /no contact from its coordinator/.test(since) && /\(0 tasks held\)\s*$/.test(since);
  }, 'worker a to drop all the silent coordinator\'s tasks');
  q.child.kill('SIGCONT');
  Expect(dropped, 'worker a kept the tasks of a frozen coordinator', q);
  await Ended(q, 120);
  Expect(q.code !== 0, 'the query of a frozen coordinator succeeded', q);
  Expect(/task expired after 1 s without contact from the coordinator/.test(q.stderr),
         'the error does not say the task expired for lack of contact', q);
  console.log(`frozen coordinator: ${q.stderr.trim().split('\n')[0]}`);
}

// 5. A worker killed mid-query, under each retry policy. Each run kills the current worker b once
// it has worked on the query for 0.3 CPU s, then starts a new b for the next run.
const longSql = 'SELECT count(*) FROM lineitem a, orders b WHERE a.l_orderkey + b.o_orderkey < 0';
async function KillBMidQuery(policy) {
  const q = SqlInBackground(['--workers', `${a.address},${b.address}`, ...small,
                             '-c', `SET retry_policy = '${policy}'`, '-c', longSql]);
  const idle = CpuSeconds(b.child.pid);
  const running = await WaitFor(() => q.code !== undefined || CpuSeconds(b.child.pid) - idle >= 0.3,
                                'worker b to run the query');
  Expect(running && q.code === undefined, `the query ended before worker b was killed (${policy})`,
         q);
  const killedAt = Date.now();
  const lost = b.address;
  b.child.kill('SIGKILL');
  await Ended(q, 120);
  const seconds = (Date.now() - killedAt) / 1000;
  try {
    b = await StartWorker(`b-after-${policy}`);
    workers[1] = b;
  } catch (e) {
    Fail(`a new worker b did not start: ${e.message}`);
  }
  return { q, seconds, lost };
}
{
  const { q, seconds, lost } = await KillBMidQuery('none');
  Expect(q.code !== 0 && q.stderr.includes(lost) && seconds < 10,
         `retry_policy = none: the query did not fail within 10 s naming ${lost}`, q);
  console.log(`retry_policy = none: failed in ${seconds.toFixed(1)} s: ` +
              q.stderr.trim().split('\n')[0]);
}
{
  const { q, lost } = await KillBMidQuery('query');
  Expect(q.code === 0 && q.stdout.trim().split('\n').pop() === '0',
         'retry_policy = query: the query did not answer after a worker was killed', q);
  Expect(/NOTICE: .*running the query again on the workers that answer/.test(q.stderr) &&
         q.stderr.includes(lost), 'retry_policy = query: no NOTICE names the retry', q);
  console.log(`retry_policy = query: answered; ${q.stderr.trim().split('\n').find((l) =>
      l.startsWith('NOTICE'))}`);
}

{
  const log = path.join(tmp, 'server.log');
  const fd = fs.openSync(log, 'w');
  const server = spawn(shoal, ['server', '--data-dir', path.join(tmp, 'server'), '--insecure',
                               '--listen', '127.0.0.1:0', '--tpch', sf,
                               '--workers', `${a.address},${b.address}`],
                       { stdio: ['ignore', fd, fd] });
  fs.closeSync(fd);
  children.push(server);
  const port = await WaitFor(() => {
    const m = fs.readFileSync(log, 'utf8').match(/listening on 127\.0\.0\.1:(\d+)/);
    return m ? m[1] : server.exitCode !== null;
  }, 'the server to listen');
  Expect(typeof port === 'string', `the server did not start: ${fs.readFileSync(log, 'utf8')}`);
  const psql = spawn('psql', ['-X', '-h', '127.0.0.1', '-p', port, '-U', 'tester', '-d', 'shoal',
                              '-v', 'ON_ERROR_STOP=1', '-At', '-c', "SET dist_bytes_per_task = '64kB'",
                              '-c', "SET retry_policy = 'query'", '-c', longSql],
                     { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(psql);
  const q = { child: psql, stdout: '', stderr: '', code: undefined };
  psql.stdout.on('data', (d) => { q.stdout += d; });
  psql.stderr.on('data', (d) => { q.stderr += d; });
  q.done = new Promise((resolve) => psql.on('exit', (code) => { q.code = code; resolve(q); }));
  const idle = CpuSeconds(b.child.pid);
  const running = await WaitFor(() => q.code !== undefined || CpuSeconds(b.child.pid) - idle >= 0.3,
                                'worker b to run the server\'s query');
  Expect(running && q.code === undefined, 'the server\'s query ended before worker b was killed', q);
  b.child.kill('SIGKILL');
  await Ended(q, 120);
  Expect(q.code === 0 && q.stdout.trim().split('\n').pop() === '0' &&
         /NOTICE: .*running the query again on the workers that answer/.test(q.stderr),
         'retry_policy = query through the server: no right answer with a NOTICE', q);
  console.log('retry_policy = query through shoal server and psql: answered, with the NOTICE');
}

console.log('fault tolerance: all checks passed');
process.exit(0);
