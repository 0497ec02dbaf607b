// Row-wise kernels for the many small scalar functions whose work per row is itself a loop (text
// functions, calendar formatting, integer helpers): the arguments are cast once per batch to the
// types the function wants, NULL in any argument gives NULL (the functions are strict), and a
// lambda computes one row — inlined into the batch loop, so there is no call through a pointer
// per row. A scalar argument is read at row 0 for every row; the result is a scalar when every
// argument is one.
#pragma once

#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "shoal/exec/expr/kernel_util.h"

namespace shoal::exec::kernels {

/// The cast arguments of one batch, read by row.
class RowArgs {
 public:
  explicit RowArgs(const std::vector<Datum>& args) : args_(args) {}
  std::string_view Str(size_t k, int64_t i) const {
    return args_[k].array->StringValue(args_[k].is_scalar ? 0 : i);
  }
  template <typename T>
  T Val(size_t k, int64_t i) const {
    return args_[k].array->Value<T>(args_[k].is_scalar ? 0 : i);
  }
  size_t size() const { return args_.size(); }

 private:
  const std::vector<Datum>& args_;
};

/// A text-valued function: fn(const RowArgs&, int64_t row, std::string* out) -> Status appends
/// the row's value to `out`.
template <typename Fn>
Result<KernelPtr> MakeTextRowKernel(const KernelSignature& sig, const std::vector<DataType>& want,
                                    Fn fn) {
  auto casts = std::make_shared<ArgCasts>();
  SHOAL_RETURN_IF_ERROR(casts->Init(sig.arg_types, want));
  const DataType type = DataType::Utf8();
  return MakeLambdaKernel([casts, type, fn](const std::vector<Datum>& args, int64_t length,
                                            KernelContext* ctx) -> Result<Datum> {
    if (AnyNullScalar(args))
      return NullScalar(type, ctx);
    SHOAL_ASSIGN_OR_RETURN(std::vector<Datum> c, casts->Apply(args, length, ctx));
    const bool scalar = AllScalar(c);
    const int64_t n = scalar ? 1 : length;
    SHOAL_ASSIGN_OR_RETURN(BufferPtr validity, PropagateValidity(c, n, ctx));
    SHOAL_ASSIGN_OR_RETURN(BufferPtr offsets, AllocateValues<int32_t>(n + 1, ctx->pool));
    int32_t* o = offsets->mutable_data_as<int32_t>();
    std::string data;
    o[0] = 0;
    const RowArgs rows(c);
    for (int64_t i = 0; i < n; ++i) {
      if (validity == nullptr || columnar::bitmap::GetBit(validity->data(), i))
        SHOAL_RETURN_IF_ERROR(fn(rows, i, &data));
      if (data.size() > INT32_MAX)
        return Status::OutOfRange("string column exceeds 2 GiB in one batch");
      o[i + 1] = static_cast<int32_t>(data.size());
    }
    SHOAL_ASSIGN_OR_RETURN(
        BufferPtr bytes, columnar::Buffer::Allocate(static_cast<int64_t>(data.size()), ctx->pool));
    if (!data.empty())
      std::memcpy(bytes->mutable_data(), data.data(), data.size());
    return MakeResult(type, n, std::move(validity), {std::move(offsets), std::move(bytes)}, scalar);
  });
}

/// A fixed-width-valued function: fn(const RowArgs&, int64_t row, T* out) -> Status.
template <typename T, typename Fn>
Result<KernelPtr> MakeFixedRowKernel(const KernelSignature& sig, const std::vector<DataType>& want,
                                     const DataType& type, Fn fn) {
  auto casts = std::make_shared<ArgCasts>();
  SHOAL_RETURN_IF_ERROR(casts->Init(sig.arg_types, want));
  return MakeLambdaKernel([casts, type, fn](const std::vector<Datum>& args, int64_t length,
                                            KernelContext* ctx) -> Result<Datum> {
    if (AnyNullScalar(args))
      return NullScalar(type, ctx);
    SHOAL_ASSIGN_OR_RETURN(std::vector<Datum> c, casts->Apply(args, length, ctx));
    const bool scalar = AllScalar(c);
    const int64_t n = scalar ? 1 : length;
    SHOAL_ASSIGN_OR_RETURN(BufferPtr validity, PropagateValidity(c, n, ctx));
    SHOAL_ASSIGN_OR_RETURN(BufferPtr values, AllocateValues<T>(n, ctx->pool));
    T* out = values->mutable_data_as<T>();
    const RowArgs rows(c);
    for (int64_t i = 0; i < n; ++i) {
      out[i] = T{};
      if (validity == nullptr || columnar::bitmap::GetBit(validity->data(), i))
        SHOAL_RETURN_IF_ERROR(fn(rows, i, &out[i]));
    }
    return MakeResult(type, n, std::move(validity), {std::move(values)}, scalar);
  });
}

}  // namespace shoal::exec::kernels
