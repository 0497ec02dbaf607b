#include "shoal/exec/operator_stream.h"

#include <chrono>

namespace shoal::exec {

OperatorStream::OperatorStream(const ExecutionPlan* node, int partition,
                               std::shared_ptr<TaskContext> context)
    : schema_(node->schema()),
      partition_(partition),
      context_(std::move(context)),
      pool_(context_->MakeOperatorPool(fmt::format("{}[{}]", node->name(), partition))),
      metrics_(context_->metrics().For(node, partition)) {}

OperatorStream::~OperatorStream() {
  int64_t peak = pool_->peak_bytes();
  int64_t old = metrics_->peak_memory_bytes.load();
  while (peak > old && !metrics_->peak_memory_bytes.compare_exchange_weak(old, peak)) {
  }
}

Result<columnar::RecordBatchPtr> OperatorStream::Next() {
  if (done_)
    return columnar::RecordBatchPtr();
  if (context_->cancelled()) {
    done_ = true;
    return TaskContext::CancelledStatus();
  }
  auto start = std::chrono::steady_clock::now();
  Result<columnar::RecordBatchPtr> result = NextImpl();
  metrics_->compute_nanos +=
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start)
          .count();
  if (!result.ok() || *result == nullptr) {
    done_ = true;
    return result;
  }
  metrics_->output_rows += (*result)->num_rows();
  metrics_->output_batches += 1;
  return result;
}

}  // namespace shoal::exec
