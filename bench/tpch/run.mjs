// TPC-H beside DuckDB: runs the 22 queries (tests/data/tpch/queries, PostgreSQL SQL that DuckDB
// also accepts unchanged) on Shoal and on DuckDB over the same files written by `shoal tpchgen`,
// one warm-up and --runs timed runs per query and engine, and reports per-query medians, the
// ratio Shoal / DuckDB and the totals, as a Markdown table on stdout and as JSON (--json FILE).
// Every Shoal answer (its warm-up run) is checked against DuckDB's answer from the same run.
// With --workers N, Shoal also runs every query across N local `shoal worker` processes (started
// on loopback with --threads equal to --threads, stopped at the end) through `shoal sql --workers`,
// and the report adds that column and the ratio distributed / single node (the issue's target for
// 2 workers: at most 1.3x the single-node total). --dist-setting name=value (repeatable) adds a
// SET to the distributed runs only (e.g. dist_compression=lz4, dist_adaptive_task_counts=true,
// retry_policy=task: every worker runs with a --shuffle-dir of its own for that).
// --shuffle adds a run through the materialized shuffle (`SET shuffle_dir` to a fresh directory
// before every run: stages as `shoal task` processes exchanging files), its column and its ratio
// to the single node; --shuffle-setting name=value (repeatable) adds a SET to those runs only
// (e.g. shuffle_compression=none).
// --setting name=value (repeatable) adds a second single-node Shoal run per query with those SETs
// (e.g. runtime_filters=off), run back to back with the plain one (which goes first alternates from
// query to query), with its column and the ratio to the plain run. --scan-rows TABLE runs each
// query once more under EXPLAIN ANALYZE in each single-node configuration and reports the rows that
// left the scans of TABLE (after any runtime filter), summed over the plan's scans of it.
// The workers and `shoal sql` talk plain TCP (--insecure) unless --tls: then mutual TLS with
// signed requests (docs/security.md), certificates from scripts/make-test-certs.sh — to measure
// what TLS costs. --tls-compare measures both in one run: two sets of N workers, one plain and one
// with TLS, and every query runs on both back to back (which goes first alternates from query to
// query), so a change of the machine's load between the two hits both alike; the report adds the
// TLS column and the ratio TLS / plain per query and in total.
// --kill-worker (with --workers 3; issue 16) measures losing a worker mid-query instead: for each
// query, under `SET retry_policy = 'query'`, a run without a kill and a run in which a worker is
// SIGKILLed in the middle of the run, once it is executing (its CPU time grows; the victims
// rotate when several are busy), then restarted on its port; --runs N repeats that N times
// (medians). The report gives both times, whether the retry NOTICE came, and both answers
// against DuckDB. --dist-setting retry_policy=task measures that policy instead (it comes after
// the default SET; no NOTICE is expected then: the driver re-runs tasks, not the query).
// --rss adds each engine's peak resident memory per query (columns "Shoal MB", "DuckDB MB", their
// ratio; the total row gives the maximum over the queries; MB = 2^20 bytes): the kernel's
// high-water mark (getrusage ru_maxrss, through bench/tpch/maxrss.py, which needs python3) of a
// process that ran only that query, its warm-up and its timed runs. Shoal's is the single-node
// `shoal sql` process that gives the times: the shell, the catalog of the eight tables, the
// query's memory and the result it prints. DuckDB's in this process would mix all queries, so with
// --rss each query's DuckDB runs (warm-up and timed) happen in a Node.js child of their own
// (bench/tpch/duckdb_query.mjs, same threads and views), and the DuckDB times and the answer
// Shoal's is checked against come from that child; its peak includes the Node.js runtime and the
// loaded DuckDB library. Before the queries, both are measured idle (Shoal: the script without the
// query; DuckDB: the child opening DuckDB and declaring the views), and the report gives those
// baselines to subtract: on a 2-core x86-64 machine at SF 0.1, 24 MB for Shoal and 90 MB for DuckDB
// (Node.js alone 39 MB, with the DuckDB library loaded 80 MB). No figure is below the wrapper's
// own ~14 MB (see maxrss.py). Only the plain single-node Shoal run is measured, not the
// --setting, distributed or shuffle ones.
// --profile DIR records a CPU profile of each query's single-node Shoal run with `perf record -g`
// (perf: Debian's linux-perf, which scripts/install-deps.sh installs) into
// DIR/qNN.perf.data, in an extra `shoal sql` process after the timed ones (the same script: the
// warm-up and --runs runs, and the table declarations, so the times above are not disturbed),
// and writes `perf report --no-children --percent-limit 1 --stdio` of it to DIR/qNN.txt: the
// functions with at least 1% of the samples by self time, first as a flat list (-g none), then
// with their call chains (a Release build has no frame pointers, so the chains are short; the self
// times are right). The profile covers the whole process: at a small scale factor with few runs,
// start-up (ld.so) shows. Open the rest with `perf report -i DIR/qNN.perf.data`. Not as root, perf
// needs `sysctl kernel.perf_event_paranoid=2` or less (Debian's default, 3, refuses; at 2 the
// kernel's share of the time is not sampled).
//
// Usage (from the repository root, after a Release build: cmake --preset release && ninja -C build/release):
//   node bench/tpch/run.mjs [--shoal build/release/bin/shoal] [--sf 1] [--threads 2] [--runs 3]
//       [--format parquet|tbl] [--data DIR] [--queries q01,q06] [--query-dir DIR] [--json FILE]
//       [--workers N] [--dist-setting name=value ...] [--shuffle] [--shuffle-setting name=value ...]
//       [--tls | --tls-compare] [--setting name=value ...] [--scan-rows TABLE] [--kill-worker]
//       [--rss] [--profile DIR]
//
// --query-dir DIR takes the queries (NAME.sql for each --queries NAME) from DIR instead of the 22
// TPC-H ones: bench/tpch/shapes holds queries over the TPC-H tables that stress one feature
// (shared subplans: s01 and s02).
//
// Shoal runs each query in one `shoal sql -f SCRIPT` process: the script declares the tables,
// sets `threads`, turns `\timing on` and runs the query 1 + runs times; the times are the
// "Time: N ms" lines `\timing` prints for each statement (planning and execution, not process
// start-up or table declaration). DuckDB runs in this process through @duckdb/node-api with
// `SET threads` equal to Shoal's, over views on read_parquet / read_csv, timed around
// runAndReadAll (which also materialises the result, as Shoal's timing includes printing it).
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import {
  Compare, OrderKeys, ParseCsv,
} from '../../tests/tpch/tpch_common.mjs';
import { CpuSeconds, ListeningAddress } from '../../tests/integration/wait.mjs';
import { DuckDBConnection, RunDuckDB, ShoalTableStatements } from './tpch_engines.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..', '..');


