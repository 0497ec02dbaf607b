// Mutual TLS and signed requests between nodes (issue 15, docs/security.md) with real processes:
// 3 `shoal worker`s with certificates of a test CA and the cluster secret answer a TPC-H query
// through `shoal sql --workers` exactly as one node does; then each hostile client is refused —
// a TLS client without a certificate, a node with a certificate of another CA, plain TCP, the
// wrong cluster secret, an expired signature, unsigned requests — and after each the workers
// still answer a correct client. Workers and coordinators without TLS flags and without
// --insecure, and a world-readable secret file, refuse to start with a clear error.
//
//   node cluster_security.mjs SHOAL_BINARY
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { MakeClusterCerts } from './cluster_certs.mjs';
import { ListeningAddress } from './wait.mjs';

const shoal = process.argv[2];
if (!shoal) {
  console.error('usage: node cluster_security.mjs SHOAL_BINARY');
  process.exit(2);
}
const sf = '0.01';
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'shoal-security-'));
const children = [];
function KillAll() {
  for (const c of children) {
    if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  }
}
process.on('exit', () => {
  KillAll();
  fs.rmSync(tmp, { recursive: true, force: true });
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(1));

let failures = 0;
function Check(what, ok, detail = '') {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
  if (!ok) {
    ++failures;
    if (detail) console.log(`     ${detail.trim().split('\n').join('\n     ')}`);
  }
}

const certs = MakeClusterCerts(path.join(tmp, 'certs'), ['node', 'coordinator']);
const other = MakeClusterCerts(path.join(tmp, 'other-ca'));  // another CA, another secret

async function StartWorker(name) {
  const log = path.join(tmp, `${name}.log`);
  const fd = fs.openSync(log, 'w');
  const child = spawn(shoal, ['worker', ...certs.argsFor('node'), '--listen', '127.0.0.1:0',
                              '--threads', '2', '--tpch', sf],
                      { stdio: ['ignore', fd, fd] });
  fs.closeSync(fd);
  children.push(child);
  return { name, child, log, address: await ListeningAddress(child, log) };
}

function Run(args, timeoutSeconds = 120) {
  const r = spawnSync(shoal, args, { encoding: 'utf8', timeout: timeoutSeconds * 1000 });
  return { code: r.status, stdout: r.stdout ?? '', stderr: (r.stderr ?? '') + (r.error ?? '') };
}
const query = 'SELECT l_returnflag, l_linestatus, count(*), sum(l_extendedprice), ' +
              'avg(l_discount) FROM lineitem GROUP BY 1, 2 ORDER BY 1, 2';
const joinQuery = 'SELECT n_name, count(*) FROM customer JOIN nation ON c_nationkey = ' +
                  'n_nationkey GROUP BY n_name ORDER BY 2 DESC, 1 LIMIT 5';
function Sql(security, extra = [], sql = query) {
  return Run(['sql', '--tpch', sf, '--format', 'csv', '--workers', workersArg, ...security,
              '-c', "SET dist_bytes_per_task = '64kB'", ...extra, '-c', sql]);
}

// Refusals to start: neither TLS nor --insecure, a world-readable secret, both.
{
  const bare = Run(['worker', '--listen', '127.0.0.1:0']);
  Check('a worker without TLS flags or --insecure refuses to start',
        bare.code === 1 && bare.stderr.includes('--insecure') &&
          bare.stderr.includes('--cluster-secret-file'), bare.stderr);
  const bareSql = Run(['sql', '--workers', '127.0.0.1:1', '-c', 'SELECT 1']);
  Check('shoal sql --workers without TLS flags or --insecure refuses to start',
        bareSql.code === 1 && bareSql.stderr.includes('--insecure'), bareSql.stderr);
  const open = path.join(tmp, 'world-readable-secret');
  fs.copyFileSync(certs.secret, open);
  fs.chmodSync(open, 0o644);
  const args = certs.argsFor('node').slice(0, -1).concat([open]);
  const world = Run(['worker', ...args, '--listen', '127.0.0.1:0']);
  Check('a world-readable secret file is refused',
        world.code === 1 && world.stderr.includes('readable or writable by every user') &&
          world.stderr.includes(open), world.stderr);
  const both = Run(['worker', ...certs.args, '--insecure', '--listen', '127.0.0.1:0']);
  Check('TLS flags and --insecure together are refused', both.code === 1, both.stderr);
  const missing = Run(['worker', ...certs.args.slice(0, 4), '--listen', '127.0.0.1:0']);
  Check('a missing --tls-ca is named', missing.code === 1 && missing.stderr.includes('--tls-ca'),
        missing.stderr);
}

const workers = [];
for (const name of ['w1', 'w2', 'w3']) workers.push(await StartWorker(name));
const workersArg = workers.map((w) => w.address).join(',');
console.log(`workers: ${workersArg}`);

// The single node's answers, then the cluster's over mTLS with signed requests.
const expected = Run(['sql', '--tpch', sf, '--format', 'csv', '-c', query]);
const expectedJoin = Run(['sql', '--tpch', sf, '--format', 'csv', '-c', joinQuery]);
if (expected.code !== 0 || expectedJoin.code !== 0) {
  console.log(`FAIL the single-node answers: ${expected.stderr}${expectedJoin.stderr}`);
  process.exit(1);
}
const good = certs.argsFor('coordinator');
function CorrectClientServed(after) {
  const r = Sql(good);
  Check(`${after}: a correct client still gets the single-node answer`,
        r.code === 0 && r.stdout === expected.stdout, r.stderr || r.stdout);
  Check(`${after}: every worker still runs`, workers.every((w) => w.child.exitCode === null));
}
{
  const r = Sql(good);
  Check('3 workers over mutual TLS with signed requests give the single-node answer',
        r.code === 0 && r.stdout === expected.stdout, r.stderr || r.stdout);
  const j = Sql(good, [], joinQuery);
  Check('a join across the workers (worker -> worker calls) gives the single-node answer',
        j.code === 0 && j.stdout === expectedJoin.stdout, j.stderr || j.stdout);
  const explain = Sql(good, [], `EXPLAIN ${query}`);
  Check('the query ran in stages on the workers',
        explain.code === 0 && explain.stdout.includes('NetworkShuffle'), explain.stdout);
}

// A TLS client without a certificate: the worker ends the handshake (TLS 1.2 shows it there);
// the same client with a certificate of the CA completes it.
{
  const sClient = (extra) => spawnSync('openssl', ['s_client', '-tls1_2', '-alpn', 'h2', '-connect',
                                                   workers[0].address, '-CAfile', certs.ca,
                                                   ...extra],
                                       { input: '', encoding: 'utf8', timeout: 30000 });
  const without = sClient([]);
  const withCert = sClient(['-cert', certs.cert, '-key', certs.key]);
  Check('a TLS client without a certificate is cut off in the handshake',
        without.status !== 0 && withCert.status === 0,
        `without: ${without.status} ${without.stderr}\nwith: ${withCert.status} ${withCert.stderr}`);
}
CorrectClientServed('after a client without a certificate');

{
  const r = Sql(other.args);
  Check('a node with a certificate of another CA is refused',
        r.code !== 0 && r.stderr.includes('unreachable') && r.stderr.includes('--tls-ca'),
        r.stderr);
}
CorrectClientServed('after a certificate of another CA');

{
  const r = Sql(['--insecure']);
  Check('a plain-TCP client is refused', r.code !== 0 && r.stderr.includes('unreachable'),
        r.stderr);
}
CorrectClientServed('after a plain-TCP client');

{
  const wrongSecret = certs.argsFor('coordinator').slice(0, -1).concat([other.secret]);
  const r = Sql(wrongSecret);
  Check('a node with the wrong cluster secret is refused (UNAUTHENTICATED: wrong signature)',
        r.code !== 0 && r.stderr.includes('refused the request') &&
          r.stderr.includes('wrong signature'), r.stderr);
}
CorrectClientServed('after the wrong secret');

{
  const r = Sql(good, ['--test-auth-ttl-ms', '-5000']);
  Check('an expired signature is refused',
        r.code !== 0 && /signature expired \d+ ms ago/.test(r.stderr), r.stderr);
}
CorrectClientServed('after an expired signature');

{
  const unsigned = certs.argsFor('coordinator').slice(0, 6).concat(['--test-unsigned-requests']);
  const r = Sql(unsigned);
  Check('unsigned requests are refused', r.code !== 0 && r.stderr.includes('is not signed'),
        r.stderr);
}
CorrectClientServed('after unsigned requests');

// `shoal server --workers`: its front door's --tls-cert/--tls-key are its node certificate too;
// a psql client (who never holds the cluster secret) gets the single-node answer.
{
  const bare = Run(['server', '--listen', '127.0.0.1:0', '--data-dir', path.join(tmp, 'bare'),
                    '--workers', workersArg]);
  Check('shoal server --workers without TLS flags or --insecure refuses to start',
        bare.code === 1 && bare.stderr.includes('--insecure'), bare.stderr);
  const log = path.join(tmp, 'server.log');
  const fd = fs.openSync(log, 'w');
  const child = spawn(shoal, ['server', '--listen', '127.0.0.1:0', '--data-dir',
                              path.join(tmp, 'server'), '--tpch', sf, '--workers', workersArg,
                              ...good],
                      { stdio: ['ignore', fd, fd] });
  fs.closeSync(fd);
  children.push(child);
  const address = await ListeningAddress(child, log);
  const port = address.split(':').pop();
  const psql = spawnSync('psql', ['-X', '--csv', '-h', '127.0.0.1', '-p', port, '-U', 'shoal',
                                  '-d', 'shoal', '-c', "SET dist_bytes_per_task = '64kB'",
                                  '-c', query],
                         { encoding: 'utf8', timeout: 120000,
                           env: { ...process.env, PGCONNECT_TIMEOUT: '10' } });
  const rows = (psql.stdout ?? '').split('\n').filter((l) => l !== 'SET').join('\n');
  Check('shoal server over mutual TLS to the workers answers psql like one node',
        psql.status === 0 && rows === expected.stdout, `${psql.stderr}\n${psql.stdout}`);
  child.kill('SIGTERM');
}

// Plain TCP is possible when asked for on both ends, and the worker says so at start-up.
{
  const log = path.join(tmp, 'insecure.log');
  const fd = fs.openSync(log, 'w');
  const child = spawn(shoal, ['worker', '--insecure', '--listen', '127.0.0.1:0', '--tpch', sf],
                      { stdio: ['ignore', fd, fd] });
  fs.closeSync(fd);
  children.push(child);
  const address = await ListeningAddress(child, log);
  Check('an --insecure worker warns at start-up',
        fs.readFileSync(log, 'utf8').includes('WARNING:  shoal worker --insecure'),
        fs.readFileSync(log, 'utf8'));
  const r = Run(['sql', '--tpch', sf, '--format', 'csv', '--workers', address, '--insecure',
                 '-c', query]);
  Check('--insecure on both ends answers', r.code === 0 && r.stdout === expected.stdout,
        r.stderr);
  const tls = Run(['sql', '--tpch', sf, '--workers', address, ...good, '-c', query]);
  Check('a TLS coordinator does not talk to a plain-TCP worker', tls.code !== 0, tls.stdout);
}

console.log(failures === 0 ? 'cluster security: ok' : `cluster security: ${failures} failed`);
process.exit(failures === 0 ? 0 : 1);
