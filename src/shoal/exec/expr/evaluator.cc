#include "shoal/exec/expr/evaluator.h"

#include <algorithm>
#include <chrono>
#include <set>
#include <string>

#include "shoal/common/stack_depth.h"
#include "shoal/exec/expr/kernel_util.h"

namespace shoal::exec {
namespace {

using kernels::Materialize;

class ColumnNode final : public EvalNode {
 public:
  ColumnNode(DataType type, int index) : EvalNode(std::move(type)), index_(index) {}

  Result<Datum> Eval(const EvalInput& input, KernelContext*) override {
    const ArrayPtr& column = (*input.columns)[static_cast<size_t>(index_)];
    SHOAL_CHECK(column != nullptr, "column #{} not provided to the evaluator", index_);
    return Datum::Array(column);
  }

 private:
  int index_;
};

class LiteralNode final : public EvalNode {
 public:
  explicit LiteralNode(ArrayPtr value) : EvalNode(value->type()), value_(std::move(value)) {}

  Result<Datum> Eval(const EvalInput&, KernelContext*) override { return Datum::Scalar(value_); }

 private:
  ArrayPtr value_;
};

class CallNode final : public EvalNode {
 public:
  CallNode(DataType type, KernelPtr kernel, std::vector<std::unique_ptr<EvalNode>> args)
      : EvalNode(std::move(type)), kernel_(std::move(kernel)), args_(std::move(args)) {}

  Result<Datum> Eval(const EvalInput& input, KernelContext* ctx) override {
    SHOAL_CHECK_STACK_DEPTH();
    values_.clear();
    for (auto& arg : args_) {
      SHOAL_ASSIGN_OR_RETURN(Datum d, arg->Eval(input, ctx));
      values_.push_back(std::move(d));
    }
    Result<Datum> out = kernel_->Execute(values_, input.length, ctx);
    values_.clear();  // do not hold input arrays between batches
    return out;
  }

 private:
  KernelPtr kernel_;
  std::vector<std::unique_ptr<EvalNode>> args_;
  std::vector<Datum> values_;
};

// The input restricted to `rows` (only the columns in `needed` are gathered).
Result<std::vector<ArrayPtr>> TakeColumns(const EvalInput& input, const std::vector<int>& needed,
                                          const std::vector<int32_t>& rows, KernelContext* ctx) {
  std::vector<ArrayPtr> out(input.columns->size());
  for (int c : needed) {
    const ArrayPtr& column = (*input.columns)[static_cast<size_t>(c)];
    SHOAL_ASSIGN_OR_RETURN(
        out[static_cast<size_t>(c)],
        Take(*column, rows.data(), static_cast<int64_t>(rows.size()), ctx->pool));
  }
  return out;
}

class CaseNode final : public EvalNode {
 public:
  CaseNode(DataType type, std::vector<std::unique_ptr<EvalNode>> whens,
           std::vector<std::unique_ptr<EvalNode>> thens, std::unique_ptr<EvalNode> otherwise,
           std::vector<int> needed)
      : EvalNode(std::move(type)),
        whens_(std::move(whens)),
        thens_(std::move(thens)),
        else_(std::move(otherwise)),
        needed_(std::move(needed)) {}

