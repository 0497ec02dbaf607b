#include "shoal/distributed/adaptive/load_sampler.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <utility>

#include <fmt/format.h>

#include "shoal/common/log_context.h"
#include "shoal/common/settings.h"
#include "shoal/distributed/planner/network_exchange_exec.h"
#include "shoal/exec/hash.h"
#include "shoal/exec/operators/table_scan_exec.h"

namespace shoal::distributed {

bool AdaptiveTaskCounts(const Settings& settings) {
  return settings.GetBool("dist_adaptive_task_counts");
}

SampleLimits SampleLimitsFrom(const Settings& settings) {
  SampleLimits limits;
  limits.rows = settings.GetInt("dist_sample_rows");
  limits.bytes = settings.GetInt("dist_sample_bytes");
  limits.time = std::chrono::milliseconds(settings.GetInt("dist_sample_time_ms"));
  return limits;
}

// ---------------------------------------------------------------- statistics

int64_t ColumnBytes(const columnar::Array& array) {
  const int64_t n = array.length();
  int64_t bytes = array.null_count() > 0 ? (n + 7) / 8 : 0;
  const columnar::DataType& type = array.type();
  if (type.is_binary_like()) {
    if (n > 0) {
      const int32_t* offsets = array.offsets();
      bytes += offsets[n] - offsets[0];
    }
    return bytes + 4 * n;
  }
  if (type.id() != columnar::TypeId::kDictionary && type.is_fixed_width())
    return bytes + (static_cast<int64_t>(type.bit_width()) * n + 7) / 8;
  // Dictionaries and nested types: the buffers (a dictionary's values count once per batch).
  return std::max(bytes, array.BufferBytes());
}

SampleStats::SampleStats(int num_columns)
    : bytes_(static_cast<size_t>(num_columns), 0),
      nulls_(static_cast<size_t>(num_columns), 0),
      sketches_(static_cast<size_t>(num_columns)) {
  for (auto& s : sketches_)
    s.fill(0);
}

Status SampleStats::Add(const columnar::RecordBatch& batch) {
  const int64_t n = batch.num_rows();
  if (batch.num_columns() != static_cast<int>(sketches_.size())) {
    return Status::Internal("a sampled batch has {} columns; the plan's schema has {}",
                            batch.num_columns(), sketches_.size());
  }
  rows_ += n;
  hashes_.resize(static_cast<size_t>(n));
  for (int c = 0; c < batch.num_columns(); ++c) {
    const columnar::Array& column = *batch.column(c);
    const size_t ci = static_cast<size_t>(c);
    bytes_[ci] += ColumnBytes(column);
    std::fill(hashes_.begin(), hashes_.end(), 0);
    SHOAL_RETURN_IF_ERROR(exec::HashArray(column, hashes_.data()));
    Sketch& sketch = sketches_[ci];
    const bool has_nulls = column.null_count() != 0;
    int64_t nulls = 0;
    for (int64_t i = 0; i < n; ++i) {
      if (has_nulls && column.IsNull(i)) {
        ++nulls;
        continue;
      }
      // HashArray's hashes are already mixed; the top bits pick the register, the rest give the
      // rank (position of the first set bit).
      const uint64_t h = hashes_[static_cast<size_t>(i)];
      const size_t reg = static_cast<size_t>(h >> (64 - kPrecision));
      const uint64_t rest = (h << kPrecision) | (uint64_t{1} << (kPrecision - 1));
      const auto rank = static_cast<uint8_t>(std::countl_zero(rest) + 1);
      sketch[reg] = std::max(sketch[reg], rank);
    }
    nulls_[ci] += nulls;
  }
  return Status::OK();
}

int64_t SampleStats::bytes() const {
  int64_t total = 0;
  for (int64_t b : bytes_)
    total += b;
  return total;
}

double SampleStats::EstimateDistinct(const Sketch& sketch) const {
  constexpr double kRegisters = static_cast<double>(size_t{1} << kPrecision);
  const double alpha = 0.7213 / (1.0 + 1.079 / kRegisters);
  double sum = 0;
  int zeros = 0;
  for (uint8_t r : sketch) {
    sum += std::ldexp(1.0, -static_cast<int>(r));
    zeros += r == 0 ? 1 : 0;
  }
  const double raw = alpha * kRegisters * kRegisters / sum;
  // Small cardinalities: linear counting over the empty registers is far more accurate.
  if (raw <= 2.5 * kRegisters && zeros > 0)
    return kRegisters * std::log(kRegisters / zeros);
  return raw;
}

LoadInfo SampleStats::ToLoadInfo(int partition) const {
  LoadInfo info;
  info.partition = partition;
  info.rows_ready = rows_;
  info.column_bytes_ready = bytes_;
  for (size_t c = 0; c < sketches_.size(); ++c) {
    float ndv = 0;
    float nulls = 0;
    if (rows_ > 0) {
      const double distinct =
          std::min(EstimateDistinct(sketches_[c]), static_cast<double>(rows_ - nulls_[c]));
      ndv = static_cast<float>(100.0 * distinct / static_cast<double>(rows_));
      nulls =
          static_cast<float>(100.0 * static_cast<double>(nulls_[c]) / static_cast<double>(rows_));
    }
    info.column_ndv_percentage.push_back(ndv);
    info.column_null_percentage.push_back(nulls);
  }
  return info;
}

int64_t LeafRowsPulled(const exec::ExecutionPlan& plan, const exec::TaskContext& context) {
  const bool leaf = plan.children().empty() || plan.distribution().reads_outside_plan;
  if (leaf)
    return context.metrics().Sum(&plan).output_rows;
  int64_t total = 0;
  for (const auto& child : plan.children())
    total += LeafRowsPulled(*child, context);
  return total;
}

// ---------------------------------------------------------------- sampling and replay

namespace {

// One output partition: filled by its sampler thread, then handed to the first consumer.
struct SampledPartition {
  std::mutex mutex;
  std::condition_variable cv;
  bool sampled = false;  // the sampler is done with `stream`
  bool taken = false;    // a consumer has the stream
  Status status;         // the sampler's error, for the consumer
  exec::StreamPtr stream;
  std::deque<columnar::RecordBatchPtr> batches;
};

}  // namespace

struct LoadSampler::State {
  exec::ExecPlanPtr plan;
  std::shared_ptr<exec::TaskContext> context;
  SampleLimits limits;
  std::vector<std::unique_ptr<SampledPartition>> partitions;
  std::vector<std::thread> threads;

