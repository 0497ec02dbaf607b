// QueryProgress: how much of its input a running query has read, for progress lines (the shell's
// now; the server's and the console's views read the same fact).
//
// The runner sets the total from the plan's scans before the query starts (the bytes of every
// scan unit); scans credit the bytes of a unit as its rows come out (in proportion to the unit's
// rows when the provider knows them, the rest when the unit ends), so a query that reads one
// large file still moves. Relaxed atomics: a reader wants an estimate, never a consistent
// snapshot, and the scans' hot path pays one relaxed add per batch.
#pragma once

#include <atomic>
#include <cstdint>

namespace shoal::exec {

class QueryProgress {
 public:
  struct Snapshot {
    int64_t bytes_total = 0;  // 0: unknown (no scan of known size)
    int64_t bytes_read = 0;
  };

  void AddTotal(int64_t bytes) { bytes_total_.fetch_add(bytes, std::memory_order_relaxed); }
  void AddRead(int64_t bytes) { bytes_read_.fetch_add(bytes, std::memory_order_relaxed); }

  Snapshot Read() const {
    return {bytes_total_.load(std::memory_order_relaxed),
            bytes_read_.load(std::memory_order_relaxed)};
  }

 private:
  std::atomic<int64_t> bytes_total_{0};
  std::atomic<int64_t> bytes_read_{0};
};

}  // namespace shoal::exec
