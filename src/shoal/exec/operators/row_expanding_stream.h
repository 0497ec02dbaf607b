// RowExpandingStream: the stream shared by the set-returning operators (generate_series in
// TableFunctionExec, unnest in UnnestExec). Each input row, or one empty row when the operator has
// no input (constant arguments), expands to zero or more output rows; the output batch is the
// function's columns, an optional ordinality column, then the input row's columns repeated for
// each of its output rows. The base owns the input loop (reading, skipping empty batches, the
// constant case) and the assembly of the output batch; a subclass only evaluates its arguments
// over a new batch (StartBatch) and emits up to batch_size rows of it at a time (Produce).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "shoal/columnar/array.h"
#include "shoal/columnar/record_batch.h"
#include "shoal/exec/operator_stream.h"

namespace shoal::exec {

class RowExpandingStream : public OperatorStream {
 public:
  /// `input` is the input's stream, or null when the operator has no input.
  RowExpandingStream(const ExecutionPlan* node, int partition, std::shared_ptr<TaskContext> context,
                     StreamPtr input, bool has_input);

 protected:
  Result<columnar::RecordBatchPtr> NextImpl() final;

  /// A new non-empty batch is in batch(): evaluate the arguments over it.
  virtual Status StartBatch() = 0;
  /// Up to batch_size output rows of the current batch; null when it is exhausted.
  virtual Result<columnar::RecordBatchPtr> Produce() = 0;

  const columnar::RecordBatchPtr& batch() const { return batch_; }

  /// The output batch of `num_rows` rows: `columns` (the function's), then the ordinality column
  /// from `ordinals` when it is non-null, then the input columns gathered at `rows` (one input
  /// row index per output row) when the operator has an input.
  Result<columnar::RecordBatchPtr> Assemble(std::vector<columnar::ArrayPtr> columns,
                                            const std::vector<int64_t>* ordinals,
                                            const std::vector<int32_t>& rows, int64_t num_rows);

 private:
  StreamPtr input_;
  bool has_input_;
  bool constant_done_ = false;
  columnar::RecordBatchPtr batch_;
};

}  // namespace shoal::exec
