#include "shoal/distributed/codec/plan_codec.h"

#include <climits>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <google/protobuf/io/coded_stream.h>

namespace shoal::distributed {

Result<std::string> EncodePlan(const exec::ExecPlanPtr& plan, const TableCodecRegistry& codecs) {
  proto::EncodedPlan encoded;
  NodeEncoder encoder(NodeCodecRegistry::Builtin(), codecs);
  SHOAL_RETURN_IF_ERROR(encoder.Encode(*plan, encoded.mutable_root()));
  for (const auto& id : encoder.codec_ids())
    encoded.add_codec_ids(id);
  std::string bytes;
  if (!encoded.SerializeToString(&bytes))
    return Status::Internal("could not serialise an encoded plan");
  return bytes;
}

bool ParseEncodedPlan(const std::string& bytes, proto::EncodedPlan* out) {
  if (bytes.size() > static_cast<size_t>(INT_MAX))
    return false;
  google::protobuf::io::CodedInputStream input(reinterpret_cast<const uint8_t*>(bytes.data()),
                                               static_cast<int>(bytes.size()));
  // The deepest plan the decoders accept: a node is one message level below its parent, and an
  // expression a few levels below its node (kMaxPlanMessageDepth, plan_codec.h).
  input.SetRecursionLimit(kMaxPlanMessageDepth);
  return out->ParseFromCodedStream(&input) && input.ConsumedEntireMessage();
}

Result<exec::ExecPlanPtr> DecodePlan(const std::string& bytes, const PlanDecodeContext& context) {
  proto::EncodedPlan encoded;
  if (!ParseEncodedPlan(bytes, &encoded))
    return Status::InvalidData("encoded plan: not a valid protobuf message ({} bytes)",
                               bytes.size());
  return DecodePlan(encoded, context);
}

Result<exec::ExecPlanPtr> DecodePlan(const proto::EncodedPlan& encoded,
                                     const PlanDecodeContext& context) {
  std::vector<std::string> missing;
  for (const auto& id : encoded.codec_ids()) {
    if (!context.codecs || context.codecs->Find(id) == nullptr)
      missing.push_back(id);
  }
  if (!missing.empty()) {
    std::string list;
    for (const auto& id : missing)
      list += (list.empty() ? "" : ", ") + id;
    std::string known;
    if (context.codecs) {
      for (const auto& id : context.codecs->ids())
        known += (known.empty() ? "" : ", ") + id;
    }
    return Status::NotImplemented("the plan needs codec ids this worker does not have: {}", list)
        .WithHint(fmt::format("this worker has: {}; run workers built with the same extensions",
                              known.empty() ? "none" : known));
  }
  if (!encoded.has_root())
    return Status::InvalidData("encoded plan: no root node");
  NodeDecoder decoder(NodeCodecRegistry::Builtin(), context);
  return decoder.Decode(encoded.root());
}

}  // namespace shoal::distributed
