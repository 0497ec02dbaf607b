// QueryRunner: the session runner behind `shoal sql` and the SQL logic tests, the composition root
// of the engine. It owns a session (catalog + settings) and runs SQL text statement by statement —
// parse, bind, optimize, plan, execute — so that a statement sees the tables and settings every
// earlier one left behind. Queries run in the runner's execution mode (execution_mode.h): on this
// node, on workers through a distributed Coordinator, or through the materialized file shuffle.
// DDL acts on the session's catalog (CREATE TABLE makes a table whose storage the catalog chooses:
// in memory, or Parquet files in a server's data directory, io/table_storage.h).
//
// Settings must be registered before a runner is made (engine/settings_catalog.h, at start-up).
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "shoal/columnar/record_batch.h"
#include "shoal/common/result.h"
#include "shoal/engine/execution_mode.h"
#include "shoal/engine/query_retry.h"
#include "shoal/exec/query_progress.h"
#include "shoal/sql/bound_statement.h"
#include "shoal/sql/session.h"

namespace shoal::engine {

using exec::ExecutionPlan;
using exec::TaskContext;

/// How far a running query has read its input (QueryRunner::RunningProgress).
using QueryProgressSnapshot = exec::QueryProgress::Snapshot;

/// What one statement produced: rows (schema non-null) and/or a psql-style command tag
/// ("CREATE TABLE", "INSERT 0 3", "SELECT 2").
struct QueryResult {
  columnar::SchemaPtr schema;  // null for statements without a result set
  std::vector<columnar::RecordBatchPtr> batches;
  std::string command_tag;
  /// NOTICEs for the client, in order (a query run again after a lost worker: query_retry.h).
  std::vector<std::string> notices;
  int64_t num_rows() const;
};

/// One statement's result read batch by batch while it is produced (QueryRunner::Open), so a
/// server can write rows to a socket as they come instead of holding the whole result. A query's
/// cursor pulls from its running plan; other statements have run when the cursor is returned and
/// it hands out what they produced (SHOW, EXPLAIN). Dropping a cursor before its end cancels the
/// query (a client that went away stops the work it asked for).
class ResultCursor {
 public:
  virtual ~ResultCursor() = default;
  /// The columns of the result set; null for statements without one (CREATE, SET, INSERT ...).
  virtual const columnar::SchemaPtr& schema() const = 0;
  /// The next batch, or null at the end (then command_tag() is final). Empty batches are skipped.
  virtual Result<columnar::RecordBatchPtr> Next() = 0;
  /// psql's tag: "SELECT 3" (counting the rows handed out), "CREATE TABLE", "INSERT 0 2".
  virtual std::string command_tag() const = 0;
  /// The NOTICEs produced since the last call (a query run again after a lost worker).
  virtual std::vector<std::string> TakeNotices() { return {}; }
};

/// Receives each statement's result while it is produced (QueryRunner::Run with a sink): the
/// shell prints a query's first rows while the rest are still being computed, and never holds a
/// whole result.
class ResultSink {
 public:
  virtual ~ResultSink() = default;
  /// A statement's result begins; `schema` is null for statements without a result set.
  virtual Status Begin(const columnar::SchemaPtr& schema) = 0;
  /// The next rows (never empty).
  virtual Status Rows(const columnar::RecordBatchPtr& batch) = 0;
  /// A NOTICE, as soon as it is raised (a query run again after a lost worker).
  virtual void Notice(const std::string& text) = 0;
  /// The statement ended with psql's command tag ("SELECT 3", "CREATE TABLE").
  virtual Status End(const std::string& command_tag) = 0;
};

/// The provider of CREATE EXTERNAL TABLE (the files are listed and checked now).
Result<io::TableProviderPtr> MakeExternalTable(const sql::BoundStatement& statement);

class QueryRunner {
 public:
  QueryRunner();
  explicit QueryRunner(std::shared_ptr<sql::Session> session);

  sql::Session& session() { return *session_; }

  /// Where the following queries run (default: locally). Not while a statement runs.
  void SetExecutionMode(ExecutionMode mode) { mode_ = std::move(mode); }
  const ExecutionMode& execution_mode() const { return mode_; }

  /// Runs every statement of `sql` in order, calling `on_result` after each; stops at the first
  /// error (of a statement or of the callback) and returns it.
  Status Run(std::string_view sql, const std::function<Status(const QueryResult&)>& on_result);
  /// The same, streaming: each query's rows go to `sink` batch by batch as its plan produces
  /// them (nothing is collected). A query may be run again after a lost worker only until its
  /// first rows reached the sink (retry_policy = query); after that its error stands.
  Status Run(std::string_view sql, ResultSink& sink);

