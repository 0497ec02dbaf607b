// Mutation test of a materialized-shuffle task's input (shuffle/shuffle_task.h): the task
// envelope and the stage plan file `shoal task` reads. Real stages -- TPC-H queries planned on one
// node and cut by the materialized planner, each stage encoded as the driver encodes it, with an
// envelope holding the session (settings, TPC-H scale, target partitions), codec ids, remote stage
// files and data roots -- are corrupted (the envelope or the plan, protobuf-aware) and read with
// PrepareShuffleTask, which checks the envelope and decodes the stage without running it. Each
// must be accepted or refused with a Status that says what is wrong; a crash, a sanitizer report,
// a hang, an allocation the bytes chose or kInternal fails the test.
//
// The envelope's TPC-H scale is the driver's choice (the task regenerates the tables of that
// scale): mutants that change it are not read, since a larger scale is a legitimate, larger task.
//
// Deterministic: SHOAL_FUZZ_SEED (default 20261204) and SHOAL_FUZZ_ITERATIONS (default 2000).
// Run under ASan + UBSan in CI (label `fuzz`).
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <unistd.h>

#include "shoal/distributed/codec/plan_codec.h"
#include "shoal/distributed/shuffle/materialized_planner.h"
#include "shoal/distributed/shuffle/shuffle_task.h"
#include "shoal/distributed/shuffle/stage_file_exec.h"
#include "shoal/engine/settings_catalog.h"
#include "shoal/engine/tpch_tables.h"
#include "shoal/io/tpch/scale.h"
#include "tests/fuzz/proto_mutator.h"
#include "tests/support/mutation_harness.h"
#include "tests/support/plan_rewriting.h"

