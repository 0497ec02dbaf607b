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

import { CsvField, FormatValue, kTblColumns, PostgresName } from './tpch_common.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..', '..');
const shoal = process.argv[2];
const sf = process.argv[3] ?? '0.01';
if (!shoal) {
  console.error('usage: node make_answers.mjs <shoal binary> [scale factor]');
  process.exit(2);
}


const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shoal-tpch-'));
try {
  execFileSync(shoal, ['tpchgen', '--scale-factor', sf, '--output', dir, '--quiet'], { stdio: 'inherit' });
  const instance = await DuckDBInstance.create(':memory:');
  const con = await instance.connect();
  for (const [table, columns] of Object.entries(kTblColumns)) {
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
