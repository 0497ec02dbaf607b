// Confinement and resource caps of `shoal worker` with real processes (issue 15 items 3-5, the
// hostile-input tests of item 6 that need no certificate). Each hostile request is refused (or
// capped) and the worker keeps answering a correct query afterwards:
//  1. start-up: a worker says what it confines ("data roots: none" by default) and warns when it
//     listens on an address other machines can reach; a second worker on a port in use is refused;
//  2. a worker with --data-root DIR refuses plans whose scans name /etc/passwd, /etc/shadow, a
//     symlink out of DIR, a directory holding such a symlink, or a `..` escape (SQLSTATE 42501,
//     naming the path and the root) while a table inside DIR reads correctly;
//  3. `shoal sql --data-root DIR`: external tables (a file, a directory, a glob, a symlink),
//     COPY ... TO and spill_dir
//     outside DIR are refused by the coordinator itself;
//  4. a client's spill_dir does not steer a worker's spill files (the worker spills into its own
//     --spill-dir), and a query's memory_limit makes a big aggregate spill on the worker;
//  5. `SET threads = 4096` is refused by the setting; `SET threads = 1024` (1,024 partitions per
//     task) is refused by a worker with --max-threads 2, whose thread count is watched meanwhile;
//  6. tasks of the materialized shuffle run by a worker ignore the driver's spill_dir.
//
// Usage: node tests/integration/confinement.mjs <path to shoal>
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { FailureReport } from './failure_report.mjs';
import { ListeningAddress, WaitFor } from './wait.mjs';

