// Shuffle transport micro-benchmark: GB/s of record batches moved from workers to the coordinator
// through the distributed engine's transports, with the `dist_compression` setting none / lz4 /
// zstd. A real gRPC server runs in this process on a loopback port chosen by the OS (one worker,
// so every batch crosses the wire once); the in-process transport is the baseline without the wire.
//
// The workload is `SELECT <columns> FROM lineitem` over the in-memory TPC-H lineitem table (SF
// 0.1 by default, SHOAL_BENCH_SF to change it): the worker's leaf stage scans the memory table
// (zero-copy slices) and streams every batch to the coordinator's NetworkCoalesce, which the
// benchmark drains. The rate counts the Arrow-layout bytes of the rows that arrive (values,
// offsets and string bytes), so it is the rate of data delivered, whatever the compression did on
// the wire, and the same for both transports. The benchmark stops with an error if the plan does
// not cross a network boundary.
//
// The grpc_tls_* runs secure the same calls as a cluster started with --tls-cert/--tls-key/
// --tls-ca/--cluster-secret-file does: mutual TLS on the connection and every RPC signed with the
// cluster secret (docs/security.md). They read the files scripts/make-test-certs.sh writes, from
// the folder SHOAL_BENCH_TLS_DIR names, and are skipped with an error without it.
//
//   scripts/make-test-certs.sh /tmp/bench-certs
//   export SHOAL_BENCH_TLS_DIR=/tmp/bench-certs
//   build-release/bench/shoal_distributed_transport_benchmark --benchmark_repetitions=3
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "shoal/columnar/pretty_print.h"
#include "shoal/distributed/coordinator/coordinator.h"
#include "shoal/distributed/transport/grpc_worker_channel.h"
#include "shoal/distributed/transport/grpc_worker_server.h"
#include "shoal/distributed/transport/in_process_channel.h"
#include "shoal/distributed/transport/node_security.h"
#include "shoal/engine/query_runner.h"
#include "shoal/engine/tpch_tables.h"
#include "shoal/io/tpch/scale.h"

namespace shoal::distributed {
namespace {

constexpr const char* kQuery =
    "SELECT l_orderkey, l_partkey, l_suppkey, l_quantity, l_extendedprice, l_discount, "
    "l_shipdate, l_shipmode, l_comment FROM lineitem";

// The TPC-H tables, generated once for every benchmark.
std::shared_ptr<sql::Catalog> Tables() {
  static std::shared_ptr<sql::Catalog> catalog = [] {
    auto c = std::make_shared<sql::Catalog>();
    const char* sf = std::getenv("SHOAL_BENCH_SF");
    auto scale = io::tpch::TpchScale::Parse(sf != nullptr ? sf : "0.1");
    if (!scale.ok() || !engine::RegisterTpchTables(*scale, c.get()).ok())
      std::abort();
    return c;
  }();
  return catalog;
}

// This process's node security for the TLS runs, from SHOAL_BENCH_TLS_DIR; reset to insecure
// when the run ends (the security is per process, as in `shoal worker`).
class ProcessTls {
 public:
  Status Enable() {
    const char* dir = std::getenv("SHOAL_BENCH_TLS_DIR");
    if (dir == nullptr)
      return Status::InvalidArgument(
          "set SHOAL_BENCH_TLS_DIR to a folder made by scripts/make-test-certs.sh");
    NodeSecurityOptions options;
    const std::string d(dir);
    options.tls_cert = d + "/node.pem";
    options.tls_key = d + "/node.key";
    options.tls_ca = d + "/ca.pem";
    options.cluster_secret_file = d + "/cluster-secret";
    SHOAL_ASSIGN_OR_RETURN(auto security, NodeSecurity::Make(options, "the benchmark"));
    SetProcessNodeSecurity(std::move(security));
    enabled_ = true;
    return Status::OK();
  }
  ~ProcessTls() {
    if (enabled_)
      SetProcessNodeSecurity(NodeSecurity::Insecure());
  }

 private:
  bool enabled_ = false;
};

// A coordinator session over one worker reached through gRPC (`grpc`) or in-process.
struct Cluster {
  std::unique_ptr<engine::QueryRunner> runner;
  std::unique_ptr<GrpcWorkerServer> server;  // gRPC only
  std::string error;

  Cluster(bool grpc, const std::string& compression) {
    auto st = Start(grpc, compression);
    if (!st.ok())
      error = st.ToString();
  }
  ~Cluster() {
    runner.reset();
    if (server)
      server->Shutdown();
  }

