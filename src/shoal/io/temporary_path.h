// Write-then-rename for files Shoal creates as a whole (COPY ... TO, tpchgen's Parquet): the bytes
// go to a hidden temporary file beside the target, which is renamed into place only when complete,
// so a failed or interrupted write never leaves a partial file at the target, and a directory
// listing (file_listing.h skips dot files) never picks up a file that is still being written.
//
// Temporaries are named ".shoal-tmp-<pid>-<random>-<target name>" and stay locked (flock) by their
// writer while it lives. A writer killed outright (SIGKILL, a crash, power loss) cannot remove its
// temporary, so creating a temporary first removes the stale ones of the same directory: those
// whose process is gone and whose lock nobody holds (the lock keeps a temporary written from
// another machine of a shared file system, where the pid means nothing, from being taken for
// stale).
//
// Replacing a file keeps what the user set on it: a target without write permission is refused
// before anything is written (SQLSTATE 42501, PostgreSQL's "could not open file ... for writing:
// Permission denied"; a file with no write bit at all is refused even for root, as a read-only mark
// is meant), and the new file gets the old one's mode and, where the OS allows it, its owner.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "shoal/common/result.h"
#include "shoal/common/status.h"

namespace shoal::io {

/// The name prefix of every temporary file Shoal writes beside a target.
inline constexpr std::string_view kTemporaryPrefix = ".shoal-tmp-";

class TemporaryPath {
 public:
  /// Checks that `target` may be written (an existing target must be a writable regular file),
  /// removes stale temporaries of dead writers in its directory, and creates the empty, locked
  /// temporary file. Errors name the target as PostgreSQL's COPY does.
  static Result<std::unique_ptr<TemporaryPath>> Create(const std::string& target);

  TemporaryPath(const TemporaryPath&) = delete;
  TemporaryPath& operator=(const TemporaryPath&) = delete;
  /// Removes the temporary file unless it was published.
  ~TemporaryPath();

  const std::string& path() const { return path_; }
  const std::string& target() const { return target_; }

  /// Gives the temporary an existing target's mode and owner, then renames it onto the target
  /// (atomically replacing it). The caller has closed its own descriptors of the temporary. With
  /// `durable`, the file's bytes reach the disk before the rename and the directory entry after
  /// it (fsync of both), so that after a crash the target is either the old file or all of the
  /// new one: what a table's data files and manifest need (table_manifest.h).
  Status Publish(bool durable = false);

 private:
  TemporaryPath(std::string target, std::string path, int lock_fd)
      : target_(std::move(target)), path_(std::move(path)), lock_fd_(lock_fd) {}

  std::string target_;
  std::string path_;
  int lock_fd_ = -1;  // holds the flock that marks the temporary as alive
  bool published_ = false;
};

/// Removes the stale temporaries (see above) in `directory` ("" is the working directory);
/// returns how many it removed. Errors are ignored: cleaning is best effort.
int RemoveStaleTemporaries(const std::string& directory);

/// fsync of a directory, so that the entries created or renamed in it survive a crash.
Status SyncDirectory(const std::string& directory);

}  // namespace shoal::io
