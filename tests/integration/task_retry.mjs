// retry_policy = task (issue 16) with real processes: `shoal sql --workers ...` sessions whose
// `shoal worker`s run with --shuffle-dir. Each check is one that failed before task retries and
// lineage existed:
//  1. a worker holding committed map outputs dies (SIGKILL, by a test hook) when the next stage
//     first fetches one of them: under `task` the answer equals the single-node one, and the driver
//     says it computed the lost worker's outputs again;
//  2. a worker dies while it runs a task of a later stage, holding outputs of the earlier one: the
//     same;
//  2b. a worker restarts between stages with an empty --shuffle-dir (a test hook leaves it as a
//     restart would: every query directory gone, a new incarnation): it answers health checks,
//     but the driver sees the new incarnation and computes its outputs again;
//  2c. a worker freezes (SIGSTOP, by a test hook) while it runs a task of a later stage: its task
//     call never ends by itself; the driver's watch of long calls finds the worker silent, runs
//     the task elsewhere and computes the frozen worker's outputs again;
//  3. a division by zero under `task` fails at once with its own SQLSTATE message, never retried,
//     and leaves no query directory on the workers;
//  4. workers without --shuffle-dir: `task` fails with an error saying what to start them with;
//  5. the same kind of session under `none` (the streaming mode: no task to run again), a worker
//     killed mid-query: the query fails within seconds naming it.
//
// Usage: node tests/integration/task_retry.mjs <path to shoal>
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { CpuSeconds, ListeningAddress, WaitFor } from './wait.mjs';

const shoal = process.argv[2];
if (!shoal) {
  console.error('usage: node task_retry.mjs <shoal binary>');
  process.exit(2);
}
const sf = '0.01';
const started = Date.now();
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'shoal-task-retry-'));
const children = [];
process.on('exit', () => {
  for (const c of children) {
    if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  }
  fs.rmSync(root, { recursive: true, force: true });
});
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => process.exit(1));
}

