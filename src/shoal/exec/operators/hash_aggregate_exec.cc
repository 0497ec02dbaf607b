#include "shoal/exec/operators/hash_aggregate_exec.h"

#include <algorithm>

#include "shoal/exec/aggregate/accumulator.h"
#include "shoal/exec/array_ops.h"
#include "shoal/exec/expr/evaluator.h"
#include "shoal/exec/expr/expr_text.h"
#include "shoal/exec/operator_stream.h"
#include "shoal/exec/row_key/grouper.h"
#include "shoal/exec/row_key/memory_reservation.h"

namespace shoal::exec {
namespace {

using columnar::Field;
using columnar::Schema;
using columnar::SchemaPtr;

DataType Decoded(const DataType& type) {
  return type.id() == TypeId::kDictionary ? type.value_type() : type;
}

// The aggregate as its accumulator sees it: dictionary arguments decoded.
sql::ExprPtr WithDecodedArgs(const sql::ExprPtr& agg) {
  bool any = false;
  for (const auto& arg : agg->args)
    any |= arg->type.id() == TypeId::kDictionary;
  if (!any)
    return agg;
  auto copy = std::make_shared<sql::Expr>(*agg);
  for (auto& arg : copy->args) {
    if (arg->type.id() == TypeId::kDictionary) {
      auto decoded = std::make_shared<sql::Expr>(*arg);
      decoded->type = arg->type.value_type();
      arg = std::move(decoded);
    }
  }
  return copy;
}

Result<SchemaPtr> DeriveSchema(const std::vector<sql::ExprPtr>& group_by,
                               const std::vector<sql::ExprPtr>& aggregates, bool partial) {
  std::vector<Field> fields;
  for (const auto& key : group_by)
    fields.emplace_back(ExprText(*key), Decoded(key->type), key->nullable);
  for (const auto& agg : aggregates) {
    if (partial) {
      SHOAL_ASSIGN_OR_RETURN(std::vector<Field> states,
                             AggregateStateFields(*WithDecodedArgs(agg), ExprText(*agg)));
      for (auto& f : states)
        fields.push_back(std::move(f));
    } else {
      fields.emplace_back(ExprText(*agg), agg->type, agg->name != "count");
    }
  }
  return std::make_shared<const Schema>(std::move(fields));
}

bool SameTypes(const Schema& a, const Schema& b) {
  if (a.num_fields() != b.num_fields())
    return false;
  for (int i = 0; i < a.num_fields(); ++i) {
    if (Decoded(a.field(i).type) != Decoded(b.field(i).type))
      return false;
  }
  return true;
}

Result<std::vector<ArrayPtr>> DecodeAll(std::vector<ArrayPtr> arrays,
                                        const std::shared_ptr<MemoryPool>& pool) {
  for (auto& a : arrays) {
    if (a->type_id() == TypeId::kDictionary) {
      SHOAL_ASSIGN_OR_RETURN(a, DecodeDictionary(a, pool));
    }
  }
  return arrays;
}

// One aggregate of a stream: its accumulator and, outside kFinal, its compiled inputs.
struct AggregateState {
  std::unique_ptr<Accumulator> accumulator;
  std::vector<std::unique_ptr<ExprEvaluator>> args;
  std::unique_ptr<ExprEvaluator> filter;
  std::unique_ptr<Grouper> distinct;  // DISTINCT: seen (group id, arguments) pairs
  int first_state_column = 0;         // kFinal: where its states start in the input
  int num_states = 0;
};

class HashAggregateStream final : public OperatorStream {
 public:
  HashAggregateStream(const HashAggregateExec* node, int partition,
                      std::shared_ptr<TaskContext> context, StreamPtr input)
      : OperatorStream(node, partition, std::move(context)),
        node_(node),
        input_(std::move(input)),
        reservation_(pool()) {}

