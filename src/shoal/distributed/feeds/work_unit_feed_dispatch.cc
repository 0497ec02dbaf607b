#include "shoal/distributed/feeds/work_unit_feed_dispatch.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <utility>

#include <fmt/format.h>

#include "shoal/common/logging.h"
#include "shoal/common/settings.h"
#include "shoal/distributed/feeds/work_unit_feed_scan_exec.h"
#include "shoal/distributed/planner/network_exchange_exec.h"
#include "shoal/exec/operators/table_scan_exec.h"

namespace shoal::distributed {

namespace {

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The scans of a task plan in pre-order; exchanges are leaves (what is below them is another
// stage, shown for EXPLAIN only).
void CollectScans(const exec::ExecPlanPtr& node, std::vector<const exec::TableScanExec*>* out) {
  if (node->Is<NetworkExchangeExec>())
    return;
  if (const auto* scan = node->TryAs<exec::TableScanExec>()) {
    out->push_back(scan);
    return;
  }
  for (const auto& c : node->children())
    CollectScans(c, out);
}

// `node` with its scans replaced by `replacements` (same pre-order).
Result<exec::ExecPlanPtr> ReplaceScans(const exec::ExecPlanPtr& node,
                                       const std::vector<exec::ExecPlanPtr>& replacements,
                                       size_t* next) {
  if (node->Is<NetworkExchangeExec>())
    return node;
  if (node->Is<exec::TableScanExec>())
    return replacements[(*next)++];
  std::vector<exec::ExecPlanPtr> children = node->children();
  if (children.empty())
    return node;
  for (auto& c : children) {
    SHOAL_ASSIGN_OR_RETURN(c, ReplaceScans(c, replacements, next));
  }
  return node->WithNewChildren(std::move(children));
}

// Scan k of every task reads the same table the same way, with the same partition count: the
// tasks can share one pool of units. Not so when the planner split a UNION's inputs over the
// tasks (each task then holds other scans).
bool SameScans(const std::vector<std::vector<const exec::TableScanExec*>>& scans) {
  for (const auto& task : scans) {
    if (task.size() != scans[0].size())
      return false;
    for (size_t k = 0; k < task.size(); ++k) {
      const exec::TableScanExec& a = *task[k];
      const exec::TableScanExec& b = *scans[0][k];
      if (a.table() != b.table() || a.table_name() != b.table_name() ||
          a.num_partitions() != b.num_partitions() || a.request().limit != b.request().limit ||
          a.request().projection != b.request().projection ||
          a.request().field_paths != b.request().field_paths ||
          a.request().predicates.size() != b.request().predicates.size() ||
          (a.request().filter == nullptr) != (b.request().filter == nullptr) ||
          (a.request().filter != nullptr &&
           a.request().filter->ToString() != b.request().filter->ToString()))
        return false;
    }
  }
  return true;
}

}  // namespace

Result<std::vector<TaskWorkUnits>> UseWorkUnitFeeds(int stage_id,
                                                    std::vector<exec::ExecPlanPtr>* task_plans) {
  const size_t tasks = task_plans->size();
  std::vector<TaskWorkUnits> out(tasks);
  std::vector<std::vector<const exec::TableScanExec*>> scans(tasks);
  for (size_t t = 0; t < tasks; ++t)
    CollectScans((*task_plans)[t], &scans[t]);
  if (tasks == 0)
    return out;
  // The tasks that share their units: all of them, or each alone.
  std::vector<std::vector<size_t>> pools;
  if (SameScans(scans)) {
    pools.emplace_back();
    for (size_t t = 0; t < tasks; ++t)
      pools.back().push_back(t);
  } else {
    for (size_t t = 0; t < tasks; ++t)
      pools.push_back({t});
  }
  const int64_t created = NowNs();
  std::vector<std::vector<exec::ExecPlanPtr>> replacements(tasks);
  for (const auto& pool : pools) {
    const size_t members = pool.size();
    for (size_t k = 0; k < scans[pool[0]].size(); ++k) {
      const exec::TableScanExec& first = *scans[pool[0]][k];
      const std::string feed_id = fmt::format("stage{}.scan{}:{}", stage_id, k, first.table_name());
      const int partitions = std::max(1, first.num_partitions());
      for (size_t t : pool) {
        SHOAL_ASSIGN_OR_RETURN(
            auto feed_scan, WorkUnitFeedScanExec::Make(*scans[t][k], feed_id, partitions, nullptr));
        replacements[t].push_back(std::move(feed_scan));
        out[t].feeds.push_back({feed_id, partitions});
      }
      // Every partition of every task of the pool is a slot; each unit, in table order, goes to
      // the slot with the fewest bytes so far (the lowest on ties). Slot s is partition
      // s / members of member s % members, so consecutive units go to different tasks first and
      // every worker starts scanning at once.
      const size_t slots = members * static_cast<size_t>(partitions);
      std::vector<int64_t> load(slots, 0);
      for (size_t t : pool) {
        for (const auto& group : scans[t][k]->unit_groups()) {
          for (const auto& unit : group) {
            size_t best = 0;
            for (size_t slot = 1; slot < slots; ++slot) {
              if (load[slot] < load[best])
                best = slot;
            }
            load[best] += std::max<int64_t>(1, unit.bytes);
            WorkUnit w;
            w.node_id = feed_id;
            w.partition = static_cast<int>(best / members);
            w.body = EncodeScanUnitBody(unit);
            w.created_ns = created;
            out[pool[best % members]].units.push_back(std::move(w));
          }
        }
      }
    }
  }
  for (size_t t = 0; t < tasks; ++t) {
    size_t next = 0;
    SHOAL_ASSIGN_OR_RETURN((*task_plans)[t],
                           ReplaceScans((*task_plans)[t], replacements[t], &next));
  }
  return out;
}

Status WorkUnitSender::Start(CoordinatorStream* stream, std::vector<WorkUnit> units,
                             std::string label) {
  if (units.empty())
    return stream->SendWorkUnitEos();
  auto sender = std::make_unique<Sender>();
  sender->stream = stream;
  Sender* raw = sender.get();
  sender->thread = std::thread([raw, stream, units = std::move(units), label = std::move(label)] {
    Status st;
    for (size_t i = 0; i < units.size() && st.ok(); i += kUnitsPerBatch) {
      WorkUnitBatch batch;
      const int64_t sent = NowNs();
      for (size_t j = i; j < std::min(units.size(), i + kUnitsPerBatch); ++j) {
        batch.units.push_back(units[j]);
        batch.units.back().sent_ns = sent;
      }
      st = stream->SendWorkUnitBatch(batch);
    }
    if (st.ok())
      st = stream->SendWorkUnitEos();
    if (!st.ok())
      SHOAL_LOG(kDebug, "{}: work units not sent: {}", label, st.ToString());
    raw->done.store(true);
  });
  senders_.push_back(std::move(sender));
  return Status::OK();
}

void WorkUnitSender::Stop() {
  for (auto& s : senders_) {
    if (!s->thread.joinable())
      continue;
    // A sender that delivered its WorkUnitEos is about to return; cancelling it anyway would
    // cancel the whole gRPC call and lose the task's metrics.
    for (int i = 0; i < 10 && !s->done.load(); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    if (!s->done.load())
      s->stream->CancelSends();
    s->thread.join();
  }
  senders_.clear();
}

}  // namespace shoal::distributed
