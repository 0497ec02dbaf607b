// Mapping between Parquet's schema (physical type + LogicalType / legacy ConvertedType per leaf,
// groups for structs, lists and maps) and Shoal's columnar types, plus decoding of column
// statistics values into Scalars of the mapped type.
//
// A top-level column is a primitive leaf or a tree (SchemaNode): groups without annotation are
// structs, LIST groups lists and MAP / MAP_KEY_VALUE groups maps, with the backward-compatibility
// rules of LogicalTypes.md for the legacy two-level lists ("repeated int32 element" inside a LIST
// group, a repeated group of several fields, or one named "array" / "<name>_tuple", is the
// element itself) and for a REPEATED field outside any LIST group (a required list of required
// elements). Each node records the definition and repetition levels the Dremel encoding gives it
// (see column_assembler_internal.h for how leaves' levels become offsets and validity). Types
// Shoal has no column type for (TIME, INTERVAL) are kNotImplemented.
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

/// One leaf column (or, in ParquetSchema::columns, one top-level column): how it is stored and
/// what Shoal type it becomes.
struct ColumnDescriptor {
  std::string name;  // leaves: the dotted path ("s.list.element"); top-level columns: the name
  format::Type::type physical = format::Type::INT32;
  int32_t type_length = 0;  // FIXED_LEN_BYTE_ARRAY width in bytes
  /// Leaves: whether a slot of the leaf may be null (max_def > slot_def); top-level columns:
  /// whether the column is OPTIONAL.
  bool optional = false;
  columnar::DataType type;
  /// Leaves: the largest definition and repetition level, and the definition level from which an
  /// entry has a slot in the leaf's array (that of the innermost repeated ancestor's element; 0
  /// without one). A flat column has max_def 0 or 1 and max_rep 0 and slot_def 0.
  int max_def = 0;
  int max_rep = 0;
  int slot_def = 0;
  /// Leaves: whether levels must be kept for assembly (the leaf belongs to a nested column).
  bool nested = false;
  /// Whether the deprecated Statistics.min/max (signed order) may be used for this column.
  bool legacy_stats_usable = false;
  /// Whether min_value/max_value follow an order Shoal understands (column_orders TYPE_ORDER or
  /// absent-but-standard); false for INT96 and unknown orders.
  bool stats_usable = true;
};

/// One node of a nested top-level column's tree. Levels are those of the Dremel encoding: an
/// entry of a leaf under this node has a slot (a row) in this node's array when its repetition
/// level is <= slot_rep and its definition level >= slot_def, and that row is non-null when the
/// definition level is >= def.
struct SchemaNode {
  enum class Kind { kLeaf, kStruct, kList, kMap };
  Kind kind = Kind::kLeaf;
  columnar::Field field;
  int def = 0;
  int slot_rep = 0;
  int slot_def = 0;
  /// Lists and maps: the repetition level of the repeated field, and the definition level at
  /// which an entry is an element (the element's slot_def).
  int rep = 0;
  int element_def = 0;
  /// The leaves under this node: [first_leaf, first_leaf + num_leaves) in file order.
  int first_leaf = 0;
  int num_leaves = 0;
  /// Structs: one per field; lists: the element; maps: the key_value struct.
  std::vector<SchemaNode> children;
};

/// The converted schema of a file.
struct ParquetSchema {
  /// Top-level columns: a flat column's descriptor is its leaf's; a nested one has its name,
  /// type and nullability only.
  std::vector<ColumnDescriptor> columns;
  /// Every leaf column in file order (the column chunks of a row group).
  std::vector<ColumnDescriptor> leaves;
  /// One per top-level column.
  std::vector<SchemaNode> nodes;
};

/// Checks that every enum field of a deserialized struct holds a value its C++ enum type can
/// represent. The generated code stores whatever integer the file holds; reading an enum outside
/// its range is undefined behaviour, so this must run (it reads the raw bytes) before anything
/// else looks at the struct. Out-of-range values give kInvalidData.
Status CheckEnumRanges(const format::FileMetaData& metadata);
Status CheckEnumRanges(const format::PageHeader& header);

/// The columns and leaves of `metadata`; the file name is only for messages.
Result<ParquetSchema> ConvertSchema(const format::FileMetaData& metadata, const std::string& file);

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
