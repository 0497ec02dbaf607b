// array_agg(x): every input value of a group, NULLs included, in input order (sorted first by
// the ordered accumulator when the call has an ORDER BY); NULL for a group without rows.
//
// The accumulator keeps the input arrays it was given and one (chunk, row, group) entry per
// value, appended to three flat vectors: no per-group container and no per-row allocation. The
// result is built once: entries are bucketed by group (a counting sort, stable so input order
// holds), the kept chunks concatenated, and the items gathered with one Take.
#include <vector>

#include "shoal/exec/aggregate/accumulator_internal.h"
#include "shoal/exec/array_ops.h"

namespace shoal::exec::internal {
namespace {

class ArrayAggAccumulator final : public Accumulator {
 public:
  explicit ArrayAggAccumulator(DataType item) : item_(std::move(item)) {}

  void Resize(int64_t n) override { num_groups_ = n; }

  Status Update(const std::vector<ArrayPtr>& args, const GroupedRows& in) override {
    Add(args[0], in);
    return Status::OK();
  }

  Status Merge(const std::vector<ArrayPtr>& states, const GroupedRows& in) override {
    // A partial state is the array of each group so far: its items join the group.
    const Array& lists = *states[0];
    const int32_t chunk = static_cast<int32_t>(chunks_.size());
    chunks_.push_back(lists.child(0));
    ForEachValid(&lists, in, [&](int64_t r, uint32_t g) {
      for (int64_t j = lists.ListStart(r); j < lists.ListEnd(r); ++j) {
        chunk_.push_back(chunk);
        row_.push_back(static_cast<int32_t>(j));
        group_.push_back(g);
      }
    });
    sorted_ = false;
    return Status::OK();
  }

  Result<std::vector<ArrayPtr>> State(int64_t start, int64_t length,
                                      const std::shared_ptr<MemoryPool>& pool) const override {
    SHOAL_ASSIGN_OR_RETURN(ArrayPtr lists, Finalize(start, length, pool));
    return std::vector<ArrayPtr>{std::move(lists)};
  }

  Result<ArrayPtr> Finalize(int64_t start, int64_t length,
                            const std::shared_ptr<MemoryPool>& pool) const override {
    SHOAL_RETURN_IF_ERROR(Sort(pool));
    const size_t first = static_cast<size_t>(start);
    std::vector<int32_t> take;
    take.reserve(static_cast<size_t>(group_begin_[first + static_cast<size_t>(length)] -
                                     group_begin_[first]));
    SHOAL_ASSIGN_OR_RETURN(BufferPtr offsets, AllocateValues<int32_t>(length + 1, pool));
    int32_t* o = offsets->mutable_data_as<int32_t>();
    std::vector<uint8_t> valid(static_cast<size_t>(length));
    bool any_null = false;
    for (int64_t g = 0; g < length; ++g) {
      o[g] = static_cast<int32_t>(take.size());
      const size_t gi = first + static_cast<size_t>(g);
      for (int64_t k = group_begin_[gi]; k < group_begin_[gi + 1]; ++k)
        take.push_back(order_[static_cast<size_t>(k)]);
      valid[static_cast<size_t>(g)] = group_begin_[gi + 1] > group_begin_[gi] ? 1 : 0;
      any_null = any_null || valid[static_cast<size_t>(g)] == 0;
    }
    o[length] = static_cast<int32_t>(take.size());
    SHOAL_ASSIGN_OR_RETURN(ArrayPtr items,
                           Take(*all_, take.data(), static_cast<int64_t>(take.size()), pool));
    BufferPtr validity;
    if (any_null) {
      SHOAL_ASSIGN_OR_RETURN(validity, bits::Allocate(length, pool));
      bits::PackBytes(valid.data(), length, validity->mutable_data());
    }
    return Array::MakeNested(DataType::List(item_), length,
                             {std::move(validity), std::move(offsets)}, {std::move(items)});
  }

  int64_t MemoryBytes() const override {
    int64_t bytes = static_cast<int64_t>((chunk_.capacity() + row_.capacity()) * sizeof(int32_t) +
                                         group_.capacity() * sizeof(uint32_t));
    for (const auto& c : chunks_)
      bytes += c->BufferBytes();
    return bytes;
  }

 private:
  void Add(const ArrayPtr& values, const GroupedRows& in) {
    const int32_t chunk = static_cast<int32_t>(chunks_.size());
    chunks_.push_back(values);
    // Every row, NULLs too: array_agg keeps NULL elements.
    ForEachValid(nullptr, in, [&](int64_t r, uint32_t g) {
      chunk_.push_back(chunk);
      row_.push_back(static_cast<int32_t>(r));
      group_.push_back(g);
    });
    sorted_ = false;
  }

  /// Buckets the entries by group (stable) into positions of the concatenated chunks.
  Status Sort(const std::shared_ptr<MemoryPool>& pool) const {
    if (sorted_)
      return Status::OK();
    std::vector<ArrayPtr> parts;
    std::vector<int64_t> base;
    int64_t total = 0;
    for (const auto& c : chunks_) {
      base.push_back(total);
      total += c->length();
      parts.push_back(c);
    }
    if (total > INT32_MAX)
      return Status::OutOfRange("array_agg input of one group set exceeds 2^31 values");
    if (parts.empty()) {
      SHOAL_ASSIGN_OR_RETURN(all_, Array::MakeAllNull(item_, 0, pool));
    } else {
      SHOAL_ASSIGN_OR_RETURN(all_, Concatenate(parts, pool));
    }
    group_begin_.assign(static_cast<size_t>(num_groups_) + 1, 0);
    for (uint32_t g : group_)
      ++group_begin_[static_cast<size_t>(g) + 1];
    for (size_t g = 1; g < group_begin_.size(); ++g)
      group_begin_[g] += group_begin_[g - 1];
    std::vector<int64_t> next(group_begin_.begin(), group_begin_.end() - 1);
    order_.resize(group_.size());
    for (size_t k = 0; k < group_.size(); ++k) {
      order_[static_cast<size_t>(next[group_[k]]++)] =
          static_cast<int32_t>(base[static_cast<size_t>(chunk_[k])] + row_[k]);
    }
    sorted_ = true;
    return Status::OK();
  }

  DataType item_;
  int64_t num_groups_ = 0;
  std::vector<ArrayPtr> chunks_;
  std::vector<int32_t> chunk_;
  std::vector<int32_t> row_;
  std::vector<uint32_t> group_;
  // Built by Sort() for Finalize / State.
  mutable bool sorted_ = false;
  mutable ArrayPtr all_;
  mutable std::vector<int64_t> group_begin_;
  mutable std::vector<int32_t> order_;
};

}  // namespace

AccPtr MakeArrayAggAccumulator(const DataType& item) {
  return std::make_unique<ArrayAggAccumulator>(item);
}

}  // namespace shoal::exec::internal
