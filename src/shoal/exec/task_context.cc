#include "shoal/exec/task_context.h"

#include <cstdlib>

#include <unistd.h>

namespace shoal::exec {
namespace {

int64_t DefaultMemoryLimit() {
  // 80% of physical memory leaves room for the OS and for memory Shoal does not account.
  long pages = sysconf(_SC_PHYS_PAGES);
  long page_size = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page_size <= 0)
    return 0;
  return static_cast<int64_t>(static_cast<double>(pages) * static_cast<double>(page_size) * 0.8);
}

Status DoRegister() {
  SettingsRegistry& registry = SettingsRegistry::Global();
  SettingDefinition batch_size;
  batch_size.name = "batch_size";
  batch_size.type = SettingType::kInt;
  batch_size.default_value = "8192";
  batch_size.min = 1;
  batch_size.max = 1 << 24;
  batch_size.description = "Rows per record batch produced by scans and operators";
  SHOAL_RETURN_IF_ERROR(registry.Register(std::move(batch_size)));

  SettingDefinition threads;
  threads.name = "threads";
  threads.type = SettingType::kInt;
  threads.default_value = std::to_string(ThreadPool::HardwareConcurrency());
  threads.min = 1;
  threads.max = 1024;
  threads.description = "Worker threads (and default partitions) per query";
  SHOAL_RETURN_IF_ERROR(registry.Register(std::move(threads)));

  SettingDefinition memory_limit;
  memory_limit.name = "memory_limit";
  memory_limit.type = SettingType::kBytes;
  memory_limit.default_value = std::to_string(DefaultMemoryLimit());
  memory_limit.min = 0;
  memory_limit.description = "Memory a query may hold before spilling or failing (0: unlimited)";
  SHOAL_RETURN_IF_ERROR(registry.Register(std::move(memory_limit)));

  SettingDefinition spill_dir;
  spill_dir.name = "spill_dir";
  spill_dir.type = SettingType::kString;
  spill_dir.default_value = "";
  spill_dir.description = "Directory for spill files (empty: $TMPDIR or /tmp)";
  return registry.Register(std::move(spill_dir));
}

}  // namespace

Status RegisterExecSettings() {
  static const Status status = DoRegister();
  return status;
}

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

TaskContext::TaskContext(Options options)
    : settings_(std::move(options.settings)),
      pool_(std::move(options.pool)),
      threads_(std::move(options.threads)),
      spill_directory_(std::move(options.spill_directory)),
      query_id_(std::move(options.query_id)),
      metrics_(std::make_unique<MetricsRegistry>()) {
  Status registered = RegisterExecSettings();
  SHOAL_CHECK(registered.ok(), "exec settings: {}", registered.ToString());
  batch_size_ = settings_.GetInt("batch_size");
  if (!pool_) {
    int64_t limit = settings_.GetInt("memory_limit");
    pool_ = MemoryPool::MakeRoot(query_id_.empty() ? "query" : "query " + query_id_,
                                 limit <= 0 ? MemoryPool::kUnlimited : limit);
  }
  if (!threads_)
    threads_ = std::make_shared<ThreadPool>(static_cast<int>(settings_.GetInt("threads")));
  if (spill_directory_.empty())
    spill_directory_ = settings_.GetString("spill_dir");
  if (spill_directory_.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    spill_directory_ = (tmp != nullptr && *tmp != '\0') ? tmp : "/tmp";
  }
}

std::shared_ptr<MemoryPool> TaskContext::MakeOperatorPool(const std::string& name) const {
  return pool_->MakeChild(name);
}

Status TaskContext::CancelledStatus() {
  return Status::Cancelled("canceling statement due to user request").WithSqlState("57014");
}

}  // namespace shoal::exec
