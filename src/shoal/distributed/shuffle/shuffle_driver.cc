#include "shoal/distributed/shuffle/shuffle_driver.h"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <system_error>
#include <thread>

#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <grpcpp/grpcpp.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "shoal/columnar/ipc/reader.h"
#include "shoal/common/logging.h"
#include "shoal/common/settings.h"
#include "shoal/distributed/codec/memory_table_codec.h"
#include "shoal/distributed/codec/plan_codec.h"
#include "shoal/distributed/shuffle/map_output.h"
#include "shoal/distributed/shuffle/shuffle_query_exec.h"
#include "shoal/distributed/shuffle/shuffle_settings.h"
#include "shoal/distributed/shuffle/shuffle_task.h"
#include "shoal/distributed/shuffle/stage_file_client.h"
#include "shoal/distributed/shuffle/stage_runtime_filters.h"
#include "shoal/distributed/shuffle/task_process.h"
#include "shoal/io/data_roots.h"

namespace shoal::distributed::shuffle {

namespace fs = std::filesystem;

namespace {

struct TaskSlot {
  int stage_id = 0;
  int partition = 0;  // the task: a hash stage's map task, a passthrough stage's partition
  std::string envelope;
  const StageFileExec* stage = nullptr;
  int attempts = 0;
  std::vector<std::string> attempt_errors;
  size_t index = 0;  // in the order tasks were made: the first worker a remote task is sent to
  proto::ShuffleTaskEnvelopeProto envelope_proto;
  const std::string* plan_bytes = nullptr;
  // Remote tasks: where the output is committed (empty: nowhere, it must run), which attempt,
  // and the workers an attempt failed on (never given the task again).
  std::string committed_on;
  std::string committed_incarnation;  // of the worker process that committed (a restart loses it)
  int committed_attempt = 0;
  int64_t rows = 0;
  std::set<std::string> failed_on;
  int failures = 0;  // retryable failures that were the task's own (not a lost input)
};

// The partial runtime filters a local task left beside its output (stage_runtime_filters.h), of
// its latest attempt that left some; nullopt when none did.
std::optional<std::string> ReadTaskFilters(const std::string& dir, const TaskSlot& slot) {
  if (slot.envelope_proto.export_runtime_filters_size() == 0)
    return std::nullopt;
  for (int attempt = slot.attempts; attempt >= 1; --attempt) {
    auto formed = ReadWholeFile(StageFiltersPath(dir, slot.stage_id, slot.partition, attempt),
                                kMaxEnvelopeBytes);
    if (formed.ok())
      return std::move(formed).MoveValueUnsafe();
  }
  return std::nullopt;
}

void SetEnvelopeFilters(std::vector<proto::RuntimeFilterProto> filters,
                        proto::ShuffleTaskEnvelopeProto* envelope) {
  envelope->clear_runtime_filters();
  for (auto& f : filters)
    *envelope->add_runtime_filters() = std::move(f);
}

std::string FailedTaskMessage(const TaskSlot& slot) {
  std::string message =
      fmt::format("stage {} partition {} failed after {} {}:", slot.stage_id, slot.partition,
                  slot.attempts, slot.attempts == 1 ? "attempt" : "attempts");
  for (size_t a = 0; a < slot.attempt_errors.size(); ++a)
    message += fmt::format("\n  attempt {}: {}", a + 1, slot.attempt_errors[a]);
  return message;
}

// A task failed with an error every attempt would repeat: the query fails with that error (its
// code and SQLSTATE, a division by zero stays 22012), not with a transport failure.
void NoteDeterministicFailure(const TaskSlot& slot, const Status& error, Status* deterministic) {
  if (deterministic->ok())
    *deterministic = Status(error).WithContext(
        fmt::format("shuffle stage {} partition {}", slot.stage_id, slot.partition));
}

Status LevelFailures(const std::vector<std::string>& failures, size_t tasks, int level,
                     std::string hint) {
  if (failures.empty())
    return Status::OK();
  std::string message = fmt::format("{} of the {} tasks of materialized shuffle level {} failed",
                                    failures.size(), tasks, level);
  for (const auto& f : failures)
    message += "\n" + f;
  return Status::Unavailable("{}", message).WithHint(std::move(hint));
}

// The remote calls of a level in flight, one thread each (a call blocks until its task ended);
// leaving the level any way cancels whatever still runs (killing the tasks on their workers).
class RemoteCallSet {
 public:
  struct Call {
    TaskSlot* slot = nullptr;
    std::string worker;
    std::chrono::steady_clock::time_point started;
    grpc::ClientContext context;
    std::thread thread;
    bool done = false;
    // Cancelled by the driver because its worker stopped answering health checks: its failure is
    // the worker's loss, not a cancellation of the query.
    bool abandoned = false;
    Result<RemoteTaskOutput> rows = RemoteTaskOutput{};
  };

  ~RemoteCallSet() { CancelAll(); }

  void Start(TaskSlot* slot, std::string worker, std::string query_id,
             proto::ShuffleTaskEnvelopeProto envelope) {
    auto call = std::make_unique<Call>();
    call->slot = slot;
    call->worker = std::move(worker);
    call->started = std::chrono::steady_clock::now();
    Call* c = call.get();
    calls_.push_back(std::move(call));
    c->thread =
        std::thread([this, c, query_id = std::move(query_id), envelope = std::move(envelope)] {
          Result<RemoteTaskOutput> rows = RunRemoteShuffleTask(c->worker, query_id, envelope,
                                                               *c->slot->plan_bytes, &c->context);
          std::lock_guard<std::mutex> lock(mutex_);
          c->rows = std::move(rows);
          c->done = true;
          cv_.notify_all();
        });
  }

