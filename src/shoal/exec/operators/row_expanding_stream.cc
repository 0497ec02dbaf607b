#include "shoal/exec/operators/row_expanding_stream.h"

#include <algorithm>
#include <utility>

#include "shoal/columnar/schema.h"
#include "shoal/exec/array_ops.h"
#include "shoal/exec/join/join_output.h"

namespace shoal::exec {

RowExpandingStream::RowExpandingStream(const ExecutionPlan* node, int partition,
                                       std::shared_ptr<TaskContext> context, StreamPtr input,
                                       bool has_input)
    : OperatorStream(node, partition, std::move(context)),
      input_(std::move(input)),
      has_input_(has_input) {}

Result<columnar::RecordBatchPtr> RowExpandingStream::NextImpl() {
  for (;;) {
    if (batch_) {
      SHOAL_ASSIGN_OR_RETURN(columnar::RecordBatchPtr out, Produce());
      if (out)
        return out;
      batch_.reset();
      continue;
    }
    if (has_input_) {
      if (!input_)
        return columnar::RecordBatchPtr();
      SHOAL_ASSIGN_OR_RETURN(columnar::RecordBatchPtr next, input_->Next());
      if (!next) {
        input_.reset();
        return columnar::RecordBatchPtr();
      }
      if (next->num_rows() == 0)
        continue;
      batch_ = std::move(next);
    } else {
      if (constant_done_)
        return columnar::RecordBatchPtr();
      constant_done_ = true;
      auto empty = std::make_shared<columnar::Schema>(std::vector<columnar::Field>{});
      batch_ = columnar::RecordBatch::Make(empty, 1, {});
    }
    SHOAL_RETURN_IF_ERROR(StartBatch());
  }
}

Result<columnar::RecordBatchPtr> RowExpandingStream::Assemble(
    std::vector<columnar::ArrayPtr> columns, const std::vector<int64_t>* ordinals,
    const std::vector<int32_t>& rows, int64_t num_rows) {
  if (ordinals) {
    SHOAL_ASSIGN_OR_RETURN(columnar::BufferPtr buffer, AllocateValues<int64_t>(num_rows, pool()));
    std::copy(ordinals->begin(), ordinals->end(), buffer->mutable_data_as<int64_t>());
    columns.push_back(columnar::Array::Make(columnar::DataType::Int64(), num_rows,
                                            {columnar::BufferPtr(), std::move(buffer)}, 0));
  }
  if (has_input_) {
    SHOAL_RETURN_IF_ERROR(
        GatherColumns(batch_->columns(), rows.data(), num_rows, false, nullptr, pool(), &columns));
  }
  return columnar::RecordBatch::Make(schema(), num_rows, std::move(columns));
}

}  // namespace shoal::exec