function ParseArgs(argv) {
  const options = {
    shoal: path.join(repo, 'build', 'release', 'bin', 'shoal'),
    sf: '1',
    threads: 2,
    runs: 3,
    format: 'parquet',
    data: null,
    queries: Array.from({ length: 22 }, (_, i) => `q${String(i + 1).padStart(2, '0')}`),
    queryDir: path.join(repo, 'tests', 'data', 'tpch', 'queries'),
    json: null,
    workers: 0,
    distSettings: [],
    shuffleSettings: [],
    settings: [],
    scanRows: null,
    shuffle: false,
    rss: false,
    profile: null,
  };
  for (let i = 0; i < argv.length; ++i) {
    const key = argv[i];
    if (key === '--tls') {
      options.tls = true;
      continue;
    }
    if (key === '--tls-compare') {
      options.tlsCompare = true;
      continue;
    }
    if (key === '--shuffle') {
      options.shuffle = true;
      continue;
    }
    if (key === '--kill-worker') {
      options.killWorker = true;
      continue;
    }
    if (key === '--rss') {
      options.rss = true;
      continue;
    }
    if (key === '--help' || key === '-h') {
      // The header comment of this file is the manual.
      const text = fs.readFileSync(fileURLToPath(import.meta.url), 'utf8');
      const header = text.slice(0, text.indexOf('\nimport '));
      console.log(header.split('\n').map((line) => line.replace(/^\/\/ ?/, '')).join('\n'));
      process.exit(0);
    }
    const value = argv[++i];
    if (value === undefined) throw new Error(`${key} needs a value`);
    switch (key) {
      case '--shoal': options.shoal = path.resolve(value); break;
      case '--sf': options.sf = value; break;
      case '--threads': options.threads = Number(value); break;
      case '--runs': options.runs = Number(value); break;
      case '--format': options.format = value; break;
      case '--data': options.data = path.resolve(value); break;
      case '--queries': options.queries = value.split(','); break;
      case '--query-dir': options.queryDir = path.resolve(value); break;
      case '--json': options.json = path.resolve(value); break;
      case '--workers': options.workers = Number(value); break;
      case '--dist-setting': {
        const eq = value.indexOf('=');
        if (eq <= 0) throw new Error(`--dist-setting needs name=value, got '${value}'`);
        options.distSettings.push(`SET ${value.slice(0, eq)} = '${value.slice(eq + 1)}';`);
        break;
      }
      case '--shuffle-setting': {
        const eq = value.indexOf('=');
        if (eq <= 0) throw new Error(`--shuffle-setting needs name=value, got '${value}'`);
        options.shuffleSettings.push(`SET ${value.slice(0, eq)} = '${value.slice(eq + 1)}';`);
        break;
      }
      case '--setting': {
        const eq = value.indexOf('=');
        if (eq <= 0) throw new Error(`--setting needs name=value, got '${value}'`);
        options.settings.push(`SET ${value.slice(0, eq)} = '${value.slice(eq + 1)}';`);
        break;
      }
      case '--scan-rows': options.scanRows = value; break;
      case '--profile': options.profile = path.resolve(value); break;
      default: throw new Error(`unknown option ${key}`);
    }
  }
  if (!['parquet', 'tbl'].includes(options.format)) {
    throw new Error(`--format must be parquet or tbl, not ${options.format}`);
  }
  if (!(options.runs >= 1) || !(options.threads >= 1)) {
    throw new Error('--runs and --threads must be at least 1');
  }
  if (!Number.isInteger(options.workers) || options.workers < 0) {
    throw new Error('--workers must be a number of workers (0: no distributed run)');
  }
  if (options.tlsCompare && (options.tls || options.workers === 0)) {
    throw new Error('--tls-compare needs --workers N and runs plain and TLS itself (no --tls)');
  }
  if (options.killWorker && (options.workers < 2 || options.tls || options.tlsCompare ||
                             options.shuffle)) {
    throw new Error('--kill-worker needs --workers N (N >= 2; 3 for issue 16), plain TCP ' +
                    'and no --shuffle');
  }
  if ((options.rss || options.profile) && options.killWorker) {
    throw new Error('--rss and --profile measure the single-node runs, which --kill-worker skips');
  }
  // Check the tools before the first query rather than fail after an hour of runs.
  if (options.rss && spawnSync('python3', ['-c', 'import resource']).status !== 0) {
    throw new Error('--rss needs python3 (with its resource module) to run bench/tpch/maxrss.py');
  }
  if (options.profile && spawnSync('perf', ['--version']).status !== 0) {
    throw new Error('--profile needs perf, which is not installed: apt-get install linux-perf ' +
                    '(Debian; linux-tools-common and linux-tools-$(uname -r) on Ubuntu)');
  }
  options.data ??= path.join(os.tmpdir(), `shoal-bench-tpch-sf${options.sf}-${options.format}`);
  return options;
}

function Median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function EnsureData(options) {
  const probe = path.join(options.data, `lineitem.${options.format}`);
  if (fs.existsSync(probe)) return;
  console.error(`generating TPC-H SF ${options.sf} (${options.format}) into ${options.data}`);
  const gen = spawnSync(options.shoal, ['tpchgen', '--scale-factor', options.sf, '--output',
                                        options.data, '--format', options.format],
                        { stdio: ['ignore', 'ignore', 'inherit'] });
  if (gen.status !== 0) throw new Error('shoal tpchgen failed');
}

