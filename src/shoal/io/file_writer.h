// FileWriter: a file opened for writing from scratch (created or truncated), written sequentially
// with plain write(2) calls and closed with its error checked. Every OS failure comes back as an
// IoError naming the path and the OS's reason.
//
// Not thread-safe; the writer of a file is one thread at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "shoal/common/result.h"
#include "shoal/common/status.h"

namespace shoal::io {

class FileWriter {
 public:
  /// Creates or truncates `path`.
  static Result<std::unique_ptr<FileWriter>> Open(std::string path);

  /// Creates `path` and its missing parents as directories; an existing directory is fine.
  static Status CreateDirectories(const std::string& path);

  FileWriter(const FileWriter&) = delete;
  FileWriter& operator=(const FileWriter&) = delete;
  /// Closes the file if Close() was not called, ignoring errors.
  ~FileWriter();

  /// Writes all of `bytes`, retrying short writes.
  Status Write(std::string_view bytes);
  /// Closes the file; errors the OS reports only now (e.g. a full disk) surface here.
  Status Close();

  const std::string& path() const { return path_; }

  int64_t bytes_written() const { return bytes_written_; }

 private:
  FileWriter(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}

  std::string path_;
  int fd_ = -1;
  int64_t bytes_written_ = 0;
};

}  // namespace shoal::io