const shoal = process.argv[2];
if (!shoal) {
  console.error('usage: node confinement.mjs <shoal binary>');
  process.exit(2);
}
const sf = '0.01';
const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'shoal-confine-')));
const workers = [];
process.on('exit', () => {
  for (const w of workers) {
    if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGKILL');
  }
  fs.rmSync(tmp, { recursive: true, force: true });
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(1));

const { Fail, Expect } = FailureReport(workers);


// The files: DIR/data is the data root, DIR/outside is not.
const data = path.join(tmp, 'data');
const outside = path.join(tmp, 'outside');
fs.mkdirSync(path.join(data, 'linked'), { recursive: true });
fs.mkdirSync(outside);
let rows = 'k,v\n';
for (let i = 0; i < 2000; ++i) rows += `${i},${i % 7}\n`;
fs.writeFileSync(path.join(data, 'good.csv'), rows);
// Large enough to split into several scan units, so the scan runs on the worker.
let secret = 'k,v\n';
for (let i = 0; i < 100; ++i) secret += `${i},42\n`;
fs.writeFileSync(path.join(outside, 'secret.csv'), secret);
fs.symlinkSync(path.join(outside, 'secret.csv'), path.join(data, 'link.csv'));
fs.writeFileSync(path.join(data, 'linked', 'a.csv'), 'k,v\n1,1\n');
fs.symlinkSync(path.join(outside, 'secret.csv'), path.join(data, 'linked', 'b.csv'));
const workerSpill = path.join(tmp, 'worker-spill');
fs.mkdirSync(workerSpill);

async function StartWorker(extra, listen = '127.0.0.1:0') {
  const log = path.join(tmp, `worker${workers.length}.log`);
  const fd = fs.openSync(log, 'w');
  const child = spawn(shoal, ['worker', '--insecure', '--listen', listen, '--tpch', sf, ...extra],
                      { stdio: ['ignore', fd, fd] });
  fs.closeSync(fd);
  const worker = { child, log, address: '' };
  workers.push(worker);
  worker.address = await ListeningAddress(child, log);
  return worker;
}

// Plain TCP between nodes (the workers run --insecure; TLS is cluster_security.mjs's subject).
const Remote = (args) =>
  args.includes('--workers') || args.includes('--shuffle-workers') ? ['--insecure', ...args] : args;

function Sql(args, timeoutSeconds = 120) {
  const r = spawnSync(shoal, ['sql', '--tpch', sf, '--format', 'csv', ...Remote(args)],
                      { encoding: 'utf8', timeout: timeoutSeconds * 1000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr,
           timedOut: r.error?.code === 'ETIMEDOUT' };
}

// Runs `shoal sql` in the background, sampling `pid`'s thread count until it ends.
async function SqlWatchingThreads(args, pid) {
  const child = spawn(shoal, ['sql', '--tpch', sf, '--format', 'csv', ...Remote(args)],
                      { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => { stdout += d; });
  child.stderr.on('data', (d) => { stderr += d; });
  let most = 0;
  const threads = () => {
    const m = fs.readFileSync(`/proc/${pid}/status`, 'utf8').match(/^Threads:\s+(\d+)/m);
    return m ? Number(m[1]) : 0;
  };
  const ended = await WaitFor(() => {
    most = Math.max(most, threads());
    return child.exitCode !== null || child.signalCode !== null;
  }, 'the query to end', 120000);
  if (!ended) child.kill('SIGKILL');
  return { code: child.exitCode, stdout, stderr, most };
}

const table = (name, location, extra = '') =>
  `CREATE EXTERNAL TABLE ${name} (k bigint, v bigint) STORED AS CSV LOCATION '${location}' ` +
  `OPTIONS ('header' 'true', 'quote' '', 'split_bytes' '64'${extra})`;
const answer = 'SELECT v, count(*) FROM t GROUP BY v ORDER BY v';
const expectedAnswer = Sql(['-c', table('t', path.join(data, 'good.csv')), '-c', answer]);
Expect(expectedAnswer.code === 0, 'the single-node query failed', expectedAnswer);

// 1. Start-up.
let plain;
let confined;
try {
  plain = await StartWorker(['--threads', '2']);
  confined = await StartWorker(['--data-root', data, '--spill-dir', workerSpill,
                                '--max-threads', '2']);
} catch (e) {
  Fail(e.message);
}
{
  const log = fs.readFileSync(plain.log, 'utf8');
  Expect(/data roots: none/.test(log), 'a worker without --data-root does not say so',
         { stdout: log });
  const confinedLog = fs.readFileSync(confined.log, 'utf8');
  Expect(confinedLog.includes(`data roots: ${data}`), 'the worker does not print its roots',
         { stdout: confinedLog });
  Expect(!/reachable from other machines/.test(log), 'a loopback worker warned', { stdout: log });
  // A second worker on the port of the first is refused, clearly.
  const second = spawnSync(shoal, ['worker', '--insecure', '--listen', plain.address],
                           { encoding: 'utf8', timeout: 30000 });
  Expect(second.status !== 0 && second.status !== null && /in use/.test(second.stderr),
         'a second worker on a port in use was not refused', second);
  // Listening on every interface warns.
  const open = await StartWorker([], '0.0.0.0:0');
  Expect(/^0\.0\.0\.0:\d+$/.test(open.address), `a wildcard worker printed ${open.address}`);
  Expect(await WaitFor(() => /WARNING: .*reachable from other machines/.test(
             fs.readFileSync(open.log, 'utf8')), 'the wildcard worker to warn'),
         'a worker on 0.0.0.0 did not warn', { stdout: fs.readFileSync(open.log, 'utf8') });
  open.child.kill('SIGTERM');
  console.log('start-up: defaults printed, port in use refused, wildcard address warned');
}

const onConfined = ['--workers', confined.address, '-c', "SET dist_bytes_per_task = '64B'"];
function ExpectCorrect(what) {
  const r = Sql([...onConfined, '-c', table('t', path.join(data, 'good.csv')), '-c', answer]);
  Expect(r.code === 0 && r.stdout === expectedAnswer.stdout,
         `the confined worker gave a wrong answer ${what}`, r);
}
ExpectCorrect('for a table inside its data root');

// 2. Scans outside the data root, planned by an unconfined coordinator, run on the worker.
for (const [what, location] of [
  ['/etc/passwd', '/etc/passwd'],
  ['/etc/shadow', '/etc/shadow'],
  ['a symlink out of the root', path.join(data, 'link.csv')],
  ['a directory holding a symlink out of the root', path.join(data, 'linked')],
  // Not path.join, which would fold the `..` here instead of leaving it to the worker.
  ['a .. escape', `${data}/../outside/secret.csv`],
  ['a .. escape through a subdirectory', `${data}/linked/../../outside/secret.csv`],
]) {
  const r = Sql([...onConfined, '-c',
                 `CREATE EXTERNAL TABLE x (line text) STORED AS CSV LOCATION '${location}' ` +
                 "OPTIONS ('header' 'false', 'delimiter' '|', 'quote' '', 'split_bytes' '64')",
                 '-c', 'SELECT line, count(*) FROM x GROUP BY line']);
  // The coordinator may refuse a path that does not exist for it; what it does send must be
  // refused by the worker, naming the path and the root.
  Expect(r.code !== 0 && /outside the data roots/.test(r.stderr) && r.stderr.includes(data),
         `a scan of ${what} was not refused by the worker`, r);
  Expect(!r.stdout.includes('1,42') && !r.stdout.includes('root:'), `${what} leaked rows`, r);
  ExpectCorrect(`after refusing ${what}`);
}
console.log('worker data roots: /etc/passwd, /etc/shadow, symlinks and .. escapes refused');

// 3. The coordinator's own --data-root.
{
  const roots = ['--data-root', data];
  for (const [what, sql] of [
    ['an external table', "CREATE EXTERNAL TABLE p (line text) STORED AS CSV LOCATION '/etc/passwd'"],
    ['a directory', "CREATE EXTERNAL TABLE p STORED AS PARQUET LOCATION '/etc'"],
    ['a glob', "CREATE EXTERNAL TABLE p (line text) STORED AS CSV LOCATION '/etc/*.conf'"],
    ['a symlink', `CREATE EXTERNAL TABLE p (k int, v int) STORED AS CSV LOCATION '${path.join(data, 'link.csv')}'`],
    ['COPY TO', `COPY (SELECT 1) TO '${path.join(outside, 'out.csv')}'`],
    ['a spill_dir', `SET spill_dir = '${outside}'; SELECT count(*) FROM nation`],
  ]) {
    const r = Sql([...roots, '-c', sql]);
    Expect(r.code !== 0 && /outside the data roots/.test(r.stderr),
           `the coordinator did not refuse ${what} outside its data roots`, r);
  }
  Expect(!fs.existsSync(path.join(outside, 'out.csv')), 'COPY wrote outside the data roots');
  const inside = Sql([...roots, '-c', `COPY (SELECT 1 AS a) TO '${path.join(data, 'out.csv')}'`,
                      '-c', table('t', path.join(data, 'good.csv')), '-c', answer]);
  Expect(inside.code === 0 && inside.stdout.endsWith(expectedAnswer.stdout),
         'the coordinator refused files inside its data roots', inside);
  console.log('coordinator data roots: tables, directories, globs, COPY, spill_dir outside refused');
}

// 4. Spilling: the worker's own directory, under the query's memory_limit.
{
  const big = 'SELECT l_orderkey, l_partkey, l_suppkey, count(*), sum(l_quantity) FROM lineitem ' +
              'GROUP BY l_orderkey, l_partkey, l_suppkey';
  const r = Sql(['--workers', confined.address, '-c', "SET memory_limit = '6MB'",
                 '-c', "SET spill_dir = '/nonexistent-client-spill-dir'",
                 '-c', `EXPLAIN ANALYZE ${big}`]);
  Expect(r.code === 0 && /spilled=/.test(r.stdout),
         'the worker did not spill the aggregate under the query memory_limit into its own ' +
         'directory', r);
  Expect(!fs.existsSync('/nonexistent-client-spill-dir'), 'the client chose the spill directory');
  Expect(await WaitFor(() => fs.readdirSync(workerSpill).length === 0,
                       'the worker to remove its spill files'),
         'the worker left spill files behind');
  ExpectCorrect('after spilling');
  console.log('spill: under memory_limit, in the worker\'s --spill-dir, not the client\'s');
}

// 5. Threads. The coordinator plans `threads` partitions per task, and a worker pulls each
// partition a consumer reads on a thread of its own: 1,024 would mean 1,024 threads per task.
{
  const refused = Sql(['--workers', confined.address, '-c', 'SET threads = 4096']);
  Expect(refused.code !== 0 && /threads/.test(refused.stderr), 'SET threads = 4096 was accepted',
         refused);
  const threadsOf = (pid) => Number(fs.readFileSync(`/proc/${pid}/status`, 'utf8')
      .match(/^Threads:\s+(\d+)/m)[1]);
  const before = threadsOf(confined.child.pid);
  const tableT = table('t', path.join(data, 'good.csv'));
  const big = await SqlWatchingThreads(['--workers', confined.address, '-c', 'SET threads = 1024',
                                        '-c', "SET dist_bytes_per_task = '64B'", '-c', tableT,
                                        '-c', answer], confined.child.pid);
  Expect(big.code !== 0 && /threads setting is 1024/.test(big.stderr) &&
         /--max-threads/.test(big.stderr),
         'SET threads = 1024 was not refused by the worker (--max-threads 2)', big);
  // Within what the worker accepts (max(64, 4 x --max-threads)) the query runs, on 2 threads.
  const ok = await SqlWatchingThreads(['--workers', confined.address, '-c', 'SET threads = 64',
                                       '-c', "SET dist_bytes_per_task = '64B'", '-c', tableT,
                                       '-c', answer], confined.child.pid);
  Expect(ok.code === 0 && ok.stdout === expectedAnswer.stdout,
         'SET threads = 64 gave a wrong answer', ok);
  const most = Math.max(big.most, ok.most);
  Expect(most < 300, `the worker grew from ${before} to ${most} threads`, ok);
  ExpectCorrect('after SET threads = 1024');
  console.log(`threads: 4096 refused by the setting, 1024 by the worker, 64 ran (worker threads ` +
              `${before} -> at most ${most})`);
}
// 6. The materialized shuffle: tasks a worker runs for a driver spill into the worker's
// --spill-dir whatever spill_dir the driver's session names (the worker rewrites the envelope).
// A task's aggregates share the query's 6 MB; a refusal that is not answered by a spill (an
// output batch, "memory limit exceeded") says nothing about spill_dir, and such a run is repeated.
{
  const shuffleDir = path.join(tmp, 'worker-shuffle');
  const shuffler = await StartWorker(['--shuffle-dir', shuffleDir, '--spill-dir', workerSpill]);
  const big = 'SELECT l_orderkey, l_partkey, l_suppkey, count(*), sum(l_quantity) FROM lineitem ' +
              'GROUP BY l_orderkey, l_partkey, l_suppkey';
  const count = `SELECT count(*), sum(q) FROM (${big.replace('sum(l_quantity)', 'sum(l_quantity) AS q')}) s`;
  const expected = Sql(['-c', count]);
  let r;
  for (let attempt = 0; attempt < 5; ++attempt) {
    r = Sql(['--shuffle-dir', path.join(tmp, 'driver-shuffle'), '--shuffle-workers',
             shuffler.address, '-c', "SET memory_limit = '6MB'",
             '-c', "SET spill_dir = '/nonexistent-client-spill-dir'", '-c', count]);
    if (r.code === 0 || !/memory limit exceeded/.test(r.stderr) || /nonexistent/.test(r.stderr))
      break;
  }
  Expect(expected.code === 0 && r.code === 0 && r.stdout === expected.stdout,
         'a shuffle task on the worker followed the driver\'s spill_dir', r);
  Expect(!fs.existsSync('/nonexistent-client-spill-dir'), 'the driver chose the spill directory');
  console.log('shuffle: the worker\'s tasks spill into its own directory');
}
console.log('confinement: all checks passed');
// The workers' child handles keep the event loop alive; the exit handler stops them.
process.exit(0);
