#include "shoal/exec/operators/recursive_cte_exec.h"

#include <fmt/format.h>

#include "shoal/exec/array_ops.h"
#include "shoal/exec/operator_stream.h"
#include "shoal/exec/operators/coalesce_partitions_exec.h"
#include "shoal/exec/row_key/grouper.h"
#include "shoal/exec/row_key/memory_reservation.h"

namespace shoal::exec {
namespace {

using columnar::ArrayPtr;
using columnar::RecordBatch;
using columnar::RecordBatchPtr;
using columnar::TypeId;

// `node` with every scan of working table `id` reading `table`.
ExecPlanPtr BindWorkingTable(const ExecPlanPtr& node, int64_t id,
                             const std::shared_ptr<WorkingTable>& table, Status* error) {
  if (const auto* scan = node->TryAs<WorkingTableScanExec>()) {
    if (scan->id() == id && scan->table() != table)
      return scan->WithTable(table);
    return node;
  }
  std::vector<ExecPlanPtr> children = node->children();
  bool changed = false;
  for (auto& child : children) {
    ExecPlanPtr bound = BindWorkingTable(child, id, table, error);
    changed = changed || bound != child;
    child = std::move(bound);
  }
  if (!changed)
    return node;
  auto rebuilt = node->WithNewChildren(std::move(children));
  if (!rebuilt.ok()) {
    *error = rebuilt.status();
    return node;
  }
  return *rebuilt;
}

class RecursiveCteStream final : public OperatorStream {
 public:
  RecursiveCteStream(const RecursiveCteExec* node, std::shared_ptr<TaskContext> context)
      : OperatorStream(node, 0, std::move(context)),
        node_(node),
        max_rounds_(this->context()->settings().GetInt("max_recursion_rounds")),
        reservation_(pool()) {}

  ~RecursiveCteStream() override {
    input_.reset();
    node_->working_table()->Release(context().get(), this);
  }

 protected:
  Result<RecordBatchPtr> NextImpl() override {
    for (;;) {
      if (context()->cancelled())
        return TaskContext::CancelledStatus();
      if (!input_) {
        if (!started_) {
          started_ = true;
          SHOAL_ASSIGN_OR_RETURN(input_, node_->non_recursive()->Execute(0, context()));
        } else {
          if (produced_rows_ == 0)
            return RecordBatchPtr();  // the last round produced nothing: done
          if (max_rounds_ > 0 && rounds_ >= max_rounds_)
            return Status::InvalidArgument(
                       "a recursive query ran its recursive term {} times without reaching an "
                       "empty round",
                       rounds_)
                .WithSqlState("54000")
                .WithHint(
                    "Check the recursive term's stop condition, or raise max_recursion_rounds "
                    "(0: no limit).");
          // The next round reads what this one produced.
          auto rows = std::make_shared<const std::vector<RecordBatchPtr>>(std::move(produced_));
          produced_.clear();
          produced_rows_ = 0;
          working_bytes_ = produced_bytes_;
          produced_bytes_ = 0;
          SHOAL_RETURN_IF_ERROR(
              node_->working_table()->Publish(context().get(), this, std::move(rows)));
          ++rounds_;
          metrics()->AddExtra("rounds", 1);
          SHOAL_ASSIGN_OR_RETURN(input_, node_->recursive()->Execute(0, context()));
        }
      }
      SHOAL_ASSIGN_OR_RETURN(RecordBatchPtr batch, input_->Next());
      if (!batch) {
        input_.reset();
        continue;
      }
      if (batch->num_rows() == 0)
        continue;
      SHOAL_ASSIGN_OR_RETURN(batch, Normalise(std::move(batch)));
      if (!node_->all()) {
        SHOAL_ASSIGN_OR_RETURN(batch, DropSeen(std::move(batch)));
        if (batch->num_rows() == 0)
          continue;
      }
      produced_.push_back(batch);
      produced_rows_ += batch->num_rows();
      produced_bytes_ += batch->BufferBytes();
      SHOAL_RETURN_IF_ERROR(Reserve());
      return batch;
    }
  }

 private:
  // The batch with dictionaries decoded (the output types are plain) and this node's schema.
  Result<RecordBatchPtr> Normalise(RecordBatchPtr batch) {
    bool decode = false;
    for (const auto& column : batch->columns())
      decode = decode || column->type_id() == TypeId::kDictionary;
    if (!decode && batch->schema() == schema())
      return batch;
    std::vector<ArrayPtr> columns = batch->columns();
    for (auto& column : columns) {
      if (column->type_id() == TypeId::kDictionary) {
        SHOAL_ASSIGN_OR_RETURN(column, DecodeDictionary(column, pool()));
      }
    }
    return RecordBatch::Make(schema(), batch->num_rows(), std::move(columns));
  }

  // What this stream holds: the previous round's rows (the working table), this round's rows and
  // UNION's set of every row produced.
  Status Reserve() {
    const int64_t bytes =
        working_bytes_ + produced_bytes_ + (grouper_ ? grouper_->MemoryBytes() : 0);
    Status reserved = reservation_.Resize(bytes);
    if (!reserved.ok())
      return std::move(reserved).WithContext("in the rows of a recursive query's rounds");
    return Status::OK();
  }

