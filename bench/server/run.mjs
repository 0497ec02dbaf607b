// `shoal server` beside PostgreSQL 15, in one run on one machine (issue 14's closing figures):
//   - rows per second of `COPY lineitem TO STDOUT` read by psql (written to /dev/null);
//   - rows per second of `SELECT * FROM lineitem` fetched by psycopg 3 in binary format;
//   - `SELECT 1` round trips per second from --clients concurrent node-postgres sessions.
// Both servers hold the same lineitem of TPC-H scale --sf: Shoal generates it (`--tpch`) in
// memory, and the script copies it into the local PostgreSQL (table bench_lineitem, role `bench`
// made here; run as root so that it can `su postgres`). Each measurement alternates the two
// servers --runs times and reports the medians and the ratio Shoal / PostgreSQL (above 1: Shoal
// is faster), as Markdown.
//
// Usage: node bench/server/run.mjs [--shoal build/release/bin/shoal] [--sf 1] [--runs 3]
//            [--clients 16] [--seconds 3] [--pg-port 5432] [--measures copy,psycopg,select1]
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '../../tests/server/package.json'));
const pg = require('pg');

const args = { shoal: 'build/release/bin/shoal', sf: '1', runs: 3, clients: 16, seconds: 3,
               'pg-port': 5432, measures: 'copy,psycopg,select1' };
for (let i = 2; i < process.argv.length; i += 2) {
  const key = process.argv[i].replace(/^--/, '');
  if (!(key in args)) {
    console.error(`unknown option --${key}`);
    process.exit(2);
  }
  args[key] = typeof args[key] === 'number' ? Number(process.argv[i + 1]) : process.argv[i + 1];
}
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'shoal-server-bench-'));
let shoalServer = null;
process.on('exit', () => {
  if (shoalServer && shoalServer.exitCode === null) shoalServer.kill('SIGKILL');
  fs.rmSync(tmp, { recursive: true, force: true });
});