namespace shoal::distributed::shuffle {
namespace {

namespace fs = std::filesystem;
using shoal::testing::MutationHarness;
using shoal::testing::MutationStats;

struct Input {
  std::string name;
  std::string envelope;  // its plan_path names `plan`'s file
  std::string plan;
};

bool Acceptable(const Status& st) {
  return st.ok() || (st.code() != StatusCode::kInternal && st.code() != StatusCode::kOutOfMemory &&
                     !st.message().empty());
}

std::string ReadQuery(int q) {
  std::ifstream in(fmt::format("{}/q{:02}.sql", SHOAL_TPCH_QUERY_DIR, q));
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The stages of TPC-H queries at scale 0.01, each with its envelope for partition 0.
Result<std::vector<Input>> Corpus(const std::string& dir) {
  engine::QueryRunner runner;
  SHOAL_ASSIGN_OR_RETURN(auto scale, io::tpch::TpchScale::Parse("0.01"));
  SHOAL_RETURN_IF_ERROR(engine::RegisterTpchTables(scale, runner.session().catalog().get()));
  SHOAL_RETURN_IF_ERROR(runner.RunOne("SET threads = 3").status());
  auto codecs = TableCodecRegistry::Builtin(runner.session().catalog());
  std::vector<Input> corpus;
  std::string current;
  engine_testing::RewritePlans(
      runner,
      [&](const exec::ExecPlanPtr& plan,
          const std::shared_ptr<exec::TaskContext>&) -> Result<exec::ExecPlanPtr> {
        SHOAL_ASSIGN_OR_RETURN(MaterializedPlan cut, PlanMaterialized(plan, {dir, "zstd"}));
        for (const auto& stage : cut.stages) {
          SHOAL_ASSIGN_OR_RETURN(std::string bytes, EncodePlan(stage.node, *codecs));
          const std::string plan_path = fmt::format("{}/{}-stage-{}.plan", dir, current, stage.id);
          proto::ShuffleTaskEnvelopeProto envelope;
          auto* spec = envelope.mutable_session();
          spec->set_tpch_scale("0.01");
          for (const auto& [name, value] :
               {std::pair{"threads", "3"}, {"memory_limit", "1GB"}, {"dist_compression", "lz4"}}) {
            spec->add_setting_names(name);
            spec->add_setting_values(value);
          }
          spec->set_target_partitions(3);
          envelope.set_plan_path(plan_path);
          envelope.set_stage_id(stage.id);
          envelope.set_partition(0);
          envelope.set_partition_count(stage.node->num_tasks());
          for (const auto& id : ShuffleCodecIds(*codecs))
            envelope.add_codec_ids(id);
          for (int input : stage.inputs) {
            auto* location = envelope.add_remote_files();
            location->set_stage_id(input);
            location->set_partition(1);
            location->set_worker("127.0.0.1:7001");
            location->set_query_id("0123456789abcdef");
          }
          envelope.add_data_roots(dir);
          corpus.push_back({fmt::format("{} stage {}", current, stage.id),
                            envelope.SerializeAsString(), std::move(bytes)});
        }
        return plan;
      });
  for (int q : {1, 3, 5, 9, 13, 18, 21}) {
    current = fmt::format("q{:02}", q);
    SHOAL_RETURN_IF_ERROR(runner.RunOne(ReadQuery(q)).status());
  }
  return corpus;
}

class Reader {
 public:
  explicit Reader(std::string dir) : dir_(std::move(dir)) {}

  // Writes the envelope and the plan as the driver would and prepares the task.
  Status Read(const std::string& envelope_bytes, const std::string& plan_bytes,
              MutationStats* stats) {
    proto::ShuffleTaskEnvelopeProto envelope;
    std::string envelope_out = envelope_bytes;
    const std::string plan_path = dir_ + "/mutant.plan";
    if (envelope.ParseFromString(envelope_bytes) && !envelope.plan_path().empty() &&
        fs::path(envelope.plan_path()).parent_path() == fs::path(dir_)) {
      // The plan file is where the (maybe mutated) envelope says, if that is in our directory.
      envelope.set_plan_path(plan_path);
      envelope_out = envelope.SerializeAsString();
    }
    SHOAL_RETURN_IF_ERROR(WriteFileAtomically(plan_path, plan_bytes));
    const std::string path = dir_ + "/mutant.envelope";
    SHOAL_RETURN_IF_ERROR(WriteFileAtomically(path, envelope_out));
    SHOAL_ASSIGN_OR_RETURN(PreparedShuffleTask task, PrepareShuffleTask(path));
    ++stats->batches;
    (void)exec::FormatExecutionPlan(*task.plan, true);
    return Status::OK();
  }

 private:
  std::string dir_;
};

}  // namespace
}  // namespace shoal::distributed::shuffle

int main() {
  using namespace shoal;
  using namespace shoal::distributed;
  using namespace shoal::distributed::shuffle;
  if (Status st = engine::RegisterSettings(); !st.ok()) {
    fmt::print(stderr, "shuffle envelope mutation test: {}\n", st.ToString());
    return 1;
  }
  MutationHarness harness("shuffle envelope mutation test", 20261204, 2000);
  const std::string dir =
      (fs::temp_directory_path() / fmt::format("shoal-envelope-mutation-{}", ::getpid())).string();
  fs::remove_all(dir);
  fs::create_directories(dir);
  auto corpus = Corpus(dir);
  if (corpus.ok() && corpus->empty())
    corpus = Status::Internal("the queries had no stages");
  if (!corpus.ok()) {
    fmt::print(stderr, "shuffle envelope mutation test: building the corpus failed: {}\n",
               corpus.status().ToString());
    return 1;
  }
  Reader reader(dir);
  for (const auto& in : *corpus)
    harness.clean().Check(reader.Read(in.envelope, in.plan, &harness.clean()), in.name, {});

  // Envelopes that name what is not a plan file (read without bound before the fix), and the
  // regression inputs of fixed bugs.
  {
    const Input& first = corpus->front();
    for (const char* bad : {"/dev/zero", "/", "/proc/self/status", "/nonexistent/plan"}) {
      proto::ShuffleTaskEnvelopeProto envelope;
      envelope.ParseFromString(first.envelope);
      envelope.set_plan_path(bad);
      const std::string path = dir + "/seed.envelope";
      harness.stats().Check(WriteEnvelope(path, envelope), "write", {});
      harness.stats().Check(PrepareShuffleTask(path).status(), fmt::format("plan path {}", bad),
                            Acceptable);
    }
    for (const auto& [name, bytes] : fuzz::ReadRegressions(SHOAL_FUZZ_REGRESSIONS_DIR)) {
      harness.stats().SetInput(name, bytes);
      harness.stats().Check(reader.Read(bytes, first.plan, &harness.stats()), name, Acceptable);
    }
  }

  fuzz::ProtoMutator mutator(harness.seed(), corpus->size());
  std::vector<std::string> envelopes, plans;
  for (const auto& in : *corpus) {
    envelopes.push_back(in.envelope);
    plans.push_back(in.plan);
  }
  int64_t skipped = 0;
  harness.RunOverCorpus(
      *corpus,
      [&](const Input& in) {
        // Even iterations corrupt the envelope, odd ones the plan; the input saved on a failure
        // is the corrupted one.
        return harness.stats().reads % 2 == 0 ? mutator.Mutate(in.envelope, envelopes)
                                              : mutator.Mutate(in.plan, plans);
      },
      [&](const Input& in, const std::string& mutant, const MutationHarness::Iteration& it) {
        const bool envelope_mutated = it.stats->reads % 2 == 0;
        ++it.stats->reads;
        if (envelope_mutated) {
          proto::ShuffleTaskEnvelopeProto parsed;
          if (parsed.ParseFromString(mutant) && parsed.session().tpch_scale() != "0.01" &&
              !parsed.session().tpch_scale().empty()) {
            ++skipped;
            return;
          }
          it.stats->Check(reader.Read(mutant, in.plan, it.stats), it.what, Acceptable);
        } else {
          it.stats->Check(reader.Read(in.envelope, mutant, it.stats), it.what, Acceptable);
        }
      });
  fmt::print("shuffle envelope mutation test: {} mutants changed the TPC-H scale (not read)\n",
             skipped);
  fs::remove_all(dir);
  return harness.Finish({"InvalidData"}, fmt::format("over {} stages", corpus->size()));
}