  Result<Datum> Eval(const EvalInput& input, KernelContext* ctx) override {
    const int64_t n = input.length;
    std::vector<int32_t> remaining(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i)
      remaining[static_cast<size_t>(i)] = static_cast<int32_t>(i);
    bool all_rows = true;
    std::vector<int32_t> positions(static_cast<size_t>(n), -1);
    std::vector<ArrayPtr> parts;
    int32_t produced = 0;
    auto run_branch = [&](EvalNode* node, const std::vector<int32_t>& rows, bool whole) -> Status {
      Datum value;
      if (whole) {
        SHOAL_ASSIGN_OR_RETURN(value, node->Eval(input, ctx));
      } else {
        SHOAL_ASSIGN_OR_RETURN(std::vector<ArrayPtr> columns,
                               TakeColumns(input, needed_, rows, ctx));
        EvalInput sub{&columns, static_cast<int64_t>(rows.size())};
        SHOAL_ASSIGN_OR_RETURN(value, node->Eval(sub, ctx));
      }
      SHOAL_ASSIGN_OR_RETURN(ArrayPtr array,
                             Materialize(value, static_cast<int64_t>(rows.size()), ctx));
      for (size_t k = 0; k < rows.size(); ++k)
        positions[static_cast<size_t>(rows[k])] = produced + static_cast<int32_t>(k);
      produced += static_cast<int32_t>(rows.size());
      parts.push_back(std::move(array));
      return Status::OK();
    };
    for (size_t w = 0; w < whens_.size() && !remaining.empty(); ++w) {
      Datum cond;
      if (all_rows) {
        SHOAL_ASSIGN_OR_RETURN(cond, whens_[w]->Eval(input, ctx));
      } else {
        SHOAL_ASSIGN_OR_RETURN(std::vector<ArrayPtr> columns,
                               TakeColumns(input, needed_, remaining, ctx));
        EvalInput sub{&columns, static_cast<int64_t>(remaining.size())};
        SHOAL_ASSIGN_OR_RETURN(cond, whens_[w]->Eval(sub, ctx));
      }
      SHOAL_ASSIGN_OR_RETURN(ArrayPtr c,
                             Materialize(cond, static_cast<int64_t>(remaining.size()), ctx));
      SelectionVector hit;
      SelectTrue(*c, &hit);
      if (hit.empty())
        continue;
      const bool whole = all_rows && hit.size() == remaining.size();
      std::vector<int32_t> matched(hit.size());
      for (size_t k = 0; k < hit.size(); ++k)
        matched[k] = remaining[static_cast<size_t>(hit[k])];
      SHOAL_RETURN_IF_ERROR(run_branch(thens_[w].get(), matched, whole));
      // Keep the rows not matched, in order.
      std::vector<int32_t> rest;
      rest.reserve(remaining.size() - hit.size());
      size_t h = 0;
      for (size_t k = 0; k < remaining.size(); ++k) {
        if (h < hit.size() && static_cast<size_t>(hit[h]) == k) {
          ++h;
        } else {
          rest.push_back(remaining[k]);
        }
      }
      remaining = std::move(rest);
      all_rows = false;
    }
    if (!remaining.empty() && else_)
      SHOAL_RETURN_IF_ERROR(run_branch(else_.get(), remaining, all_rows));
    if (parts.empty()) {
      SHOAL_ASSIGN_OR_RETURN(ArrayPtr nulls, Array::MakeAllNull(type(), n, ctx->pool));
      return Datum::Array(std::move(nulls));
    }
    if (parts.size() == 1 && parts[0]->length() == n) {
      bool identity = true;
      for (int64_t i = 0; i < n && identity; ++i)
        identity = positions[static_cast<size_t>(i)] == i;
      if (identity)
        return Datum::Array(parts[0]);
    }
    SHOAL_ASSIGN_OR_RETURN(ArrayPtr all, Concatenate(parts, ctx->pool));
    SHOAL_ASSIGN_OR_RETURN(ArrayPtr out,
                           Take(*all, positions.data(), n, ctx->pool, /*allow_null_index=*/true));
    return Datum::Array(std::move(out));
  }

