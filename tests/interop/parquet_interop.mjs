// Parquet interop between Shoal and DuckDB (@duckdb/node-api, the test-only peer installed in
// tests/tpch/node_modules), checked value by value in both directions:
//
//  A. Shoal writes Parquet with COPY (every type of the columnar core that Parquet holds, from
//     `shoal demo`'s Arrow file read as an external table, plus a 10000-row table with nulls,
//     dictionary and plain columns, several row groups, each compression) and the same rows as CSV.
//     DuckDB reads both; the rows must be equal (EXCEPT ALL both ways, and in the same order), and
//     the footers must say what was asked: row groups, codec, dictionary encoding where it pays,
//     statistics (min / max / null count per row group).
//  B. DuckDB writes Parquet (its default, several compressions, small row groups, and
//     PARQUET_VERSION v2 with its delta encodings); Shoal reads each file as an external table and
//     writes its rows as CSV; DuckDB compares them with its own table.
//  C. `shoal tpchgen --format parquet` at SF 0.01 (one file per table, and --parts 3): DuckDB reads
//     the files and they hold exactly the rows of the .tbl files (the dbgen-exact data), with equal
//     row counts and checksums.
//
//   node tests/interop/parquet_interop.mjs SHOAL_BINARY [WORK_DIR] [--only=A|B|C]
//
// Exits 1 listing every failed check. WORK_DIR keeps the files; without it a temporary directory
// is used and removed when everything passed.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '..', 'tpch', 'package.json'));
const { DuckDBInstance } = require('@duckdb/node-api');

const args = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const only = (process.argv.find((a) => a.startsWith('--only=')) || '').slice(7);
if (args.length < 1 || !fs.existsSync(args[0])) {
  console.error('usage: parquet_interop.mjs SHOAL_BINARY [WORK_DIR] [--only=A|B|C]');
  process.exit(2);
}
const shoalBin = path.resolve(args[0]);
const ownWork = args.length < 2;
const work = ownWork ? fs.mkdtempSync(path.join(os.tmpdir(), 'shoal-parquet-interop-')) : path.resolve(args[1]);
fs.rmSync(work, { recursive: true, force: true });
fs.mkdirSync(work, { recursive: true });

const failures = [];
let checks = 0;
function check(ok, what) {
  checks++;
  if (!ok) {
    failures.push(what);
    console.log(`FAIL ${what}`);
  }
}

function run(argv) {
  const r = spawnSync(shoalBin, argv, { encoding: 'utf8', maxBuffer: 1 << 28 });
  return { ok: r.status === 0, out: r.stdout, err: r.stderr };
}

function shoalSql(statements) {
  return run(['sql', ...statements.flatMap((s) => ['-c', s])]);
}

const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
async function rows(sql) {
  const r = await con.runAndReadAll(sql);
  return r.getRows();
}
async function scalar(sql) {
  const v = (await rows(sql))[0][0];
  return typeof v === 'bigint' ? Number(v) : v;
}
const q = (s) => `'${s.replaceAll("'", "''")}'`;

// The columns of a Parquet file as DuckDB types it, and a CSV reader with the same types (BLOBs as
// text: Shoal spells bytea as PostgreSQL does, \x followed by hex).
async function columnsOf(parquet) {
  return (await rows(`DESCRIBE SELECT * FROM read_parquet(${q(parquet)})`)).map((r) => ({
    name: r[0],
    type: r[1],
  }));
}
// PostgreSQL spells dates and timestamps before year 1 "... BC"; DuckDB reads "... (BC)".
const kDateTypes = new Set(['DATE', 'TIMESTAMP', 'TIMESTAMP WITH TIME ZONE']);
function csvSelect(csv, columns, extra = '') {
  const spec = columns
    .map((c) => `${q(c.name)}: ${q(c.type === 'BLOB' || kDateTypes.has(c.type) ? 'VARCHAR' : c.type)}`)
    .join(', ');
  const exprs = columns.map((c) => (kDateTypes.has(c.type)
    ? `CAST(replace("${c.name}", ' BC', ' (BC)') AS ${c.type}) AS "${c.name}"` : `"${c.name}"`));
  return `SELECT ${exprs.join(', ')} FROM read_csv(${q(csv)}, header = true, auto_detect = false, ` +
    `columns = {${spec}}, nullstr = '', allow_quoted_nulls = false, quote = '"', escape = '"'${extra})`;
}
function parquetSelect(parquet, columns) {
  const exprs = columns.map((c) =>
    c.type === 'BLOB' ? `'\\x' || lower(hex("${c.name}")) AS "${c.name}"` : `"${c.name}"`);
  return `SELECT ${exprs.join(', ')} FROM read_parquet(${q(parquet)})`;
}