function Run(command, argv, options = {}) {
  const r = spawnSync(command, argv, { encoding: 'utf8', maxBuffer: 1 << 26, ...options });
  if (r.status !== 0) {
    console.error(`${command} ${argv.join(' ')} failed:\n${r.stderr}`);
    process.exit(1);
  }
  return r.stdout;
}
function Postgres(sql) {
  return Run('su', ['postgres', '-c', `psql -X -q -v ON_ERROR_STOP=1 -p ${args['pg-port']}`],
             { input: sql });
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

// ---- the two servers ----------------------------------------------------------------------------
const log = path.join(tmp, 'shoal.log');
const fd = fs.openSync(log, 'w');
shoalServer = spawn(args.shoal, ['server', '--listen', '127.0.0.1:0', '--data-dir',
                                 path.join(tmp, 'data'), '--tpch', args.sf],
                    { stdio: ['ignore', fd, fd] });
fs.closeSync(fd);
let shoalPort = null;
for (let waited = 0; !shoalPort; waited += 50) {
  const m = fs.readFileSync(log, 'utf8').match(/listening on 127\.0\.0\.1:(\d+)/);
  if (m) shoalPort = Number(m[1]);
  else if (shoalServer.exitCode !== null || waited > 600000) {
    console.error(fs.readFileSync(log, 'utf8'));
    process.exit(1);
  }
  else await new Promise((r) => setTimeout(r, 50));
}
const password = 'bench-password';
Postgres(`DO $$BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'bench') THEN
            CREATE ROLE bench LOGIN; END IF; END$$;
          ALTER ROLE bench PASSWORD '${password}';
          DROP TABLE IF EXISTS bench_lineitem;
          CREATE TABLE bench_lineitem (l_orderkey bigint, l_partkey bigint, l_suppkey bigint,
            l_linenumber bigint, l_quantity numeric(15,2), l_extendedprice numeric(15,2),
            l_discount numeric(15,2), l_tax numeric(15,2), l_returnflag text, l_linestatus text,
            l_shipdate date, l_commitdate date, l_receiptdate date, l_shipinstruct text,
            l_shipmode text, l_comment text);
          GRANT SELECT ON bench_lineitem TO bench;`);
// Shoal's rows into PostgreSQL: COPY out of one, COPY into the other.
const csv = path.join(tmp, 'lineitem.csv');
Run('psql', ['-X', '-h', '127.0.0.1', '-p', String(shoalPort), '-U', 'bench', '-d', 'shoal', '-c',
             `\\copy lineitem to '${csv}' with (format csv)`]);
fs.chmodSync(tmp, 0o755);
fs.chmodSync(csv, 0o644);
Postgres(`COPY bench_lineitem FROM '${csv}' WITH (FORMAT csv); VACUUM ANALYZE bench_lineitem;`);
const rows = Number(Postgres('\\pset tuples_only on\nSELECT count(*) FROM bench_lineitem;').trim());

const servers = [
  { name: 'Shoal', port: shoalPort, table: 'lineitem', env: {} },
  { name: 'PostgreSQL 15', port: args['pg-port'], table: 'bench_lineitem',
    env: { PGPASSWORD: password } },
];
const results = {};
function Record(what, server, value) {
  ((results[what] ??= {})[server.name] ??= []).push(value);
}

async function Copy(server) {
  const start = process.hrtime.bigint();
  Run('psql', ['-X', '-h', '127.0.0.1', '-p', String(server.port), '-U', 'bench', '-d',
               server.name === 'Shoal' ? 'shoal' : 'postgres', '-o', '/dev/null', '-c',
               `COPY ${server.table} TO STDOUT`], { env: { ...process.env, ...server.env } });
  return rows / (Number(process.hrtime.bigint() - start) / 1e9);
}
async function Psycopg(server) {
  const script = `
import os, sys, time, psycopg
conn = psycopg.connect(host='127.0.0.1', port=int(sys.argv[1]), user='bench', dbname=sys.argv[2])
start = time.perf_counter()
with conn.cursor(binary=True) as cur:
    cur.execute('SELECT * FROM ' + sys.argv[3])
    n = sum(1 for _ in cur)  # every row converted, without holding millions of Python tuples
print(n / (time.perf_counter() - start))
`;
  // Debian's python3-psycopg belongs to Debian's interpreter (not a pyenv one on PATH).
  const python = fs.existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
  const out = Run(python, ['-c', script, String(server.port),
                              server.name === 'Shoal' ? 'shoal' : 'postgres', server.table],
                  { env: { ...process.env, ...server.env } });
  return Number(out.trim());
}
async function SelectOne(server) {
  const clients = [];
  for (let i = 0; i < args.clients; ++i) {
    const c = new pg.Client({ host: '127.0.0.1', port: server.port, user: 'bench',
                              database: server.name === 'Shoal' ? 'shoal' : 'postgres',
                              password: server.env.PGPASSWORD });
    await c.connect();
    clients.push(c);
  }
  const deadline = Date.now() + args.seconds * 1000;
  let count = 0;
  const start = process.hrtime.bigint();
  await Promise.all(clients.map(async (c) => {
    while (Date.now() < deadline) {
      await c.query('SELECT 1');
      ++count;
    }
  }));
  const rate = count / (Number(process.hrtime.bigint() - start) / 1e9);
  await Promise.all(clients.map((c) => c.end()));
  return rate;
}

const wanted = new Set(args.measures.split(','));
const measures = [
  ['copy', 'COPY lineitem TO STDOUT (rows/s)', Copy],
  ['psycopg', 'psycopg binary SELECT * FROM lineitem (rows/s)', Psycopg],
  ['select1', `SELECT 1, ${args.clients} clients (round trips/s)`, SelectOne],
].filter(([key]) => wanted.has(key)).map(([, what, measure]) => [what, measure]);
for (let run = 0; run < args.runs; ++run) {
  for (const [what, measure] of measures) {
    for (const server of run % 2 === 0 ? servers : [...servers].reverse()) {
      Record(what, server, await measure(server));
    }
  }
}
console.log(`TPC-H SF ${args.sf}: lineitem ${rows} rows; medians of ${args.runs} runs; ` +
            `${os.cpus().length} cores\n`);
console.log('| measure | Shoal | PostgreSQL 15 | Shoal / PostgreSQL |');
console.log('|---|---:|---:|---:|');
for (const [what] of measures) {
  const s = median(results[what]['Shoal']);
  const p = median(results[what]['PostgreSQL 15']);
  console.log(`| ${what} | ${Math.round(s)} | ${Math.round(p)} | ${(s / p).toFixed(2)} |`);
}
Postgres('DROP TABLE bench_lineitem;');
shoalServer.kill('SIGTERM');
process.exit(0);
