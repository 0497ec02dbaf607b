#include "shoal/exec/operators/working_table_scan_exec.h"

#include <fmt/format.h>

#include "shoal/exec/operator_stream.h"

namespace shoal::exec {

Status WorkingTable::Publish(const TaskContext* context, const void* owner, Rows rows) {
  std::lock_guard<std::mutex> lock(mutex_);
  Entry& entry = entries_[context];
  if (entry.owner != nullptr && entry.owner != owner)
    return Status::Internal("a recursive CTE runs twice at once in one execution");
  entry.owner = owner;
  entry.rows = std::move(rows);
  return Status::OK();
}

WorkingTable::Rows WorkingTable::Current(const TaskContext* context) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = entries_.find(context);
  return it == entries_.end() ? nullptr : it->second.rows;
}

void WorkingTable::Release(const TaskContext* context, const void* owner) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = entries_.find(context);
  if (it != entries_.end() && it->second.owner == owner)
    entries_.erase(it);
}

namespace {

using columnar::RecordBatch;
using columnar::RecordBatchPtr;

class WorkingTableScanStream final : public OperatorStream {
 public:
  WorkingTableScanStream(const WorkingTableScanExec* node, std::shared_ptr<TaskContext> context,
                         WorkingTable::Rows rows)
      : OperatorStream(node, 0, std::move(context)), rows_(std::move(rows)) {}

 protected:
  Result<RecordBatchPtr> NextImpl() override {
    if (index_ >= rows_->size())
      return RecordBatchPtr();
    const RecordBatchPtr& batch = (*rows_)[index_++];
    if (batch->schema() == schema())
      return batch;
    return RecordBatch::Make(schema(), batch->num_rows(), batch->columns());
  }

 private:
  WorkingTable::Rows rows_;
  size_t index_ = 0;
};

}  // namespace

std::shared_ptr<WorkingTableScanExec> WorkingTableScanExec::Make(
    columnar::SchemaPtr schema, int64_t id, std::shared_ptr<WorkingTable> table) {
  return std::shared_ptr<WorkingTableScanExec>(
      new WorkingTableScanExec(std::move(schema), id, std::move(table)));
}

Result<ExecPlanPtr> WorkingTableScanExec::WithNewChildren(std::vector<ExecPlanPtr> children) const {
  if (!children.empty())
    return Status::Internal("WorkingTableScan has no inputs");
  return shared_from_this();
}

Result<StreamPtr> WorkingTableScanExec::Execute(int partition,
                                                const std::shared_ptr<TaskContext>& context) const {
  if (partition != 0)
    return Status::Internal("WorkingTableScan partition {} out of range", partition);
  WorkingTable::Rows rows = table_ ? table_->Current(context.get()) : nullptr;
  if (!rows)
    return Status::Internal("working table #{} read outside its recursive CTE", id_);
  return StreamPtr(new WorkingTableScanStream(this, context, std::move(rows)));
}

std::string WorkingTableScanExec::Describe(bool) const {
  return fmt::format("working_table=#{}", id_);
}

}  // namespace shoal::exec
