// node-postgres's start-up and a parameterised query (extended protocol), as recorded into
// node-pg.jsonl. Usage: node node_pg_client.mjs PORT USER [PASSWORD]
import path from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(path.join(path.dirname(new URL(import.meta.url).pathname),
                                        '../package.json'));
const pg = require('pg');
const client = new pg.Client({ host: '127.0.0.1', port: Number(process.argv[2]), user: process.argv[3],
                               password: process.argv[4] || '', database: 'shoal',
                               application_name: 'node-pg' });
await client.connect();
const r = await client.query('select $1::int + 1 as n', [1]);
console.log('node-pg', r.rows[0].n);
await client.end();
