#include "shoal/io/tpch/supplier_generator.h"

#include <cstring>

#include "shoal/io/tpch/generator_util.h"

namespace shoal::io::tpch {
namespace {

constexpr LengthRange kSupplierCommentLength = VariableLength(63);

// Clause 4.2.3: per 10000 suppliers, about 10 get a complaint or recommendation, half each.
constexpr int64_t kBbbPer10000 = 10;
constexpr int64_t kBbbComplaintPercent = 50;
constexpr char kBbbBase[] = "Customer ";
constexpr char kBbbComplaint[] = "Complaints";
constexpr char kBbbRecommend[] = "Recommends";
constexpr int kBbbBaseLength = sizeof(kBbbBase) - 1;
constexpr int kBbbTypeLength = sizeof(kBbbComplaint) - 1;
constexpr int kBbbLength = kBbbBaseLength + kBbbTypeLength;

}  // namespace

SupplierGenerator::SupplierGenerator(const TpchScale& /*scale*/, const TextPool& text)
    : text_(text) {}

void SupplierGenerator::Seek(int64_t row) {
  row_ = row;
  ForEachStream([row](RowStream& s) { s.SeekRow(row); });
}

void SupplierGenerator::Next(SupplierRow* out) {
  out->supp_key = row_ + 1;
  out->address_length = RandomAlphaNumeric(address_, kAddressLength, out->address_buffer);
  out->nation_key = nation_.Uniform(0, kNationCount - 1);
  out->phone = RandomPhone(phone_, out->nation_key);
  out->account_balance = balance_.Uniform(-99999, 999999);
  std::string_view comment =
      text_.Draw(comment_, kSupplierCommentLength.min, kSupplierCommentLength.max);
  std::memcpy(out->comment_buffer, comment.data(), comment.size());
  const int length = static_cast<int>(comment.size());
  out->comment_length = length;

  // All four draws happen for every row so that rows stay independent of each other.
  const int64_t select = bbb_select_.Uniform(1, 10000);
  const int64_t type = bbb_type_.Uniform(0, 100);
  const int64_t junk = bbb_junk_.Uniform(0, length - kBbbLength);
  const int64_t offset = bbb_offset_.Uniform(0, length - (kBbbLength + junk));
  if (select <= kBbbPer10000) {
    char* c = out->comment_buffer + offset;
    std::memcpy(c, kBbbBase, kBbbBaseLength);
    std::memcpy(c + kBbbBaseLength + junk,
                type < kBbbComplaintPercent ? kBbbComplaint : kBbbRecommend, kBbbTypeLength);
  }

  ForEachStream([](RowStream& s) { s.NextRow(); });
  ++row_;
}

}  // namespace shoal::io::tpch
