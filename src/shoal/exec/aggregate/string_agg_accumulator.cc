// string_agg(value, separator), the one aggregate that concatenates.
#include <string>
#include <string_view>

#include "shoal/exec/aggregate/accumulator_internal.h"

namespace shoal::exec::internal {
namespace {

// string_agg(value, separator): values in input order, each but the first preceded by its own
// row's separator (a NULL separator counts as empty, as in PostgreSQL). The partial state keeps
// the first separator so that merging two partials puts the right one between them.
class StringAggAccumulator final : public Accumulator {
 public:
  explicit StringAggAccumulator(DataType type) : type_(std::move(type)) {}

  void Resize(int64_t n) override {
    values_.resize(static_cast<size_t>(n));
    first_separators_.resize(static_cast<size_t>(n));
    seen_.resize(static_cast<size_t>(n), 0);
  }

  Status Update(const std::vector<ArrayPtr>& args, const GroupedRows& in) override {
    Add(*args[0], *args[1], in);
    return Status::OK();
  }

  Status Merge(const std::vector<ArrayPtr>& states, const GroupedRows& in) override {
    Add(*states[0], *states[1], in);
    return Status::OK();
  }

  Result<std::vector<ArrayPtr>> State(int64_t start, int64_t length,
                                      const std::shared_ptr<MemoryPool>& pool) const override {
    std::vector<ArrayPtr> out(2);
    SHOAL_ASSIGN_OR_RETURN(out[0], MakeStringArray(type_, values_, seen_, start, length, pool));
    SHOAL_ASSIGN_OR_RETURN(out[1],
                           MakeStringArray(type_, first_separators_, seen_, start, length, pool));
    return out;
  }

  Result<ArrayPtr> Finalize(int64_t start, int64_t length,
                            const std::shared_ptr<MemoryPool>& pool) const override {
    return MakeStringArray(type_, values_, seen_, start, length, pool);
  }

  int64_t MemoryBytes() const override {
    int64_t bytes = Bytes(values_) + Bytes(first_separators_) + Bytes(seen_);
    for (const std::string& s : values_)
      bytes += static_cast<int64_t>(s.capacity());
    return bytes;
  }

 private:
  void Add(const Array& values, const Array& separators, const GroupedRows& in) {
    std::string* out = values_.data();
    std::string* first = first_separators_.data();
    uint8_t* seen = seen_.data();
    const bool sep_is_null_type = separators.type_id() == TypeId::kNull;
    ForEachValid(&values, in, [&](int64_t r, uint32_t g) {
      std::string_view sep;
      if (!sep_is_null_type && separators.IsValid(r))
        sep = separators.StringValue(r);
      std::string_view v = values.StringValue(r);
      if (!seen[g]) {
        out[g].assign(v.data(), v.size());
        first[g].assign(sep.data(), sep.size());
        seen[g] = 1;
      } else {
        out[g].append(sep.data(), sep.size());
        out[g].append(v.data(), v.size());
      }
    });
  }

  DataType type_;
  std::vector<std::string> values_;
  std::vector<std::string> first_separators_;
  std::vector<uint8_t> seen_;
};

}  // namespace

AccPtr MakeStringAggAccumulator(const DataType& type) {
  return AccPtr(new StringAggAccumulator(type));
}

}  // namespace shoal::exec::internal