  size_t size() const { return calls_.size(); }

  /// The workers of the calls in flight that started before `before` (driver thread only: the
  /// call threads never touch the list).
  std::set<std::string> WorkersRunningSince(std::chrono::steady_clock::time_point before) const {
    std::set<std::string> workers;
    for (const auto& c : calls_)
      if (c->started < before)
        workers.insert(c->worker);
    return workers;
  }

  /// Cancels every call in flight on `worker`, marked abandoned; how many.
  int Abandon(const std::string& worker) {
    int n = 0;
    for (auto& c : calls_) {
      if (c->worker != worker)
        continue;
      c->abandoned = true;
      c->context.TryCancel();
      ++n;
    }
    return n;
  }

  /// Waits up to `wait` for calls to end; returns the ended ones (joined).
  std::vector<std::unique_ptr<Call>> TakeDone(std::chrono::milliseconds wait) {
    std::vector<std::unique_ptr<Call>> done;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      cv_.wait_for(lock, wait, [&] {
        for (const auto& c : calls_)
          if (c->done)
            return true;
        return false;
      });
      for (auto it = calls_.begin(); it != calls_.end();) {
        if ((*it)->done) {
          done.push_back(std::move(*it));
          it = calls_.erase(it);
        } else {
          ++it;
        }
      }
    }
    for (auto& c : done)
      c->thread.join();
    return done;
  }

  void CancelAll() {
    for (auto& c : calls_)
      c->context.TryCancel();
    for (auto& c : calls_)
      if (c->thread.joinable())
        c->thread.join();
    calls_.clear();
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  std::vector<std::unique_ptr<Call>> calls_;
};

// The remote run of one query's tasks (shuffle_driver.h): rounds of tasks, each round the
// lowest level that still has a needed task without committed output, until every stage the final
// plan reads is committed and fetched here. A worker found lost (it failed a task, or held an
// input of a failed task, and does not answer a health check) loses every output it committed;
// the next rounds compute again those still needed, so lineage goes as far down as it must.
class RemoteRun {
 public:
  RemoteRun(const MaterializedPlan& plan, std::deque<TaskSlot>* slots, std::string dir,
            std::string query_id, std::vector<std::string> workers, WorkerHealth* health,
            size_t max_running, int retries, const std::function<void(int)>& after_round,
            StageFilterMerger* filters)
      : plan_(plan),
        dir_(std::move(dir)),
        query_id_(std::move(query_id)),
        workers_(std::move(workers)),
        health_(health),
        max_running_(max_running),
        retries_(retries),
        after_round_(after_round),
        filters_(filters) {
    for (auto& slot : *slots)
      by_stage_[slot.stage_id].push_back(&slot);
    for (const auto& stage : plan.stages)
      inputs_[stage.id] = stage.inputs;
    for (const auto& node : FindStages(plan.root))
      root_inputs_.push_back(node->stage_id());
  }

  Status Run(const std::shared_ptr<exec::TaskContext>& context,
             std::vector<ShuffleTaskReport>* reports) {
    // Each lost worker may cost a recomputation, and a worker that comes back and is lost again
    // one more, up to the task retries: bounded, so a flapping cluster fails the query instead of
    // running it forever.
    const int max_recoveries = static_cast<int>(workers_.size()) + retries_;
    int recoveries = 0;
    for (int round = 1;; ++round) {
      if (context->cancelled())
        return exec::TaskContext::CancelledStatus();
      std::vector<TaskSlot*> tasks = TasksToRun();
      bool lost = false;
      if (tasks.empty()) {
        SHOAL_RETURN_IF_ERROR(FetchFinalStages(&lost));
        if (!lost) {
          for (const auto& [stage, stage_slots] : by_stage_)
            for (const TaskSlot* slot : stage_slots)
              reports->push_back({slot->stage_id, slot->partition, slot->rows, slot->attempts});
          return Status::OK();
        }
      } else {
        SHOAL_RETURN_IF_ERROR(RunRound(tasks, round, context, &lost));
      }
      if (!lost) {
        if (after_round_)
          after_round_(round);
        continue;
      }
      if (++recoveries > max_recoveries)
        return Status::Unavailable(
                   "materialized shuffle: gave up after losing workers {} times (lost: {})",
                   recoveries - 1, fmt::join(lost_, ", "))
            .WithHint("check the workers' logs; each lost worker's outputs were computed again");
    }
  }

 private:
  bool Committed(int stage_id) const {
    for (const TaskSlot* slot : by_stage_.at(stage_id))
      if (slot->committed_on.empty())
        return false;
    return true;
  }

  // The tasks of the next round: a stage is needed when the final plan reads it or a needed stage
  // that is not committed yet reads it; of the needed stages' tasks without committed output,
  // those of the lowest level (their inputs are then all committed).
  std::vector<TaskSlot*> TasksToRun() const {
    std::set<int> needed(root_inputs_.begin(), root_inputs_.end());
    for (auto it = plan_.stages.rbegin(); it != plan_.stages.rend(); ++it) {
      if (needed.count(it->id) && !Committed(it->id))
        needed.insert(it->inputs.begin(), it->inputs.end());
    }
    std::vector<TaskSlot*> tasks;
    int level = -1;
    for (const auto& stage : plan_.stages) {  // by level
      if (!needed.count(stage.id) || (level >= 0 && stage.level > level))
        continue;
      for (TaskSlot* slot : by_stage_.at(stage.id)) {
        if (!slot->committed_on.empty())
          continue;
        level = stage.level;
        tasks.push_back(slot);
      }
    }
    return tasks;
  }

