// `shoal server`'s authentication and TLS with real processes and real clients (issues 14, 15):
//  1. `shoal server passwd USER` reads the password from stdin and writes a SCRAM verifier (never
//     the password) into DATA_DIR/users;
//  2. scram-sha-256 rules (hba.conf): psql and node-postgres log in with the right password; a
//     wrong password and an unknown user fail alike (28P01, same message), after the fixed delay;
//  3. TLS (--tls-cert/--tls-key, a self-signed certificate made here with openssl): psql with
//     sslmode=require gets a TLS session (sslinfo via \conninfo); a hostssl rule refuses the same
//     client without TLS (28000) and a reject rule refuses the rest.
//
// Usage: node tests/integration/server_auth.mjs <path to shoal>
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';

import { WaitFor } from './wait.mjs';

const require = createRequire(path.join(path.dirname(new URL(import.meta.url).pathname),
                                        '../server/package.json'));
const pg = require('pg');

const shoal = process.argv[2];
if (!shoal) {
  console.error('usage: node server_auth.mjs <shoal binary>');
  process.exit(2);
}
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'shoal-auth-'));
const children = [];
process.on('exit', () => {
  for (const c of children) {
    if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  }
  fs.rmSync(tmp, { recursive: true, force: true });
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(1));

let serverLog = '';
function Fail(message) {
  console.error(`FAIL: ${message}`);
  if (serverLog) console.error(`--- server log:\n${fs.readFileSync(serverLog, 'utf8')}`);
  process.exit(1);
}
function Check(condition, message) {
  if (!condition) Fail(message);
}

async function StartServer(args, name) {
  const log = path.join(tmp, `${name}.log`);
  const fd = fs.openSync(log, 'w');
  const child = spawn(shoal, ['server', '--listen', '127.0.0.1:0', ...args], { stdio: ['ignore', fd, fd] });
  fs.closeSync(fd);
  children.push(child);
  serverLog = log;
  const port = await WaitFor(() => {
    const m = fs.readFileSync(log, 'utf8').match(/listening on 127\.0\.0\.1:(\d+)/);
    if (m) return Number(m[1]);
    return child.exitCode !== null ? -1 : false;
  }, `${name} to listen`, 120000);
  Check(port > 0, `${name} did not start`);
  return { child, port };
}

function Psql(port, user, password, sql, extraEnv = {}) {
  return spawnSync('psql', ['-X', '-A', '-t', '-h', '127.0.0.1', '-p', String(port), '-U', user, '-d', 'shoal',
                            '-c', sql],
                   { encoding: 'utf8', timeout: 60000,
                     env: { ...process.env, PGPASSWORD: password, PGCONNECT_TIMEOUT: '10', ...extraEnv } });
}

// ---- 1. passwd -----------------------------------------------------------------------------------
const dataDir = path.join(tmp, 'data');
for (const [user, password] of [['alice', 'correct horse'], ['bob', 's3cret']]) {
  const r = spawnSync(shoal, ['server', 'passwd', user, '--data-dir', dataDir],
                      { input: `${password}\n`, encoding: 'utf8', timeout: 60000 });
  Check(r.status === 0, `passwd ${user}: ${r.stderr}`);
}
const users = fs.readFileSync(path.join(dataDir, 'users'), 'utf8');
Check(/^alice:SCRAM-SHA-256\$4096:[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+$/m.test(users) &&
      !users.includes('correct horse'), `users file: ${users}`);
Check((fs.statSync(path.join(dataDir, 'users')).mode & 0o777) === 0o600, 'users file mode');
// Replacing an entry keeps one line per user.
spawnSync(shoal, ['server', 'passwd', 'bob', '--data-dir', dataDir], { input: 'newer\n', encoding: 'utf8' });
Check(fs.readFileSync(path.join(dataDir, 'users'), 'utf8').split('\n').filter((l) => l.startsWith('bob:')).length === 1,
      'bob has one entry');
console.log('passwd: ok');

// ---- 2. SCRAM ----------------------------------------------------------------------------------
// A certificate for 3. made now so one server serves both.
const cert = path.join(tmp, 'server.crt');
const key = path.join(tmp, 'server.key');
{
  const r = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert,
                                  '-days', '1', '-subj', '/CN=127.0.0.1'], { encoding: 'utf8' });
  Check(r.status === 0, `openssl: ${r.stderr}`);
}
fs.writeFileSync(path.join(dataDir, 'hba.conf'), [
  '# TYPE   DATABASE USER  ADDRESS       METHOD',
  'hostssl  all      bob   127.0.0.1/32  scram-sha-256',
  'host     all      bob   all           reject',
  'host     all      all   127.0.0.0/8   scram-sha-256',
  '',
].join('\n'));
const server = await StartServer(['--data-dir', dataDir, '--tls-cert', cert, '--tls-key', key], 'server');
const port = server.port;
{
  let r = Psql(port, 'alice', 'correct horse', 'select 1');
  Check(r.status === 0 && r.stdout === '1\n', `alice with her password: ${r.stderr}`);
  const client = new pg.Client({ host: '127.0.0.1', port, user: 'alice', password: 'correct horse', database: 'shoal' });
  await client.connect();
  const res = await client.query('select $1::int * 2 as x', [21]);
  Check(res.rows[0].x === 42, 'node-postgres over SCRAM');
  await client.end();
  // A wrong password and a user that does not exist: the same error, each after the delay.
  const start = Date.now();
  const wrong = Psql(port, 'alice', 'wrong', 'select 1');
  const wrongMs = Date.now() - start;
  const nobody = Psql(port, 'nobody', 'whatever', 'select 1');
  const message = (s) => s.replace(/"[^"]*"/g, '"X"').trim();
  Check(wrong.status !== 0 && /FATAL:  password authentication failed for user "alice"/.test(wrong.stderr),
        `wrong password: ${wrong.stderr}`);
  Check(nobody.status !== 0 && message(nobody.stderr) === message(wrong.stderr),
        `unknown user answered differently:\n${nobody.stderr}\nvs\n${wrong.stderr}`);
  Check(wrongMs >= 400, `a failed login took only ${wrongMs} ms`);
  const bad = await new pg.Client({ host: '127.0.0.1', port, user: 'alice', password: 'nope', database: 'shoal' })
    .connect().then(() => null, (e) => e);
  Check(bad && bad.code === '28P01', `node-postgres wrong password: ${bad && bad.code}`);
  console.log('scram: ok');
}

