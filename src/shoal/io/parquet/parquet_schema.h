// Mapping between Parquet's schema (physical type + LogicalType / legacy ConvertedType per leaf)
// and Shoal's columnar types, for flat schemas, plus decoding of column statistics values into
// Scalars of the mapped type.
//
// Flat means: the root's children are all primitive leaves that are REQUIRED or OPTIONAL. Nested
// groups and REPEATED fields (Parquet's structs, lists and maps) give kNotImplemented naming the
// column. Types Shoal has no column type for (TIME, INTERVAL) are kNotImplemented too.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "shoal/columnar/scalar.h"
#include "shoal/columnar/schema.h"
#include "shoal/common/result.h"
#include "shoal/io/parquet/format/parquet_types.h"

namespace shoal::io::parquet {

/// One leaf column of a flat file: how it is stored and what Shoal type it becomes.
struct ColumnDescriptor {
  std::string name;
  format::Type::type physical = format::Type::INT32;
  int32_t type_length = 0;  // FIXED_LEN_BYTE_ARRAY width in bytes
  bool optional = false;    // max definition level 1 (else 0)
  columnar::DataType type;
  /// Whether the deprecated Statistics.min/max (signed order) may be used for this column.
  bool legacy_stats_usable = false;
  /// Whether min_value/max_value follow an order Shoal understands (column_orders TYPE_ORDER or
  /// absent-but-standard); false for INT96 and unknown orders.
  bool stats_usable = true;
};

/// Checks that every enum field of a deserialized struct holds a value its C++ enum type can
/// represent. The generated code stores whatever integer the file holds; reading an enum outside
/// its range is undefined behaviour, so this must run (it reads the raw bytes) before anything
/// else looks at the struct. Out-of-range values give kInvalidData.
Status CheckEnumRanges(const format::FileMetaData& metadata);
Status CheckEnumRanges(const format::PageHeader& header);

/// The leaf columns of `metadata`, in file order; the file name is only for messages.
Result<std::vector<ColumnDescriptor>> ConvertSchema(const format::FileMetaData& metadata,
                                                    const std::string& file);

/// The Shoal schema of those columns.
columnar::SchemaPtr ToSchema(const std::vector<ColumnDescriptor>& columns);

/// A PLAIN-encoded statistics value (without the BYTE_ARRAY length prefix) as a Scalar of the
/// column's type; nullopt when it cannot be interpreted (wrong size, NaN, unsupported type).
std::optional<columnar::Scalar> DecodeStatisticsValue(const ColumnDescriptor& column,
                                                      const std::string& bytes);

/// Min and max from a Statistics struct, honouring which fields are trustworthy for the column.
void DecodeMinMax(const ColumnDescriptor& column, const format::Statistics& stats,
                  std::optional<columnar::Scalar>* min, std::optional<columnar::Scalar>* max);

/// Three-way comparison of two non-null scalars of the same column type; nullopt when the types do
/// not allow it.
std::optional<int> CompareScalars(const columnar::Scalar& a, const columnar::Scalar& b);

/// Big-endian two's-complement bytes (Parquet's BYTE_ARRAY / FIXED_LEN_BYTE_ARRAY decimals) as an
/// integer; `size` 1..16.
columnar::int128_t DecodeBigEndianDecimal(const uint8_t* bytes, size_t size);

}  // namespace shoal::io::parquet