  // The worker for the next attempt of `slot`: round robin from the task's own place, skipping
  // quarantined workers and those the task failed on. Empty when there is none.
  std::string PickWorker(const TaskSlot& slot) const {
    const size_t n = workers_.size();
    for (size_t i = 0; i < n; ++i) {
      const std::string& w =
          workers_[(slot.index + static_cast<size_t>(slot.attempts) - 1 + i) % n];
      if (!slot.failed_on.count(w) && !health_->IsQuarantined(w))
        return w;
    }
    return {};
  }

  // `worker` does not answer (quarantined by the health check) or answers as a new process (it
  // restarted): every output it committed is forgotten, to be computed again where still needed.
  // Whether an input of `reader` was lost.
  bool LoseWorker(const std::string& worker, int reader, bool restarted = false) {
    if (std::find(lost_.begin(), lost_.end(), worker) == lost_.end())
      lost_.push_back(worker);
    bool input_lost = false;
    int forgotten = 0;
    for (auto& [stage, stage_slots] : by_stage_) {
      for (TaskSlot* slot : stage_slots) {
        if (slot->committed_on != worker)
          continue;
        slot->committed_on.clear();
        ForgetStageFileLocation(dir_, slot->stage_id, slot->partition);
        ++forgotten;
        const auto& in = inputs_[reader];
        if (reader == 0 || std::find(in.begin(), in.end(), slot->stage_id) != in.end())
          input_lost = true;
      }
    }
    if (forgotten > 0)
      SHOAL_LOG(kWarning,
                "materialized shuffle: worker {} {}; computing its {} committed {} again{}", worker,
                restarted ? "restarted and lost its outputs" : "is lost", forgotten,
                forgotten == 1 ? "output" : "outputs", restarted ? "" : " on the other workers");
    return input_lost;
  }

  // Whether `worker`, which answers, is another process than the one that committed outputs
  // there: a restart (with an empty --shuffle-dir, or a cleaned one) loses them all, and the
  // health check alone cannot tell.
  bool Restarted(const std::string& worker) const {
    std::set<std::string> recorded;
    for (const auto& [stage, stage_slots] : by_stage_)
      for (const TaskSlot* slot : stage_slots)
        if (slot->committed_on == worker && !slot->committed_incarnation.empty())
          recorded.insert(slot->committed_incarnation);
    if (recorded.empty())
      return false;
    Result<std::string> now = PingShuffleWorker(worker, std::chrono::seconds(5));
    if (!now.ok())
      return false;  // the retry's own health checks deal with it
    return recorded.size() > 1 || *recorded.begin() != *now;
  }

  // After a retryable failure of a task of stage `reader` (0: the driver's final fetch) on
  // `worker`: checks that worker and those holding the stage's inputs. Whether an input was lost.
  bool CheckSuspects(const std::string& worker, int reader, bool* lost) {
    std::set<std::string> suspects;
    if (!worker.empty())
      suspects.insert(worker);
    const std::vector<int>& in = reader == 0 ? root_inputs_ : inputs_[reader];
    for (int stage : in)
      for (const TaskSlot* slot : by_stage_.at(stage))
        if (!slot->committed_on.empty())
          suspects.insert(slot->committed_on);
    bool input_lost = false;
    for (const auto& w : suspects) {
      if (health_->CheckNow(w).ok()) {
        if (Restarted(w)) {
          *lost = true;
          input_lost = LoseWorker(w, reader, /*restarted=*/true) || input_lost;
        }
        continue;
      }
      *lost = true;
      input_lost = LoseWorker(w, reader) || input_lost;
    }
    return input_lost;
  }

  // A task call blocks until its task ends, so a worker that freezes (a hung host, a stopped
  // process, a network that drops packets without resetting connections) would hold its calls
  // forever. Every kWatchInterval the workers of calls running longer than that are checked; the
  // calls of one that does not answer are cancelled and fail as its loss (retryable), so their
  // tasks and its committed outputs are computed elsewhere.
  static constexpr std::chrono::seconds kWatchInterval{5};

  void WatchRunningCalls(RemoteCallSet* calls, std::chrono::steady_clock::time_point* last) {
    const auto now = std::chrono::steady_clock::now();
    if (now - *last < kWatchInterval)
      return;
    *last = now;
    for (const std::string& worker : calls->WorkersRunningSince(now - kWatchInterval)) {
      Status health = health_->CheckNow(worker);
      if (health.ok())
        continue;
      const int n = calls->Abandon(worker);
      SHOAL_LOG(kWarning,
                "materialized shuffle: worker {} stopped answering ({}) while it ran {} {}; "
                "running {} elsewhere",
                worker, health.UserMessage(), n, n == 1 ? "task" : "tasks", n == 1 ? "it" : "them");
    }
  }

