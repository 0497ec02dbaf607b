// One TPC-H query on DuckDB in a process of its own, for run.mjs --rss: the peak resident memory of
// a process is only the query's when the process ran nothing else. Opens DuckDB exactly as run.mjs
// does in its own process (tpch_engines.mjs: `SET threads`, views over the same files), runs the
// query 1 + --runs times as run.mjs does (RunDuckDB) and prints { times, answer } as JSON on
// stdout: the times of the timed runs (ms) and the warm-up's answer as CSV. Without --query it
// only opens DuckDB and declares the views, and prints {}: the idle baseline (Node.js and DuckDB
// loaded) that run.mjs measures once to set beside the queries' peaks.
//
// Usage (run.mjs starts it through maxrss.py):
//   node bench/tpch/duckdb_query.mjs --data DIR [--format parquet|tbl] [--threads 2] [--runs 3]
//       [--query FILE]
import fs from 'node:fs';
import path from 'node:path';

import { DuckDBConnection, RunDuckDB } from './tpch_engines.mjs';

const options = { data: null, format: 'parquet', threads: 2, runs: 3, query: null };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; ++i) {
  const key = argv[i];
  const value = argv[++i];
  if (value === undefined) throw new Error(`${key} needs a value`);
  switch (key) {
    case '--data': options.data = path.resolve(value); break;
    case '--format': options.format = value; break;
    case '--threads': options.threads = Number(value); break;
    case '--runs': options.runs = Number(value); break;
    case '--query': options.query = path.resolve(value); break;
    default: throw new Error(`unknown option ${key}`);
  }
}
if (options.data === null) throw new Error('--data DIR is needed');

const con = await DuckDBConnection(options);
const result = options.query === null
  ? {} : await RunDuckDB(con, fs.readFileSync(options.query, 'utf8'), options.runs);
process.stdout.write(JSON.stringify(result) + '\n');