// Same multiset of rows both ways, same count, and (ordered by file position) the same key order.
async function expectSameRows(what, left, right, expectedRows, key) {
  const missing = await scalar(`SELECT count(*) FROM (${left} EXCEPT ALL ${right})`);
  const extra = await scalar(`SELECT count(*) FROM (${right} EXCEPT ALL ${left})`);
  const n = await scalar(`SELECT count(*) FROM (${left})`);
  check(missing === 0 && extra === 0, `${what}: ${missing} rows only on the left, ${extra} only on the right`);
  check(n === expectedRows, `${what}: ${n} rows, expected ${expectedRows}`);
  if (key) {
    const misordered = await scalar(
      `SELECT count(*) FROM (SELECT "${key}" AS k, row_number() OVER () AS r FROM (${left})) a ` +
      `JOIN (SELECT "${key}" AS k, row_number() OVER () AS r FROM (${right})) b USING (r) ` +
      'WHERE a.k IS DISTINCT FROM b.k');
    check(misordered === 0, `${what}: ${misordered} rows in a different order`);
  }
}

const kCompressions = [
  ['none', 'UNCOMPRESSED'],
  ['snappy', 'SNAPPY'],
  ['gzip', 'GZIP'],
  ['zstd', 'ZSTD'],
  ['lz4', 'LZ4_RAW'],
];

