// Integration test of the distributed engine with real processes: starts `shoal worker`s on
// loopback (ports chosen by the OS), runs the TPC-H queries through `shoal sql --workers ...`
// with tests/tpch/check_answers.mjs (DuckDB's stored answers), checks that EXPLAIN shows network
// stages, then (memory source) that a worker killed mid-query fails the query with a clear error
// instead of a hang. The workers are always killed at the end, also when a check fails or the
// script is interrupted. With --inproc N the same queries run across N workers inside the shell's
// own process (`shoal sql --workers inproc:N`, the in-process transport) and no process starts.
// Worker processes run with mutual TLS and signed requests (cluster_certs.mjs), unless --insecure.
//
// Usage: node tests/integration/distributed_tpch.mjs <path to shoal> [memory|tbl|parquet]
//            [--sf SF (0.01)] [--workers N (2) | --inproc N] [--parts N]
//            [--setting name=value ...] [--timeout SECONDS per query] [--insecure] [qNN ...]
// The settings default to dist_bytes_per_task=64kB and threads=2 (small tasks, so that leaf
// stages use every worker); given ones come after them and so override them. Parquet and TBL data
// are generated once into a temporary directory (or $SHOAL_TPCH_DATA, see check_answers.mjs) and
// read by every worker at the same paths.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { MakeClusterCerts } from './cluster_certs.mjs';
import { CpuSeconds, ListeningAddress, WaitFor } from './wait.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..', '..');
function Usage(message) {
  if (message) console.error(message);
  console.error('usage: node distributed_tpch.mjs <shoal binary> [memory|tbl|parquet] [--sf SF] ' +
                '[--workers N | --inproc N] [--parts N] [--setting name=value ...] ' +
                '[--timeout SECONDS] [--insecure] [qNN ...]');
  process.exit(2);
}
const shoal = process.argv[2];
let source = 'memory';
let sf = '0.01';
let numWorkers = 2;
let inproc = 0;
let parts = 0;
let timeout = 120;
let insecure = false;
const settings = ['dist_bytes_per_task=64kB', 'threads=2'];
const only = [];
for (let i = 3; i < process.argv.length; ++i) {
  const arg = process.argv[i];
  const value = () => {
    if (i + 1 >= process.argv.length) Usage(`${arg} needs a value`);
    return process.argv[++i];
  };
  if (['memory', 'tbl', 'parquet'].includes(arg)) source = arg;
  else if (arg === '--sf') sf = value();
  else if (arg === '--workers') numWorkers = Number(value());
  else if (arg === '--inproc') inproc = Number(value());
  else if (arg === '--parts') parts = Number(value());
  else if (arg === '--setting') settings.push(value());
  else if (arg === '--timeout') timeout = Number(value());
  else if (arg === '--insecure') insecure = true;
  else if (/^q\d\d$/.test(arg)) only.push(arg);
  else Usage(`unknown argument '${arg}'`);
}
if (!shoal) Usage();
if (!(numWorkers >= 1) || !(inproc >= 0) || !(parts >= 0) || !(timeout > 0)) Usage('bad count');
const started = Date.now();

const workers = [];
function KillWorkers() {
  for (const w of workers) {
    if (w.exitCode === null && w.signalCode === null) w.kill('SIGKILL');
  }
}
process.on('exit', KillWorkers);
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => { KillWorkers(); process.exit(1); });
}

function Fail(message) {
  console.error(`FAIL: ${message}`);
  process.exit(1);
}

// Starts a worker on a free port and resolves with its address once it listens.
async function StartWorker() {
  const args = ['worker', ...securityArgs, '--listen', '127.0.0.1:0', '--threads', '2'];
  if (source === 'memory') args.push('--tpch', sf);
  // Output goes to files: spawnSync below blocks node's event loop, and a worker writing to a
  // pipe nobody drains would block.
  const log = path.join(tmp, `worker${workers.length}.log`);
  const fd = fs.openSync(log, 'w');
  const child = spawn(shoal, args, { stdio: ['ignore', fd, fd] });
  fs.closeSync(fd);
  workers.push(child);
  return ListeningAddress(child, log);
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'shoal-dist-'));
process.on('exit', () => fs.rmSync(tmp, { recursive: true, force: true }));
const securityArgs = inproc > 0 ? [] : insecure ? ['--insecure']
                                                : MakeClusterCerts(path.join(tmp, 'certs')).args;
console.log(inproc > 0 ? 'in-process transport'
                       : insecure ? 'plain TCP (--insecure)' : 'mutual TLS, signed requests');
const addresses = [];
if (inproc === 0) {
  try {
    for (let i = 0; i < numWorkers; ++i) addresses.push(await StartWorker());
  } catch (e) {
    Fail(e.message);
  }
  console.log(`workers: ${addresses.join(', ')}`);
} else {
  console.log(`${inproc} in-process workers`);
}
const workersArg = inproc > 0 ? `inproc:${inproc}` : addresses.join(',');

