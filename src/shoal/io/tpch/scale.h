// TpchScale: a TPC-H scale factor and the row counts it implies, computed exactly as the reference
// generator (dbgen 2.14) computes them, so that `-s X` there and here give the same rows.
//
// dbgen's rules, which this reproduces on purpose:
//  * SF >= 1 is truncated to an integer (1.5 generates SF 1);
//  * SF < 1 is truncated to thousandths (int)(1000·SF), and each table's base count is scaled by
//    that many thousandths, with integer division and at least one row;
//  * nation and region always have 25 and 5 rows.
// Scale factors of 30000 and above are refused: dbgen switches some columns to a second,
// sequential generator there that cannot be split into independent row ranges.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "shoal/common/result.h"
#include "shoal/io/tpch/tpch_table.h"

namespace shoal::io::tpch {

class TpchScale {
 public:
  static constexpr double kMaxScaleFactor = 30000.0;

  /// Parses the text of a scale factor ("1", "0.01", "10"). Errors: not a number, not positive,
  /// too large.
  static Result<TpchScale> Parse(std::string_view text);
  static Result<TpchScale> FromScaleFactor(double scale_factor);

  /// The scale factor as requested.
  double scale_factor() const { return scale_factor_; }

  /// The scale factor the data actually has after dbgen's truncation (1.5 -> 1, 0.0125 -> 0.012).
  double effective_scale_factor() const;

  /// Rows of a table. Lineitem has no fixed count (1 to 7 lines per order); its value here is the
  /// order count, the unit lineitem is generated and split by.
  int64_t RowCount(TpchTable table) const;

  int64_t part_count() const { return part_count_; }

  int64_t supplier_count() const { return supplier_count_; }

  int64_t customer_count() const { return customer_count_; }

  int64_t order_count() const { return order_count_; }

  /// o_clerk is drawn from Clerk#1 .. Clerk#clerk_count().
  int64_t clerk_count() const { return clerk_count_; }

 private:
  TpchScale() = default;

  double scale_factor_ = 0;
  int64_t integer_scale_ = 1;  // dbgen's `scale`; 1 for fractional scale factors
  int64_t thousandths_ = 0;    // (int)(1000·SF) for SF < 1, else 0
  int64_t part_count_ = 0;
  int64_t supplier_count_ = 0;
  int64_t customer_count_ = 0;
  int64_t order_count_ = 0;
  int64_t clerk_count_ = 0;
};

}  // namespace shoal::io::tpch
