// The file shuffle as an operator runs it (issue 16), with real processes: `shoal sql
// --shuffle-dir` drivers, `shoal task` processes and `shoal worker --shuffle-dir` workers on
// loopback. Each check is a regression test of a bug an operator hit:
//  1. a second shuffling query in the same session failed (the first one's files were never
//     cleaned up): now each query works in DIR/q-<id>/, removed when it ends;
//  2. a deterministic SQL error (division by zero) was retried 3 times per task: it fails the
//     query at once, with its own message, and leaves no directory behind;
//  3. task processes showed in `ps` as `/proc/self/exe task ...`: `ps -o args` shows `shoal task`;
//     and a query cancelled with Ctrl-C leaves no directory behind;
//  4. failed queries left their directories on the workers (`--shuffle-workers`): a query that
//     succeeded, one that failed and one that was cancelled leave none;
//  5. `shoal shuffle gc DIR` deleted any `tasks/` and `q-<hex>/` folders of any directory: it
//     refuses a directory without Shoal's marker and deletes nothing there, and in a shuffle
//     directory removes what a killed driver left.
//
// Usage: node tests/integration/shuffle_operations.mjs <path to shoal>
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { ListeningAddress, WaitFor } from './wait.mjs';

const shoal = process.argv[2];
if (!shoal) {
  console.error('usage: node shuffle_operations.mjs <shoal binary>');
  process.exit(2);
}
const sf = '0.01';
const kMarker = '.shoal-shuffle';
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'shoal-shuffle-ops-'));
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
    console.log(`${name}: ok`);
  } else {
    ++failed;
    console.log(`${name}: FAIL: ${problem}`);
  }
}

function Sql(args, env = {}) {
  const r = spawnSync(shoal, ['sql', '--insecure', '--tpch', sf, '--format', 'csv', ...args],
                      { encoding: 'utf8', timeout: 300000, env: { ...process.env, ...env } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, error: r.error };
}

function Describe(r) {
  return `exit ${r.code}, stderr: ${(r.stderr ?? '').trim()}`;
}

// Starts `shoal sql` in the background; `done` resolves with {code, signal, stderr}.
function SqlInBackground(args, env = {}) {
  const child = spawn(shoal, ['sql', '--insecure', '--tpch', sf, '--format', 'csv', ...args],
                      { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...env } });
  children.push(child);
  const r = { child, stderr: '' };
  child.stderr.on('data', (d) => { r.stderr += d; });
  r.done = new Promise((resolve) => child.on('exit', (code, signal) => {
    r.code = code;
    r.signal = signal;
    resolve(r);
  }));
  return r;
}

// What a shuffle directory holds besides its marker (a query's q-<id>/ while it runs).
function Left(dir) {
  return fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f !== kMarker) : [];
}

// Pids of `shoal task` processes whose command line mentions `needle`.
function TaskProcesses(needle) {
  const pids = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, 'latin1');
      if (cmdline.includes('\0task\0') && cmdline.includes(needle)) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

// Starts a `shoal worker --shuffle-dir` (with `args` added); resolves once it listens.
async function StartWorker(name, env = {}, args = []) {
  const dir = path.join(root, name);
  const log = path.join(root, `${name}.log`);
  const fd = fs.openSync(log, 'w');
  const child = spawn(shoal, ['worker', '--insecure', '--listen', '127.0.0.1:0', '--shuffle-dir',
                              dir, ...args],
                      { stdio: ['ignore', fd, fd],
                        env: { ...process.env, SHOAL_LOG_LEVEL: 'info', ...env } });
  fs.closeSync(fd);
  children.push(child);
  const worker = { name, child, dir, log, address: '' };
  worker.address = await ListeningAddress(child, log);
  return worker;
}

const q1 = 'SELECT l_returnflag, count(*), sum(l_quantity) FROM lineitem GROUP BY 1 ORDER BY 1';
const q2 = 'SELECT o_orderpriority, count(*) FROM orders JOIN lineitem ' +
           'ON l_orderkey = o_orderkey GROUP BY 1 ORDER BY 1';