  // The rows of `batch` never produced before (the first of equal rows within it).
  Result<RecordBatchPtr> DropSeen(RecordBatchPtr batch) {
    const int64_t n = batch->num_rows();
    if (batch->num_columns() == 0) {  // all rows are equal
      if (seen_empty_row_)
        return batch->Slice(0, 0);
      seen_empty_row_ = true;
      return batch->Slice(0, 1);
    }
    if (!grouper_) {
      std::vector<columnar::DataType> types;
      for (const auto& f : schema()->fields())
        types.push_back(f.type);
      SHOAL_ASSIGN_OR_RETURN(grouper_, Grouper::Make(types));
    }
    const auto before = static_cast<uint32_t>(grouper_->num_groups());
    SHOAL_RETURN_IF_ERROR(grouper_->Consume(batch->columns(), n, &groups_));
    SHOAL_RETURN_IF_ERROR(Reserve());
    // New groups get ids in order of first appearance: a row is new when its id is the next one.
    keep_.clear();
    uint32_t next = before;
    for (int64_t i = 0; i < n; ++i) {
      if (groups_[static_cast<size_t>(i)] == next) {
        keep_.push_back(static_cast<int32_t>(i));
        ++next;
      }
    }
    if (static_cast<int64_t>(keep_.size()) == n)
      return batch;
    return TakeBatch(*batch, keep_.data(), static_cast<int64_t>(keep_.size()), pool());
  }

  const RecursiveCteExec* node_;
  const int64_t max_rounds_;  // 0: no limit
  StreamPtr input_;
  bool started_ = false;
  std::vector<RecordBatchPtr> produced_;  // this round's rows: the next round's working table
  int64_t produced_rows_ = 0;
  int64_t produced_bytes_ = 0;
  int64_t working_bytes_ = 0;  // of the round the recursive term reads
  int64_t rounds_ = 0;
  std::unique_ptr<Grouper> grouper_;  // UNION: every row produced so far
  MemoryReservation reservation_;
  std::vector<uint32_t> groups_;
  std::vector<int32_t> keep_;
  bool seen_empty_row_ = false;
};

}  // namespace

Result<std::shared_ptr<RecursiveCteExec>> RecursiveCteExec::Make(ExecPlanPtr non_recursive,
                                                                 ExecPlanPtr recursive, bool all,
                                                                 int64_t id) {
  const auto& first = *non_recursive->schema();
  const auto& second = *recursive->schema();
  if (first.num_fields() != second.num_fields())
    return Status::Internal("RecursiveCte terms have {} and {} columns", first.num_fields(),
                            second.num_fields());
  std::vector<columnar::Field> fields;
  for (int i = 0; i < first.num_fields(); ++i) {
    columnar::DataType type = first.field(i).type;
    if (type.id() == TypeId::kDictionary)
      type = type.value_type();
    columnar::DataType other = second.field(i).type;
    if (other.id() == TypeId::kDictionary)
      other = other.value_type();
    if (type != other)
      return Status::Internal(
          "RecursiveCte column {} is {} in the non-recursive term but {} in "
          "the recursive term",
          i + 1, type.ToString(), other.ToString());
    fields.emplace_back(first.field(i).name, type, true);
  }
  if (non_recursive->num_partitions() > 1)
    non_recursive = CoalescePartitionsExec::Make(std::move(non_recursive));
  if (recursive->num_partitions() > 1)
    recursive = CoalescePartitionsExec::Make(std::move(recursive));
  auto table = std::make_shared<WorkingTable>();
  Status error;
  recursive = BindWorkingTable(recursive, id, table, &error);
  SHOAL_RETURN_IF_ERROR(error);
  auto schema = std::make_shared<const columnar::Schema>(std::move(fields));
  return std::shared_ptr<RecursiveCteExec>(new RecursiveCteExec(
      std::move(schema), std::move(non_recursive), std::move(recursive), all, id, table));
}

Result<ExecPlanPtr> RecursiveCteExec::WithNewChildren(std::vector<ExecPlanPtr> children) const {
  if (children.size() != 2)
    return Status::Internal("RecursiveCte has two inputs, got {}", children.size());
  SHOAL_ASSIGN_OR_RETURN(auto node, Make(children[0], children[1], all_, id_));
  return ExecPlanPtr(std::move(node));
}

Result<StreamPtr> RecursiveCteExec::Execute(int partition,
                                            const std::shared_ptr<TaskContext>& context) const {
  if (partition != 0)
    return Status::Internal("RecursiveCte partition {} out of range", partition);
  return StreamPtr(new RecursiveCteStream(this, context));
}

std::string RecursiveCteExec::Describe(bool) const {
  return fmt::format("{}, working_table=#{}", all_ ? "UNION ALL" : "UNION", id_);
}

}  // namespace shoal::exec
