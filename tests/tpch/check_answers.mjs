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

// Column lists for TBL external tables: the types of Shoal's in-memory TPC-H tables (and of
// make_answers.mjs). Parquet files carry their own schema.
const kTblColumns = {
  region: 'r_regionkey BIGINT, r_name VARCHAR, r_comment VARCHAR',
  nation: 'n_nationkey BIGINT, n_name VARCHAR, n_regionkey BIGINT, n_comment VARCHAR',
  supplier: 's_suppkey BIGINT, s_name VARCHAR, s_address VARCHAR, s_nationkey BIGINT, ' +
      's_phone VARCHAR, s_acctbal DECIMAL(15,2), s_comment VARCHAR',
  customer: 'c_custkey BIGINT, c_name VARCHAR, c_address VARCHAR, c_nationkey BIGINT, ' +
      'c_phone VARCHAR, c_acctbal DECIMAL(15,2), c_mktsegment VARCHAR, c_comment VARCHAR',
  part: 'p_partkey BIGINT, p_name VARCHAR, p_mfgr VARCHAR, p_brand VARCHAR, p_type VARCHAR, ' +
      'p_size INTEGER, p_container VARCHAR, p_retailprice DECIMAL(15,2), p_comment VARCHAR',
  partsupp: 'ps_partkey BIGINT, ps_suppkey BIGINT, ps_availqty INTEGER, ' +
      'ps_supplycost DECIMAL(15,2), ps_comment VARCHAR',
  orders: 'o_orderkey BIGINT, o_custkey BIGINT, o_orderstatus VARCHAR, ' +
      'o_totalprice DECIMAL(15,2), o_orderdate DATE, o_orderpriority VARCHAR, o_clerk VARCHAR, ' +
      'o_shippriority INTEGER, o_comment VARCHAR',
  lineitem: 'l_orderkey BIGINT, l_partkey BIGINT, l_suppkey BIGINT, l_linenumber INTEGER, ' +
      'l_quantity DECIMAL(15,2), l_extendedprice DECIMAL(15,2), l_discount DECIMAL(15,2), ' +
      'l_tax DECIMAL(15,2), l_returnflag VARCHAR, l_linestatus VARCHAR, l_shipdate DATE, ' +
      'l_commitdate DATE, l_receiptdate DATE, l_shipinstruct VARCHAR, l_shipmode VARCHAR, ' +
      'l_comment VARCHAR',
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