 private:
  std::vector<std::unique_ptr<EvalNode>> whens_;
  std::vector<std::unique_ptr<EvalNode>> thens_;
  std::unique_ptr<EvalNode> else_;
  std::vector<int> needed_;
};

void CollectColumns(const sql::Expr& expr, std::set<int>* out) {
  if (expr.kind == sql::ExprKind::kColumnRef && expr.outer_depth == 0)
    out->insert(static_cast<int>(expr.column));
  for (const auto& arg : expr.args) {
    if (arg)
      CollectColumns(*arg, out);
  }
}

std::vector<int> ColumnsOf(const sql::Expr& expr) {
  std::set<int> set;
  CollectColumns(expr, &set);
  return {set.begin(), set.end()};
}

Result<std::unique_ptr<EvalNode>> Build(const sql::Expr& expr, const columnar::Schema& schema);

Result<std::unique_ptr<EvalNode>> WithCast(std::unique_ptr<EvalNode> node, const DataType& to,
                                           bool try_cast = false) {
  if (node->type() == to || to.id() == TypeId::kNull)
    return node;
  SHOAL_ASSIGN_OR_RETURN(KernelPtr cast, MakeCastKernel(node->type(), to, try_cast));
  std::vector<std::unique_ptr<EvalNode>> args;
  args.push_back(std::move(node));
  return std::unique_ptr<EvalNode>(new CallNode(to, std::move(cast), std::move(args)));
}

std::shared_ptr<sql::Expr> NewCall(std::string name, std::vector<sql::ExprPtr> args,
                                   DataType type) {
  auto e = std::make_shared<sql::Expr>();
  e->kind = sql::ExprKind::kCall;
  e->name = std::move(name);
  e->args = std::move(args);
  e->type = std::move(type);
  return e;
}

Result<std::unique_ptr<EvalNode>> BuildCall(const sql::Expr& expr, const columnar::Schema& schema) {
  if (expr.name == "in") {
    if (expr.args.empty())
      return Status::Internal("IN without operands");
    bool literal_list = true;
    for (size_t i = 1; i < expr.args.size(); ++i)
      literal_list &= expr.args[i]->kind == sql::ExprKind::kLiteral;
    if (!literal_list) {
      // x IN (a, b, ...) with expressions in the list: (x = a) OR (x = b) OR ..., which has the
      // same three-valued semantics.
      std::vector<sql::ExprPtr> terms;
      for (size_t i = 1; i < expr.args.size(); ++i)
        terms.push_back(NewCall("=", {expr.args[0], expr.args[i]}, DataType::Boolean()));
      return Build(*NewCall("or", std::move(terms), DataType::Boolean()), schema);
    }
  }
  std::vector<std::unique_ptr<EvalNode>> args;
  KernelSignature sig;
  sig.result_type = expr.type;
  sig.expr = &expr;
  for (const auto& arg : expr.args) {
    SHOAL_ASSIGN_OR_RETURN(std::unique_ptr<EvalNode> node, Build(*arg, schema));
    sig.arg_types.push_back(node->type());
    args.push_back(std::move(node));
  }
  SHOAL_ASSIGN_OR_RETURN(KernelPtr kernel, KernelRegistry::Global().Make(expr.name, sig));
  DataType type = expr.type;
  if (type.id() == TypeId::kNull && (expr.name == "and" || expr.name == "or" ||
                                     expr.name == "not" || expr.name.rfind("is_", 0) == 0)) {
    type = DataType::Boolean();
  }
  return std::unique_ptr<EvalNode>(new CallNode(type, std::move(kernel), std::move(args)));
}

Result<std::unique_ptr<EvalNode>> Build(const sql::Expr& expr, const columnar::Schema& schema) {
  SHOAL_CHECK_STACK_DEPTH();
  switch (expr.kind) {
    case sql::ExprKind::kColumnRef: {
      if (expr.outer_depth > 0)
        return Status::Internal("correlated column reference reached execution");
      if (expr.column >= static_cast<sql::ColumnId>(schema.num_fields())) {
        return Status::Internal("column #{} out of range for input ({} columns)", expr.column,
                                schema.num_fields());
      }
      const DataType& actual = schema.field(static_cast<int>(expr.column)).type;
      std::unique_ptr<EvalNode> node(new ColumnNode(actual, static_cast<int>(expr.column)));
      // A dictionary-encoded input is decoded where the plan expects plain values.
      if (actual.id() == TypeId::kDictionary && expr.type.id() != TypeId::kDictionary)
        return WithCast(std::move(node), expr.type);
      return node;
    }
    case sql::ExprKind::kLiteral: {
      SHOAL_ASSIGN_OR_RETURN(ArrayPtr value, expr.value.MakeArray(1, DefaultMemoryPool()));
      std::unique_ptr<EvalNode> node(new LiteralNode(std::move(value)));
      if (expr.type.id() != TypeId::kNull && expr.type != node->type())
        return WithCast(std::move(node), expr.type);
      return node;
    }
    case sql::ExprKind::kCast: {
      if (expr.args.size() != 1)
        return Status::Internal("cast without an operand");
      SHOAL_ASSIGN_OR_RETURN(std::unique_ptr<EvalNode> input, Build(*expr.args[0], schema));
      return WithCast(std::move(input), expr.type, expr.try_cast);
    }
    case sql::ExprKind::kCall: return BuildCall(expr, schema);
    case sql::ExprKind::kCase: {
      const size_t pairs = (expr.args.size() - (expr.has_else ? 1 : 0)) / 2;
      std::vector<std::unique_ptr<EvalNode>> whens, thens;
      for (size_t i = 0; i < pairs; ++i) {
        SHOAL_ASSIGN_OR_RETURN(std::unique_ptr<EvalNode> when, Build(*expr.args[2 * i], schema));
        SHOAL_ASSIGN_OR_RETURN(std::unique_ptr<EvalNode> then,
                               Build(*expr.args[2 * i + 1], schema));
        SHOAL_ASSIGN_OR_RETURN(then, WithCast(std::move(then), expr.type));
        whens.push_back(std::move(when));
        thens.push_back(std::move(then));
      }
      std::unique_ptr<EvalNode> otherwise;
      if (expr.has_else) {
        SHOAL_ASSIGN_OR_RETURN(otherwise, Build(*expr.args.back(), schema));
        SHOAL_ASSIGN_OR_RETURN(otherwise, WithCast(std::move(otherwise), expr.type));
      }
      return std::unique_ptr<EvalNode>(new CaseNode(expr.type, std::move(whens), std::move(thens),
                                                    std::move(otherwise), ColumnsOf(expr)));
    }
    case sql::ExprKind::kAggregate:
    case sql::ExprKind::kWindow:
      return Status::Internal("{} expression outside its operator", expr.name);
    case sql::ExprKind::kSubquery: return Status::Internal("subquery reached execution");
  }
  return Status::Internal("unknown expression kind");
}

}  // namespace

struct ExprEvaluator::Conjunct {
  std::unique_ptr<EvalNode> node;
  std::vector<int> columns;
  // Measured since the last reordering: time spent, rows evaluated, rows kept.
  double nanos = 0;
  int64_t rows_in = 0;
  int64_t rows_out = 0;
};

namespace {

// Every this many batches Select re-sorts reorderable conjuncts by measured cost per row
// dropped, so the cheapest, most selective test runs first on every row and the expensive ones
// only on the survivors (the order in the query or from the optimizer is a guess).
constexpr int64_t kReorderInterval = 16;

}  // namespace

bool ExprCannotFail(const sql::Expr& e) {
  switch (e.kind) {
    case sql::ExprKind::kColumnRef:
    case sql::ExprKind::kLiteral: return true;
    case sql::ExprKind::kCall: {
      static const std::set<std::string> kSafe = {"=",
                                                  "<>",
                                                  "<",
                                                  ">",
                                                  "<=",
                                                  ">=",
                                                  "in",
                                                  "like",
                                                  "ilike",
                                                  "not",
                                                  "and",
                                                  "or",
                                                  "is_null",
                                                  "is_not_null",
                                                  "starts_with",
                                                  "is_distinct_from",
                                                  "is_not_distinct_from"};
      if (kSafe.count(e.name) == 0)
        return false;
      for (const auto& a : e.args) {
        if (!ExprCannotFail(*a))
          return false;
      }
      return true;
    }
    default: return false;
  }
}

ExprEvaluator::~ExprEvaluator() = default;

Result<std::unique_ptr<ExprEvaluator>> ExprEvaluator::Make(const sql::ExprPtr& expr,
                                                           const columnar::Schema& input_schema,
                                                           std::shared_ptr<MemoryPool> pool) {
  if (!expr)
    return Status::Internal("null expression");
  std::unique_ptr<ExprEvaluator> ev(new ExprEvaluator());
  ev->ctx_.pool = std::move(pool);
  SHOAL_ASSIGN_OR_RETURN(ev->root_, Build(*expr, input_schema));
  if (expr->kind == sql::ExprKind::kCall && expr->name == "and" && expr->args.size() >= 2) {
    // Flatten nested ANDs so each conjunct can run over the rows its predecessors kept.
    std::vector<const sql::Expr*> stack{expr.get()};
    std::vector<const sql::Expr*> leaves;
    while (!stack.empty()) {
      const sql::Expr* e = stack.back();
      stack.pop_back();
      if (e->kind == sql::ExprKind::kCall && e->name == "and") {
        for (auto it = e->args.rbegin(); it != e->args.rend(); ++it)
          stack.push_back(it->get());
      } else {
        leaves.push_back(e);
      }
    }
    ev->reorderable_ = true;
    for (const sql::Expr* leaf : leaves) {
      Conjunct c;
      SHOAL_ASSIGN_OR_RETURN(c.node, Build(*leaf, input_schema));
      c.columns = ColumnsOf(*leaf);
      ev->conjuncts_.push_back(std::move(c));
      ev->reorderable_ = ev->reorderable_ && ExprCannotFail(*leaf);
    }
  }
  return ev;
}

const DataType& ExprEvaluator::type() const {
  return root_->type();
}

Result<Datum> ExprEvaluator::EvaluateDatum(const RecordBatch& batch) {
  columns_ = batch.columns();
  EvalInput input{&columns_, batch.num_rows()};
  Result<Datum> out = root_->Eval(input, &ctx_);
  columns_.clear();
  return out;
}

Result<ArrayPtr> ExprEvaluator::Evaluate(const RecordBatch& batch) {
  SHOAL_ASSIGN_OR_RETURN(Datum d, EvaluateDatum(batch));
  return Materialize(d, batch.num_rows(), &ctx_);
}

Status ExprEvaluator::Select(const RecordBatch& batch, SelectionVector* selection) {
  const int64_t n = batch.num_rows();
  if (conjuncts_.empty()) {
    SHOAL_ASSIGN_OR_RETURN(ArrayPtr mask, Evaluate(batch));
    if (mask->type_id() != TypeId::kBoolean && mask->type_id() != TypeId::kNull)
      return Status::TypeError("filter predicate is {}, not boolean", mask->type().ToString());
    SelectTrue(*mask, selection);
    return Status::OK();
  }
  if (reorderable_ && ++batches_ % kReorderInterval == 0) {
    // Rank: nanoseconds per row evaluated over the fraction of rows it drops.
    auto rank = [](const Conjunct& c) {
      if (c.rows_in == 0)
        return 0.0;
      const double cost = c.nanos / static_cast<double>(c.rows_in);
      const double dropped = 1.0 - static_cast<double>(c.rows_out) / static_cast<double>(c.rows_in);
      return cost / std::max(dropped, 1e-6);
    };
    std::stable_sort(conjuncts_.begin(), conjuncts_.end(),
                     [&rank](const Conjunct& a, const Conjunct& b) { return rank(a) < rank(b); });
    for (Conjunct& c : conjuncts_)
      c.nanos = 0, c.rows_in = 0, c.rows_out = 0;
  }
  columns_ = batch.columns();
  SelectionVector current;
  bool all = true;
  for (Conjunct& c : conjuncts_) {
    const auto started = std::chrono::steady_clock::now();
    Datum d;
    int64_t rows = all ? n : static_cast<int64_t>(current.size());
    if (all) {
      EvalInput input{&columns_, n};
      SHOAL_ASSIGN_OR_RETURN(d, c.node->Eval(input, &ctx_));
    } else {
      SHOAL_ASSIGN_OR_RETURN(std::vector<ArrayPtr> columns,
                             TakeColumns(EvalInput{&columns_, n}, c.columns, current, &ctx_));
      EvalInput input{&columns, rows};
      SHOAL_ASSIGN_OR_RETURN(d, c.node->Eval(input, &ctx_));
    }
    SHOAL_ASSIGN_OR_RETURN(ArrayPtr mask, Materialize(d, rows, &ctx_));
    if (mask->type_id() != TypeId::kBoolean && mask->type_id() != TypeId::kNull)
      return Status::TypeError("filter predicate is {}, not boolean", mask->type().ToString());
    SelectionVector hit;
    SelectTrue(*mask, &hit);
    if (all) {
      current = std::move(hit);
    } else {
      for (size_t k = 0; k < hit.size(); ++k)
        hit[k] = current[static_cast<size_t>(hit[k])];
      current = std::move(hit);
    }
    all = false;
    c.nanos += std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - started)
                   .count();
    c.rows_in += rows;
    c.rows_out += static_cast<int64_t>(current.size());
    if (current.empty())
      break;
  }
  columns_.clear();
  selection->insert(selection->end(), current.begin(), current.end());
  return Status::OK();
}

Result<std::vector<std::unique_ptr<ExprEvaluator>>> MakeEvaluators(
    const std::vector<sql::ExprPtr>& exprs, const columnar::Schema& input_schema,
    const std::shared_ptr<MemoryPool>& pool) {
  std::vector<std::unique_ptr<ExprEvaluator>> out;
  for (const auto& e : exprs) {
    SHOAL_ASSIGN_OR_RETURN(auto ev, ExprEvaluator::Make(e, input_schema, pool));
    out.push_back(std::move(ev));
  }
  return out;
}

}  // namespace shoal::exec
