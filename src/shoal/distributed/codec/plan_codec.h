// PlanCodec: physical plans (exec/) to protobuf (proto/distributed.proto) and back, so the
// coordinator can ship each task its plan.
//
// This file walks the tree; each node kind's message is written and read by its registered node
// codec (node_codec.h), expressions by expr_codec.h, types, schemas and statuses by type_codec.h.
// Table scans ship their table through a TableCodec (table_codec.h) and the ScanUnits of the task,
// grouped by partition, so a worker rebuilds exactly the scan the coordinator planned. Network
// exchanges ship their producer tasks' workers and partition range; the decoder connects them to
// `channels`. The encoded plan lists the table codec ids it needs; decoding refuses a plan that
// needs an id the decoder lacks, naming the missing ids, before anything else is read.
//
// Decoding treats the bytes as untrusted: unknown enum values, missing fields, out-of-range
// column positions and wrong child counts are InvalidData, never a crash (node factories validate
// their expressions against the child schemas).
#pragma once

#include <memory>
#include <string>

#include "shoal/common/result.h"
#include "shoal/distributed/codec/expr_codec.h"
#include "shoal/distributed/codec/node_codec.h"
#include "shoal/distributed/codec/table_codec.h"
#include "shoal/distributed/codec/type_codec.h"
#include "shoal/distributed/proto/distributed.pb.h"
#include "shoal/exec/execution_plan.h"

namespace shoal::distributed {

/// How deep messages may nest in an encoded plan (protobuf's recursion limit when it is parsed):
/// nodes nested to their limit with an expression nested to its own at the bottom. Deeper plans
/// do not parse ("not a valid protobuf message"); see kMaxExprDepth for why the bound matters.
inline constexpr int kMaxPlanMessageDepth = kMaxExprDepth + NodeDecoder::kMaxDepth + 100;

/// The serialised proto::EncodedPlan of `plan`.
Result<std::string> EncodePlan(const exec::ExecPlanPtr& plan, const TableCodecRegistry& codecs);
Result<exec::ExecPlanPtr> DecodePlan(const std::string& bytes, const PlanDecodeContext& context);
/// Parses an encoded plan's bytes, allowing the nesting of the deepest expression the decoder
/// accepts (protobuf's default limit of 100 would refuse ordinary deep expressions).
bool ParseEncodedPlan(const std::string& bytes, proto::EncodedPlan* out);
Result<exec::ExecPlanPtr> DecodePlan(const proto::EncodedPlan& encoded,
                                     const PlanDecodeContext& context);

}  // namespace shoal::distributed
