#include "shoal/engine/query_runner.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <utility>

#include <fmt/format.h>

#include "shoal/columnar/builder.h"
#include "shoal/common/stack_depth.h"
#include "shoal/distributed/coordinator/coordinator.h"
#include "shoal/engine/query_retry.h"
#include "shoal/engine/table_constraints.h"
#include "shoal/exec/execution_plan.h"
#include "shoal/exec/operators/coalesce_partitions_exec.h"
#include "shoal/exec/operators/table_scan_exec.h"
#include "shoal/exec/physical_planner.h"
#include "shoal/exec/task_context.h"
#include "shoal/io/arrow_table.h"
#include "shoal/io/copy_writer.h"
#include "shoal/io/data_roots.h"
#include "shoal/io/delimited_table.h"
#include "shoal/io/memory_table.h"
#include "shoal/io/parquet/parquet_table.h"
#include "shoal/sql/binder.h"
#include "shoal/sql/optimizer/optimizer.h"
#include "shoal/sql/parser.h"

namespace shoal::engine {

using exec::CoalescePartitionsExec;
using exec::ExecPlanPtr;
using exec::FormatExecutionPlan;
using exec::PhysicalPlanner;
using exec::PhysicalPlannerOptions;
using exec::StreamPtr;
namespace {

// CREATE TABLE [AS]: the new table's entry; a storage that no catalog names is dropped.
Status RegisterStorage(sql::Catalog& catalog, const sql::BoundStatement& statement,
                       const io::TableStoragePtr& storage) {
  sql::TableEntry entry{statement.schema_name, statement.object_name, nullptr};
  entry.storage = storage;
  Status registered = catalog.RegisterTable(std::move(entry));
  if (!registered.ok()) {
    // Lost a race with another CREATE of the same name, say: this storage is not the table's.
    auto existing = catalog.LookupTable(statement.schema_name, statement.object_name);
    if (!existing.ok() || existing->storage != storage)
      storage->Drop();
  }
  return registered;
}

columnar::SchemaPtr SchemaOf(const std::vector<sql::ColumnInfo>& columns) {
  std::vector<columnar::Field> fields;
  fields.reserve(columns.size());
  for (const auto& c : columns) {
    fields.emplace_back(c.name, c.type, c.nullable);
  }
  return std::make_shared<columnar::Schema>(std::move(fields));
}

// A result of text columns, one row per entry of `rows`.
Result<QueryResult> TextResult(const std::vector<std::string>& names,
                               const std::vector<std::vector<std::string>>& rows) {
  std::vector<columnar::Field> fields;
  fields.reserve(names.size());
  for (const auto& n : names) {
    fields.emplace_back(n, columnar::DataType::Utf8(), false);
  }
  auto schema = std::make_shared<columnar::Schema>(std::move(fields));
  std::vector<columnar::ArrayPtr> columns;
  for (size_t c = 0; c < names.size(); ++c) {
    columnar::BinaryBuilder builder(columnar::DataType::Utf8(), DefaultMemoryPool());
    for (const auto& row : rows) {
      SHOAL_RETURN_IF_ERROR(builder.Append(row[c]));
    }
    SHOAL_ASSIGN_OR_RETURN(auto array, builder.Finish());
    columns.push_back(std::move(array));
  }
  QueryResult result;
  result.schema = schema;
  result.batches.push_back(
      columnar::RecordBatch::Make(schema, static_cast<int64_t>(rows.size()), std::move(columns)));
  return result;
}

std::vector<std::vector<std::string>> Lines(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    rows.push_back({line});
  }
  return rows;
}

int64_t CountRows(const std::vector<columnar::RecordBatchPtr>& batches) {
  int64_t n = 0;
  for (const auto& b : batches) {
    n += b->num_rows();
  }
  return n;
}

// The batches re-labelled with `schema` (same column types, the target's names).
std::vector<columnar::RecordBatchPtr> Relabel(
    const columnar::SchemaPtr& schema, const std::vector<columnar::RecordBatchPtr>& batches) {
  std::vector<columnar::RecordBatchPtr> out;
  for (const auto& b : batches) {
    if (b->num_rows() == 0) {
      continue;
    }
    out.push_back(columnar::RecordBatch::Make(schema, b->num_rows(), b->columns()));
  }
  return out;
}

}  // namespace

int64_t QueryResult::num_rows() const {
  return CountRows(batches);
}

struct QueryRunner::Planned {
  sql::LogicalPlanPtr logical;
  ExecPlanPtr physical;
  std::shared_ptr<TaskContext> context;
};

QueryRunner::QueryRunner() : QueryRunner(std::make_shared<sql::Session>()) {}

QueryRunner::QueryRunner(std::shared_ptr<sql::Session> session) : session_(std::move(session)) {}

Status QueryRunner::Run(std::string_view sql,
                        const std::function<Status(const QueryResult&)>& on_result) {
  return RunEach(sql, [&](const sql::BoundStatement& bound) -> Status {
    SHOAL_ASSIGN_OR_RETURN(auto result, Execute(bound));
    return on_result(result);
  });
}

