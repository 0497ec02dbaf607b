// NationGenerator: rows of the nation table (25 rows, the same at every scale factor).
#pragma once

#include <cstdint>

#include "shoal/io/tpch/distributions.h"
#include "shoal/io/tpch/rows.h"
#include "shoal/io/tpch/scale.h"
#include "shoal/io/tpch/streams.h"
#include "shoal/io/tpch/text_pool.h"

namespace shoal::io::tpch {

class NationGenerator {
 public:
  NationGenerator(const TpchScale& scale, const TextPool& text);

  /// The next Next() produces row `row` (0-based).
  void Seek(int64_t row);
  void Next(NationRow* out);

 private:
  const TextPool& text_;
  const Distributions& dists_;
  int64_t row_ = 0;
  RowStream comment_{streams::kNationComment};
};

}  // namespace shoal::io::tpch
