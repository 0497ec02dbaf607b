#include "shoal/exec/join/join_output.h"

#include "shoal/exec/array_ops.h"

namespace shoal::exec {

Status GatherColumns(const std::vector<columnar::ArrayPtr>& columns, const int32_t* indices,
                     int64_t count, bool allow_null_index, const std::vector<bool>* needed,
                     const std::shared_ptr<MemoryPool>& pool,
                     std::vector<columnar::ArrayPtr>* out) {
  for (size_t c = 0; c < columns.size(); ++c) {
    if (needed != nullptr && !(*needed)[c]) {
      out->push_back(nullptr);
      continue;
    }
    SHOAL_ASSIGN_OR_RETURN(columnar::ArrayPtr a,
                           Take(*columns[c], indices, count, pool, allow_null_index));
    out->push_back(std::move(a));
  }
  return Status::OK();
}

Status AppendNullColumns(const columnar::Schema& schema, int begin, int end, int64_t count,
                         const std::shared_ptr<MemoryPool>& pool,
                         std::vector<columnar::ArrayPtr>* out) {
  for (int c = begin; c < end; ++c) {
    SHOAL_ASSIGN_OR_RETURN(columnar::ArrayPtr a,
                           columnar::Array::MakeAllNull(schema.field(c).type, count, pool));
    out->push_back(std::move(a));
  }
  return Status::OK();
}

Status BatchCoalescer::Push(columnar::RecordBatchPtr batch) {
  if (batch->num_rows() == 0)
    return Status::OK();
  if (held_rows_ + batch->num_rows() > target_)
    SHOAL_RETURN_IF_ERROR(Flush());
  if (held_.empty() && batch->num_rows() * 2 >= target_) {
    ready_.push_back(std::move(batch));
    return Status::OK();
  }
  held_rows_ += batch->num_rows();
  held_.push_back(std::move(batch));
  if (held_rows_ * 2 >= target_)
    return Flush();
  return Status::OK();
}

Status BatchCoalescer::Flush() {
  if (held_.empty())
    return Status::OK();
  if (held_.size() == 1) {
    ready_.push_back(std::move(held_[0]));
  } else {
    SHOAL_ASSIGN_OR_RETURN(columnar::RecordBatchPtr merged,
                           ConcatenateBatches(schema_, held_, pool_));
    ready_.push_back(std::move(merged));
  }
  held_.clear();
  held_rows_ = 0;
  return Status::OK();
}

columnar::RecordBatchPtr BatchCoalescer::PopReady() {
  if (ready_.empty())
    return nullptr;
  columnar::RecordBatchPtr out = std::move(ready_.front());
  ready_.pop_front();
  return out;
}

}  // namespace shoal::exec
