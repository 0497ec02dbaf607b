// Runs every TPC-H query with `shoal sql --format csv -f qNN.sql` and compares the result with
// the stored DuckDB answer tests/data/tpch/answers/sf<SF>/qNN.csv (make_answers.mjs).
//
// Usage: node tests/tpch/check_answers.mjs <path to shoal> [scale factor, default 0.01]
//            [--source memory|tbl|parquet] [--setting name=value ...] [qNN ...]
//
// --source memory (the default) uses `--tpch SF`, tables generated in memory. tbl and parquet
// generate the files once with `shoal tpchgen --format F` into a temporary directory (or
// $SHOAL_TPCH_DATA/sf<SF>-<F> when set, reused when present) and declare them with
// CREATE EXTERNAL TABLE before each query, so the scans go through the file readers.
// --setting adds `SET name = value` before each query (e.g. memory_limit to force spilling).
//
// Comparison: the header must match exactly; text, integers and dates exactly; fields that both
// parse as numbers are equal when their values differ by at most a relative 1e-9 (so decimals
// compare numerically whatever their scale, and doubles within rounding). Rows compare in order,
// except that rows whose ORDER BY keys are equal (ties, found from the query's last ORDER BY when
// its keys are output columns) may come in any order. Queries in kSkip are run and reported but
// do not fail the test; one that passes is reported so that it can leave the list.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { Compare, kTblColumns, OrderKeys, ParseCsv } from './tpch_common.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..', '..');

// Queries known to fail, with the reason. Keep in step with the report in answers/README.md.
const kSkip = {
};

function Usage(message) {
  console.error(message);
  console.error('usage: node check_answers.mjs <shoal binary> [scale factor] ' +
                '[--source memory|tbl|parquet] [--setting name=value ...] [qNN ...]');
  process.exit(2);
}

const shoal = process.argv[2];
const sf = process.argv[3] ?? '0.01';
let source = 'memory';
const settings = [];
let only = [];
for (let i = 4; i < process.argv.length; ++i) {
  const arg = process.argv[i];
  if (arg === '--source') {
    source = process.argv[++i];
  } else if (arg === '--setting') {
    const setting = process.argv[++i] ?? '';
    const eq = setting.indexOf('=');
    if (eq <= 0) Usage(`--setting needs name=value, got '${setting}'`);
    settings.push(`SET ${setting.slice(0, eq)} = '${setting.slice(eq + 1)}'`);
  } else {
    only.push(arg);
  }
}
if (!shoal) Usage('missing the shoal binary');
if (!['memory', 'tbl', 'parquet'].includes(source)) Usage(`unknown --source '${source}'`);

// The arguments that give shoal its tables: --tpch for memory, otherwise -c statements that
// declare the generated files.
function TableArguments() {
  if (source === 'memory') return ['--tpch', sf];
  let dir;
  let temporary = false;
  if (process.env.SHOAL_TPCH_DATA) {
    dir = path.join(process.env.SHOAL_TPCH_DATA, `sf${sf}-${source}`);
  } else {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), `shoal-tpch-${source}-`));
    temporary = true;
  }
  const ext = source;
  if (!fs.existsSync(path.join(dir, `lineitem.${ext}`))) {
    const gen = spawnSync(shoal, ['tpchgen', '--scale-factor', sf, '--output', dir,
                                  '--format', source], { encoding: 'utf8' });
    if (gen.status !== 0) {
      console.error(`shoal tpchgen failed: ${gen.stderr}`);
      process.exit(1);
    }
  }
  if (temporary) process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  const args = [];
  for (const [table, columns] of Object.entries(kTblColumns)) {
    const location = path.join(dir, `${table}.${ext}`);
    const list = source === 'tbl' ? ` (${columns})` : '';
    args.push('-c', `CREATE EXTERNAL TABLE ${table}${list} STORED AS ${source.toUpperCase()} ` +
                    `LOCATION '${location}'`);
  }
  return args;
}

const tableArgs = TableArguments();
const settingArgs = settings.flatMap((s) => ['-c', s]);
if (only.length === 0) {
  only = Array.from({ length: 22 }, (_, i) => `q${String(i + 1).padStart(2, '0')}`);
}
let failed = 0;
let passed = 0;
let skipped = 0;
for (const name of only) {
  const queryFile = path.join(repo, 'tests', 'data', 'tpch', 'queries', name + '.sql');
  const answerFile = path.join(repo, 'tests', 'data', 'tpch', 'answers', `sf${sf}`, name + '.csv');
  const run = spawnSync(shoal, ['sql', ...tableArgs, ...settingArgs, '--format', 'csv',
                                '-f', queryFile],
                        { encoding: 'utf8', timeout: 120000, maxBuffer: 1 << 28 });
  let problem = null;
  if (run.error) {
    problem = `shoal did not run: ${run.error.message}`;
  } else if (run.status !== 0) {
    problem = `shoal exited with ${run.status}: ${run.stderr.trim()}`;
  } else {
    const expected = ParseCsv(fs.readFileSync(answerFile, 'utf8'));
    const actual = ParseCsv(run.stdout);
    const keys = OrderKeys(fs.readFileSync(queryFile, 'utf8'), expected[0]);
    problem = actual.length === 0 ? 'no output' : Compare(expected, actual, keys);
  }
  const skip = kSkip[name];
  if (problem === null) {
    ++passed;
    console.log(`${name}: ok${skip ? ' (in the skip list but passes now: take it out)' : ''}`);
  } else if (skip) {
    ++skipped;
    console.log(`${name}: SKIP (${skip}): ${problem.split('\n')[0]}`);
  } else {
    ++failed;
    console.log(`${name}: FAIL: ${problem}`);
  }
}
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed === 0 ? 0 : 1);
