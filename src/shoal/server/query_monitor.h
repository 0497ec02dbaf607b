// QueryMonitor: what `shoal server`'s sessions are doing, for the web console (console_api.h),
// pg_stat_activity and the server's metrics. Connections report their sessions (start, end) and
// each statement that runs a plan (begin, end); the monitor keeps
//   - the open sessions (user, application, client address, start) and the statement each is
//     running, if any;
//   - a bounded history of finished statements (the last `history_limit`), newest last, with
//     their EXPLAIN ANALYZE text when the runner had one. With a data directory the history is
//     also appended to DATA_DIR/console_history.jsonl (one JSON object a line) and read back at
//     start-up, so it outlives a restart; the file is cut back to the limit when it grows past
//     twice the limit.
// and counts queries by final state, their time and their errors by SQLSTATE in ProcessMetrics().
//
// Thread safety: every method may be called from any thread (one mutex; nothing slow under it).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "shoal/common/result.h"
#include "shoal/engine/query_runner.h"

namespace shoal::server {

/// One stage of a finished distributed query, read from its EXPLAIN ANALYZE.
struct StageSummary {
  int stage_id = 0;
  std::string exchange;  // NetworkShuffle, NetworkCoalesce, ... (the boundary's kind)
  int tasks = 0;
  int64_t rows = 0;        // rows that crossed the boundary
  int64_t bytes = 0;       // bytes sent over the network (0 in process)
  int consumer_stage = 0;  // the stage reading it (0: the head, on the coordinator)
};

/// One task of a finished distributed query (the console's timeline).
struct TaskSpan {
  int stage_id = 0;
  int task_number = 0;
  std::string worker;
  double start_ms = 0;  // from the query's start
  double end_ms = 0;
};

struct QueryRecord {
  int64_t id = 0;
  int32_t pid = 0;  // the session (BackendKeyData's process id)
  /// The distributed query id its tasks and log lines carry (QueryRunner::SetQueryId).
  std::string query_id;
  std::string user;
  std::string application_name;
  std::string sql;
  /// running, finished, failed, cancelled.
  std::string state = "running";
  std::string sqlstate;  // of an error
  std::string error;
  int64_t start_unix_ms = 0;
  int64_t end_unix_ms = 0;  // 0 while running
  int64_t rows = 0;
  std::string mode;  // local, workers, shuffle
  /// Finished queries: the EXPLAIN ANALYZE text of their plan (empty when there was none).
  std::string explain_analyze;
  std::vector<StageSummary> stages;
  std::vector<TaskSpan> tasks;
};

/// An open session, as pg_stat_activity shows it.
struct SessionActivity {
  int32_t pid = 0;
  std::string user;
  std::string database;
  std::string application_name;
  std::string client_addr;
  int64_t backend_start_unix_ms = 0;
  /// The statement running now, or the last one (state idle).
  std::string query;
  int64_t query_start_unix_ms = 0;
  std::string state = "idle";  // active, idle
};

class QueryMonitor {
 public:
  /// `data_dir` empty: the history is kept in memory only.
  QueryMonitor(std::string data_dir, size_t history_limit);

  /// Reads back the history file (a damaged line is skipped, with a warning).
  Status Load();

  /// Whether finished statements are kept, with their analyzed plans (the console is on): keeping
  /// and printing a plan, and appending to the history file, cost a little on every statement,
  /// so without the console only the metrics and the sessions are kept.
  void set_keep_history(bool record) { keep_history_.store(record); }
  bool keep_history() const { return keep_history_.load(std::memory_order_relaxed); }

  void SessionStarted(SessionActivity session);
  void SessionEnded(int32_t pid);
  /// Session `pid` begins a statement (before binding it: pg_stat_activity, read while binding,
  /// shows the statement reading it as active, as PostgreSQL does) or has ended its statements.
  void SessionActive(int32_t pid, const std::string& sql);
  void SessionIdle(int32_t pid);

  /// A statement begins on session `pid`; `runner` (the session's, outliving the statement)
  /// answers progress questions while it runs. Returns the query's id.
  int64_t QueryStarted(int32_t pid, const std::string& sql, const engine::QueryRunner* runner,
                       std::string query_id = "");
  /// The statement `id` ended with `status`; `explain` is its analyzed plan's text, when known,
  /// and `verbose` the same as EXPLAIN ANALYZE VERBOSE prints it (its per-task lines give the
  /// timeline; empty: no tasks).
  void QueryEnded(int64_t id, const Status& status, int64_t rows, std::string explain,
                  const std::string& verbose = "");

  /// Running statements, oldest first, with their progress.
  struct Running {
    QueryRecord record;
    std::optional<engine::QueryProgressSnapshot> progress;
  };
  std::vector<Running> RunningQueries() const;
  /// Finished statements, newest first.
  std::vector<QueryRecord> History() const;
  std::optional<QueryRecord> Find(int64_t id) const;
  std::vector<SessionActivity> Sessions() const;

  /// Parses the stages of a distributed EXPLAIN ANALYZE text (NetworkShuffle / NetworkCoalesce /
  /// NetworkBroadcast lines and their "* stage N: ..." notes).
  static std::vector<StageSummary> StagesFromExplain(const std::string& text);

 private:
  void Append(const QueryRecord& record);

  const std::string data_dir_;
  const size_t history_limit_;
  std::atomic<bool> keep_history_{true};
  mutable std::mutex mutex_;
  int64_t next_id_ = 1;
  size_t lines_in_file_ = 0;
  std::map<int32_t, SessionActivity> sessions_;
  struct Active {
    QueryRecord record;
    const engine::QueryRunner* runner = nullptr;
    std::chrono::steady_clock::time_point started;
  };
  std::map<int64_t, Active> running_;
  std::deque<QueryRecord> history_;
};

/// Milliseconds since the Unix epoch, now.
int64_t UnixMillisNow();

}  // namespace shoal::server
