// TPC-H beside DuckDB: runs the 22 queries (tests/data/tpch/queries, PostgreSQL SQL that DuckDB
// also accepts unchanged) on Shoal and on DuckDB over the same files written by `shoal tpchgen`,
// one warm-up and --runs timed runs per query and engine, and reports per-query medians, the
// ratio Shoal / DuckDB and the totals, as a Markdown table on stdout and as JSON (--json FILE).
// Every Shoal answer (its warm-up run) is checked against DuckDB's answer from the same run.
//
// Usage (from the repository root, after a Release build: cmake --preset release && ninja -C build/release):
//   node bench/tpch/run.mjs [--shoal build/release/bin/shoal] [--sf 1] [--threads 2] [--runs 3]
//       [--format parquet|tbl] [--data DIR] [--queries q01,q06] [--json FILE]
//
// Shoal runs each query in one `shoal sql -f SCRIPT` process: the script declares the tables,
// sets `threads`, turns `\timing on` and runs the query 1 + runs times; the times are the
// "Time: N ms" lines `\timing` prints for each statement (planning and execution, not process
// start-up or table declaration). DuckDB runs in this process through @duckdb/node-api with
// `SET threads` equal to Shoal's, over views on read_parquet / read_csv, timed around
// runAndReadAll (which also materialises the result, as Shoal's timing includes printing it).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import {
  Compare, CsvField, FormatValue, kTblColumns, OrderKeys, ParseCsv, PostgresName,
} from '../../tests/tpch/tpch_common.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..', '..');

// DuckDB comes from the test peers' node_modules (scripts/install-deps.sh runs npm ci there).
const requireFromTests = createRequire(path.join(repo, 'tests', 'tpch', 'package.json'));
const { DuckDBInstance } = await import(
    pathToFileURL(requireFromTests.resolve('@duckdb/node-api')).href);

