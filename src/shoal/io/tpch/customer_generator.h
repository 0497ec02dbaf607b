// CustomerGenerator: rows of the customer table (150000 per unit of scale factor).
#pragma once

#include <cstdint>

#include "shoal/io/tpch/distributions.h"
#include "shoal/io/tpch/rows.h"
#include "shoal/io/tpch/scale.h"
#include "shoal/io/tpch/streams.h"
#include "shoal/io/tpch/text_pool.h"

namespace shoal::io::tpch {

class CustomerGenerator {
 public:
  CustomerGenerator(const TpchScale& scale, const TextPool& text);

  /// The next Next() produces row `row` (0-based; c_custkey = row + 1).
  void Seek(int64_t row);
  void Next(CustomerRow* out);

 private:
  // Every stream of the row, for seeking and realigning them together.
  template <typename Fn>
  void ForEachStream(Fn fn) {
    for (RowStream* s : {&address_, &nation_, &phone_, &balance_, &segment_, &comment_})
      fn(*s);
  }

  const TextPool& text_;
  const Distributions& dists_;
  int64_t row_ = 0;
  RowStream address_{streams::kCustAddress};
  RowStream nation_{streams::kCustNation};
  RowStream phone_{streams::kCustPhone};
  RowStream balance_{streams::kCustBalance};
  RowStream segment_{streams::kCustSegment};
  RowStream comment_{streams::kCustComment};
};

}  // namespace shoal::io::tpch
