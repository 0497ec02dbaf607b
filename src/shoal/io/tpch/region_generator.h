// RegionGenerator: rows of the region table (5 rows, the same at every scale factor).
#pragma once

#include <cstdint>

#include "shoal/io/tpch/distributions.h"
#include "shoal/io/tpch/rows.h"
#include "shoal/io/tpch/scale.h"
#include "shoal/io/tpch/streams.h"
#include "shoal/io/tpch/text_pool.h"

namespace shoal::io::tpch {

class RegionGenerator {
 public:
  RegionGenerator(const TpchScale& scale, const TextPool& text);

  /// The next Next() produces row `row` (0-based).
  void Seek(int64_t row);
  void Next(RegionRow* out);

 private:
  const TextPool& text_;
  const Distributions& dists_;
  int64_t row_ = 0;
  RowStream comment_{streams::kRegionComment};
};

}  // namespace shoal::io::tpch