Status QueryRunner::Run(std::string_view sql, ResultSink& sink) {
  return RunEach(sql, [&](const sql::BoundStatement& bound) -> Status {
    SHOAL_ASSIGN_OR_RETURN(std::unique_ptr<ResultCursor> cursor, Open(bound));
    const auto pass_notices = [&] {
      for (const std::string& notice : cursor->TakeNotices())
        sink.Notice(notice);
    };
    pass_notices();
    SHOAL_RETURN_IF_ERROR(sink.Begin(cursor->schema()));
    for (;;) {
      SHOAL_ASSIGN_OR_RETURN(columnar::RecordBatchPtr batch, cursor->Next());
      pass_notices();
      if (batch == nullptr)
        break;
      SHOAL_RETURN_IF_ERROR(sink.Rows(batch));
    }
    return sink.End(cursor->command_tag());
  });
}

Status QueryRunner::RunEach(std::string_view sql,
                            const std::function<Status(const sql::BoundStatement&)>& run_one) {
  SHOAL_ASSIGN_OR_RETURN(auto script, sql::ParseSql(sql));
  for (const auto& statement : script.statements) {
    // Bound one at a time: a statement may use what the previous one created.
    auto run = [&]() -> Status {
      sql::Binder binder(session_.get());
      SHOAL_ASSIGN_OR_RETURN(auto bound, binder.Bind(script, statement));
      return run_one(bound);
    };
    // Binding and planning take about 2kB of stack per level of nesting, so a long statement
    // (possibly a chain of thousands of operators or UNION ALLs) runs on a thread whose stack
    // grows with its text (reserved, not committed); CheckStackDepth then limits depth there.
    constexpr size_t kLongStatement = 2048;
    if (statement.text.size() <= kLongStatement) {
      SHOAL_RETURN_IF_ERROR(run());
      continue;
    }
    Status status;
    size_t stack = kDefaultThreadStack + std::min(statement.text.size(), size_t{1} << 20) * 2048;
    SHOAL_RETURN_IF_ERROR(RunWithStack(stack, [&] { status = run(); }));
    SHOAL_RETURN_IF_ERROR(status);
  }
  return Status::OK();
}

Result<std::vector<QueryResult>> QueryRunner::RunAll(std::string_view sql) {
  std::vector<QueryResult> results;
  SHOAL_RETURN_IF_ERROR(Run(sql, [&](const QueryResult& r) {
    results.push_back(r);
    return Status::OK();
  }));
  return results;
}

Result<QueryResult> QueryRunner::RunOne(std::string_view sql) {
  SHOAL_ASSIGN_OR_RETURN(auto results, RunAll(sql));
  if (results.empty()) {
    return QueryResult{};
  }
  return std::move(results.back());
}

namespace {

// A query started: its context, the (coalesced) head of its plan and the stream pulled from it.
struct StartedQuery {
  std::shared_ptr<TaskContext> context;
  ExecPlanPtr root;
  StreamPtr stream;
};

// A query's cursor: pulls batches from the (coalesced) head stream of the running plan. Until it
// has handed out a row, a lost worker makes it start the query again (QueryRetry).
class StreamCursor final : public ResultCursor {
 public:
  /// `attempt` is the attempt that `started` is; `notices` those of the attempts before it.
  StreamCursor(columnar::SchemaPtr schema, StartedQuery started, QueryRetry retry,
               std::function<Result<StartedQuery>()> restart, int attempt,
               std::vector<std::string> notices)
      : schema_(std::move(schema)),
        context_(std::move(started.context)),
        root_(std::move(started.root)),
        stream_(std::move(started.stream)),
        retry_(std::move(retry)),
        restart_(std::move(restart)),
        attempt_(attempt),
        notices_(std::move(notices)) {}

  ~StreamCursor() override {
    if (stream_ != nullptr) {
      context_->Cancel();  // dropped before its end: stop the producers
    }
  }

  const columnar::SchemaPtr& schema() const override { return schema_; }

  Result<columnar::RecordBatchPtr> Next() override {
    while (stream_ != nullptr) {
      Result<columnar::RecordBatchPtr> next = stream_->Next();
      if (!next.ok()) {
        if (rows_ > 0 || !retry_.Again(next.status(), attempt_, &notices_, context_->cancelled()))
          return next.status();
        ++attempt_;
        context_->Cancel();  // what still runs of the failed attempt stops
        stream_.reset();
        SHOAL_ASSIGN_OR_RETURN(StartedQuery started, retry_.Run(restart_, &attempt_, &notices_));
        context_ = std::move(started.context);
        root_ = std::move(started.root);
        stream_ = std::move(started.stream);
        continue;
      }
      columnar::RecordBatchPtr batch = std::move(*next);
      if (batch == nullptr) {
        stream_.reset();
        break;
      }
      if (batch->num_rows() == 0) {
        continue;
      }
      rows_ += batch->num_rows();
      // The plan's own column names may differ from the statement's (aliases): relabel.
      return columnar::RecordBatch::Make(schema_, batch->num_rows(), batch->columns());
    }
    return columnar::RecordBatchPtr();
  }

  std::string command_tag() const override { return fmt::format("SELECT {}", rows_); }

  std::vector<std::string> TakeNotices() override { return std::exchange(notices_, {}); }

 private:
  columnar::SchemaPtr schema_;
  std::shared_ptr<TaskContext> context_;
  ExecPlanPtr root_;
  StreamPtr stream_;
  int64_t rows_ = 0;
  QueryRetry retry_;
  std::function<Result<StartedQuery>()> restart_;
  int attempt_ = 1;
  std::vector<std::string> notices_;
};

// Any other statement: it has run; hands out its (small) result.
class DoneCursor final : public ResultCursor {
 public:
  explicit DoneCursor(QueryResult result) : result_(std::move(result)) {}

