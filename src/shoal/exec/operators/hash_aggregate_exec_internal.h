// Internal to HashAggregateExec: the stream that aggregates one partition (grouping, DISTINCT,
// and the partitioned spill of partial states when memory runs short; see hash_aggregate_exec.h),
// kept apart from the operator's planning code in hash_aggregate_exec.cc. Only
// hash_aggregate_exec.cc and hash_aggregate_stream.cc include it.
#pragma once

#include <memory>

#include "shoal/exec/operators/hash_aggregate_exec.h"

namespace shoal::exec {

/// The aggregate as its accumulator sees it: dictionary arguments decoded.
sql::ExprPtr WithDecodedArgs(const sql::ExprPtr& agg);

/// The stream of `partition` of `node`, aggregating `input` (whose schema is the node's input's).
Result<StreamPtr> MakeHashAggregateStream(const HashAggregateExec* node, int partition,
                                          std::shared_ptr<TaskContext> context, StreamPtr input,
                                          const columnar::Schema& input_schema);

}  // namespace shoal::exec
