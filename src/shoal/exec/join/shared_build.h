// SharedBuild: the build side of a join that every probe partition of one execution shares (the
// collect-build hash join and the nested loop join), built once, by whichever probe stream asks
// first, and SharedBuildRegistry, which hands all probe streams of one execution the same one.
//
// How streams find the shared state: a join node is immutable and may run in many executions at
// once, so it keeps a registry keyed by the execution's TaskContext. The first Execute call of an
// execution creates the entry; every probe partition's Execute gets the same SharedBuild; the
// entry is dropped from the registry once all `num_partitions` probe partitions have been opened
// (the streams keep the state alive from then on), or when the TaskContext is gone (an execution
// that opened only some partitions; purged on the next Execute of the node). The registry holds
// the context only weakly, so it never keeps an execution alive, and an expired entry is never
// mistaken for a new execution that reuses the address.
//
// Building: Get() runs the build function under a mutex. Probe streams that ask while it runs
// wait on that mutex; the builder does not need the thread pool (it pulls the build input's
// partitions itself, or through a coalesce's own threads, build_input.h), so a pool of any size
// cannot deadlock on it. A failed build is remembered: every later Get() returns the same error.
//
// Finishing: each probe stream calls FinishProbe() when its probe input ends; the call that
// completes the count returns true, and only that stream emits what depends on all probes (the
// unmatched build rows of RIGHT and FULL joins). The counter's acquire-release ordering makes
// every other stream's matched-flag writes visible to it.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "shoal/exec/task_context.h"

namespace shoal::exec {

template <typename T>
class SharedBuild {
 public:
  SharedBuild(int num_probes, std::shared_ptr<MemoryPool> pool)
      : num_probes_(num_probes), pool_(std::move(pool)) {}

  /// The built value; the first caller runs `build`, the others wait and share its result.
  Result<std::shared_ptr<T>> Get(const std::function<Result<std::shared_ptr<T>>()>& build) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!attempted_) {
      attempted_ = true;
      Result<std::shared_ptr<T>> result = build();
      if (result.ok()) {
        value_ = std::move(result).MoveValueUnsafe();
      } else {
        status_ = result.status();
      }
    }
    if (!status_.ok())
      return status_;
    return value_;
  }

  /// Called once by each probe stream whose input ended; true for the last of them.
  bool FinishProbe() {
    return finished_.fetch_add(1, std::memory_order_acq_rel) + 1 == num_probes_;
  }

  /// The pool the shared build's memory is charged to (one per execution of the node).
  const std::shared_ptr<MemoryPool>& pool() const { return pool_; }

 private:
  const int num_probes_;
  std::shared_ptr<MemoryPool> pool_;
  std::mutex mutex_;
  bool attempted_ = false;
  Status status_;
  std::shared_ptr<T> value_;
  std::atomic<int> finished_{0};
};

template <typename T>
class SharedBuildRegistry {
 public:
  /// The shared build of `context`'s execution, created on first use with a pool named
  /// `pool_name` (a child of the query pool).
  std::shared_ptr<SharedBuild<T>> Acquire(const std::shared_ptr<TaskContext>& context,
                                          int num_partitions, const std::string& pool_name) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto it = entries_.begin(); it != entries_.end();) {
      if (it->second.context.expired()) {
        it = entries_.erase(it);
      } else {
        ++it;
      }
    }
    const TaskContext* key = context.get();
    auto it = entries_.find(key);
    if (it == entries_.end()) {
      Entry entry;
      entry.context = context;
      entry.state =
          std::make_shared<SharedBuild<T>>(num_partitions, context->MakeOperatorPool(pool_name));
      it = entries_.emplace(key, std::move(entry)).first;
    }
    std::shared_ptr<SharedBuild<T>> state = it->second.state;
    if (++it->second.opened >= num_partitions)
      entries_.erase(it);
    return state;
  }

 private:
  struct Entry {
    std::weak_ptr<TaskContext> context;
    std::shared_ptr<SharedBuild<T>> state;
    int opened = 0;
  };

  std::mutex mutex_;
  std::map<const TaskContext*, Entry> entries_;
};

}  // namespace shoal::exec
