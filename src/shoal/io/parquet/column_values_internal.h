// The first stage of writing a Parquet column chunk (column_chunk_writer.h): how a column maps
// to a Parquet physical type and sort order (Layout), and the gathering of a row group's pieces
// of the column into one contiguous vector of physical values plus definition levels (Values),
// over which statistics (column_statistics_internal.h), dictionary and PLAIN encoding
// (value_encoders_internal.h) and page assembly run as tight typed loops.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "shoal/columnar/array.h"
#include "shoal/columnar/decimal.h"
#include "shoal/columnar/schema.h"
#include "shoal/common/result.h"
#include "shoal/io/parquet/compression_encoder.h"
#include "shoal/io/parquet/format/parquet_types.h"

namespace shoal::io::parquet::internal {

enum class Physical : uint8_t { kBoolean, kInt32, kInt64, kFloat, kDouble, kByteArray, kFixed };

// How min / max compare: by the logical type, as the spec's "sort order" section requires.
enum class Order : uint8_t { kSigned, kUnsigned, kFloat, kBytes };

struct Layout {
  Physical physical = Physical::kInt32;
  Order order = Order::kSigned;
  int fixed_width = 0;        // kFixed: bytes per value
  bool legacy_stats = false;  // the deprecated min / max agree with this order
  bool utf8 = false;
};

// The column's rows gathered into contiguous physical values (non-null rows only) and levels.
struct Values {
  int64_t num_rows = 0;
  int64_t null_count = 0;
  std::vector<uint32_t> levels;  // definition levels: OPTIONAL flat columns 1 per valid row, 0
                                 // per null; nested leaves one per entry
  std::vector<uint32_t> reps;    // repetition levels of a leaf under a list or map, one per entry
  std::vector<int32_t> i32;
  std::vector<int64_t> i64;
  std::vector<float> f32;
  std::vector<double> f64;
  std::vector<uint32_t> bools;
  std::vector<columnar::int128_t> i128;
  std::vector<int64_t> offsets{0};  // BYTE_ARRAY value k: bytes[offsets[k], offsets[k + 1])
  std::string bytes;

  std::string_view Bytes(int64_t k) const {
    return {
        bytes.data() + offsets[static_cast<size_t>(k)],
        static_cast<size_t>(offsets[static_cast<size_t>(k) + 1] - offsets[static_cast<size_t>(k)])};
  }
};

/// The physical type, sort order and statistics rules of a column; NotImplemented for types
/// Parquet cannot hold here (intervals).
Result<Layout> LayoutOf(const columnar::Field& field);
format::Type::type PhysicalType(Physical physical);
format::CompressionCodec::type CodecOf(ParquetCompression compression);
/// Appends one piece (a slice of a buffered batch) of the column to `out`.
Status GatherPiece(const columnar::Array& piece, const columnar::Field& field, bool optional,
                   Values* out);
/// Appends the values at `positions` (count of them) of `source`, a non-dictionary array of the
/// field's type (a nested column's leaf).
Status GatherSelected(const columnar::Array& source, const int64_t* positions, int64_t count,
                      const columnar::Field& field, Values* out);
/// The number of non-null values gathered.
int64_t NumValues(const Values& v, Physical physical);

}  // namespace shoal::io::parquet::internal