  Status RunRound(const std::vector<TaskSlot*>& tasks, int round,
                  const std::shared_ptr<exec::TaskContext>& context, bool* lost) {
    RemoteCallSet calls;
    std::deque<TaskSlot*> queue(tasks.begin(), tasks.end());
    std::vector<std::string> failures;
    Status deterministic;
    bool stop_starting = false;  // an input was lost: this round ends, the next recomputes it
    auto last_watch = std::chrono::steady_clock::now();
    for (;;) {
      if (context->cancelled()) {
        calls.CancelAll();
        return exec::TaskContext::CancelledStatus();
      }
      while (!stop_starting && calls.size() < max_running_ && !queue.empty()) {
        TaskSlot* slot = queue.front();
        queue.pop_front();
        ++slot->attempts;
        std::string worker = PickWorker(*slot);
        if (worker.empty()) {
          // Every worker is quarantined or failed this task: check them all once more.
          auto usable = health_->Usable(workers_);
          if (usable.ok())
            worker = PickWorker(*slot);
        }
        if (worker.empty()) {
          slot->attempt_errors.push_back(
              slot->failed_on.empty() ? std::string("no worker answers")
                                      : fmt::format("no worker but the {} it failed on answers",
                                                    slot->failed_on.size() == 1 ? "one" : "ones"));
          failures.push_back(FailedTaskMessage(*slot));
          continue;
        }
        // Before the call: a cancel or a failure must still find this worker's directory.
        NoteRemoteShuffleQuery(dir_, worker, query_id_);
        proto::ShuffleTaskEnvelopeProto envelope = slot->envelope_proto;
        envelope.set_attempt(slot->attempts);
        for (auto& f : filters_->FiltersFor(slot->stage_id))
          *envelope.add_runtime_filters() = std::move(f);
        for (auto& location : StageFileLocations(dir_))
          *envelope.add_remote_files() = std::move(location);
        calls.Start(slot, worker, query_id_, std::move(envelope));
      }
      if (calls.size() == 0 && (queue.empty() || stop_starting))
        break;
      WatchRunningCalls(&calls, &last_watch);
      for (auto& call : calls.TakeDone(std::chrono::milliseconds(50))) {
        TaskSlot* slot = call->slot;
        if (call->abandoned && !call->rows.ok())
          call->rows = Status::Unavailable(
              "worker {} stopped answering health checks while it ran the task", call->worker);
        if (call->rows.ok()) {
          slot->committed_on = call->worker;
          slot->committed_incarnation = call->rows->incarnation;
          slot->committed_attempt = slot->attempts;
          slot->rows = call->rows->rows;
          filters_->AddTask(slot->stage_id, slot->partition,
                            call->rows->runtime_filters.empty()
                                ? std::nullopt
                                : std::optional<std::string>(call->rows->runtime_filters));
          SetStageFileLocation(dir_, slot->stage_id, slot->partition,
                               {call->worker, query_id_, slot->attempts});
          continue;
        }
        const Status& error = call->rows.status();
        slot->attempt_errors.push_back(
            fmt::format("on worker {}: {}", call->worker, error.UserMessage()));
        if (!IsRetryableTaskError(error)) {
          NoteDeterministicFailure(*slot, error, &deterministic);
          failures.push_back(FailedTaskMessage(*slot));
          continue;
        }
        // Never again on the worker that failed it; and if that worker or one holding the task's
        // inputs is gone, the inputs are computed again first (the next round).
        slot->failed_on.insert(call->worker);
        if (CheckSuspects(call->worker, slot->stage_id, lost)) {
          SHOAL_LOG(kInfo,
                    "shuffle stage {} partition {}: attempt {} on {} failed ({}); running it "
                    "again once its lost inputs are computed again",
                    slot->stage_id, slot->partition, slot->attempts, call->worker,
                    error.UserMessage());
          stop_starting = true;
          continue;
        }
        if (++slot->failures <= retries_) {
          SHOAL_LOG(kInfo, "shuffle stage {} partition {}: attempt {} on {} failed ({}); retrying",
                    slot->stage_id, slot->partition, slot->attempts, call->worker,
                    error.UserMessage());
          queue.push_front(slot);
          continue;
        }
        failures.push_back(FailedTaskMessage(*slot));
      }
    }
    SHOAL_RETURN_IF_ERROR(deterministic);
    return LevelFailures(failures, tasks.size(), round,
                         "each attempt's error is quoted above; a task's error that would repeat "
                         "on every attempt is not retried");
  }

  // Fetches every file of the stages the final plan reads into the driver's directory (the final
  // plan then reads local files only): a worker lost meanwhile is found here, not in the middle of
  // the result. Sets `*lost` (and returns OK) when a worker holding one was lost.
  Status FetchFinalStages(bool* lost) {
    struct Job {
      const TaskSlot* slot;
      Status status;
    };
    std::vector<Job> jobs;
    for (int stage : root_inputs_)
      for (const TaskSlot* slot : by_stage_.at(stage))
        jobs.push_back({slot, Status::OK()});
    std::atomic<size_t> next{0};
    auto work = [&] {
      for (size_t j = next++; j < jobs.size(); j = next++)
        jobs[j].status = FetchTaskOutput(*jobs[j].slot);
    };
    std::vector<std::thread> threads;
    const size_t n = std::min(std::max<size_t>(max_running_, 1), jobs.size());
    for (size_t t = 1; t < n; ++t)
      threads.emplace_back(work);
    work();
    for (auto& t : threads)
      t.join();
    for (const Job& job : jobs) {
      if (job.status.ok())
        continue;
      if (IsRetryableTaskError(job.status) &&
          (CheckSuspects(job.slot->committed_on, 0, lost) || *lost))
        continue;
      return job.status;
    }
    return Status::OK();
  }

  Status FetchTaskOutput(const TaskSlot& slot) const {
    const StageFileExec& stage = *slot.stage;
    const RemoteStageFile from{slot.committed_on, query_id_, slot.committed_attempt};
    struct stat st {};
    if (!stage.hash_stage()) {
      const std::string path = stage.FilePath(slot.partition);
      if (::stat(path.c_str(), &st) == 0)
        return Status::OK();
      return FetchStageFile({from.worker, from.query_id, 0}, slot.stage_id, slot.partition, path);
    }
    for (int p = 0; p < stage.num_partitions(); ++p) {
      const std::string path =
          FetchedMapOutputPath(dir_, slot.stage_id, slot.partition, slot.committed_attempt, p);
      if (::stat(path.c_str(), &st) == 0)
        continue;
      SHOAL_RETURN_IF_ERROR(FetchMapOutput(from, slot.stage_id, slot.partition, p, path));
    }
    return Status::OK();
  }

