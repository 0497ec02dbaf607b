#include "shoal/exec/window/segment_tree.h"

#include <limits>
#include <utility>

#include "shoal/exec/aggregate/accumulator.h"
#include "shoal/exec/array_ops.h"

namespace shoal::exec {
namespace {

// The aggregate with its arguments' types as given, as a kAggregate node.
sql::ExprPtr AsAggregate(const sql::Expr& expr) {
  auto copy = std::make_shared<sql::Expr>(expr);
  copy->kind = sql::ExprKind::kAggregate;
  copy->partition_by.clear();
  copy->order_by.clear();
  copy->filter = nullptr;
  copy->distinct = false;
  return copy;
}

int64_t ArraysBytes(const std::vector<columnar::ArrayPtr>& arrays) {
  int64_t bytes = 0;
  for (const auto& a : arrays)
    bytes += a->BufferBytes();
  return bytes;
}

}  // namespace

Result<std::unique_ptr<SegmentTreeAggregator>> SegmentTreeAggregator::Make(
    const sql::Expr& aggregate, const std::vector<columnar::ArrayPtr>& args, const uint8_t* include,
    int64_t num_rows, std::shared_ptr<MemoryPool> pool) {
  if (num_rows >= std::numeric_limits<int32_t>::max() / 2) {
    return Status::NotImplemented(
        "window aggregate over a partition of {} rows (at most 1073741823 rows per partition)",
        num_rows);
  }
  std::unique_ptr<SegmentTreeAggregator> tree(new SegmentTreeAggregator());
  tree->aggregate_ = AsAggregate(aggregate);
  tree->num_rows_ = num_rows;
  tree->pool_ = std::move(pool);
  if (num_rows == 0)
    return tree;

  // Level 0: one group per row.
  std::vector<uint32_t> groups(static_cast<size_t>(num_rows));
  for (int64_t i = 0; i < num_rows; ++i)
    groups[static_cast<size_t>(i)] = static_cast<uint32_t>(i);
  SHOAL_ASSIGN_OR_RETURN(auto leaves, MakeAccumulator(*tree->aggregate_));
  leaves->Resize(num_rows);
  GroupedRows rows;
  rows.groups = groups.data();
  std::vector<int32_t> selected;
  if (include != nullptr) {
    for (int64_t i = 0; i < num_rows; ++i) {
      if (include[i] != 0)
        selected.push_back(static_cast<int32_t>(i));
    }
    rows.rows = selected.data();
    rows.count = static_cast<int64_t>(selected.size());
  } else {
    rows.count = num_rows;
  }
  SHOAL_RETURN_IF_ERROR(leaves->Update(args, rows));
  SHOAL_ASSIGN_OR_RETURN(auto level0, leaves->State(0, num_rows, tree->pool_));
  leaves.reset();
  tree->levels_.push_back(std::move(level0));

  // Each level merges pairs of the one below, until one node is left.
  int64_t width = num_rows;
  while (width > 1) {
    const int64_t parent_width = (width + 1) / 2;
    for (int64_t i = 0; i < width; ++i)
      groups[static_cast<size_t>(i)] = static_cast<uint32_t>(i / 2);
    SHOAL_ASSIGN_OR_RETURN(auto parents, MakeAccumulator(*tree->aggregate_));
    parents->Resize(parent_width);
    GroupedRows pairs;
    pairs.groups = groups.data();
    pairs.count = width;
    SHOAL_RETURN_IF_ERROR(parents->Merge(tree->levels_.back(), pairs));
    SHOAL_ASSIGN_OR_RETURN(auto states, parents->State(0, parent_width, tree->pool_));
    tree->levels_.push_back(std::move(states));
    width = parent_width;
  }
  return tree;
}

Result<columnar::ArrayPtr> SegmentTreeAggregator::Evaluate(const int64_t* starts,
                                                           const int64_t* ends) const {
  const int64_t n = num_rows_;
  SHOAL_ASSIGN_OR_RETURN(auto out, MakeAccumulator(*aggregate_));
  out->Resize(n);
  if (n == 0)
    return out->Finalize(0, 0, pool_);
  // Per row, the part of its frame not yet covered, in node units of the current level.
  std::vector<int64_t> lo(starts, starts + n);
  std::vector<int64_t> hi(ends, ends + n);
  std::vector<int32_t> left_nodes;
  std::vector<uint32_t> left_rows;
  std::vector<int32_t> right_nodes;
  std::vector<uint32_t> right_rows;
  std::vector<columnar::ArrayPtr> gathered;
  auto merge = [&](const std::vector<columnar::ArrayPtr>& level, const std::vector<int32_t>& nodes,
                   const std::vector<uint32_t>& rows) -> Status {
    if (nodes.empty())
      return Status::OK();
    gathered.clear();
    for (const auto& column : level) {
      SHOAL_ASSIGN_OR_RETURN(
          auto g, Take(*column, nodes.data(), static_cast<int64_t>(nodes.size()), pool_));
      gathered.push_back(std::move(g));
    }
    GroupedRows grouped;
    grouped.groups = rows.data();
    grouped.count = static_cast<int64_t>(nodes.size());
    return out->Merge(gathered, grouped);
  };
  for (size_t level = 0; level < levels_.size(); ++level) {
    left_nodes.clear();
    left_rows.clear();
    right_nodes.clear();
    right_rows.clear();
    bool any = false;
    for (int64_t i = 0; i < n; ++i) {
      int64_t l = lo[static_cast<size_t>(i)];
      int64_t r = hi[static_cast<size_t>(i)];
      if (l >= r)
        continue;
      any = true;
      if (l & 1) {
        left_nodes.push_back(static_cast<int32_t>(l));
        left_rows.push_back(static_cast<uint32_t>(i));
        ++l;
      }
      if (r & 1) {
        --r;
        right_nodes.push_back(static_cast<int32_t>(r));
        right_rows.push_back(static_cast<uint32_t>(i));
      }
      lo[static_cast<size_t>(i)] = l >> 1;
      hi[static_cast<size_t>(i)] = r >> 1;
    }
    if (!any)
      break;
    SHOAL_RETURN_IF_ERROR(merge(levels_[level], left_nodes, left_rows));
    SHOAL_RETURN_IF_ERROR(merge(levels_[level], right_nodes, right_rows));
  }
  return out->Finalize(0, n, pool_);
}

int64_t SegmentTreeAggregator::MemoryBytes() const {
  int64_t bytes = 0;
  for (const auto& level : levels_)
    bytes += ArraysBytes(level);
  return bytes;
}

}  // namespace shoal::exec
