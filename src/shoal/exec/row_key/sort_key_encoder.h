// Sort keys normalized into byte strings whose memcmp order is the ORDER BY order, so that sorting,
// top-k and k-way merging compare rows with one memcmp instead of a typed comparison per key.
//
// Each key column contributes, per row, a null marker byte (placed so NULLS FIRST / LAST holds in
// either direction) and then the value: integers, dates, timestamps and decimals big-endian with
// the sign bit flipped; floats by their IEEE bits made monotonic, with -0.0 folded into 0.0 and
// every NaN canonicalized and ordered above +Infinity (PostgreSQL's rule); intervals by their
// length in 30-day months (PostgreSQL's comparison); booleans false < true; strings and binaries
// by bytes (C collation) with 0x00 escaped as 0x00 0xFF and a 0x00 0x00 terminator, which keeps
// every encoding prefix-free so columns can simply be concatenated. DESC complements the value
// bytes. A NULL writes zeros for fixed-width types (rows of fixed-width keys keep one width) and
// nothing for strings.
//
// Rows encoded by different calls compare correctly as long as they use the same key types and
// orders and `compact` is off; `compact` drops the marker of columns without nulls in this call,
// which only a sort that encodes all its rows at once may use.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "shoal/columnar/array.h"

namespace shoal::exec {

struct SortOrder {
  bool ascending = true;
  bool nulls_first = false;
};

class EncodedRows {
 public:
  int64_t num_rows() const { return num_rows_; }

  /// > 0 when every row has this many bytes (no variable-length key).
  int64_t fixed_width() const { return fixed_width_; }

  const uint8_t* row(int64_t i) const {
    return data_.data() + (fixed_width_ > 0 ? i * fixed_width_ : offsets_[static_cast<size_t>(i)]);
  }

  int64_t row_size(int64_t i) const {
    return fixed_width_ > 0
               ? fixed_width_
               : offsets_[static_cast<size_t>(i) + 1] - offsets_[static_cast<size_t>(i)];
  }

  int64_t MemoryBytes() const {
    return static_cast<int64_t>(data_.capacity() + offsets_.capacity() * sizeof(int64_t));
  }

  /// memcmp order of row i of `a` and row j of `b` (< 0, 0, > 0).
  static int Compare(const EncodedRows& a, int64_t i, const EncodedRows& b, int64_t j) {
    const int64_t la = a.row_size(i);
    const int64_t lb = b.row_size(j);
    const int c = std::memcmp(a.row(i), b.row(j), static_cast<size_t>(std::min(la, lb)));
    if (c != 0)
      return c;
    return la < lb ? -1 : (la > lb ? 1 : 0);
  }

  /// Encodes rows [0, num_rows) of `keys` (one array per order).
  Status Encode(const std::vector<columnar::ArrayPtr>& keys, const std::vector<SortOrder>& orders,
                int64_t num_rows, bool compact = false);

  /// The permutation of rows [0, num_rows) in ascending encoded order; ties keep row order.
  void Sort(std::vector<int32_t>* permutation) const;

 private:
  int64_t num_rows_ = 0;
  int64_t fixed_width_ = 0;
  std::vector<uint8_t> data_;
  std::vector<int64_t> offsets_;  // variable width: num_rows + 1
};

}  // namespace shoal::exec
