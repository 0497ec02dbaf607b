#include "shoal/io/tpch/customer_generator.h"

#include "shoal/io/tpch/generator_util.h"

namespace shoal::io::tpch {
namespace {

constexpr LengthRange kCustomerCommentLength = VariableLength(73);

}  // namespace

CustomerGenerator::CustomerGenerator(const TpchScale& /*scale*/, const TextPool& text)
    : text_(text), dists_(Distributions::Get()) {}

void CustomerGenerator::Seek(int64_t row) {
  row_ = row;
  ForEachStream([row](RowStream& s) { s.SeekRow(row); });
}

void CustomerGenerator::Next(CustomerRow* out) {
  out->cust_key = row_ + 1;
  out->address_length = RandomAlphaNumeric(address_, kAddressLength, out->address_buffer);
  out->nation_key = nation_.Uniform(0, kNationCount - 1);
  out->phone = RandomPhone(phone_, out->nation_key);
  out->account_balance = balance_.Uniform(-99999, 999999);
  out->market_segment = dists_.segments.text(dists_.segments.Pick(segment_));
  out->comment = text_.Draw(comment_, kCustomerCommentLength.min, kCustomerCommentLength.max);
  ForEachStream([](RowStream& s) { s.NextRow(); });
  ++row_;
}

}  // namespace shoal::io::tpch
