#include "shoal/distributed/shuffle/shuffle_query_exec.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "shoal/common/logging.h"
#include "shoal/distributed/shuffle/stage_file_client.h"

namespace shoal::distributed::shuffle {

ShuffleQueryExec::State::~State() {
  if (!ran)
    return;
  DropRemoteStageFiles(dir);
  // Test hook: tests that look at a query's stage files and task outputs keep them.
  if (std::getenv("SHOAL_SHUFFLE_TEST_KEEP_FILES") != nullptr)
    return;
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  if (ec)
    SHOAL_LOG(kWarning, "could not remove shuffle query directory {}: {}", dir, ec.message());
}

ShuffleQueryExec::ShuffleQueryExec(StageRunner run, MaterializedPlan plan, std::string dir)
    : ExecutionPlan(kKind, plan.root->schema()),
      run_(std::move(run)),
      plan_(std::move(plan)),
      dir_(std::move(dir)),
      state_(std::make_shared<State>()) {
  state_->dir = dir_;
}

Result<exec::ExecPlanPtr> ShuffleQueryExec::WithNewChildren(
    std::vector<exec::ExecPlanPtr> children) const {
  if (children.size() != 1)
    return Status::Internal("MaterializedShuffle takes one child");
  MaterializedPlan plan = plan_;
  plan.root = std::move(children[0]);
  return exec::ExecPlanPtr(std::make_shared<ShuffleQueryExec>(run_, std::move(plan), dir_));
}

Result<exec::StreamPtr> ShuffleQueryExec::Execute(
    int partition, const std::shared_ptr<exec::TaskContext>& context) const {
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    if (!state_->ran) {
      state_->ran = true;
      state_->status = run_(plan_, dir_, context, &state_->reports);
    }
    SHOAL_RETURN_IF_ERROR(state_->status);
  }
  return plan_.root->Execute(partition, context);
}

std::string ShuffleQueryExec::Describe(bool) const {
  int tasks = 0;
  for (const auto& s : plan_.stages)
    tasks += s.node->num_partitions();
  std::string out = fmt::format("dir={}, stages={}, tasks={}", dir_, plan_.stages.size(), tasks);
  // Runtime join filters formed from one stage's output for a later stage's scans.
  if (!plan_.filter_routes.empty()) {
    std::vector<std::string> routes;
    for (const auto& r : plan_.filter_routes)
      routes.push_back(fmt::format("rf{} stage {} -> {}", r.filter_id, r.source_stage,
                                   fmt::join(r.target_stages, ", ")));
    out += fmt::format(", runtime_filters=[{}]", fmt::join(routes, "; "));
  }
  std::lock_guard<std::mutex> lock(state_->mutex);
  if (state_->ran && state_->status.ok()) {
    int64_t rows = 0;
    int processes = 0;
    for (const auto& r : state_->reports) {
      rows += r.rows;
      processes += r.attempts;
    }
    out += fmt::format(", task_processes={}, task_rows={}", processes, rows);
  }
  return out;
}

}  // namespace shoal::distributed::shuffle