function ParseArgs(argv) {
  const options = {
    shoal: path.join(repo, 'build', 'release', 'bin', 'shoal'),
    sf: '1',
    threads: 2,
    runs: 3,
    format: 'parquet',
    data: null,
    queries: Array.from({ length: 22 }, (_, i) => `q${String(i + 1).padStart(2, '0')}`),
    json: null,
  };
  for (let i = 0; i < argv.length; ++i) {
    const key = argv[i];
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
      case '--json': options.json = path.resolve(value); break;
      default: throw new Error(`unknown option ${key}`);
    }
  }
  if (!['parquet', 'tbl'].includes(options.format)) {
    throw new Error(`--format must be parquet or tbl, not ${options.format}`);
  }
  if (!(options.runs >= 1) || !(options.threads >= 1)) {
    throw new Error('--runs and --threads must be at least 1');
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

function ShoalTableStatements(options) {
  return Object.entries(kTblColumns).map(([table, columns]) => {
    const location = path.join(options.data, `${table}.${options.format}`);
    const list = options.format === 'tbl' ? ` (${columns})` : '';
    return `CREATE EXTERNAL TABLE ${table}${list} STORED AS ${options.format.toUpperCase()} ` +
           `LOCATION '${location}';`;
  });
}

async function DuckDBConnection(options) {
  const instance = await DuckDBInstance.create(':memory:');
  const con = await instance.connect();
  await con.run(`SET threads = ${options.threads}`);
  for (const [table, columns] of Object.entries(kTblColumns)) {
    const file = path.join(options.data, `${table}.${options.format}`);
    if (options.format === 'parquet') {
      await con.run(`CREATE VIEW ${table} AS SELECT * FROM read_parquet('${file}')`);
    } else {
      const names = columns.split(', ').map((c) => c.split(' ')[0]);
      const types = Object.fromEntries(columns.split(', ').map((c) => c.split(' ')));
      const all = { ...types, trailing: 'VARCHAR' };
      await con.run(`CREATE VIEW ${table} AS SELECT ${names.join(', ')} FROM read_csv('${file}', ` +
                    `delim = '|', header = false, quote = '', ` +
                    `columns = ${JSON.stringify(all).replaceAll('"', "'")})`);
    }
  }
  return con;
}

async function RunDuckDB(con, sql, runs) {
  const times = [];
  let answer = null;
  for (let r = 0; r <= runs; ++r) {
    const start = performance.now();
    const reader = await con.runAndReadAll(sql);
    const elapsed = performance.now() - start;
    if (r === 0) {
      const types = reader.columnTypes().map((t) => t.toString());
      let out = reader.columnNames().map(PostgresName).map(CsvField).join(',') + '\n';
      for (const row of reader.getRows()) {
        out += row.map((v, i) => FormatValue(v, types[i])).join(',') + '\n';
      }
      answer = out;
    } else {
      times.push(elapsed);
    }
  }
  return { times, answer };
}

function RunShoal(options, sql, runs) {
  const script = [`SET threads = ${options.threads};`, ...ShoalTableStatements(options),
                  '\\timing on'];
  for (let r = 0; r <= runs; ++r) script.push(sql.trim().replace(/;?$/, ';'));
  const file = path.join(os.tmpdir(), `shoal-bench-${process.pid}.sql`);
  fs.writeFileSync(file, script.join('\n') + '\n');
  const run = spawnSync(options.shoal, ['sql', '--format', 'csv', '-f', file],
                        { encoding: 'utf8', maxBuffer: 1 << 30 });
  fs.rmSync(file, { force: true });
  if (run.status !== 0) return { error: (run.stderr || `exit ${run.status}`).trim() };
  const times = [...run.stderr.matchAll(/^Time: ([0-9.]+) ms$/gm)].map((m) => Number(m[1]));
  if (times.length !== runs + 1) {
    return { error: `expected ${runs + 1} timings, got ${times.length}: ${run.stderr.trim()}` };
  }
  // stdout holds runs + 1 copies of the answer, each with its header line.
  const lines = run.stdout.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const per = lines.length / (runs + 1);
  const answer = Number.isInteger(per) ? lines.slice(0, per).join('\n') + '\n' : run.stdout;
  return { times: times.slice(1), answer };
}

const options = ParseArgs(process.argv.slice(2));
if (!fs.existsSync(options.shoal)) {
  throw new Error(`${options.shoal} does not exist: build it (cmake --preset release && ` +
                  'ninja -C build/release shoal) or pass --shoal');
}
EnsureData(options);
const con = await DuckDBConnection(options);
const results = [];
for (const name of options.queries) {
  const sql = fs.readFileSync(path.join(repo, 'tests', 'data', 'tpch', 'queries', `${name}.sql`),
                              'utf8');
  const duck = await RunDuckDB(con, sql, options.runs);
  const shoal = RunShoal(options, sql, options.runs);
  const result = { query: name, duckdb_ms: Median(duck.times), duckdb_runs: duck.times };
  if (shoal.error) {
    result.error = shoal.error;
  } else {
    result.shoal_ms = Median(shoal.times);
    result.shoal_runs = shoal.times;
    result.ratio = result.shoal_ms / result.duckdb_ms;
    const expected = ParseCsv(duck.answer);
    const problem = Compare(expected, ParseCsv(shoal.answer), OrderKeys(sql, expected[0]));
    result.answer = problem === null ? 'ok' : problem.split('\n')[0];
  }
  results.push(result);
  console.error(`${name}: shoal ${result.shoal_ms?.toFixed(1) ?? 'error'} ms, ` +
                `duckdb ${result.duckdb_ms.toFixed(1)} ms, answer ${result.answer ?? result.error}`);
}

const ok = results.filter((r) => r.shoal_ms !== undefined);
const totalShoal = ok.reduce((s, r) => s + r.shoal_ms, 0);
const totalDuck = ok.reduce((s, r) => s + r.duckdb_ms, 0);
const summary = {
  scale_factor: Number(options.sf), threads: options.threads, runs: options.runs,
  format: options.format, machine: `${os.cpus().length} cpus, ${os.cpus()[0]?.model ?? '?'}`,
  total_shoal_ms: totalShoal, total_duckdb_ms: totalDuck, total_ratio: totalShoal / totalDuck,
  failed: results.filter((r) => r.error || r.answer !== 'ok').map((r) => r.query),
  queries: results,
};
let md = `TPC-H SF ${options.sf}, ${options.format}, ${options.threads} threads, median of ` +
         `${options.runs} runs after one warm-up (ms)\n\n` +
         '| query | Shoal | DuckDB | Shoal / DuckDB | answer |\n|---|---:|---:|---:|---|\n';
for (const r of results) {
  md += `| ${r.query} | ${r.shoal_ms?.toFixed(1) ?? '—'} | ${r.duckdb_ms.toFixed(1)} | ` +
        `${r.ratio?.toFixed(2) ?? '—'} | ${r.answer ?? 'error: ' + r.error.split('\n')[0]} |\n`;
}
md += `| **total** | **${totalShoal.toFixed(1)}** | **${totalDuck.toFixed(1)}** | ` +
      `**${(totalShoal / totalDuck).toFixed(2)}** | ${summary.failed.length} failed |\n`;
process.stdout.write(md);
if (options.json) fs.writeFileSync(options.json, JSON.stringify(summary, null, 2) + '\n');
process.exit(summary.failed.length === 0 ? 0 : 1);