  const MaterializedPlan& plan_;
  std::string dir_;
  std::string query_id_;
  std::vector<std::string> workers_;
  WorkerHealth* health_;
  size_t max_running_;
  int retries_;
  const std::function<void(int)>& after_round_;
  StageFilterMerger* filters_;
  std::map<int, std::vector<TaskSlot*>> by_stage_;
  std::map<int, std::vector<int>> inputs_;
  std::vector<int> root_inputs_;
  std::vector<std::string> lost_;
};

struct RunningTask {
  pid_t pid = -1;
  TaskSlot* slot = nullptr;
  std::string stdout_path;
  std::string stderr_path;
  // The launcher that forked the task (its name for it in `launched`); null: this process's own
  // child (SpawnTaskProcess), reaped with waitpid.
  std::shared_ptr<TaskLauncher> launcher;
  LaunchedTask launched;
};

// How a running task ended: its wait status, or why it is lost (its launcher died).
struct EndedTask {
  RunningTask task;
  Result<int> status;
};

// Every task process started and not yet reaped; killing them (process group first, so anything a
// task started dies too) happens on every way out of a level, including errors and cancellation.
// Tasks are forked by the driver's launcher when it has one (task_launcher.h), which reaps them
// and reports their ends; otherwise they are this process's children.
class ProcessSet {
 public:
  explicit ProcessSet(SharedTaskLauncher* launchers) : launchers_(launchers) {}
  ~ProcessSet() { KillAll(); }

  std::vector<RunningTask>& tasks() { return tasks_; }

  Result<pid_t> Spawn(const std::string& executable, TaskSlot* slot, const std::string& out_path,
                      const std::string& err_path) {
    if (launchers_ != nullptr) {
      if (std::shared_ptr<TaskLauncher> launcher = launchers_->Get(executable)) {
        auto launched = launcher->Spawn(slot->envelope, out_path, err_path);
        if (launched.ok()) {
          tasks_.push_back({launched->pid, slot, out_path, err_path, launcher, *launched});
          return launched->pid;
        }
        // This one starts by itself; the next asks a new launcher if this one is gone.
        SHOAL_LOG(kWarning, "materialized shuffle: the task launcher could not start a task ({})",
                  launched.status().UserMessage());
      }
    }
    SHOAL_ASSIGN_OR_RETURN(pid_t pid,
                           SpawnTaskProcess(executable, slot->envelope, out_path, err_path));
    tasks_.push_back({pid, slot, out_path, err_path, nullptr, {}});
    return pid;
  }

  /// The tasks that ended, waiting up to `wait` for one when none has.
  std::vector<EndedTask> TakeEnded(std::chrono::milliseconds wait) {
    std::vector<EndedTask> ended;
    std::shared_ptr<TaskLauncher> waiter;
    uint64_t news = 0;
    bool own_children = false;
    for (const auto& t : tasks_) {
      if (t.launcher && !waiter) {
        waiter = t.launcher;
        news = waiter->news();
      }
      own_children = own_children || !t.launcher;
    }
    for (size_t i = 0; i < tasks_.size();) {
      std::optional<Result<int>> status = Poll(tasks_[i]);
      if (!status) {
        ++i;
        continue;
      }
      ended.push_back({std::move(tasks_[i]), std::move(*status)});
      tasks_.erase(tasks_.begin() + static_cast<std::ptrdiff_t>(i));
    }
    if (ended.empty() && waiter && !own_children)
      waiter->WaitForNews(news, wait);
    else if (ended.empty())
      std::this_thread::sleep_for(wait);
    return ended;
  }

  void KillAll() {
    // A task whose end was reported is not killed: its pid may belong to another process now.
    for (size_t i = 0; i < tasks_.size();) {
      if (tasks_[i].launcher) {
        if (tasks_[i].launcher->TakeExit(tasks_[i].launched)) {
          tasks_.erase(tasks_.begin() + static_cast<std::ptrdiff_t>(i));
          continue;
        }
      }
      ++i;
    }
    for (const auto& t : tasks_) {
      ::kill(-t.pid, SIGKILL);
      ::kill(t.pid, SIGKILL);
    }
    for (const auto& t : tasks_) {
      if (t.launcher) {
        // Killed: its launcher reports it at once unless it is stuck (then it is killed too).
        (void)t.launcher->WaitExit(t.launched, std::chrono::seconds(30));
        continue;
      }
      int status = 0;
      while (::waitpid(t.pid, &status, 0) < 0 && errno == EINTR) {
      }
    }
    tasks_.clear();
  }

 private:
  static std::optional<Result<int>> Poll(const RunningTask& t) {
    if (t.launcher)
      return t.launcher->TakeExit(t.launched);
    int status = 0;
    const pid_t r = ::waitpid(t.pid, &status, WNOHANG);
    if (r == 0 || (r < 0 && errno == EINTR))
      return std::nullopt;
    if (r < 0)
      return Result<int>(
          Status::Internal("lost track of task process {}: {}", t.pid, std::strerror(errno)));
    return Result<int>(status);
  }

