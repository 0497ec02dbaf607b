// OperatorStream: the base of every operator's stream. It enforces the stream contract once —
// nullptr forever after the end or an error, a Cancelled status as soon as the context is
// cancelled — and records the operator's metrics (rows, batches, time, peak memory of its pool)
// so that operators only implement NextImpl().
#pragma once

#include <memory>

#include "shoal/exec/execution_plan.h"
#include "shoal/exec/task_context.h"

namespace shoal::exec {

class OperatorStream : public RecordBatchStream {
 public:
  OperatorStream(const ExecutionPlan* node, int partition, std::shared_ptr<TaskContext> context);
  ~OperatorStream() override;

  const columnar::SchemaPtr& schema() const override { return schema_; }

  Result<columnar::RecordBatchPtr> Next() final;

 protected:
  /// The next batch, or nullptr at the end.
  virtual Result<columnar::RecordBatchPtr> NextImpl() = 0;

  const std::shared_ptr<TaskContext>& context() const { return context_; }

  /// This operator instance's pool (a child of the query pool).
  const std::shared_ptr<MemoryPool>& pool() const { return pool_; }

  OperatorMetrics* metrics() const { return metrics_; }

  int partition() const { return partition_; }

 private:
  columnar::SchemaPtr schema_;
  int partition_;
  std::shared_ptr<TaskContext> context_;
  std::shared_ptr<MemoryPool> pool_;
  OperatorMetrics* metrics_;
  bool done_ = false;
};

}  // namespace shoal::exec
