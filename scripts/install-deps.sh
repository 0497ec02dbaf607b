#!/usr/bin/env bash
# Installs every Debian package Shoal needs to build, test and benchmark, and the npm test peers.
#
#   scripts/install-deps.sh            Debian packages, then the npm packages of tests/*/package.json
#   scripts/install-deps.sh --no-npm   Debian packages only (building and running `shoal` needs no npm)
#
# Idempotent and non-interactive: packages already installed are skipped without touching apt, so
# a second run takes well under a second. Runs as root, or as a user with sudo (only apt-get is run
# through sudo; npm installs into the work tree as the calling user). Targets Debian 12 (bookworm):
# GCC 12, Clang 14, CMake 3.25.
set -euo pipefail

npm_too=1
for arg in "$@"; do
  case "$arg" in
    --no-npm) npm_too=0 ;;
    -h | --help)
      awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"
      exit 0
      ;;
    *)
      echo "install-deps: unknown option $arg" >&2
      exit 2
      ;;
  esac
done

packages=(
  # toolchain: GCC 12 (with its ASan/UBSan/TSan runtimes), Clang 14 and its sanitizer runtimes,
  # the pinned formatter and linter, CMake + Ninja
  build-essential g++-12 clang-14 libclang-rt-14-dev lld clang-format-14 clang-tidy-14
  cmake ninja-build pkg-config git
  # RPC and serialization (dist layer, plan encoding, Arrow IPC flatbuffers)
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler
  flatbuffers-compiler libflatbuffers-dev
  # SQL grammar
  libpg-query-dev
  # compression (IPC bodies, Parquet pages, shuffle files)
  libzstd-dev liblz4-dev libsnappy-dev zlib1g-dev
  # TLS and SCRAM-SHA-256 authentication of `shoal server` (libssl, libcrypto)
  libssl-dev
  # Parquet metadata
  libthrift-dev thrift-compiler
  # formatting, command line, shell
  libfmt-dev libcli11-dev libedit-dev
  # `shoal server --http`: the web console's HTTP(S) listener and its JSON
  libcpp-httplib-dev nlohmann-json3-dev
  # tests and benchmarks
  libgtest-dev libgmock-dev googletest libbenchmark-dev
  # CPU profiles (docs/performance.md; bench/tpch/run.mjs --profile)
  linux-perf
  # the PostgreSQL client for wire-protocol tests, and psycopg 3 for `shoal server`'s
  # (tests/server: server-side binding, binary results)
  postgresql-client python3-psycopg
  # pgJDBC and a headless JRE that runs its test programs as single-file sources (`java X.java`)
  libpostgresql-jdbc-java default-jre-headless
  # a terminal the shell's test types into (tests/integration/shell_tty.mjs)
  tmux
  # the browser the console's test drives headless (tests/server/console.mjs, puppeteer-core)
  chromium
)
# Node.js runs the test-only npm peers (DuckDB, apache-arrow, pg). A machine may already carry a
# Node.js build that bundles npm (NodeSource's, which conflicts with Debian's npm package), so apt
# is asked for them only when the commands are missing.
if [ "$npm_too" -eq 1 ]; then
  command -v node >/dev/null 2>&1 || packages+=(nodejs)
  command -v npm >/dev/null 2>&1 || packages+=(npm)
fi

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  if ! command -v sudo >/dev/null 2>&1; then
    echo "install-deps: not root and sudo is missing; run as root" >&2
    exit 1
  fi
  sudo_cmd=(sudo)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$'; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  apt_get=("${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -q -y
    -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold)
  # A mirror hiccup should not fail a CI run: retry the whole update + install a few times.
  for attempt in 1 2 3; do
    if "${apt_get[@]}" update && "${apt_get[@]}" install --no-install-recommends "${missing[@]}"; then
      break
    fi
    if [ "$attempt" -eq 3 ]; then
      echo "install-deps: apt-get failed three times" >&2
      exit 1
    fi
    echo "install-deps: apt-get failed (attempt $attempt); retrying in $((attempt * 10))s" >&2
    sleep $((attempt * 10))
  done
else
  echo "install-deps: all ${#packages[@]} Debian packages present"
fi

[ "$npm_too" -eq 1 ] || exit 0

# npm test peers: each tests/<suite>/package.json gets its node_modules next to it (never in git).
# A stamp records the last successful install; it is redone only when package.json or the lock
# file is newer. With a lock file, `npm ci` installs exactly the locked versions.
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
while IFS= read -r -d '' manifest; do
  dir=$(dirname "$manifest")
  stamp="$dir/node_modules/.shoal-install-stamp"
  if [ -f "$stamp" ] && [ ! "$manifest" -nt "$stamp" ] &&
    { [ ! -f "$dir/package-lock.json" ] || [ ! "$dir/package-lock.json" -nt "$stamp" ]; }; then
    echo "install-deps: npm packages of ${dir#"$repo"/} up to date"
    continue
  fi
  echo "install-deps: npm packages of ${dir#"$repo"/}"
  if [ -f "$dir/package-lock.json" ]; then
    npm_args=(ci)
  else
    npm_args=(install)
  fi
  for attempt in 1 2 3; do
    if (cd "$dir" && npm "${npm_args[@]}" --no-audit --no-fund --no-update-notifier --loglevel=error); then
      touch "$stamp"
      break
    fi
    if [ "$attempt" -eq 3 ]; then
      echo "install-deps: npm ${npm_args[*]} failed three times in ${dir#"$repo"/}" >&2
      exit 1
    fi
    echo "install-deps: npm failed (attempt $attempt); retrying in $((attempt * 10))s" >&2
    sleep $((attempt * 10))
  done
done < <(find "$repo/tests" "$repo/bench" -name package.json -not -path '*/node_modules/*' -print0 2>/dev/null | sort -z)