  Status Init(const Schema& input_schema) {
    const bool final = node_->mode() == AggregateMode::kFinal;
    num_keys_ = static_cast<int>(node_->group_by().size());
    if (!final) {
      SHOAL_ASSIGN_OR_RETURN(keys_, MakeEvaluators(node_->group_by(), input_schema, pool()));
    }
    std::vector<DataType> key_types;
    for (const auto& key : node_->group_by())
      key_types.push_back(Decoded(key->type));
    if (num_keys_ > 0) {
      SHOAL_ASSIGN_OR_RETURN(grouper_, Grouper::Make(key_types));
    }
    int column = num_keys_;
    for (const auto& agg_expr : node_->aggregates()) {
      sql::ExprPtr agg = WithDecodedArgs(agg_expr);
      AggregateState state;
      SHOAL_ASSIGN_OR_RETURN(state.accumulator, MakeAccumulator(*agg));
      SHOAL_ASSIGN_OR_RETURN(auto fields, AggregateStateFields(*agg, ""));
      state.first_state_column = column;
      state.num_states = static_cast<int>(fields.size());
      column += state.num_states;
      if (!final) {
        SHOAL_ASSIGN_OR_RETURN(state.args, MakeEvaluators(agg_expr->args, input_schema, pool()));
        if (agg_expr->filter) {
          SHOAL_ASSIGN_OR_RETURN(state.filter,
                                 ExprEvaluator::Make(agg_expr->filter, input_schema, pool()));
        }
        if (agg_expr->distinct) {
          std::vector<DataType> types{DataType::UInt32()};
          for (const auto& arg : agg->args)
            types.push_back(arg->type);
          SHOAL_ASSIGN_OR_RETURN(state.distinct, Grouper::Make(types));
        }
      }
      aggregates_.push_back(std::move(state));
    }
    if (num_keys_ == 0)
      ResizeStates(1);
    return Status::OK();
  }

 protected:
  Result<RecordBatchPtr> NextImpl() override {
    if (input_) {
      SHOAL_RETURN_IF_ERROR(ConsumeInput());
      input_.reset();
    }
    const int64_t total = num_groups();
    if (emitted_ >= total) {
      Release();
      return RecordBatchPtr();
    }
    const int64_t length = std::min(context()->batch_size(), total - emitted_);
    std::vector<ArrayPtr> columns;
    if (grouper_) {
      SHOAL_ASSIGN_OR_RETURN(columns, grouper_->GetKeys(emitted_, length, pool()));
    }
    for (const AggregateState& agg : aggregates_) {
      if (node_->mode() == AggregateMode::kPartial) {
        SHOAL_ASSIGN_OR_RETURN(auto states, agg.accumulator->State(emitted_, length, pool()));
        for (auto& s : states)
          columns.push_back(std::move(s));
      } else {
        SHOAL_ASSIGN_OR_RETURN(ArrayPtr result,
                               agg.accumulator->Finalize(emitted_, length, pool()));
        columns.push_back(std::move(result));
      }
    }
    emitted_ += length;
    return RecordBatch::Make(schema(), length, std::move(columns));
  }

 private:
  int64_t num_groups() const { return grouper_ ? grouper_->num_groups() : 1; }

  void ResizeStates(int64_t groups) {
    for (AggregateState& agg : aggregates_)
      agg.accumulator->Resize(groups);
  }

  void Release() {
    grouper_.reset();
    aggregates_.clear();
    std::vector<uint32_t>().swap(groups_);
    reservation_.Resize(0).ok();
  }

  Status ConsumeInput() {
    for (;;) {
      if (context()->cancelled())
        return TaskContext::CancelledStatus();
      SHOAL_ASSIGN_OR_RETURN(RecordBatchPtr batch, input_->Next());
      if (!batch)
        return Status::OK();
      if (batch->num_rows() == 0)
        continue;
      SHOAL_RETURN_IF_ERROR(ConsumeBatch(*batch));
      int64_t bytes =
          CapacityBytes(groups_) + CapacityBytes(selection_) + CapacityBytes(distinct_groups_);
      if (grouper_)
        bytes += grouper_->MemoryBytes();
      for (const AggregateState& agg : aggregates_) {
        bytes += agg.accumulator->MemoryBytes();
        if (agg.distinct)
          bytes += agg.distinct->MemoryBytes();
      }
      Status st = reservation_.Resize(bytes);
      if (!st.ok())
        return std::move(st).WithContext("hash aggregation (spilling is not implemented yet)");
    }
  }

