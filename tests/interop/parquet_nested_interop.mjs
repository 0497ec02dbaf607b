// Nested Parquet interop between Shoal and DuckDB (@duckdb/node-api, the test-only peer in
// tests/tpch/node_modules), value by value in both directions:
//
//  A. DuckDB writes a table with every nested shape (LIST, STRUCT, MAP, lists of lists, lists of
//     structs, structs of lists, maps of lists, NULLs at every level, empty lists) in several row
//     groups, with each of its compressions and as PARQUET_VERSION v2. Shoal reads each file as an
//     external table and prints it as CSV (nested values in PostgreSQL's text form); every value
//     must equal DuckDB's value of the same row, formatted here by the same rules
//     (columnar/pretty_print.cc: array_out, record_out, DuckDB's {k=v} for maps).
//  B. Shoal writes the rows it read back to Parquet (COPY ... TO, several row groups); DuckDB reads
//     the file: same column types, and every value IS NOT DISTINCT FROM the original row's.
//
//   node tests/interop/parquet_nested_interop.mjs SHOAL_BINARY [WORK_DIR]
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
const { DuckDBInstance, DuckDBTypeId } = require('@duckdb/node-api');

const args = process.argv.slice(2).filter((a) => !a.startsWith('--'));
if (args.length < 1 || !fs.existsSync(args[0])) {
  console.error('usage: parquet_nested_interop.mjs SHOAL_BINARY [WORK_DIR]');
  process.exit(2);
}
const shoalBin = path.resolve(args[0]);
const ownWork = args.length < 2;
const work = ownWork ? fs.mkdtempSync(path.join(os.tmpdir(), 'shoal-parquet-nested-')) : path.resolve(args[1]);
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

function shoalSql(statements, format) {
  const argv = ['sql', ...(format ? ['--format', format] : []), ...statements.flatMap((s) => ['-c', s])];
  const r = spawnSync(shoalBin, argv, { encoding: 'utf8', maxBuffer: 1 << 28 });
  return { ok: r.status === 0, out: r.stdout, err: r.stderr };
}

const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
const q = (s) => `'${s.replaceAll("'", "''")}'`;

// ---- PostgreSQL text of DuckDB values, as Shoal's printer writes it ------------------------------

const isSpace = (c) => c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\v' || c === '\f';
function arrayElement(text) {
  let quote = text === '' || text.toLowerCase() === 'null';
  for (const c of text) quote = quote || '{},"\\'.includes(c) || isSpace(c);
  return quote ? `"${text.replace(/["\\]/g, (c) => `\\${c}`)}"` : text;
}
function recordField(text) {
  let quote = text === '';
  for (const c of text) quote = quote || '(),"\\'.includes(c) || isSpace(c);
  return quote ? `"${text.replace(/["\\]/g, (c) => c + c)}"` : text;
}
const isList = (t) => t.typeId === DuckDBTypeId.LIST || t.typeId === DuckDBTypeId.ARRAY;
function pgText(v, t) {
  if (isList(t)) {
    const items = v.items.map((item) => {
      if (item === null) return 'NULL';
      if (isList(t.valueType)) return pgText(item, t.valueType);
      return arrayElement(pgText(item, t.valueType));
    });
    return `{${items.join(',')}}`;
  }
  if (t.typeId === DuckDBTypeId.STRUCT) {
    const fields = t.entryNames.map((name, k) => {
      const f = v.entries[name];
      return f === null ? '' : recordField(pgText(f, t.entryTypes[k]));
    });
    return `(${fields.join(',')})`;
  }
  if (t.typeId === DuckDBTypeId.MAP) {
    const entries = v.entries.map((e) =>
      `${e.key === null ? 'NULL' : pgText(e.key, t.keyType)}=${e.value === null ? 'NULL' : pgText(e.value, t.valueType)}`);
    return `{${entries.join(', ')}}`;
  }
  return String(v);
}

