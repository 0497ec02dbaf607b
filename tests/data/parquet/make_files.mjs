// Writes the small Parquet files the Parquet reader's unit and mutation tests read, with DuckDB from
// npm (tests/tpch/node_modules). Run from anywhere: `node tests/data/parquet/make_files.mjs`; the
// files are committed, so tests never need DuckDB. Every value is a formula of the row number i,
// restated in tests/unit/io/parquet_reader_test.cc, so the test checks each value without a copy
// of the data.
//
//   types_<codec>.parquet       100 rows, every column type with NULLs (i % 10 == 3), DuckDB's
//                               default writer settings (v1 data pages, dictionary where it pays)
//   types_v2_<codec>.parquet    the same with PARQUET_VERSION v2: data pages v2 and the delta /
//                               byte-stream-split encodings
//   nested_list.parquet         a LIST column (pair = [i, i + 1])
//   nested_shapes[_v2].parquet  200 rows of every nested shape (lists of lists, lists of structs,
//                               structs of lists, maps, NULLs at every level, empty lists), row
//                               groups of 64 rows; _v2 with PARQUET_VERSION v2 (mutation corpus)
//   shoal_nested.parquet        not written here: nested_shapes.parquet copied by Shoal's writer,
//                               `COPY (SELECT * FROM p ORDER BY id) TO '...' (FORMAT parquet,
//                               COMPRESSION 'uncompressed', ROW_GROUP_SIZE 64)` (mutation corpus)
//   time_of_day.parquet         a TIME column: Shoal refuses it with a clear NotImplemented error
//                               naming the column
//   sorted.parquet              10000 rows sorted by k, row groups of 2048 rows (v2: delta encoded, so small), for pruning
//   struct_fields.parquet       100 rows of a struct with a nested struct, a list and NULLs at
//                               every level, row groups of 32 rows, for reading some fields of a
//                               struct alone (tests/sql/parquet_struct_fields.slt)
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '../../tpch/package.json'));
const { DuckDBInstance } = require('@duckdb/node-api');

const kRows = 100;
const kStructFields = `SELECT i::INTEGER AS id,
    CASE WHEN i % 9 = 0 THEN NULL ELSE {
      'a': CASE WHEN i % 4 = 0 THEN NULL ELSE i::INTEGER END,
      'b': CASE WHEN i % 7 = 0 THEN NULL ELSE {
        'c': 'c' || (i % 5), 'd': CASE WHEN i % 3 = 0 THEN NULL ELSE (i * 10)::BIGINT END} END,
      'e': list_transform(range(i % 3), lambda k: (i + k)::INTEGER),
      'f': (i / 2)::DOUBLE} END AS s
    FROM range(100) t(i)`;
const kNull = (expr) => `CASE WHEN i % 10 = 3 THEN NULL ELSE ${expr} END`;
const kColumns = [
  ['id', 'i::INTEGER'],
  ['b', kNull('i % 3 = 0')],
  ['i8', kNull('((i % 200) - 100)::TINYINT')],
  ['i16', kNull('(i * 13 - 2000)::SMALLINT')],
  ['i32', kNull('(((i * 1000003) % 2000000) - 1000000)::INTEGER')],
  ['i64', kNull('(i * 123456789012 - 5000000000000)::BIGINT')],
  ['u8', kNull('(i % 256)::UTINYINT')],
  ['u16', kNull('((i * 200) % 65536)::USMALLINT')],
  ['u32', kNull('((i * 16777259) % 4294967296)::UINTEGER')],
  ['u64', kNull('(i::UBIGINT * 61000000000000000::UBIGINT)')],
  ['f', kNull('(i * 0.25 - 10)::FLOAT')],
  ['d', kNull('(i * 1.5 - 100.125)::DOUBLE')],
  // Decimals as unscaled integer times 10^-scale (multiplication keeps DuckDB's arithmetic exact).
  ['dec9', kNull('((i * 123 - 5000)::DECIMAL(9,0) * 0.01::DECIMAL(9,2))::DECIMAL(9,2)')],
  ['dec18', kNull('((i * 1000000007 - 100000000000)::DECIMAL(18,0) * 0.001::DECIMAL(18,3))' +
                  '::DECIMAL(18,3)')],
  ['dec38', kNull('((i - 150)::DECIMAL(38,10) * 123456789012345678::DECIMAL(38,0) + ' +
                  'i::DECIMAL(38,0) * 0.0000000001::DECIMAL(38,10))::DECIMAL(38,10)')],
  ['dt', kNull("(DATE '1960-01-01' + (i * 37)::INTEGER)")],
  ['ts', kNull('make_timestamp(631152000000000 + i * 12345678901)')],
  ['ts_ms', kNull('make_timestamp(631152000000000 + i * 12345678901)::TIMESTAMP_MS')],
  ['ts_ns', kNull('make_timestamp(631152000000000 + i * 12345678901)::TIMESTAMP_NS')],
  ['tstz', kNull('make_timestamp(631152000000000 + i * 12345678901)::TIMESTAMPTZ')],
  ['s', kNull("CASE WHEN i % 13 = 0 THEN 'é' || i ELSE 's' || i || repeat('x', i % 5) END")],
  ['cat', kNull("'cat' || (i % 4)")],
  ['bl', kNull("('b' || i)::BLOB")],
];