  Status ConsumeBatch(const RecordBatch& batch) {
    const int64_t n = batch.num_rows();
    const bool final = node_->mode() == AggregateMode::kFinal;
    if (grouper_) {
      std::vector<ArrayPtr> keys;
      if (final) {
        keys.assign(batch.columns().begin(), batch.columns().begin() + num_keys_);
      } else {
        keys.reserve(keys_.size());
        for (auto& eval : keys_) {
          SHOAL_ASSIGN_OR_RETURN(ArrayPtr key, eval->Evaluate(batch));
          keys.push_back(std::move(key));
        }
      }
      SHOAL_ASSIGN_OR_RETURN(keys, DecodeAll(std::move(keys), pool()));
      SHOAL_RETURN_IF_ERROR(grouper_->Consume(keys, n, &groups_));
      ResizeStates(grouper_->num_groups());
    } else {
      groups_.assign(static_cast<size_t>(n), 0);
    }
    for (AggregateState& agg : aggregates_) {
      GroupedRows rows{groups_.data(), nullptr, n};
      if (final) {
        std::vector<ArrayPtr> states(
            batch.columns().begin() + agg.first_state_column,
            batch.columns().begin() + agg.first_state_column + agg.num_states);
        SHOAL_RETURN_IF_ERROR(agg.accumulator->Merge(states, rows));
        continue;
      }
      std::vector<ArrayPtr> args;
      args.reserve(agg.args.size());
      for (auto& eval : agg.args) {
        SHOAL_ASSIGN_OR_RETURN(ArrayPtr arg, eval->Evaluate(batch));
        args.push_back(std::move(arg));
      }
      SHOAL_ASSIGN_OR_RETURN(args, DecodeAll(std::move(args), pool()));
      if (agg.filter) {
        selection_.clear();
        SHOAL_RETURN_IF_ERROR(agg.filter->Select(batch, &selection_));
        rows.rows = selection_.data();
        rows.count = static_cast<int64_t>(selection_.size());
      }
      if (agg.distinct)
        SHOAL_RETURN_IF_ERROR(KeepFirstOccurrences(&agg, args, &rows));
      if (rows.count > 0)
        SHOAL_RETURN_IF_ERROR(agg.accumulator->Update(args, rows));
    }
    return Status::OK();
  }

  // Narrows `rows` to those whose (group, arguments) pair the DISTINCT table has not seen.
  Status KeepFirstOccurrences(AggregateState* agg, const std::vector<ArrayPtr>& args,
                              GroupedRows* rows) {
    const int64_t m = rows->count;
    // The pairs are built over the selected rows only, so that rows a FILTER rejects never mark a
    // pair as seen.
    std::vector<uint32_t> selected_groups(static_cast<size_t>(m));
    std::vector<ArrayPtr> keys;
    if (rows->rows) {
      for (int64_t i = 0; i < m; ++i)
        selected_groups[static_cast<size_t>(i)] = groups_[static_cast<size_t>(rows->rows[i])];
      for (const ArrayPtr& arg : args) {
        SHOAL_ASSIGN_OR_RETURN(ArrayPtr taken, Take(*arg, rows->rows, m, pool()));
        keys.push_back(std::move(taken));
      }
    } else {
      std::copy(groups_.begin(), groups_.begin() + m, selected_groups.begin());
      keys = args;
    }
    auto group_buffer =
        columnar::Buffer::Wrap(reinterpret_cast<const uint8_t*>(selected_groups.data()),
                               m * static_cast<int64_t>(sizeof(uint32_t)), nullptr);
    keys.insert(keys.begin(), Array::Make(DataType::UInt32(), m, {nullptr, group_buffer}, 0));
    const int64_t before = agg->distinct->num_groups();
    SHOAL_RETURN_IF_ERROR(agg->distinct->Consume(keys, m, &distinct_groups_));
    std::vector<uint8_t> first(static_cast<size_t>(agg->distinct->num_groups() - before), 0);
    selection_.clear();
    for (int64_t i = 0; i < m; ++i) {
      const int64_t d = distinct_groups_[static_cast<size_t>(i)];
      if (d >= before && !first[static_cast<size_t>(d - before)]) {
        first[static_cast<size_t>(d - before)] = 1;
        selection_.push_back(rows->rows ? rows->rows[i] : static_cast<int32_t>(i));
      }
    }
    rows->rows = selection_.data();
    rows->count = static_cast<int64_t>(selection_.size());
    return Status::OK();
  }

