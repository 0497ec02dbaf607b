#include "shoal/io/tpch/region_generator.h"

#include "shoal/io/tpch/generator_util.h"

namespace shoal::io::tpch {
namespace {
constexpr LengthRange kRegionCommentLength = VariableLength(72);
}  // namespace

RegionGenerator::RegionGenerator(const TpchScale& /*scale*/, const TextPool& text)
    : text_(text), dists_(Distributions::Get()) {}

void RegionGenerator::Seek(int64_t row) {
  row_ = row;
  comment_.SeekRow(row);
}

void RegionGenerator::Next(RegionRow* out) {
  out->region_key = row_;
  out->name = dists_.regions.text(static_cast<int>(row_));
  out->comment = text_.Draw(comment_, kRegionCommentLength.min, kRegionCommentLength.max);
  comment_.NextRow();
  ++row_;
}

}  // namespace shoal::io::tpch
