// Mutation test of every request a worker receives (the Worker service of
// proto/distributed.proto): the coordinator-channel messages (a task's SetPlanRequest with its
// stage plan, work-unit batches, their end, heartbeats) and ExecuteTask requests, recorded from
// TPC-H queries on three in-process workers (also in work-unit feed mode) and encoded as the gRPC
// channel encodes them. Each is corrupted (protobuf-aware: varints overwritten with edge values,
// bit flips, truncation, splices) and driven through what the gRPC server does after parsing:
//  - the signed-request check (request_signer.h, node_security.h): the original is signed and
//    the mutant's key and body digest checked against that token, which must refuse every
//    mutant that decodes to a different request -- a corrupted signed request never reaches a
//    decoder;
//  - the decoding of worker_messages.h, then WorkerService::SetPlan (which decodes the plan),
//    PushWorkUnits and ExecuteTask on a real worker service holding the corpus's tasks.
// Every outcome must be OK or a Status that says what is wrong; a crash, a sanitizer report, a
// hang, an allocation the bytes chose or kInternal fails the test.
//
// Deterministic: SHOAL_FUZZ_SEED (default 20261203) and SHOAL_FUZZ_ITERATIONS (default 2000).
// Run under ASan + UBSan in CI (label `fuzz`).
#include <string>
#include <vector>

#include <fmt/format.h>

#include "shoal/distributed/transport/node_security.h"
#include "shoal/distributed/transport/request_signer.h"
#include "shoal/distributed/transport/worker_messages.h"
#include "shoal/distributed/worker/worker_service.h"
#include "shoal/engine/settings_catalog.h"
#include "tests/fuzz/distributed_corpus.h"
#include "tests/fuzz/proto_mutator.h"
#include "tests/support/mutation_harness.h"

namespace shoal::distributed {
namespace {

using shoal::testing::MutationHarness;
using shoal::testing::MutationStats;

enum class Kind { kCoordinatorMessage, kExecuteTask };

struct Input {
  std::string name;
  Kind kind;
  std::string bytes;
  std::string method;
  std::string key;  // what the signature is about
};

bool Acceptable(const Status& st) {
  return st.ok() || (st.code() != StatusCode::kInternal && st.code() != StatusCode::kOutOfMemory &&
                     !st.message().empty());
}

std::string KeyText(const proto::TaskKeyProto& k) {
  return TaskKey{k.query_id(), k.stage_id(), k.task_number()}.ToString();
}

class Driver {
 public:
  explicit Driver(std::shared_ptr<WorkerService> service) : service_(std::move(service)) {}

  // What the server does with one coordinator-channel message of a channel whose task is
  // `live` (its plan already set), after the signature check.
  Status Coordinator(proto::CoordinatorToWorkerProto* msg, const TaskKey& live,
                     MutationStats* stats) {
    if (msg->has_set_plan()) {
      SHOAL_ASSIGN_OR_RETURN(SetPlanRequest request, DecodeSetPlanRequest(msg->set_plan()));
      // A task of its own, so the corpus's live tasks stay as they are.
      request.task_key.query_id = "mutant-" + request.task_key.query_id;
      Status st = service_->SetPlan(request);
      (void)service_->EndTask(request.task_key);
      if (st.ok())
        ++stats->batches;
      return st;
    }
    if (msg->has_work_unit_batch()) {
      SHOAL_ASSIGN_OR_RETURN(WorkUnitBatch batch,
                             DecodeWorkUnitBatch(msg->mutable_work_unit_batch()));
      return service_->PushWorkUnits(live, std::move(batch), [] { return true; });
    }
    if (msg->has_work_unit_eos())
      return Status::OK();  // would end the live task's feeds for the iterations after
    if (msg->has_heartbeat())
      service_->Heartbeat(live);
    return Status::OK();
  }

  Status Execute(const proto::ExecuteTaskRequestProto& msg, MutationStats* stats) {
    SHOAL_ASSIGN_OR_RETURN(DecodedExecuteTask decoded, DecodeExecuteTaskRequest(msg));
    SHOAL_ASSIGN_OR_RETURN(auto streams, service_->ExecuteTask(decoded.request));
    stats->batches += static_cast<int64_t>(streams.size());
    return Status::OK();
  }

