// Join reordering: each maximal tree of inner joins is flattened into its relations (the inputs
// that are not inner joins) and its conditions, then rebuilt in the order with the least
// estimated intermediate rows. Up to kMaxDpRelations relations, dynamic programming over the
// connected subsets finds the best bushy tree (DPsub with a connectivity test before any costing,
// so only connected pairs are costed); beyond that, greedy operator ordering (GOO, Fegaras 1998)
// repeatedly joins the connected pair with the smallest estimated result, which costs O(n^3)
// pair estimates and handles any size up to kMaxRelations (one bit per relation). Only pairs of
// subsets joined by an equality are considered, so a cross join is built only when the relations
// are not connected at all. Column equalities form equivalence classes (a = b and b = c let a's and
// c's relations join on a = c), which both connects more orders and stops transitive equalities
// from being counted twice in the estimates.
//
// Build sides: the execution engine builds its hash table from the RIGHT input of a join, so each
// join puts the input with fewer estimated rows on the right.
//
// Conditions that are not usable keys are applied as residual conditions of the lowest join that
// sees all their columns. The rebuilt tree's columns are put back in their original order by a
// pass-through projection when that order changed (projection pruning removes it where parents
// refer to columns by id anyway).
#include <algorithm>
#include <map>

#include "shoal/sql/optimizer/cardinality_estimator.h"
#include "shoal/sql/optimizer/decorrelation.h"
#include "shoal/sql/optimizer/optimizer.h"
#include "shoal/sql/optimizer/plan_util.h"

namespace shoal::sql::optimizer {

namespace {

// 3^12 (531,441) subset pairs are tested for connectivity at most; only connected ones are costed.
constexpr size_t kMaxDpRelations = 12;
constexpr size_t kMaxRelations = 64;

using Mask = uint64_t;

Mask FullMask(size_t n) {
  return n >= 64 ? ~Mask{0} : (Mask{1} << n) - 1;
}

bool IsInnerJoin(const LogicalPlan& plan) {
  return plan.kind == LogicalKind::kJoin && plan.join_type == JoinType::kInner;
}

int PopCount(Mask m) {
  return __builtin_popcountll(m);
}

struct Member {
  ColumnId id;
  int relation;
  ExprPtr expr;
};

struct EquiCondition {
  ExprPtr left;
  ExprPtr right;
  Mask left_mask;
  Mask right_mask;
};

struct Residual {
  ExprPtr expr;
  Mask mask;
};

class TreeReorderer {
 public:
  TreeReorderer(std::vector<LogicalPlanPtr> relations, JoinOrderingStats* stats)
      : relations_(std::move(relations)), stats_(stats) {}

  LogicalPlanPtr Build(const std::vector<ExprPtr>& conditions);

 private:
  struct Split {
    std::vector<ExprPtr> left_keys;  // over the first subset
    std::vector<ExprPtr> right_keys;
    std::vector<ExprPtr> residual;
    double selectivity = 1;
  };

  Mask MaskOf(const ExprPtr& e) const;
  void Classify(const std::vector<ExprPtr>& conditions);
  // Whether some equality could join `a` with `b` (cheap; Connect builds the keys).
  bool Connected(Mask a, Mask b) const;
  LogicalPlanPtr BuildDynamic(Mask full);
  LogicalPlanPtr BuildGoo();
  Split Connect(Mask a, Mask b, double rows_a, double rows_b) const;
  LogicalPlanPtr Join(Mask a, LogicalPlanPtr pa, double rows_a, Mask b, LogicalPlanPtr pb,
                      double rows_b);
  LogicalPlanPtr BuildBest(Mask s);
  LogicalPlanPtr BuildGreedy(const std::vector<Mask>& parts);