  SharedTaskLauncher* launchers_;
  std::vector<RunningTask> tasks_;
};

std::string NewQueryId() {
  std::random_device rd;
  return fmt::format("{:08x}{:08x}", rd(), rd());
}

std::string EnvelopePath(const std::string& tasks_dir, int stage_id, int partition) {
  return fmt::format("{}/task-{}-{}.envelope", tasks_dir, stage_id, partition);
}

}  // namespace

Status RequireNoStageOutput(const std::string& dir) {
  std::error_code ec;
  if (!fs::exists(dir, ec))
    return Status::OK();
  std::vector<std::string> stale;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    std::string name = entry.path().filename().string();
    if (IsStageFileName(name) || IsMapCommitName(name))
      stale.push_back(std::move(name));
  }
  if (ec)
    return Status::IoError("cannot list shuffle directory {}: {}", dir, ec.message());
  if (stale.empty())
    return Status::OK();
  std::sort(stale.begin(), stale.end());
  std::string names;
  for (size_t i = 0; i < stale.size() && i < 5; ++i)
    names += (i ? ", " : "") + stale[i];
  if (stale.size() > 5)
    names += fmt::format(" and {} more", stale.size() - 5);
  return Status::InvalidArgument(
             "shuffle directory {} already holds stage output ({}); a stage reads a partition "
             "file it finds, so this query would return another query's rows",
             dir, names)
      .WithHint(fmt::format(
          "use one shuffle directory per query, or remove the old files with `shoal shuffle gc {}`",
          dir));
}

bool IsMarkedShuffleDir(const std::string& dir) {
  struct stat st {};
  return ::stat((fs::path(dir) / kShuffleDirMarker).c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

Status MarkShuffleDir(const std::string& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec)
    return Status::IoError("cannot create shuffle directory {}: {}", dir, ec.message());
  if (IsMarkedShuffleDir(dir))
    return Status::OK();
  return WriteFileAtomically(
      (fs::path(dir) / kShuffleDirMarker).string(),
      "This directory holds Shoal materialized-shuffle files; `shoal shuffle gc` may remove its "
      "q-<id>/ subdirectories.\n");
}

bool IsQueryShuffleDirName(const std::string& name) {
  return name.size() > 2 && name.size() <= 34 && name.rfind("q-", 0) == 0 &&
         name.find_first_not_of("0123456789abcdef", 2) == std::string::npos;
}

Result<int64_t> RemoveShuffleFiles(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    return Status::NotFound("shuffle directory {} does not exist", dir);
  // Never trust a name alone: `gc` given the wrong directory must not delete someone's `tasks/`.
  if (!IsMarkedShuffleDir(dir))
    return Status::InvalidArgument(
               "{} is not a Shoal shuffle directory (it has no {} file); nothing was removed", dir,
               kShuffleDirMarker)
        .WithHint(
            "give the directory a `shoal sql --shuffle-dir` or `shoal worker --shuffle-dir` used");
  int64_t removed = 0;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    // Each query's directory carries the marker too; a q-<hex> folder without it is not Shoal's.
    if (!IsQueryShuffleDirName(name) || !entry.is_directory(ec) ||
        !IsMarkedShuffleDir(entry.path().string()))
      continue;
    int64_t files = 0;
    for (const auto& f : fs::recursive_directory_iterator(entry.path(), ec))
      files += f.is_regular_file() ? 1 : 0;
    if (!ec)
      fs::remove_all(entry.path(), ec);
    if (ec)
      return Status::IoError("cannot remove {}: {}", entry.path().string(), ec.message());
    removed += files;
  }
  if (ec)
    return Status::IoError("cannot list shuffle directory {}: {}", dir, ec.message());
  return removed;
}

Result<std::shared_ptr<ShuffleDriver>> ShuffleDriver::Make(ShuffleDriverOptions options) {
  if (!options.codecs)
    options.codecs = TableCodecRegistry::Builtin(nullptr);
  if (options.executable.empty())
    return Status::InvalidArgument("a shuffle driver needs the shoal binary to run tasks with");
  return std::shared_ptr<ShuffleDriver>(new ShuffleDriver(std::move(options)));
}

ShuffleDriver::~ShuffleDriver() {
  if (private_dir_.empty())
    return;
  std::error_code ec;
  fs::remove_all(private_dir_, ec);
  if (ec)
    SHOAL_LOG(kWarning, "could not remove shuffle directory {}: {}", private_dir_, ec.message());
}

Result<std::string> ShuffleDriver::PrivateDir() {
  std::lock_guard<std::mutex> lock(private_dir_mutex_);
  if (!private_dir_.empty())
    return private_dir_;
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = fmt::format("{}/shoal-shuffle-XXXXXX", (tmp && *tmp) ? tmp : "/tmp");
  // mkdtemp: a fresh name, mode 0700 (other users can neither read the stage files nor plant
  // some for a query to read).
  if (::mkdtemp(pattern.data()) == nullptr)
    return Status::IoError("cannot create a shuffle directory {}: {}", pattern,
                           std::strerror(errno))
        .WithHint("set TMPDIR to a writable directory, or SET shuffle_dir");
  private_dir_ = pattern;
  return private_dir_;
}

bool ShuffleDriver::Stages(const Settings& settings) const {
  return options_.private_dir || !settings.GetString("shuffle_dir").empty();
}

