// File listing: turns a table LOCATION (one file, a directory, or a glob pattern) into the sorted
// list of regular files it names, with their sizes, for the file-backed table providers.
//
// What a listing keeps (the conventions of Spark, Hive and DuckDB's globbing):
//   - A location naming one file reads that file, whatever its name.
//   - A directory reads its own files (not its subdirectories) whose names end in one of the
//     format's extensions, case-insensitively, or in such an extension followed by ".<digits>"
//     (dbgen's split files, "lineitem.tbl.1"). Everything else is left out: "_SUCCESS",
//     "README.txt",
//     "_metadata".
//   - A glob (a location containing `*`, `?` or `[`) reads every regular file it matches: the
//     pattern already says which names are wanted, so no extension filter applies.
//   - In both, names starting with `_` or `.` are skipped, in the file name and in every directory
//     the wildcards matched: Spark's "_temporary/", Hive's "_tmp" files, hidden files, and the
//     ".shoal-tmp-..." files of writes in progress (temporary_path.h).
// A location that ends up with no file is NotFound, naming what was skipped and how to read it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "shoal/common/result.h"

namespace shoal::io {

struct ListedFile {
  std::string path;
  int64_t size = 0;
};

/// The data-file extensions of each format a directory table reads (lower case, with the dot).
inline const std::vector<std::string_view>& ParquetExtensions() {
  static const std::vector<std::string_view> kExtensions = {".parquet", ".parq", ".pq"};
  return kExtensions;
}
inline const std::vector<std::string_view>& CsvExtensions() {
  static const std::vector<std::string_view> kExtensions = {".csv", ".tsv"};
  return kExtensions;
}
inline const std::vector<std::string_view>& TblExtensions() {
  static const std::vector<std::string_view> kExtensions = {".tbl"};
  return kExtensions;
}
inline const std::vector<std::string_view>& ArrowExtensions() {
  static const std::vector<std::string_view> kExtensions = {".arrow", ".feather", ".ipc"};
  return kExtensions;
}

/// True when a directory listing reads `file_name` as data of a format with `extensions`.
bool IsDataFileName(std::string_view file_name, const std::vector<std::string_view>& extensions);

/// Lists `location` by the rules above. Relative locations resolve against the process working
/// directory. The result is sorted by path; an empty result is NotFound.
Result<std::vector<ListedFile>> ListFiles(const std::string& location,
                                          const std::vector<std::string_view>& extensions);

/// "3 files: a.parquet, b.parquet, c.parquet" for EXPLAIN; past `max_names` paths only the first
/// ones and the last are named ("a, b, c, d, e, ... 95 more ..., z").
std::string DescribeFiles(const std::vector<std::string>& paths, size_t max_names = 6);

}  // namespace shoal::io
