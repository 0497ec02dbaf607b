// Mutual TLS and request signing for the integration scripts (docs/security.md): makes a test CA,
// node certificates and a cluster secret with scripts/make-test-certs.sh, and returns the flags
// every `shoal worker` and `shoal sql --workers` of a secure test cluster takes.
//
//   const certs = MakeClusterCerts(path.join(tmp, 'certs'));
//   spawn(shoal, ['worker', ...certs.args, '--listen', ...]);
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/// Makes ca.pem, node.pem/.key (and one pair per extra name) and cluster-secret in `dir`; the
/// certificates name 127.0.0.1, ::1, localhost and the addresses in `ips` (e.g. a network
/// namespace's).
export function MakeClusterCerts(dir, names = ['node'], ips = []) {
  const r = spawnSync('bash', [path.join(repo, 'scripts', 'make-test-certs.sh'), dir,
                               ...ips.flatMap((ip) => ['--san', `IP:${ip}`]), ...names],
                      { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`make-test-certs.sh failed: ${r.stderr}${r.error ?? ''}`);
  const file = (name) => path.join(dir, name);
  const certs = {
    dir, ca: file('ca.pem'), secret: file('cluster-secret'),
    cert: file(`${names[0]}.pem`), key: file(`${names[0]}.key`),
  };
  /// The flags with certificate NAME (default the first).
  certs.argsFor = (name = names[0]) => ['--tls-cert', file(`${name}.pem`), '--tls-key',
                                        file(`${name}.key`), '--tls-ca', certs.ca,
                                        '--cluster-secret-file', certs.secret];
  certs.args = certs.argsFor();
  return certs;
}