Result<exec::ExecPlanPtr> ShuffleDriver::Transform(
    const exec::ExecPlanPtr& plan, const std::shared_ptr<exec::TaskContext>& context) {
  const Settings& settings = context->settings();
  std::string dir = settings.GetString("shuffle_dir");
  if (dir.empty()) {
    if (!options_.private_dir)
      return plan;
    SHOAL_ASSIGN_OR_RETURN(dir, PrivateDir());
  }
  MaterializedPlannerOptions planner;
  // A directory per query under the session's: any number of queries run one after another (or
  // at once) in one shuffle_dir, and the query's end removes exactly its own files.
  std::string base = fs::absolute(dir).lexically_normal().string();
  while (base.size() > 1 && base.back() == '/')
    base.pop_back();
  planner.shuffle_dir = fmt::format("{}/q-{}", base, NewQueryId());
  planner.compression = settings.GetString("shuffle_compression");
  planner.local_tasks = options_.workers.empty() && options_.resolve_workers == nullptr;
  planner.repeated_build_min_bytes = settings.GetInt("shuffle_build_stage_bytes");
  SHOAL_ASSIGN_OR_RETURN(MaterializedPlan staged, PlanMaterialized(plan, planner));
  if (staged.stages.empty())
    return staged.root;  // no shuffle point: nothing to hand to tasks
  std::shared_ptr<const ShuffleDriver> self = shared_from_this();
  StageRunner run = [self](const MaterializedPlan& staged_plan, const std::string& stage_dir,
                           const std::shared_ptr<exec::TaskContext>& task_context,
                           std::vector<ShuffleTaskReport>* reports) {
    return self->RunStages(staged_plan, stage_dir, task_context, reports);
  };
  return exec::ExecPlanPtr(
      std::make_shared<ShuffleQueryExec>(std::move(run), std::move(staged), planner.shuffle_dir));
}

