// JoinType: the kinds of join the binder produces and both joins of the exec layer run (hash and
// nested loop; the right semi and anti joins only the hash join). Its own small header so that exec
// operators need not include the logical plan (sql/logical_plan.h) to name a join type.
#pragma once

#include <cstdint>

namespace shoal::sql {

enum class JoinType : uint8_t {
  kInner,
  kLeft,
  kRight,
  kFull,
  kSemi,           // left rows with a match (EXISTS, IN)
  kAnti,           // left rows without a match (NOT EXISTS)
  kNullAwareAnti,  // NOT IN: no row if the right side has a NULL key, NULL keys on the left drop
  kMark,           // left rows plus a boolean `mark` column (IN / EXISTS in a disjunction or
                   // projection): TRUE when a right row matches (keys equal, residual TRUE);
                   // otherwise NULL when a key of the left row or of some right row is NULL
                   // (IN's three-valued rule, given the right side is non-empty), else FALSE.
                   // EXISTS reads the mark through coalesce(mark, false).
  // Only the physical planner makes these two, from a semi or anti join whose preserved (left)
  // side is the smaller: the hash join then builds on it and probes with the larger side, and the
  // larger side's scans can take the build's runtime filter. The output is the RIGHT (build)
  // side's rows: those a left row matches (each once), or those none matches.
  kRightSemi,
  kRightAnti,
};

/// The name EXPLAIN prints ("Inner", "NullAwareAnti", ...).
constexpr const char* JoinTypeName(JoinType type) {
  switch (type) {
    case JoinType::kInner: return "Inner";
    case JoinType::kLeft: return "Left";
    case JoinType::kRight: return "Right";
    case JoinType::kFull: return "Full";
    case JoinType::kSemi: return "Semi";
    case JoinType::kAnti: return "Anti";
    case JoinType::kNullAwareAnti: return "NullAwareAnti";
    case JoinType::kMark: return "Mark";
    case JoinType::kRightSemi: return "RightSemi";
    case JoinType::kRightAnti: return "RightAnti";
  }
  return "?";
}

}  // namespace shoal::sql