async function main() {
  const instance = await DuckDBInstance.create(':memory:');
  const con = await instance.connect();
  await con.run("SET TimeZone = 'UTC'");
  const select = kColumns.map(([name, expr]) => `${expr} AS ${name}`).join(', ');
  await con.run(`CREATE TABLE types AS SELECT ${select} FROM range(${kRows}) t(i) ORDER BY i`);
  for (const codec of ['snappy', 'gzip', 'zstd', 'lz4', 'uncompressed']) {
    await con.run(`COPY types TO '${path.join(here, `types_${codec}.parquet`)}' ` +
                  `(FORMAT parquet, COMPRESSION ${codec})`);
  }
  for (const codec of ['zstd', 'snappy']) {
    await con.run(`COPY types TO '${path.join(here, `types_v2_${codec}.parquet`)}' ` +
                  `(FORMAT parquet, COMPRESSION ${codec}, PARQUET_VERSION v2)`);
  }
  await con.run(`COPY (SELECT i::INTEGER AS id, [i, i + 1] AS pair FROM range(3) t(i)) TO ` +
                `'${path.join(here, 'nested_list.parquet')}' (FORMAT parquet)`);
  await con.run(`CREATE TABLE nested AS SELECT i::INTEGER AS id,
    CASE WHEN i % 11 = 0 THEN NULL ELSE list_transform(range(i % 4), lambda k:
      CASE WHEN (i + k) % 5 = 0 THEN NULL ELSE list_transform(range((i + k) % 3), lambda j:
        CASE WHEN (i + j) % 7 = 0 THEN NULL ELSE (i * 10 + j)::BIGINT END) END) END AS ll,
    CASE WHEN i % 13 = 0 THEN NULL ELSE list_transform(range(i % 3), lambda k:
      CASE WHEN (i + k) % 6 = 0 THEN NULL ELSE {'a': (i * k)::INTEGER, 'b': 's' || (i % 50)} END)
      END AS ls,
    CASE WHEN i % 19 = 0 THEN NULL ELSE {'x': CASE WHEN i % 5 = 0 THEN NULL ELSE i END,
      'l': CASE WHEN i % 8 = 0 THEN NULL ELSE list_transform(range(i % 3), lambda k: 'e' || k) END}
      END AS sl,
    CASE WHEN i % 7 = 0 THEN NULL ELSE map_from_entries(list_transform(range(i % 5), lambda k:
      {'k': 'k' || k, 'v': CASE WHEN (i + k) % 3 = 0 THEN NULL ELSE k::INTEGER END})) END AS m
    FROM range(200) t(i)`);
  await con.run(`COPY nested TO '${path.join(here, 'nested_shapes.parquet')}' ` +
                '(FORMAT parquet, ROW_GROUP_SIZE 64)');
  await con.run(`COPY nested TO '${path.join(here, 'nested_shapes_v2.parquet')}' ` +
                '(FORMAT parquet, ROW_GROUP_SIZE 64, PARQUET_VERSION v2)');
  await con.run(`COPY (SELECT TIME '12:34:56' AS t) TO ` +
                `'${path.join(here, 'time_of_day.parquet')}' (FORMAT parquet)`);
  await con.run('CREATE TABLE sorted AS SELECT i::INTEGER AS k, (i * 2)::BIGINT AS v ' +
                'FROM range(10000) t(i) ORDER BY i');
  await con.run(`COPY sorted TO '${path.join(here, 'sorted.parquet')}' ` +
                '(FORMAT parquet, ROW_GROUP_SIZE 2048, PARQUET_VERSION v2)');
  await con.run(`COPY (${kStructFields}) TO '${path.join(here, 'struct_fields.parquet')}' ` +
                '(FORMAT parquet, ROW_GROUP_SIZE 32)');
}

await main();
