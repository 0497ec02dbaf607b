// The two engines of the TPC-H benchmarks over the same files: the tables as Shoal declares them
// and a DuckDB connection with views over the same files. Shared by run.mjs (times side by side)
// and operators.mjs (where each engine's time goes, operator by operator).
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { kTblColumns } from '../../tests/tpch/tpch_common.mjs';

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
