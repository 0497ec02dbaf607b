// Test support for the distributed mutation tests: real worker-protocol traffic to corrupt. TPC-H
// queries (scans, joins of every distribution, aggregates, sorts, limits, windows, grouping sets,
// literals of every type) run on three in-process workers behind a coordinator whose channels
// record what it sends: each task's SetPlanRequest (with its encoded stage plan), the work-unit
// batches of the feed mode, and the ExecuteTask calls the coordinator makes for the final stage.
// The in-process transport ships the same encoded plans the gRPC transport does.
#pragma once

#include <cstdio>
#include <fstream>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "shoal/distributed/coordinator/coordinator.h"
#include "shoal/distributed/transport/in_process_channel.h"
#include "shoal/engine/query_runner.h"
#include "shoal/engine/tpch_tables.h"
#include "shoal/io/tpch/scale.h"

namespace shoal::distributed::fuzz {

struct RecordedTraffic {
  std::mutex mutex;
  std::vector<std::pair<std::string, SetPlanRequest>> plans;  // (query name, request)
  std::vector<WorkUnitBatch> unit_batches;
  std::vector<ExecuteTaskRequest> executes;
  std::string current;  // the query running now
};

class RecordingStream final : public CoordinatorStream {
 public:
  RecordingStream(std::unique_ptr<CoordinatorStream> inner, std::shared_ptr<RecordedTraffic> out)
      : inner_(std::move(inner)), out_(std::move(out)) {}
  Status SendPlan(const SetPlanRequest& request) override {
    {
      std::lock_guard<std::mutex> lock(out_->mutex);
      out_->plans.emplace_back(out_->current, request);
    }
    return inner_->SendPlan(request);
  }
  Status SendWorkUnitBatch(const WorkUnitBatch& batch) override {
    {
      std::lock_guard<std::mutex> lock(out_->mutex);
      if (out_->unit_batches.size() < 64)
        out_->unit_batches.push_back(batch);
    }
    return inner_->SendWorkUnitBatch(batch);
  }
  Status SendWorkUnitEos() override { return inner_->SendWorkUnitEos(); }
  void CancelSends() override { inner_->CancelSends(); }
  Status SendHeartbeat() override { return inner_->SendHeartbeat(); }
  Result<TaskMetrics> Finish() override { return inner_->Finish(); }
  Result<std::optional<LoadInfo>> ReadLoadInfo() override { return inner_->ReadLoadInfo(); }

 private:
  std::unique_ptr<CoordinatorStream> inner_;
  std::shared_ptr<RecordedTraffic> out_;
};

class RecordingChannel final : public WorkerChannel {
 public:
  RecordingChannel(WorkerChannelPtr inner, std::shared_ptr<RecordedTraffic> out)
      : inner_(std::move(inner)), out_(std::move(out)) {}
  const std::string& address() const override { return inner_->address(); }
  Result<std::unique_ptr<CoordinatorStream>> OpenCoordinatorChannel(
      const Headers& headers) override {
    SHOAL_ASSIGN_OR_RETURN(auto stream, inner_->OpenCoordinatorChannel(headers));
    return std::unique_ptr<CoordinatorStream>(new RecordingStream(std::move(stream), out_));
  }
  Result<std::vector<exec::StreamPtr>> ExecuteTask(
      const Headers& headers, const ExecuteTaskRequest& request,
      const std::shared_ptr<exec::TaskContext>& context) override {
    {
      std::lock_guard<std::mutex> lock(out_->mutex);
      out_->executes.push_back(request);
    }
    return inner_->ExecuteTask(headers, request, context);
  }
  Result<WorkerInfo> GetWorkerInfo() override { return inner_->GetWorkerInfo(); }

 private:
  WorkerChannelPtr inner_;
  std::shared_ptr<RecordedTraffic> out_;
};

class RecordingResolver final : public ChannelResolver {
 public:
  RecordingResolver(ChannelResolverPtr inner, std::shared_ptr<RecordedTraffic> out)
      : inner_(std::move(inner)), out_(std::move(out)) {}
  Result<WorkerChannelPtr> Connect(const std::string& address) override {
    SHOAL_ASSIGN_OR_RETURN(auto channel, inner_->Connect(address));
    return WorkerChannelPtr(new RecordingChannel(std::move(channel), out_));
  }