let passed = 0;
let failed = 0;
function Check(name, problem) {
  if (problem === null) {
    ++passed;
    console.log(`${name}: ok (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  } else {
    ++failed;
    console.log(`${name}: FAIL: ${problem}`);
  }
}

function Describe(r) {
  return `exit ${r.code}, stderr: ${(r.stderr ?? '').trim()}`;
}

// Starts a `shoal worker` (with a shuffle directory unless `shuffle` is false); resolves once it
// listens.
async function StartWorker(name, { env = {}, shuffle = true } = {}) {
  const dir = path.join(root, name);
  const log = path.join(root, `${name}.log`);
  const fd = fs.openSync(log, 'w');
  const args = ['worker', '--insecure', '--listen', '127.0.0.1:0', '--tpch', sf];
  if (shuffle) args.push('--shuffle-dir', dir);
  const child = spawn(shoal, args, { stdio: ['ignore', fd, fd],
                                     env: { ...process.env, SHOAL_LOG_LEVEL: 'info', ...env } });
  fs.closeSync(fd);
  children.push(child);
  const worker = { name, child, dir, log, address: '' };
  worker.address = await ListeningAddress(child, log);
  worker.exited = new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  return worker;
}

function Sql(args, env = {}) {
  const r = spawnSync(shoal, ['sql', '--insecure', '--tpch', sf, '--format', 'csv', ...args],
                      { encoding: 'utf8', timeout: 120000, env: { ...process.env, ...env } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, error: r.error };
}

// Query directories (q-<id>/) left in a worker's shuffle directory.
function QueryDirs(worker) {
  return fs.existsSync(worker.dir) ? fs.readdirSync(worker.dir).filter((f) => f.startsWith('q-'))
    : [];
}

// Three tasks per scan, so that every worker gets map tasks of the first stages.
const setup = ['-c', 'SET threads = 3'];
const task = [...setup, '-c', "SET retry_policy = 'task'"];
const join = 'SELECT o_orderpriority, count(*), sum(l_quantity) FROM orders JOIN lineitem ' +
             'ON l_orderkey = o_orderkey GROUP BY 1 ORDER BY 1';
const expected = Sql([...task, '-c', join]);
if (expected.code !== 0 || !expected.stdout) {
  console.log(`FAIL: the single-node query failed: ${Describe(expected)}`);
  process.exit(1);
}

const [a, b] = await Promise.all([StartWorker('worker-a'), StartWorker('worker-b')]);

// 1 and 2: a worker with committed outputs lost between stages, then one lost mid-stage.
for (const [name, hook] of [['between stages', 'SHOAL_SHUFFLE_TEST_WORKER_DIE_ON_FETCH_MARKER'],
                            ['mid-stage', 'SHOAL_SHUFFLE_TEST_WORKER_DIE_IN_TASK_MARKER']]) {
  const marker = path.join(root, `${hook}.fired`);
  const victim = await StartWorker(`victim-${name.replace(' ', '-')}`,
                                   { env: { [hook]: marker } });
  const r = Sql(['--workers', `${a.address},${b.address},${victim.address}`, ...task, '-c', join]);
  await WaitFor(() => victim.child.signalCode !== null || victim.child.exitCode !== null,
                'the victim to exit', 10000);
  let problem = null;
  if (!fs.existsSync(marker)) problem = `the worker was never killed: ${Describe(r)}`;
  else if (victim.child.signalCode !== 'SIGKILL') problem = 'the worker did not die';
  else if (r.code !== 0) problem = `the query failed: ${Describe(r)}`;
  else if (r.stdout !== expected.stdout) problem = `wrong answer: ${r.stdout}`;
  else if (!r.stderr.includes(`worker ${victim.address} is lost`)) {
    problem = `the driver did not recompute the lost outputs: ${Describe(r)}`;
  } else if (QueryDirs(a).length + QueryDirs(b).length !== 0) {
    problem = `the query left ${QueryDirs(a).concat(QueryDirs(b)).join(', ')} on the workers`;
  }
  Check(`task: a worker with committed outputs killed ${name}`, problem);
}

// 2b. A worker restarted between stages with an empty shuffle directory.
{
  const hook = 'SHOAL_SHUFFLE_TEST_WORKER_RESTART_ON_FETCH_MARKER';
  const marker = path.join(root, `${hook}.fired`);
  const victim = await StartWorker('victim-restarted', { env: { [hook]: marker } });
  const r = Sql(['--workers', `${a.address},${b.address},${victim.address}`, ...task, '-c', join]);
  let problem = null;
  if (!fs.existsSync(marker)) problem = `the worker never lost its outputs: ${Describe(r)}`;
  else if (r.code !== 0) problem = `the query failed: ${Describe(r)}`;
  else if (r.stdout !== expected.stdout) problem = `wrong answer: ${r.stdout}`;
  else if (!r.stderr.includes(`worker ${victim.address} restarted`)) {
    problem = `the driver did not see the restart: ${Describe(r)}`;
  }
  Check('task: a worker restarted between stages with an empty shuffle directory', problem);
  victim.child.kill('SIGKILL');
}

// 2c. A worker frozen mid-task.
{
  const hook = 'SHOAL_SHUFFLE_TEST_WORKER_STOP_IN_TASK_MARKER';
  const marker = path.join(root, `${hook}.fired`);
  const victim = await StartWorker('victim-frozen', { env: { [hook]: marker } });
  const t0 = Date.now();
  const r = Sql(['--workers', `${a.address},${b.address},${victim.address}`, ...task, '-c', join]);
  const seconds = (Date.now() - t0) / 1000;
  let problem = null;
  if (!fs.existsSync(marker)) problem = `the worker never froze: ${Describe(r)}`;
  else if (r.code !== 0) problem = `the query failed (${seconds} s): ${Describe(r)}`;
  else if (r.stdout !== expected.stdout) problem = `wrong answer: ${r.stdout}`;
  else if (!r.stderr.includes(`worker ${victim.address} stopped answering`)) {
    problem = `the driver did not notice the frozen worker: ${Describe(r)}`;
  }
  Check('task: a worker frozen mid-task', problem);
  victim.child.kill('SIGKILL');
}

// 3. A deterministic error is never retried.
{
  const r = Sql(['--workers', `${a.address},${b.address}`, ...task, '-c',
                 'SELECT l_returnflag, sum(l_quantity / (l_linenumber - l_linenumber)) ' +
                 'FROM lineitem GROUP BY 1'], { SHOAL_LOG_LEVEL: 'info' });
  Check('task: a division by zero fails at once and is not retried',
        r.code === 0 || !/division by zero/.test(r.stderr) ? Describe(r)
          : /retrying|attempt 2/.test(r.stderr) ? `a task was retried: ${Describe(r)}`
            : QueryDirs(a).length + QueryDirs(b).length !== 0 ? 'it left query directories'
              : null);
}

// 4. Workers that run no shuffle tasks: a clear error, not a retry loop.
{
  const plain = await StartWorker('plain', { shuffle: false });
  const r = Sql(['--workers', plain.address, ...task, '-c', join]);
  Check('task: workers without --shuffle-dir are refused clearly',
        r.code !== 0 && r.stderr.includes('--shuffle-dir') && !/retrying/.test(r.stderr) ? null
          : Describe(r));
  plain.child.kill('SIGKILL');
}

// 5. Under none, a worker killed mid-query fails the query, naming it.
{
  const slow = spawn(shoal, ['sql', '--insecure', '--tpch', sf, '--workers',
                             `${a.address},${b.address}`, ...setup, '-c',
                             "SET retry_policy = 'none'", '-c',
                             'SELECT count(*) FROM lineitem x, lineitem y ' +
                             'WHERE x.l_orderkey + y.l_orderkey < 0'],
                     { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(slow);
  let err = '';
  slow.stderr.on('data', (d) => { err += d; });
  const exited = new Promise((resolve) => slow.on('exit', (c) => resolve(c)));
  let ended = false;
  exited.then(() => { ended = true; });
  const idle = CpuSeconds(b.child.pid);
  let killedAt = 0;
  if (await WaitFor(() => ended || CpuSeconds(b.child.pid) - idle >= 0.3,
                    'worker b to run the query') && !ended) {
    b.child.kill('SIGKILL');
    killedAt = Date.now();
  }
  const guard = setTimeout(() => slow.kill('SIGKILL'), 60000);
  const code = await exited;
  clearTimeout(guard);
  const seconds = (Date.now() - killedAt) / 1000;
  Check('none: a worker killed mid-query fails the query naming it',
        killedAt === 0 ? `the query ended before the worker was killed: ${err}`
          : code === 0 ? 'the query succeeded'
            : seconds > 20 ? `it took ${seconds} s to fail`
              : !err.includes(b.address) ? `the error does not name the worker: ${err}` : null);
}

console.log(`${passed} passed, ${failed} failed (${((Date.now() - started) / 1000).toFixed(1)} s)`);
process.exit(failed === 0 ? 0 : 1);
