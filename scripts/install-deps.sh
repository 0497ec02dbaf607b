#!/usr/bin/env bash
# Installs every Debian package Shoal needs to build, test and benchmark, and the npm test peers.
# Idempotent and non-interactive: packages already present are skipped, so a second run is fast.
# Works as root or through sudo. Usage: scripts/install-deps.sh [--no-npm]
set -euo pipefail

packages=(
  # toolchain
  build-essential cmake ninja-build g++ clang-14 clang-format clang-tidy lld pkg-config git
  # RPC and serialization (dist layer, plan encoding, Arrow IPC flatbuffers)
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler
  flatbuffers-compiler libflatbuffers-dev
  # SQL grammar
  libpg-query-dev
  # compression (IPC bodies, Parquet pages, shuffle files)
  libzstd-dev liblz4-dev libsnappy-dev zlib1g-dev
  # Parquet metadata
  libthrift-dev thrift-compiler
  # formatting, command line, shell
  libfmt-dev libcli11-dev libedit-dev
  # tests and benchmarks
  libgtest-dev libgmock-dev googletest libbenchmark-dev
  # the PostgreSQL client for wire-protocol tests
  postgresql-client
)
# Node.js runs the test-only npm peers (DuckDB, apache-arrow, pg). A machine may already carry a Node.js
# build that bundles npm (and conflicts with Debian's npm package), so only ask apt when a command is missing.
command -v node >/dev/null 2>&1 || packages+=(nodejs)
command -v npm >/dev/null 2>&1 || packages+=(npm)

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: not root and no sudo; run as root" >&2; exit 1; }
  sudo_cmd=(sudo)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -q
  "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
else
  echo "install-deps: all Debian packages present"
fi

# npm test peers live in tests/interop/node_modules (never vendored in git).
if [ "${1:-}" != "--no-npm" ]; then
  here=$(cd "$(dirname "$0")/.." && pwd)
  if [ -f "$here/tests/interop/package.json" ]; then
    if [ ! -d "$here/tests/interop/node_modules/apache-arrow" ] || \
       [ "$here/tests/interop/package.json" -nt "$here/tests/interop/node_modules/.stamp" ]; then
      (cd "$here/tests/interop" && npm install --no-audit --no-fund --loglevel=error && touch node_modules/.stamp)
    fi
  fi
fi
