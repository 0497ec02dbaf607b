#include "shoal/io/tpch/part_generator.h"

#include <cstring>
#include <utility>

#include "shoal/io/tpch/generator_util.h"

namespace shoal::io::tpch {
namespace {

constexpr LengthRange kPartCommentLength = VariableLength(14);
constexpr LengthRange kPartSuppCommentLength = VariableLength(124);
constexpr int kNameWords = 5;
constexpr int kColorCount = 92;

}  // namespace

PartGenerator::PartGenerator(const TpchScale& scale, const TextPool& text)
    : text_(text), dists_(Distributions::Get()), supplier_count_(scale.supplier_count()) {}

void PartGenerator::Seek(int64_t row) {
  row_ = row;
  ForEachStream([row](RowStream& s) { s.SeekRow(row); });
}

void PartGenerator::Next(PartRow* out) {
  const int64_t key = row_ + 1;
  out->part_key = key;

  // p_name: the first five colors of a Fisher-Yates shuffle of all 92. The reference generator
  // shuffles the whole list, but the stream is realigned after the row, so only the draws that
  // place the first five matter.
  uint8_t order[kColorCount];
  for (int i = 0; i < kColorCount; ++i)
    order[i] = static_cast<uint8_t>(i);
  char* name = out->name_buffer;
  for (int i = 0; i < kNameWords; ++i) {
    const int64_t j = name_.Uniform(i, kColorCount - 1);
    std::swap(order[i], order[j]);
    std::string_view color = dists_.colors.text(order[i]);
    if (i > 0)
      *name++ = ' ';
    std::memcpy(name, color.data(), color.size());
    name += color.size();
  }
  out->name_length = static_cast<int32_t>(name - out->name_buffer);

  out->manufacturer = static_cast<int32_t>(mfgr_.Uniform(1, 5));
  out->brand = static_cast<int32_t>(out->manufacturer * 10 + brand_.Uniform(1, 5));
  out->type = dists_.part_types.text(dists_.part_types.Pick(type_));
  out->size = size_.Uniform(1, 50);
  out->container = dists_.containers.text(dists_.containers.Pick(container_));
  out->retail_price = RetailPriceCents(key);
  out->comment = text_.Draw(comment_, kPartCommentLength.min, kPartCommentLength.max);

  for (int i = 0; i < PartRow::kSuppliers; ++i) {
    PartSuppRow& ps = out->suppliers[i];
    ps.part_key = key;
    ps.supp_key = PartSupplierKey(key, i, supplier_count_);
    ps.available_quantity = ps_quantity_.Uniform(1, 9999);
    ps.supply_cost = ps_cost_.Uniform(100, 100000);
    ps.comment = text_.Draw(ps_comment_, kPartSuppCommentLength.min, kPartSuppCommentLength.max);
  }

  ForEachStream([](RowStream& s) { s.NextRow(); });
  ++row_;
}

}  // namespace shoal::io::tpch
