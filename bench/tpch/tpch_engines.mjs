// The two engines of the TPC-H benchmarks over the same files: the tables as Shoal declares them
// and a DuckDB connection with views over the same files. Shared by run.mjs (times side by side),
// duckdb_query.mjs (one query in a process of its own, for run.mjs --rss) and operators.mjs (where
// each engine's time goes, operator by operator).
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import {
  CsvField, FormatValue, kTblColumns, PostgresName,
} from '../../tests/tpch/tpch_common.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..', '..');

// DuckDB comes from the test peers' node_modules (scripts/install-deps.sh runs npm ci there).
const requireFromTests = createRequire(path.join(repo, 'tests', 'tpch', 'package.json'));
const { DuckDBInstance } = await import(
    pathToFileURL(requireFromTests.resolve('@duckdb/node-api')).href);

// `options` of both: { data: DIR, format: 'parquet' | 'tbl', threads: N (DuckDB's) }.
export function ShoalTableStatements(options) {
  return Object.entries(kTblColumns).map(([table, columns]) => {
    const location = path.join(options.data, `${table}.${options.format}`);
    const list = options.format === 'tbl' ? ` (${columns})` : '';
    return `CREATE EXTERNAL TABLE ${table}${list} STORED AS ${options.format.toUpperCase()} ` +
           `LOCATION '${location}';`;
  });
}

export async function DuckDBConnection(options) {
  const instance = await DuckDBInstance.create(':memory:');
  const con = await instance.connect();
  await con.run(`SET threads = ${options.threads}`);
  for (const [table, columns] of Object.entries(kTblColumns)) {
    const file = path.join(options.data, `${table}.${options.format}`);
    if (options.format === 'parquet') {
      await con.run(`CREATE VIEW ${table} AS SELECT * FROM read_parquet('${file}')`);
    } else {
      const names = columns.split(', ').map((c) => c.split(' ')[0]);
      const types = Object.fromEntries(columns.split(', ').map((c) => c.split(' ')));
      const all = { ...types, trailing: 'VARCHAR' };
      await con.run(`CREATE VIEW ${table} AS SELECT ${names.join(', ')} FROM read_csv('${file}', ` +
                    `delim = '|', header = false, quote = '', ` +
                    `columns = ${JSON.stringify(all).replaceAll('"', "'")})`);
    }
  }
  return con;
}

// Runs `sql` 1 + `runs` times on `con`: the times of the last `runs` (ms, around runAndReadAll,
// which also materialises the result) and the first run's answer as CSV with PostgreSQL's column
// names, as `shoal sql --format csv` prints it.
export async function RunDuckDB(con, sql, runs) {
  const times = [];
  let answer = null;
  for (let r = 0; r <= runs; ++r) {
    const start = performance.now();
    const reader = await con.runAndReadAll(sql);
    const elapsed = performance.now() - start;
    if (r === 0) {
      const types = reader.columnTypes().map((t) => t.toString());
      let out = reader.columnNames().map(PostgresName).map(CsvField).join(',') + '\n';
      for (const row of reader.getRows()) {
        out += row.map((v, i) => FormatValue(v, types[i])).join(',') + '\n';
      }
      answer = out;
    } else {
      times.push(elapsed);
    }
  }
  return { times, answer };
}
