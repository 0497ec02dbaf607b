// The materialized shuffle across machines: 2 real `shoal worker --shuffle-dir` processes, each
// with its own directory (nothing shared), run the tasks of `shoal sql --shuffle-dir DIR
// --shuffle-workers A,B`; stage files move between them and to the driver over gRPC. A few TPC-H
// queries are compared with DuckDB's stored answers (tests/data/tpch/answers/) and no stage file
// may stay on the workers after a query that succeeded; then one worker
// is killed and a query must still be answered (its tasks retried on the other worker); finally a
// query with only the dead worker must fail naming it. Every connection (driver -> worker, and a
// worker's task fetching a stage file from the other worker) runs over mutual TLS with signed
// requests (cluster_certs.mjs).
//
//   node shuffle_remote_tpch.mjs SHOAL_BINARY [SF] [qNN ...]
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { Compare, OrderKeys, ParseCsv } from '../tpch/tpch_common.mjs';
import { MakeClusterCerts } from './cluster_certs.mjs';
import { ListeningAddress } from './wait.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..', '..');
const shoal = process.argv[2];
const sf = process.argv[3] ?? '0.01';
let only = process.argv.slice(4);
if (!shoal) {
  console.error('usage: node shuffle_remote_tpch.mjs SHOAL_BINARY [SF] [qNN ...]');
  process.exit(2);
}
if (only.length === 0) only = ['q03', 'q05', 'q09', 'q18'];

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'shoal-shuffle-remote-'));
const security = MakeClusterCerts(path.join(root, 'certs')).args;
const workers = [];
const started = Date.now();
function Cleanup() {
  for (const w of workers) {
    if (w.child.exitCode === null) w.child.kill('SIGKILL');
  }
  fs.rmSync(root, { recursive: true, force: true });
}
process.on('exit', Cleanup);
const kStageFile = /^stage-\d+-part-\d+\.arrow$/;

function StageFiles(dir) {
  if (!fs.existsSync(dir)) return 0;
  let n = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile() && kStageFile.test(e.name)) ++n;
  }
  return n;
}

function TasksRun(worker) {
  return (fs.readFileSync(worker.log, 'utf8').match(/shuffle query \S+: stage \d+ partition/g) ??
          []).length;
}

// Output goes to a file: nobody drains a pipe while spawnSync blocks the event loop.
async function StartWorker(name) {
  const dir = path.join(root, name);
  const log = path.join(root, `${name}.log`);
  const fd = fs.openSync(log, 'w');
  const child = spawn(shoal, ['worker', ...security, '--listen', '127.0.0.1:0', '--shuffle-dir', dir],
                      { stdio: ['ignore', fd, fd], env: { ...process.env, SHOAL_LOG_LEVEL: 'info' } });
  fs.closeSync(fd);
  const worker = { child, dir, log, address: '' };
  workers.push(worker);
  worker.address = await ListeningAddress(child, log);
  return worker;
}

let passed = 0;
let failed = 0;
function Check(name, problem, detail = '') {
  if (problem === null) {
    ++passed;
    console.log(`${name}: ok${detail}`);
  } else {
    ++failed;
    console.log(`${name}: FAIL: ${problem}`);
  }
}

function RunQuery(name, addresses, tag) {
  const queryFile = path.join(repo, 'tests', 'data', 'tpch', 'queries', `${name}.sql`);
  const answerFile = path.join(repo, 'tests', 'data', 'tpch', 'answers', `sf${sf}`, `${name}.csv`);
  const dir = path.join(root, `driver-${name}-${tag}`);
  const t0 = Date.now();
  const run = spawnSync(shoal, ['sql', ...security, '--tpch', sf, '--shuffle-dir', dir, '--shuffle-workers',
                                addresses.join(','), '--format', 'csv', '-f', queryFile],
                        { encoding: 'utf8', timeout: 600000, maxBuffer: 1 << 28 });
  const ms = Date.now() - t0;
  if (run.error) return { problem: `shoal did not run: ${run.error.message}`, ms };
  if (run.status !== 0) {
    return { problem: `shoal exited with ${run.status}: ${run.stderr.trim()}`, ms,
             stderr: run.stderr };
  }
  const expected = ParseCsv(fs.readFileSync(answerFile, 'utf8'));
  const actual = ParseCsv(run.stdout);
  const keys = OrderKeys(fs.readFileSync(queryFile, 'utf8'), expected[0]);
  return { problem: actual.length === 0 ? 'no output' : Compare(expected, actual, keys), ms };
}

const [a, b] = await Promise.all([StartWorker('worker-a'), StartWorker('worker-b')]);

for (const name of only) {
  const r = RunQuery(name, [a.address, b.address], 'both');
  Check(name, r.problem, ` (${r.ms} ms)`);
}
// Both workers ran tasks (their logs say so); a query that succeeded leaves no file on them.
const ranA = TasksRun(a);
const ranB = TasksRun(b);
Check('both workers ran tasks', ranA > 0 && ranB > 0 ? null : `worker-a ${ranA}, worker-b ${ranB}`,
      ` (${ranA} and ${ranB})`);
Check('no stage file is left on the workers',
      StageFiles(a.dir) + StageFiles(b.dir) === 0 ? null
        : `${StageFiles(a.dir)} and ${StageFiles(b.dir)} left`);

// A dead worker: its tasks are retried on the other one and the answer does not change.
b.child.kill('SIGKILL');
await new Promise((resolve) => b.child.once('exit', resolve));
const beforeA = TasksRun(a);
{
  const r = RunQuery(only[0], [b.address, a.address], 'one-dead');
  Check(`${only[0]} with worker-b dead`, r.problem, ` (${r.ms} ms)`);
  Check('the live worker ran the retried tasks',
        TasksRun(a) > beforeA ? null : 'worker-a ran no task');
}
// Only the dead worker, no retries: the error names it.
{
  const queryFile = path.join(repo, 'tests', 'data', 'tpch', 'queries', `${only[0]}.sql`);
  const run = spawnSync(shoal, ['sql', ...security, '--tpch', sf, '--shuffle-dir',
                                path.join(root, 'driver-dead'), '--shuffle-workers', b.address,
                                '-c', 'SET shuffle_task_retries = 0', '-f', queryFile],
                        { encoding: 'utf8', timeout: 120000 });
  Check('only a dead worker fails naming it',
        run.status !== 0 && run.stderr.includes(`worker ${b.address}`)
          ? null
          : `exit ${run.status}, stderr: ${run.stderr}`);
}

console.log(`${passed} passed, ${failed} failed (${((Date.now() - started) / 1000).toFixed(1)} s)`);
process.exit(failed === 0 ? 0 : 1);