  const columnar::SchemaPtr& schema() const override { return result_.schema; }

  Result<columnar::RecordBatchPtr> Next() override {
    while (next_ < result_.batches.size()) {
      auto batch = result_.batches[next_++];
      if (batch->num_rows() > 0) {
        return batch;
      }
    }
    return columnar::RecordBatchPtr();
  }

  std::string command_tag() const override { return result_.command_tag; }

 private:
  QueryResult result_;
  size_t next_ = 0;
};

}  // namespace

Result<std::unique_ptr<ResultCursor>> QueryRunner::Open(const sql::BoundStatement& statement) {
  // COPY ... TO STDOUT streams its query's rows like a query; the caller formats them.
  const bool to_client = statement.kind == sql::StatementKind::kCopy && statement.copy_path.empty();
  if (statement.kind != sql::StatementKind::kQuery && !to_client) {
    SHOAL_ASSIGN_OR_RETURN(auto result, Execute(statement));
    return std::unique_ptr<ResultCursor>(std::make_unique<DoneCursor>(std::move(result)));
  }
  const sql::LogicalPlanPtr plan = statement.plan;
  const bool optimized = statement.optimized;
  auto start = [this, plan, optimized]() -> Result<StartedQuery> {
    SHOAL_ASSIGN_OR_RETURN(auto planned, PlanQuery(plan, nullptr, optimized));
    StartedQuery started{planned.context, planned.physical, nullptr};
    // One stream to pull from; several partitions have no order to keep (an ORDER BY plans to
    // one).
    if (started.root->num_partitions() > 1) {
      started.root = CoalescePartitionsExec::Make(started.root);
    }
    SHOAL_ASSIGN_OR_RETURN(started.stream, started.root->Execute(0, started.context));
    return started;
  };
  // Starting sends the tasks to the workers: a worker lost then is retried like one lost later.
  const QueryRetry retry = MakeQueryRetry();
  int attempt = 1;
  std::vector<std::string> notices;
  SHOAL_ASSIGN_OR_RETURN(StartedQuery started, retry.Run<StartedQuery>(start, &attempt, &notices));
  return std::unique_ptr<ResultCursor>(
      std::make_unique<StreamCursor>(SchemaOf(plan->output), std::move(started), retry,
                                     std::move(start), attempt, std::move(notices)));
}

QueryRetry QueryRunner::MakeQueryRetry() const {
  return QueryRetry(session_->settings(), mode_.kind(),
                    mode_.coordinator() ? mode_.coordinator()->health() : nullptr);
}

void QueryRunner::CancelRunning() {
  std::lock_guard<std::mutex> lock(running_mutex_);
  if (running_)
    running_->Cancel();
}

namespace {

// The bytes the plan's table scans will read (before any pruning): the total of its progress.
// A shared subplan (shared_subplans.h) runs once however many parents it has.
int64_t ScanBytes(const exec::ExecutionPlan& plan, std::set<const exec::ExecutionPlan*>* seen) {
  if (!seen->insert(&plan).second)
    return 0;
  int64_t bytes = 0;
  if (const auto* scan = dynamic_cast<const exec::TableScanExec*>(&plan))
    bytes += scan->unit_bytes();
  for (const auto& child : plan.children())
    bytes += ScanBytes(*child, seen);
  return bytes;
}

// The plan with every scan of `rescan.first` reading `rescan.second` (an optimized plan: no
// subqueries hide in its expressions).
sql::LogicalPlanPtr Rescanned(const sql::LogicalPlanPtr& plan,
                              const std::pair<io::TableProviderPtr, io::TableProviderPtr>& rescan) {
  std::shared_ptr<sql::LogicalPlan> copy;
  if (plan->kind == sql::LogicalKind::kScan && plan->table == rescan.first) {
    copy = plan->Clone();
    copy->table = rescan.second;
  }
  for (size_t i = 0; i < plan->children.size(); ++i) {
    sql::LogicalPlanPtr child = Rescanned(plan->children[i], rescan);
    if (child == plan->children[i])
      continue;
    if (copy == nullptr)
      copy = plan->Clone();
    copy->children[i] = std::move(child);
  }
  return copy != nullptr ? copy : plan;
}

}  // namespace

std::optional<QueryProgressSnapshot> QueryRunner::RunningProgress() const {
  std::lock_guard<std::mutex> lock(running_mutex_);
  if (running_ == nullptr)
    return std::nullopt;
  return running_->progress().Read();
}

std::pair<std::string, std::string> QueryRunner::TakeLastQueryAnalysis() {
  std::shared_ptr<TaskContext> context;
  ExecPlanPtr plan;
  {
    std::lock_guard<std::mutex> lock(running_mutex_);
    context = running_;
    plan = std::move(running_plan_);
    running_plan_ = nullptr;
  }
  if (context == nullptr || plan == nullptr)
    return {};
  // VERBOSE first: its Collect() folds the remote metrics in, once, for both texts.
  std::string verbose = FormatExecutionPlan(*plan, true, context.get());
  return {FormatExecutionPlan(*plan, false, context.get()), std::move(verbose)};
}

