// Mutation test of the plan decoder (distributed/codec/plan_codec.h): the encoded stage plans of
// TPC-H queries and other statements, as the coordinator sends them to workers (recorded from
// three in-process workers: scans with their units, joins, aggregates, sorts, windows, exchanges,
// expressions and literals of every kind), are corrupted -- bit flips, varints overwritten with
// huge lengths and counts, truncation, removed, duplicated and spliced ranges (also from other
// plans), messages nested far past the decoder's limits -- and decoded as a worker decodes them.
// Each must decode or be refused with a Status that says what is wrong; a crash, a sanitizer
// report, a hang, an allocation the bytes chose, or kInternal fails the test. Decoded plans are
// formatted (EXPLAIN) to touch everything the decoder built.
//
// Deterministic: SHOAL_FUZZ_SEED (default 20261202) and SHOAL_FUZZ_ITERATIONS (default 3000).
// Run under ASan + UBSan in CI (label `fuzz`).
#include <string>
#include <vector>

#include <fmt/format.h>

#include "shoal/common/stack_depth.h"
#include "shoal/distributed/codec/expr_codec.h"
#include "shoal/distributed/codec/node_codec.h"
#include "shoal/distributed/codec/plan_codec.h"
#include "shoal/engine/settings_catalog.h"
#include "tests/fuzz/distributed_corpus.h"
#include "tests/fuzz/proto_mutator.h"
#include "tests/support/mutation_harness.h"

namespace shoal::distributed {
namespace {

using shoal::testing::MutationHarness;
using shoal::testing::MutationStats;

struct Input {
  std::string name;
  std::string bytes;
};

// Refusals must say what is wrong; kInternal is a bug and kOutOfMemory an allocation the bytes
// chose.
bool Acceptable(const Status& st) {
  return st.ok() || (st.code() != StatusCode::kInternal && st.code() != StatusCode::kOutOfMemory &&
                     !st.message().empty());
}

Status Decode(const std::string& bytes, const PlanDecodeContext& context, MutationStats* stats) {
  SHOAL_ASSIGN_OR_RETURN(exec::ExecPlanPtr plan, DecodePlan(bytes, context));
  ++stats->batches;
  (void)exec::FormatExecutionPlan(*plan, true);
  return Status::OK();
}

// An expression nested `depth` levels (each a function call of the last), as raw protobuf bytes
// of an encoded plan whose root filter holds it.
std::string DeepExpressionPlan(int depth) {
  proto::ExprProto leaf;
  leaf.set_kind(static_cast<uint32_t>(sql::ExprKind::kLiteral));
  leaf.mutable_type()->set_id(1);
  const std::string e = fuzz::NestField(7, leaf.SerializeAsString(), depth);  // ExprProto.args
  std::string filter = fuzz::WrapField(1, e);      // FilterProto.predicate
  std::string node = fuzz::WrapField(12, filter);  // PlanNodeProto.filter
  return fuzz::WrapField(2, node);                 // EncodedPlan.root
}

// Plan nodes nested `depth` levels (each the only child of the last).
std::string DeepNodePlan(int depth) {
  // Each level: children = the last level, then coalesce_partitions = true (field 21, varint).
  const std::string leaf("\xa8\x01\x01", 3);
  return fuzz::WrapField(2, fuzz::NestField(1, leaf, depth, leaf));
}

// A real plan whose first expression is wrapped in `depth` NOT-like calls at the message level.
std::string WrapFirstExpression(const std::string& plan_bytes, int depth) {
  proto::EncodedPlan plan;
  if (!ParseEncodedPlan(plan_bytes, &plan))
    return plan_bytes;
  proto::ExprProto* target = fuzz::FindFirstExpr(plan.mutable_root());
  if (target == nullptr)
    return plan_bytes;
  proto::ExprProto inner = *target;
  for (int i = 0; i < depth; ++i) {
    proto::ExprProto outer;
    outer.set_kind(inner.kind());
    *outer.mutable_type() = inner.type();
    outer.set_name("not");
    *outer.add_args() = std::move(inner);
    inner = std::move(outer);
  }
  *target = std::move(inner);
  return plan.SerializeAsString();
}

}  // namespace
}  // namespace shoal::distributed

int main() {
  using namespace shoal;
  using namespace shoal::distributed;
  if (Status st = engine::RegisterSettings(); !st.ok()) {
    fmt::print(stderr, "plan codec mutation test: {}\n", st.ToString());
    return 1;
  }
  MutationHarness harness("plan codec mutation test", 20261202, 3000);
  std::shared_ptr<sql::Catalog> catalog;
  auto traffic = fuzz::RecordTraffic(SHOAL_TPCH_QUERY_DIR, &catalog);
  if (!traffic.ok()) {
    fmt::print(stderr, "plan codec mutation test: recording the corpus failed: {}\n",
               traffic.status().ToString());
    return 1;
  }
  std::vector<Input> corpus;
  for (const auto& [query, request] : (*traffic)->plans) {
    corpus.push_back({fmt::format("{}/stage {}/task {}", query, request.task_key.stage_id,
                                  request.task_key.task_number),
                      request.encoded_plan});
  }
  PlanDecodeContext context;
  context.codecs = TableCodecRegistry::Builtin(catalog);
  context.channels = InProcessCluster::Make();
  context.refuse_stage_files = true;

  for (const auto& in : corpus)
    harness.clean().Check(Decode(in.bytes, context, &harness.clean()), in.name, {});

  // Nesting at, around and far beyond the limits, and the regression inputs of fixed crashes.
  std::vector<Input> seeds = {
      {"expression nested to the limit", DeepExpressionPlan(kMaxExprDepth)},
      {"expression nested past the limit", DeepExpressionPlan(kMaxExprDepth + 1)},
      {"expression nested 200000 deep", DeepExpressionPlan(200000)},
      {"nodes nested to the limit", DeepNodePlan(NodeDecoder::kMaxDepth)},
      {"nodes nested past the limit", DeepNodePlan(NodeDecoder::kMaxDepth + 1)},
      {"nodes nested 100000 deep", DeepNodePlan(100000)},
      {"messages nested to the parser's limit", DeepExpressionPlan(kMaxPlanMessageDepth - 4)},
      {"messages nested past the parser's limit", DeepExpressionPlan(kMaxPlanMessageDepth)},
  };
  for (auto& [name, bytes] : fuzz::ReadRegressions(SHOAL_FUZZ_REGRESSIONS_DIR))
    seeds.push_back({name, bytes});
  for (const auto& in : corpus) {
    if (in.name.starts_with("q05") || in.name.starts_with("q18"))
      seeds.push_back(
          {in.name + " with a deep expression", WrapFirstExpression(in.bytes, kMaxExprDepth - 5)});
  }
  for (const auto& in : seeds) {
    harness.stats().SetInput(in.name, in.bytes);
    harness.stats().Check(Decode(in.bytes, context, &harness.stats()), in.name, Acceptable);
  }

  fuzz::ProtoMutator mutator(harness.seed(), corpus.size());
  std::vector<std::string> donors;
  for (const auto& in : corpus)
    donors.push_back(in.bytes);
  harness.RunOverCorpus(
      corpus, [&](const Input& in) { return mutator.Mutate(in.bytes, donors); },
      [&](const Input&, const std::string& mutant, const MutationHarness::Iteration& it) {
        ++it.stats->reads;
        it.stats->Check(Decode(mutant, context, it.stats), it.what, Acceptable);
      });
  return harness.Finish({"InvalidData"}, fmt::format("over {} stage plans", corpus.size()));
}
