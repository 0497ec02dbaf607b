// TaskContext: everything one execution of a plan (one query on one node, or one task of a
// distributed stage) shares: the session's settings, the query's memory pool, the thread pool,
// the cancellation flag, the spill directory and the metrics of every operator.
//
// Created once per execution and handed to every Execute call (shared_ptr, so streams outlive the
// code that started them safely). Cancel() may be called from any thread (Ctrl-C, a closed client
// connection, a failed sibling task); streams poll cancelled() between batches.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "shoal/common/memory_pool.h"
#include "shoal/common/settings.h"
#include "shoal/common/thread_pool.h"
#include "shoal/exec/query_progress.h"

namespace shoal::exec {

class ExecutionPlan;
class RuntimeFilterRegistry;

/// Counters of one operator in one partition. Updated by the single thread running that partition's
/// stream, read after the stream ends (or by EXPLAIN ANALYZE while running: values are atomics).
struct OperatorMetrics {
  std::atomic<int64_t> output_rows{0};
  std::atomic<int64_t> output_batches{0};
  std::atomic<int64_t> compute_nanos{0};
  std::atomic<int64_t> peak_memory_bytes{0};
  std::atomic<int64_t> spilled_bytes{0};
  std::atomic<int64_t> spill_count{0};
  /// Operator-specific counters ("row_groups_pruned", "build_rows").
  std::mutex extra_mutex;
  std::map<std::string, int64_t> extra;

  void AddExtra(const std::string& key, int64_t delta);
};

class MetricsRegistry {
 public:
  /// The metrics of `node` for `partition`, created on first use. The pointer stays valid for the
  /// registry's lifetime.
  OperatorMetrics* For(const ExecutionPlan* node, int partition);

  /// Sum over partitions, for printing.
  struct Totals {
    int64_t output_rows = 0, output_batches = 0, compute_nanos = 0, peak_memory_bytes = 0,
            spilled_bytes = 0, spill_count = 0;
    std::map<std::string, int64_t> extra;
    int partitions = 0;
  };

  Totals Sum(const ExecutionPlan* node) const;

  /// Metrics produced elsewhere (the tasks of a distributed query, on workers) arrive through a
  /// collector: the code that owns them registers one, and EXPLAIN ANALYZE calls Collect() before
  /// it prints, so the remote numbers are folded in (with For and AddNote) exactly once, after
  /// the plan ran. A collector must not own the plan (the registry outlives it).
  void AddCollector(std::function<void()> collector);
  /// Runs and forgets every collector registered so far.
  void Collect();

  /// A line EXPLAIN ANALYZE prints under `node` (a remote stage's tasks and workers, a task's
  /// own numbers); `verbose_only`: only with EXPLAIN ANALYZE VERBOSE.
  void AddNote(const ExecutionPlan* node, std::string line, bool verbose_only);
  std::vector<std::string> Notes(const ExecutionPlan* node, bool verbose) const;

 private:
  mutable std::mutex mutex_;
  std::map<std::pair<const ExecutionPlan*, int>, std::unique_ptr<OperatorMetrics>> metrics_;
  std::multimap<const ExecutionPlan*, std::pair<std::string, bool>> notes_;
  std::mutex collect_mutex_;  // one Collect at a time; held while collectors run
  std::vector<std::function<void()>> collectors_;
};

class TaskContext {
 public:
  struct Options {
    Settings settings;
    std::shared_ptr<MemoryPool> pool;     // the query's pool; null: a fresh unlimited one
    std::shared_ptr<ThreadPool> threads;  // null: a pool of `threads` setting size
    std::string spill_directory;          // empty: the `spill_dir` setting or $TMPDIR
    std::string query_id;
    std::string task_key;  // a worker's task ("stage 1 task 0"); empty on the coordinator
  };

  explicit TaskContext(Options options);
  ~TaskContext();

  const Settings& settings() const { return settings_; }

  int64_t batch_size() const { return batch_size_; }

  const std::shared_ptr<MemoryPool>& memory_pool() const { return pool_; }

  /// The pool CollectAll runs partitions on, taken on first use: a file-shuffle task drives its
  /// streams on its own thread and never asks, and a pool's idle threads in a task process made
  /// every copy-on-write fault there a cross-CPU TLB flush.
  ThreadPool& thread_pool() const;

  const std::string& spill_directory() const { return spill_directory_; }

  const std::string& query_id() const { return query_id_; }
  /// Operator threads log under the query id and this (common/log_context.h).
  const std::string& task_key() const { return task_key_; }

  MetricsRegistry& metrics() const { return *metrics_; }

  /// The runtime join filters this execution's joins have published (join/runtime_filter.h).
  RuntimeFilterRegistry& runtime_filters() const { return *runtime_filters_; }

  /// A child of the query pool for one operator instance (its use and peak show per operator).
  std::shared_ptr<MemoryPool> MakeOperatorPool(const std::string& name) const;

  /// How much of its input the query has read (scans credit it; progress lines read it).
  QueryProgress& progress() { return progress_; }
  const QueryProgress& progress() const { return progress_; }

  void Cancel() { cancelled_.store(true, std::memory_order_relaxed); }

  bool cancelled() const { return cancelled_.load(std::memory_order_relaxed); }

  /// Cancelled status to return from a stream that noticed cancellation.
  static Status CancelledStatus();

 private:
  Settings settings_;
  int64_t batch_size_;
  std::shared_ptr<MemoryPool> pool_;
  mutable std::once_flag threads_once_;
  mutable std::shared_ptr<ThreadPool> threads_;
  std::string spill_directory_;
  std::string query_id_;
  std::string task_key_;
  std::unique_ptr<MetricsRegistry> metrics_;
  std::unique_ptr<RuntimeFilterRegistry> runtime_filters_;
  std::atomic<bool> cancelled_{false};
  QueryProgress progress_;
};

}  // namespace shoal::exec