const maxrss = path.join(here, 'maxrss.py');

// Runs `command` (argv) as SpawnMeasured does, without measuring it.
function SpawnPlain(command, spawnOptions) {
  const run = spawnSync(command[0], command.slice(1), spawnOptions);
  return { run, stderr: run.stderr };
}

// Runs `command` (argv) under maxrss.py; returns spawnSync's result, its stderr without the line
// maxrss.py adds, and the peak RSS in MiB (undefined if the line is missing).
function SpawnMeasured(command, spawnOptions) {
  const run = spawnSync('python3', [maxrss, ...command], spawnOptions);
  const m = /\n?shoal-bench maxrss_kib (\d+)\n$/.exec(run.stderr ?? '');
  if (m === null) return { run, stderr: run.stderr };
  return { run, stderr: run.stderr.slice(0, m.index), rssMb: Number(m[1]) / 1024 };
}

// `workers`: addresses for `shoal sql --workers` (empty: single node), reached with the flags
// `security`. `shuffleRoot`: run through the materialized shuffle, each run in a fresh directory
// below it (the driver refuses a used one). `rss`: run it under maxrss.py and return its peak RSS
// (MiB) as `rss_mb`. `wrap`: a command line to run `shoal` under (perf record for --profile).
// `runs` null: no query at all, only the script's preamble (the idle baseline of --rss).
function RunShoal(options, sql, runs, { workers = [], security = options.security,
                                        shuffleRoot = null, settings = [], rss = false,
                                        wrap = [] } = {}) {
  const script = [`SET threads = ${options.threads};`, ...ShoalTableStatements(options),
                  ...(workers.length > 0 ? options.distSettings : []),
                  ...(shuffleRoot ? options.shuffleSettings : []), ...settings, '\\timing on'];
  for (let r = 0; runs !== null && r <= runs; ++r) {
    if (shuffleRoot) {
      script.push('\\timing off', `SET shuffle_dir = '${path.join(shuffleRoot, `run${r}`)}';`,
                  '\\timing on');
    }
    script.push(sql.trim().replace(/;?$/, ';'));
  }
  const file = path.join(os.tmpdir(), `shoal-bench-${process.pid}.sql`);
  fs.writeFileSync(file, script.join('\n') + '\n');
  const workerArgs = workers.length > 0 ? ['--workers', workers.join(','), ...security] : [];
  const command = [...wrap, options.shoal, 'sql', ...workerArgs, '--format', 'csv', '-f', file];
  const spawnOptions = { encoding: 'utf8', maxBuffer: 1 << 30 };
  const { run, stderr, rssMb } = rss ? SpawnMeasured(command, spawnOptions)
                                     : SpawnPlain(command, spawnOptions);
  fs.rmSync(file, { force: true });
  if (run.status !== 0) {
    return { error: (stderr || run.error?.message || `exit ${run.status}`).trim() };
  }
  if (rss && rssMb === undefined) return { error: `no peak RSS from maxrss.py: ${stderr.trim()}` };
  if (runs === null) return { rss_mb: rssMb };
  const times = [...stderr.matchAll(/^Time: ([0-9.]+) ms$/gm)].map((m) => Number(m[1]));
  if (times.length !== runs + 1) {
    return { error: `expected ${runs + 1} timings, got ${times.length}: ${stderr.trim()}` };
  }
  // stdout holds runs + 1 copies of the answer, each with its header line.
  const lines = run.stdout.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const per = lines.length / (runs + 1);
  const answer = Number.isInteger(per) ? lines.slice(0, per).join('\n') + '\n' : run.stdout;
  return { times: times.slice(1), answer, rss_mb: rssMb };
}

// --rss: the query's DuckDB runs in a child of their own (duckdb_query.mjs) under maxrss.py;
// { times, answer, rss_mb } as RunDuckDB's plus the child's peak RSS. `queryFile` null: the idle
// child (DuckDB opened, views declared, no query). Throws on a failure, as RunDuckDB does.
function RunDuckDBChild(options, queryFile, runs) {
  const { run, stderr, rssMb } = SpawnMeasured(
    [process.execPath, path.join(here, 'duckdb_query.mjs'), '--data', options.data, '--format',
     options.format, '--threads', String(options.threads), '--runs', String(runs),
     ...(queryFile === null ? [] : ['--query', queryFile])],
    { encoding: 'utf8', maxBuffer: 1 << 30 });
  if (run.status !== 0 || rssMb === undefined) {
    throw new Error(`duckdb_query.mjs failed (${run.error?.message ?? `exit ${run.status}`}): ` +
                    `${stderr?.trim()}`);
  }
  return { ...JSON.parse(run.stdout), rss_mb: rssMb };
}

// --profile: one more single-node run of the query under `perf record -g` into DIR/NAME.perf.data
// and its top functions by self time into DIR/NAME.txt. Returns an error message or null.
function ProfileShoal(options, name, sql) {
  const data = path.join(options.profile, `${name}.perf.data`);
  // perf record would keep an older file as NAME.perf.data.old.
  fs.rmSync(data, { force: true });
  const wrap = ['perf', 'record', '-g', '-q', '-o', data, '--'];
  const run = RunShoal(options, sql, options.runs, { wrap });
  if (run.error) return run.error;
  // The flat list first (one line a function), then the same with each function's call chains.
  let text = '';
  for (const graph of [['-g', 'none'], []]) {
    const report = spawnSync('perf', ['report', '-i', data, '--no-children', '--percent-limit', '1',
                                      '--stdio', ...graph],
                             { encoding: 'utf8', maxBuffer: 1 << 30 });
    if (report.status !== 0) return `perf report failed: ${report.stderr.trim()}`;
    text += report.stdout + '\n';
  }
  fs.writeFileSync(path.join(options.profile, `${name}.txt`), text);
  return null;
}

