// PartGenerator: rows of the part table (200000 per unit of scale factor) together with each
// part's four partsupp rows, which the reference generator draws in the same pass.
#pragma once

#include <cstdint>

#include "shoal/io/tpch/distributions.h"
#include "shoal/io/tpch/rows.h"
#include "shoal/io/tpch/scale.h"
#include "shoal/io/tpch/streams.h"
#include "shoal/io/tpch/text_pool.h"

namespace shoal::io::tpch {

class PartGenerator {
 public:
  PartGenerator(const TpchScale& scale, const TextPool& text);

  /// The next Next() produces part row `row` (0-based; p_partkey = row + 1).
  void Seek(int64_t row);
  void Next(PartRow* out);

 private:
  // Every stream of the row, for seeking and realigning them together.
  template <typename Fn>
  void ForEachStream(Fn fn) {
    for (RowStream* s : {&name_, &mfgr_, &brand_, &type_, &size_, &container_, &comment_,
                         &ps_quantity_, &ps_cost_, &ps_comment_})
      fn(*s);
  }

  const TextPool& text_;
  const Distributions& dists_;
  int64_t supplier_count_;
  int64_t row_ = 0;
  RowStream name_{streams::kPartName};
  RowStream mfgr_{streams::kPartMfgr};
  RowStream brand_{streams::kPartBrand};
  RowStream type_{streams::kPartType};
  RowStream size_{streams::kPartSize};
  RowStream container_{streams::kPartContainer};
  RowStream comment_{streams::kPartComment};
  RowStream ps_quantity_{streams::kPartSuppQuantity};
  RowStream ps_cost_{streams::kPartSuppCost};
  RowStream ps_comment_{streams::kPartSuppComment};
};

}  // namespace shoal::io::tpch