Result<QueryRunner::Planned> QueryRunner::PlanQuery(const sql::LogicalPlanPtr& plan,
                                                    const Rescan* rescan, bool optimized) {
  Planned planned;
  if (optimized) {
    planned.logical = plan;
  } else {
    SHOAL_ASSIGN_OR_RETURN(planned.logical, sql::OptimizePlan(plan, &session_->column_ids()));
  }
  if (rescan != nullptr && rescan->first != rescan->second)
    planned.logical = Rescanned(planned.logical, *rescan);
  TaskContext::Options options;
  options.settings = session_->settings();
  if (!query_id_.empty()) {
    options.query_id = ++plans_with_query_id_ == 1
                           ? query_id_
                           : fmt::format("{}-{}", query_id_, plans_with_query_id_);
  }
  // A SQL user's spill_dir names a directory this process writes into: with --data-root it must
  // lie inside the roots like every other file a query writes (io/data_roots.h).
  if (const std::string& spill_dir = options.settings.GetString("spill_dir"); !spill_dir.empty())
    SHOAL_RETURN_IF_ERROR(io::CheckDataPath(spill_dir, "spill into").status());
  planned.context = std::make_shared<TaskContext>(std::move(options));
  {
    std::lock_guard<std::mutex> lock(running_mutex_);
    running_ = planned.context;
    running_plan_ = nullptr;
  }
  PhysicalPlannerOptions planner_options;
  planner_options.target_partitions =
      static_cast<int>(std::max<int64_t>(1, session_->settings().GetInt("threads")));
  planner_options.batch_size = planned.context->batch_size();
  planner_options.collect_build_max_rows =
      static_cast<double>(session_->settings().GetInt("join_collect_build_rows"));
  planner_options.runtime_filters = session_->settings().GetBool("runtime_filters");
  planner_options.scan_filters = session_->settings().GetBool("scan_filters");
  const bool in_process = mode_.RunsInProcess(session_->settings());
  // A shared subplan runs once in this process, across workers as a stage of its own that every
  // reference reads, or in the file shuffle (retry_policy = task too) in the driver, each copy
  // inside a stage computed by that stage's tasks (materialized_planner.h).
  planner_options.share_subplans =
      session_->settings().GetBool("shared_subplans") && mode_.SharesSubplans();
  // The union of a partitioned join's partition filters forms where all its partitions run: in
  // this process, or across workers through the coordinator. A file-shuffle task runs one of
  // them: there the filter is formed from the stage feeding the build side
  // (shuffle/stage_runtime_filters.h), and the join keeps none.
  planner_options.partitioned_runtime_filters = true;
  planner_options.distributed = !in_process;
  SHOAL_ASSIGN_OR_RETURN(planned.physical, PhysicalPlanner(planner_options).Plan(*planned.logical));
  std::set<const exec::ExecutionPlan*> seen;
  planned.context->progress().AddTotal(ScanBytes(*planned.physical, &seen));
  SHOAL_ASSIGN_OR_RETURN(planned.physical, mode_.Prepare(planned.physical, planned.context));
  {
    std::lock_guard<std::mutex> lock(running_mutex_);
    if (keep_last_plan_ && running_ == planned.context)
      running_plan_ = planned.physical;
  }
  return planned;
}

Result<QueryResult> QueryRunner::ExecuteQuery(const sql::LogicalPlanPtr& plan, const Rescan* rescan,
                                              bool optimized) {
  QueryResult result;
  // The whole result is collected before the caller sees a row, so any attempt may be retried.
  const QueryRetry retry = MakeQueryRetry();
  // Planning health-checks the workers, so a lost one can fail an attempt there too.
  const auto attempt_once = [&]() -> Result<std::vector<columnar::RecordBatchPtr>> {
    SHOAL_ASSIGN_OR_RETURN(auto planned, PlanQuery(plan, rescan, optimized));
    return CollectAll(planned.physical, planned.context);
  };
  int attempt = 1;
  SHOAL_ASSIGN_OR_RETURN(result.batches, retry.Run<std::vector<columnar::RecordBatchPtr>>(
                                             attempt_once, &attempt, &result.notices));
  result.schema = SchemaOf(plan->output);
  result.command_tag = fmt::format("SELECT {}", result.num_rows());
  return result;
}

Result<QueryResult> QueryRunner::ExecuteExplain(const sql::BoundStatement& statement) {
  const auto& inner = *statement.explained;
  if (!inner.plan) {
    return Status::NotImplemented("EXPLAIN of {} is not supported",
                                  sql::StatementKindName(inner.kind));
  }
  SHOAL_ASSIGN_OR_RETURN(auto planned, PlanQuery(inner.plan));
  std::string text;
  if (statement.analyze) {
    auto start = std::chrono::steady_clock::now();
    SHOAL_ASSIGN_OR_RETURN(auto batches, CollectAll(planned.physical, planned.context));
    double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    text = FormatExecutionPlan(*planned.physical, statement.verbose, planned.context.get());
    text += fmt::format("Rows: {}\nExecution Time: {:.3f} ms\n", CountRows(batches), ms);
  } else {
    text = "Logical Plan:\n" + sql::FormatLogicalPlan(*planned.logical, statement.verbose);
    if (!text.empty() && text.back() != '\n') {
      text += '\n';
    }
    text += "Physical Plan:\n" + FormatExecutionPlan(*planned.physical, statement.verbose);
  }
  return TextResult({"QUERY PLAN"}, Lines(text));
}

