// Internal to HashJoinExec: the stream that runs one partition of a hash join (build, probe,
// unmatched-row emission and the grace-join spill path), kept apart from the operator's planning
// code in hash_join_exec.cc (the stream itself is in hash_join_stream.cc). Only those two files
// include it.
#pragma once

#include <memory>

#include "shoal/exec/join/build_input.h"
#include "shoal/exec/join/shared_build.h"
#include "shoal/exec/operators/hash_join_exec.h"

namespace shoal::exec {

// Join types whose output rows are (probe row, build row) pairs.
inline bool EmitsPairs(sql::JoinType t) {
  return t == sql::JoinType::kInner || t == sql::JoinType::kLeft || t == sql::JoinType::kRight ||
         t == sql::JoinType::kFull;
}

inline bool KeepsUnmatchedProbe(sql::JoinType t) {
  return t == sql::JoinType::kLeft || t == sql::JoinType::kFull;
}

inline bool KeepsUnmatchedBuild(sql::JoinType t) {
  return t == sql::JoinType::kRight || t == sql::JoinType::kFull;
}

// Right semi and anti joins: the output is build rows, chosen by whether any probe row matched
// them, emitted once the whole probe side is done.
inline bool EmitsBuildRows(sql::JoinType t) {
  return t == sql::JoinType::kRightSemi || t == sql::JoinType::kRightAnti;
}

// Join types that record which build rows matched: their output needs the whole probe side.
inline bool TracksBuildMatches(sql::JoinType t) {
  return KeepsUnmatchedBuild(t) || EmitsBuildRows(t);
}

/// The stream of `partition` of `node`, probing with `probe`; `shared` is the collect-build
/// side shared by all partitions (null in the partitioned mode, where each builds its own).
Result<StreamPtr> MakeHashJoinStream(const HashJoinExec* node, int partition,
                                     std::shared_ptr<TaskContext> context, StreamPtr probe,
                                     std::shared_ptr<SharedBuild<JoinBuildSide>> shared);

}  // namespace shoal::exec