  std::vector<LogicalPlanPtr> relations_;
  std::map<ColumnId, int> relation_of_;
  std::vector<std::vector<Member>> classes_;
  std::vector<EquiCondition> equi_;
  std::vector<Residual> residual_;
  CardinalityEstimator estimator_;
  std::vector<double> rows_;
  std::vector<double> cost_;
  std::vector<Mask> split_;
  std::vector<Mask> class_masks_;
  JoinOrderingStats* stats_;
};

Mask TreeReorderer::MaskOf(const ExprPtr& e) const {
  Mask full = FullMask(relations_.size());
  Mask m = 0;
  for (ColumnId id : ExprColumns(e)) {
    auto it = relation_of_.find(id);
    if (it == relation_of_.end())
      return full;
    m |= Mask{1} << it->second;
  }
  return m == 0 ? full : m;  // constant conditions go to the top
}

void TreeReorderer::Classify(const std::vector<ExprPtr>& conditions) {
  // Union-find over column ids for equalities between plain columns of different relations.
  std::map<ColumnId, ColumnId> parent;
  std::map<ColumnId, ExprPtr> exprs;
  std::function<ColumnId(ColumnId)> find = [&](ColumnId x) {
    auto it = parent.find(x);
    if (it == parent.end() || it->second == x)
      return x;
    ColumnId root = find(it->second);
    parent[x] = root;
    return root;
  };
  auto is_column = [](const ExprPtr& e) {
    return e->kind == ExprKind::kColumnRef && e->outer_depth == 0;
  };
  for (const auto& c : conditions) {
    bool equality =
        c->kind == ExprKind::kCall && c->name == "=" && c->args.size() == 2 && !ContainsSubquery(c);
    if (equality) {
      const ExprPtr& a = c->args[0];
      const ExprPtr& b = c->args[1];
      Mask ma = MaskOf(a);
      Mask mb = MaskOf(b);
      if (is_column(a) && is_column(b) && a->type == b->type && PopCount(ma) == 1 &&
          PopCount(mb) == 1 && ma != mb) {
        for (const auto& x : {a, b}) {
          parent.emplace(x->column, x->column);
          exprs.emplace(x->column, x);
        }
        parent[find(a->column)] = find(b->column);
        continue;
      }
      if ((ma & mb) == 0) {
        equi_.push_back({a, b, ma, mb});
        continue;
      }
    }
    residual_.push_back({c, MaskOf(c)});
  }
  std::map<ColumnId, size_t> class_of_root;
  for (const auto& [id, unused] : parent) {
    ColumnId root = find(id);
    auto [it, inserted] = class_of_root.emplace(root, classes_.size());
    if (inserted)
      classes_.emplace_back();
    classes_[it->second].push_back({id, relation_of_.at(id), exprs.at(id)});
  }
  for (const auto& members : classes_) {
    Mask m = 0;
    for (const auto& member : members)
      m |= Mask{1} << member.relation;
    class_masks_.push_back(m);
  }
  // Two columns of one class in the same relation must be equal before that relation is joined
  // on the class, which compares only one of them.
  for (const auto& members : classes_) {
    for (size_t i = 0; i < members.size(); ++i) {
      for (size_t j = 0; j < i; ++j) {
        if (members[i].relation == members[j].relation) {
          residual_.push_back(
              {MakeCall("=", {members[j].expr, members[i].expr}, DataType::Boolean(),
                        members[i].expr->nullable || members[j].expr->nullable),
               Mask{1} << members[i].relation});
          break;
        }
      }
    }
  }
}

bool TreeReorderer::Connected(Mask a, Mask b) const {
  for (Mask m : class_masks_) {
    if ((m & a) != 0 && (m & b) != 0)
      return true;
  }
  for (const auto& e : equi_) {
    if (((e.left_mask & a) == e.left_mask && (e.right_mask & b) == e.right_mask) ||
        ((e.left_mask & b) == e.left_mask && (e.right_mask & a) == e.right_mask))
      return true;
  }
  return false;
}

TreeReorderer::Split TreeReorderer::Connect(Mask a, Mask b, double rows_a, double rows_b) const {
  Split split;
  for (const auto& members : classes_) {
    const Member* in_a = nullptr;
    const Member* in_b = nullptr;
    double ndv_a = rows_a;
    double ndv_b = rows_b;
    for (const auto& m : members) {
      Mask bit = Mask{1} << m.relation;
      if (a & bit) {
        double d = estimator_.DistinctCount(m.expr, rows_a);
        if (!in_a || d < ndv_a)
          in_a = &m, ndv_a = d;
      } else if (b & bit) {
        double d = estimator_.DistinctCount(m.expr, rows_b);
        if (!in_b || d < ndv_b)
          in_b = &m, ndv_b = d;
      }
    }
    if (in_a && in_b) {
      split.left_keys.push_back(in_a->expr);
      split.right_keys.push_back(in_b->expr);
      split.selectivity /= estimator_.KeyDistinct(in_a->expr, rows_a, in_b->expr, rows_b);
    }
  }
  Mask both = a | b;
  for (const auto& e : equi_) {
    Mask m = e.left_mask | e.right_mask;
    if ((m & both) != m || (m & a) == m || (m & b) == m)
      continue;
    ExprPtr ka, kb;
    if ((e.left_mask & a) == e.left_mask && (e.right_mask & b) == e.right_mask)
      ka = e.left, kb = e.right;
    else if ((e.left_mask & b) == e.left_mask && (e.right_mask & a) == e.right_mask)
      ka = e.right, kb = e.left;
    if (ka) {
      split.left_keys.push_back(ka);
      split.right_keys.push_back(kb);
      split.selectivity /= estimator_.KeyDistinct(ka, rows_a, kb, rows_b);
    } else {
      split.residual.push_back(MakeCall("=", {e.left, e.right}, DataType::Boolean(),
                                        e.left->nullable || e.right->nullable));
    }
  }
  if (split.left_keys.size() > 1)
    split.selectivity = std::max(split.selectivity, 1 / std::max({std::min(rows_a, rows_b), 1.0}));
  for (const auto& r : residual_) {
    if ((r.mask & both) == r.mask && (r.mask & a) != r.mask && (r.mask & b) != r.mask) {
      split.residual.push_back(r.expr);
      split.selectivity *= estimator_.Selectivity(r.expr);
    }
  }
  return split;
}

LogicalPlanPtr TreeReorderer::Join(Mask a, LogicalPlanPtr pa, double rows_a, Mask b,
                                   LogicalPlanPtr pb, double rows_b) {
  // The smaller input is the build side, on the right.
  if (rows_a < rows_b) {
    std::swap(a, b);
    std::swap(pa, pb);
    std::swap(rows_a, rows_b);
  }
  Split split = Connect(a, b, rows_a, rows_b);
  JoinCondition condition{std::move(split.left_keys), std::move(split.right_keys),
                          std::move(split.residual)};
  return MakeJoinNode(JoinType::kInner, std::move(pa), std::move(pb), std::move(condition));
}

LogicalPlanPtr TreeReorderer::BuildBest(Mask s) {
  if (PopCount(s) == 1)
    return relations_[static_cast<size_t>(__builtin_ctzll(s))];
  Mask a = split_[s];
  Mask b = s ^ a;
  return Join(a, BuildBest(a), rows_[a], b, BuildBest(b), rows_[b]);
}

LogicalPlanPtr TreeReorderer::BuildGreedy(const std::vector<Mask>& parts) {
  // Disconnected relations: join the parts, largest first, preferring a part connected to what
  // is built so far; only unconnected parts are cross-joined.
  std::vector<Mask> rest = parts;
  std::sort(rest.begin(), rest.end(), [this](Mask x, Mask y) { return rows_[x] > rows_[y]; });
  Mask built = rest.front();
  LogicalPlanPtr plan = BuildBest(built);
  double rows = rows_[built];
  rest.erase(rest.begin());
  while (!rest.empty()) {
    size_t pick = 0;
    for (size_t i = 0; i < rest.size(); ++i) {
      if (!Connect(built, rest[i], rows, rows_[rest[i]]).left_keys.empty()) {
        pick = i;
        break;
      }
    }
    Mask next = rest[pick];
    rest.erase(rest.begin() + static_cast<long>(pick));
    Split split = Connect(built, next, rows, rows_[next]);
    double joined = rows * rows_[next] * split.selectivity;
    plan = Join(built, plan, rows, next, BuildBest(next), rows_[next]);
    built |= next;
    rows = joined;
  }
  return plan;
}

LogicalPlanPtr TreeReorderer::Build(const std::vector<ExprPtr>& conditions) {
  size_t n = relations_.size();
  for (size_t i = 0; i < n; ++i) {
    for (const auto& c : relations_[i]->output)
      relation_of_[c.id] = static_cast<int>(i);
  }
  Classify(conditions);
  // Conditions on one relation are filters on it.
  std::vector<Residual> kept;
  for (size_t i = 0; i < n; ++i) {
    std::vector<ExprPtr> own;
    for (const auto& r : residual_) {
      if (r.mask == (Mask{1} << i) && n > 1)
        own.push_back(r.expr);
    }
    if (!own.empty()) {
      auto filter = std::make_shared<LogicalPlan>();
      filter->kind = LogicalKind::kFilter;
      filter->predicate = MakeConjunction(own);
      filter->output = relations_[i]->output;
      filter->children.push_back(relations_[i]);
      relations_[i] = filter;
    }
  }
  for (const auto& r : residual_) {
    if (PopCount(r.mask) != 1 || n == 1)
      kept.push_back(r);
  }
  residual_ = std::move(kept);

  Mask full = FullMask(n);
  if (n <= kMaxDpRelations)
    return BuildDynamic(full);
  return BuildGoo();
}

LogicalPlanPtr TreeReorderer::BuildDynamic(Mask full) {
  size_t n = relations_.size();
  rows_.assign(full + 1, -1);
  cost_.assign(full + 1, -1);
  split_.assign(full + 1, 0);
  for (size_t i = 0; i < n; ++i) {
    Mask bit = Mask{1} << i;
    rows_[bit] = std::max(1.0, estimator_.Estimate(relations_[i]));
    cost_[bit] = 0;
  }
  for (Mask s = 1; s <= full; ++s) {
    if (PopCount(s) < 2)
      continue;
    for (Mask a = (s - 1) & s; a > 0; a = (a - 1) & s) {
      Mask b = s ^ a;
      if (a < b || cost_[a] < 0 || cost_[b] < 0 || !Connected(a, b))
        continue;
      Split split = Connect(a, b, rows_[a], rows_[b]);
      if (stats_ != nullptr)
        ++stats_->pairs_costed;
      if (split.left_keys.empty())
        continue;
      double rows = std::max(1.0, rows_[a] * rows_[b] * split.selectivity);
      double cost = cost_[a] + cost_[b] + rows + std::min(rows_[a], rows_[b]);
      if (cost_[s] < 0 || cost < cost_[s]) {
        cost_[s] = cost;
        rows_[s] = rows;
        split_[s] = a;
      }
    }
  }
  if (cost_[full] >= 0)
    return BuildBest(full);
  // Not connected: the largest connected subsets (in the DP's sense), then cross joins.
  std::vector<Mask> parts;
  Mask covered = 0;
  std::vector<Mask> candidates;
  for (Mask s = 1; s <= full; ++s) {
    if (cost_[s] >= 0)
      candidates.push_back(s);
  }
  std::sort(candidates.begin(), candidates.end(),
            [](Mask x, Mask y) { return PopCount(x) > PopCount(y); });
  for (Mask s : candidates) {
    if ((s & covered) == 0) {
      parts.push_back(s);
      covered |= s;
    }
  }
  return BuildGreedy(parts);
}

LogicalPlanPtr TreeReorderer::BuildGoo() {
  // Greedy operator ordering: every step joins the connected pair of parts with the fewest
  // estimated result rows (ties: the cheaper build side); parts that no equality connects are
  // cross-joined last, smallest first.
  struct Part {
    Mask mask;
    LogicalPlanPtr plan;
    double rows;
  };
  std::vector<Part> parts;
  for (size_t i = 0; i < relations_.size(); ++i) {
    parts.push_back(
        {Mask{1} << i, relations_[i], std::max(1.0, estimator_.Estimate(relations_[i]))});
  }
  while (parts.size() > 1) {
    size_t best_i = 0;
    size_t best_j = 0;
    double best_rows = -1;
    double best_build = 0;
    for (size_t i = 0; i < parts.size(); ++i) {
      for (size_t j = i + 1; j < parts.size(); ++j) {
        if (!Connected(parts[i].mask, parts[j].mask))
          continue;
        Split split = Connect(parts[i].mask, parts[j].mask, parts[i].rows, parts[j].rows);
        if (stats_ != nullptr)
          ++stats_->pairs_costed;
        if (split.left_keys.empty())
          continue;
        double rows = std::max(1.0, parts[i].rows * parts[j].rows * split.selectivity);
        double build = std::min(parts[i].rows, parts[j].rows);
        if (best_rows < 0 || rows < best_rows || (rows == best_rows && build < best_build)) {
          best_rows = rows;
          best_build = build;
          best_i = i;
          best_j = j;
        }
      }
    }
    if (best_rows < 0) {
      // Nothing connects the parts any more: cross-join the two smallest.
      std::sort(parts.begin(), parts.end(),
                [](const Part& x, const Part& y) { return x.rows < y.rows; });
      best_i = 0;
      best_j = 1;
      Split split = Connect(parts[0].mask, parts[1].mask, parts[0].rows, parts[1].rows);
      best_rows = std::max(1.0, parts[0].rows * parts[1].rows * split.selectivity);
    }
    Part& a = parts[best_i];
    Part& b = parts[best_j];
    Part merged{a.mask | b.mask, Join(a.mask, a.plan, a.rows, b.mask, b.plan, b.rows), best_rows};
    parts[best_i] = std::move(merged);
    parts.erase(parts.begin() + static_cast<std::ptrdiff_t>(best_j));
  }
  return parts.front().plan;
}

void Flatten(const LogicalPlanPtr& plan, std::vector<LogicalPlanPtr>* relations,
             std::vector<ExprPtr>* conditions,
             const std::function<LogicalPlanPtr(const LogicalPlanPtr&)>& reorder) {
  if (!IsInnerJoin(*plan)) {
    relations->push_back(reorder(plan));
    return;
  }
  Flatten(plan->children[0], relations, conditions, reorder);
  Flatten(plan->children[1], relations, conditions, reorder);
  for (size_t i = 0; i < plan->left_keys.size(); ++i) {
    const auto& l = plan->left_keys[i];
    const auto& r = plan->right_keys[i];
    conditions->push_back(MakeCall("=", {l, r}, DataType::Boolean(), l->nullable || r->nullable));
  }
  for (const auto& c : SplitConjunction(plan->predicate))
    conditions->push_back(c);
}

LogicalPlanPtr Reorder(const LogicalPlanPtr& plan, JoinOrderingStats* stats) {
  auto recurse = [stats](const LogicalPlanPtr& p) { return Reorder(p, stats); };
  if (!IsInnerJoin(*plan)) {
    auto node = plan->Clone();
    for (auto& child : node->children)
      child = recurse(child);
    return node;
  }
  std::vector<LogicalPlanPtr> relations;
  std::vector<ExprPtr> conditions;
  Flatten(plan, &relations, &conditions, recurse);
  if (relations.size() > kMaxRelations) {
    auto node = plan->Clone();
    for (auto& child : node->children)
      child = recurse(child);
    return node;
  }
  TreeReorderer reorderer(std::move(relations), stats);
  LogicalPlanPtr rebuilt = reorderer.Build(conditions);
  if (SameColumnIds(rebuilt->output, plan->output))
    return rebuilt;
  return MakeIdentityProjection(rebuilt, plan->output);
}

class JoinReorderingRule : public OptimizerRule {
 public:
  const char* name() const override { return "join_reordering"; }

  Result<LogicalPlanPtr> Apply(const LogicalPlanPtr& plan, OptimizerContext&) const override {
    return Reorder(plan, nullptr);
  }
};

}  // namespace

LogicalPlanPtr ReorderJoins(const LogicalPlanPtr& plan, JoinOrderingStats* stats) {
  return Reorder(plan, stats);
}

std::unique_ptr<OptimizerRule> MakeJoinReorderingRule() {
  return std::make_unique<JoinReorderingRule>();
}

}  // namespace shoal::sql::optimizer