  /// Cancels the query running now, from any thread (the shell's Ctrl-C): its streams stop with
  /// a Cancelled status, SQLSTATE 57014. Does nothing between queries.
  void CancelRunning();
  /// How far the query running now has read its input, from any thread; between queries, the last
  /// query's figures (nullopt before the first).
  std::optional<QueryProgressSnapshot> RunningProgress() const;
  /// The id of the queries that follow: their TaskContext's query_id, which a distributed
  /// query's task keys carry to every worker (and worker log lines name, common/log_context.h).
  /// A statement that plans more than once (a retry, a DELETE's parts) gets "ID-2", "ID-3", ...
  /// for the later plans. Empty (the default): the coordinator draws a random id per query.
  void SetQueryId(std::string id) {
    query_id_ = std::move(id);
    plans_with_query_id_ = 0;
  }
  /// Keeps each query's plan after it ran, for TakeLastQueryAnalysis (the server's console). Off
  /// by default: a kept plan holds its distributed query's tasks open until it is taken.
  void SetKeepLastPlan(bool keep) { keep_last_plan_ = keep; }
  /// The EXPLAIN ANALYZE text of the last query's kept plan with the figures it ran with (the web
  /// console's history), then lets the plan go: {plain, VERBOSE (a line per distributed task)};
  /// empty when there is none. Call it once the query's cursor has ended: it folds the remote
  /// tasks' metrics in, which ends the query's tasks.
  std::pair<std::string, std::string> TakeLastQueryAnalysis();

  /// Starts one bound statement and returns its result as a cursor (see ResultCursor). The
  /// runner must outlive the cursor; CancelRunning() cancels the cursor's query. COPY ... TO
  /// STDOUT (an empty copy_path) returns its query's rows for the caller to send.
  Result<std::unique_ptr<ResultCursor>> Open(const sql::BoundStatement& statement);

  /// Runs every statement and returns their results (stops at the first error).
  Result<std::vector<QueryResult>> RunAll(std::string_view sql);

  /// Runs every statement of `sql` and returns the last one's result.
  Result<QueryResult> RunOne(std::string_view sql);

 private:
  // The session's retry_policy = query rule in this runner's mode (penalizing lost workers in
  // the coordinator's health, when there is a coordinator).
  QueryRetry MakeQueryRetry() const;
  // Parses `sql` and binds its statements one at a time, handing each to `run_one` (a long one
  // on a thread with a stack that fits it).
  Status RunEach(std::string_view sql,
                 const std::function<Status(const sql::BoundStatement&)>& run_one);
  Result<QueryResult> Execute(const sql::BoundStatement& statement);
  Result<QueryResult> ExecuteExplain(const sql::BoundStatement& statement);
  // COPY ... TO: streams the query's batches into the file writer of the chosen format.
  Result<QueryResult> ExecuteCopy(const sql::BoundStatement& statement);
  struct Planned;
  /// `rescan`: scans of the first provider read the second instead (a DELETE / UPDATE bound
  /// before another writer's commit reads the table as it is now).
  using Rescan = std::pair<io::TableProviderPtr, io::TableProviderPtr>;
  Result<Planned> PlanQuery(const sql::LogicalPlanPtr& plan, const Rescan* rescan = nullptr,
                            bool optimized = false);
  // Runs a query plan; the result's schema carries the logical plan's column names.
  Result<QueryResult> ExecuteQuery(const sql::LogicalPlanPtr& plan, const Rescan* rescan = nullptr,
                                   bool optimized = false);
  /// DELETE and UPDATE: the table rewritten part by part copy-on-write, committed under its
  /// write lock.
  Result<QueryResult> ExecuteChange(const sql::BoundStatement& statement);
  /// Runs the statement's plan over one part of `rewrite` and replaces the part by the rows it
  /// yields if any row changed; `*changed` counts them.
  Status RewritePart(const sql::BoundStatement& statement, io::TableRewrite* rewrite, size_t part,
                     int64_t* changed, std::vector<std::string>* notices);
  /// ALTER TABLE: renames, ADD COLUMN.
  Result<QueryResult> ExecuteAlter(const sql::BoundStatement& statement);

  std::shared_ptr<sql::Session> session_;
  ExecutionMode mode_;
  mutable std::mutex running_mutex_;
  std::shared_ptr<TaskContext>
      running_;  // the last query's context (cancelling it when done is harmless)
  exec::ExecPlanPtr running_plan_;  // the plan running_ runs, when keep_last_plan_
  bool keep_last_plan_ = false;
  std::string query_id_;
  int plans_with_query_id_ = 0;
};

}  // namespace shoal::engine
