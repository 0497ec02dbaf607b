// COPY ... TO STDOUT (FORMAT binary) of `shoal server` (issue 14), checked two ways:
//  1. psql's `\copy (select ...) to FILE with (format binary)` against the server, and the file
//     parsed here as PostgreSQL's documentation lays the format out (signature, flags, header
//     extension, per tuple a field count and each value's length, -1 for NULL, and its bytes in
//     the type's binary send format; a trailer of -1), every value compared with the rows the
//     server holds;
//  2. when a PostgreSQL server runs on this machine (`su postgres -c psql` works: the
//     development machine, not CI, whose scripts/install-deps.sh installs only the client), the
//     file loaded into a table of the same types with `COPY ... FROM ... (FORMAT binary)` and
//     the table printed by PostgreSQL compared with the rows as Shoal prints them.
// Also: the options PostgreSQL refuses in binary mode.
//
// Usage: node tests/integration/server_copy_binary.mjs <path to shoal>
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { WaitFor } from './wait.mjs';

const shoal = process.argv[2];
if (!shoal) {
  console.error('usage: node server_copy_binary.mjs <shoal binary>');
  process.exit(2);
}
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'shoal-copy-binary-'));
const children = [];
process.on('exit', () => {
  for (const c of children) {
    if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  }
  fs.rmSync(tmp, { recursive: true, force: true });
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(1));

function Fail(message) {
  console.error(`FAIL: ${message}`);
  process.exit(1);
}
function Check(condition, message) {
  if (!condition) Fail(message);
}
function Equal(actual, expected, what) {
  const a = JSON.stringify(actual);
  const e = JSON.stringify(expected);
  if (a !== e) Fail(`${what}:\n  expected ${e}\n  got      ${a}`);
}

const log = path.join(tmp, 'server.log');
const fd = fs.openSync(log, 'w');
const server = spawn(shoal, ['server', '--listen', '127.0.0.1:0', '--data-dir', path.join(tmp, 'data')],
                     { stdio: ['ignore', fd, fd] });
fs.closeSync(fd);
children.push(server);
const port = Number(await WaitFor(() => {
  const m = fs.readFileSync(log, 'utf8').match(/listening on 127\.0\.0\.1:(\d+)/);
  if (m) return m[1];
  return server.exitCode !== null ? 'exited' : false;
}, 'the server to listen', 120000));
Check(port > 0, `the server did not start: ${fs.readFileSync(log, 'utf8')}`);

function Psql(sql, extra = []) {
  return spawnSync('psql', ['-X', '-h', '127.0.0.1', '-p', String(port), '-U', 'tester', '-d', 'shoal',
                            '-v', 'ON_ERROR_STOP=1', ...extra, '-c', sql],
                   { encoding: 'utf8', timeout: 60000, env: { ...process.env, PGCONNECT_TIMEOUT: '10' } });
}

// Every type the binary format has a send function for in Shoal, a row of NULLs, and edge values.
const columns = [
  ['b', 'boolean'], ['i2', 'smallint'], ['i4', 'integer'], ['i8', 'bigint'], ['f4', 'real'],
  ['f8', 'double precision'], ['n', 'numeric(20,3)'], ['t', 'text'], ['by', 'bytea'], ['d', 'date'],
  ['ts', 'timestamp'], ['tz', 'timestamptz'], ['iv', 'interval'],
];
const ddl = columns.map(([name, type]) => `${name} ${type}`).join(', ');
// A view (its SQL persists whatever the types; a durable table's Parquet has no interval).
const names = columns.map(([name]) => name).join(', ');
const casts = columns.map(([name, type]) => `${name}::${type} as ${name}`).join(', ');
let r = Psql(`create view bin_src as select ${casts} from (values ` +
             "(true, -2, 40000, -5000000000, 1.5, -0.25, -123456789012.345, 'héllo\ttab', 'ab'::bytea, " +
             "'2024-02-29', '2024-01-02 03:04:05.123456', '2024-01-02 03:04:05+00', " +
             "interval '1 year 2 months 3 days 4 hours 5 minutes 6.5 seconds'), " +
             "(false, 32767, -1, 9223372036854775807, -325000.5, 1e-300, 0.001, '', ''::bytea, " +
             "'1999-12-31', '1970-01-01 00:00:00', '1999-12-31 23:59:59.999999+00', interval '-1 days 2 hours'), " +
             `(null, null, 7, null, null, null, null, null, null, null, null, null, null)) v(${names})`);
Check(r.status === 0, `create bin_src: ${r.stderr}`);
const select = 'select * from bin_src order by i4';
const file = path.join(tmp, 'rows.bin');
r = Psql(`\\copy (${select}) to '${file}' with (format binary)`);
Check(r.status === 0, `\\copy binary: ${r.stderr}`);
Equal(r.stdout, 'COPY 3\n', '\\copy binary command tag');

// ---- 1. the file parsed here ---------------------------------------------------------------------
const PG_EPOCH_DAYS = 10957;  // 1970-01-01 to 2000-01-01
function Numeric(buf) {
  const ndigits = buf.readInt16BE(0);
  const weight = buf.readInt16BE(2);
  const sign = buf.readUInt16BE(4);
  const dscale = buf.readInt16BE(6);
  const digits = [];
  for (let i = 0; i < ndigits; ++i) digits.push(buf.readInt16BE(8 + 2 * i));
  const at = (w) => (weight - w >= 0 && weight - w < ndigits ? digits[weight - w] : 0);
  let int = '';
  for (let w = Math.max(weight, 0); w >= 0; --w) int += String(at(w)).padStart(4, '0');
  int = int.replace(/^0+(?=\d)/, '');
  let frac = '';
  for (let w = -1; frac.length < dscale; --w) frac += String(at(w)).padStart(4, '0');
  frac = frac.slice(0, dscale);
  return (sign === 0x4000 ? '-' : '') + int + (dscale > 0 ? '.' + frac : '');
}
const decoders = {
  boolean: (b) => b[0] === 1,
  smallint: (b) => b.readInt16BE(0),
  integer: (b) => b.readInt32BE(0),
  bigint: (b) => b.readBigInt64BE(0).toString(),
  real: (b) => b.readFloatBE(0),
  'double precision': (b) => b.readDoubleBE(0),
  'numeric(20,3)': Numeric,
  text: (b) => b.toString('utf8'),
  bytea: (b) => b.toString('hex'),
  date: (b) => new Date((b.readInt32BE(0) + PG_EPOCH_DAYS) * 86400000).toISOString().slice(0, 10),
  timestamp: (b) => (b.readBigInt64BE(0) + BigInt(PG_EPOCH_DAYS) * 86400000000n).toString(),
  timestamptz: (b) => (b.readBigInt64BE(0) + BigInt(PG_EPOCH_DAYS) * 86400000000n).toString(),
  interval: (b) => [b.readBigInt64BE(0).toString(), b.readInt32BE(8), b.readInt32BE(12)],
};
function ParseCopyBinary(buf) {
  const signature = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');
  Check(buf.subarray(0, 11).equals(signature), 'the file does not start with the COPY signature');
  Check(buf.readInt32BE(11) === 0, 'flags must be 0');
  let at = 15 + 4 + buf.readInt32BE(15);
  const rows = [];
  for (;;) {
    const count = buf.readInt16BE(at);
    at += 2;
    if (count === -1) break;
    Check(count === columns.length, `a tuple of ${count} fields`);
    const row = [];
    for (const [, type] of columns) {
      const length = buf.readInt32BE(at);
      at += 4;
      if (length === -1) {
        row.push(null);
        continue;
      }
      row.push(decoders[type](buf.subarray(at, at + length)));
      at += length;
    }
    rows.push(row);
  }
  Check(at === buf.length, `${buf.length - at} bytes after the trailer`);
  return rows;
}
const micros = (text) => (BigInt(Date.parse(text + 'Z')) * 1000n).toString();
// Ordered by i4: -1, 7 (the row of NULLs), 40000.
const expected = [
  [false, 32767, -1, '9223372036854775807', -325000.5, 1e-300, '0.001', '', '', '1999-12-31',
   '0', (BigInt(Date.parse('1999-12-31T23:59:59Z')) * 1000n + 999999n).toString(),
   [String(2n * 3600000000n), -1, 0]],
  [null, null, 7, null, null, null, null, null, null, null, null, null, null],
  [true, -2, 40000, '-5000000000', 1.5, -0.25, '-123456789012.345', 'héllo\ttab', '6162', '2024-02-29',
   (BigInt(Date.parse('2024-01-02T03:04:05Z')) * 1000n + 123456n).toString(), micros('2024-01-02T03:04:05'),
   [String(4n * 3600000000n + 5n * 60000000n + 6500000n), 3, 14]],
];
Equal(ParseCopyBinary(fs.readFileSync(file)), expected, 'the binary COPY file, parsed');
console.log('parsed: ok');

// COPY TO STDOUT in binary through psql's -c (the bytes on stdout are the same file).
r = spawnSync('psql', ['-X', '-h', '127.0.0.1', '-p', String(port), '-U', 'tester', '-d', 'shoal',
                       '-c', `copy (${select}) to stdout (format binary)`], { timeout: 60000 });
Check(r.status === 0, `copy to stdout binary: ${r.stderr}`);
Check(Buffer.compare(r.stdout, fs.readFileSync(file)) === 0, 'COPY TO STDOUT and \\copy wrote different bytes');

// Options PostgreSQL refuses in binary mode.
for (const [option, message] of [['delimiter \',\'', 'cannot specify DELIMITER in BINARY mode'],
                                 ['null \'x\'', 'cannot specify NULL in BINARY mode'],
                                 ['header', 'cannot specify HEADER in BINARY mode']]) {
  r = Psql(`copy (select 1) to stdout (format binary, ${option})`);
  Check(r.status !== 0 && r.stderr.includes(`ERROR:  ${message}`), `binary with ${option}: ${r.stderr}`);
}

// ---- 2. the file loaded into PostgreSQL ---------------------------------------------------------
function PgLocal(sql, input) {
  return spawnSync('su', ['postgres', '-c', `psql -X -q -v ON_ERROR_STOP=1 -A -t -c "${sql}"`],
                   { input, timeout: 60000, env: { ...process.env, PGOPTIONS: '-c TimeZone=UTC' } });
}
const probe = process.getuid && process.getuid() === 0 ? PgLocal('select 1') : { status: 1 };
if (probe.status !== 0) {
  console.log('PostgreSQL is not running here: the load into PostgreSQL is skipped');
} else {
  const table = `shoal_copy_binary_${process.pid}`;
  try {
    r = PgLocal(`create table ${table} (${ddl})`);
    Check(r.status === 0, `PostgreSQL create: ${r.stderr}`);
    r = PgLocal(`\\\\copy ${table} from pstdin with (format binary)`, fs.readFileSync(file));
    Check(r.status === 0, `PostgreSQL COPY FROM (FORMAT binary): ${r.stderr}`);
    r = PgLocal(`select * from ${table} order by i4`);
    Check(r.status === 0, `PostgreSQL select: ${r.stderr}`);
    const shoalRows = Psql(select, ['-A', '-t']);
    Check(shoalRows.status === 0, `Shoal select: ${shoalRows.stderr}`);
    Equal(r.stdout.toString(), shoalRows.stdout, 'the rows loaded into PostgreSQL, as each prints them');
    console.log('loaded into PostgreSQL: ok');
  } finally {
    PgLocal(`drop table if exists ${table}`);
  }
}

server.kill('SIGTERM');
await WaitFor(() => server.exitCode !== null || server.signalCode !== null, 'the server to stop', 30000);
console.log('server_copy_binary: all checks passed');
