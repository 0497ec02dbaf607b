// What the TPC-H answer tools share: the table schemas, the CSV form of an answer (as
// `shoal sql --format csv` prints it and as make_answers.mjs stores DuckDB's), and the comparison
// of two answers. Used by check_answers.mjs, make_answers.mjs and bench/tpch/run.mjs.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

// The TPC-H column types (as DuckDB's tpch extension declares them, and as Shoal's in-memory
// tables have them): TBL files need them in CREATE EXTERNAL TABLE; Parquet carries its own.
export const kTblColumns = {
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

const kRelativeTolerance = 1e-9;

export function ParseCsv(text) {
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

export function FieldsEqual(a, b) {
  if (a === b) return true;
  if (a === null || b === null) return false;
  if (!kNumber.test(a) || !kNumber.test(b)) return false;
  const x = Number(a);
  const y = Number(b);
  return Math.abs(x - y) <= kRelativeTolerance * Math.max(Math.abs(x), Math.abs(y));
}

export function RowsEqual(a, b) {
  return a.length === b.length && a.every((v, i) => FieldsEqual(v, b[i]));
}

// The output columns of the query's last ORDER BY, or null when a key is not an output column.
export function OrderKeys(sql, header) {
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

export function Compare(expected, actual, keys) {
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

export function CsvField(text) {
  if (text !== '' && !/[,"\r\n]/.test(text)) return text;
  return '"' + text.replaceAll('"', '""') + '"';
}

// The queries are PostgreSQL SQL: an unaliased function call is named after the function
// ("sum"), where DuckDB names it after its text ("sum(l_quantity)").
export function PostgresName(name) {
  const call = /^([a-z_][a-z0-9_]*)\(.*\)$/i.exec(name);
  return call ? call[1] : name;
}

export function FormatValue(value, typeName) {
  if (value === null || value === undefined) return '';
  if (typeName === 'DOUBLE' || typeName === 'FLOAT') {
    if (!Number.isFinite(value)) return String(value);
    return CsvField(String(Number(value.toPrecision(15))));
  }
  return CsvField(value.toString());
}

// The arguments that give `shoal sql` its TPC-H tables at scale factor `sf`: --tpch for memory,
// otherwise -c statements declaring files that `shoal tpchgen --format tbl|parquet` generates once
// into a temporary directory (or $SHOAL_TPCH_DATA/sf<SF>-<format>[-p<parts>], reused when
// present). With parts > 0 each table is a directory of that many files.
export function TpchTableArguments(shoal, sf, source, parts = 0) {
  if (source === 'memory') return ['--tpch', sf];
  let dir;
  let temporary = false;
  if (process.env.SHOAL_TPCH_DATA) {
    dir = path.join(process.env.SHOAL_TPCH_DATA,
                    `sf${sf}-${source}${parts > 0 ? `-p${parts}` : ''}`);
  } else {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), `shoal-tpch-${source}-`));
    temporary = true;
  }
  const ext = source;
  // With --parts, a table is a directory of part files.
  const where = (table) => path.join(dir, parts > 0 ? table : `${table}.${ext}`);
  if (!fs.existsSync(where('lineitem'))) {
    const partArgs = parts > 0 ? ['--parts', String(parts)] : [];
    const gen = spawnSync(shoal, ['tpchgen', '--scale-factor', sf, '--output', dir,
                                  '--format', source, ...partArgs], { encoding: 'utf8' });
    if (gen.status !== 0) {
      console.error(`shoal tpchgen failed: ${gen.stderr}`);
      process.exit(1);
    }
  }
  if (temporary) process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  const args = [];
  for (const [table, columns] of Object.entries(kTblColumns)) {
    const location = where(table);
    const list = source === 'tbl' ? ` (${columns})` : '';
    args.push('-c', `CREATE EXTERNAL TABLE ${table}${list} STORED AS ${source.toUpperCase()} ` +
                    `LOCATION '${location}'`);
  }
  return args;
}
