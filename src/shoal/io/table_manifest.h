// TableManifest: the list of files that make up a durable table (parquet_directory_storage.h) at
// one committed version, with the table's columns. A table's directory holds one file named
// `manifest` and the Parquet data files it names; a write creates new data files, then replaces
// the manifest atomically (temporary file, fsync, rename, fsync of the directory), so the
// manifest on disk is always some committed version, whole, and a data file the manifest does
// not name (a killed writer's) is not part of the table.
//
// The format is text, one record per line, fields separated by tabs (names escaped: \t \n \\):
//
//   shoal table manifest 1
//   version <n>                       incremented by every commit
//   column <name> <type> <nullable>   one per column in order; <type> as EncodeDataType
//   default <column> <sql>            a column's DEFAULT: an expression, as SQL text
//   missing <column> <value>          what a data file without the column (one written before
//                                     ALTER TABLE ... ADD COLUMN) reads in it; absent: NULL
//   file <name> <rows>                one per data file, in row order
//   checksum <16 hex digits>          FNV-1a 64 of every byte before this line
//
// <column> is the column's 0-based position; a data file's columns are the first ones of the
// table's, by position (names may have changed since: RENAME COLUMN rewrites no file).
//
// A manifest that does not parse or whose checksum does not match is refused (InvalidData) rather
// than read as an empty or shorter table.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "shoal/columnar/scalar.h"
#include "shoal/columnar/schema.h"
#include "shoal/common/result.h"

namespace shoal::io {

struct ManifestFile {
  std::string name;  // relative to the table's directory
  int64_t rows = 0;
};

struct TableManifest {
  int64_t version = 0;
  columnar::SchemaPtr schema;
  /// One per column (decoding fills them): its DEFAULT as SQL text, empty for none.
  std::vector<std::string> defaults;
  /// One per column (decoding fills them): what a data file without the column reads in it.
  std::vector<columnar::Scalar> missing;
  std::vector<ManifestFile> files;
};

/// The manifest as text (see above).
std::string EncodeManifest(const TableManifest& manifest);
/// Parses a manifest; `path` is only for messages.
Result<TableManifest> DecodeManifest(std::string_view text, const std::string& path);

/// A data type as one word: "int32", "decimal(15,2)", "timestamp(us,UTC)", "timestamp(us,)".
/// Dictionary types have no encoding (a durable table stores decoded values).
Result<std::string> EncodeDataType(const columnar::DataType& type);
Result<columnar::DataType> DecodeDataType(std::string_view text);

/// A value of a storable type as one word of text and back (`type`: the column's).
Result<std::string> EncodeValueText(const columnar::Scalar& value);
Result<columnar::Scalar> DecodeValueText(std::string_view text, const columnar::DataType& type);

/// Escapes tabs, newlines and backslashes (one field of a tab-separated line) and back.
std::string EscapeField(std::string_view text);
std::string UnescapeField(std::string_view text);
/// Splits one line at tabs, unescaping each field.
std::vector<std::string> SplitFields(std::string_view line);

/// FNV-1a 64 of `bytes`, as 16 lower-case hex digits.
std::string ChecksumText(std::string_view bytes);

/// Writes `bytes` to `path` so that after a crash `path` holds either its old content or all of
/// `bytes`: a temporary file beside it, fsync, rename, fsync of the directory.
Status WriteFileAtomically(const std::string& path, std::string_view bytes);
/// The whole content of a file (IoError naming it).
Result<std::string> ReadWholeFile(const std::string& path);

}  // namespace shoal::io