  Status Start(bool grpc, const std::string& compression) {
    auto catalog = Tables();
    runner = std::make_unique<engine::QueryRunner>();
    // The coordinator resolves lineitem in the same catalog as the worker.
    for (const auto& name : {"lineitem"}) {
      SHOAL_ASSIGN_OR_RETURN(auto entry, catalog->LookupTable(sql::kDefaultSchema, name));
      SHOAL_RETURN_IF_ERROR(runner->session().catalog()->RegisterTable(
          sql::kDefaultSchema, name, entry.provider, /*insertable=*/false, /*replace=*/true));
    }
    CoordinatorOptions options;
    options.version = "bench";
    if (grpc) {
      auto channels = std::make_shared<GrpcChannelResolver>();
      GrpcWorkerServerOptions server_options;
      server_options.listen = "127.0.0.1:0";
      SHOAL_ASSIGN_OR_RETURN(server,
                             GrpcWorkerServer::Start(server_options, [&](const std::string& a) {
                               WorkerServiceOptions w;
                               w.address = a;
                               w.version = "bench";
                               w.catalog = catalog;
                               w.channels = channels;
                               return std::make_shared<WorkerService>(std::move(w));
                             }));
      options.workers = {server->address()};
      options.channels = channels;
    } else {
      auto cluster = InProcessCluster::Make();
      WorkerServiceOptions w;
      w.address = "w1";
      w.version = "bench";
      w.catalog = catalog;
      SHOAL_RETURN_IF_ERROR(cluster->AddWorker(std::move(w)));
      options.workers = {"w1"};
      options.channels = cluster;
    }
    SHOAL_ASSIGN_OR_RETURN(auto coordinator, Coordinator::Make(std::move(options)));
    SHOAL_RETURN_IF_ERROR(coordinator->CheckWorkers());
    runner->SetExecutionMode(engine::ExecutionMode::OnWorkers(coordinator));
    SHOAL_RETURN_IF_ERROR(runner->RunOne("SET threads = 2").status());
    SHOAL_RETURN_IF_ERROR(runner->RunOne("SET dist_compression = '" + compression + "'").status());
    SHOAL_ASSIGN_OR_RETURN(auto explain, runner->RunOne(std::string("EXPLAIN ") + kQuery));
    std::string text;
    for (const auto& batch : explain.batches)
      for (int64_t r = 0; r < batch->num_rows(); ++r)
        text += columnar::FormatValue(*batch->column(batch->num_columns() - 1), r) + "\n";
    if (text.find("Network") == std::string::npos)
      return Status::Internal("the benchmark's plan does not cross the network:\n{}", text);
    return Status::OK();
  }
};

// The bytes a batch's rows take in Arrow layout (values, offsets and string bytes of the rows
// only): the batches may be zero-copy slices of larger buffers (in-process), so their buffer
// sizes would over-count.
int64_t LogicalBytes(const columnar::RecordBatch& batch) {
  int64_t bytes = 0;
  for (int c = 0; c < batch.num_columns(); ++c) {
    const columnar::Array& a = *batch.column(c);
    if (a.type().is_binary_like()) {
      const int32_t* o = a.offsets();
      bytes += (a.length() + 1) * 4 + (o[a.length()] - o[0]);
    } else if (a.type().is_fixed_width()) {
      bytes += (a.length() * a.type().bit_width() + 7) / 8;
    }
  }
  return bytes;
}

void Transport(benchmark::State& state, bool grpc, const std::string& compression,
               bool tls = false) {
  ProcessTls security;
  if (tls) {
    Status st = security.Enable();
    if (!st.ok()) {
      state.SkipWithError(st.ToString().c_str());
      return;
    }
  }
  Cluster cluster(grpc, compression);
  if (!cluster.error.empty()) {
    state.SkipWithError(cluster.error.c_str());
    return;
  }
  int64_t bytes = 0;
  int64_t rows = 0;
  for (auto _ : state) {
    auto result = cluster.runner->RunOne(kQuery);
    if (!result.ok()) {
      state.SkipWithError(result.status().ToString().c_str());
      return;
    }
    for (const auto& batch : result->batches) {
      bytes += LogicalBytes(*batch);
      rows += batch->num_rows();
    }
    benchmark::DoNotOptimize(result->batches.data());
  }
  state.SetBytesProcessed(bytes);
  state.counters["rows/s"] =
      benchmark::Counter(static_cast<double>(rows), benchmark::Counter::kIsRate);
}

BENCHMARK_CAPTURE(Transport, grpc_none, true, "none")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(Transport, grpc_lz4, true, "lz4")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(Transport, grpc_zstd, true, "zstd")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(Transport, grpc_tls_none, true, "none", true)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(Transport, grpc_tls_lz4, true, "lz4", true)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(Transport, inproc_none, false, "none")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace shoal::distributed