 private:
  ChannelResolverPtr inner_;
  std::shared_ptr<RecordedTraffic> out_;
};

/// The statements the corpus runs: TPC-H queries chosen for their variety of operators, and a few
/// that add literal types, windows, grouping sets and expressions of other kinds.
inline std::vector<std::pair<std::string, std::string>> CorpusQueries(const std::string& tpch_dir) {
  std::vector<std::pair<std::string, std::string>> out;
  for (int q : {1, 3, 5, 7, 9, 11, 13, 16, 18, 20, 22}) {
    char name[16];
    std::snprintf(name, sizeof(name), "q%02d.sql", q);
    std::ifstream in(tpch_dir + "/" + name);
    std::stringstream text;
    text << in.rdbuf();
    out.emplace_back(name, text.str());
  }
  out.emplace_back(
      "literals",
      "SELECT n_name, 1::smallint, 2::bigint, 2.5::double precision, 12.34::decimal(30,4), "
      "'x'::text, DATE '1998-12-01', INTERVAL '3 days', TIMESTAMP '2020-01-02 03:04:05', "
      "NULL::int, true, CASE WHEN n_nationkey < 2 THEN 'a' ELSE NULL END, "
      "coalesce(n_comment, 'c') LIKE '%a%', substr(n_name, 2, 3), n_nationkey % 3 IN (1, 2), "
      "CAST(n_regionkey AS double precision) / 3 FROM nation WHERE n_nationkey BETWEEN 1 AND 20 "
      "ORDER BY n_name LIMIT 7");
  out.emplace_back("window",
                   "SELECT n_regionkey, n_name, rank() OVER (PARTITION BY n_regionkey ORDER BY "
                   "n_name), sum(n_nationkey) OVER (PARTITION BY n_regionkey ORDER BY n_name ROWS "
                   "BETWEEN 1 PRECEDING AND CURRENT ROW) FROM nation");
  out.emplace_back("rollup",
                   "SELECT n_regionkey, count(*), count(DISTINCT n_name) FILTER (WHERE n_nationkey "
                   "> 3) FROM nation GROUP BY ROLLUP (n_regionkey)");
  out.emplace_back("union",
                   "SELECT r_name FROM region UNION ALL SELECT n_name FROM nation "
                   "EXCEPT SELECT 'FRANCE' ORDER BY 1");
  // Nested types and literals in plans: arrays built, grouped, unnested, with array literals.
  out.emplace_back("arrays",
                   "SELECT n_regionkey, array_agg(n_name ORDER BY n_name), "
                   "ARRAY[n_regionkey, 2] || ARRAY[3], ROW(n_regionkey, 'x') IS NULL "
                   "FROM nation, unnest(ARRAY[1, 2]) "
                   "WITH ORDINALITY AS u(v, o) WHERE v = ANY(ARRAY[1, n_regionkey]) "
                   "GROUP BY n_regionkey, ARRAY[n_regionkey] ORDER BY 1");
  return out;
}

/// Runs the corpus queries on three in-process workers and returns what the coordinator sent.
/// `settings`: statements run first (e.g. "SET dist_work_unit_feeds = true").
inline Result<std::shared_ptr<RecordedTraffic>> RecordTraffic(
    const std::string& tpch_dir, std::shared_ptr<sql::Catalog>* catalog_out,
    const std::vector<std::string>& settings = {}) {
  auto traffic = std::make_shared<RecordedTraffic>();
  auto runner = std::make_shared<engine::QueryRunner>();
  // SF 0.001: in-memory tables travel whole inside every task's plan (distributed/codec/
  // memory_table_codec.h), so at SF 0.01 each plan held megabytes of table data; mutations then
  // mostly hit column bytes the IPC mutation test already covers, and copying them made a run of
  // this corpus some 45 CPU seconds (2-3 minutes under ASan) where now it is 2.
  SHOAL_ASSIGN_OR_RETURN(auto scale, io::tpch::TpchScale::Parse("0.001"));
  SHOAL_RETURN_IF_ERROR(engine::RegisterTpchTables(scale, runner->session().catalog().get()));
  SHOAL_RETURN_IF_ERROR(runner->RunOne("SET threads = 2").status());
  SHOAL_RETURN_IF_ERROR(runner->RunOne("SET dist_bytes_per_task = '64kB'").status());
  for (const auto& s : settings)
    SHOAL_RETURN_IF_ERROR(runner->RunOne(s).status());
  auto cluster = InProcessCluster::Make();
  for (const char* name : {"w1", "w2", "w3"}) {
    WorkerServiceOptions w;
    w.address = name;
    w.version = "test";
    w.threads = 2;
    w.catalog = runner->session().catalog();
    SHOAL_RETURN_IF_ERROR(cluster->AddWorker(std::move(w)));
  }
  CoordinatorOptions options;
  options.workers = cluster->addresses();
  options.channels = std::make_shared<RecordingResolver>(cluster, traffic);
  options.version = "test";
  SHOAL_ASSIGN_OR_RETURN(auto coordinator, Coordinator::Make(std::move(options)));
  runner->SetExecutionMode(engine::ExecutionMode::OnWorkers(coordinator));
  for (const auto& [name, sql] : CorpusQueries(tpch_dir)) {
    {
      std::lock_guard<std::mutex> lock(traffic->mutex);
      traffic->current = name;
    }
    auto result = runner->RunOne(sql);
    if (!result.ok())
      return std::move(result).status().WithContext("recording " + name);
  }
  if (catalog_out)
    *catalog_out = runner->session().catalog();
  return traffic;
}

}  // namespace shoal::distributed::fuzz
