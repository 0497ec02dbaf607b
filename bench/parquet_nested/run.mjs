// Scan throughput of a nested Parquet file, Shoal beside DuckDB (@duckdb/node-api from
// tests/tpch/node_modules) on the same file, the same thread count and a warm cache.
//
// DuckDB writes ROWS rows (default 5,000,000) of id BIGINT, l BIGINT[] (0-7 items, NULLs at both
// levels), s STRUCT(a INTEGER, b VARCHAR, c DOUBLE) and m MAP(VARCHAR, INTEGER) (0-4 entries)
// with its defaults (Snappy, row groups of 122,880 rows). Both systems then run
//   SELECT count(l), count(s), count(m) FROM t
// which reads the three nested columns (their validity comes from the levels; Shoal decodes and
// assembles every leaf, as it reads whole top-level columns). A WHERE ... IS NOT NULL filter
// instead would also time the filter's copy of the surviving nested rows, which Shoal's exec
// layer still does value by value through the builders. One warm-up, then --runs timed runs each; the
// medians give rows/s and MB/s (the file's size over the time). Shoal's time is `\timing` of
// `shoal sql` (planning and execution), DuckDB's that of runAndReadAll.
//
//   node bench/parquet_nested/run.mjs --shoal build/release/bin/shoal [--rows N] [--threads T]
//        [--runs R] [--dir DIR]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '..', '..', 'tests', 'tpch', 'package.json'));
const { DuckDBInstance } = require('@duckdb/node-api');

const options = { shoal: null, rows: 5000000, threads: 2, runs: 3, dir: null };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i += 2) {
  const key = argv[i].replace(/^--/, '');
  if (!(key in options)) {
    console.error(`unknown option ${argv[i]}`);
    process.exit(2);
  }
  options[key] = key === 'shoal' || key === 'dir' ? argv[i + 1] : Number(argv[i + 1]);
}
if (!options.shoal || !fs.existsSync(options.shoal)) {
  console.error('usage: run.mjs --shoal SHOAL_BINARY [--rows N] [--threads T] [--runs R] [--dir DIR]');
  process.exit(2);
}
const dir = options.dir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'shoal-nested-bench-'));
fs.mkdirSync(dir, { recursive: true });
const file = path.join(dir, `nested_${options.rows}.parquet`);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
await con.run(`SET threads = ${options.threads}`);
if (!fs.existsSync(file)) {
  await con.run(`COPY (SELECT i AS id,
      CASE WHEN i % 13 = 0 THEN NULL ELSE list_transform(range(i % 8), lambda k:
        CASE WHEN (i + k) % 11 = 0 THEN NULL ELSE i * 8 + k END) END AS l,
      CASE WHEN i % 17 = 0 THEN NULL ELSE {'a': (i % 1000)::INTEGER, 'b': 'name ' || (i % 5000),
        'c': i / 7.0} END AS s,
      CASE WHEN i % 19 = 0 THEN NULL ELSE map_from_entries(list_transform(range(i % 5), lambda k:
        {'k': 'key' || k, 'v': CASE WHEN k = 3 THEN NULL ELSE (i + k)::INTEGER END})) END AS m
    FROM range(${options.rows}) t(i)) TO '${file}' (FORMAT parquet)`);
}
const bytes = fs.statSync(file).size;
const query = 'SELECT count(l), count(s), count(m) FROM t';

// DuckDB.
await con.run(`CREATE VIEW t AS SELECT * FROM read_parquet('${file}')`);
const duckTimes = [];
let duckAnswer = null;
for (let r = 0; r <= options.runs; ++r) {
  const start = performance.now();
  const result = await con.runAndReadAll(query);
  const elapsed = performance.now() - start;
  duckAnswer = result.getRows()[0].map(String).join(',');
  if (r > 0) duckTimes.push(elapsed);
}

// Shoal.
const script = [`SET threads = ${options.threads};`,
  `CREATE EXTERNAL TABLE t STORED AS PARQUET LOCATION '${file}';`, '\\timing on'];
for (let r = 0; r <= options.runs; ++r) script.push(`${query};`);
const sqlFile = path.join(dir, 'bench.sql');
fs.writeFileSync(sqlFile, script.join('\n') + '\n');
const run = spawnSync(options.shoal, ['sql', '--format', 'csv', '-f', sqlFile],
  { encoding: 'utf8', maxBuffer: 1 << 28 });
if (run.status !== 0) {
  console.error(`shoal failed: ${run.stderr}`);
  process.exit(1);
}
const shoalTimes = [...run.stderr.matchAll(/^Time: ([0-9.]+) ms$/gm)].map((m) => Number(m[1])).slice(1);
const shoalAnswer = run.stdout.split('\n')[1];
if (shoalAnswer !== duckAnswer) {
  console.error(`answers differ: Shoal ${shoalAnswer}, DuckDB ${duckAnswer}`);
  process.exit(1);
}

const row = (name, times) => {
  const ms = median(times);
  return `| ${name} | ${ms.toFixed(0)} | ${(options.rows / ms / 1000).toFixed(2)} | ` +
    `${(bytes / 1e6 / (ms / 1000)).toFixed(0)} |`;
};
console.log(`${options.rows} rows, ${(bytes / 1e6).toFixed(1)} MB file, ${options.threads} threads, ` +
  `median of ${options.runs} runs (${os.cpus().length} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB)`);
console.log('| system | ms | M rows/s | MB/s |');
console.log('|---|---|---|---|');
console.log(row('Shoal', shoalTimes));
console.log(row('DuckDB', duckTimes));
console.log(`Shoal / DuckDB time: ${(median(shoalTimes) / median(duckTimes)).toFixed(2)}`);
if (!options.dir) fs.rmSync(dir, { recursive: true, force: true });
