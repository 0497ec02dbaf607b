// SpillManager: the spill files of one operator instance (one stream of a sort, hash aggregate or
// hash join that ran out of memory).
//
// A spill file is an Arrow IPC stream with LZ4-compressed bodies, so spilling reuses the IPC
// writer and reader (and their validation) instead of a private format, and a spilled batch comes
// back with exactly its types. Files live in a directory created lazily on the first spill
// (mkdtemp "shoal-spill-XXXXXX" under the task's spill directory: the `spill_dir` setting, else
// $TMPDIR, else /tmp), so a query that never spills touches no disk. Every file, and the
// directory, is deleted when the manager is destroyed: the operator's stream owns the manager,
// so the end of the query, an error and a cancelled (dropped) stream all clean up the same way.
//
// Bytes written (compressed, on disk), files and rows go into the operator's metrics
// (spilled_bytes, spill_count, extra "spilled_rows"); bytes read back into "spill_read_bytes".
// An unwritable directory or a full disk is an IoError naming the directory and the setting.
//
// Memory: what a spill writes is held by the operator's pool (it is what the operator is giving
// back), but the transient buffers of writing it (the batch gathered for one write, its
// compressed body) come from SpillWritePool(), outside the query's memory_limit. A spill is
// started because that limit is reached, often because another operator of the query took the
// last bytes between two of this one's checks; charging the write to the full query pool would
// turn every such race into a failed query instead of a spill. Those buffers live for one write
// of at most one batch_size of rows, so a query may briefly exceed its limit by that much per
// spilling operator.
//
// Thread safety: Create, Open and Remove may be called from several threads (a partitioned
// operator's helpers); one SpillWriter belongs to one thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "shoal/columnar/ipc/writer.h"
#include "shoal/columnar/record_batch_reader.h"
#include "shoal/common/memory_pool.h"
#include "shoal/exec/task_context.h"

namespace shoal::exec {

/// A finished spill file.
struct SpillFile {
  std::string path;
  int64_t rows = 0;
  int64_t bytes = 0;  // on disk
};

class SpillManager;

/// Process-wide pool (no limit) for the transient buffers of spill writes; see the file comment.
const std::shared_ptr<MemoryPool>& SpillWritePool();

/// Appends batches to one spill file; Finish() closes it. Dropping an unfinished writer closes the
/// file descriptor; the manager still deletes the file.
class SpillWriter {
 public:
  ~SpillWriter();
  SpillWriter(const SpillWriter&) = delete;
  SpillWriter& operator=(const SpillWriter&) = delete;

  Status Write(const columnar::RecordBatch& batch);
  /// Writes the end-of-stream marker and closes the file.
  Result<SpillFile> Finish();

  int64_t rows() const { return rows_; }

 private:
  friend class SpillManager;
  SpillWriter(SpillManager* manager, std::string path)
      : manager_(manager), path_(std::move(path)) {}

  SpillManager* manager_;
  std::string path_;
  std::unique_ptr<columnar::ipc::FileSink> sink_;
  std::unique_ptr<columnar::ipc::RecordBatchWriter> writer_;
  int64_t rows_ = 0;
};

class SpillManager {
 public:
  /// `operator_name` appears in error messages ("spilling Sort[0] ..."); `metrics` may be null.
  SpillManager(std::string base_directory, std::string operator_name,
               std::shared_ptr<MemoryPool> pool, OperatorMetrics* metrics);
  /// Deletes every file created here and the spill directory.
  ~SpillManager();

  SpillManager(const SpillManager&) = delete;
  SpillManager& operator=(const SpillManager&) = delete;

  /// A new spill file for batches of `schema`.
  Result<std::unique_ptr<SpillWriter>> Create(columnar::SchemaPtr schema);
  /// Reads a finished file back; its buffers come from the manager's pool.
  Result<columnar::RecordBatchReaderPtr> Open(const SpillFile& file);
  /// Deletes a file that is no longer needed (its batches may still be alive: they were read).
  void Remove(const SpillFile& file);

  /// The directory, once created; empty before the first spill.
  std::string directory() const;

  int64_t bytes_written() const { return bytes_written_.load(); }

  int64_t files_written() const { return files_written_.load(); }

 private:
  friend class SpillWriter;
  Status EnsureDirectory();
  // Adds where and what to do to an I/O error of a spill.
  Status Explain(Status status) const;
  void Count(const SpillFile& file);

  std::string base_directory_;
  std::string operator_name_;
  std::shared_ptr<MemoryPool> pool_;
  OperatorMetrics* metrics_;
  mutable std::mutex mutex_;
  std::string directory_;
  std::vector<std::string> paths_;  // created and not yet removed
  int64_t next_id_ = 0;
  std::atomic<int64_t> bytes_written_{0};
  std::atomic<int64_t> files_written_{0};
};

}  // namespace shoal::exec