// ---- A: Shoal writes, DuckDB reads ------------------------------------------------------------
async function partA() {
  const demo = path.join(work, 'demo.arrow');
  const made = run(['demo', '-o', demo, '--rows', '2000']);
  check(made.ok, `shoal demo failed: ${made.err}`);
  // Every column but the interval (Parquet has no month-day-nano interval; checked below).
  const demoColumns = 'id, flag, i8, i16, i64, u8, u16, u32, u64, f32, f64, price, big, day, ts, ' +
    'tstz, name, bytes, city';
  const wide = [
    'CREATE TABLE digits AS SELECT * FROM (VALUES (0),(1),(2),(3),(4),(5),(6),(7),(8),(9)) v(d)',
    'CREATE TABLE wide AS SELECT a.d * 1000 + b.d * 100 + c.d * 10 + e.d AS n ' +
      'FROM digits a, digits b, digits c, digits e',
    'CREATE TABLE w AS SELECT n, ' +
      'CASE WHEN n % 7 = 0 THEN NULL ELSE CAST(n AS bigint) * 1000003 END AS big_plain, ' +
      'CAST(n % 5 AS smallint) AS small_dict, ' +
      "'category-' || CAST(n % 13 AS text) AS str_dict, " +
      "CASE WHEN n % 3 = 0 THEN NULL ELSE 'row ' || CAST(n AS text) || ', \"unique\" ' || CAST(n * 7919 % 10007 AS text) END AS str_plain, " +
      'CAST(n AS double precision) / 7 AS dbl, ' +
      'CAST(n AS real) / 4 AS flt, ' +
      'CAST(n * 3 AS decimal(12,2)) AS dec64, ' +
      'CASE WHEN n % 5 = 0 THEN NULL ELSE CAST(n AS decimal(30,5)) END AS dec128, ' +
      "DATE '2000-01-01' + CAST(n AS integer) AS dt, " +
      'CASE WHEN n % 11 = 0 THEN NULL ELSE n % 2 = 0 END AS flag, ' +
      'CAST(NULL AS integer) AS nothing ' +
      'FROM wide',
  ];
  const statements = [...wide, `CREATE EXTERNAL TABLE d STORED AS ARROW LOCATION ${q(demo)}`];
  for (const [c] of kCompressions) {
    statements.push(`COPY (SELECT * FROM w ORDER BY n) TO ${q(path.join(work, `wide_${c}.parquet`))} ` +
      `(FORMAT parquet, COMPRESSION ${c}, ROW_GROUP_SIZE 3000)`);
    statements.push(`COPY (SELECT ${demoColumns} FROM d) TO ${q(path.join(work, `demo_${c}.parquet`))} ` +
      `(FORMAT parquet, COMPRESSION ${c}, ROW_GROUP_SIZE 700)`);
  }
  statements.push(`COPY (SELECT * FROM w ORDER BY n) TO ${q(path.join(work, 'wide.csv'))}`);
  statements.push(`COPY (SELECT ${demoColumns} FROM d) TO ${q(path.join(work, 'demo.csv'))} (FORMAT csv)`);
  const r = shoalSql(statements);
  check(r.ok, `Shoal COPY statements failed: ${r.err}`);
  if (!r.ok) return;
  // The interval column is refused with a clear error, and no file is left behind.
  const bad = path.join(work, 'interval.parquet');
  const refused = shoalSql([`CREATE EXTERNAL TABLE d STORED AS ARROW LOCATION ${q(demo)}`,
    `COPY d TO ${q(bad)}`]);
  check(!refused.ok && refused.err.includes('interval'), `COPY of an interval column: ${refused.err}`);
  check(!fs.existsSync(bad) && fs.readdirSync(work).every((f) => !f.includes('.tmp-')),
    'a failed COPY left a file behind');

  for (const [c, codec] of kCompressions) {
    for (const [name, csv, total, key, groupRows] of [
      ['wide', 'wide.csv', 10000, 'n', 3000],
      ['demo', 'demo.csv', 2000, 'id', 700],
    ]) {
      const file = path.join(work, `${name}_${c}.parquet`);
      const columns = await columnsOf(file);
      await expectSameRows(`${name}_${c}.parquet vs Shoal's CSV`, parquetSelect(file, columns),
        csvSelect(path.join(work, csv), columns), total, key);
      const meta = `parquet_metadata(${q(file)})`;
      const groups = await scalar(`SELECT count(DISTINCT row_group_id) FROM ${meta}`);
      check(groups === Math.ceil(total / groupRows), `${name}_${c}: ${groups} row groups`);
      const codecs = (await rows(`SELECT DISTINCT compression FROM ${meta}`)).map((x) => x[0]);
      check(codecs.length === 1 && codecs[0] === codec, `${name}_${c}: codecs ${codecs}, expected ${codec}`);
      const unstated = await scalar(`SELECT count(*) FROM ${meta} WHERE stats_null_count IS NULL`);
      check(unstated === 0, `${name}_${c}: ${unstated} column chunks without a null count`);
    }
    // Statistics and encodings of the wide file, per row group.
    const file = path.join(work, `wide_${c}.parquet`);
    const meta = `parquet_metadata(${q(file)})`;
    const stats = await rows(
      `SELECT row_group_id, path_in_schema, stats_min_value, stats_max_value, stats_null_count, encodings ` +
      `FROM ${meta} ORDER BY row_group_id, column_id`);
    for (const [group, column, min, max, nulls, encodings] of stats) {
      const lo = Number(group) * 3000;
      const hi = Math.min(lo + 3000, 10000) - 1;
      const where = `wide_${c} row group ${group} column ${column}`;
      if (column === 'n') {
        check(min === String(lo) && max === String(hi), `${where}: min ${min} max ${max}`);
        check(!encodings.includes('RLE_DICTIONARY'), `${where}: unique keys dictionary-encoded`);
      } else if (column === 'big_plain') {
        let expected = 0;
        for (let n = lo; n <= hi; n++) if (n % 7 === 0) expected++;
        check(Number(nulls) === expected, `${where}: null count ${nulls}, expected ${expected}`);
        const firstValid = lo % 7 === 0 ? lo + 1 : lo;
        const lastValid = hi % 7 === 0 ? hi - 1 : hi;
        check(min === String(firstValid * 1000003) && max === String(lastValid * 1000003),
          `${where}: min ${min} max ${max}`);
      } else if (column === 'str_dict') {
        check(min === 'category-0' && max === 'category-9', `${where}: min ${min} max ${max}`);
        check(encodings.includes('RLE_DICTIONARY'), `${where}: not dictionary-encoded (${encodings})`);
      } else if (column === 'small_dict') {
        check(min === '0' && max === '4', `${where}: min ${min} max ${max}`);
        check(encodings.includes('RLE_DICTIONARY'), `${where}: not dictionary-encoded (${encodings})`);
      } else if (column === 'str_plain') {
        check(!encodings.includes('RLE_DICTIONARY'), `${where}: unique strings dictionary-encoded`);
      } else if (column === 'nothing') {
        check(Number(nulls) === hi - lo + 1, `${where}: null count ${nulls}`);
      }
    }
    // Types as declared: LogicalType and the legacy ConvertedType.
    const schema = await rows(`SELECT name, type, converted_type, logical_type FROM parquet_schema(${q(
      path.join(work, `demo_${c}.parquet`))})`);
    const byName = Object.fromEntries(schema.map((s) => [s[0], s]));
    const expect = {
      i8: ['INT32', 'INT_8'], u8: ['INT32', 'UINT_8'], u32: ['INT32', 'UINT_32'], u64: ['INT64', 'UINT_64'],
      price: ['INT64', 'DECIMAL'], big: ['FIXED_LEN_BYTE_ARRAY', 'DECIMAL'], day: ['INT32', 'DATE'],
      tstz: ['INT64', 'TIMESTAMP_MILLIS'], name: ['BYTE_ARRAY', 'UTF8'], city: ['BYTE_ARRAY', 'UTF8'],
    };
    for (const [col, [type, converted]] of Object.entries(expect)) {
      const s = byName[col];
      check(s && s[1] === type && s[2] === converted, `demo_${c} column ${col}: ${s}`);
    }
  }
}