Result<QueryResult> QueryRunner::ExecuteCopy(const sql::BoundStatement& statement) {
  if (statement.copy_path.empty()) {
    return Status::NotImplemented("COPY TO STDOUT needs a client to send the rows to")
        .WithSqlState("0A000")
        .WithHint(
            "write to a file: COPY ... TO '/path/to/file.parquet', or connect to `shoal "
            "server` with psql");
  }
  SHOAL_ASSIGN_OR_RETURN(io::CopyWriteOptions options,
                         io::ParseCopyOptions(statement.copy_path, statement.copy_options));
  SHOAL_ASSIGN_OR_RETURN(auto planned, PlanQuery(statement.plan));
  ExecPlanPtr root = planned.physical;
  // One stream to pull from; several partitions have no order to keep (an ORDER BY plans to one).
  if (root->num_partitions() > 1) {
    root = CoalescePartitionsExec::Make(root);
  }
  auto schema = SchemaOf(statement.plan->output);
  options.parquet.pool = planned.context->MakeOperatorPool("COPY");
  auto opened = io::OpenCopyWriter(statement.copy_path, schema, options);
  if (!opened.ok()) {
    return std::move(opened).status().WithContext(fmt::format("writing {}", statement.copy_path));
  }
  auto writer = std::move(*opened);
  int64_t rows = 0;
  auto run = [&]() -> Status {
    SHOAL_ASSIGN_OR_RETURN(StreamPtr stream, root->Execute(0, planned.context));
    for (;;) {
      SHOAL_ASSIGN_OR_RETURN(columnar::RecordBatchPtr batch, stream->Next());
      if (!batch) {
        return Status::OK();
      }
      rows += batch->num_rows();
      SHOAL_RETURN_IF_ERROR(writer->WriteBatch(batch));
    }
  };
  Status st = run();
  if (st.ok()) {
    st = writer->Close();
  } else {
    writer->Abort();
  }
  if (!st.ok()) {
    return std::move(st).WithContext(fmt::format("writing {}", statement.copy_path));
  }
  QueryResult result;
  result.command_tag = fmt::format("COPY {}", rows);
  return result;
}

Status QueryRunner::RewritePart(const sql::BoundStatement& statement, io::TableRewrite* rewrite,
                                size_t part, int64_t* changed, std::vector<std::string>* notices) {
  // The rows of a part that may change nothing are held back up to this many, so a part without
  // a changed row is usually decided without writing anything; past it they are written as they
  // come and the file is dropped if nothing changed after all.
  constexpr int64_t kHeldRows = int64_t{1} << 16;
  const bool update = statement.kind == sql::StatementKind::kUpdate;
  const io::TableProviderPtr& rows = rewrite->parts()[part];
  const columnar::SchemaPtr& schema = rows->schema();
  const std::string& name = statement.target.name;
  const Rescan rescan{statement.target.provider, rows};
  const QueryRetry retry = MakeQueryRetry();
  for (int attempt = 1;; ++attempt) {
    std::vector<columnar::RecordBatchPtr> held;
    int64_t held_rows = 0;
    int64_t out_rows = 0;
    int64_t matched = 0;
    bool writing = false;
    auto run = [&]() -> Status {
      SHOAL_ASSIGN_OR_RETURN(auto planned, PlanQuery(statement.plan, &rescan));
      ExecPlanPtr root = planned.physical;
      if (root->num_partitions() > 1)
        root = CoalescePartitionsExec::Make(root);
      SHOAL_ASSIGN_OR_RETURN(StreamPtr stream, root->Execute(0, planned.context));
      for (;;) {
        SHOAL_ASSIGN_OR_RETURN(columnar::RecordBatchPtr b, stream->Next());
        if (!b)
          break;
        if (b->num_rows() == 0)
          continue;
        std::vector<columnar::ArrayPtr> columns = b->columns();
        if (update) {  // the last column says which rows matched
          const columnar::ArrayPtr m = columns.back();
          columns.pop_back();
          for (int64_t r = 0; r < m->length(); ++r)
            matched += m->IsValid(r) && m->BoolValue(r) ? 1 : 0;
        }
        auto batch = columnar::RecordBatch::Make(schema, b->num_rows(), std::move(columns));
        SHOAL_RETURN_IF_ERROR(CheckNotNullRows(name, *schema, *batch));
        out_rows += batch->num_rows();
        if (writing) {
          SHOAL_RETURN_IF_ERROR(rewrite->Write(batch));
          continue;
        }
        held_rows += batch->num_rows();
        held.push_back(std::move(batch));
        if (held_rows > kHeldRows) {
          writing = true;
          SHOAL_RETURN_IF_ERROR(rewrite->BeginPart(part));
          for (const auto& h : held)
            SHOAL_RETURN_IF_ERROR(rewrite->Write(h));
          held.clear();
        }
      }
      *changed = update ? matched : rows->statistics().num_rows - out_rows;
      if (*changed == 0) {  // the part stays as it is
        if (writing)
          rewrite->AbandonPart();
        return Status::OK();
      }
      if (!writing) {
        SHOAL_RETURN_IF_ERROR(rewrite->BeginPart(part));
        writing = true;
        for (const auto& h : held)
          SHOAL_RETURN_IF_ERROR(rewrite->Write(h));
      }
      return rewrite->FinishPart();
    };
    Status st = run();
    if (st.ok())
      return st;
    if (writing)
      rewrite->AbandonPart();
    if (!retry.Again(st, attempt, notices))
      return st;
  }
}