Status ShuffleDriver::RunStages(const MaterializedPlan& plan, const std::string& dir,
                                const std::shared_ptr<exec::TaskContext>& context,
                                std::vector<ShuffleTaskReport>* reports) const {
  // Before writing anything: the filesystem is the state, so old stage files would be read.
  SHOAL_RETURN_IF_ERROR(RequireNoStageOutput(dir));
  // The session's directory and the query's both carry the marker `shoal shuffle gc` looks for.
  SHOAL_RETURN_IF_ERROR(MarkShuffleDir(fs::path(dir).parent_path().string()));
  SHOAL_RETURN_IF_ERROR(MarkShuffleDir(dir));
  const std::string tasks_dir = dir + "/tasks";
  std::error_code ec;
  fs::create_directories(tasks_dir, ec);
  if (ec)
    return Status::IoError("cannot create {}: {}", tasks_dir, ec.message());

  const Settings& settings = context->settings();
  // Remote tasks: the workers of this query, those that do not answer skipped (quarantined).
  const bool remote = !options_.workers.empty() || options_.resolve_workers != nullptr;
  std::vector<std::string> workers = options_.workers;
  std::shared_ptr<WorkerHealth> health = options_.health;
  if (remote) {
    if (options_.resolve_workers) {
      SHOAL_ASSIGN_OR_RETURN(workers, options_.resolve_workers());
    }
    if (!health) {
      std::lock_guard<std::mutex> lock(health_mutex_);
      if (!own_health_)
        own_health_ = std::make_shared<WorkerHealth>(
            [](const std::string& worker) {
              return PingShuffleWorker(worker, std::chrono::seconds(5)).status();
            },
            WorkerHealthOptions{});
      health = own_health_;
    }
    SHOAL_RETURN_IF_ERROR(health->Usable(workers).status());
  }
  proto::ShuffleSessionSpecProto spec;
  spec.set_tpch_scale(options_.tpch_scale);
  for (const auto& [name, value] : settings.overrides()) {
    spec.add_setting_names(name);
    spec.add_setting_values(value);
  }
  spec.set_target_partitions(static_cast<int32_t>(settings.GetInt("threads")));
  const std::vector<std::string> codec_ids = ShuffleCodecIds(*options_.codecs);
  // Local tasks read their plans from files; the gRPC calls to remote workers keep the default
  // message limit, so in-memory tables do not travel inside their plans (yet).
  const TableCodecRegistryPtr codecs =
      !remote ? MemoryTableCodec::ForQuery(options_.codecs, settings) : options_.codecs;

  // Every stage is shipped: independent subtrees (an aggregate in each branch of a union) as much
  // as a chain.
  std::deque<TaskSlot> slots;
  std::map<int, std::string> plan_bytes;
  // Remote tasks: the workers' per-query directory, and no location of an older query in `dir`.
  const std::string query_id = NewQueryId();
  ClearStageFileLocations(dir);
  std::map<int, std::vector<TaskSlot*>> by_level;
  std::map<int, int> task_counts;
  for (const auto& stage : plan.stages)
    task_counts[stage.id] = stage.node->num_tasks();
  StageFilterMerger filters(plan.filter_routes, std::move(task_counts));
  for (const auto& stage : plan.stages) {
    const std::string plan_path = fmt::format("{}/stage-{}.plan", tasks_dir, stage.id);
    auto encoded = EncodePlan(stage.node, *codecs);
    if (!encoded.ok())
      return std::move(encoded).status().WithContext(
          fmt::format("encoding shuffle stage {}", stage.id));
    SHOAL_RETURN_IF_ERROR(WriteFileAtomically(plan_path, *encoded));
    const std::string* stage_plan_bytes = &(plan_bytes[stage.id] = std::move(*encoded));
    const int n = stage.node->num_tasks();
    for (int p = 0; p < n; ++p) {
      proto::ShuffleTaskEnvelopeProto envelope;
      *envelope.mutable_session() = spec;
      envelope.set_plan_path(plan_path);
      envelope.set_stage_id(stage.id);
      envelope.set_partition(p);
      envelope.set_partition_count(n);
      for (const auto& id : codec_ids)
        envelope.add_codec_ids(id);
      for (const auto& root : io::ProcessDataRoots()->roots())
        envelope.add_data_roots(root);
      for (auto& e : filters.ExportsOf(stage.id))
        *envelope.add_export_runtime_filters() = std::move(e);
      TaskSlot& slot = slots.emplace_back();
      slot.stage_id = stage.id;
      slot.partition = p;
      slot.envelope = EnvelopePath(tasks_dir, stage.id, p);
      slot.stage = stage.node.get();
      slot.index = slots.size() - 1;
      slot.envelope_proto = envelope;
      slot.plan_bytes = stage_plan_bytes;
      SHOAL_RETURN_IF_ERROR(WriteEnvelope(slot.envelope, envelope));
      by_level[stage.level].push_back(&slot);
    }
  }

  const auto max_running = static_cast<size_t>(settings.GetInt("shuffle_max_concurrent_tasks"));
  const int retries = static_cast<int>(settings.GetInt("shuffle_task_retries"));
  if (remote) {
    RemoteRun run(plan, &slots, dir, query_id, std::move(workers), health.get(), max_running,
                  retries, options_.after_round, &filters);
    Status st = run.Run(context, reports);
    for (const auto& note : filters.Notes())
      SHOAL_LOG(kInfo, "materialized shuffle: runtime filter {}", note);
    // Every worker sent a task of the query drops it now when it failed (failed attempts
    // included; the query's end then finds nothing left to drop).
    if (!st.ok())
      DropRemoteStageFiles(dir);
    return st;
  }
  for (auto& [level, level_slots] : by_level) {
    ProcessSet processes(options_.task_launcher ? &launcher_ : nullptr);
    std::deque<TaskSlot*> queue(level_slots.begin(), level_slots.end());
    std::vector<std::string> failures;
    Status deterministic;
    auto finish = [&](TaskSlot* slot, Result<int64_t> rows) -> Status {
      if (rows.ok()) {
        filters.AddTask(slot->stage_id, slot->partition, ReadTaskFilters(dir, *slot));
        reports->push_back({slot->stage_id, slot->partition, *rows, slot->attempts});
        return Status::OK();
      }
      slot->attempt_errors.push_back(rows.status().UserMessage());
      SHOAL_ASSIGN_OR_RETURN(std::optional<int64_t> committed,
                             slot->stage->CommittedTaskRows(slot->partition));
      if (committed) {
        // Committed before the failure: a rename made the output whole, so it is not re-run.
        filters.AddTask(slot->stage_id, slot->partition, ReadTaskFilters(dir, *slot));
        reports->push_back({slot->stage_id, slot->partition, *committed, slot->attempts});
        return Status::OK();
      }
      if (!IsRetryableTaskError(rows.status())) {
        NoteDeterministicFailure(*slot, rows.status(), &deterministic);
        failures.push_back(FailedTaskMessage(*slot));
        return Status::OK();
      }
      if (slot->attempts <= retries) {
        SHOAL_LOG(kInfo, "shuffle stage {} partition {}: attempt {} failed ({}); retrying",
                  slot->stage_id, slot->partition, slot->attempts, rows.status().UserMessage());
        queue.push_front(slot);
        return Status::OK();
      }
      failures.push_back(FailedTaskMessage(*slot));
      return Status::OK();
    };
    // Every task of the level runs (retries included) even after one has failed for good, so the
    // report names every failure at once rather than the first one found.
    for (;;) {
      if (context->cancelled()) {
        processes.KillAll();
        return exec::TaskContext::CancelledStatus();
      }
      while (processes.tasks().size() < max_running && !queue.empty()) {
        TaskSlot* slot = queue.front();
        queue.pop_front();
        SHOAL_ASSIGN_OR_RETURN(std::optional<int64_t> committed,
                               slot->stage->CommittedTaskRows(slot->partition));
        if (committed) {
          filters.AddTask(slot->stage_id, slot->partition, ReadTaskFilters(dir, *slot));
          reports->push_back({slot->stage_id, slot->partition, *committed, slot->attempts});
          continue;
        }
        ++slot->attempts;
        // The attempt names a map task's files: its envelope is written for each attempt.
        slot->envelope_proto.set_attempt(slot->attempts);
        SetEnvelopeFilters(filters.FiltersFor(slot->stage_id), &slot->envelope_proto);
        SHOAL_RETURN_IF_ERROR(WriteEnvelope(slot->envelope, slot->envelope_proto));
        const std::string base = fmt::format("{}/task-{}-{}.attempt-{}", tasks_dir, slot->stage_id,
                                             slot->partition, slot->attempts);
        auto spawned =
            processes.Spawn(options_.executable, slot, base + ".stdout", base + ".stderr");
        if (!spawned.ok())
          SHOAL_RETURN_IF_ERROR(finish(slot, spawned.status()));
      }
      if (processes.tasks().empty() && queue.empty())
        break;
      for (EndedTask& ended : processes.TakeEnded(std::chrono::milliseconds(5))) {
        // The process group may still hold something the task started.
        ::kill(-ended.task.pid, SIGKILL);
        Result<int64_t> rows =
            ended.status.ok()
                ? TaskOutcome(*ended.status, ended.task.stdout_path, ended.task.stderr_path)
                : Result<int64_t>(ended.status.status());
        SHOAL_RETURN_IF_ERROR(finish(ended.task.slot, std::move(rows)));
      }
    }
    SHOAL_RETURN_IF_ERROR(deterministic);
    SHOAL_RETURN_IF_ERROR(LevelFailures(failures, level_slots.size(), level,
                                        "each attempt's error is quoted above; a task's error "
                                        "that would repeat on every attempt is not retried"));
  }
  for (const auto& note : filters.Notes())
    SHOAL_LOG(kInfo, "materialized shuffle: runtime filter {}", note);
  return Status::OK();
}

}  // namespace shoal::distributed::shuffle
