// Several hosts, not one loopback (issue 16 item 6): the coordinator and 3 workers each in a
// network namespace of their own, joined by veth pairs to a bridge in a fifth ("hub") namespace,
// with addresses in 10.213.X.0/24 and a tbf qdisc at 1 Gbit/s on every node's link; nothing of
// it touches the host's own namespace (no route leads out of the namespaces). Over those real
// addresses, with mutual TLS (certificates naming them) and signed requests:
//  1. the 22 TPC-H queries through `shoal sql --workers` (tests/tpch/check_answers.mjs, DuckDB's
//     answers), the workers listening on their namespace's address;
//  2. one worker's link cut (`ip link set eth0 down`) mid-query: under retry_policy = none the
//     query fails within 10 s with an error naming that worker; under retry_policy = query it runs
//     again on the other two and answers right (the shell sends no row before the end, so no
//     error may stand), with the NOTICE;
//  3. after the link is up again, the next query uses all three workers again.
// The test creates everything it uses, under names unique to the run, and removes it at the end,
// also when a check fails or the script is interrupted. Without the right to create namespaces
// (not root, no CAP_NET_ADMIN, no `ip`/`tc`) it prints "SKIPPED: <reason>" and exits 77, which
// CMake declares as the test's SKIP_RETURN_CODE.
//
// Usage: node tests/integration/netns.mjs <path to shoal> [--sf SF (0.01)] [qNN ...]
import { spawn, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { MakeClusterCerts } from './cluster_certs.mjs';
import { FailureReport } from './failure_report.mjs';
import { CpuSeconds, WaitFor } from './wait.mjs';

const kSkip = 77;
const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..', '..');
const shoal = process.argv[2] ? path.resolve(process.argv[2]) : '';
let sf = '0.01';
const only = [];
for (let i = 3; i < process.argv.length; ++i) {
  if (process.argv[i] === '--sf' && i + 1 < process.argv.length) sf = process.argv[++i];
  else if (/^q\d\d$/.test(process.argv[i])) only.push(process.argv[i]);
  else shoalUsage();
}
function shoalUsage() {
  console.error('usage: node netns.mjs <shoal binary> [--sf SF] [qNN ...]');
  process.exit(2);
}
if (!shoal) shoalUsage();

// Names unique to this run (an interface name has at most 15 characters; these live inside the
// run's own namespaces, so only the namespace names must not collide with another run's). The
// names carry the script's pid: a run killed with SIGKILL (a ctest timeout) could not remove its
// namespaces, and the next run removes those whose script is gone.
const kPrefix = 'shoalnt-';
const run = `${kPrefix}${process.pid}-${crypto.randomBytes(2).toString('hex')}`;
const subnet = `10.213.${crypto.randomInt(256)}`;
const hub = `${run}-hub`;
const nodes = [
  { name: 'coord', ns: `${run}-coord`, ip: `${subnet}.10` },
  { name: 'w1', ns: `${run}-w1`, ip: `${subnet}.11` },
  { name: 'w2', ns: `${run}-w2`, ip: `${subnet}.12` },
  { name: 'w3', ns: `${run}-w3`, ip: `${subnet}.13` },
];
const coord = nodes[0];
const workerNodes = nodes.slice(1);
const kPort = 7400;

function RemoveNamespace(ns) {
  // Anything still running in it (a child of a child) goes first, so that the namespace and its
  // links really go away.
  const pids = spawnSync('ip', ['netns', 'pids', ns], { encoding: 'utf8' }).stdout ?? '';
  for (const pid of pids.split('\n').filter(Boolean)) {
    try {
      process.kill(Number(pid), 'SIGKILL');
    } catch {
      // already gone
    }
  }
  spawnSync('ip', ['netns', 'del', ns]);
}
function Alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e.code === 'EPERM';
  }
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'shoal-netns-'));
const children = [];
const created = [];  // namespaces, removed in reverse order
function CleanUp() {
  for (const c of children) {
    if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  }
  for (const ns of created.splice(0).reverse()) RemoveNamespace(ns);
  fs.rmSync(tmp, { recursive: true, force: true });
}
process.on('exit', CleanUp);
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(1));