// Rows that left the scans of `table` in one EXPLAIN ANALYZE of `sql` on one node, or null.
function ScanRows(options, sql, table, settings) {
  const script = [`SET threads = ${options.threads};`, ...ShoalTableStatements(options),
                  ...settings, `EXPLAIN ANALYZE ${sql.trim().replace(/;?$/, ';')}`];
  const file = path.join(os.tmpdir(), `shoal-bench-scan-${process.pid}.sql`);
  fs.writeFileSync(file, script.join('\n') + '\n');
  const run = spawnSync(options.shoal, ['sql', '-f', file], { encoding: 'utf8', maxBuffer: 1 << 30 });
  fs.rmSync(file, { force: true });
  if (run.status !== 0) return null;
  const pattern = new RegExp(`TableScan: ${table} \\(.*?\\(rows=(\\d+)`, 'g');
  return [...run.stdout.matchAll(pattern)].reduce((sum, m) => sum + Number(m[1]), 0);
}

// Starts `count` workers on loopback (OS-chosen ports); resolves with their addresses. Their output
// goes to files (spawnSync blocks this process's event loop, so nobody would drain a pipe); they
// are killed when this process exits, also on an error or Ctrl-C. `handles` (optional) receives
// one { address, child, security } per worker, which --kill-worker kills and restarts.
const workerChildren = [];
let workerLogDir = null;
async function StartWorker(options, security, listen) {
  if (workerLogDir === null) {
    const kill = () => workerChildren.forEach((c) => c.exitCode === null && c.signalCode === null &&
                                                     c.kill('SIGKILL'));
    process.on('exit', kill);
    for (const signal of ['SIGINT', 'SIGTERM']) {
      process.on(signal, () => { kill(); process.exit(1); });
    }
    workerLogDir = fs.mkdtempSync(path.join(os.tmpdir(), 'shoal-bench-workers-'));
    process.on('exit', () => fs.rmSync(workerLogDir, { recursive: true, force: true }));
  }
  const log = path.join(workerLogDir, `worker${workerChildren.length}.log`);
  const fd = fs.openSync(log, 'w');
  // A shuffle directory each, so that `--dist-setting retry_policy=task` runs its tasks there.
  const shuffleDir = path.join(workerLogDir, `worker${workerChildren.length}-shuffle`);
  const child = spawn(options.shoal, ['worker', ...security, '--listen', listen, '--threads',
                                      String(options.threads), '--shuffle-dir', shuffleDir],
                      { stdio: ['ignore', fd, fd] });
  fs.closeSync(fd);
  workerChildren.push(child);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return { address: await ListeningAddress(child, log, 60000), child, exited, security };
}

async function StartWorkers(options, count, security = options.security, handles = []) {
  for (let i = 0; i < count; ++i) handles.push(await StartWorker(options, security, '127.0.0.1:0'));
  return handles.map((h) => h.address);
}

// --kill-worker (issue 16): every query runs in one `shoal sql` process with
// `SET retry_policy = 'query'` three times: a warm-up, the run without a kill, and the run with
// one. Once the third run has started (two "Time:" lines seen) and has run for half the time the
// second one took (the middle of the query), the first worker whose CPU time grows by
// kKillCpuSeconds from then on (it executes part of the query) gets SIGKILL; when several are
// busy, the one nearest `turn` in rotation order. Waiting for a busy worker rather than killing
// a fixed one matters: a stage of one task runs on one worker (with an older build, all of Q1's
// CPU time at SF 1 went to one worker per run), and killing an idle one measures nothing. After the process ends the
// victim is restarted on the same port, so the next query has all workers again. Both timed runs
// are checked against DuckDB's answer.
const kKillCpuSeconds = 0.01;  // one clock tick, counted only from the middle of a running query
async function RunKilled(options, sql, handles, turn) {
  const script = [`SET threads = ${options.threads};`, ...ShoalTableStatements(options),
                  "SET retry_policy = 'query';", ...options.distSettings, '\\timing on',
                  ...Array(3).fill(sql.trim().replace(/;?$/, ';'))];
  const file = path.join(os.tmpdir(), `shoal-bench-kill-${process.pid}.sql`);
  fs.writeFileSync(file, script.join('\n') + '\n');
  const child = spawn(options.shoal, ['sql', '--workers', handles.map((h) => h.address).join(','),
                                      ...options.security, '--format', 'csv', '-f', file],
                      { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d) => { stdout += d; });
  child.stderr.setEncoding('utf8').on('data', (d) => { stderr += d; });
  const exited = new Promise((resolve) => child.on('close', resolve));
  const timings = () => (stderr.match(/^Time: /gm) ?? []).length;
  // 'waiting', then 'started' (the third run), 'armed' (its middle), 'killed' or 'too late'.
  let state = 'waiting';
  let calmMs = 0;
  let cpu0 = [];
  let armedAt = 0;
  let killAfterMs = null;
  let victim = null;
  // A tight poll (the event loop is free: the child runs asynchronously): short queries at SF 1
  // take a few hundred ms.
  const poll = setInterval(() => {
    const n = timings();
    if (state === 'waiting' && n >= 2) {
      state = 'started';
      armedAt = performance.now();
      calmMs = Number([...stderr.matchAll(/^Time: ([0-9.]+) ms$/gm)][1][1]);
    }
    if (state !== 'started' && state !== 'armed') return;
    if (n >= 3 || child.exitCode !== null) {
      state = 'too late';
      return;
    }
    if (state === 'started') {
      if (performance.now() - armedAt < calmMs / 2) return;
      state = 'armed';
      cpu0 = handles.map((h) => CpuSeconds(h.child.pid));
    }
    for (let k = 0; k < handles.length; ++k) {
      const w = (turn + k) % handles.length;
      if (CpuSeconds(handles[w].child.pid) - cpu0[w] >= kKillCpuSeconds) {
        handles[w].child.kill('SIGKILL');
        killAfterMs = performance.now() - armedAt;
        victim = w;
        state = 'killed';
        return;
      }
    }
  }, 2);
  const deadline = setTimeout(() => child.kill('SIGKILL'), 600000);
  const status = await exited;
  clearInterval(poll);
  clearTimeout(deadline);
  fs.rmSync(file, { force: true });
  const result = { victim, state, kill_after_ms: killAfterMs,
                   retried: /^NOTICE: .*running the query again/m.test(stderr) };
  const times = [...stderr.matchAll(/^Time: ([0-9.]+) ms$/gm)].map((m) => Number(m[1]));
  const lines = stdout.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const per = lines.length / times.length;
  const copy = (i) => lines.slice(i * per, (i + 1) * per).join('\n') + '\n';
  if (times.length >= 2) {
    result.calm_ms = times[1];
    result.calm_answer = copy(1);
  }
  if (times.length >= 3) {
    result.kill_ms = times[2];
    result.kill_answer = copy(2);
  }
  if (status !== 0 || times.length < 3) {
    result.error = stderr.split('\n').filter((l) => !/^(Time|NOTICE):/.test(l)).join(' ').trim() ||
                   `exit ${status}`;
  }
  // Restart the victim on its port once it is gone (when the kill came too late, it lives on).
  if (state === 'killed') {
    const h = handles[victim];
    await h.exited;
    handles[victim] = await StartWorker(options, h.security, h.address);
  }
  return result;
}

