#!/usr/bin/env bash
# Installs what is missing, builds the `shoal` binary and runs the main job: a TPC-H query on two
# local worker processes.
#
#   bash scripts/demo.sh [QUERY]   QUERY: a TPC-H query number, 1-22 (default 5)
#
# Steps: scripts/install-deps.sh --no-npm (Debian packages; the npm peers are for tests only),
# configure the `release` preset (GCC 12, Release) into build/release, build only the `shoal`
# target; generate TPC-H SF 0.1 as .tbl files into build/demo-data (once); start two
# `shoal worker` processes on loopback ports the OS picks; run the query with
# `shoal sql --workers A,B` over external tables on those files (the coordinator runs the final
# stage, the workers the others, exchanging Arrow IPC over gRPC); print its answer and its
# EXPLAIN ANALYZE (stages, tasks, operators); stop the workers, also on failure or Ctrl-C.
# A second run rebuilds only what changed and reuses the data.
# Environment: SHOAL_BUILD_ROOT (default build), SHOAL_JOBS (default nproc), SHOAL_DEMO_SF
# (default 0.1).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"

case "${1:-}" in
  -h | --help)
    awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"
    exit 0
    ;;
esac
query=${1:-5}
if ! [[ "$query" =~ ^([1-9]|1[0-9]|2[0-2])$ ]]; then
  echo "demo: QUERY must be a TPC-H query number from 1 to 22, not '$query'" >&2
  exit 2
fi
query_file=$(printf '%s/tests/data/tpch/queries/q%02d.sql' "$repo" "$query")

build_root=${SHOAL_BUILD_ROOT:-build}
case "$build_root" in /*) ;; *) build_root="$repo/$build_root" ;; esac
build_dir="$build_root/release"
jobs=${SHOAL_JOBS:-$(nproc)}
sf=${SHOAL_DEMO_SF:-0.1}
data="$build_root/demo-data/sf$sf"

echo "demo: installing missing packages"
bash scripts/install-deps.sh --no-npm

echo "demo: building shoal in $build_dir"
mkdir -p "$build_root"
if ! cmake --preset release -B "$build_dir" >"$build_root/release-configure.log" 2>&1; then
  cat "$build_root/release-configure.log" >&2
  exit 1
fi
cmake --build "$build_dir" --target shoal -j "$jobs"
shoal="$build_dir/bin/shoal"

if [ ! -f "$data/lineitem.tbl" ]; then
  echo "demo: generating TPC-H SF $sf into $data"
  rm -rf "$data.tmp"
  "$shoal" tpchgen --scale-factor "$sf" --output "$data.tmp"
  mv "$data.tmp" "$data"
fi

logs=$(mktemp -d)
pids=()
stop_workers() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$logs"
}
trap stop_workers EXIT
trap 'exit 130' INT TERM

# The nodes talk over mutual TLS with signed requests (docs/security.md): a throwaway CA, one
# certificate for every node, and a cluster secret.
bash "$(dirname "${BASH_SOURCE[0]}")/make-test-certs.sh" "$logs/certs" >/dev/null
security=(--tls-cert "$logs/certs/node.pem" --tls-key "$logs/certs/node.key"
          --tls-ca "$logs/certs/ca.pem" --cluster-secret-file "$logs/certs/cluster-secret")

# Each worker prints "listening on HOST:PORT" once it serves.
addresses=()
for i in 1 2; do
  "$shoal" worker "${security[@]}" --listen 127.0.0.1:0 >"$logs/worker$i.log" 2>&1 &
  pids+=($!)
  address=
  for _ in $(seq 1 100); do
    address=$(sed -n 's/.*listening on \([^ ]*\).*/\1/p' "$logs/worker$i.log" | head -n 1)
    [ -n "$address" ] && break
    if ! kill -0 "${pids[-1]}" 2>/dev/null; then break; fi
    sleep 0.1
  done
  if [ -z "$address" ]; then
    echo "demo: worker $i did not start:" >&2
    cat "$logs/worker$i.log" >&2
    exit 1
  fi
  echo "demo: worker $i listening on $address (pid ${pids[-1]})"
  addresses+=("$address")
done
workers=$(IFS=,; echo "${addresses[*]}")

tables=()
declare -A schema=(
  [region]='r_regionkey BIGINT, r_name VARCHAR, r_comment VARCHAR'
  [nation]='n_nationkey BIGINT, n_name VARCHAR, n_regionkey BIGINT, n_comment VARCHAR'
  [supplier]='s_suppkey BIGINT, s_name VARCHAR, s_address VARCHAR, s_nationkey BIGINT, s_phone VARCHAR, s_acctbal DECIMAL(15,2), s_comment VARCHAR'
  [customer]='c_custkey BIGINT, c_name VARCHAR, c_address VARCHAR, c_nationkey BIGINT, c_phone VARCHAR, c_acctbal DECIMAL(15,2), c_mktsegment VARCHAR, c_comment VARCHAR'
  [part]='p_partkey BIGINT, p_name VARCHAR, p_mfgr VARCHAR, p_brand VARCHAR, p_type VARCHAR, p_size INTEGER, p_container VARCHAR, p_retailprice DECIMAL(15,2), p_comment VARCHAR'
  [partsupp]='ps_partkey BIGINT, ps_suppkey BIGINT, ps_availqty INTEGER, ps_supplycost DECIMAL(15,2), ps_comment VARCHAR'
  [orders]='o_orderkey BIGINT, o_custkey BIGINT, o_orderstatus VARCHAR, o_totalprice DECIMAL(15,2), o_orderdate DATE, o_orderpriority VARCHAR, o_clerk VARCHAR, o_shippriority INTEGER, o_comment VARCHAR'
  [lineitem]='l_orderkey BIGINT, l_partkey BIGINT, l_suppkey BIGINT, l_linenumber INTEGER, l_quantity DECIMAL(15,2), l_extendedprice DECIMAL(15,2), l_discount DECIMAL(15,2), l_tax DECIMAL(15,2), l_returnflag VARCHAR, l_linestatus VARCHAR, l_shipdate DATE, l_commitdate DATE, l_receiptdate DATE, l_shipinstruct VARCHAR, l_shipmode VARCHAR, l_comment VARCHAR'
)
for t in region nation supplier customer part partsupp orders lineitem; do
  tables+=(-c "CREATE EXTERNAL TABLE $t (${schema[$t]}) STORED AS TBL LOCATION '$data/$t.tbl'")
done

sql=$(sed 's/;[[:space:]]*$//' "$query_file")
echo
echo "demo: TPC-H Q$query at SF $sf on workers $workers"
"$shoal" sql --workers "$workers" "${security[@]}" "${tables[@]}" -c '\timing on' -c "$sql" 2>&1 |
  grep -v '^CREATE EXTERNAL TABLE$'
echo
echo "demo: EXPLAIN ANALYZE"
"$shoal" sql --workers "$workers" "${security[@]}" "${tables[@]}" -c "EXPLAIN ANALYZE $sql" | grep -v '^CREATE EXTERNAL TABLE$'
