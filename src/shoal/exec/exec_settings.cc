#include "shoal/exec/exec_settings.h"

#include <cstdint>
#include <vector>

#include <unistd.h>

#include "shoal/common/setting_declaration.h"
#include "shoal/common/thread_pool.h"

namespace shoal::exec {
namespace {

int64_t DefaultMemoryLimit() {
  // 80% of physical memory leaves room for the OS and for memory Shoal does not account.
  long pages = sysconf(_SC_PHYS_PAGES);
  long page_size = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page_size <= 0)
    return 0;
  return static_cast<int64_t>(static_cast<double>(pages) * static_cast<double>(page_size) * 0.8);
}

}  // namespace

std::span<const SettingDefinition> ExecSettingDeclarations() {
  // Built once: two defaults depend on the machine (cores, physical memory).
  static const std::vector<SettingDefinition> kDeclarations = {
      DeclareInt("batch_size", 8192, 1, 1 << 24, "exec",
                 "Rows per record batch produced by scans and operators"),
      DeclareInt("threads", ThreadPool::HardwareConcurrency(), 1, 1024, "exec",
                 "Worker threads (and default partitions) per query"),
      DeclareBytes("memory_limit", DefaultMemoryLimit(), 0, INT64_MAX, "exec",
                   "Memory a query may hold before spilling or failing (0: unlimited)"),
      DeclareString("spill_dir", "", "exec", "Directory for spill files (empty: $TMPDIR or /tmp)"),
      DeclareInt("join_collect_build_rows", 100000, 0, INT64_MAX, "exec",
                 "Hash joins whose build side is estimated at most this many rows share one hash "
                 "table instead of repartitioning both inputs"),
      DeclareBool("runtime_filters", true, "exec",
                  "Hash joins publish a filter of their build keys (range, exact set or Bloom "
                  "filter) that the probe side's table scans apply, skipping Parquet row groups "
                  "and dropping rows that cannot match; off: every probe row is read"),
      DeclareBool("shared_subplans", true, "exec",
                  "An aggregation a query computes alike in several places (a WITH query "
                  "referenced twice) runs once and its result is read by each reference; off: "
                  "each reference computes it again"),
      DeclareBool("scan_filters", true, "exec",
                  "A WHERE right above a Parquet scan is evaluated inside the scan, which then "
                  "decodes its other columns only for the rows kept; off: the scan decodes every "
                  "row and a Filter above drops them"),
      DeclareInt("runtime_filter_wait", 200, 0, 600000, "exec",
                 "Milliseconds a table scan waits, before its first batch, for runtime filters "
                 "still being built (a join in another stage); it then reads without them and "
                 "uses them from the batch after they arrive"),
      DeclareInt("max_recursion_rounds", 0, 0, INT64_MAX, "exec",
                 "Rounds a WITH RECURSIVE query may run its recursive term before it fails "
                 "(54000); 0: no limit, as in PostgreSQL"),
  };
  return kDeclarations;
}

}  // namespace shoal::exec
