// WorkUnitFeeds: the worker's end of a task's work-unit feeds. A feed is a plan node (a feed scan,
// work_unit_feed_scan_exec.h) whose work arrives at run time on the task's coordinator channel
// instead of inside the plan: the coordinator streams WorkUnitBatch messages (units addressed to a
// feed node and one of its partitions), then WorkUnitEos. The worker builds one queue per declared
// feed partition when the plan arrives (SetPlanRequest::work_unit_feeds), routes each unit to its
// queue, and the node's partition streams pull from their queue as units arrive.
//
// Buffering is bounded by simple backpressure: a push waits while its partition already holds
// kQueuedUnitsPerPartition units, so a slow scan slows the coordinator's sender (through the
// transport) instead of making the worker hold every unit. The bound may be exceeded only while
// some partition's consumer of the same task waits on an empty queue: the units it needs can be
// behind a full partition's in the channel, and a consumer that reads partitions in turn (a merge)
// would otherwise deadlock. Waits poll every 50 ms so a cancelled query or a dead channel never
// leaves a thread blocked.
//
// Failure: a unit for an undeclared node or partition (the plan and the coordinator disagree)
// fails every feed of the task; a WorkUnitBatch carrying a failure fails that feed; ending the
// task fails whatever still waits. Consumers see the error with the feed's id. A feed that ends
// with no units gives empty partitions.
//
// Thread safety: every method may be called concurrently.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "shoal/common/result.h"
#include "shoal/distributed/transport/worker_channel.h"
#include "shoal/exec/task_context.h"

namespace shoal::distributed {

class WorkUnitFeeds {
 public:
  static constexpr size_t kQueuedUnitsPerPartition = 4;

  /// Queues for every declared feed; InvalidData for a duplicate id or a partition count below 1.
  /// `task_label` ("task 1/0 of query ...") goes into errors.
  static Result<std::shared_ptr<WorkUnitFeeds>> Make(
      const std::vector<WorkUnitFeedDeclaration>& declarations, std::string task_label);

  /// Partitions of feed `node_id`, or -1 when the task declared no such feed.
  int partitions(const std::string& node_id) const;

  /// Routes a batch, waiting while a target queue is full (see above) until `abandoned` (may be
  /// empty; polled) says the sender is gone. A misaddressed unit fails every feed and returns the
  /// error; units for a task whose feeds already ended or failed are dropped.
  Status Push(WorkUnitBatch batch, const std::function<bool()>& abandoned);

  /// WorkUnitEos: every partition ends once its queued units are read. Later pushes fail.
  void End();

  /// Fails every feed that has not failed yet (the task ended, was cancelled, or got a bad unit).
  void Fail(const Status& status);

  /// The body of the partition's next unit, nullopt once the feeds ended and the queue is empty,
  /// or the feed's error. Waits for units; `context` (may be null) cancels the wait.
  Result<std::optional<std::string>> Next(const std::string& node_id, int partition,
                                          const exec::TaskContext* context);

 private:
  struct Feed {
    std::vector<std::deque<std::string>> queues;
    Status failure;
  };

  explicit WorkUnitFeeds(std::string task_label) : task_label_(std::move(task_label)) {}

  Feed* Find(const std::string& node_id);
  void FailLocked(const Status& status);

  const std::string task_label_;
  mutable std::mutex mutex_;
  std::condition_variable units_cv_;  // a unit arrived, or the feeds ended / failed
  std::condition_variable space_cv_;  // a unit was taken, or a consumer started waiting
  std::map<std::string, Feed> feeds_;
  bool ended_ = false;
  int waiting_consumers_ = 0;
};

using WorkUnitFeedsPtr = std::shared_ptr<WorkUnitFeeds>;

}  // namespace shoal::distributed