Result<QueryResult> QueryRunner::ExecuteChange(const sql::BoundStatement& statement) {
  auto& catalog = *session_->catalog();
  const io::TableStoragePtr& storage = statement.target.storage;
  const bool update = statement.kind == sql::StatementKind::kUpdate;
  // From the read of the rows to the commit the table is this statement's: a writer that
  // committed since the statement was bound is read too (the scans are pointed at the parts of
  // the current rows), and none can commit in between.
  std::lock_guard<std::mutex> write(storage->write_mutex());
  SHOAL_ASSIGN_OR_RETURN(std::unique_ptr<io::TableRewrite> rewrite, storage->BeginRewrite());
  QueryResult result;
  int64_t changed = 0;
  for (size_t part = 0; part < rewrite->parts().size(); ++part) {
    int64_t part_changed = 0;
    if (statement.plan == nullptr) {  // DELETE without WHERE: every row goes
      part_changed = rewrite->parts()[part]->statistics().num_rows;
      if (part_changed > 0) {
        SHOAL_RETURN_IF_ERROR(rewrite->BeginPart(part));
        SHOAL_RETURN_IF_ERROR(rewrite->FinishPart());
      }
    } else {
      SHOAL_RETURN_IF_ERROR(
          RewritePart(statement, rewrite.get(), part, &part_changed, &result.notices));
    }
    changed += part_changed;
  }
  result.command_tag = fmt::format("{} {}", update ? "UPDATE" : "DELETE", changed);
  if (changed == 0)
    return result;  // nothing to commit
  SHOAL_RETURN_IF_ERROR(
      CommitRewriteChecked(catalog.IndexesOf(statement.target.schema, statement.target.name),
                           *storage->schema(), rewrite.get()));
  return result;
}

Result<QueryResult> QueryRunner::ExecuteAlter(const sql::BoundStatement& statement) {
  auto& catalog = *session_->catalog();
  QueryResult result;
  result.command_tag = statement.alter_tag;
  if (statement.skip) {
    result.notices.push_back(statement.notice);
    return result;
  }
  const std::string& schema = statement.schema_name;
  const std::string& name = statement.object_name;
  switch (statement.alter_action) {
    case sql::AlterAction::kRenameTable:
      SHOAL_RETURN_IF_ERROR(catalog.RenameRelation(schema, name, statement.new_name));
      return result;
    case sql::AlterAction::kRenameColumn: {
      const io::TableStoragePtr& storage = statement.target.storage;
      SHOAL_RETURN_IF_ERROR(catalog.CheckNoDependentViews(
          schema, name, fmt::format("rename column {} of table {}", statement.column_name, name)));
      std::lock_guard<std::mutex> write(storage->write_mutex());
      const columnar::SchemaPtr old = storage->schema();
      std::vector<columnar::Field> fields = old->fields();
      bool found = false;
      for (auto& f : fields) {
        if (f.name == statement.new_name)
          return Status::AlreadyExists("column \"{}\" of relation \"{}\" already exists",
                                       statement.new_name, name)
              .WithSqlState("42701");
        if (f.name == statement.column_name) {
          f.name = statement.new_name;
          found = true;
        }
      }
      if (!found)
        return Status::NotFound("column \"{}\" does not exist", statement.column_name)
            .WithSqlState("42703");
      SHOAL_RETURN_IF_ERROR(
          storage->Rename(std::make_shared<const columnar::Schema>(std::move(fields))));
      SHOAL_RETURN_IF_ERROR(
          catalog.RenameIndexColumn(schema, name, statement.column_name, statement.new_name));
      return result;
    }
    case sql::AlterAction::kAddColumn: {
      const io::TableStoragePtr& storage = statement.target.storage;
      // A view's text may say `SELECT *`, which would then grow a column.
      SHOAL_RETURN_IF_ERROR(catalog.CheckNoDependentViews(
          schema, name, fmt::format("add a column to table {}", name)));
      std::lock_guard<std::mutex> write(storage->write_mutex());
      const io::TableProviderPtr current = storage->Snapshot();
      if (current->schema()->FieldIndex(statement.new_column.name))
        return Status::AlreadyExists("column \"{}\" of relation \"{}\" already exists",
                                     statement.new_column.name, name)
            .WithSqlState("42701");
      auto contains_nulls = [&]() {
        return Status::InvalidArgument("column \"{}\" of relation \"{}\" contains null values",
                                       statement.new_column.name, name)
            .WithSqlState("23502");
      };
      if (statement.new_column_value.has_value()) {
        // A constant: the rows there need not be written again where the storage can record it.
        const columnar::Scalar& value = *statement.new_column_value;
        if (value.is_null() && !statement.new_column.nullable &&
            current->statistics().num_rows != 0)
          return contains_nulls();
        Status added =
            storage->AddColumn(statement.new_column, value, statement.new_column_default);
        if (added.code() != StatusCode::kNotImplemented)
          return added.ok() ? Result<QueryResult>(std::move(result)) : Result<QueryResult>(added);
      }
      const Rescan rescan{statement.target.provider, current};
      SHOAL_ASSIGN_OR_RETURN(auto rows, ExecuteQuery(statement.plan, &rescan));
      std::vector<columnar::Field> fields = current->schema()->fields();
      fields.push_back(statement.new_column);
      auto schema_after = std::make_shared<const columnar::Schema>(std::move(fields));
      std::vector<columnar::RecordBatchPtr> batches;
      for (const auto& b : rows.batches) {
        if (b->num_rows() > 0)
          batches.push_back(columnar::RecordBatch::Make(schema_after, b->num_rows(), b->columns()));
      }
      Status replaced = ReplaceChecked(name, catalog.IndexesOf(schema, name), storage.get(),
                                       std::move(batches), schema_after);
      if (!replaced.ok() && replaced.sqlstate() == "23502")
        return contains_nulls();
      SHOAL_RETURN_IF_ERROR(replaced);
      if (!statement.new_column_default.empty()) {
        std::vector<std::string> defaults = storage->column_defaults();
        defaults.resize(static_cast<size_t>(schema_after->num_fields()));
        defaults.back() = statement.new_column_default;
        SHOAL_RETURN_IF_ERROR(storage->SetColumnDefaults(std::move(defaults)));
      }
      return result;
    }
  }
  return Status::Internal("unknown ALTER TABLE action");
}

