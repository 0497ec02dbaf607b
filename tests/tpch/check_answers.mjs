// Runs every TPC-H query with `shoal sql --tpch SF --format csv -f qNN.sql` and compares the
// result with the stored DuckDB answer tests/data/tpch/answers/sf<SF>/qNN.csv (make_answers.mjs).
//
// Usage: node tests/tpch/check_answers.mjs <path to shoal> [scale factor, default 0.01] [qNN ...]
//
// Comparison: the header must match exactly; text, integers and dates exactly; fields that both
// parse as numbers are equal when their values differ by at most a relative 1e-9 (so decimals
// compare numerically whatever their scale, and doubles within rounding). Rows compare in order,
// except that rows whose ORDER BY keys are equal (ties, found from the query's last ORDER BY when
// its keys are output columns) may come in any order. Queries in kSkip are run and reported but
// do not fail the test; one that passes is reported so that it can leave the list.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..', '..');

// Queries known to fail, with the reason. Keep in step with the report in answers/README.md.
const kSkip = {
};

const kRelativeTolerance = 1e-9;

function ParseCsv(text) {
  const rows = [];
  let row = [];
  let field = '';
  let quoted = false;
  let wasQuoted = false;
  for (let i = 0; i < text.length; ++i) {
    const c = text[i];
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          ++i;
        } else {
          quoted = false;
        }
      } else {
        field += c;
      }
    } else if (c === '"') {
      quoted = true;
      wasQuoted = true;
    } else if (c === ',') {
      row.push(field === '' && !wasQuoted ? null : field);
      field = '';
      wasQuoted = false;
    } else if (c === '\n') {
      row.push(field === '' && !wasQuoted ? null : field);
      rows.push(row);
      row = [];
      field = '';
      wasQuoted = false;
    } else if (c !== '\r') {
      field += c;
    }
  }
  if (field !== '' || row.length > 0) {
    row.push(field === '' && !wasQuoted ? null : field);
    rows.push(row);
  }
  return rows;
}

const kNumber = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

function FieldsEqual(a, b) {
  if (a === b) return true;
  if (a === null || b === null) return false;
  if (!kNumber.test(a) || !kNumber.test(b)) return false;
  const x = Number(a);
  const y = Number(b);
  return Math.abs(x - y) <= kRelativeTolerance * Math.max(Math.abs(x), Math.abs(y));
}

function RowsEqual(a, b) {
  return a.length === b.length && a.every((v, i) => FieldsEqual(v, b[i]));
}

// The output columns of the query's last ORDER BY, or null when a key is not an output column.
function OrderKeys(sql, header) {
  const text = sql.toLowerCase();
  const at = text.lastIndexOf('order by');
  if (at < 0) return [];
  let clause = text.slice(at + 'order by'.length);
  clause = clause.split(/\blimit\b|;|\)/)[0];
  const keys = [];
  for (let key of clause.split(',')) {
    key = key.trim().replace(/\s+(asc|desc)$/, '').trim();
    const index = header.indexOf(key);
    if (index < 0) return null;
    keys.push(index);
  }
  return keys;
}

function Compare(expected, actual, keys) {
  if (!RowsEqual(expected[0], actual[0])) {
    return `header: expected ${expected[0].join(',')}, got ${actual[0].join(',')}`;
  }
  const want = expected.slice(1);
  const got = actual.slice(1);
  if (want.length !== got.length) return `expected ${want.length} rows, got ${got.length}`;
  for (let i = 0; i < want.length;) {
    // The run of expected rows tied with row i on the ORDER BY keys.
    let end = i + 1;
    if (keys !== null) {
      while (end < want.length && keys.every((k) => want[end][k] === want[i][k])) ++end;
    }
    const pending = got.slice(i, end);
    for (let r = i; r < end; ++r) {
      const match = pending.findIndex((row) => row !== null && RowsEqual(want[r], row));
      if (match < 0) {
        return `row ${r + 1}: expected ${want[r].join(',')}\n` +
            `                 got ${(got[r] ?? []).join(',')}`;
      }
      pending[match] = null;
    }
    i = end;
  }
  return null;
}

const shoal = process.argv[2];
const sf = process.argv[3] ?? '0.01';
let only = process.argv.slice(4);
if (!shoal) {
  console.error('usage: node check_answers.mjs <shoal binary> [scale factor] [qNN ...]');
  process.exit(2);
}
if (only.length === 0) {
  only = Array.from({ length: 22 }, (_, i) => `q${String(i + 1).padStart(2, '0')}`);
}
let failed = 0;
let passed = 0;
let skipped = 0;
for (const name of only) {
  const queryFile = path.join(repo, 'tests', 'data', 'tpch', 'queries', name + '.sql');
  const answerFile = path.join(repo, 'tests', 'data', 'tpch', 'answers', `sf${sf}`, name + '.csv');
  const run = spawnSync(shoal, ['sql', '--tpch', sf, '--format', 'csv', '-f', queryFile],
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
