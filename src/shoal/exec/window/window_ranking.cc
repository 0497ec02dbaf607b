// The window functions computed from the boundaries and frames alone, without aggregation:
// ranking (row_number, rank, dense_rank, percent_rank, cume_dist, ntile) and navigation (lag,
// lead, first_value, last_value, nth_value, the last three by a gather at a frame bound).

#include <algorithm>

#include "shoal/exec/array_ops.h"
#include "shoal/exec/operators/window_exec_internal.h"

namespace shoal::exec::internal {

namespace {

// A column of `values` without nulls.
template <typename T>
Result<ArrayPtr> ValuesColumn(const DataType& type, const std::vector<T>& values,
                              const std::shared_ptr<MemoryPool>& pool) {
  SHOAL_ASSIGN_OR_RETURN(auto buffer, AllocateValues<T>(static_cast<int64_t>(values.size()), pool));
  std::copy(values.begin(), values.end(), buffer->template mutable_data_as<T>());
  return Array::Make(type, static_cast<int64_t>(values.size()), {nullptr, std::move(buffer)}, 0);
}

}  // namespace

Result<ArrayPtr> WindowStream::Int64Result(const std::vector<int64_t>& values) {
  return ValuesColumn(DataType::Int64(), values, pool());
}

Result<ArrayPtr> WindowStream::Float64Result(const std::vector<double>& values) {
  return ValuesColumn(DataType::Float64(), values, pool());
}

Result<ArrayPtr> WindowStream::Gathered(const Array& source, const std::vector<int32_t>& indices) {
  return Take(source, indices.data(), static_cast<int64_t>(indices.size()), pool(),
              /*allow_null_index=*/true);
}

Result<ArrayPtr> WindowStream::Ranking(const std::string& name, int64_t n) {
  if (name == "row_number" || name == "rank" || name == "dense_rank") {
    std::vector<int64_t> out(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      const auto u = static_cast<size_t>(i);
      const int64_t ps = partition_start_[u];
      out[u] = name == "row_number" ? i - ps + 1
               : name == "rank"     ? peer_start_[u] - ps + 1
                                    : group_index_[u] - group_index_[static_cast<size_t>(ps)] + 1;
    }
    return Int64Result(out);
  }
  if (name == "percent_rank" || name == "cume_dist") {
    std::vector<double> out(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      const auto u = static_cast<size_t>(i);
      const int64_t ps = partition_start_[u];
      const int64_t rows = partition_end_[u] - ps;
      if (name == "percent_rank") {
        out[u] = rows > 1 ? static_cast<double>(peer_start_[u] - ps) / static_cast<double>(rows - 1)
                          : 0.0;
      } else {
        out[u] = static_cast<double>(peer_end_[u] - ps) / static_cast<double>(rows);
      }
    }
    return Float64Result(out);
  }
  return Status::Internal("{} is not a ranking function", name);
}

Result<ArrayPtr> WindowStream::Ntile(const Array& buckets_arg, int64_t n) {
  std::vector<int64_t> out(static_cast<size_t>(n), 0);
  std::vector<uint8_t> valid(static_cast<size_t>(n), 1);
  bool any_null = false;
  for (int64_t ps = 0; ps < n;) {
    const int64_t pe = partition_end_[static_cast<size_t>(ps)];
    const int64_t rows = pe - ps;
    if (buckets_arg.IsNull(ps)) {
      for (int64_t i = ps; i < pe; ++i)
        valid[static_cast<size_t>(i)] = 0;
      any_null = true;
    } else {
      const int64_t buckets = buckets_arg.values<int64_t>()[ps];
      if (buckets <= 0)
        return Status::InvalidArgument("argument of ntile must be greater than zero")
            .WithSqlState("22014");
      // The first rows % buckets buckets get one row more than the others.
      const int64_t small = rows / buckets;
      const int64_t large_count = rows % buckets;
      for (int64_t r = 0; r < rows; ++r) {
        int64_t bucket;
        if (r < large_count * (small + 1))
          bucket = r / (small + 1);
        else
          bucket = large_count + (r - large_count * (small + 1)) / std::max<int64_t>(small, 1);
        out[static_cast<size_t>(ps + r)] = bucket + 1;
      }
    }
    ps = pe;
  }
  SHOAL_ASSIGN_OR_RETURN(ArrayPtr values, Int64Result(out));
  if (!any_null)
    return values;
  SHOAL_ASSIGN_OR_RETURN(auto bitmap, bits::Allocate(n, pool()));
  bits::PackBytes(valid.data(), n, bitmap->mutable_data());
  return Array::Make(DataType::Int64(), n, {std::move(bitmap), values->buffer(1)});
}

Result<ArrayPtr> WindowStream::LagLead(bool lag, const std::vector<ArrayPtr>& args, int64_t n) {
  const Array* offsets = args.size() >= 2 ? args[1].get() : nullptr;
  const bool has_default = args.size() >= 3;
  ArrayPtr source = args[0];
  if (has_default) {
    // Rows outside the partition read the default: index n + i of [value; default].
    SHOAL_ASSIGN_OR_RETURN(source, Concatenate({args[0], args[2]}, pool()));
  }
  std::vector<int32_t> indices(static_cast<size_t>(n), -1);
  for (int64_t i = 0; i < n; ++i) {
    const auto u = static_cast<size_t>(i);
    int64_t offset = 1;
    if (offsets != nullptr) {
      if (offsets->IsNull(i))
        continue;  // a NULL offset gives NULL, not the default
      offset = offsets->values<int64_t>()[i];
    }
    // Saturate so huge offsets cannot overflow.
    offset = std::clamp<int64_t>(offset, -n - 1, n + 1);
    const int64_t target = lag ? i - offset : i + offset;
    if (target >= partition_start_[u] && target < partition_end_[u])
      indices[u] = static_cast<int32_t>(target);
    else if (has_default)
      indices[u] = static_cast<int32_t>(n + i);
  }
  return Gathered(*source, indices);
}

Result<ArrayPtr> WindowStream::FrameValue(const std::string& name,
                                          const std::vector<ArrayPtr>& args, int64_t n) {
  std::vector<int32_t> indices(static_cast<size_t>(n), -1);
  for (int64_t i = 0; i < n; ++i) {
    const auto u = static_cast<size_t>(i);
    const int64_t s = frame_start_[u];
    const int64_t e = frame_end_[u];
    if (s >= e)
      continue;
    if (name == "first_value") {
      indices[u] = static_cast<int32_t>(s);
    } else if (name == "last_value") {
      indices[u] = static_cast<int32_t>(e - 1);
    } else {
      const Array& nth = *args[1];
      if (nth.IsNull(i))
        continue;
      const int64_t k = nth.values<int64_t>()[i];
      if (k <= 0)
        return Status::InvalidArgument("argument of nth_value must be greater than zero")
            .WithSqlState("22016");
      if (k <= e - s)
        indices[u] = static_cast<int32_t>(s + k - 1);
    }
  }
  return Gathered(*args[0], indices);
}

}  // namespace shoal::exec::internal
