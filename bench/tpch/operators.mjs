// Where each engine's time goes in each TPC-H query, operator by operator (issue 18's per-query
// profile): Shoal's EXPLAIN ANALYZE and DuckDB's JSON profile of the same query over the same
// files, side by side. For every query it prints the operators that took the most time in each
// engine, with the rows they produced, and writes everything as JSON (--json FILE).
//
// Both engines report an operator's time summed over the threads that ran it (CPU time, not wall
// time). DuckDB's figure is the operator's own; Shoal's includes its children, so the self time is
// the operator's figure minus its children's, as this script works it out from the plan's tree.
// Run once after a warm-up; use run.mjs for the timings that count, this to see why.
//
// Usage (from the repository root, after a Release build):
//   node bench/tpch/operators.mjs --shoal build/release/bin/shoal --data /tmp/sf1 [--threads 2]
//       [--queries q01,q12] [--top 3] [--json FILE]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { DuckDBConnection, ShoalTableStatements } from './tpch_engines.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..', '..');

function ParseArgs(argv) {
  const options = {
    shoal: path.join(repo, 'build', 'release', 'bin', 'shoal'), data: null, threads: 2,
    format: 'parquet', queries: null, top: 3, json: null,
  };
  for (let i = 0; i < argv.length; ++i) {
    const key = argv[i];
    const value = argv[++i];
    if (value === undefined) throw new Error(`${key} needs a value`);
    switch (key) {
      case '--shoal': options.shoal = path.resolve(value); break;
      case '--data': options.data = path.resolve(value); break;
      case '--threads': options.threads = Number(value); break;
      case '--queries': options.queries = value.split(','); break;
      case '--top': options.top = Number(value); break;
      case '--json': options.json = path.resolve(value); break;
      default: throw new Error(`unknown argument ${key} (see the header of ${path.basename(import.meta.url)})`);
    }
  }
  if (!options.data) throw new Error('--data DIR (Parquet files from shoal tpchgen) is required');
  return options;
}

// "12.5ms", "1.2s", "830us" / "830µs" in milliseconds.
function Millis(text) {
  const m = /^([0-9.]+)(ms|s|us|µs|ns)$/.exec(text);
  if (!m) return 0;
  const scale = { s: 1000, ms: 1, us: 1e-3, 'µs': 1e-3, ns: 1e-6 }[m[2]];
  return Number(m[1]) * scale;
}

// The operators of an EXPLAIN ANALYZE text: name, depth (by indentation), rows, inclusive time;
// then each one's self time (its time less its children's, never below zero).
export function ShoalOperators(text) {
  const ops = [];
  for (const line of text.split('\n')) {
    const m = /^( *)([A-Za-z]+):? (.*)\((?:.*, )?rows=([0-9]+)(?:, [^)]*)?\)\s*$/.exec(line);
    if (!m) continue;
    const time = /[(, ]time=([0-9.]+(?:ms|s|us|µs|ns))/.exec(line);
    const scan = /^TableScan: ([a-z_]+)/.exec(m[2] + ': ' + m[3]);
    ops.push({ depth: m[1].length, name: scan ? `TableScan ${scan[1]}` : m[2], rows: Number(m[4]),
               total: time ? Millis(time[1]) : 0 });
  }
  for (let i = 0; i < ops.length; ++i) {
    let children = 0;
    for (let j = i + 1; j < ops.length && ops[j].depth > ops[i].depth; ++j) {
      if (ops[j].depth === ops[i].depth + 2) children += ops[j].total;
    }
    ops[i].self = Math.max(0, ops[i].total - children);
  }
  return ops.map(({ name, rows, self }) => ({ name, rows, ms: self }));
}

function RunShoal(options, sql) {
  const script = [`SET threads = ${options.threads};`, ...ShoalTableStatements(options),
                  sql.trim().replace(/;?$/, ';'), 'EXPLAIN ANALYZE ' + sql.trim().replace(/;?$/, ';')];
  const file = path.join(os.tmpdir(), `shoal-operators-${process.pid}.sql`);
  fs.writeFileSync(file, script.join('\n') + '\n');
  const run = spawnSync(options.shoal, ['sql', '--format', 'csv', '-f', file],
                        { encoding: 'utf8', maxBuffer: 1 << 28 });
  fs.rmSync(file, { force: true });
  if (run.status !== 0) throw new Error(`shoal: ${run.stderr.trim()}`);
  // The CSV output of EXPLAIN ANALYZE: one plan line per row, quoted when it holds a comma.
  const plan = run.stdout.split('\n').map((l) => l.replace(/^"(.*)"$/, '$1').replaceAll('""', '"'));
  return ShoalOperators(plan.join('\n'));
}

async function RunDuckDB(con, sql) {
  const file = path.join(os.tmpdir(), `duckdb-operators-${process.pid}.json`);
  await con.runAndReadAll(sql);  // warm-up
  await con.run("PRAGMA enable_profiling = 'json'");
  await con.run(`PRAGMA profiling_output = '${file}'`);
  await con.runAndReadAll(sql);
  await con.run('PRAGMA disable_profiling');
  const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
  fs.rmSync(file, { force: true });
  const ops = [];
  const walk = (node) => {
    if (node.operator_name !== undefined) {
      const table = node.extra_info && node.extra_info.Table ? ` ${node.extra_info.Table}` : '';
      const files = node.extra_info && node.extra_info.Function === 'READ_PARQUET' && node.extra_info.File
          ? ` ${path.basename(String(node.extra_info.File), '.parquet')}` : '';
      ops.push({ name: node.operator_name.trim() + (table || files), rows: node.operator_cardinality,
                 ms: 1000 * node.operator_timing });
    }
    (node.children || []).forEach(walk);
  };
  walk(profile);
  return ops;
}

function Top(ops, n) {
  return [...ops].sort((a, b) => b.ms - a.ms).slice(0, n)
      .map((o) => `${o.name} ${o.ms.toFixed(0)} ms (${o.rows} rows)`).join('; ');
}

const options = ParseArgs(process.argv.slice(2));
const con = await DuckDBConnection(options);
const dir = path.join(repo, 'tests', 'data', 'tpch', 'queries');
const names = options.queries ||
    fs.readdirSync(dir).filter((f) => /^q[0-9]+\.sql$/.test(f)).map((f) => f.slice(0, -4)).sort();
const report = [];
console.log(`| query | Shoal operators (ms) | DuckDB operators (ms) | ratio | Shoal's top ${options.top} | DuckDB's top ${options.top} |`);
console.log('|---|---:|---:|---:|---|---|');
for (const name of names) {
  const sql = fs.readFileSync(path.join(dir, `${name}.sql`), 'utf8');
  const shoal = RunShoal(options, sql);
  const duck = await RunDuckDB(con, sql);
  const sum = (ops) => ops.reduce((s, o) => s + o.ms, 0);
  const [s, d] = [sum(shoal), sum(duck)];
  report.push({ query: name, shoal, duckdb: duck });
  console.log(`| ${name} | ${s.toFixed(0)} | ${d.toFixed(0)} | ${(s / d).toFixed(2)} | ` +
              `${Top(shoal, options.top)} | ${Top(duck, options.top)} |`);
}
if (options.json) fs.writeFileSync(options.json, JSON.stringify(report, null, 1));
