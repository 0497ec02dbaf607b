// OrderGenerator: rows of the orders table (1500000 per unit of scale factor) together with each
// order's one to seven lineitem rows, which the reference generator draws in the same pass (the
// order's total price and status are computed from its lines).
#pragma once

#include <cstdint>

#include "shoal/io/tpch/distributions.h"
#include "shoal/io/tpch/rows.h"
#include "shoal/io/tpch/scale.h"
#include "shoal/io/tpch/streams.h"
#include "shoal/io/tpch/text_pool.h"

namespace shoal::io::tpch {

class OrderGenerator {
 public:
  OrderGenerator(const TpchScale& scale, const TextPool& text);

  /// The next Next() produces order row `row` (0-based; o_orderkey is the sparse key of row + 1).
  void Seek(int64_t row);
  void Next(OrderRow* out);

 private:
  // Every stream of the row, for seeking and realigning them together.
  template <typename Fn>
  void ForEachStream(Fn fn) {
    for (RowStream* s :
         {&cust_key_, &order_date_, &priority_, &clerk_, &comment_, &line_count_, &quantity_,
          &discount_, &tax_, &ship_instruct_, &ship_mode_, &line_comment_, &part_key_, &supplier_,
          &ship_date_, &commit_date_, &receipt_date_, &return_flag_})
      fn(*s);
  }

  const TextPool& text_;
  const Distributions& dists_;
  int64_t customer_count_;
  int64_t part_count_;
  int64_t supplier_count_;
  int64_t clerk_count_;
  int64_t row_ = 0;

  RowStream cust_key_{streams::kOrderCustKey};
  RowStream order_date_{streams::kOrderDate};
  RowStream priority_{streams::kOrderPriority};
  RowStream clerk_{streams::kOrderClerk};
  RowStream comment_{streams::kOrderComment};
  RowStream line_count_{streams::kOrderLineCount};
  RowStream quantity_{streams::kLineQuantity};
  RowStream discount_{streams::kLineDiscount};
  RowStream tax_{streams::kLineTax};
  RowStream ship_instruct_{streams::kLineShipInstruct};
  RowStream ship_mode_{streams::kLineShipMode};
  RowStream line_comment_{streams::kLineComment};
  RowStream part_key_{streams::kLinePartKey};
  RowStream supplier_{streams::kLineSupplier};
  RowStream ship_date_{streams::kLineShipDate};
  RowStream commit_date_{streams::kLineCommitDate};
  RowStream receipt_date_{streams::kLineReceiptDate};
  RowStream return_flag_{streams::kLineReturnFlag};
};

}  // namespace shoal::io::tpch
