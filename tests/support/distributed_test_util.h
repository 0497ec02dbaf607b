// Helpers shared by the dist unit tests: TPC-H query text and order-insensitive result text, and
// the set-up most of them share: TPC-H runners, in-process and in-process-gRPC clusters of workers,
// a coordinator set as a runner's execution mode, and the count of tasks workers still hold.
#pragma once

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "shoal/columnar/scalar.h"
#include "shoal/distributed/coordinator/coordinator.h"
#include "shoal/distributed/transport/grpc_worker_channel.h"
#include "shoal/distributed/transport/grpc_worker_server.h"
#include "shoal/distributed/transport/in_process_channel.h"
#include "shoal/distributed/worker/worker_service.h"
#include "shoal/engine/query_runner.h"
#include "shoal/engine/tpch_tables.h"
#include "shoal/io/tpch/scale.h"
#include "tests/support/gtest_util.h"

namespace shoal::distributed::distributed_testing {

inline std::string TpchQuery(int n) {
  char name[16];
  std::snprintf(name, sizeof(name), "q%02d.sql", n);
  std::ifstream in(std::string(SHOAL_TPCH_QUERY_DIR) + "/" + name);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// The TPC-H queries that a test of "every query" runs: all 22 in a plain build. A sanitizer
/// build runs the same tests in CI too, at several times the cost, to find memory errors and
/// races rather than wrong answers (the Release build checks every answer): there it runs the
/// nine that between them take every plan shape the 22 have -- aggregates and top-N, inner,
/// outer, semi, anti and mark joins, correlated and uncorrelated subqueries, NOT IN, COUNT
/// DISTINCT, LIKE and SUBSTRING, a view read twice.
inline std::vector<int> TpchQueriesToCheck() {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
  constexpr bool kSanitized = true;
#else
  constexpr bool kSanitized = false;
#endif
#else
  constexpr bool kSanitized = false;
#endif
  if (kSanitized)
    return {1, 2, 13, 15, 16, 18, 20, 21, 22};
  std::vector<int> all;
  for (int q = 1; q <= 22; ++q)
    all.push_back(q);
  return all;
}

/// The rows as text lines, sorted: parallel plans may return ties (and unordered queries) in any
/// order, and the distributed and single-node runs must agree on the multiset of rows.
inline std::vector<std::string> SortedRows(const engine::QueryResult& result) {
  std::vector<std::string> rows;
  for (const auto& batch : result.batches) {
    for (int64_t r = 0; r < batch->num_rows(); ++r) {
      std::string line;
      for (int c = 0; c < batch->num_columns(); ++c) {
        if (c > 0)
          line += '|';
        line += columnar::Scalar::FromArray(*batch->column(c), r).ToString();
      }
      rows.push_back(std::move(line));
    }
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

/// SortedRows as one text, a line per row: what plan-shape checks (EXPLAIN output) search.
inline std::string SortedText(const engine::QueryResult& result) {
  std::string text;
  for (const auto& line : SortedRows(result))
    text += line + "\n";
  return text;
}

/// Registers the TPC-H tables of scale 0.01 in `runner` and sets its `threads`.
inline Status LoadTpch(engine::QueryRunner& runner, int threads) {
  SHOAL_ASSIGN_OR_RETURN(auto scale, io::tpch::TpchScale::Parse("0.01"));
  SHOAL_RETURN_IF_ERROR(engine::RegisterTpchTables(scale, runner.session().catalog().get()));
  return runner.RunOne("SET threads = " + std::to_string(threads)).status();
}

/// Pids of the processes whose command line mentions `needle` (tests that check no task process
/// outlives its driver).
inline std::vector<int> ProcessesMentioning(const std::string& needle) {
  std::vector<int> pids;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos)
      continue;
    std::ifstream in(entry.path() / "cmdline", std::ios::binary);
    std::string cmdline((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (cmdline.find(needle) != std::string::npos)
      pids.push_back(std::stoi(name));
  }
  return pids;
}

/// Runs `sql` on both runners and expects the same multiset of rows.
inline void ExpectSameRows(engine::QueryRunner& single, engine::QueryRunner& distributed,
                           const std::string& sql) {
  ASSERT_OK_AND_ASSIGN(auto expected, single.RunOne(sql));
  ASSERT_OK_AND_ASSIGN(auto actual, distributed.RunOne(sql));
  EXPECT_EQ(SortedRows(expected), SortedRows(actual));
}

/// The usual options of a test worker: version "test", two threads, the coordinator's in-memory
/// tables (in-process workers share them). The address is filled in by the cluster helpers.
inline WorkerServiceOptions TestWorker(std::shared_ptr<const sql::Catalog> catalog) {
  WorkerServiceOptions w;
  w.version = "test";
  w.threads = 2;
  w.catalog = std::move(catalog);
  return w;
}

/// In-process workers named `names`, each with `worker`'s options and its own address.
inline Result<std::shared_ptr<InProcessCluster>> MakeInProcessCluster(
    const std::vector<std::string>& names, const WorkerServiceOptions& worker) {
  auto cluster = InProcessCluster::Make();
  for (const auto& name : names) {
    WorkerServiceOptions w = worker;
    w.address = name;
    SHOAL_RETURN_IF_ERROR(cluster->AddWorker(std::move(w)));
  }
  return cluster;
}

/// How many tasks the workers still hold (0 once every query has ended).
inline int TasksHeld(const std::vector<std::shared_ptr<WorkerService>>& services) {
  int n = 0;
  for (const auto& s : services)
    n += s->num_tasks();
  return n;
}

inline int TasksHeld(const InProcessCluster& cluster) {
  int n = 0;
  for (const auto& address : cluster.addresses())
    n += cluster.worker(address)->num_tasks();
  return n;
}

/// Real gRPC workers in this process on loopback ports the OS picks, talking to each other (and
/// to a coordinator) through `channels`. Shut down on destruction.
struct GrpcTestCluster {
  std::shared_ptr<GrpcChannelResolver> channels = std::make_shared<GrpcChannelResolver>();
  std::vector<std::string> addresses;
  std::vector<std::shared_ptr<WorkerService>> services;
  std::vector<std::unique_ptr<GrpcWorkerServer>> servers;

  /// Starts `n` more workers, each with `worker`'s options plus its bound address and `channels`;
  /// `server` gives the other server options (listen is always 127.0.0.1:0).
  Status Start(int n, const WorkerServiceOptions& worker, GrpcWorkerServerOptions server = {}) {
    server.listen = "127.0.0.1:0";
    for (int i = 0; i < n; ++i) {
      std::shared_ptr<WorkerService> service;
      SHOAL_ASSIGN_OR_RETURN(auto started,
                             GrpcWorkerServer::Start(server, [&](const std::string& address) {
                               WorkerServiceOptions w = worker;
                               w.address = address;
                               w.channels = channels;
                               service = std::make_shared<WorkerService>(std::move(w));
                               return service;
                             }));
      addresses.push_back(started->address());
      services.push_back(std::move(service));
      servers.push_back(std::move(started));
    }
    return Status::OK();
  }

  /// Stops the servers; the services stay, so their task counts can still be read.
  void Shutdown() {
    for (auto& s : servers)
      s->Shutdown();
    servers.clear();
  }

  int TasksHeld() const { return distributed_testing::TasksHeld(services); }

  ~GrpcTestCluster() { Shutdown(); }
};

/// Coordinator options for `workers` over `channels` with `version` ("" skips the version check).
inline CoordinatorOptions CoordinatorFor(std::vector<std::string> workers,
                                         ChannelResolverPtr channels,
                                         std::string version = "test") {
  CoordinatorOptions options;
  options.workers = std::move(workers);
  options.channels = std::move(channels);
  options.version = std::move(version);
  return options;
}

/// Makes the coordinator and runs `runner`'s queries on it (the runner's mode keeps it alive).
inline Result<std::shared_ptr<Coordinator>> InstallCoordinator(engine::QueryRunner& runner,
                                                               CoordinatorOptions options) {
  SHOAL_ASSIGN_OR_RETURN(auto coordinator, Coordinator::Make(std::move(options)));
  runner.SetExecutionMode(engine::ExecutionMode::OnWorkers(coordinator));
  return coordinator;
}

}  // namespace shoal::distributed::distributed_testing