// --runs N repeats each query's process N times (the victim rotating too) and reports medians:
// of the runs without a kill, and of the runs in which the kill landed.
async function KillWorkerBench(options, handles, con) {
  const results = [];
  for (const [i, name] of options.queries.entries()) {
    const sql = fs.readFileSync(path.join(options.queryDir, `${name}.sql`), 'utf8');
    const expected = ParseCsv((await RunDuckDB(con, sql, 0)).answer);
    const check = (answer) => {
      if (answer === undefined) return 'none';
      const problem = Compare(expected, ParseCsv(answer), OrderKeys(sql, expected[0]));
      return problem === null ? 'ok' : problem.split('\n')[0];
    };
    const runs = [];
    for (let k = 0; k < options.runs; ++k) {
      const r = await RunKilled(options, sql, handles, (i + k) % handles.length);
      r.calm_check = check(r.calm_answer);
      r.kill_check = check(r.kill_answer);
      delete r.calm_answer;
      delete r.kill_answer;
      runs.push(r);
      console.error(`${name}: no kill ${r.calm_ms?.toFixed(1) ?? '-'} ms, ` +
                    `${r.state === 'killed' ? `worker ${r.victim + 1} ` : ''}${r.state}` +
                    `${r.kill_after_ms !== null ? ` after ${r.kill_after_ms.toFixed(0)} ms` : ''}` +
                    `, with kill ${r.kill_ms?.toFixed(1) ?? '-'} ms, retry ${r.retried}, answers ` +
                    `${r.calm_check} / ${r.kill_check}${r.error ? `, error: ${r.error}` : ''}`);
    }
    const calm = runs.filter((r) => r.calm_ms !== undefined);
    const hit = runs.filter((r) => r.state === 'killed' && r.kill_ms !== undefined);
    const problem = (key) => runs.map((r) => r[key]).find((c) => c !== 'ok') ?? 'ok';
    results.push({
      query: name, runs,
      killed: hit.length, retried: runs.filter((r) => r.retried).length,
      victims: hit.map((r) => r.victim + 1),
      kill_after_ms: hit.length ? Median(hit.map((r) => r.kill_after_ms)) : undefined,
      calm_ms: calm.length ? Median(calm.map((r) => r.calm_ms)) : undefined,
      kill_ms: hit.length ? Median(hit.map((r) => r.kill_ms)) : undefined,
      calm_check: problem('calm_check'), kill_check: problem('kill_check'),
      error: runs.map((r) => r.error).find((e) => e),
    });
  }
  const both = results.filter((r) => r.calm_ms !== undefined && r.kill_ms !== undefined);
  const calm = both.reduce((s, r) => s + r.calm_ms, 0);
  const killed = both.reduce((s, r) => s + r.kill_ms, 0);
  const failed = results.filter((r) => r.error || r.calm_check !== 'ok' || r.kill_check !== 'ok');
  const n = options.runs;
  let md = `TPC-H SF ${options.sf}, ${options.format}, ${handles.length} local workers of ` +
           `${options.threads} threads, \`SET retry_policy = 'query'\`` +
           `${options.distSettings.length ? ` then \`${options.distSettings.join(' ')}\`` : ''}` +
           `; per query ${n} ` +
           `process${n > 1 ? 'es' : ''} of three runs (a warm-up, one without a kill, one with ` +
           `a worker SIGKILLed mid-query); ${n > 1 ? 'medians, ' : ''}ms. Totals over the ` +
           'queries the kill landed in.\n\n' +
           '| query | killed (worker) | kill at (ms into the run) | no kill | with kill | ' +
           'with / without | retry NOTICE | answer (no kill / kill) |\n' +
           '|---|---|---:|---:|---:|---:|---|---|\n';
  for (const r of results) {
    md += `| ${r.query} | ${r.killed}/${n}` +
          `${r.victims.length ? ` (${r.victims.join(', ')})` : ''} | ` +
          `${r.kill_after_ms?.toFixed(0) ?? '—'} | ${r.calm_ms?.toFixed(1) ?? '—'} | ` +
          `${r.kill_ms?.toFixed(1) ?? '—'} | ` +
          `${r.kill_ms && r.calm_ms ? (r.kill_ms / r.calm_ms).toFixed(2) : '—'} | ` +
          `${r.retried}/${n} | ${r.calm_check} / ${r.kill_check}` +
          `${r.error ? `; error: ${r.error.slice(0, 200)}` : ''} |\n`;
  }
  md += `| **total** | ${results.reduce((s, r) => s + r.killed, 0)}/${n * results.length} | | ` +
        `**${calm.toFixed(1)}** | **${killed.toFixed(1)}** | **${(killed / calm).toFixed(2)}** | ` +
        `${results.reduce((s, r) => s + r.retried, 0)}/${n * results.length} | ` +
        `${failed.length} failed |\n`;
  process.stdout.write(md);
  if (options.json) {
    fs.writeFileSync(options.json, JSON.stringify({
      scale_factor: Number(options.sf), threads: options.threads, workers: handles.length,
      runs: n, machine: `${os.cpus().length} cpus, ${os.cpus()[0]?.model ?? '?'}`,
      total_calm_ms: calm, total_kill_ms: killed, failed: failed.map((r) => r.query),
      queries: results }, null, 2) + '\n');
  }
  process.exit(failed.length === 0 ? 0 : 1);
}

const options = ParseArgs(process.argv.slice(2));
if (!fs.existsSync(options.shoal)) {
  throw new Error(`${options.shoal} does not exist: build it (cmake --preset release && ` +
                  'ninja -C build/release shoal) or pass --shoal');
}
EnsureData(options);
options.security = ['--insecure'];
if ((options.tls || options.tlsCompare) && options.workers > 0) {
  const certs = fs.mkdtempSync(path.join(os.tmpdir(), 'shoal-bench-certs-'));
  process.on('exit', () => fs.rmSync(certs, { recursive: true, force: true }));
  const made = spawnSync('bash', [path.join(path.dirname(new URL(import.meta.url).pathname), '..',
                                            '..', 'scripts', 'make-test-certs.sh'), certs]);
  if (made.status !== 0) throw new Error(`make-test-certs.sh failed: ${made.stderr}`);
  const tls = ['--tls-cert', path.join(certs, 'node.pem'), '--tls-key',
               path.join(certs, 'node.key'), '--tls-ca', path.join(certs, 'ca.pem'),
               '--cluster-secret-file', path.join(certs, 'cluster-secret')];
  if (options.tlsCompare) options.tlsSecurity = tls;
  else options.security = tls;
}
const workerHandles = [];
const workers = options.workers > 0
  ? await StartWorkers(options, options.workers, options.security, workerHandles) : [];
if (workers.length > 0) console.error(`workers: ${workers.join(', ')}`);
const tlsWorkers = options.tlsCompare
  ? await StartWorkers(options, options.workers, options.tlsSecurity) : [];
if (tlsWorkers.length > 0) console.error(`TLS workers: ${tlsWorkers.join(', ')}`);
// With --rss, DuckDB runs in children only (duckdb_query.mjs): one in this process too would not
// change their numbers, but it is not needed.
const con = options.rss ? null : await DuckDBConnection(options);
if (options.killWorker) await KillWorkerBench(options, workerHandles, con);
// --rss: both engines idle, once, as the baselines of the report.
const idle = {};
if (options.rss) {
  const shoalIdle = RunShoal(options, '', null, { rss: true });
  if (shoalIdle.error) throw new Error(`shoal sql without a query failed: ${shoalIdle.error}`);
  idle.shoal_mb = shoalIdle.rss_mb;
  idle.duckdb_mb = RunDuckDBChild(options, null, 0).rss_mb;
  console.error(`idle peak RSS: shoal ${idle.shoal_mb.toFixed(1)} MB, duckdb (Node.js child) ` +
                `${idle.duckdb_mb.toFixed(1)} MB`);
}
if (options.profile) fs.mkdirSync(options.profile, { recursive: true });
const results = [];
for (const name of options.queries) {
  const queryFile = path.join(options.queryDir, `${name}.sql`);
  const sql = fs.readFileSync(queryFile, 'utf8');
  const duck = options.rss ? RunDuckDBChild(options, queryFile, options.runs)
                           : await RunDuckDB(con, sql, options.runs);
  const withSettings = options.settings.length > 0;
  const plain = { rss: options.rss };
  let shoal, setting;
  if (withSettings && results.length % 2 === 1) {
    setting = RunShoal(options, sql, options.runs, { settings: options.settings });
    shoal = RunShoal(options, sql, options.runs, plain);
  } else {
    shoal = RunShoal(options, sql, options.runs, plain);
    if (withSettings) setting = RunShoal(options, sql, options.runs, { settings: options.settings });
  }
  const result = { query: name, duckdb_ms: Median(duck.times), duckdb_runs: duck.times };
  if (options.rss) result.duckdb_rss_mb = duck.rss_mb;
  if (shoal.error) {
    result.error = shoal.error;
  } else {
    result.shoal_ms = Median(shoal.times);
    result.shoal_runs = shoal.times;
    result.ratio = result.shoal_ms / result.duckdb_ms;
    if (options.rss) {
      result.shoal_rss_mb = shoal.rss_mb;
      result.rss_ratio = result.shoal_rss_mb / result.duckdb_rss_mb;
    }
    const expected = ParseCsv(duck.answer);
    const problem = Compare(expected, ParseCsv(shoal.answer), OrderKeys(sql, expected[0]));
    result.answer = problem === null ? 'ok' : problem.split('\n')[0];
  }
  if (withSettings) {
    if (setting.error) {
      result.error = result.error ?? `with ${options.settings.join(' ')}: ${setting.error}`;
    } else {
      result.setting_ms = Median(setting.times);
      result.setting_runs = setting.times;
      if (result.shoal_ms !== undefined) result.setting_ratio = result.setting_ms / result.shoal_ms;
      const expected = ParseCsv(duck.answer);
      const problem = Compare(expected, ParseCsv(setting.answer), OrderKeys(sql, expected[0]));
      if (problem !== null && result.answer === 'ok') {
        result.answer = `with ${options.settings.join(' ')}: ${problem.split('\n')[0]}`;
      }
    }
  }
  if (options.scanRows) {
    result.scan_rows = ScanRows(options, sql, options.scanRows, []);
    if (withSettings) {
      result.setting_scan_rows = ScanRows(options, sql, options.scanRows, options.settings);
    }
  }
  // The distributed runs: plain (or TLS with --tls), and with --tls-compare TLS too, in an order
  // that alternates from query to query.
  const distRuns = workers.length > 0 ? [{ key: 'workers', workers, label: '' }] : [];
  if (options.tlsCompare) {
    distRuns.push({ key: 'tls', workers: tlsWorkers, security: options.tlsSecurity,
                    label: ' over TLS' });
    if (results.length % 2 === 1) distRuns.reverse();
  }
  for (const { key, workers: addresses, security, label } of distRuns) {
    const dist = RunShoal(options, sql, options.runs, { workers: addresses, security });
    if (dist.error) {
      result.error = result.error ?? `with ${addresses.length} workers${label}: ${dist.error}`;
      continue;
    }
    result[`${key}_ms`] = Median(dist.times);
    result[`${key}_runs`] = dist.times;
    if (result.shoal_ms !== undefined) result[`${key}_ratio`] = result[`${key}_ms`] / result.shoal_ms;
    const expected = ParseCsv(duck.answer);
    const problem = Compare(expected, ParseCsv(dist.answer), OrderKeys(sql, expected[0]));
    if (problem !== null && result.answer === 'ok') {
      result.answer = `with ${addresses.length} workers${label}: ${problem.split('\n')[0]}`;
    }
  }
  if (result.workers_ms !== undefined && result.tls_ms !== undefined) {
    result.tls_plain_ratio = result.tls_ms / result.workers_ms;
  }
  if (options.shuffle) {
    const shuffleRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'shoal-bench-shuffle-'));
    const mat = RunShoal(options, sql, options.runs, { shuffleRoot });
    fs.rmSync(shuffleRoot, { recursive: true, force: true });
    if (mat.error) {
      result.error = result.error ?? `through the shuffle: ${mat.error}`;
    } else {
      result.shuffle_ms = Median(mat.times);
      result.shuffle_runs = mat.times;
      if (result.shoal_ms !== undefined) result.shuffle_ratio = result.shuffle_ms / result.shoal_ms;
      const expected = ParseCsv(duck.answer);
      const problem = Compare(expected, ParseCsv(mat.answer), OrderKeys(sql, expected[0]));
      if (problem !== null && result.answer === 'ok') {
        result.answer = `through the shuffle: ${problem.split('\n')[0]}`;
      }
    }
  }
  // Last, so that the profile's run disturbs none of the timed ones.
  if (options.profile) {
    const problem = ProfileShoal(options, name, sql);
    if (problem === null) {
      result.profile = path.join(options.profile, `${name}.txt`);
    } else {
      result.profile_error = problem;
      console.error(`${name}: no profile: ${problem}`);
    }
  }
  results.push(result);
  console.error(`${name}: shoal ${result.shoal_ms?.toFixed(1) ?? 'error'} ms, ` +
                (withSettings ? `with settings ${result.setting_ms?.toFixed(1) ?? 'error'} ms, ` : '') +
                (options.scanRows ? `${options.scanRows} rows ${result.scan_rows}` +
                                    (withSettings ? ` / ${result.setting_scan_rows}` : '') + ', '
                                  : '') +
                (options.shuffle ? `shuffle ${result.shuffle_ms?.toFixed(1) ?? 'error'} ms, ` : '') +
                (workers.length > 0
                  ? `${workers.length} workers ${result.workers_ms?.toFixed(1) ?? 'error'} ms, `
                  : '') +
                (options.tlsCompare
                  ? `TLS ${result.tls_ms?.toFixed(1) ?? 'error'} ms ` +
                    `(x${result.tls_plain_ratio?.toFixed(2) ?? '?'}), `
                  : '') +
                `duckdb ${result.duckdb_ms.toFixed(1)} ms, ` +
                (options.rss ? `peak RSS shoal ${result.shoal_rss_mb?.toFixed(1) ?? 'error'} MB, ` +
                               `duckdb ${result.duckdb_rss_mb.toFixed(1)} MB, ` : '') +
                `answer ${result.answer ?? result.error}`);
}

const distributed = workers.length > 0;
// Totals over the queries every engine ran, so the ratios compare the same work.
const ok = results.filter((r) => r.shoal_ms !== undefined &&
                                 (!distributed || r.workers_ms !== undefined) &&
                                 (!options.tlsCompare || r.tls_ms !== undefined) &&
                                 (!options.shuffle || r.shuffle_ms !== undefined) &&
                                 (options.settings.length === 0 || r.setting_ms !== undefined));
const totalShoal = ok.reduce((s, r) => s + r.shoal_ms, 0);
const totalDuck = ok.reduce((s, r) => s + r.duckdb_ms, 0);
const totalWorkers = ok.reduce((s, r) => s + (r.workers_ms ?? 0), 0);
const totalShuffle = ok.reduce((s, r) => s + (r.shuffle_ms ?? 0), 0);
const totalTls = ok.reduce((s, r) => s + (r.tls_ms ?? 0), 0);
const totalSetting = ok.reduce((s, r) => s + (r.setting_ms ?? 0), 0);
// Peak memory does not add up over queries run one after another: the total row gives the maximum.
const maxShoalRss = Math.max(0, ...ok.map((r) => r.shoal_rss_mb ?? 0));
const maxDuckRss = Math.max(0, ...ok.map((r) => r.duckdb_rss_mb ?? 0));
const summary = {
  scale_factor: Number(options.sf), threads: options.threads, runs: options.runs,
  format: options.format, machine: `${os.cpus().length} cpus, ${os.cpus()[0]?.model ?? '?'}`,
  total_shoal_ms: totalShoal, total_duckdb_ms: totalDuck, total_ratio: totalShoal / totalDuck,
  ...(distributed ? {
    workers: workers.length, dist_settings: options.distSettings, total_workers_ms: totalWorkers,
    total_workers_ratio: totalWorkers / totalShoal,
  } : {}),
  ...(options.tlsCompare ? {
    total_tls_ms: totalTls, total_tls_ratio: totalTls / totalShoal,
    total_tls_plain_ratio: totalTls / totalWorkers,
  } : {}),
  ...(options.settings.length > 0 ? {
    settings: options.settings, total_setting_ms: totalSetting,
    total_setting_ratio: totalSetting / totalShoal,
  } : {}),
  ...(options.shuffle ? {
    shuffle_settings: options.shuffleSettings, total_shuffle_ms: totalShuffle,
    total_shuffle_ratio: totalShuffle / totalShoal,
  } : {}),
  ...(options.rss ? {
    duckdb_runs_in: 'a child process per query (duckdb_query.mjs)',
    idle_shoal_rss_mb: idle.shoal_mb, idle_duckdb_rss_mb: idle.duckdb_mb,
    max_shoal_rss_mb: maxShoalRss, max_duckdb_rss_mb: maxDuckRss,
    max_rss_ratio: maxShoalRss / maxDuckRss,
  } : {}),
  ...(options.profile ? { profile_dir: options.profile } : {}),
  failed: results.filter((r) => r.error || r.answer !== 'ok').map((r) => r.query),
  queries: results,
};
const n = workers.length;
// Columns beyond single-node Shoal and DuckDB: the distributed run and the shuffle run.
const extra = [];
if (options.settings.length > 0) {
  const label = options.settings.map((x) => x.replace(/^SET /, '').replace(/;$/, '')).join(', ');
  extra.push({ title: `Shoal (${label})`, ratio: 'with settings / Shoal', ms: 'setting_ms',
               r: 'setting_ratio', total: totalSetting });
}
if (distributed) extra.push({ title: `Shoal ${n} workers`, ratio: `${n} workers / Shoal`,
                              ms: 'workers_ms', r: 'workers_ratio', total: totalWorkers });
if (options.tlsCompare) extra.push({ title: `Shoal ${n} workers TLS`, ratio: 'TLS / plain',
                                     ms: 'tls_ms', r: 'tls_plain_ratio', total: totalTls,
                                     base: totalWorkers });
if (options.shuffle) extra.push({ title: 'Shoal shuffle', ratio: 'shuffle / Shoal',
                                  ms: 'shuffle_ms', r: 'shuffle_ratio', total: totalShuffle });
let md = `TPC-H SF ${options.sf}, ${options.format}, ${options.threads} threads, median of ` +
         `${options.runs} runs after one warm-up (ms)` +
         (distributed ? `; ${n} local workers of ${options.threads} threads each` +
                        (options.tls ? ', mutual TLS' : '') +
                        (options.tlsCompare ? ', plain and mutual TLS interleaved' : '') +
                        (options.distSettings.length ? ` (${options.distSettings.join(' ')})` : '')
                      : '') +
         (options.shuffle ? '; shuffle: `shoal sql` with `shuffle_dir` (task processes)' +
                            (options.shuffleSettings.length
                              ? ` (${options.shuffleSettings.join(' ')})` : '') : '') +
         (options.rss ? '; peak RSS (MB = 2^20 bytes) of the process that ran the query (its ' +
                        'warm-up and timed runs; total row: the maximum), DuckDB\'s times and ' +
                        'RSS from a Node.js child per query; idle baselines (included in the ' +
                        `figures): Shoal ${idle.shoal_mb.toFixed(1)} MB, DuckDB ` +
                        `${idle.duckdb_mb.toFixed(1)} MB` : '') +
         '\n\n' +
         `| query | Shoal | ${extra.map((e) => `${e.title} | `).join('')}DuckDB | Shoal / DuckDB | ` +
         `${extra.map((e) => `${e.ratio} | `).join('')}` +
         `${options.rss ? 'Shoal MB | DuckDB MB | Shoal / DuckDB MB | ' : ''}answer |\n` +
         `|---|---:|${extra.map(() => '---:|').join('')}---:|---:|` +
         `${extra.map(() => '---:|').join('')}${options.rss ? '---:|---:|---:|' : ''}---|\n`;
for (const r of results) {
  md += `| ${r.query} | ${r.shoal_ms?.toFixed(1) ?? '—'} | ` +
        extra.map((e) => `${r[e.ms]?.toFixed(1) ?? '—'} | `).join('') +
        `${r.duckdb_ms.toFixed(1)} | ${r.ratio?.toFixed(2) ?? '—'} | ` +
        extra.map((e) => `${r[e.r]?.toFixed(2) ?? '—'} | `).join('') +
        (options.rss ? `${r.shoal_rss_mb?.toFixed(1) ?? '—'} | ${r.duckdb_rss_mb.toFixed(1)} | ` +
                       `${r.rss_ratio?.toFixed(2) ?? '—'} | ` : '') +
        `${r.answer ?? 'error: ' + r.error.split('\n')[0]} |\n`;
}
md += `| **total** | **${totalShoal.toFixed(1)}** | ` +
      extra.map((e) => `**${e.total.toFixed(1)}** | `).join('') +
      `**${totalDuck.toFixed(1)}** | **${(totalShoal / totalDuck).toFixed(2)}** | ` +
      extra.map((e) => `**${(e.total / (e.base ?? totalShoal)).toFixed(2)}** | `).join('') +
      (options.rss ? `**max ${maxShoalRss.toFixed(1)}** | **max ${maxDuckRss.toFixed(1)}** | ` +
                     `**${(maxShoalRss / maxDuckRss).toFixed(2)}** | ` : '') +
      `${summary.failed.length} failed |\n`;
if (options.scanRows) {
  md += `\nRows that left the scans of ${options.scanRows} (EXPLAIN ANALYZE, one node):\n\n` +
        `| query | Shoal |${options.settings.length > 0 ? ' with settings |' : ''}\n` +
        `|---|---:|${options.settings.length > 0 ? '---:|' : ''}\n`;
  for (const r of results) {
    if (!r.scan_rows && !r.setting_scan_rows) continue;
    md += `| ${r.query} | ${r.scan_rows ?? '—'} |` +
          (options.settings.length > 0 ? ` ${r.setting_scan_rows ?? '—'} |` : '') + '\n';
  }
}
if (options.profile) {
  const missing = results.filter((r) => r.profile_error);
  md += '\nCPU profiles of the single-node Shoal runs (perf record -g, one more process after ' +
        `the timed ones): ${options.profile}/qNN.txt (top functions by self time), ` +
        `${options.profile}/qNN.perf.data (perf report -i)` +
        (missing.length ? `; none for ${missing.map((r) => r.query).join(', ')}` : '') + '\n';
}
process.stdout.write(md);
if (options.json) fs.writeFileSync(options.json, JSON.stringify(summary, null, 2) + '\n');
process.exit(summary.failed.length === 0 ? 0 : 1);
