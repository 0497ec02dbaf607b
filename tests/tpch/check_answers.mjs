// Runs every TPC-H query with `shoal sql --format csv -f qNN.sql` and compares the result with
// the stored DuckDB answer tests/data/tpch/answers/sf<SF>/qNN.csv (make_answers.mjs).
//
// Usage: node tests/tpch/check_answers.mjs <path to shoal> [scale factor, default 0.01]
//            [--source memory|tbl|parquet] [--parts N] [--setting name=value ...]
//            [--shoal-arg ARG ...] [--timeout SECONDS] [qNN ...]
//
// --source memory (the default) uses `--tpch SF`, tables generated in memory. tbl and parquet
// generate the files once with `shoal tpchgen --format F` into a temporary directory (or
// $SHOAL_TPCH_DATA/sf<SF>-<F> when set, reused when present) and declare them with
// CREATE EXTERNAL TABLE before each query, so the scans go through the file readers.
// --parts N writes each table as N files in a directory (`tpchgen --parts N`), declared by its
// directory, so a scan has several files (and row groups) to split.
// --setting adds `SET name = value` before each query (e.g. memory_limit to force spilling).
// --shoal-arg adds one argument to every `shoal sql` call, e.g. `--shoal-arg --workers=inproc:4`
// to run the queries across in-process workers. --timeout is per query (default 120 s).
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

import { Compare, OrderKeys, ParseCsv, TpchTableArguments } from './tpch_common.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..', '..');

// Queries known to fail, with the reason. Keep in step with the report in answers/README.md.
const kSkip = {
};

function Usage(message) {
  console.error(message);
  console.error('usage: node check_answers.mjs <shoal binary> [scale factor] ' +
                '[--source memory|tbl|parquet] [--parts N] [--setting name=value ...] ' +
                '[--shoal-arg ARG ...] [--timeout SECONDS] [qNN ...]');
  process.exit(2);
}

const shoal = process.argv[2];
const sf = process.argv[3] ?? '0.01';
let source = 'memory';
const settings = [];
const shoalArgs = [];
let parts = 0;
let timeoutSeconds = 120;
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
  } else if (arg === '--shoal-arg') {
    if (i + 1 >= process.argv.length) Usage('--shoal-arg needs a value');
    shoalArgs.push(process.argv[++i]);
  } else if (arg === '--parts') {
    parts = Number(process.argv[++i]);
    if (!Number.isInteger(parts) || parts < 1) Usage(`--parts needs a positive integer`);
  } else if (arg === '--timeout') {
    timeoutSeconds = Number(process.argv[++i]);
    if (!(timeoutSeconds > 0)) Usage(`--timeout needs a positive number of seconds`);
  } else {
    only.push(arg);
  }
}
if (!shoal) Usage('missing the shoal binary');
if (!['memory', 'tbl', 'parquet'].includes(source)) Usage(`unknown --source '${source}'`);
if (parts > 0 && source === 'memory') Usage('--parts needs --source tbl or parquet');

const tableArgs = TpchTableArguments(shoal, sf, source, parts);
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
  const started = Date.now();
  const run = spawnSync(shoal, ['sql', ...shoalArgs, ...tableArgs, ...settingArgs,
                                '--format', 'csv', '-f', queryFile],
                        { encoding: 'utf8', timeout: timeoutSeconds * 1000, maxBuffer: 1 << 28 });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
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
    console.log(`${name}: ok (${seconds} s)` +
                `${skip ? ' (in the skip list but passes now: take it out)' : ''}`);
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
