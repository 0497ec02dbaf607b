// TblFormatter: TPC-H rows as the reference generator's .tbl text, byte for byte: every field
// followed by '|', one row per line, money as [-]D.CC, dates as YYYY-MM-DD, names such as
// Customer#000000001 zero-padded to nine digits.
//
// Each Append reserves a bound for the row (or the order's lines) once and formats with
// hand-written integer and money printers; no printf, no allocation per row.
#pragma once

#include <cstdint>

#include "shoal/common/status.h"
#include "shoal/io/text_buffer.h"
#include "shoal/io/tpch/rows.h"

namespace shoal::io::tpch {

class TblFormatter {
 public:
  /// An upper bound on the bytes of one formatted row of any table.
  static constexpr int64_t kMaxRowBytes = 512;

  static Status Append(const RegionRow& row, TextBuffer* out);
  static Status Append(const NationRow& row, TextBuffer* out);
  static Status Append(const SupplierRow& row, TextBuffer* out);
  static Status Append(const CustomerRow& row, TextBuffer* out);
  /// The part row only; AppendPartSupps writes its four partsupp rows.
  static Status Append(const PartRow& row, TextBuffer* out);
  static Status AppendPartSupps(const PartRow& row, TextBuffer* out);
  /// The order row only; AppendLineItems writes its lines.
  static Status Append(const OrderRow& row, TextBuffer* out);
  static Status AppendLineItems(const OrderRow& row, TextBuffer* out);
};

}  // namespace shoal::io::tpch