// check_answers.mjs runs `<shoal> sql ...`: a wrapper adds --workers to every `sql` call.
const wrapper = path.join(tmp, 'shoal-distributed');
fs.writeFileSync(wrapper, '#!/bin/sh\n' +
  'if [ "$1" = sql ]; then shift; exec "$SHOAL_REAL" sql --workers "$SHOAL_WORKERS" ' +
  `${securityArgs.map((a) => `'${a}'`).join(' ')} "$@"; fi\n` +
  'exec "$SHOAL_REAL" "$@"\n', { mode: 0o755 });
const env = { ...process.env, SHOAL_REAL: path.resolve(shoal), SHOAL_WORKERS: workersArg };
// Parquet / TBL data: generated once, here, so that EXPLAIN below declares the same files.
if (source !== 'memory' && !env.SHOAL_TPCH_DATA) env.SHOAL_TPCH_DATA = path.join(tmp, 'data');
const partArgs = parts > 0 ? ['--parts', String(parts)] : [];

// 1. Every query's answer, with small tasks so that leaf stages use every worker.
const check = spawnSync('node', [path.join(repo, 'tests', 'tpch', 'check_answers.mjs'), wrapper, sf,
                                 '--source', source, ...partArgs, '--timeout', String(timeout),
                                 ...settings.flatMap((s) => ['--setting', s]), ...only],
                        { env, encoding: 'utf8', timeout: 3600000 });
process.stdout.write(check.stdout ?? '');
process.stderr.write(check.stderr ?? '');
if (check.status !== 0) Fail('TPC-H answers through the workers');

// 2. EXPLAIN shows the stages (the answers above could come from a plan that ran locally).
function TableArgs() {
  if (source === 'memory') return ['--tpch', sf];
  const dir = path.join(env.SHOAL_TPCH_DATA, `sf${sf}-${source}${parts > 0 ? `-p${parts}` : ''}`);
  const location = path.join(dir, parts > 0 ? 'lineitem' : `lineitem.${source}`);
  if (!fs.existsSync(location)) Fail(`no generated data at ${location}`);
  // TBL needs its column list; one column is enough for this EXPLAIN only with Parquet.
  if (source === 'tbl') return [];
  return ['-c', `CREATE EXTERNAL TABLE lineitem STORED AS PARQUET LOCATION '${location}'`];
}
if (source !== 'tbl') {
  const explain = spawnSync(wrapper, ['sql', ...TableArgs(),
                                      ...settings.flatMap((s) => {
                                        const eq = s.indexOf('=');
                                        return ['-c', `SET ${s.slice(0, eq)} = '${s.slice(eq + 1)}'`];
                                      }),
                                      '-c', 'EXPLAIN SELECT l_returnflag, count(*) FROM lineitem ' +
                                            'GROUP BY l_returnflag'],
                            { env, encoding: 'utf8', timeout: 120000 });
  if (explain.status !== 0) Fail(`EXPLAIN failed: ${explain.stderr}`);
  const words = ['NetworkShuffle', 'NetworkCoalesce'];
  if (source === 'memory' && inproc === 0 && numWorkers === 2) words.push('tasks=2');
  for (const word of words) {
    if (!explain.stdout.includes(word)) Fail(`EXPLAIN lacks ${word}:\n${explain.stdout}`);
  }
}

// 3. A worker killed mid-query: the query fails with an error naming a worker, well before the
// query could have finished, and never hangs.
if (source === 'memory' && inproc === 0) {
  const start = Date.now();
  const slow = spawn(wrapper, ['sql', '--tpch', sf, '-c', 'SET dist_bytes_per_task = \'64kB\'',
                               '-c', 'SELECT count(*) FROM lineitem a, lineitem b ' +
                                     'WHERE a.l_orderkey + b.l_orderkey < 0'],
                     { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  slow.stderr.on('data', (d) => { err += d; });
  const exited = new Promise((resolve) => slow.on('exit', (c) => resolve(c)));
  let ended = false;
  exited.then(() => { ended = true; });
  // Kill the last worker once the query runs on it (the shell generates its tables first): its
  // CPU time grows. An idle worker uses next to none.
  const victim = workers[workers.length - 1];
  const idle = CpuSeconds(victim.pid);
  if (!await WaitFor(() => ended || CpuSeconds(victim.pid) - idle >= 0.3,
                     'the last worker to run the query')) {
    slow.kill('SIGKILL');
    Fail('the query never ran on the last worker');
  }
  if (ended) Fail(`the query ended before a worker could be killed:\n${err}`);
  victim.kill('SIGKILL');
  const guard = setTimeout(() => { slow.kill('SIGKILL'); }, 120000);
  const code = await exited;
  clearTimeout(guard);
  const seconds = (Date.now() - start) / 1000;
  if (code === 0) Fail('the query succeeded although a worker was killed');
  if (code === null) Fail('the query hung after a worker was killed (killed after 120 s)');
  if (!/worker 127\.0\.0\.1:\d+/.test(err)) Fail(`the error does not name the worker:\n${err}`);
  console.log(`killed worker: query failed after ${seconds.toFixed(1)} s: ${err.trim().split('\n')[0]}`);
}
console.log(`distributed integration: ok (${((Date.now() - started) / 1000).toFixed(1)} s)`);
process.exit(0);  // the 'exit' handler kills the workers (their pipes would keep node alive)
