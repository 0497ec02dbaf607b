// The output of one map task of a hash stage (a materialized shuffle in one pass, as Spark's
// shuffle map tasks write theirs): map task m reads its share of the stage's input once and
// writes every one of the stage's N partitions,
//   DIR/stage-<s>-map-<m>-attempt-<a>-part-<p>.arrow   p = 0..N-1
// each an Arrow IPC stream written batch by batch to a dot temporary (attempt, pid and a random
// suffix in its name) and renamed to the name above once complete, and then commits them all at
// once by publishing
//   DIR/stage-<s>-map-<m>.commit
// (also through a temporary and a rename): the attempt id and the rows of every partition.
// Readers open a map's data files only through its commit file, so they never see a half-written
// file (a temporary), nor the files of an attempt that died before committing, nor those of an
// older attempt: N renames are not atomic as a group, one commit file is. A fetched copy of a
// committed file from another worker keeps its name (attempt included), so copies of two
// attempts of one map never mix either.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "shoal/columnar/ipc/writer.h"
#include "shoal/columnar/schema.h"
#include "shoal/common/result.h"

namespace shoal::distributed::shuffle {

std::string MapOutputPath(const std::string& dir, int stage_id, int map, int attempt,
                          int partition);
std::string MapCommitPath(const std::string& dir, int stage_id, int map);
/// Where a reducer keeps the committed file (of attempt `attempt`) it fetched from the worker that
/// ran the map: the name the map gave it.
std::string FetchedMapOutputPath(const std::string& dir, int stage_id, int map, int attempt,
                                 int partition);
bool IsMapCommitName(std::string_view name);

/// Test hook for "a task killed mid-write": with the environment variable `env` set to PATH, the
/// first caller while PATH does not exist creates it and gets true (the caller then kills its own
/// process with SIGKILL, so no cleanup runs, exactly like an OOM kill); every later call, false.
bool TestKillHookFires(const char* env);

/// What a map task's commit file records.
struct MapCommit {
  int attempt = 0;
  std::vector<int64_t> rows;  // per partition of the stage
};

/// The commit at `path`; NotFound when there is none (the map has not committed), InvalidData
/// naming the file when it is not one.
Result<MapCommit> ReadMapCommit(const std::string& path);

/// Writes the N partition files of one attempt of one map task, then commits them. Partition
/// files are opened on their first rows; Commit() creates the files of the partitions that got
/// none (an empty stream with the schema), so a committed map has all N. Destroyed without
/// Commit(), it removes its temporaries (a SIGKILL leaves them: nothing reads them).
class MapOutputWriter {
 public:
  MapOutputWriter(std::string dir, int stage_id, int map, int attempt, int partitions,
                  columnar::SchemaPtr schema, columnar::ipc::WriteOptions options);
  ~MapOutputWriter();
  MapOutputWriter(const MapOutputWriter&) = delete;
  MapOutputWriter& operator=(const MapOutputWriter&) = delete;

  Status Write(int partition, const columnar::RecordBatch& batch);
  /// Closes every file, renames each to its attempt's name and publishes the commit file.
  Status Commit();

  int64_t rows() const;

 private:
  struct Part {
    std::string temporary;
    std::unique_ptr<columnar::ipc::FileSink> sink;
    std::unique_ptr<columnar::ipc::RecordBatchWriter> writer;
    int64_t rows = 0;
  };

  Status Open(int partition);

  std::string dir_;
  int stage_id_;
  int map_;
  int attempt_;
  columnar::SchemaPtr schema_;
  columnar::ipc::WriteOptions options_;
  std::vector<Part> parts_;
  bool committed_ = false;
};

}  // namespace shoal::distributed::shuffle
