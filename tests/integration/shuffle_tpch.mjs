// Every TPC-H query through the materialized shuffle (`shoal sql --shuffle-dir DIR`: stages run as
// `shoal task` processes exchanging Arrow files), compared with DuckDB's stored answers
// (tests/data/tpch/answers/). After each query its own directory (DIR/q-<id>/) must be gone, and
// `shoal shuffle gc DIR` must succeed on the marked directory.
//
// --source parquet|tbl reads tables generated once by `shoal tpchgen` (tests/tpch/tpch_common.mjs)
// instead of each task process generating the in-memory tables again.
//
//   node shuffle_tpch.mjs SHOAL_BINARY [SF] [--source memory|tbl|parquet] [--parts N]
//                         [--setting name=value ...] [qNN ...]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { Compare, OrderKeys, ParseCsv, TpchTableArguments } from '../tpch/tpch_common.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..', '..');
const shoal = process.argv[2];
const sf = process.argv[3] ?? '0.01';
const settings = [];
let source = 'memory';
let parts = 0;
let only = [];
for (let i = 4; i < process.argv.length; ++i) {
  if (process.argv[i] === '--source') {
    source = process.argv[++i];
  } else if (process.argv[i] === '--parts') {
    parts = Number(process.argv[++i]);
  } else if (process.argv[i] === '--setting') {
    const s = process.argv[++i] ?? '';
    const eq = s.indexOf('=');
    settings.push('-c', `SET ${s.slice(0, eq)} = '${s.slice(eq + 1)}'`);
  } else {
    only.push(process.argv[i]);
  }
}
if (!shoal) {
  console.error('usage: node shuffle_tpch.mjs SHOAL_BINARY [SF] [--source memory|tbl|parquet] ' +
                '[--parts N] [--setting name=value ...] [qNN ...]');
  process.exit(2);
}
const tableArgs = TpchTableArguments(shoal, sf, source, parts);
if (only.length === 0) {
  only = Array.from({ length: 22 }, (_, i) => `q${String(i + 1).padStart(2, '0')}`);
}

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'shoal-shuffle-tpch-'));
process.on('exit', () => fs.rmSync(root, { recursive: true, force: true }));
const kMarker = '.shoal-shuffle';

let passed = 0;
let failed = 0;
const start = Date.now();
for (const name of only) {
  const queryFile = path.join(repo, 'tests', 'data', 'tpch', 'queries', `${name}.sql`);
  const answerFile = path.join(repo, 'tests', 'data', 'tpch', 'answers', `sf${sf}`, `${name}.csv`);
  const dir = path.join(root, name);
  const t0 = Date.now();
  const run = spawnSync(shoal, ['sql', ...tableArgs, '--shuffle-dir', dir, ...settings,
                                '--format', 'csv', '-f', queryFile],
                        { encoding: 'utf8', timeout: 600000, maxBuffer: 1 << 28 });
  const ms = Date.now() - t0;
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
    // The query's own directory (q-<id>/) is gone once it ended: only the marker stays.
    const left = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f !== kMarker) : [];
    if (problem === null && left.length !== 0) problem = `the query left ${left.join(', ')}`;
  }
  if (problem === null && fs.existsSync(dir)) {
    const gc = spawnSync(shoal, ['shuffle', 'gc', dir], { encoding: 'utf8' });
    const left = fs.readdirSync(dir).filter((f) => f !== kMarker);
    if (gc.status !== 0) problem = `shoal shuffle gc failed: ${gc.stderr.trim()}`;
    else if (left.length !== 0) problem = `shoal shuffle gc left ${left.join(', ')}`;
  }
  if (problem === null) {
    ++passed;
    console.log(`${name}: ok (${ms} ms)`);
  } else {
    ++failed;
    console.log(`${name}: FAIL: ${problem}`);
  }
}
console.log(`${passed} passed, ${failed} failed (${((Date.now() - start) / 1000).toFixed(1)} s)`);
process.exit(failed === 0 ? 0 : 1);
