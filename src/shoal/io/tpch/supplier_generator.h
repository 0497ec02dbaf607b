// SupplierGenerator: rows of the supplier table (10000 per unit of scale factor), including the
// few suppliers whose comment carries "Customer ... Complaints" or "... Recommends" (query 16).
#pragma once

#include <cstdint>

#include "shoal/io/tpch/rows.h"
#include "shoal/io/tpch/scale.h"
#include "shoal/io/tpch/streams.h"
#include "shoal/io/tpch/text_pool.h"

namespace shoal::io::tpch {

class SupplierGenerator {
 public:
  SupplierGenerator(const TpchScale& scale, const TextPool& text);

  /// The next Next() produces row `row` (0-based; s_suppkey = row + 1).
  void Seek(int64_t row);
  void Next(SupplierRow* out);

 private:
  // Every stream of the row, for seeking and realigning them together.
  template <typename Fn>
  void ForEachStream(Fn fn) {
    for (RowStream* s : {&address_, &nation_, &phone_, &balance_, &comment_, &bbb_junk_, &bbb_type_,
                         &bbb_select_, &bbb_offset_})
      fn(*s);
  }

  const TextPool& text_;
  int64_t row_ = 0;
  RowStream address_{streams::kSuppAddress};
  RowStream nation_{streams::kSuppNation};
  RowStream phone_{streams::kSuppPhone};
  RowStream balance_{streams::kSuppBalance};
  RowStream comment_{streams::kSuppComment};
  RowStream bbb_junk_{streams::kSuppBbbJunk};
  RowStream bbb_type_{streams::kSuppBbbType};
  RowStream bbb_select_{streams::kSuppBbbSelect};
  RowStream bbb_offset_{streams::kSuppBbbOffset};
};

}  // namespace shoal::io::tpch