  std::mutex sink_mutex;
  LoadInfoSink sink;  // reset by Stop
  int remaining = 0;  // partitions not reported yet; guarded by sink_mutex

  void Sample(int p);
};

void LoadSampler::State::Sample(int p) {
  const ScopedLogContext log_context(context->query_id(), context->task_key());
  SampledPartition& part = *partitions[static_cast<size_t>(p)];
  SampleStats stats(plan->schema()->num_fields());
  bool eos = false;
  Status status = [&]() -> Status {
    SHOAL_ASSIGN_OR_RETURN(exec::StreamPtr stream, plan->Execute(p, context));
    part.stream = std::move(stream);
    const auto deadline = std::chrono::steady_clock::now() + limits.time;
    while (stats.rows() < limits.rows && stats.bytes() < limits.bytes &&
           std::chrono::steady_clock::now() < deadline) {
      SHOAL_ASSIGN_OR_RETURN(columnar::RecordBatchPtr batch, part.stream->Next());
      if (!batch) {
        eos = true;
        return Status::OK();
      }
      SHOAL_RETURN_IF_ERROR(stats.Add(*batch));
      part.batches.push_back(std::move(batch));
    }
    return Status::OK();
  }();
  LoadInfo info = stats.ToLoadInfo(p);
  info.reached_eos = eos && status.ok();
  info.rows_pulled_from_leaf = LeafRowsPulled(*plan, *context);
  {
    std::lock_guard<std::mutex> lock(part.mutex);
    part.status = std::move(status);
    part.sampled = true;
  }
  part.cv.notify_all();
  std::lock_guard<std::mutex> lock(sink_mutex);
  if (!sink)
    return;
  sink(&info);
  if (--remaining == 0)
    sink(nullptr);
}

namespace {

// The first consumer of a sampled partition: the buffered batches, then the rest of the stream.
class ReplayStream final : public exec::RecordBatchStream {
 public:
  ReplayStream(std::shared_ptr<LoadSampler::State> state, SampledPartition* part)
      : state_(std::move(state)), part_(part) {}

