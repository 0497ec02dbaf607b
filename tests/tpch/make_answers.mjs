// Computes the expected TPC-H answers with DuckDB: generates the data with `shoal tpchgen` into a
// temporary directory, loads the .tbl files into DuckDB with the TPC-H column types, runs
// tests/data/tpch/queries/qNN.sql unchanged and writes tests/data/tpch/answers/sf<SF>/qNN.csv.
//
// Usage: node tests/tpch/make_answers.mjs <path to shoal> [scale factor, default 0.01]
//
// CSV: a header line, then one line per row, fields separated by ',' and quoted as Shoal's
// `--format csv` quotes them (when they hold , " CR LF, or are the empty string); NULL is an empty
// field; decimals keep their scale, dates are YYYY-MM-DD, doubles are written with 15 significant
// digits (the comparator allows a relative difference of 1e-9). Column names are PostgreSQL's:
// an unaliased call such as sum(l_quantity) is named "sum" (DuckDB would say "sum(l_quantity)").
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..', '..');
const shoal = process.argv[2];
const sf = process.argv[3] ?? '0.01';
if (!shoal) {
  console.error('usage: node make_answers.mjs <shoal binary> [scale factor]');
  process.exit(2);
}

// The TPC-H types (as DuckDB's tpch extension declares them); keys are BIGINT like Shoal's.
const kTables = {
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

function CsvField(text) {
  if (text !== '' && !/[,"\r\n]/.test(text)) return text;
  return '"' + text.replaceAll('"', '""') + '"';
}

// The queries are PostgreSQL SQL: an unaliased function call is named after the function
// ("sum"), where DuckDB names it after its text ("sum(l_quantity)").
function PostgresName(name) {
  const call = /^([a-z_][a-z0-9_]*)\(.*\)$/i.exec(name);
  return call ? call[1] : name;
}

function FormatValue(value, typeName) {
  if (value === null || value === undefined) return '';
  if (typeName === 'DOUBLE' || typeName === 'FLOAT') {
    if (!Number.isFinite(value)) return String(value);
    return CsvField(String(Number(value.toPrecision(15))));
  }
  return CsvField(value.toString());
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shoal-tpch-'));
try {
  execFileSync(shoal, ['tpchgen', '--scale-factor', sf, '--output', dir, '--quiet'], { stdio: 'inherit' });
  const instance = await DuckDBInstance.create(':memory:');
  const con = await instance.connect();
  for (const [table, columns] of Object.entries(kTables)) {
    const names = columns.split(', ').map((c) => c.split(' ')[0]);
    const types = Object.fromEntries(columns.split(', ').map((c) => c.split(' ')));
    // dbgen ends every line with '|': read one extra, empty column and drop it.
    const all = { ...types, trailing: 'VARCHAR' };
    await con.run(`create table ${table} as select ${names.join(', ')} from read_csv(` +
        `'${path.join(dir, table + '.tbl')}', delim = '|', header = false, quote = '', ` +
        `columns = ${JSON.stringify(all).replaceAll('"', "'")})`);
  }
  const outDir = path.join(repo, 'tests', 'data', 'tpch', 'answers', `sf${sf}`);
  fs.mkdirSync(outDir, { recursive: true });
  for (let q = 1; q <= 22; ++q) {
    const name = `q${String(q).padStart(2, '0')}`;
    const sql = fs.readFileSync(path.join(repo, 'tests', 'data', 'tpch', 'queries', name + '.sql'),
                                'utf8');
    const reader = await con.runAndReadAll(sql);
    const types = reader.columnTypes().map((t) => t.toString());
    let out = reader.columnNames().map(PostgresName).map(CsvField).join(',') + '\n';
    for (const row of reader.getRows()) {
      out += row.map((v, i) => FormatValue(v, types[i])).join(',') + '\n';
    }
    fs.writeFileSync(path.join(outDir, name + '.csv'), out);
    console.log(`${name}: ${reader.currentRowCount} rows (${types.join(', ')})`);
  }
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
