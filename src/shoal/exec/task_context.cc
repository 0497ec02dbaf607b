#include "shoal/exec/task_context.h"

#include <cstdlib>

#include <unistd.h>

#include "shoal/common/thread_pool_cache.h"
#include "shoal/exec/join/runtime_filter_registry.h"

namespace shoal::exec {
void OperatorMetrics::AddExtra(const std::string& key, int64_t delta) {
  std::lock_guard<std::mutex> lock(extra_mutex);
  extra[key] += delta;
}

OperatorMetrics* MetricsRegistry::For(const ExecutionPlan* node, int partition) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto& slot = metrics_[{node, partition}];
  if (!slot)
    slot = std::make_unique<OperatorMetrics>();
  return slot.get();
}

MetricsRegistry::Totals MetricsRegistry::Sum(const ExecutionPlan* node) const {
  Totals totals;
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto it = metrics_.lower_bound({node, INT32_MIN});
       it != metrics_.end() && it->first.first == node; ++it) {
    const OperatorMetrics& m = *it->second;
    totals.output_rows += m.output_rows.load();
    totals.output_batches += m.output_batches.load();
    totals.compute_nanos += m.compute_nanos.load();
    totals.peak_memory_bytes += m.peak_memory_bytes.load();
    totals.spilled_bytes += m.spilled_bytes.load();
    totals.spill_count += m.spill_count.load();
    {
      std::lock_guard<std::mutex> extra_lock(it->second->extra_mutex);
      for (const auto& [k, v] : m.extra)
        totals.extra[k] += v;
    }
    ++totals.partitions;
  }
  return totals;
}

void MetricsRegistry::AddCollector(std::function<void()> collector) {
  std::lock_guard<std::mutex> lock(collect_mutex_);
  collectors_.push_back(std::move(collector));
}

void MetricsRegistry::Collect() {
  std::lock_guard<std::mutex> lock(collect_mutex_);
  std::vector<std::function<void()>> collectors = std::move(collectors_);
  collectors_.clear();
  for (auto& collector : collectors)
    collector();
}

void MetricsRegistry::AddNote(const ExecutionPlan* node, std::string line, bool verbose_only) {
  std::lock_guard<std::mutex> lock(mutex_);
  notes_.emplace(node, std::make_pair(std::move(line), verbose_only));
}

std::vector<std::string> MetricsRegistry::Notes(const ExecutionPlan* node, bool verbose) const {
  std::vector<std::string> out;
  std::lock_guard<std::mutex> lock(mutex_);
  auto [begin, end] = notes_.equal_range(node);
  for (auto it = begin; it != end; ++it) {
    if (verbose || !it->second.second)
      out.push_back(it->second.first);
  }
  return out;
}

TaskContext::~TaskContext() = default;

TaskContext::TaskContext(Options options)
    : settings_(std::move(options.settings)),
      pool_(std::move(options.pool)),
      threads_(std::move(options.threads)),
      spill_directory_(std::move(options.spill_directory)),
      query_id_(std::move(options.query_id)),
      task_key_(std::move(options.task_key)),
      metrics_(std::make_unique<MetricsRegistry>()),
      runtime_filters_(std::make_unique<RuntimeFilterRegistry>()) {
  batch_size_ = settings_.GetInt("batch_size");
  if (!pool_) {
    int64_t limit = settings_.GetInt("memory_limit");
    pool_ = MemoryPool::MakeRoot(query_id_.empty() ? "query" : "query " + query_id_,
                                 limit <= 0 ? MemoryPool::kUnlimited : limit);
  }
  if (spill_directory_.empty())
    spill_directory_ = settings_.GetString("spill_dir");
  if (spill_directory_.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    spill_directory_ = (tmp != nullptr && *tmp != '\0') ? tmp : "/tmp";
  }
}

ThreadPool& TaskContext::thread_pool() const {
  std::call_once(threads_once_, [this] {
    if (!threads_)
      threads_ = ThreadPoolCache::Global().Acquire(static_cast<int>(settings_.GetInt("threads")));
  });
  return *threads_;
}

std::shared_ptr<MemoryPool> TaskContext::MakeOperatorPool(const std::string& name) const {
  return pool_->MakeChild(name);
}

Status TaskContext::CancelledStatus() {
  return Status::Cancelled("canceling statement due to user request").WithSqlState("57014");
}

}  // namespace shoal::exec