// ---- B: DuckDB writes, Shoal reads ------------------------------------------------------------
async function partB() {
  await con.run(`CREATE TABLE src AS SELECT i::INTEGER AS i,
      CASE WHEN i % 7 = 0 THEN NULL ELSE i::BIGINT * 1000003 END AS b,
      (i % 100)::SMALLINT AS s,
      (i % 50 - 25)::TINYINT AS t,
      CASE WHEN i % 9 = 0 THEN NULL ELSE i / 7.0 END::DOUBLE AS dbl,
      (i / 4.0)::FLOAT AS flt,
      (i * 3)::DECIMAL(9,2) AS d9,
      (i * 1000 + 0.125)::DECIMAL(18,3) AS d18,
      CASE WHEN i % 5 = 0 THEN NULL ELSE i::DECIMAL(30,4) END AS d30,
      DATE '2000-01-01' + i::INTEGER AS dt,
      TIMESTAMP '2020-01-01 00:00:00' + INTERVAL (i) SECOND AS ts,
      'category-' || (i % 13) AS str_dict,
      CASE WHEN i % 3 = 0 THEN NULL ELSE 'row ' || i || ' text ' || (i * 7919 % 10007) END AS str_plain,
      CASE WHEN i % 11 = 0 THEN NULL ELSE i % 2 = 0 END AS flag
    FROM range(10000) r(i)`);
  const variants = [
    ['default', ''],
    ['zstd', ', COMPRESSION zstd'],
    ['gzip', ', COMPRESSION gzip'],
    ['lz4', ', COMPRESSION lz4'],
    ['uncompressed_small_groups', ', COMPRESSION uncompressed, ROW_GROUP_SIZE 2048'],
    ['v2', ", PARQUET_VERSION v2"],
    ['v2_zstd', ", PARQUET_VERSION v2, COMPRESSION zstd, ROW_GROUP_SIZE 3000"],
  ];
  for (const [name, options] of variants) {
    const file = path.join(work, `duckdb_${name}.parquet`);
    await con.run(`COPY (SELECT * FROM src ORDER BY i) TO ${q(file)} (FORMAT parquet${options})`);
    const csv = path.join(work, `duckdb_${name}.shoal.csv`);
    const r = shoalSql([`CREATE EXTERNAL TABLE p STORED AS PARQUET LOCATION ${q(file)}`,
      `COPY (SELECT * FROM p ORDER BY i) TO ${q(csv)} (FORMAT csv)`]);
    check(r.ok, `Shoal reading duckdb_${name}.parquet: ${r.err.trim()}`);
    if (!r.ok) continue;
    const columns = await columnsOf(file);
    await expectSameRows(`duckdb_${name}.parquet read by Shoal`, 'SELECT * FROM src',
      csvSelect(csv, columns), 10000, 'i');
  }
}

