#include "shoal/io/tpch/order_generator.h"

#include <algorithm>

#include "shoal/io/tpch/dates.h"
#include "shoal/io/tpch/generator_util.h"

namespace shoal::io::tpch {
namespace {

constexpr LengthRange kOrderCommentLength = VariableLength(49);
constexpr LengthRange kLineCommentLength = VariableLength(27);

// Clause 4.2.3: o_orderdate is uniform in [STARTDATE, ENDDATE - 151 days] so that every line's
// ship (+1..121) and receipt (ship + 1..30) dates stay within the calendar.
constexpr int64_t kLastOrderDay = dates::kDayCount - (121 + 30) - 1;
constexpr int64_t kCurrentDay = dates::kCurrentDate - dates::kStartDate;
// Every third customer places no orders.
constexpr int64_t kCustomerMortality = 3;

}  // namespace

OrderGenerator::OrderGenerator(const TpchScale& scale, const TextPool& text)
    : text_(text),
      dists_(Distributions::Get()),
      customer_count_(scale.customer_count()),
      part_count_(scale.part_count()),
      supplier_count_(scale.supplier_count()),
      clerk_count_(scale.clerk_count()) {}

void OrderGenerator::Seek(int64_t row) {
  row_ = row;
  ForEachStream([row](RowStream& s) { s.SeekRow(row); });
}

void OrderGenerator::Next(OrderRow* out) {
  const int64_t order_key = SparseOrderKey(row_ + 1);
  out->order_key = order_key;

  int64_t cust_key = cust_key_.Uniform(1, customer_count_);
  int64_t delta = 1;
  while (cust_key % kCustomerMortality == 0) {
    cust_key = std::min(cust_key + delta, customer_count_);
    delta = -delta;
  }
  out->cust_key = cust_key;

  const int64_t order_day = order_date_.Uniform(0, kLastOrderDay);
  out->order_date = static_cast<int32_t>(dates::kStartDate + order_day);
  out->order_priority = dists_.priorities.text(dists_.priorities.Pick(priority_));
  out->clerk = clerk_.Uniform(1, clerk_count_);
  out->comment = text_.Draw(comment_, kOrderCommentLength.min, kOrderCommentLength.max);
  out->ship_priority = 0;

  const int lines = static_cast<int>(line_count_.Uniform(1, OrderRow::kMaxLines));
  out->line_count = lines;
  int64_t total_price = 0;
  int shipped = 0;
  for (int i = 0; i < lines; ++i) {
    LineItemRow& line = out->lines[i];
    line.order_key = order_key;
    line.line_number = i + 1;
    line.quantity = quantity_.Uniform(1, 50);
    line.discount = discount_.Uniform(0, 10);
    line.tax = tax_.Uniform(0, 8);
    line.ship_instruct = dists_.ship_instructs.text(dists_.ship_instructs.Pick(ship_instruct_));
    line.ship_mode = dists_.ship_modes.text(dists_.ship_modes.Pick(ship_mode_));
    line.comment = text_.Draw(line_comment_, kLineCommentLength.min, kLineCommentLength.max);
    line.part_key = part_key_.Uniform(1, part_count_);
    line.supp_key = PartSupplierKey(line.part_key, supplier_.Uniform(0, 3), supplier_count_);
    line.extended_price = RetailPriceCents(line.part_key) * line.quantity;
    // The order total rounds each line down to cents twice, as the reference generator does.
    total_price += ((line.extended_price * (100 - line.discount)) / 100) * (100 + line.tax) / 100;

    const int64_t ship_day = order_day + ship_date_.Uniform(1, 121);
    const int64_t commit_day = order_day + commit_date_.Uniform(30, 90);
    const int64_t receipt_day = ship_day + receipt_date_.Uniform(1, 30);
    line.ship_date = static_cast<int32_t>(dates::kStartDate + ship_day);
    line.commit_date = static_cast<int32_t>(dates::kStartDate + commit_day);
    line.receipt_date = static_cast<int32_t>(dates::kStartDate + receipt_day);
    // The return flag is drawn only for lines received by the current date.
    line.return_flag = receipt_day <= kCurrentDay
                           ? dists_.return_flags.text(dists_.return_flags.Pick(return_flag_))[0]
                           : 'N';
    if (ship_day <= kCurrentDay) {
      line.line_status = 'F';
      ++shipped;
    } else {
      line.line_status = 'O';
    }
  }
  out->total_price = total_price;
  out->order_status = shipped == lines ? 'F' : (shipped > 0 ? 'P' : 'O');

  ForEachStream([](RowStream& s) { s.NextRow(); });
  ++row_;
}

}  // namespace shoal::io::tpch
