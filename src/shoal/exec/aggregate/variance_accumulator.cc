// var_samp, var_pop, stddev_samp and stddev_pop over numbers, in double precision.
#include <algorithm>
#include <cmath>
#include <string>

#include "shoal/exec/aggregate/accumulator_internal.h"

namespace shoal::exec::internal {
namespace {

enum class VarianceKind : uint8_t { kVarSamp, kVarPop, kStddevSamp, kStddevPop };

// Welford's running mean and sum of squared deviations; partial states merge with Chan et al.'s
// pairwise formula, which stays accurate where sum-of-squares would cancel catastrophically.
template <typename In>
class VarianceAccumulator final : public Accumulator {
 public:
  explicit VarianceAccumulator(VarianceKind kind) : kind_(kind) {}

  void Resize(int64_t n) override {
    counts_.resize(static_cast<size_t>(n), 0);
    means_.resize(static_cast<size_t>(n), 0);
    m2_.resize(static_cast<size_t>(n), 0);
  }

  Status Update(const std::vector<ArrayPtr>& args, const GroupedRows& in) override {
    const In* v = args[0]->values<In>();
    int64_t* c = counts_.data();
    double* mean = means_.data();
    double* m2 = m2_.data();
    ForEachValid(args[0].get(), in, [&](int64_t r, uint32_t g) {
      const double x = static_cast<double>(v[r]);
      ++c[g];
      const double delta = x - mean[g];
      mean[g] += delta / static_cast<double>(c[g]);
      m2[g] += delta * (x - mean[g]);
    });
    return Status::OK();
  }

  Status Merge(const std::vector<ArrayPtr>& states, const GroupedRows& in) override {
    const int64_t* nb = states[0]->values<int64_t>();
    const double* mb = states[1]->values<double>();
    const double* m2b = states[2]->values<double>();
    int64_t* c = counts_.data();
    double* mean = means_.data();
    double* m2 = m2_.data();
    ForEachValid(states[0].get(), in, [&](int64_t r, uint32_t g) {
      if (nb[r] == 0)
        return;
      const double na = static_cast<double>(c[g]);
      const double n_b = static_cast<double>(nb[r]);
      const double n = na + n_b;
      const double delta = mb[r] - mean[g];
      mean[g] += delta * n_b / n;
      m2[g] += m2b[r] + delta * delta * na * n_b / n;
      c[g] += nb[r];
    });
    return Status::OK();
  }

  Result<std::vector<ArrayPtr>> State(int64_t start, int64_t length,
                                      const std::shared_ptr<MemoryPool>& pool) const override {
    std::vector<ArrayPtr> out(3);
    SHOAL_ASSIGN_OR_RETURN(
        out[0],
        MakeFixedArray<int64_t>(DataType::Int64(), counts_.data() + start, nullptr, length, pool));
    SHOAL_ASSIGN_OR_RETURN(
        out[1],
        MakeFixedArray<double>(DataType::Float64(), means_.data() + start, nullptr, length, pool));
    SHOAL_ASSIGN_OR_RETURN(out[2], MakeFixedArray<double>(DataType::Float64(), m2_.data() + start,
                                                          nullptr, length, pool));
    return out;
  }

  Result<ArrayPtr> Finalize(int64_t start, int64_t length,
                            const std::shared_ptr<MemoryPool>& pool) const override {
    std::vector<double> out(static_cast<size_t>(length));
    std::vector<uint8_t> valid(static_cast<size_t>(length));
    const bool sample = kind_ == VarianceKind::kVarSamp || kind_ == VarianceKind::kStddevSamp;
    const bool root = kind_ == VarianceKind::kStddevSamp || kind_ == VarianceKind::kStddevPop;
    for (int64_t i = 0; i < length; ++i) {
      const size_t g = static_cast<size_t>(start + i);
      const int64_t n = counts_[g];
      if (n == 0 || (sample && n == 1))
        continue;
      double var = std::max(0.0, m2_[g]) / static_cast<double>(sample ? n - 1 : n);
      out[static_cast<size_t>(i)] = root ? std::sqrt(var) : var;
      valid[static_cast<size_t>(i)] = 1;
    }
    return MakeFixedArray<double>(DataType::Float64(), out.data(), valid.data(), length, pool);
  }

  int64_t MemoryBytes() const override { return Bytes(counts_) + Bytes(means_) + Bytes(m2_); }

 private:
  VarianceKind kind_;
  std::vector<int64_t> counts_;
  std::vector<double> means_;
  std::vector<double> m2_;
};

}  // namespace

Result<AccPtr> MakeVarianceAccumulator(const std::string& name, const DataType& in) {
  VarianceKind kind = name == "var_samp"      ? VarianceKind::kVarSamp
                      : name == "var_pop"     ? VarianceKind::kVarPop
                      : name == "stddev_samp" ? VarianceKind::kStddevSamp
                                              : VarianceKind::kStddevPop;
  if (in.id() == TypeId::kFloat64)
    return AccPtr(new VarianceAccumulator<double>(kind));
  if (in.id() == TypeId::kFloat32)
    return AccPtr(new VarianceAccumulator<float>(kind));
  if (in.is_integer())
    return DispatchInteger(in.id(), [&](auto v) -> Result<AccPtr> {
      return AccPtr(new VarianceAccumulator<decltype(v)>(kind));
    });
  return Status::NotImplemented("{}({})", name, in.ToString());
}

}  // namespace shoal::exec::internal