Result<io::TableProviderPtr> MakeExternalTable(const sql::BoundStatement& statement) {
  std::map<std::string, std::string> options(statement.external_options.begin(),
                                             statement.external_options.end());
  auto schema = statement.table_schema && statement.table_schema->num_fields() > 0
                    ? statement.table_schema
                    : nullptr;
  io::TableProviderPtr table;
  if (statement.external_format == "parquet") {
    SHOAL_ASSIGN_OR_RETURN(
        table, io::parquet::ParquetTable::Make(statement.external_location, schema, options));
  } else if (statement.external_format == "arrow") {
    if (!options.empty()) {
      return Status::InvalidArgument("STORED AS ARROW takes no OPTIONS (got '{}')",
                                     options.begin()->first)
          .WithSqlState("42601");
    }
    SHOAL_ASSIGN_OR_RETURN(table, io::ArrowTable::Make(statement.external_location, schema));
  } else {
    SHOAL_ASSIGN_OR_RETURN(
        table,
        io::DelimitedTable::Make(statement.external_format == "tbl" ? io::DelimitedFormat::kTbl
                                                                    : io::DelimitedFormat::kCsv,
                                 statement.external_location, schema, options));
  }
  return table;
}

Result<QueryResult> QueryRunner::Execute(const sql::BoundStatement& statement) {
  auto& catalog = *session_->catalog();
  auto& settings = session_->settings();
  QueryResult result;
  switch (statement.kind) {
    case sql::StatementKind::kQuery:
      return ExecuteQuery(statement.plan, nullptr, statement.optimized);
    case sql::StatementKind::kExplain: return ExecuteExplain(statement);
    case sql::StatementKind::kCopy: return ExecuteCopy(statement);
    case sql::StatementKind::kCreateTable: {
      if (statement.if_not_exists &&
          catalog.Lookup(statement.schema_name, statement.object_name).ok()) {
        result.command_tag = "CREATE TABLE";
        return result;
      }
      SHOAL_ASSIGN_OR_RETURN(auto storage, catalog.CreateTableStorage(statement.table_schema));
      if (std::any_of(statement.column_defaults.begin(), statement.column_defaults.end(),
                      [](const std::string& d) { return !d.empty(); })) {
        Status set = storage->SetColumnDefaults(statement.column_defaults);
        if (!set.ok()) {
          storage->Drop();
          return set;
        }
      }
      SHOAL_RETURN_IF_ERROR(RegisterStorage(catalog, statement, storage));
      for (sql::IndexEntry index : statement.indexes) {  // PRIMARY KEY and UNIQUE constraints
        index.state = MakeUniqueKeyState();
        SHOAL_RETURN_IF_ERROR(catalog.CreateIndex(std::move(index)));
      }
      result.command_tag = "CREATE TABLE";
      return result;
    }
    case sql::StatementKind::kCreateExternalTable: {
      if (statement.if_not_exists &&
          catalog.Lookup(statement.schema_name, statement.object_name).ok()) {
        result.command_tag = "CREATE EXTERNAL TABLE";
        return result;
      }
      SHOAL_ASSIGN_OR_RETURN(io::TableProviderPtr table, MakeExternalTable(statement));
      sql::TableEntry entry{statement.schema_name, statement.object_name, std::move(table)};
      if (catalog.durable())  // the statement is how a restarted server makes the table again
        entry.definition = statement.text;
      SHOAL_RETURN_IF_ERROR(catalog.RegisterTable(std::move(entry)));
      result.command_tag = "CREATE EXTERNAL TABLE";
      return result;
    }
    case sql::StatementKind::kCreateTableAs: {
      if (statement.if_not_exists &&
          catalog.Lookup(statement.schema_name, statement.object_name).ok()) {
        result.command_tag = "CREATE TABLE AS";
        return result;
      }
      SHOAL_ASSIGN_OR_RETURN(auto rows, ExecuteQuery(statement.plan));
      SHOAL_ASSIGN_OR_RETURN(auto storage, catalog.CreateTableStorage(statement.table_schema));
      Status filled = storage->Append(Relabel(storage->schema(), rows.batches));
      if (!filled.ok()) {
        storage->Drop();
        return filled;
      }
      SHOAL_RETURN_IF_ERROR(RegisterStorage(catalog, statement, storage));
      result.command_tag = fmt::format("SELECT {}", rows.num_rows());
      return result;
    }
    case sql::StatementKind::kInsert: {
      const io::TableStoragePtr& storage = statement.target.storage;
      if (storage == nullptr) {
        return Status::NotImplemented("INSERT into a {} table is not supported",
                                      statement.target.provider ? statement.target.provider->kind()
                                                                : std::string("non-memory"));
      }
      SHOAL_ASSIGN_OR_RETURN(auto rows, ExecuteQuery(statement.plan));
      // Writers of one table take turns; the rows are checked against the table's unique indexes
      // and committed as one.
      std::lock_guard<std::mutex> write(storage->write_mutex());
      SHOAL_RETURN_IF_ERROR(AppendChecked(
          statement.target.name, catalog.IndexesOf(statement.target.schema, statement.target.name),
          storage.get(), Relabel(storage->schema(), rows.batches)));
      result.command_tag = fmt::format("INSERT 0 {}", rows.num_rows());
      return result;
    }
    case sql::StatementKind::kDelete:
    case sql::StatementKind::kUpdate: return ExecuteChange(statement);
    case sql::StatementKind::kAlterTable: return ExecuteAlter(statement);
    case sql::StatementKind::kCreateIndex: {
      result.command_tag = "CREATE INDEX";
      if (statement.if_not_exists &&
          catalog.UnusedRelationName(statement.index.schema, statement.index.name) !=
              statement.index.name) {
        result.notices.push_back(
            fmt::format("relation \"{}\" already exists, skipping", statement.index.name));
        return result;
      }
      sql::IndexEntry index = statement.index;
      if (index.unique) {
        SHOAL_ASSIGN_OR_RETURN(auto entry, catalog.LookupTable(index.schema, index.table));
        if (entry.storage == nullptr)
          return Status::NotImplemented("a unique index on a {} table is not supported",
                                        entry.provider->kind())
              .WithSqlState("0A000")
              .WithHint(
                  "Unique indexes are checked by INSERT, which only tables made by CREATE TABLE "
                  "take.");
        index.state = MakeUniqueKeyState();
        std::lock_guard<std::mutex> write(entry.storage->write_mutex());
        SHOAL_RETURN_IF_ERROR(BuildUniqueIndex(index, *entry.storage));
      }
      SHOAL_RETURN_IF_ERROR(catalog.CreateIndex(std::move(index), statement.if_not_exists));
      return result;
    }
    case sql::StatementKind::kDropIndex:
      SHOAL_RETURN_IF_ERROR(catalog.DropIndexes(statement.drop_objects, statement.if_exists));
      result.command_tag = "DROP INDEX";
      return result;
    case sql::StatementKind::kCreateView:
      SHOAL_RETURN_IF_ERROR(catalog.CreateView(statement.view, statement.or_replace));
      result.command_tag = "CREATE VIEW";
      return result;
    case sql::StatementKind::kDropTable:
      SHOAL_RETURN_IF_ERROR(catalog.DropRelations(false, statement.drop_objects,
                                                  statement.if_exists, statement.cascade));
      result.command_tag = "DROP TABLE";
      return result;
    case sql::StatementKind::kDropView:
      SHOAL_RETURN_IF_ERROR(catalog.DropRelations(true, statement.drop_objects, statement.if_exists,
                                                  statement.cascade));
      result.command_tag = "DROP VIEW";
      return result;
    case sql::StatementKind::kSet:
      SHOAL_RETURN_IF_ERROR(settings.Set(statement.setting_name, statement.setting_value));
      result.command_tag = "SET";
      return result;
    case sql::StatementKind::kReset:
      SHOAL_RETURN_IF_ERROR(settings.Reset(statement.setting_name));
      result.command_tag = "RESET";
      return result;
    case sql::StatementKind::kResetAll: {
      auto overrides = settings.overrides();
      for (const auto& [name, value] : overrides) {
        SHOAL_RETURN_IF_ERROR(settings.Reset(name));
      }
      result.command_tag = "RESET";
      return result;
    }
    case sql::StatementKind::kShow: {
      SHOAL_ASSIGN_OR_RETURN(auto value, settings.Get(statement.setting_name));
      SHOAL_ASSIGN_OR_RETURN(result, TextResult({statement.setting_name}, {{value}}));
      result.command_tag = "SHOW";
      return result;
    }
    case sql::StatementKind::kShowAll: {
      // PostgreSQL's columns: every setting with its value and its help text.
      std::vector<std::vector<std::string>> rows;
      for (const SettingEntry& entry : settings.All()) {
        rows.push_back({entry.name, entry.value, entry.description});
      }
      SHOAL_ASSIGN_OR_RETURN(result, TextResult({"name", "setting", "description"}, rows));
      result.command_tag = "SHOW";
      return result;
    }
  }
  return Status::Internal("unknown statement kind {}", static_cast<int>(statement.kind));
}

}  // namespace shoal::engine
