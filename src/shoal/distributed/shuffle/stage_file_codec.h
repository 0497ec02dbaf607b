// Plan-codec support for StageFileExec (the PlanNodeProto.shuffle_stage_file message): the plan
// codec (dist/plan_codec.cc) calls these for the node, so the shuffle directory, the stage id, the
// shuffle's partitioning and the compression travel inside the encoded plan.
#pragma once

#include "shoal/distributed/proto/distributed.pb.h"
#include "shoal/distributed/shuffle/stage_file_exec.h"

namespace shoal::distributed::shuffle {

/// The id a process lists among its codec ids when it can encode and decode stage nodes.
inline constexpr char kStageNodeCodecId[] = "shoal.shuffle-stage/1";

Status EncodeStageFile(const StageFileExec& node, proto::ShuffleStageFileProto* out);
/// Untrusted input: a wrong schema, an empty directory or bad keys are InvalidData.
Result<exec::ExecPlanPtr> DecodeStageFile(const proto::ShuffleStageFileProto& in,
                                          exec::ExecPlanPtr child);

}  // namespace shoal::distributed::shuffle
