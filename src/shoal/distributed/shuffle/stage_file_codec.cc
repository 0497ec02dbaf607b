#include "shoal/distributed/shuffle/stage_file_codec.h"

#include "shoal/distributed/codec/expr_codec.h"
#include "shoal/distributed/codec/type_codec.h"

namespace shoal::distributed::shuffle {

Status EncodeStageFile(const StageFileExec& node, proto::ShuffleStageFileProto* out) {
  out->set_shuffle_dir(node.dir());
  out->set_stage_id(node.stage_id());
  out->set_compression(node.compression());
  out->set_map_tasks(node.map_tasks());
  EncodeSchema(*node.schema(), out->mutable_schema());
  return EncodePartitioning(node.output_partitioning(), out->mutable_partitioning());
}

Result<exec::ExecPlanPtr> DecodeStageFile(const proto::ShuffleStageFileProto& in,
                                          exec::ExecPlanPtr child) {
  if (in.shuffle_dir().empty())
    return Status::InvalidData("encoded plan: shuffle stage {} without a directory", in.stage_id());
  SHOAL_ASSIGN_OR_RETURN(columnar::SchemaPtr schema, DecodeSchema(in.schema()));
  if (schema->fields() != child->schema()->fields())
    return Status::InvalidData("encoded plan: shuffle stage {} declares schema ({}) over ({})",
                               in.stage_id(), schema->ToString(), child->schema()->ToString());
  SHOAL_ASSIGN_OR_RETURN(exec::Partitioning partitioning, DecodePartitioning(in.partitioning()));
  auto node = StageFileExec::Make(std::move(child), in.shuffle_dir(), in.stage_id(),
                                  std::move(partitioning), in.compression(),
                                  in.map_tasks() == 0 ? 1 : in.map_tasks());
  if (!node.ok())
    return Status::InvalidData("encoded plan: {}", node.status().UserMessage());
  return exec::ExecPlanPtr(std::move(node).MoveValueUnsafe());
}

}  // namespace shoal::distributed::shuffle
