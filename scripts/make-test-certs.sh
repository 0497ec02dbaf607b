#!/usr/bin/env bash
# Makes what a test cluster's mutual TLS and request signing need (docs/security.md), with the
# openssl command-line tool, into DIR:
#   ca.pem, ca.key          a fresh CA (EC P-256, valid 30 days)
#   NAME.pem, NAME.key      a certificate per NAME (default: "node"), signed by the CA, for
#                           127.0.0.1, ::1 and localhost (plus any SAN given with --san), usable
#                           as server and as client (one certificate per node serves both ends)
#   cluster-secret          32 random bytes as hex, mode 0600 (--cluster-secret-file)
#
#   scripts/make-test-certs.sh DIR [--san DNS:host.example] [--san IP:10.0.0.5] [NAME...]
#
# For tests and trying things out: a real cluster's CA key lives elsewhere than its nodes, and
# its certificates name the machines' real addresses.
set -euo pipefail
if [ $# -lt 1 ] || [ "$1" = "-h" ] || [ "$1" = "--help" ]; then
  sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
dir=$1
shift
sans="IP:127.0.0.1,IP:::1,DNS:localhost"
names=()
while [ $# -gt 0 ]; do
  case "$1" in
    --san) sans="$sans,$2"; shift 2 ;;
    *) names+=("$1"); shift ;;
  esac
done
[ ${#names[@]} -gt 0 ] || names=(node)
command -v openssl >/dev/null || { echo "make-test-certs.sh: the openssl command is needed" >&2; exit 1; }
mkdir -p "$dir"
umask 077
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 30 \
  -subj "/CN=Shoal test CA" -keyout "$dir/ca.key" -out "$dir/ca.pem" \
  -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
  2>/dev/null
for name in "${names[@]}"; do
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
    -subj "/CN=shoal-$name" -keyout "$dir/$name.key" -out "$dir/$name.csr" 2>/dev/null
  printf '%s\n' "basicConstraints=CA:FALSE" "keyUsage=critical,digitalSignature,keyEncipherment" \
    "extendedKeyUsage=serverAuth,clientAuth" "subjectAltName=$sans" >"$dir/$name.ext"
  openssl x509 -req -in "$dir/$name.csr" -CA "$dir/ca.pem" -CAkey "$dir/ca.key" \
    -CAcreateserial -days 30 -extfile "$dir/$name.ext" -out "$dir/$name.pem" 2>/dev/null
  rm -f "$dir/$name.csr" "$dir/$name.ext"
done
rm -f "$dir/ca.srl"
openssl rand -hex 32 >"$dir/cluster-secret"
chmod 600 "$dir/cluster-secret"
# Certificates are public; keys and the secret stay 0600.
chmod 644 "$dir/ca.pem"
made="ca.pem ca.key"
for name in "${names[@]}"; do
  chmod 644 "$dir/$name.pem"
  made="$made $name.pem $name.key"
done
echo "made in $dir: $made cluster-secret"
