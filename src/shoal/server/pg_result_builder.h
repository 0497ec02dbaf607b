// One result set of the PostgreSQL protocol, as a client receives it (RowDescription, then one
// DataRow per row, in text format), turned back into Shoal's columnar batches, typed by the
// columns' type OIDs (pg_types.h has the mapping the server uses the other way). Typed columns
// are what lets `shoal sql --host` print a server's answers exactly as it prints its own:
// numbers right-aligned, JSON numbers unquoted, and each value spelled by the same printer.
//
// Values arrive as text and are kept as text until the result is complete (in chunks of
// kChunkRows rows or kChunkBytes of a column's text, one utf8 array per column); Finish() then
// converts each column, one type at a time. A column whose values do not all read as its type (a
// PostgreSQL server's `infinity` date, a numeric NaN) stays text, as do types Shoal lacks (json,
// uuid, oid ...).
//   bool: t / f; int2/int4/int8; float4/float8 (Infinity, NaN); numeric(p,s) as decimal(p,s),
//   numeric without a modifier as the narrowest decimal holding every value of the column;
//   date, timestamp and timestamptz (ISO, as DateStyle 'ISO, MDY' prints them); interval
//   (IntervalStyle postgres); bytea (hex form); text, varchar, bpchar, name: utf8.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "shoal/columnar/builder.h"
#include "shoal/columnar/record_batch.h"
#include "shoal/common/result.h"

namespace shoal::server {

/// A column of a RowDescription.
struct PgColumn {
  std::string name;
  uint32_t type_oid = 0;
  int16_t type_length = -1;
  int32_t type_modifier = -1;
  int16_t format = 0;  // 0 text, 1 binary
};

/// The body of a RowDescription ('T') message.
Result<std::vector<PgColumn>> ParseRowDescription(std::string_view body);

/// The Shoal type a column of this OID and modifier is read as (utf8 for types Shoal lacks);
/// numeric without a modifier is decided by its values (PgResultBuilder::Finish).
columnar::DataType PgColumnType(uint32_t oid, int32_t modifier);

/// PostgreSQL interval text in IntervalStyle postgres ("1 year 2 mons -3 days +04:05:06.5").
Result<columnar::MonthDayNano> ParsePgIntervalText(std::string_view text);

class PgResultBuilder {
 public:
  static constexpr int64_t kChunkRows = 65536;
  /// A chunk also ends when a column holds this much text (utf8 arrays end at 2 GiB).
  static constexpr int64_t kChunkBytes = int64_t{256} << 20;

  explicit PgResultBuilder(std::vector<PgColumn> columns,
                           std::shared_ptr<MemoryPool> pool = DefaultMemoryPool());

  /// Appends the values of a DataRow ('D') message's body; the column count must match.
  Status AddDataRow(std::string_view body);

  int64_t num_rows() const { return num_rows_; }

  /// The schema and the rows (batches of up to kChunkRows rows). The builder is spent.
  Result<std::pair<columnar::SchemaPtr, std::vector<columnar::RecordBatchPtr>>> Finish();

 private:
  Status FinishChunk();

  std::vector<PgColumn> columns_;
  std::shared_ptr<MemoryPool> pool_;
  std::vector<std::unique_ptr<columnar::BinaryBuilder>> text_;  // the chunk being filled
  std::vector<std::vector<columnar::ArrayPtr>> chunks_;         // per column, finished chunks
  int64_t num_rows_ = 0;
};

}  // namespace shoal::server
