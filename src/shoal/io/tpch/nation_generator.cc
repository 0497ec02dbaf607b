#include "shoal/io/tpch/nation_generator.h"

#include "shoal/io/tpch/generator_util.h"

namespace shoal::io::tpch {
namespace {
constexpr LengthRange kNationCommentLength = VariableLength(72);
}  // namespace

NationGenerator::NationGenerator(const TpchScale& /*scale*/, const TextPool& text)
    : text_(text), dists_(Distributions::Get()) {}

void NationGenerator::Seek(int64_t row) {
  row_ = row;
  comment_.SeekRow(row);
}

void NationGenerator::Next(NationRow* out) {
  const NationInfo& nation = dists_.nations[static_cast<size_t>(row_)];
  out->nation_key = row_;
  out->name = nation.name;
  out->region_key = nation.region_key;
  out->comment = text_.Draw(comment_, kNationCommentLength.min, kNationCommentLength.max);
  comment_.NextRow();
  ++row_;
}

}  // namespace shoal::io::tpch
