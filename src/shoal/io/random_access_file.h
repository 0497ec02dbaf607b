// RandomAccessFile: a file opened for reading at arbitrary offsets (pread), closed on
// destruction. The one pread wrapper of the io layer: the TBL/CSV reader reads its byte range
// through it and the Parquet reader its footers and column chunks. Reads retry on EINTR and on
// short reads; errors name the file, the offset and the length. Reads may run concurrently.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "shoal/common/result.h"

namespace shoal::io {

class RandomAccessFile {
 public:
  static Result<std::unique_ptr<RandomAccessFile>> Open(const std::string& path);
  ~RandomAccessFile();
  RandomAccessFile(const RandomAccessFile&) = delete;
  RandomAccessFile& operator=(const RandomAccessFile&) = delete;

  const std::string& path() const { return path_; }

  /// Reads up to `length` bytes at `offset` into `out`; fewer only at the end of the file.
  Result<int64_t> ReadAtMost(int64_t offset, int64_t length, uint8_t* out) const;
  /// Reads exactly `length` bytes; a file that ends first is an IoError (changed while read?).
  Status ReadExactly(int64_t offset, int64_t length, uint8_t* out) const;
  /// Appends up to `length` bytes at `offset` to `out`; returns how many (0 at the end).
  Result<int64_t> ReadAppend(int64_t offset, int64_t length, std::string* out) const;

 private:
  RandomAccessFile(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}

  int fd_;
  std::string path_;
};

}  // namespace shoal::io