  const columnar::SchemaPtr& schema() const override { return state_->plan->schema(); }

  Result<columnar::RecordBatchPtr> Next() override {
    if (!ready_) {
      std::unique_lock<std::mutex> lock(part_->mutex);
      part_->cv.wait(lock, [&] { return part_->sampled; });
      ready_ = true;
    }
    if (!part_->status.ok())
      return part_->status;
    if (!part_->batches.empty()) {
      columnar::RecordBatchPtr batch = std::move(part_->batches.front());
      part_->batches.pop_front();
      return batch;
    }
    if (!part_->stream)
      return columnar::RecordBatchPtr();
    return part_->stream->Next();
  }

 private:
  std::shared_ptr<LoadSampler::State> state_;
  SampledPartition* part_;
  bool ready_ = false;
};

// The task plan as consumers see it: the first Execute of a partition takes over its sample.
class SampledExec final : public exec::ExecutionPlan {
 public:
  static constexpr exec::PlanKind kKind = exec::PlanKind::kLoadSample;

  explicit SampledExec(std::shared_ptr<LoadSampler::State> state)
      : exec::ExecutionPlan(kKind, state->plan->schema()), state_(std::move(state)) {}

  std::string_view name() const override { return "LoadSample"; }

  std::vector<exec::ExecPlanPtr> children() const override { return {state_->plan}; }

  Result<exec::ExecPlanPtr> WithNewChildren(std::vector<exec::ExecPlanPtr>) const override {
    return Status::Internal("a sampled task plan is never rewritten");
  }

  exec::Partitioning output_partitioning() const override {
    return state_->plan->output_partitioning();
  }

  std::vector<sql::SortKey> output_ordering() const override {
    return state_->plan->output_ordering();
  }

  Result<exec::StreamPtr> Execute(
      int partition, const std::shared_ptr<exec::TaskContext>& context) const override {
    if (partition >= 0 && static_cast<size_t>(partition) < state_->partitions.size() &&
        context == state_->context) {
      SampledPartition* part = state_->partitions[static_cast<size_t>(partition)].get();
      std::lock_guard<std::mutex> lock(part->mutex);
      if (!part->taken) {
        part->taken = true;
        return exec::StreamPtr(new ReplayStream(state_, part));
      }
    }
    return state_->plan->Execute(partition, context);
  }

  std::string Describe(bool) const override {
    return fmt::format("rows={}, bytes={}", state_->limits.rows, state_->limits.bytes);
  }

 private:
  std::shared_ptr<LoadSampler::State> state_;
};

}  // namespace

std::unique_ptr<LoadSampler> LoadSampler::Start(exec::ExecPlanPtr plan,
                                                std::shared_ptr<exec::TaskContext> context,
                                                SampleLimits limits, LoadInfoSink sink) {
  std::unique_ptr<LoadSampler> sampler(new LoadSampler());
  auto state = std::make_shared<State>();
  const int n = plan->num_partitions();
  state->plan = std::move(plan);
  state->context = std::move(context);
  state->limits = limits;
  state->sink = std::move(sink);
  state->remaining = n;
  for (int p = 0; p < n; ++p)
    state->partitions.push_back(std::make_unique<SampledPartition>());
  sampler->state_ = state;
  sampler->sampled_plan_ = std::make_shared<SampledExec>(state);
  if (n == 0) {
    std::lock_guard<std::mutex> lock(state->sink_mutex);
    if (state->sink)
      state->sink(nullptr);
    return sampler;
  }
  // The threads see the state through a raw pointer: Stop (at the latest the destructor) joins
  // them before the sampler lets go of it.
  State* raw = state.get();
  for (int p = 0; p < n; ++p)
    state->threads.emplace_back([raw, p] { raw->Sample(p); });
  return sampler;
}

void LoadSampler::Stop() {
  if (!state_)
    return;
  {
    std::lock_guard<std::mutex> lock(state_->sink_mutex);
    state_->sink = nullptr;
  }
  for (auto& t : state_->threads) {
    if (t.joinable())
      t.join();
  }
}

LoadSampler::~LoadSampler() {
  Stop();
}

}  // namespace shoal::distributed