// ---- C: tpchgen --format parquet ----------------------------------------------------------------
const kTpch = {
  region: 5, nation: 25, supplier: 100, customer: 1500, part: 2000, partsupp: 8000,
  orders: 15000, lineitem: 60175,
};
async function partC() {
  const tbl = path.join(work, 'tpch_tbl');
  const pq = path.join(work, 'tpch_parquet');
  const parts = path.join(work, 'tpch_parquet_parts');
  for (const [dir, extra] of [[tbl, []], [pq, ['--format', 'parquet']],
    [parts, ['--format', 'parquet', '--parts', '3']]]) {
    const r = run(['tpchgen', '--scale-factor', '0.01', '--output', dir, '-q', ...extra]);
    check(r.ok, `tpchgen ${extra.join(' ')}: ${r.err}`);
    if (!r.ok) return;
  }
  for (const [table, count] of Object.entries(kTpch)) {
    const file = path.join(pq, `${table}.parquet`);
    const columns = await columnsOf(file);
    const spec = [...columns.map((c) => `${q(c.name)}: ${q(c.type)}`), "'trailing': 'VARCHAR'"].join(', ');
    const names = columns.map((c) => `"${c.name}"`).join(', ');
    const tblRows = `SELECT ${names} FROM read_csv(${q(path.join(tbl, `${table}.tbl`))}, delim = '|', ` +
      `header = false, auto_detect = false, quote = '', columns = {${spec}})`;
    await expectSameRows(`tpchgen ${table}.parquet vs ${table}.tbl`, `SELECT * FROM read_parquet(${q(file)})`,
      tblRows, count, columns[0].name);
    const partRows = await scalar(`SELECT count(*) FROM read_parquet(${q(path.join(parts, table, '*.parquet'))})`);
    check(partRows === count, `tpchgen --parts 3 ${table}: ${partRows} rows, expected ${count}`);
  }
  const checksum = (source) => `SELECT sum(l_extendedprice * (1 - l_discount))::VARCHAR, ` +
    `sum(l_quantity)::VARCHAR, count(DISTINCT l_orderkey), min(l_shipdate)::VARCHAR, max(l_comment) FROM ${source}`;
  const fromParquet = JSON.stringify(await rows(checksum(`read_parquet(${q(path.join(pq, 'lineitem.parquet'))})`)),
    (k, v) => (typeof v === 'bigint' ? String(v) : v));
  const fromParts = JSON.stringify(await rows(checksum(`read_parquet(${q(path.join(parts, 'lineitem', '*.parquet'))})`)),
    (k, v) => (typeof v === 'bigint' ? String(v) : v));
  const fromTbl = JSON.stringify(await rows(checksum(`read_csv(${q(path.join(tbl, 'lineitem.tbl'))}, delim = '|', ` +
    'header = false, auto_detect = false, quote = \'\', columns = {' +
    "'l_orderkey': 'BIGINT', 'l_partkey': 'BIGINT', 'l_suppkey': 'BIGINT', 'l_linenumber': 'INTEGER', " +
    "'l_quantity': 'DECIMAL(15,2)', 'l_extendedprice': 'DECIMAL(15,2)', 'l_discount': 'DECIMAL(15,2)', " +
    "'l_tax': 'DECIMAL(15,2)', 'l_returnflag': 'VARCHAR', 'l_linestatus': 'VARCHAR', 'l_shipdate': 'DATE', " +
    "'l_commitdate': 'DATE', 'l_receiptdate': 'DATE', 'l_shipinstruct': 'VARCHAR', 'l_shipmode': 'VARCHAR', " +
    "'l_comment': 'VARCHAR', 'trailing': 'VARCHAR'})"),
  ), (k, v) => (typeof v === 'bigint' ? String(v) : v));
  check(fromParquet === fromTbl && fromParts === fromTbl,
    `lineitem checksums: parquet ${fromParquet}, parts ${fromParts}, tbl ${fromTbl}`);
}

for (const [name, part] of [['A', partA], ['B', partB], ['C', partC]]) {
  if (only && only !== name) continue;
  try {
    await part();
  } catch (e) {
    check(false, `part ${name} threw: ${e.stack || e}`);
  }
}

console.log(`parquet_interop: ${checks - failures.length} of ${checks} checks passed (${work})`);
if (failures.length === 0 && ownWork) fs.rmSync(work, { recursive: true, force: true });
process.exit(failures.length === 0 ? 0 : 1);