// ---- 3. TLS ------------------------------------------------------------------------------------------
{
  // bob may only come over TLS.
  let r = Psql(port, 'bob', 'newer', 'select 7', { PGSSLMODE: 'require' });
  Check(r.status === 0 && r.stdout === '7\n', `bob over TLS: ${r.stderr}`);
  r = spawnSync('psql', ['-X', '-h', '127.0.0.1', '-p', String(port), '-U', 'bob', '-d', 'shoal', '-c', '\\conninfo'],
                { encoding: 'utf8', env: { ...process.env, PGPASSWORD: 'newer', PGSSLMODE: 'require' } });
  Check(/SSL connection \(protocol: TLSv1\.[23]/.test(r.stdout), `conninfo: ${r.stdout} ${r.stderr}`);
  r = Psql(port, 'bob', 'newer', 'select 7', { PGSSLMODE: 'disable' });
  Check(r.status !== 0 && /no hba.conf entry for host "127.0.0.1", user "bob", database "shoal", no encryption/.test(r.stderr),
        `bob without TLS: ${r.stderr}`);
  // alice's rule takes both; with sslmode=verify-ca against the certificate itself.
  r = Psql(port, 'alice', 'correct horse', 'select 8', { PGSSLMODE: 'verify-ca', PGSSLROOTCERT: cert });
  Check(r.status === 0 && r.stdout === '8\n', `alice verify-ca: ${r.stderr}`);
  console.log('tls: ok');
}

// A server without a certificate answers SSLRequest with 'N': sslmode=require fails, prefer works.
{
  const plain = await StartServer(['--data-dir', path.join(tmp, 'plain')], 'plain');
  let r = Psql(plain.port, 'x', '', 'select 1', { PGSSLMODE: 'require' });
  Check(r.status !== 0 && /server does not support SSL/.test(r.stderr), `require without TLS: ${r.stderr}`);
  r = Psql(plain.port, 'x', '', 'select 1', { PGSSLMODE: 'prefer' });
  Check(r.status === 0, `prefer without TLS: ${r.stderr}`);
  console.log('no tls: ok');
}
console.log('server_auth: all checks passed');
// The servers still running hold pipes open; the exit handler above stops them.
process.exit(0);