const divSql = 'SELECT l_returnflag, sum(l_quantity / (l_linenumber - l_linenumber)) ' +
               'FROM lineitem GROUP BY 1';
const slow = { SHOAL_SHUFFLE_TEST_TASK_DELAY_MS: '120000' };
const e1 = Sql(['-c', q1]);
const e2 = Sql(['-c', q2]);
if (e1.code !== 0 || e2.code !== 0 || !e1.stdout || !e2.stdout) {
  console.log(`FAIL: the single-node queries failed: ${Describe(e1)}; ${Describe(e2)}`);
  process.exit(1);
}

// 1. Two shuffling queries (and the first again) in one session, in one directory.
{
  const dir = path.join(root, 'session');
  const r = Sql(['--shuffle-dir', dir, '-c', q1, '-c', q2, '-c', q1]);
  let problem = null;
  if (r.code !== 0) problem = `the session failed: ${Describe(r)}`;
  else if (r.stdout !== e1.stdout + e2.stdout + e1.stdout) problem = `wrong answers: ${r.stdout}`;
  else if (Left(dir).length !== 0) problem = `the queries left ${Left(dir).join(', ')}`;
  else if (!fs.existsSync(path.join(dir, kMarker))) problem = 'the directory carries no marker';
  Check('three shuffling queries in one session', problem);
}

// 2. A division by zero: one attempt per task, its own error, nothing left.
{
  const dir = path.join(root, 'division');
  const r = Sql(['--shuffle-dir', dir, '-c', divSql], { SHOAL_LOG_LEVEL: 'info' });
  let problem = null;
  if (r.code === 0) problem = 'the query succeeded';
  else if (!/division by zero/.test(r.stderr)) problem = `not a division by zero: ${Describe(r)}`;
  else if (/retrying|attempt 2/.test(r.stderr)) problem = `a task was retried: ${Describe(r)}`;
  else if (Left(dir).length !== 0) problem = `the failed query left ${Left(dir).join(', ')}`;
  Check('a deterministic error is not retried and leaves nothing', problem);
}

// 3. `ps` names the task processes `shoal task`; Ctrl-C leaves no directory.
{
  const dir = path.join(root, 'named');
  const q = SqlInBackground(['--shuffle-dir', dir, '-c', q1], slow);
  const pids = await WaitFor(() => {
    const p = TaskProcesses(dir);
    return p.length > 0 && p;
  }, 'a task process to start');
  let problem = null;
  if (!pids) {
    problem = `no task process started: ${q.stderr}`;
  } else {
    const ps = spawnSync('ps', ['-o', 'args=', '-p', String(pids[0])], { encoding: 'utf8' });
    const args = ps.stdout.trim();
    if (!args.startsWith('shoal task ')) problem = `ps -o args shows "${args}"`;
    else console.log(`ps -o args: ${args}`);
  }
  q.child.kill('SIGINT');
  await q.done;
  Check('task processes are named "shoal task" in ps', problem);
  const gone = await WaitFor(() => TaskProcesses(dir).length === 0, 'the tasks to exit', 10000);
  Check('a query cancelled with Ctrl-C leaves no task and no directory',
        !gone ? 'task processes still run'
          : Left(dir).length !== 0 ? `it left ${Left(dir).join(', ')}` : null);
}

