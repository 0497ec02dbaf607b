// Integration test of the distributed engine with real processes: starts two `shoal worker`s on
// loopback (ports chosen by the OS), runs the TPC-H queries through `shoal sql --workers ...`
// with tests/tpch/check_answers.mjs (DuckDB's stored answers), then checks that a worker killed
// mid-query fails the query with a clear error instead of a hang. The workers are always killed
// at the end, also when a check fails or the script is interrupted.
//
// Usage: node tests/integration/distributed_tpch.mjs <path to shoal> [memory|tbl] [qNN ...]
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..', '..');
const shoal = process.argv[2];
const source = process.argv[3] ?? 'memory';
const only = process.argv.slice(4);
const sf = '0.01';
if (!shoal || !['memory', 'tbl'].includes(source)) {
  console.error('usage: node distributed_tpch.mjs <shoal binary> [memory|tbl] [qNN ...]');
  process.exit(2);
}

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
function StartWorker() {
  const args = ['worker', '--listen', '127.0.0.1:0', '--threads', '2'];
  if (source === 'memory') args.push('--tpch', sf);
  // Output goes to files: spawnSync below blocks node's event loop, and a worker writing to a
  // pipe nobody drains would block.
  const log = path.join(tmp, `worker${workers.length}.log`);
  const fd = fs.openSync(log, 'w');
  const child = spawn(shoal, args, { stdio: ['ignore', fd, fd] });
  fs.closeSync(fd);
  workers.push(child);
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const poll = setInterval(() => {
      const text = fs.readFileSync(log, 'utf8');
      const m = text.match(/listening on (\S+)/);
      if (m) {
        clearInterval(poll);
        resolve(m[1]);
      } else if (child.exitCode !== null || Date.now() - started > 60000) {
        clearInterval(poll);
        reject(new Error(`worker did not start: ${text}`));
      }
    }, 50);
  });
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'shoal-dist-'));
process.on('exit', () => fs.rmSync(tmp, { recursive: true, force: true }));
const addresses = [];
try {
  addresses.push(await StartWorker(), await StartWorker());
} catch (e) {
  Fail(e.message);
}
console.log(`workers: ${addresses.join(', ')}`);

// check_answers.mjs runs `<shoal> sql ...`: a wrapper adds --workers to every `sql` call.
const wrapper = path.join(tmp, 'shoal-distributed');
fs.writeFileSync(wrapper, '#!/bin/sh\n' +
  'if [ "$1" = sql ]; then shift; exec "$SHOAL_REAL" sql --workers "$SHOAL_WORKERS" "$@"; fi\n' +
  'exec "$SHOAL_REAL" "$@"\n', { mode: 0o755 });
const env = { ...process.env, SHOAL_REAL: path.resolve(shoal), SHOAL_WORKERS: addresses.join(',') };

// 1. Every query's answer, with small tasks so that leaf stages use both workers.
const check = spawnSync('node', [path.join(repo, 'tests', 'tpch', 'check_answers.mjs'), wrapper, sf,
                                 '--source', source, '--setting', 'dist_bytes_per_task=64kB',
                                 '--setting', 'threads=2', ...only],
                        { env, encoding: 'utf8', timeout: 900000 });
process.stdout.write(check.stdout ?? '');
process.stderr.write(check.stderr ?? '');
if (check.status !== 0) Fail('TPC-H answers through the workers');

// 2. EXPLAIN shows the stages.
const explain = spawnSync(wrapper, ['sql', ...(source === 'memory' ? ['--tpch', sf] : []),
                                    '-c', 'SET dist_bytes_per_task = \'64kB\'',
                                    '-c', 'EXPLAIN SELECT l_returnflag, count(*) FROM lineitem ' +
                                          'GROUP BY l_returnflag'],
                          { env, encoding: 'utf8', timeout: 120000 });
if (source === 'memory') {
  if (explain.status !== 0) Fail(`EXPLAIN failed: ${explain.stderr}`);
  for (const word of ['NetworkShuffle', 'NetworkCoalesce', 'tasks=2']) {
    if (!explain.stdout.includes(word)) Fail(`EXPLAIN lacks ${word}:\n${explain.stdout}`);
  }
}

// 3. A worker killed mid-query: the query fails with an error naming a worker, well before the
// query could have finished, and never hangs.
if (source === 'memory') {
  const start = Date.now();
  const slow = spawn(wrapper, ['sql', '--tpch', sf, '-c', 'SET dist_bytes_per_task = \'64kB\'',
                               '-c', 'SELECT count(*) FROM lineitem a, lineitem b ' +
                                     'WHERE a.l_orderkey + b.l_orderkey < 0'],
                     { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  slow.stderr.on('data', (d) => { err += d; });
  const killer = setTimeout(() => workers[1].kill('SIGKILL'), 3000);
  const guard = setTimeout(() => { slow.kill('SIGKILL'); }, 120000);
  const code = await new Promise((resolve) => slow.on('exit', (c) => resolve(c)));
  clearTimeout(killer);
  clearTimeout(guard);
  const seconds = (Date.now() - start) / 1000;
  if (code === 0) Fail('the query succeeded although a worker was killed');
  if (code === null) Fail('the query hung after a worker was killed (killed after 120 s)');
  if (!/worker 127\.0\.0\.1:\d+/.test(err)) Fail(`the error does not name the worker:\n${err}`);
  console.log(`killed worker: query failed after ${seconds.toFixed(1)} s: ${err.trim().split('\n')[0]}`);
}
console.log('distributed integration: ok');
process.exit(0);  // the 'exit' handler kills the workers (their pipes would keep node alive)