  const HashAggregateExec* node_;
  StreamPtr input_;
  MemoryReservation reservation_;
  int num_keys_ = 0;
  std::vector<std::unique_ptr<ExprEvaluator>> keys_;
  std::unique_ptr<Grouper> grouper_;
  std::vector<AggregateState> aggregates_;
  std::vector<uint32_t> groups_;
  std::vector<uint32_t> distinct_groups_;
  SelectionVector selection_;
  int64_t emitted_ = 0;
};

}  // namespace

const char* AggregateModeName(AggregateMode mode) {
  switch (mode) {
    case AggregateMode::kSingle: return "single";
    case AggregateMode::kPartial: return "partial";
    case AggregateMode::kFinal: return "final";
  }
  return "?";
}

Result<SchemaPtr> HashAggregateExec::PartialSchema(const std::vector<sql::ExprPtr>& group_by,
                                                   const std::vector<sql::ExprPtr>& aggregates) {
  return DeriveSchema(group_by, aggregates, /*partial=*/true);
}

Result<std::shared_ptr<HashAggregateExec>> HashAggregateExec::Make(
    ExecPlanPtr input, std::vector<sql::ExprPtr> group_by, std::vector<sql::ExprPtr> aggregates,
    AggregateMode mode, SchemaPtr output_schema) {
  if (!input)
    return Status::Internal("HashAggregate without an input");
  for (const auto& agg : aggregates) {
    if (!agg || agg->kind != sql::ExprKind::kAggregate)
      return Status::Internal("HashAggregate expects aggregate expressions");
    if (agg->distinct && mode != AggregateMode::kSingle)
      return Status::NotImplemented(
          "DISTINCT aggregates in {} mode (aggregate on the keys and the value first)",
          AggregateModeName(mode));
    if (!agg->order_by.empty())
      return Status::NotImplemented("ORDER BY inside {}()", agg->name);
    // Fail at planning time for unsupported functions and argument types.
    SHOAL_RETURN_IF_ERROR(MakeAccumulator(*WithDecodedArgs(agg)).status());
  }
  const Schema& in = *input->schema();
  if (mode == AggregateMode::kFinal) {
    SHOAL_ASSIGN_OR_RETURN(SchemaPtr partial, PartialSchema(group_by, aggregates));
    if (!SameTypes(*partial, in))
      return Status::Internal("final aggregation input {} does not match the partial schema {}",
                              in.ToString(), partial->ToString());
  } else {
    for (const auto& key : group_by)
      SHOAL_RETURN_IF_ERROR(ExprEvaluator::Make(key, in, DefaultMemoryPool()).status());
    for (const auto& agg : aggregates) {
      for (const auto& arg : agg->args)
        SHOAL_RETURN_IF_ERROR(ExprEvaluator::Make(arg, in, DefaultMemoryPool()).status());
      if (agg->filter)
        SHOAL_RETURN_IF_ERROR(ExprEvaluator::Make(agg->filter, in, DefaultMemoryPool()).status());
    }
  }
  SHOAL_ASSIGN_OR_RETURN(SchemaPtr derived,
                         DeriveSchema(group_by, aggregates, mode == AggregateMode::kPartial));
  if (output_schema) {
    if (!SameTypes(*output_schema, *derived) ||
        output_schema->num_fields() != derived->num_fields())
      return Status::Internal("HashAggregate output schema {} does not match {}",
                              output_schema->ToString(), derived->ToString());
  } else {
    output_schema = std::move(derived);
  }
  return std::shared_ptr<HashAggregateExec>(
      new HashAggregateExec(std::move(input), std::move(group_by), std::move(aggregates), mode,
                            std::move(output_schema)));
}

Result<ExecPlanPtr> HashAggregateExec::WithNewChildren(std::vector<ExecPlanPtr> children) const {
  if (children.size() != 1)
    return Status::Internal("HashAggregate takes one child");
  SHOAL_ASSIGN_OR_RETURN(auto node,
                         Make(std::move(children[0]), group_by_, aggregates_, mode_, schema()));
  return ExecPlanPtr(std::move(node));
}

Partitioning HashAggregateExec::output_partitioning() const {
  Partitioning in = input_->output_partitioning();
  if (in.kind == PartitioningKind::kSingle)
    return in;
  return Partitioning::Unknown(in.num_partitions);
}

Result<StreamPtr> HashAggregateExec::Execute(int partition,
                                             const std::shared_ptr<TaskContext>& context) const {
  SHOAL_ASSIGN_OR_RETURN(StreamPtr input, input_->Execute(partition, context));
  auto stream = std::make_unique<HashAggregateStream>(this, partition, context, std::move(input));
  SHOAL_RETURN_IF_ERROR(stream->Init(*input_->schema()));
  return StreamPtr(std::move(stream));
}

std::string HashAggregateExec::Describe(bool) const {
  std::string out = fmt::format("mode={}", AggregateModeName(mode_));
  if (!group_by_.empty())
    out += fmt::format(", keys=[{}]", ExprListText(group_by_));
  out += fmt::format(", aggregates=[{}]", ExprListText(aggregates_));
  return out;
}

}  // namespace shoal::exec