 private:
  std::shared_ptr<WorkerService> service_;
};

}  // namespace
}  // namespace shoal::distributed

int main() {
  using namespace shoal;
  using namespace shoal::distributed;
  if (Status st = engine::RegisterSettings(); !st.ok()) {
    fmt::print(stderr, "worker rpc mutation test: {}\n", st.ToString());
    return 1;
  }
  MutationHarness harness("worker rpc mutation test", 20261203, 2000);
  std::shared_ptr<sql::Catalog> catalog;
  auto plain = fuzz::RecordTraffic(SHOAL_TPCH_QUERY_DIR, &catalog);
  auto feeds =
      fuzz::RecordTraffic(SHOAL_TPCH_QUERY_DIR, nullptr, {"SET dist_work_unit_feeds = true"});
  if (!plain.ok() || !feeds.ok()) {
    fmt::print(stderr, "worker rpc mutation test: recording the corpus failed: {}\n",
               (!plain.ok() ? plain.status() : feeds.status()).ToString());
    return 1;
  }

  WorkerServiceOptions options;
  options.address = "fuzz-worker";
  options.version = "test";
  options.threads = 2;
  options.catalog = catalog;
  options.channels = InProcessCluster::Make();
  options.plan_wait = std::chrono::milliseconds(0);
  auto service = std::make_shared<WorkerService>(options);
  Driver driver(service);

  // The corpus: every request as the gRPC channel encodes it. The tasks stay set on the service,
  // so mutated work units and ExecuteTask calls find them.
  std::vector<Input> corpus;
  TaskKey live;
  for (auto* traffic : {&*plain, &*feeds}) {
    const bool feed_mode = traffic == &*feeds;
    for (const auto& [query, request] : (*traffic)->plans) {
      SetPlanRequest r = request;
      if (feed_mode)
        r.task_key.query_id += "-feeds";
      proto::CoordinatorToWorkerProto msg;
      EncodeSetPlanRequest(r, msg.mutable_set_plan());
      corpus.push_back({fmt::format("set_plan {} {}", query, r.task_key.ToString()),
                        Kind::kCoordinatorMessage, msg.SerializeAsString(),
                        "Worker/CoordinatorChannel", r.task_key.ToString()});
      Status st = service->SetPlan(r);
      harness.clean().Check(st, corpus.back().name, {});
      if (feed_mode && !r.work_unit_feeds.empty() && live.query_id.empty())
        live = r.task_key;
    }
    for (const auto& batch : (*traffic)->unit_batches) {
      proto::CoordinatorToWorkerProto msg;
      EncodeWorkUnitBatch(batch, msg.mutable_work_unit_batch());
      corpus.push_back({"work_unit_batch", Kind::kCoordinatorMessage, msg.SerializeAsString(),
                        "Worker/CoordinatorChannel", live.ToString()});
    }
    for (const auto& execute : (*traffic)->executes) {
      ExecuteTaskRequest e = execute;
      if (feed_mode)
        e.task_key.query_id += "-feeds";
      for (int head = 0; head < 3; ++head) {
        e.head.kind = static_cast<ProducerHeadKind>(head);
        if (e.head.kind == ProducerHeadKind::kRepartition) {
          e.head.partitioning.kind = exec::PartitioningKind::kHash;
          e.head.partitioning.num_partitions = 4;
          e.head.partitioning.keys = {
              sql::MakeColumnRef(0, "c0", columnar::DataType::Int64(), /*nullable=*/true)};
        }
        proto::ExecuteTaskRequestProto msg;
        harness.clean().Check(
            EncodeExecuteTaskRequest(e, columnar::ipc::Compression::kLz4Frame, &msg), "encode", {});
        corpus.push_back({fmt::format("execute_task {} head {}", e.task_key.ToString(), head),
                          Kind::kExecuteTask, msg.SerializeAsString(), "Worker/ExecuteTask",
                          e.task_key.ToString()});
      }
    }
  }
  for (const char* which : {"heartbeat", "eos"}) {
    proto::CoordinatorToWorkerProto msg;
    if (std::string_view(which) == "heartbeat")
      msg.set_heartbeat(true);
    else
      msg.set_work_unit_eos(true);
    corpus.push_back({which, Kind::kCoordinatorMessage, msg.SerializeAsString(),
                      "Worker/CoordinatorChannel", live.ToString()});
  }

  // Requests made by hand that the decoders must refuse (regression inputs of fixed bugs).
  {
    proto::ExecuteTaskRequestProto msg;
    msg.mutable_task_key()->set_query_id("q");
    msg.set_partition_start(-2147483647 - 1);
    msg.set_partition_end(2147483647);  // the range's size overflowed an int
    harness.stats().Check(driver.Execute(msg, &harness.stats()), "partition range overflow",
                          Acceptable);
    proto::CoordinatorToWorkerProto plan;
    EncodeSetPlanRequest((*plain)->plans.front().second, plan.mutable_set_plan());
    plan.mutable_set_plan()->mutable_task_key()->set_query_id("huge-feed");
    auto* feed = plan.mutable_set_plan()->add_work_unit_feeds();
    feed->set_node_id("f");
    feed->set_partitions(2147483647);  // allocated a queue per partition
    harness.stats().Check(driver.Coordinator(&plan, live, &harness.stats()), "huge feed",
                          Acceptable);
  }

  RequestSigner signer("fuzz-cluster-secret-0123456789", 60 * 1000);
  RequestVerifier verifier("fuzz-cluster-secret-0123456789");
  fuzz::ProtoMutator mutator(harness.seed(), corpus.size());
  std::vector<std::string> donors;
  for (const auto& in : corpus)
    donors.push_back(in.bytes);
  int64_t signature_refusals = 0;
  harness.RunOverCorpus(
      corpus, [&](const Input& in) { return mutator.Mutate(in.bytes, donors); },
      [&](const Input& in, const std::string& mutant, const MutationHarness::Iteration& it) {
        ++it.stats->reads;
        // gRPC parses with protobuf's defaults; a message that does not parse fails the call.
        if (in.kind == Kind::kExecuteTask) {
          proto::ExecuteTaskRequestProto original, msg;
          original.ParseFromString(in.bytes);
          if (!msg.ParseFromString(mutant)) {
            it.stats->Check(Status::InvalidData("unparsable"), it.what, Acceptable);
            return;
          }
          const RequestToken token = signer.Sign(in.method, in.key, MessageDigest(original));
          const bool verified =
              verifier.Verify(in.method, token).ok() &&
              RequestVerifier::CheckBody(token, KeyText(msg.task_key()), MessageDigest(msg)).ok();
          if (verified && MessageDigest(msg) != MessageDigest(original))
            it.stats->Fail(it.what, "a mutated signed ExecuteTask request passed the check");
          if (!verified)
            ++signature_refusals;
          it.stats->Check(driver.Execute(msg, it.stats), it.what, Acceptable);
          return;
        }
        proto::CoordinatorToWorkerProto original, msg;
        original.ParseFromString(in.bytes);
        if (!msg.ParseFromString(mutant)) {
          it.stats->Check(Status::InvalidData("unparsable"), it.what, Acceptable);
          return;
        }
        if (msg.has_set_plan()) {
          const RequestToken token =
              signer.Sign(in.method, in.key, MessageDigest(original.set_plan()));
          const bool verified =
              verifier.Verify(in.method, token).ok() &&
              RequestVerifier::CheckBody(token, KeyText(msg.set_plan().task_key()),
                                         MessageDigest(msg.set_plan()))
                  .ok();
          if (verified && (!original.has_set_plan() ||
                           MessageDigest(msg.set_plan()) != MessageDigest(original.set_plan())))
            it.stats->Fail(it.what, "a mutated signed plan passed the check");
          if (!verified)
            ++signature_refusals;
        }
        it.stats->Check(driver.Coordinator(&msg, live, it.stats), it.what, Acceptable);
      });
  fmt::print("worker rpc mutation test: {} mutants refused by the signature check\n",
             signature_refusals);
  service.reset();
  return harness.Finish({"InvalidData"}, fmt::format("over {} requests", corpus.size()));
}
