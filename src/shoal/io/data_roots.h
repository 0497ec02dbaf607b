// DataRoots: confinement of the files a query may read or write to a set of directories.
//
// `shoal worker`, `shoal sql` and `shoal server` take `--data-root DIR` (repeatable): every file a
// table scan, a directory listing or COPY opens must then lie inside one of
// the roots once its path is resolved (symlinks followed, `.` and `..` folded, relative paths made
// absolute), or the query is refused with SQLSTATE 42501 naming the path and the roots. Roots are
// compared component by component, so a root /data does not admit /data2. Without roots nothing is
// confined (the default; the worker says so when it starts).
//
// The roots are process-wide (set once at start-up, before any query runs) because every file a
// process opens for a query goes through the io layer's few openers (RandomAccessFile::Open, the
// Arrow file readers, ListFiles, TemporaryPath::Create), whatever code path — coordinator,
// in-process worker, gRPC worker, `shoal task` — planned the read; those openers call CheckDataPath
// and open the resolved path it returns. Spill and shuffle files are the process's own and are not
// checked.
//
// What this does not stop: a root that itself holds a symlink swapped for another between the
// check and the open (a time-of-check race an attacker needs write access inside the root for).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "shoal/common/result.h"

namespace shoal::io {

class DataRoots {
 public:
  DataRoots() = default;

  /// Roots from the command line: each must be an existing directory; kept in resolved form.
  static Result<DataRoots> Make(const std::vector<std::string>& directories);

  bool empty() const { return roots_.empty(); }

  const std::vector<std::string>& roots() const { return roots_; }

  /// The resolved form of `path` if it lies inside a root (or `path` unchanged when there are no
  /// roots); otherwise an error with SQLSTATE 42501 naming `what` ("read", "write"), the path, what
  /// it resolves to and the roots.
  Result<std::string> Check(const std::string& path, std::string_view what) const;

  /// The roots, comma separated (for messages and start-up lines).
  std::string ToString() const;

 private:
  std::vector<std::string> roots_;
};

/// Whether `path` (resolved, absolute, normalised) is `root` or lies below it, component-wise.
bool IsPathUnder(std::string_view path, std::string_view root);

/// Sets the process's roots (start-up, before queries run).
void SetProcessDataRoots(DataRoots roots);
/// The process's roots (empty unless set).
std::shared_ptr<const DataRoots> ProcessDataRoots();
/// ProcessDataRoots()->Check(path, what).
Result<std::string> CheckDataPath(const std::string& path, std::string_view what);

}  // namespace shoal::io