// RFC 4180 CSV (Shoal's --format csv): rows of fields; an unquoted empty field is NULL.
function parseCsv(text) {
  const rows = [];
  let row = [];
  let i = 0;
  while (i < text.length) {
    let field = '';
    let quoted = false;
    if (text[i] === '"') {
      quoted = true;
      i++;
      while (i < text.length) {
        if (text[i] === '"') {
          if (text[i + 1] === '"') {
            field += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        field += text[i++];
      }
    } else {
      while (i < text.length && text[i] !== ',' && text[i] !== '\n') field += text[i++];
    }
    row.push(!quoted && field === '' ? null : field);
    if (text[i] === ',') {
      i++;
    } else {
      if (text[i] === '\n') i++;
      rows.push(row);
      row = [];
    }
  }
  return rows;
}

// ---- the table ---------------------------------------------------------------------------------

const numRows = 10000;
await con.run(`CREATE TABLE src AS SELECT
  i::INTEGER AS id,
  CASE WHEN i % 17 = 0 THEN NULL ELSE 'v' || (i % 100) END AS flat,
  CASE WHEN i % 11 = 0 THEN NULL ELSE
    list_transform(range(i % 4), lambda k: CASE WHEN (i + k) % 5 = 0 THEN NULL ELSE
      list_transform(range((i + k) % 3), lambda j: CASE WHEN (i + j) % 7 = 0 THEN NULL ELSE (i * 10 + j)::BIGINT END) END)
  END AS ll,
  CASE WHEN i % 13 = 0 THEN NULL ELSE
    list_transform(range(i % 3), lambda k: CASE WHEN (i + k) % 6 = 0 THEN NULL ELSE
      {'a': CASE WHEN k = 1 AND i % 4 = 0 THEN NULL ELSE (i * k)::INTEGER END,
       'b': CASE WHEN (i + k) % 9 = 0 THEN NULL WHEN (i + k) % 10 = 0 THEN '' ELSE 's "' || (i % 50) || ',x}' END} END)
  END AS ls,
  CASE WHEN i % 19 = 0 THEN NULL ELSE
    {'x': CASE WHEN i % 5 = 0 THEN NULL ELSE i END,
     'l': CASE WHEN i % 8 = 0 THEN NULL ELSE list_transform(range(i % 3), lambda k: CASE WHEN k = 2 THEN NULL ELSE 'e' || k END) END,
     'p': CASE WHEN i % 6 = 0 THEN NULL ELSE {'a': i % 3, 'b': CASE WHEN i % 4 = 0 THEN NULL ELSE 't' || i END} END}
  END AS sl,
  CASE WHEN i % 7 = 0 THEN NULL ELSE
    map_from_entries(list_transform(range(i % 5), lambda k: {'k': 'k' || k, 'v': CASE WHEN (i + k) % 3 = 0 THEN NULL ELSE k::INTEGER END}))
  END AS m,
  CASE WHEN i % 9 = 0 THEN NULL ELSE
    map_from_entries(list_transform(range(i % 3), lambda k: {'k': k::INTEGER, 'v': CASE WHEN k = 1 THEN NULL ELSE list_transform(range(i % 4), lambda j: (j + k)::BIGINT) END}))
  END AS ml,
  list_transform(range(i % 3), lambda k: {'t': list_transform(range(k), lambda j: CASE WHEN j = 1 THEN NULL ELSE 'w' || j END)}) AS lsl
FROM range(${numRows}) r(i)`);

const srcReader = await con.runAndReadAll('SELECT * FROM src ORDER BY id');
const srcTypes = srcReader.columnTypes();
const srcNames = srcReader.columnNames();
const srcRows = srcReader.getRows();
const expected = srcRows.map((r) => r.map((v, c) => (v === null ? null : pgText(v, srcTypes[c]))));

const variants = [
  ['snappy', "COMPRESSION 'snappy', ROW_GROUP_SIZE 2048"],
  ['zstd', "COMPRESSION 'zstd', ROW_GROUP_SIZE 3000"],
  ['uncompressed', "COMPRESSION 'uncompressed', ROW_GROUP_SIZE 4096"],
  ['v2', "PARQUET_VERSION v2, ROW_GROUP_SIZE 2500"],
];
for (const [name, options] of variants) {
  const file = path.join(work, `duck_${name}.parquet`);
  await con.run(`COPY src TO ${q(file)} (FORMAT parquet, ${options})`);
  const groups = Number((await con.runAndReadAll(
    `SELECT count(DISTINCT row_group_id) FROM parquet_metadata(${q(file)})`)).getRows()[0][0]);
  check(groups > 1, `${name}: DuckDB wrote ${groups} row groups, wanted several`);

  // A: Shoal reads, prints CSV.
  const back = path.join(work, `shoal_${name}.parquet`);
  const r = shoalSql([`CREATE EXTERNAL TABLE p STORED AS PARQUET LOCATION ${q(file)}`,
    'SELECT * FROM p ORDER BY id',
    `COPY (SELECT * FROM p ORDER BY id) TO ${q(back)} (FORMAT parquet, ROW_GROUP_SIZE 3333)`], 'csv');
  check(r.ok, `${name}: Shoal failed: ${r.err}`);
  if (!r.ok) continue;
  const csv = parseCsv(r.out);
  const header = csv[0];
  check(JSON.stringify(header) === JSON.stringify(srcNames), `${name}: columns ${header} instead of ${srcNames}`);
  const got = csv.slice(1, 1 + numRows);
  check(got.length === numRows, `${name}: Shoal printed ${got.length} rows of ${numRows}`);
  let wrong = 0;
  for (let i = 0; i < Math.min(got.length, numRows); i++) {
    for (let c = 0; c < srcNames.length; c++) {
      const want = expected[i][c];
      const have = got[i][c];
      if (want !== have) {
        if (wrong++ < 5) check(false, `${name}: row ${i} column ${srcNames[c]}: Shoal ${JSON.stringify(have)}, DuckDB ${JSON.stringify(want)}`);
      }
    }
  }
  check(wrong === 0, `${name}: ${wrong} values differ`);

  // B: DuckDB reads what Shoal wrote.
  const types = (await con.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet(${q(back)})`)).getRows().map((x) => `${x[0]} ${x[1]}`);
  const srcDescribe = (await con.runAndReadAll('DESCRIBE SELECT * FROM src')).getRows().map((x) => `${x[0]} ${x[1]}`);
  check(JSON.stringify(types) === JSON.stringify(srcDescribe),
    `${name}: DuckDB types of Shoal's file ${types.join(', ')} instead of ${srcDescribe.join(', ')}`);
  const count = Number((await con.runAndReadAll(`SELECT count(*) FROM read_parquet(${q(back)})`)).getRows()[0][0]);
  check(count === numRows, `${name}: Shoal's file has ${count} rows`);
  const differing = srcNames.slice(1).map((c) => `count(*) FILTER (WHERE s.${c} IS DISTINCT FROM b.${c})`).join(', ');
  const diff = (await con.runAndReadAll(`SELECT ${differing}, count(b.id) FROM src s
    LEFT JOIN read_parquet(${q(back)}) b USING (id)`)).getRows()[0].map(Number);
  const matched = diff.pop();
  check(matched === numRows, `${name}: ${matched} of Shoal's rows matched an id`);
  srcNames.slice(1).forEach((c, k) => check(diff[k] === 0, `${name}: column ${c} differs in ${diff[k]} rows of Shoal's file`));
  const groupsBack = Number((await con.runAndReadAll(
    `SELECT count(DISTINCT row_group_id) FROM parquet_metadata(${q(back)})`)).getRows()[0][0]);
  check(groupsBack === Math.ceil(numRows / 3333), `${name}: Shoal wrote ${groupsBack} row groups`);
}

// Leaf statistics in Shoal's file as DuckDB reads them: min / max of the ll leaf.
{
  const back = path.join(work, 'shoal_snappy.parquet');
  if (fs.existsSync(back)) {
    const stats = (await con.runAndReadAll(`SELECT stats_min_value, stats_max_value FROM parquet_metadata(${q(back)})
      WHERE path_in_schema = 'll, list, element, list, element' ORDER BY row_group_id LIMIT 1`)).getRows();
    const bounds = (await con.runAndReadAll(`SELECT min(x)::VARCHAR, max(x)::VARCHAR FROM
      (SELECT unnest(flatten(list_filter(ll, lambda l: l IS NOT NULL))) AS x FROM src WHERE id < 3333)`)).getRows();
    check(stats.length === 1 && stats[0][0] === bounds[0][0] && stats[0][1] === bounds[0][1],
      `statistics of ll's leaf: ${JSON.stringify(stats)} instead of ${JSON.stringify(bounds)}`);
  }
}

console.log(`${checks} checks, ${failures.length} failed`);
if (failures.length > 0) process.exit(1);
if (ownWork) fs.rmSync(work, { recursive: true, force: true });
