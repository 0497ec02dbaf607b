// Runtime join filters across the stages of a materialized shuffle (issue 17; docs/architecture.md,
// "Runtime join filters"). In the streaming engine a join's filter travels from the join's stage
// to its probe scan's stage through the coordinator while both run. In the file shuffle a stage
// runs only after the stages it reads have finished, and a join whose probe scan is in another
// stage reads that scan's output from files: once the join has its build side, the probe side has
// been read and written in full. So the filter is formed one stage earlier, from the stage whose
// files feed the join's build side:
//  - planning (RouteStageFilters): for each filter whose join and probe scan are in different
//    stages, the join's build key is followed down through nodes that only pass values through or
//    drop rows (exec::RuntimeFilterPassThrough) to the stage node the join reads it from. That
//    stage's output column holds every build key (and perhaps more), so a filter of its values
//    never drops a probe row the join would keep. The scan's stage then runs after that stage.
//    Filters the joins themselves can no longer use (their scans run in other processes) are
//    removed from the joins, which would otherwise build them for nothing;
//  - the source stage's tasks (StageOutputFilters) collect the column as they write their output
//    and leave a partial filter beside it (StageFiltersPath; a remote worker returns it with the
//    task's result);
//  - the driver (StageFilterMerger) unions the partial filters of all the source stage's tasks
//    and puts the result into the envelope of each task of the scan's stage; the task publishes
//    it in its registry before it runs, so its scans apply it from their first row.
// A filter that cannot be formed (a task's column held more than kMaxStageFilterKeys values, or a
// task's partial filter is missing) is left out: the answer never depends on a filter.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "shoal/columnar/record_batch.h"
#include "shoal/common/memory_pool.h"
#include "shoal/common/result.h"
#include "shoal/distributed/proto/distributed.pb.h"
#include "shoal/exec/execution_plan.h"

namespace shoal::distributed::shuffle {

/// A task forms no filter from more values than this (16 bits a value: 4 MiB of Bloom filter),
/// so envelopes stay small; a larger build side rarely filters much anyway.
inline constexpr int64_t kMaxStageFilterKeys = int64_t{1} << 21;

/// The filters of one task envelope take at most this many bytes (an envelope is read whole,
/// kMaxEnvelopeBytes at most); those beyond it are left out, in route order.
inline constexpr int64_t kMaxEnvelopeFilterBytes = int64_t{16} << 20;

/// One filter formed from a stage's output and applied by the scans of later stages.
struct StageFilterRoute {
  int filter_id = 0;
  int source_stage = 0;  // whose output column holds every build key of the filter's join
  int column = 0;        // of that stage's output
  std::set<int> target_stages;
};

struct RoutedStageFilters {
  /// The cut plan with the filters the joins cannot use themselves removed from them (the stage
  /// nodes above a changed join are new nodes).
  exec::ExecPlanPtr root;
  std::vector<StageFilterRoute> routes;
};

/// Routes the runtime filters of a plan cut into stages (the driver runs the part outside every
/// stage, stage 0).
Result<RoutedStageFilters> RouteStageFilters(const exec::ExecPlanPtr& root);

/// DIR/stage-<s>-task-<t>.attempt-<a>.filters: the partial filters of one task attempt.
std::string StageFiltersPath(const std::string& dir, int stage_id, int task, int attempt);

/// A task's side: collects the exported columns of its output, batch by batch.
class StageOutputFilters {
 public:
  StageOutputFilters(const proto::ShuffleTaskEnvelopeProto& envelope, columnar::SchemaPtr schema,
                     std::shared_ptr<MemoryPool> pool);

  bool empty() const { return exports_.empty(); }

  Status Add(const columnar::RecordBatch& batch);

  /// The partial filters (mergeable) of the columns that stayed within kMaxStageFilterKeys.
  Result<proto::ShuffleTaskFiltersProto> Finish();

 private:
  struct Export {
    int id = 0;
    int column = 0;
    int64_t values = 0;
    bool dropped = false;
    std::vector<columnar::ArrayPtr> arrays;
  };

  std::vector<Export> exports_;
  columnar::SchemaPtr schema_;
  std::shared_ptr<MemoryPool> pool_;
};

/// The driver's side: the partial filters of finished tasks, merged per filter once every task of
/// its source stage has reported. Driver thread only.
class StageFilterMerger {
 public:
  /// `task_counts`: the tasks of each stage. `max_bytes`: what the filters of one envelope may
  /// take.
  StageFilterMerger(std::vector<StageFilterRoute> routes, std::map<int, int> task_counts,
                    int64_t max_bytes = kMaxEnvelopeFilterBytes);

  /// The export list of a task of `stage_id` (empty when it forms none).
  std::vector<proto::ShuffleFilterExportProto> ExportsOf(int stage_id) const;

  /// Task `task` of `stage_id` finished; `filters` is its ShuffleTaskFiltersProto (serialised),
  /// nullopt when it left none. A later report of the same task replaces the earlier one (the
  /// outputs of a recomputed task are the same rows).
  void AddTask(int stage_id, int task, std::optional<std::string> filters);

  /// The filters to publish in the tasks of `stage_id`: every routed filter of it whose source
  /// stage's tasks have all reported one (merged at the first call), within `max_bytes`.
  std::vector<proto::RuntimeFilterProto> FiltersFor(int stage_id);

  /// One line per filter merged or left out, for the query's log and tests.
  std::vector<std::string> Notes() const;

 private:
  struct Route {
    StageFilterRoute route;
    bool merged = false;
    std::optional<proto::RuntimeFilterProto> filter;
    bool too_big_noted = false;
  };

  void Merge(Route* route);

  std::vector<Route> routes_;
  std::map<int, int> task_counts_;
  int64_t max_bytes_;
  // stage -> task -> its partial filters (parsed), or nullopt when it left none
  std::map<int, std::map<int, std::optional<proto::ShuffleTaskFiltersProto>>> reports_;
  std::vector<std::string> notes_;
};

}  // namespace shoal::distributed::shuffle
