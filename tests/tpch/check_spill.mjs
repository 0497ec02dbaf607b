// TPC-H under a memory limit small enough to force spilling: Q18 and Q21 must still give DuckDB's
// stored answers (check_answers.mjs with --setting memory_limit=...), an ORDER BY over all of
// lineitem must give exactly DuckDB's rows in DuckDB's order (DuckDB runs the same query on the
// same generated .tbl data), and EXPLAIN ANALYZE must show spilled bytes on the operators that
// hold data (Sort, HashAggregate, HashJoin).
//
// Usage: node tests/tpch/check_spill.mjs <path to shoal> [scale factor, default 0.01]
//            [memory limit for Q18 and Q21, default 2MB] [memory limit for the ORDER BY, default 4MB]
//
// The ORDER BY outputs two narrow columns but sorts by l_comment: the sort holds all of lineitem's
// keys while the result (which `shoal sql` keeps in the query's memory until it prints it) stays
// small, so the limit constrains the sort, not the result.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';

import { Compare, CsvField, FormatValue, kTblColumns, ParseCsv, PostgresName } from './tpch_common.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..', '..');
const shoal = process.argv[2];
const sf = process.argv[3] ?? '0.01';
const limit = process.argv[4] ?? '2MB';
const orderLimit = process.argv[5] ?? '4MB';
if (!shoal) {
  console.error('usage: node check_spill.mjs <shoal binary> [scale factor] [memory limit] ' +
                '[ORDER BY memory limit]');
  process.exit(2);
}

let failures = 0;
function Fail(message) {
  console.log(`FAIL: ${message}`);
  ++failures;
}

function Shoal(args) {
  const run = spawnSync(shoal, args, { encoding: 'utf8', timeout: 300000, maxBuffer: 1 << 30 });
  if (run.error) throw run.error;
  return run;
}

// Spilled bytes per operator name in an EXPLAIN ANALYZE text ("spilled=1.2 MiB in 16 files").
function SpilledOperators(text) {
  const out = {};
  for (const line of text.split('\n')) {
    const m = /^\s*([A-Za-z]+)[:(].*spilled=([0-9.]+) ([KMG]?i?B) in (\d+) files/.exec(line);
    if (m && Number(m[2]) > 0) out[m[1]] = (out[m[1]] ?? 0) + Number(m[4]);
  }
  return out;
}

const settings = `SET memory_limit = '${limit}';`;

// 1. Q18 and Q21 against DuckDB's stored answers, spilling.
const answers = spawnSync('node', [path.join(here, 'check_answers.mjs'), shoal, sf,
                                   '--setting', `memory_limit=${limit}`, 'q18', 'q21'],
                          { encoding: 'utf8', stdio: 'inherit' });
if (answers.status !== 0) Fail(`check_answers.mjs q18 q21 with memory_limit=${limit}`);

// 2. They really spilled: Q18 in its aggregation of lineitem by order, Q21 in its joins.
for (const [name, operators] of [['q18', ['HashAggregate']], ['q21', ['HashJoin']]]) {
  const sql = fs.readFileSync(path.join(repo, 'tests', 'data', 'tpch', 'queries', name + '.sql'),
                              'utf8');
  const run = Shoal(['sql', '--tpch', sf, '-c', `${settings} EXPLAIN ANALYZE ${sql}`]);
  if (run.status !== 0) {
    Fail(`${name}: EXPLAIN ANALYZE exited with ${run.status}: ${run.stderr}`);
    continue;
  }
  const spilled = SpilledOperators(run.stdout);
  console.log(`${name}: spill files per operator: ${JSON.stringify(spilled)}`);
  for (const op of operators) {
    if (!spilled[op]) Fail(`${name}: EXPLAIN ANALYZE shows no spilled bytes for ${op}:\n${run.stdout}`);
  }
}

// 3. ORDER BY over all of lineitem, against DuckDB on the same data.
const orderBy = 'SELECT l_orderkey, l_linenumber FROM lineitem ' +
    'ORDER BY l_comment, l_shipdate, l_orderkey, l_linenumber';
const orderSettings = `SET memory_limit = '${orderLimit}';`;
const sorted = Shoal(['sql', '--tpch', sf, '--format', 'csv', '-c', `${orderSettings} ${orderBy}`]);
if (sorted.status !== 0) {
  Fail(`ORDER BY lineitem exited with ${sorted.status}: ${sorted.stderr}`);
} else {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shoal-spill-tpch-'));
  try {
    const gen = Shoal(['tpchgen', '--scale-factor', sf, '--output', dir, '--quiet']);
    if (gen.status !== 0) throw new Error(`tpchgen: ${gen.stderr}`);
    const instance = await DuckDBInstance.create(':memory:');
    const con = await instance.connect();
    const columns = kTblColumns.lineitem;
    const names = columns.split(', ').map((c) => c.split(' ')[0]);
    const types = Object.fromEntries(columns.split(', ').map((c) => c.split(' ')));
    const all = { ...types, trailing: 'VARCHAR' };
    await con.run(`create table lineitem as select ${names.join(', ')} from read_csv(` +
        `'${path.join(dir, 'lineitem.tbl')}', delim = '|', header = false, quote = '', ` +
        `columns = ${JSON.stringify(all).replaceAll('"', "'")})`);
    const reader = await con.runAndReadAll(orderBy);
    const typeNames = reader.columnTypes().map((t) => t.toString());
    let text = reader.columnNames().map(PostgresName).map(CsvField).join(',') + '\n';
    for (const row of reader.getRows())
      text += row.map((v, i) => FormatValue(v, typeNames[i])).join(',') + '\n';
    const expected = ParseCsv(text);
    const actual = ParseCsv(sorted.stdout);
    // The keys end in the unique (l_orderkey, l_linenumber): one order only, compared as is.
    const problem = Compare(expected, actual, []);
    if (problem !== null) Fail(`ORDER BY lineitem: ${problem}`);
    else console.log(`ORDER BY lineitem: ok (${expected.length - 1} rows)`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const explain = Shoal(['sql', '--tpch', sf, '-c', `${orderSettings} EXPLAIN ANALYZE ${orderBy}`]);
  const spilled = SpilledOperators(explain.stdout);
  console.log(`ORDER BY lineitem: spill files per operator: ${JSON.stringify(spilled)}`);
  if (!spilled.Sort) Fail(`ORDER BY lineitem: EXPLAIN ANALYZE shows no spilled Sort:\n${explain.stdout}`);
}

console.log(failures === 0 ? 'all spill checks passed' : `${failures} spill checks failed`);
process.exit(failures === 0 ? 0 : 1);