const workers = [];  // for the failure report: { address, log }
const { Fail, Expect } = FailureReport(workers);

function Ip(args, what) {
  const r = spawnSync('ip', args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${what ?? `ip ${args.join(' ')}`}: ${r.stderr.trim() || r.error}`);
  return r.stdout;
}
function InNs(ns, command, args) {
  const r = spawnSync('ip', ['netns', 'exec', ns, command, ...args], { encoding: 'utf8' });
  if (r.status !== 0) {
    throw new Error(`ip netns exec ${ns} ${command} ${args.join(' ')}: ${r.stderr.trim() || r.error}`);
  }
  return r.stdout;
}

// 0. The namespaces, or SKIPPED.
{
  const tools = spawnSync('sh', ['-c', 'command -v ip && command -v tc'], { encoding: 'utf8' });
  if (tools.status !== 0) {
    console.log('SKIPPED: the `ip` and `tc` commands (iproute2) are needed');
    process.exit(kSkip);
  }
  // What an earlier run killed by SIGKILL left.
  const listed = spawnSync('ip', ['netns', 'list'], { encoding: 'utf8' }).stdout ?? '';
  for (const line of listed.split('\n')) {
    const m = line.match(new RegExp(`^(${kPrefix}(\\d+)-[0-9a-f]+-\\w+)`));
    if (m && !Alive(Number(m[2]))) {
      console.log(`removing namespace ${m[1]}, left by a run that was killed`);
      RemoveNamespace(m[1]);
    }
  }
  const add = spawnSync('ip', ['netns', 'add', hub], { encoding: 'utf8' });
  if (add.status !== 0) {
    console.log(`SKIPPED: cannot create a network namespace (ip netns add: ${add.stderr.trim()}; ` +
                'the test needs root or CAP_NET_ADMIN)');
    process.exit(kSkip);
  }
  created.push(hub);
}
try {
  Ip(['-n', hub, 'link', 'add', 'br0', 'type', 'bridge']);
  Ip(['-n', hub, 'link', 'set', 'br0', 'up']);
  for (const node of nodes) {
    Ip(['netns', 'add', node.ns]);
    created.push(node.ns);
    // The veth pair is made inside the node's namespace, its peer moved straight into the hub.
    Ip(['-n', node.ns, 'link', 'add', 'eth0', 'type', 'veth', 'peer', 'name', `v-${node.name}`,
        'netns', hub]);
    Ip(['-n', hub, 'link', 'set', `v-${node.name}`, 'master', 'br0']);
    Ip(['-n', hub, 'link', 'set', `v-${node.name}`, 'up']);
    Ip(['-n', node.ns, 'addr', 'add', `${node.ip}/24`, 'dev', 'eth0']);
    Ip(['-n', node.ns, 'link', 'set', 'lo', 'up']);
    Ip(['-n', node.ns, 'link', 'set', 'eth0', 'up']);
    InNs(node.ns, 'tc', ['qdisc', 'add', 'dev', 'eth0', 'root', 'tbf', 'rate', '1gbit',
                         'burst', '256kb', 'latency', '50ms']);
  }
} catch (e) {
  // A kernel without veth, bridge or tbf is a machine that cannot run this test, not a failure.
  console.log(`SKIPPED: cannot set up the namespaces' network: ${e.message}`);
  process.exit(kSkip);
}
console.log(`namespaces ${nodes.map((n) => `${n.ns} (${n.ip})`).join(', ')} on bridge br0 of ` +
            `${hub}; tbf 1gbit on every link`);

const certs = MakeClusterCerts(path.join(tmp, 'certs'), ['node'], nodes.map((n) => n.ip));

// 1. Workers on their namespaces' addresses.
function StartWorker(node) {
  const log = path.join(tmp, `${node.name}.log`);
  const fd = fs.openSync(log, 'w');
  const child = spawn('ip', ['netns', 'exec', node.ns, shoal, 'worker', ...certs.args, '--listen',
                             `${node.ip}:${kPort}`, '--threads', '2', '--tpch', sf,
                             '--task-ttl', '5s'],
                      { stdio: ['ignore', fd, fd], env: { ...process.env, SHOAL_LOG_LEVEL: 'info' } });
  fs.closeSync(fd);
  children.push(child);
  node.child = child;
  node.log = log;
  node.address = `${node.ip}:${kPort}`;
  workers.push({ address: node.address, log });
}
workerNodes.forEach(StartWorker);
for (const node of workerNodes) {
  const up = await WaitFor(() => /listening on /.test(fs.readFileSync(node.log, 'utf8')) ||
                                 node.child.exitCode !== null,
                           `worker ${node.name} to listen`, 120000);
  const log = fs.readFileSync(node.log, 'utf8');
  if (!up || !log.includes(`listening on ${node.address}`)) {
    Fail(`worker ${node.name} does not listen on ${node.address}`);
  }
}
// A TCP connection from the coordinator's namespace to `node`'s worker port (bash's /dev/tcp:
// the namespaces have no ping, nor need one).
function Reaches(node) {
  return spawnSync('ip', ['netns', 'exec', coord.ns, 'timeout', '3', 'bash', '-c',
                          `exec 3<>/dev/tcp/${node.ip}/${kPort}`]).status === 0;
}
for (const node of workerNodes) {
  if (!await WaitFor(() => Reaches(node), `the coordinator's namespace to reach ${node.name}`, 30000)) {
    Fail(`the coordinator's namespace does not reach ${node.address} over the bridge`);
  }
}
const workersArg = workerNodes.map((n) => n.address).join(',');
console.log(`workers: ${workersArg}`);

// `shoal sql` always runs in the coordinator's namespace: a wrapper that check_answers.mjs calls.
const wrapper = path.join(tmp, 'shoal-in-coord');
fs.writeFileSync(wrapper, '#!/bin/sh\n' +
  `if [ "$1" = sql ]; then shift; exec ip netns exec '${coord.ns}' '${shoal}' sql ` +
  `--workers '${workersArg}' ${certs.args.map((a) => `'${a}'`).join(' ')} "$@"; fi\n` +
  `exec '${shoal}' "$@"\n`, { mode: 0o755 });
{
  const check = spawnSync('node', [path.join(repo, 'tests', 'tpch', 'check_answers.mjs'), wrapper, sf,
                                   '--timeout', '300', '--setting', 'dist_bytes_per_task=64kB',
                                   '--setting', 'threads=2', ...only],
                          { encoding: 'utf8', timeout: 1800000 });
  process.stdout.write(check.stdout ?? '');
  process.stderr.write(check.stderr ?? '');
  if (check.status !== 0) Fail('the TPC-H answers over the namespaces\' addresses');
  // Every worker ran tasks: the queries went over the bridge, not around it.
  for (const node of workerNodes) {
    const ran = (fs.readFileSync(node.log, 'utf8').match(/ended stage \d+ task \d+/g) ?? []).length;
    Expect(ran > 0, `worker ${node.name} ran no task of the TPC-H queries`);
  }
}

// 2. A link cut mid-query.
function SqlInBackground(args) {
  const child = spawn(wrapper, ['sql', '--tpch', sf, '--format', 'csv', ...args],
                      { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  const r = { child, stdout: '', stderr: '', code: undefined };
  child.stdout.on('data', (d) => { r.stdout += d; });
  child.stderr.on('data', (d) => { r.stderr += d; });
  r.done = new Promise((resolve) => child.on('exit', (code) => { r.code = code; resolve(r); }));
  return r;
}
async function Ended(r, seconds) {
  const guard = setTimeout(() => r.child.kill('SIGKILL'), seconds * 1000);
  await r.done;
  clearTimeout(guard);
  return r;
}
const longSql = 'SELECT count(*) FROM lineitem a, orders b WHERE a.l_orderkey + b.o_orderkey < 0';
async function CutMidQuery(policy, victim) {
  const q = SqlInBackground(['-c', "SET dist_bytes_per_task = '64kB'",
                             '-c', `SET retry_policy = '${policy}'`, '-c', longSql]);
  const idle = CpuSeconds(victim.child.pid);
  const running = await WaitFor(() => q.code !== undefined ||
                                      CpuSeconds(victim.child.pid) - idle >= 0.3,
                                `worker ${victim.name} to run the query`);
  Expect(running && q.code === undefined,
         `the query ended before ${victim.name}'s link could be cut (${policy})`, q);
  Ip(['-n', victim.ns, 'link', 'set', 'eth0', 'down']);
  const cutAt = Date.now();
  await Ended(q, 300);
  const seconds = (Date.now() - cutAt) / 1000;
  Expect(q.code !== null, `retry_policy = ${policy}: the query hung after a link was cut`, q);
  Ip(['-n', victim.ns, 'link', 'set', 'eth0', 'up']);
  // Back: the coordinator's namespace reaches it again.
  if (!await WaitFor(() => Reaches(victim), `${victim.name} to be reachable again`, 30000)) {
    Fail(`${victim.address} is not reachable after its link came up again`);
  }
  return { q, seconds };
}
{
  const victim = workerNodes[2];
  const { q, seconds } = await CutMidQuery('none', victim);
  Expect(q.code !== 0 && q.stderr.includes(victim.address) && seconds < 10,
         `retry_policy = none: the query did not fail within 10 s naming ${victim.address} ` +
         `(${seconds.toFixed(1)} s)`, q);
  console.log(`link cut, retry_policy = none: failed in ${seconds.toFixed(1)} s: ` +
              q.stderr.trim().split('\n')[0]);
}
{
  const victim = workerNodes[1];
  const { q, seconds } = await CutMidQuery('query', victim);
  Expect(q.code === 0 && q.stdout.trim().split('\n').pop() === '0',
         'retry_policy = query: the query did not answer right after a link was cut', q);
  Expect(/NOTICE: .*running the query again on the workers that answer/.test(q.stderr) &&
         q.stderr.includes(victim.address), 'retry_policy = query: no NOTICE names the retry', q);
  console.log(`link cut, retry_policy = query: answered right after ${seconds.toFixed(1)} s; ` +
              q.stderr.trim().split('\n').find((l) => l.startsWith('NOTICE')));
}

// 3. Links up again: a query uses all three workers.
{
  const before = workerNodes.map((n) =>
    (fs.readFileSync(n.log, 'utf8').match(/ended stage \d+ task \d+/g) ?? []).length);
  const q = await Ended(SqlInBackground(['-c', "SET dist_bytes_per_task = '64kB'", '-c',
                                         'SELECT l_returnflag, count(*) FROM lineitem ' +
                                         'GROUP BY 1 ORDER BY 1']), 300);
  Expect(q.code === 0 && q.stdout.split('\n').length >= 4, 'the query after the links came back', q);
  const after = workerNodes.map((n) =>
    (fs.readFileSync(n.log, 'utf8').match(/ended stage \d+ task \d+/g) ?? []).length);
  Expect(after.every((n, i) => n > before[i]),
         `not every worker ran a task once the links were up again (tasks before ${before}, ` +
         `after ${after})`, q);
  console.log('links up again: the next query ran on all three workers');
}

// Clean-up is checked too: no process left in the namespaces, and the namespaces gone.
for (const c of children) {
  if (c.exitCode === null && c.signalCode === null) c.kill('SIGTERM');
}
const stopped = await WaitFor(() => children.every((c) => c.exitCode !== null || c.signalCode !== null),
                              'the workers to stop', 30000);
Expect(stopped, 'a worker did not stop on SIGTERM');
const names = created.slice();
CleanUp();
const left = Ip(['netns', 'list']).split('\n').filter((l) => names.some((n) => l.startsWith(`${n} `) ||
                                                                            l === n));
Expect(left.length === 0, `namespaces left behind: ${left.join(', ')}`);
console.log(`netns: all checks passed; namespaces ${names.join(', ')} removed`);
process.exit(0);