// 4. Across machines: a query that succeeded, failed or was cancelled leaves nothing on the
// workers. Worker c delays every task, so that the query is still running when it is cancelled.
{
  const [a, b, c] = await Promise.all([StartWorker('worker-a'), StartWorker('worker-b'),
                                       // Tasks as processes, which this test sees in /proc (tasks
                                       // on threads: shuffle_remote_test.cc's
                                       // ACancelledDriverLeavesNoTaskThreadRunningOnTheWorkers).
                                       StartWorker('worker-c', slow, ['--shuffle-task-processes'])]);
  const dir = path.join(root, 'driver');
  const both = ['--shuffle-dir', dir, '--shuffle-workers', `${a.address},${b.address}`];
  const leftOn = (...ws) => ws.flatMap((w) => Left(w.dir).map((f) => `${w.name}/${f}`))
    .concat(Left(dir).map((f) => `driver/${f}`));
  {
    const r = Sql([...both, '-c', q2]);
    const left = leftOn(a, b);
    Check('a remote query answers and leaves nothing',
          r.code !== 0 ? Describe(r) : r.stdout !== e2.stdout ? `wrong answer: ${r.stdout}`
            : left.length !== 0 ? `it left ${left.join(', ')}` : null);
  }
  {
    const r = Sql([...both, '-c', divSql], { SHOAL_LOG_LEVEL: 'info' });
    const left = leftOn(a, b);
    Check('a remote division by zero is not retried and leaves nothing',
          r.code === 0 || !/division by zero/.test(r.stderr) ? Describe(r)
            : /retrying|attempt 2/.test(r.stderr) ? `a task was retried: ${Describe(r)}`
              : left.length !== 0 ? `it left ${left.join(', ')}` : null);
  }
  {
    const q = SqlInBackground(['--shuffle-dir', dir, '--shuffle-workers', c.address, '-c', q1]);
    const started = await WaitFor(() => TaskProcesses(c.dir).length > 0,
                                  'a task process to start on worker c');
    q.child.kill('SIGINT');
    await q.done;
    const gone = await WaitFor(() => TaskProcesses(c.dir).length === 0 && leftOn(c).length === 0,
                               'worker c to end the task and drop the query', 10000);
    Check('a cancelled remote query leaves no task and no directory on the worker',
          !started ? `no task started: ${q.stderr}`
            : !gone ? `worker c still has ${leftOn(c).join(', ')} or task processes ` +
                      `${TaskProcesses(c.dir).join(', ')}` : null);
  }
}

// 5. `shoal shuffle gc`: a foreign directory is refused and untouched; in a shuffle directory it
// removes what a killed driver left.
{
  const foreign = path.join(root, 'foreign');
  fs.mkdirSync(path.join(foreign, 'tasks'), { recursive: true });
  fs.mkdirSync(path.join(foreign, 'q-abc'), { recursive: true });
  fs.writeFileSync(path.join(foreign, 'q-abc', 'data'), 'someone\'s data\n');
  fs.writeFileSync(path.join(foreign, 'tasks', 'list'), 'someone\'s list\n');
  const r = spawnSync(shoal, ['shuffle', 'gc', foreign], { encoding: 'utf8' });
  const kept = ['tasks/list', 'q-abc/data'].every((f) => fs.existsSync(path.join(foreign, f)));
  Check('shuffle gc refuses a directory without the marker',
        r.status === 0 || !/not a Shoal shuffle directory/.test(r.stderr)
          ? `exit ${r.status}: ${r.stdout}${r.stderr}`
          : !kept ? 'it deleted files anyway' : null);

  const dir = path.join(root, 'crashed');
  const q = SqlInBackground(['--shuffle-dir', dir, '-c', q1], slow);
  const started = await WaitFor(() => TaskProcesses(dir).length > 0, 'a task process to start');
  q.child.kill('SIGKILL');
  await q.done;
  await WaitFor(() => TaskProcesses(dir).length === 0, 'the tasks to die with their driver', 10000);
  const before = Left(dir);
  const gc = spawnSync(shoal, ['shuffle', 'gc', dir], { encoding: 'utf8' });
  Check('shuffle gc removes what a killed driver left',
        !started ? `no task started: ${q.stderr}`
          : before.length !== 1 || !before[0].startsWith('q-') ? `the driver left ${before}`
            : gc.status !== 0 ? `exit ${gc.status}: ${gc.stderr}`
              : Left(dir).length !== 0 ? `gc left ${Left(dir).join(', ')}` : null);
}

console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
