// FileTableCodec: the table codecs of external tables over files, "shoal.parquet/1" (Parquet) and
// "shoal.arrow/1" (Arrow IPC files), so scans of such tables run on workers.
//
// The payload is the table's schema and the files the coordinator listed (path and size); no
// footers travel. The scan units inside the task's plan name the file (and row groups or record
// batches) they read, so row-group pruning already happened on the coordinator and a worker opens
// only the files its units name: on a unit's first use it reads that file's footer (one pread for
// Parquet) and keeps it in a per-codec cache, which lives as long as the worker. A cached footer is
// reused while the file's size and modification time stay the same; a file whose size differs
// from the coordinator's, or that is missing, is a clear error naming the file and the table
// (workers read the coordinator's paths: a shared filesystem or identical copies; a relative
// LOCATION resolves against each worker's working directory, as for TBL / CSV tables).
//
// On a worker the decoded table can also plan a scan of its own (it then reads every footer,
// through the same cache); its statistics are unknown there (planning happened on the coordinator).
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "shoal/distributed/codec/table_codec.h"

namespace shoal::distributed {

class FileTableCodec final : public TableCodec,
                             public std::enable_shared_from_this<FileTableCodec> {
 public:
  enum class Format { kParquet, kArrow };

  explicit FileTableCodec(Format format) : format_(format) {}

  std::string id() const override;
  bool CanEncode(const io::TableProvider& table) const override;
  Result<std::string> Encode(const io::TableProvider& table,
                             const std::string& table_name) const override;
  Result<io::TableProviderPtr> Decode(const std::string& payload,
                                      const std::string& table_name) const override;

  /// The one-file table of `path` (reads its footer unless cached and unchanged); `size` is the
  /// coordinator's size of the file, `schema` the table's, `missing` as ParquetTable's (a table
  /// Shoal writes, whose files may lack its last columns).
  Result<io::TableProviderPtr> OpenFile(const std::string& path, int64_t size,
                                        const columnar::SchemaPtr& schema,
                                        const std::string& table_name,
                                        const std::vector<columnar::Scalar>& missing = {}) const;

  /// Footers read so far (tests check that a worker reads only the files its units name).
  int64_t files_opened() const { return files_opened_.load(); }

  /// Cache entries kept at most; past it the cache starts over (tables in use keep their files).
  static constexpr size_t kMaxCachedFiles = 4096;

 private:
  struct Cached {
    int64_t size = 0;
    int64_t mtime_ns = 0;
    io::TableProviderPtr table;
  };

  Format format_;
  mutable std::mutex mutex_;
  mutable std::map<std::string, Cached> cache_;  // key: path, '\n', schema
  mutable std::atomic<int64_t> files_opened_{0};
};

}  // namespace shoal::distributed
