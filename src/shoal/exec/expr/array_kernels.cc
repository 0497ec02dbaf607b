// Kernels of the array, record and map functions (sql/expr.h lists their names).
//
// Every kernel works on whole arrays through the list's offsets and its child: it flattens the
// elements it needs into one index vector, gathers them with Take (one typed loop per call, for
// any element type, nested ones included) and builds the result's offsets directly. Comparisons
// between elements (= ANY, @>, array_position, map keys) run the registered comparison kernel
// once over all element pairs of the batch, so no per-row virtual call or allocation happens.

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "shoal/columnar/bitmap.h"
#include "shoal/columnar/builder.h"
#include "shoal/columnar/pretty_print.h"
#include "shoal/exec/array_ops.h"
#include "shoal/exec/expr/kernel.h"
#include "shoal/exec/expr/kernel_util.h"
#include "shoal/exec/hash.h"
#include "shoal/exec/row_key/nested_key_encoder.h"

namespace shoal::exec {

namespace {

using columnar::Field;
using kernels::MakeResult;
namespace bitmap = columnar::bitmap;

/// The arguments as arrays of `n` rows each: scalars are broadcast when some argument is not
/// one; when all are scalars n is 1 and the result is a scalar too.
struct Expanded {
  std::vector<ArrayPtr> arrays;
  int64_t n = 0;
  bool scalar = false;
};

Result<Expanded> Expand(const std::vector<Datum>& args, int64_t length, KernelContext* ctx) {
  Expanded e;
  e.scalar = true;
  for (const Datum& d : args)
    e.scalar = e.scalar && d.is_scalar;
  e.n = e.scalar ? 1 : length;
  for (const Datum& d : args) {
    if (d.is_scalar && !e.scalar) {
      SHOAL_ASSIGN_OR_RETURN(ArrayPtr b, Broadcast(*d.array, e.n, ctx->pool));
      SHOAL_ASSIGN_OR_RETURN(b, DecodeDictionary(b, ctx->pool));
      e.arrays.push_back(std::move(b));
    } else {
      SHOAL_ASSIGN_OR_RETURN(ArrayPtr a, DecodeDictionary(d.array, ctx->pool));
      e.arrays.push_back(std::move(a));
    }
  }
  return e;
}

/// The elements of the valid rows of a list (or map) array, gathered at offset 0: row i's
/// elements are items [begin[i], begin[i + 1]) of `items`; `row_of` maps an item to its row.
struct Flat {
  ArrayPtr items;
  std::vector<int32_t> begin;  // n + 1
  std::vector<int32_t> row_of;
};

Result<Flat> Flatten(const Array& list, const std::shared_ptr<MemoryPool>& pool) {
  const int64_t n = list.length();
  Flat f;
  f.begin.resize(static_cast<size_t>(n) + 1);
  std::vector<int32_t> index;
  int64_t total = 0;
  for (int64_t i = 0; i < n; ++i)
    total += list.IsValid(i) ? list.ListLength(i) : 0;
  if (total > std::numeric_limits<int32_t>::max())
    return Status::OutOfRange("array elements of one batch exceed 2^31");
  index.resize(static_cast<size_t>(total));
  f.row_of.resize(static_cast<size_t>(total));
  int32_t k = 0;
  for (int64_t i = 0; i < n; ++i) {
    f.begin[static_cast<size_t>(i)] = k;
    if (!list.IsValid(i))
      continue;
    const int64_t s = list.ListStart(i);
    const int64_t e = list.ListEnd(i);
    for (int64_t j = s; j < e; ++j, ++k) {
      index[static_cast<size_t>(k)] = static_cast<int32_t>(j);
      f.row_of[static_cast<size_t>(k)] = static_cast<int32_t>(i);
    }
  }
  f.begin[static_cast<size_t>(n)] = k;
  SHOAL_ASSIGN_OR_RETURN(f.items, Take(*list.child(0), index.data(), total, pool));
  return f;
}

/// A list array of `type` from its validity, int32 offsets (n + 1) and items.
Result<ArrayPtr> MakeList(const DataType& type, int64_t n, BufferPtr validity,
                          const std::vector<int32_t>& offsets, ArrayPtr items,
                          const std::shared_ptr<MemoryPool>& pool) {
  SHOAL_ASSIGN_OR_RETURN(BufferPtr o, AllocateValues<int32_t>(n + 1, pool));
  std::memcpy(o->mutable_data(), offsets.data(), sizeof(int32_t) * static_cast<size_t>(n + 1));
  return Array::MakeNested(type, n, {std::move(validity), std::move(o)}, {std::move(items)});
}

/// A validity bitmap from one byte per row (null when every row is valid).
Result<BufferPtr> ValidityFromBytes(const std::vector<uint8_t>& valid,
                                    const std::shared_ptr<MemoryPool>& pool) {
  bool all = true;
  for (uint8_t v : valid)
    all = all && v != 0;
  if (all)
    return BufferPtr();
  SHOAL_ASSIGN_OR_RETURN(BufferPtr b, bits::Allocate(static_cast<int64_t>(valid.size()), pool));
  bits::PackBytes(valid.data(), static_cast<int64_t>(valid.size()), b->mutable_data());
  return b;
}

Result<ArrayPtr> EmptyOf(const DataType& type, const std::shared_ptr<MemoryPool>& pool) {
  return Array::MakeAllNull(type, 0, pool);
}

/// A boolean or int32 result from one value and one validity byte per row.
template <typename T>
Result<Datum> FixedResult(const DataType& type, const std::vector<T>& values,
                          const std::vector<uint8_t>& valid, bool scalar, KernelContext* ctx) {
  const int64_t n = static_cast<int64_t>(values.size());
  SHOAL_ASSIGN_OR_RETURN(BufferPtr validity, ValidityFromBytes(valid, ctx->pool));
  if constexpr (std::is_same_v<T, uint8_t>) {
    SHOAL_ASSIGN_OR_RETURN(BufferPtr b, bits::Allocate(n, ctx->pool));
    bits::PackBytes(values.data(), n, b->mutable_data());
    return MakeResult(type, n, std::move(validity), {std::move(b)}, scalar);
  } else {
    SHOAL_ASSIGN_OR_RETURN(BufferPtr b, AllocateValues<T>(n, ctx->pool));
    std::memcpy(b->mutable_data(), values.data(), sizeof(T) * static_cast<size_t>(n));
    return MakeResult(type, n, std::move(validity), {std::move(b)}, scalar);
  }
}

/// One validity byte and one value byte per element of a boolean array (NULL: valid 0).
void ReadBooleans(const Array& a, std::vector<uint8_t>* value, std::vector<uint8_t>* valid) {
  const int64_t n = a.length();
  value->resize(static_cast<size_t>(n));
  valid->resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    (*valid)[static_cast<size_t>(i)] = a.IsValid(i) ? 1 : 0;
    (*value)[static_cast<size_t>(i)] = a.IsValid(i) && a.BoolValue(i) ? 1 : 0;
  }
}

/// Runs the comparison `op` between a[ia[k]] and b[ib[k]] for every k: one kernel call.
Result<ArrayPtr> ComparePairs(const std::string& op, const Array& a, const std::vector<int32_t>& ia,
                              const Array& b, const std::vector<int32_t>& ib, KernelContext* ctx) {
  const int64_t m = static_cast<int64_t>(ia.size());
  SHOAL_ASSIGN_OR_RETURN(ArrayPtr x, Take(a, ia.data(), m, ctx->pool));
  SHOAL_ASSIGN_OR_RETURN(ArrayPtr y, Take(b, ib.data(), m, ctx->pool));
  KernelSignature sig;
  sig.arg_types = {x->type(), y->type()};
  sig.result_type = DataType::Boolean();
  SHOAL_ASSIGN_OR_RETURN(KernelPtr kernel, KernelRegistry::Global().Make(op, sig));
  SHOAL_ASSIGN_OR_RETURN(Datum r, kernel->Execute({Datum::Array(x), Datum::Array(y)}, m, ctx));
  if (r.is_scalar)
    return Broadcast(*r.array, m, ctx->pool);
  return r.array;
}

// make_array(x1, ..., xk): ARRAY[x1, ..., xk].
Result<KernelPtr> MakeArrayKernel(const KernelSignature& sig) {
  DataType type = sig.result_type;
  return MakeLambdaKernel(
      [type](const std::vector<Datum>& args, int64_t length, KernelContext* ctx) -> Result<Datum> {
        SHOAL_ASSIGN_OR_RETURN(Expanded e, Expand(args, length, ctx));
        const int64_t n = e.n;
        const int64_t k = static_cast<int64_t>(args.size());
        ArrayPtr items;
        if (k == 0) {
          SHOAL_ASSIGN_OR_RETURN(items, EmptyOf(type.item_field().type, ctx->pool));
        } else {
          SHOAL_ASSIGN_OR_RETURN(ArrayPtr all, Concatenate(e.arrays, ctx->pool));
          std::vector<int32_t> index(static_cast<size_t>(n * k));
          for (int64_t r = 0; r < n; ++r) {
            for (int64_t j = 0; j < k; ++j)
              index[static_cast<size_t>(r * k + j)] = static_cast<int32_t>(j * n + r);
          }
          SHOAL_ASSIGN_OR_RETURN(items, Take(*all, index.data(), n * k, ctx->pool));
        }
        std::vector<int32_t> offsets(static_cast<size_t>(n) + 1);
        for (int64_t r = 0; r <= n; ++r)
          offsets[static_cast<size_t>(r)] = static_cast<int32_t>(r * k);
        SHOAL_ASSIGN_OR_RETURN(ArrayPtr out,
                               MakeList(type, n, nullptr, offsets, std::move(items), ctx->pool));
        return Datum{out, e.scalar};
      });
}

// array_subscript(a, i): a[i], 1-based; NULL out of range.
Result<KernelPtr> SubscriptKernel(const KernelSignature&) {
  return MakeLambdaKernel(
      [](const std::vector<Datum>& args, int64_t length, KernelContext* ctx) -> Result<Datum> {
        SHOAL_ASSIGN_OR_RETURN(Expanded e, Expand(args, length, ctx));
        const Array& a = *e.arrays[0];
        const Array& idx = *e.arrays[1];
        std::vector<int32_t> take(static_cast<size_t>(e.n));
        for (int64_t r = 0; r < e.n; ++r) {
          int32_t t = -1;
          if (a.IsValid(r) && idx.IsValid(r)) {
            const int64_t i = idx.Value<int64_t>(r);
            if (i >= 1 && i <= a.ListLength(r))
              t = static_cast<int32_t>(a.ListStart(r) + i - 1);
          }
          take[static_cast<size_t>(r)] = t;
        }
        SHOAL_ASSIGN_OR_RETURN(ArrayPtr out, Take(*a.child(0), take.data(), e.n, ctx->pool, true));
        return Datum{out, e.scalar};
      });
}

// array_slice(a, lo, hi): a[lo:hi], clamped to the array as PostgreSQL's one-dimensional slices.
Result<KernelPtr> SliceKernel(const KernelSignature&) {
  return MakeLambdaKernel(
      [](const std::vector<Datum>& args, int64_t length, KernelContext* ctx) -> Result<Datum> {
        SHOAL_ASSIGN_OR_RETURN(Expanded e, Expand(args, length, ctx));
        const Array& a = *e.arrays[0];
        const Array& lo = *e.arrays[1];
        const Array& hi = *e.arrays[2];
        std::vector<int32_t> offsets(static_cast<size_t>(e.n) + 1, 0);
        std::vector<uint8_t> valid(static_cast<size_t>(e.n));
        std::vector<int32_t> take;
        for (int64_t r = 0; r < e.n; ++r) {
          offsets[static_cast<size_t>(r)] = static_cast<int32_t>(take.size());
          valid[static_cast<size_t>(r)] = a.IsValid(r) && lo.IsValid(r) && hi.IsValid(r) ? 1 : 0;
          if (!valid[static_cast<size_t>(r)])
            continue;
          const int64_t len = a.ListLength(r);
          const int64_t from = std::max<int64_t>(lo.Value<int64_t>(r), 1);
          const int64_t to = std::min<int64_t>(hi.Value<int64_t>(r), len);
          for (int64_t i = from; i <= to; ++i)
            take.push_back(static_cast<int32_t>(a.ListStart(r) + i - 1));
        }
        offsets[static_cast<size_t>(e.n)] = static_cast<int32_t>(take.size());
        SHOAL_ASSIGN_OR_RETURN(ArrayPtr items, Take(*a.child(0), take.data(),
                                                    static_cast<int64_t>(take.size()), ctx->pool));
        SHOAL_ASSIGN_OR_RETURN(BufferPtr validity, ValidityFromBytes(valid, ctx->pool));
        SHOAL_ASSIGN_OR_RETURN(ArrayPtr out, MakeList(a.type(), e.n, std::move(validity), offsets,
                                                      std::move(items), ctx->pool));
        return Datum{out, e.scalar};
      });
}

/// Length of dimension `dim` (1-based) of row r: lists of lists are PostgreSQL's
/// multidimensional arrays, measured through their first element. -1 when there is none.
int64_t DimensionLength(const Array& a, int64_t r, int64_t dim) {
  const Array* level = &a;
  int64_t row = r;
  for (int64_t d = 1;; ++d) {
    if (!level->IsValid(row) || level->ListLength(row) == 0)
      return -1;
    if (d == dim)
      return level->ListLength(row);
    const Array* child = level->child(0).get();
    if (!DataType::IsNestedId(child->type_id()) || !child->type().is_list_like())
      return -1;
    row = level->ListStart(row);
    level = child;
  }
}

// array_length(a, dim), array_upper(a, dim) (arrays start at 1), array_lower(a, dim) (1).
Result<KernelPtr> ArrayLengthKernel(int which) {
  return MakeLambdaKernel(
      [which](const std::vector<Datum>& args, int64_t length, KernelContext* ctx) -> Result<Datum> {
        SHOAL_ASSIGN_OR_RETURN(Expanded e, Expand(args, length, ctx));
        const Array& a = *e.arrays[0];
        const Array& dim = *e.arrays[1];
        std::vector<int32_t> values(static_cast<size_t>(e.n), 0);
        std::vector<uint8_t> valid(static_cast<size_t>(e.n), 0);
        for (int64_t r = 0; r < e.n; ++r) {
          if (!a.IsValid(r) || !dim.IsValid(r))
            continue;
          const int64_t len = DimensionLength(a, r, dim.Value<int32_t>(r));
          if (len < 0)
            continue;
          valid[static_cast<size_t>(r)] = 1;
          values[static_cast<size_t>(r)] = which == 2 ? 1 : static_cast<int32_t>(len);
        }
        return FixedResult<int32_t>(DataType::Int32(), values, valid, e.scalar, ctx);
      });
}

/// Number of leaf elements of row r of a (nested) list array.
int64_t LeafCount(const Array& a, int64_t r) {
  if (!a.IsValid(r))
    return 0;
  const Array& child = *a.child(0);
  if (!child.type().is_list_like())
    return a.ListLength(r);
  int64_t total = 0;
  for (int64_t j = a.ListStart(r); j < a.ListEnd(r); ++j)
    total += LeafCount(child, j);
  return total;
}

// cardinality(a): the number of elements of every dimension.
Result<KernelPtr> CardinalityKernel(const KernelSignature&) {
  return MakeLambdaKernel(
      [](const std::vector<Datum>& args, int64_t length, KernelContext* ctx) -> Result<Datum> {
        SHOAL_ASSIGN_OR_RETURN(Expanded e, Expand(args, length, ctx));
        const Array& a = *e.arrays[0];
        std::vector<int32_t> values(static_cast<size_t>(e.n), 0);
        std::vector<uint8_t> valid(static_cast<size_t>(e.n), 0);
        for (int64_t r = 0; r < e.n; ++r) {
          valid[static_cast<size_t>(r)] = a.IsValid(r) ? 1 : 0;
          values[static_cast<size_t>(r)] = static_cast<int32_t>(LeafCount(a, r));
        }
        return FixedResult<int32_t>(DataType::Int32(), values, valid, e.scalar, ctx);
      });
}

// array_position(a, x[, start]): the first position of x at or after `start` (IS NOT DISTINCT
// FROM, so NULL is found); NULL when absent; a NULL start is an error (22004) as in PostgreSQL.
Result<KernelPtr> ArrayPositionKernel(const KernelSignature&) {
  return MakeLambdaKernel([](const std::vector<Datum>& args, int64_t length,
                             KernelContext* ctx) -> Result<Datum> {
    SHOAL_ASSIGN_OR_RETURN(Expanded e, Expand(args, length, ctx));
    SHOAL_ASSIGN_OR_RETURN(Flat f, Flatten(*e.arrays[0], ctx->pool));
    const Array* start = e.arrays.size() > 2 ? e.arrays[2].get() : nullptr;
    std::vector<int32_t> ia(f.row_of.size());
    for (size_t k = 0; k < ia.size(); ++k)
      ia[k] = static_cast<int32_t>(k);
    SHOAL_ASSIGN_OR_RETURN(ArrayPtr eq, ComparePairs("is_not_distinct_from", *f.items, ia,
                                                     *e.arrays[1], f.row_of, ctx));
    std::vector<int32_t> values(static_cast<size_t>(e.n), 0);
    std::vector<uint8_t> valid(static_cast<size_t>(e.n), 0);
    for (int64_t r = 0; r < e.n; ++r) {
      const int32_t begin = f.begin[static_cast<size_t>(r)];
      int32_t from = begin;
      if (start != nullptr) {
        if (start->IsNull(r))
          return Status::InvalidArgument("initial position must not be null").WithSqlState("22004");
        from = begin + std::max<int32_t>(start->Value<int32_t>(r), 1) - 1;
      }
      for (int32_t k = from; k < f.begin[static_cast<size_t>(r) + 1]; ++k) {
        if (eq->IsValid(k) && eq->BoolValue(k)) {
          valid[static_cast<size_t>(r)] = 1;
          values[static_cast<size_t>(r)] = k - begin + 1;
          break;
        }
      }
    }
    return FixedResult<int32_t>(DataType::Int32(), values, valid, e.scalar, ctx);
  });
}

// array_cat(a, b), array_append(a, x), array_prepend(x, a). A NULL array counts as empty;
// the result is NULL only when both arrays are (array_cat) or the array is (never for append).
enum class CatKind : uint8_t { kCat, kAppend, kPrepend };

Result<KernelPtr> CatKernel(CatKind kind, const KernelSignature& sig) {
  DataType type = sig.result_type;
  return MakeLambdaKernel([kind, type](const std::vector<Datum>& args, int64_t length,
                                       KernelContext* ctx) -> Result<Datum> {
    SHOAL_ASSIGN_OR_RETURN(Expanded e, Expand(args, length, ctx));
    const int64_t n = e.n;
    // Sides as (items, per-row begin/end) in one concatenated item array.
    std::vector<ArrayPtr> parts;
    std::vector<std::vector<int32_t>> begins;
    std::vector<const Array*> lists;
    for (int side = 0; side < 2; ++side) {
      const Array& arg = *e.arrays[static_cast<size_t>(side)];
      const bool is_list = kind == CatKind::kCat || (kind == CatKind::kAppend && side == 0) ||
                           (kind == CatKind::kPrepend && side == 1);
      if (is_list) {
        SHOAL_ASSIGN_OR_RETURN(Flat f, Flatten(arg, ctx->pool));
        parts.push_back(f.items);
        begins.push_back(std::move(f.begin));
        lists.push_back(&arg);
      } else {
        parts.push_back(e.arrays[static_cast<size_t>(side)]);
        std::vector<int32_t> b(static_cast<size_t>(n) + 1);
        for (int64_t r = 0; r <= n; ++r)
          b[static_cast<size_t>(r)] = static_cast<int32_t>(r);
        begins.push_back(std::move(b));
        lists.push_back(nullptr);
      }
    }
    SHOAL_ASSIGN_OR_RETURN(ArrayPtr all, Concatenate(parts, ctx->pool));
    const int32_t second = static_cast<int32_t>(parts[0]->length());
    std::vector<int32_t> take;
    std::vector<int32_t> offsets(static_cast<size_t>(n) + 1, 0);
    std::vector<uint8_t> valid(static_cast<size_t>(n), 1);
    for (int64_t r = 0; r < n; ++r) {
      offsets[static_cast<size_t>(r)] = static_cast<int32_t>(take.size());
      if (kind == CatKind::kCat && !lists[0]->IsValid(r) && !lists[1]->IsValid(r)) {
        valid[static_cast<size_t>(r)] = 0;
        continue;
      }
      for (int side = 0; side < 2; ++side) {
        const auto& b = begins[static_cast<size_t>(side)];
        const int32_t base = side == 0 ? 0 : second;
        for (int32_t k = b[static_cast<size_t>(r)]; k < b[static_cast<size_t>(r) + 1]; ++k)
          take.push_back(base + k);
      }
    }
    offsets[static_cast<size_t>(n)] = static_cast<int32_t>(take.size());
    SHOAL_ASSIGN_OR_RETURN(ArrayPtr items,
                           Take(*all, take.data(), static_cast<int64_t>(take.size()), ctx->pool));
    SHOAL_ASSIGN_OR_RETURN(BufferPtr validity, ValidityFromBytes(valid, ctx->pool));
    SHOAL_ASSIGN_OR_RETURN(ArrayPtr out,
                           MakeList(type, n, std::move(validity), offsets, items, ctx->pool));
    return Datum{out, e.scalar};
  });
}

// x op ANY (a) / x op ALL (a), with SQL's three-valued rules: ANY is true when one comparison is,
// NULL when none is but one is NULL, false otherwise (false for an empty array); ALL the dual.
Result<KernelPtr> QuantifiedKernel(const std::string& op, bool all) {
  return MakeLambdaKernel([op, all](const std::vector<Datum>& args, int64_t length,
                                    KernelContext* ctx) -> Result<Datum> {
    SHOAL_ASSIGN_OR_RETURN(Expanded e, Expand(args, length, ctx));
    const Array& list = *e.arrays[1];
    SHOAL_ASSIGN_OR_RETURN(Flat f, Flatten(list, ctx->pool));
    std::vector<int32_t> ib(f.row_of.size());
    for (size_t k = 0; k < ib.size(); ++k)
      ib[k] = static_cast<int32_t>(k);
    SHOAL_ASSIGN_OR_RETURN(ArrayPtr cmp,
                           ComparePairs(op, *e.arrays[0], f.row_of, *f.items, ib, ctx));
    std::vector<uint8_t> cv, cn;
    ReadBooleans(*cmp, &cv, &cn);
    std::vector<uint8_t> values(static_cast<size_t>(e.n), 0);
    std::vector<uint8_t> valid(static_cast<size_t>(e.n), 0);
    for (int64_t r = 0; r < e.n; ++r) {
      if (!list.IsValid(r))
        continue;
      bool decided = false;
      bool saw_null = false;
      for (int32_t k = f.begin[static_cast<size_t>(r)]; k < f.begin[static_cast<size_t>(r) + 1];
           ++k) {
        if (!cn[static_cast<size_t>(k)]) {
          saw_null = true;
        } else if ((cv[static_cast<size_t>(k)] != 0) != all) {
          decided = true;
          break;
        }
      }
      if (decided) {
        valid[static_cast<size_t>(r)] = 1;
        values[static_cast<size_t>(r)] = all ? 0 : 1;
      } else if (!saw_null) {
        valid[static_cast<size_t>(r)] = 1;
        values[static_cast<size_t>(r)] = all ? 1 : 0;
      }
    }
    return FixedResult<uint8_t>(DataType::Boolean(), values, valid, e.scalar, ctx);
  });
}

// a @> b (contains), a <@ b (is contained by), a && b (overlaps): element equality; a NULL
// element matches nothing, as in PostgreSQL; NULL only when an array is NULL.
enum class SetKind : uint8_t { kContains, kContainedBy, kOverlaps };

Result<KernelPtr> SetKernel(SetKind kind) {
  return MakeLambdaKernel([kind](const std::vector<Datum>& args, int64_t length,
                                 KernelContext* ctx) -> Result<Datum> {
    SHOAL_ASSIGN_OR_RETURN(Expanded e, Expand(args, length, ctx));
    // Contained-by is contains with the sides swapped.
    const bool swap = kind == SetKind::kContainedBy;
    const Array& big = *e.arrays[swap ? 1 : 0];
    const Array& small = *e.arrays[swap ? 0 : 1];
    SHOAL_ASSIGN_OR_RETURN(Flat fb, Flatten(big, ctx->pool));
    SHOAL_ASSIGN_OR_RETURN(Flat fs, Flatten(small, ctx->pool));
    std::vector<int32_t> ib, is;
    for (int64_t r = 0; r < e.n; ++r) {
      for (int32_t s = fs.begin[static_cast<size_t>(r)]; s < fs.begin[static_cast<size_t>(r) + 1];
           ++s) {
        for (int32_t b = fb.begin[static_cast<size_t>(r)]; b < fb.begin[static_cast<size_t>(r) + 1];
             ++b) {
          is.push_back(s);
          ib.push_back(b);
        }
      }
    }
    SHOAL_ASSIGN_OR_RETURN(ArrayPtr eq, ComparePairs("=", *fs.items, is, *fb.items, ib, ctx));
    std::vector<uint8_t> ev, en;
    ReadBooleans(*eq, &ev, &en);
    std::vector<uint8_t> values(static_cast<size_t>(e.n), 0);
    std::vector<uint8_t> valid(static_cast<size_t>(e.n), 0);
    size_t pair = 0;
    for (int64_t r = 0; r < e.n; ++r) {
      const int32_t bl = fb.begin[static_cast<size_t>(r) + 1] - fb.begin[static_cast<size_t>(r)];
      bool all_found = true;
      bool any_found = false;
      for (int32_t s = fs.begin[static_cast<size_t>(r)]; s < fs.begin[static_cast<size_t>(r) + 1];
           ++s) {
        bool found = false;
        for (int32_t b = 0; b < bl; ++b, ++pair)
          found = found || ev[pair] != 0;
        all_found = all_found && found;
        any_found = any_found || found;
      }
      valid[static_cast<size_t>(r)] = big.IsValid(r) && small.IsValid(r) ? 1 : 0;
      values[static_cast<size_t>(r)] = kind == SetKind::kOverlaps ? any_found : all_found;
    }
    return FixedResult<uint8_t>(DataType::Boolean(), values, valid, e.scalar, ctx);
  });
}

/// Appends element i of a (valid) to out as array_to_string writes it.
void AppendElementText(const Array& a, int64_t i, std::string* out) {
  if (a.type_id() == TypeId::kBoolean) {
    *out += a.BoolValue(i) ? "t" : "f";
    return;
  }
  columnar::AppendValue(a, i, out);
}

/// Appends the leaves of element i of a (nested lists are walked), joined by `delim`.
void AppendLeaves(const Array& a, int64_t i, std::string_view delim, const std::string* null_text,
                  bool* first, std::string* out) {
  if (!a.IsValid(i)) {
    if (null_text == nullptr)
      return;
    if (!*first)
      out->append(delim);
    *first = false;
    out->append(*null_text);
    return;
  }
  if (a.type().is_list_like()) {
    const Array& child = *a.child(0);
    for (int64_t j = a.ListStart(i); j < a.ListEnd(i); ++j)
      AppendLeaves(child, j, delim, null_text, first, out);
    return;
  }
  if (!*first)
    out->append(delim);
  *first = false;
  AppendElementText(a, i, out);
}

// array_to_string(a, delimiter[, null_string]): NULL elements skipped unless null_string is given.
Result<KernelPtr> ArrayToStringKernel(const KernelSignature&) {
  return MakeLambdaKernel([](const std::vector<Datum>& args, int64_t length,
                             KernelContext* ctx) -> Result<Datum> {
    SHOAL_ASSIGN_OR_RETURN(Expanded e, Expand(args, length, ctx));
    const Array& a = *e.arrays[0];
    const Array& d = *e.arrays[1];
    const Array* nt = args.size() > 2 ? e.arrays[2].get() : nullptr;
    columnar::BinaryBuilder out(DataType::Utf8(), ctx->pool);
    std::string text;
    std::string null_text;
    for (int64_t r = 0; r < e.n; ++r) {
      if (!a.IsValid(r) || !d.IsValid(r)) {
        SHOAL_RETURN_IF_ERROR(out.AppendNull());
        continue;
      }
      text.clear();
      bool first = true;
      const bool use_null = nt != nullptr && nt->IsValid(r);
      if (use_null)
        null_text.assign(nt->StringValue(r));
      const Array& child = *a.child(0);
      for (int64_t j = a.ListStart(r); j < a.ListEnd(r); ++j)
        AppendLeaves(child, j, d.StringValue(r), use_null ? &null_text : nullptr, &first, &text);
      SHOAL_RETURN_IF_ERROR(out.Append(text));
    }
    SHOAL_ASSIGN_OR_RETURN(ArrayPtr result, out.Finish());
    return Datum{result, e.scalar};
  });
}

// string_to_array(s, delimiter[, null_string]): a NULL delimiter splits into characters, an empty
// one keeps the whole string; an empty string is an empty array.
Result<KernelPtr> StringToArrayKernel(const KernelSignature& sig) {
  DataType type = sig.result_type;
  return MakeLambdaKernel(
      [type](const std::vector<Datum>& args, int64_t length, KernelContext* ctx) -> Result<Datum> {
        SHOAL_ASSIGN_OR_RETURN(Expanded e, Expand(args, length, ctx));
        const Array& s = *e.arrays[0];
        const Array& d = *e.arrays[1];
        const Array* nt = args.size() > 2 ? e.arrays[2].get() : nullptr;
        columnar::BinaryBuilder items(DataType::Utf8(), ctx->pool);
        std::vector<int32_t> offsets(static_cast<size_t>(e.n) + 1, 0);
        std::vector<uint8_t> valid(static_cast<size_t>(e.n), 0);
        int32_t count = 0;
        auto emit = [&](std::string_view piece, int64_t r) -> Status {
          ++count;
          if (nt != nullptr && nt->IsValid(r) && piece == nt->StringValue(r))
            return items.AppendNull();
          return items.Append(piece);
        };
        for (int64_t r = 0; r < e.n; ++r) {
          offsets[static_cast<size_t>(r)] = count;
          if (!s.IsValid(r))
            continue;
          valid[static_cast<size_t>(r)] = 1;
          const std::string_view text = s.StringValue(r);
          if (text.empty())
            continue;
          if (!d.IsValid(r)) {
            // One element per character (UTF-8 sequences kept whole).
            size_t i = 0;
            while (i < text.size()) {
              size_t len = 1;
              while (i + len < text.size() && (static_cast<uint8_t>(text[i + len]) & 0xC0) == 0x80)
                ++len;
              SHOAL_RETURN_IF_ERROR(emit(text.substr(i, len), r));
              i += len;
            }
            continue;
          }
          const std::string_view delim = d.StringValue(r);
          if (delim.empty()) {
            SHOAL_RETURN_IF_ERROR(emit(text, r));
            continue;
          }
          size_t start = 0;
          while (true) {
            const size_t hit = text.find(delim, start);
            if (hit == std::string_view::npos) {
              SHOAL_RETURN_IF_ERROR(emit(text.substr(start), r));
              break;
            }
            SHOAL_RETURN_IF_ERROR(emit(text.substr(start, hit - start), r));
            start = hit + delim.size();
          }
        }
        offsets[static_cast<size_t>(e.n)] = count;
        SHOAL_ASSIGN_OR_RETURN(ArrayPtr child, items.Finish());
        SHOAL_ASSIGN_OR_RETURN(BufferPtr validity, ValidityFromBytes(valid, ctx->pool));
        SHOAL_ASSIGN_OR_RETURN(ArrayPtr out,
                               MakeList(type, e.n, std::move(validity), offsets, child, ctx->pool));
        return Datum{out, e.scalar};
      });
}

// row(x1, ..., xk): a record whose fields are the arguments.
Result<KernelPtr> RowKernel(const KernelSignature& sig) {
  DataType type = sig.result_type;
  return MakeLambdaKernel(
      [type](const std::vector<Datum>& args, int64_t length, KernelContext* ctx) -> Result<Datum> {
        SHOAL_ASSIGN_OR_RETURN(Expanded e, Expand(args, length, ctx));
        ArrayPtr out = Array::MakeNested(type, e.n, {nullptr}, e.arrays);
        return Datum{out, e.scalar};
      });
}

// struct_field(s, i): field i (0-based, a literal) of a record; NULL where the record is.
Result<KernelPtr> StructFieldKernel(const KernelSignature& sig) {
  if (sig.expr == nullptr || sig.expr->args.size() != 2 ||
      sig.expr->args[1]->kind != sql::ExprKind::kLiteral)
    return Status::Internal("struct_field needs a literal field number");
  const int field = static_cast<int>(sig.expr->args[1]->value.int_value());
  return MakeLambdaKernel([field](const std::vector<Datum>& args, int64_t length,
                                  KernelContext* ctx) -> Result<Datum> {
    const Array& s = *args[0].array;
    // The plan's field number and the record's fields must agree (struct field pruning
    // renumbers both); a disagreement is a planning bug, never a read out of bounds.
    if (field < 0 || field >= s.num_children())
      return Status::Internal("struct_field {} of a record of {} fields", field, s.num_children());
    const int64_t n = args[0].is_scalar ? 1 : length;
    std::vector<int32_t> take(static_cast<size_t>(n));
    for (int64_t r = 0; r < n; ++r)
      take[static_cast<size_t>(r)] = s.IsValid(r) ? static_cast<int32_t>(s.ChildRow(r)) : -1;
    SHOAL_ASSIGN_OR_RETURN(ArrayPtr out, Take(*s.child(field), take.data(), n, ctx->pool, true));
    return Datum{out, args[0].is_scalar};
  });
}

// map_extract_value(m, k): the value of key k, NULL when absent (DuckDB's m[k]).
Result<KernelPtr> MapExtractKernel(const KernelSignature&) {
  return MakeLambdaKernel(
      [](const std::vector<Datum>& args, int64_t length, KernelContext* ctx) -> Result<Datum> {
        SHOAL_ASSIGN_OR_RETURN(Expanded e, Expand(args, length, ctx));
        const Array& m = *e.arrays[0];
        SHOAL_ASSIGN_OR_RETURN(Flat f, Flatten(m, ctx->pool));
        const Array& entries = *f.items;
        std::vector<int32_t> rows(f.row_of.size());
        for (size_t k = 0; k < rows.size(); ++k)
          rows[k] = static_cast<int32_t>(entries.ChildRow(static_cast<int64_t>(k)));
        SHOAL_ASSIGN_OR_RETURN(
            ArrayPtr eq, ComparePairs("=", *entries.child(0), rows, *e.arrays[1], f.row_of, ctx));
        std::vector<int32_t> take(static_cast<size_t>(e.n), -1);
        for (int64_t r = 0; r < e.n; ++r) {
          for (int32_t k = f.begin[static_cast<size_t>(r)]; k < f.begin[static_cast<size_t>(r) + 1];
               ++k) {
            if (eq->IsValid(k) && eq->BoolValue(k)) {
              take[static_cast<size_t>(r)] = rows[static_cast<size_t>(k)];
              break;
            }
          }
        }
        SHOAL_ASSIGN_OR_RETURN(ArrayPtr out,
                               Take(*entries.child(1), take.data(), e.n, ctx->pool, true));
        return Datum{out, e.scalar};
      });
}

// map_keys(m) / map_values(m): the keys or values of each map as an array.
Result<KernelPtr> MapPartKernel(int part, const KernelSignature& sig) {
  DataType type = sig.result_type;
  return MakeLambdaKernel([part, type](const std::vector<Datum>& args, int64_t length,
                                       KernelContext* ctx) -> Result<Datum> {
    const Array& m = *args[0].array;
    const int64_t n = args[0].is_scalar ? 1 : length;
    SHOAL_ASSIGN_OR_RETURN(Flat f, Flatten(m, ctx->pool));
    const Array& entries = *f.items;
    std::vector<int32_t> rows(f.row_of.size());
    for (size_t k = 0; k < rows.size(); ++k)
      rows[k] = static_cast<int32_t>(entries.ChildRow(static_cast<int64_t>(k)));
    SHOAL_ASSIGN_OR_RETURN(ArrayPtr items, Take(*entries.child(part), rows.data(),
                                                static_cast<int64_t>(rows.size()), ctx->pool));
    SHOAL_ASSIGN_OR_RETURN(BufferPtr validity, bits::CopyValidity(m, ctx->pool));
    SHOAL_ASSIGN_OR_RETURN(ArrayPtr out,
                           MakeList(type, n, std::move(validity), f.begin, items, ctx->pool));
    return Datum{out, args[0].is_scalar};
  });
}

// map(keys, values): a map from two arrays of equal length (DuckDB's map([k...], [v...])).
// Fails with DuckDB's "Map keys must be unique" when a row of `keys` (rows [begin[r],
// begin[r + 1]) of non-null items) holds one key twice: keys are hashed, and only the pairs of a
// row with equal hashes are compared, in one kernel call.
Status CheckUniqueKeys(const Array& keys, const std::vector<int32_t>& begin, KernelContext* ctx) {
  const auto total = static_cast<size_t>(keys.length());
  if (total < 2)
    return Status::OK();
  std::vector<uint64_t> hashes(total, 0);
  SHOAL_RETURN_IF_ERROR(HashArray(keys, hashes.data()));
  std::vector<int32_t> order(total);
  for (size_t i = 0; i < total; ++i)
    order[i] = static_cast<int32_t>(i);
  std::vector<int32_t> ia, ib;
  for (size_t r = 0; r + 1 < begin.size(); ++r) {
    auto* first = order.data() + begin[r];
    auto* last = order.data() + begin[r + 1];
    if (last - first < 2)
      continue;
    std::sort(first, last, [&](int32_t a, int32_t b) {
      return hashes[static_cast<size_t>(a)] < hashes[static_cast<size_t>(b)];
    });
    for (auto* g = first; g < last;) {
      auto* end = g + 1;
      while (end < last && hashes[static_cast<size_t>(*end)] == hashes[static_cast<size_t>(*g)])
        ++end;
      for (auto* a = g; a < end; ++a) {
        for (auto* b = a + 1; b < end; ++b) {
          ia.push_back(*a);
          ib.push_back(*b);
        }
      }
      g = end;
    }
  }
  if (ia.empty())
    return Status::OK();
  SHOAL_ASSIGN_OR_RETURN(ArrayPtr equal,
                         ComparePairs("is_not_distinct_from", keys, ia, keys, ib, ctx));
  for (int64_t k = 0; k < equal->length(); ++k) {
    if (equal->IsValid(k) && equal->BoolValue(k))
      return Status::InvalidArgument("map keys must be unique (key {} appears twice)",
                                     columnar::FormatValue(keys, ia[static_cast<size_t>(k)]))
          .WithSqlState("22023");
  }
  return Status::OK();
}

// map(keys, values): NULL when either list is NULL; the lists must have equal lengths, and the
// keys be non-NULL and distinct (DuckDB's rules).
Result<KernelPtr> MapKernel(const KernelSignature& sig) {
  DataType type = sig.result_type;
  return MakeLambdaKernel([type](const std::vector<Datum>& args, int64_t length,
                                 KernelContext* ctx) -> Result<Datum> {
    SHOAL_ASSIGN_OR_RETURN(Expanded e, Expand(args, length, ctx));
    SHOAL_ASSIGN_OR_RETURN(Flat fk, Flatten(*e.arrays[0], ctx->pool));
    SHOAL_ASSIGN_OR_RETURN(Flat fv, Flatten(*e.arrays[1], ctx->pool));
    std::vector<uint8_t> valid(static_cast<size_t>(e.n));
    bool realign = false;
    for (int64_t r = 0; r < e.n; ++r) {
      const size_t i = static_cast<size_t>(r);
      const int32_t keys = fk.begin[i + 1] - fk.begin[i];
      const int32_t values = fv.begin[i + 1] - fv.begin[i];
      valid[i] = e.arrays[0]->IsValid(r) && e.arrays[1]->IsValid(r) ? 1 : 0;
      if (valid[i] == 0) {
        realign = realign || keys != 0 || values != 0;
        continue;
      }
      if (keys != values)
        return Status::InvalidArgument("map keys and values must have the same length")
            .WithSqlState("22023");
    }
    if (realign) {
      // A NULL list on one side: the other side's items of that row are dropped.
      std::vector<int32_t> keep_k, keep_v, begin(static_cast<size_t>(e.n) + 1, 0);
      for (int64_t r = 0; r < e.n; ++r) {
        const size_t i = static_cast<size_t>(r);
        begin[i] = static_cast<int32_t>(keep_k.size());
        if (valid[i] == 0)
          continue;
        for (int32_t k = fk.begin[i]; k < fk.begin[i + 1]; ++k)
          keep_k.push_back(k);
        for (int32_t k = fv.begin[i]; k < fv.begin[i + 1]; ++k)
          keep_v.push_back(k);
      }
      begin[static_cast<size_t>(e.n)] = static_cast<int32_t>(keep_k.size());
      SHOAL_ASSIGN_OR_RETURN(
          fk.items, Take(*fk.items, keep_k.data(), static_cast<int64_t>(keep_k.size()), ctx->pool));
      SHOAL_ASSIGN_OR_RETURN(
          fv.items, Take(*fv.items, keep_v.data(), static_cast<int64_t>(keep_v.size()), ctx->pool));
      fk.begin = std::move(begin);
    }
    if (fk.items->null_count() > 0)
      return Status::InvalidArgument("map keys can not be NULL").WithSqlState("22004");
    SHOAL_RETURN_IF_ERROR(CheckUniqueKeys(*fk.items, fk.begin, ctx));
    const DataType& entries_type = type.item_field().type;
    ArrayPtr entries =
        Array::MakeNested(entries_type, fk.items->length(), {nullptr}, {fk.items, fv.items});
    SHOAL_ASSIGN_OR_RETURN(BufferPtr validity, ValidityFromBytes(valid, ctx->pool));
    SHOAL_ASSIGN_OR_RETURN(ArrayPtr out,
                           MakeList(type, e.n, std::move(validity), fk.begin, entries, ctx->pool));
    return Datum{out, e.scalar};
  });
}

}  // namespace

Result<KernelPtr> MakeArrayEqualityKernel(bool negate, bool distinct) {
  // PostgreSQL's array_eq: equal lengths and every element pair equal, two NULL elements counting
  // as equal; NULL only when an array is NULL (IS [NOT] DISTINCT FROM: never).
  return MakeLambdaKernel([negate, distinct](const std::vector<Datum>& args, int64_t length,
                                             KernelContext* ctx) -> Result<Datum> {
    SHOAL_ASSIGN_OR_RETURN(Expanded e, Expand(args, length, ctx));
    const Array& a = *e.arrays[0];
    const Array& b = *e.arrays[1];
    SHOAL_ASSIGN_OR_RETURN(Flat fa, Flatten(a, ctx->pool));
    SHOAL_ASSIGN_OR_RETURN(Flat fb, Flatten(b, ctx->pool));
    std::vector<int32_t> ia, ib;
    auto len = [](const Flat& f, int64_t r) {
      return f.begin[static_cast<size_t>(r) + 1] - f.begin[static_cast<size_t>(r)];
    };
    for (int64_t r = 0; r < e.n; ++r) {
      if (!a.IsValid(r) || !b.IsValid(r) || len(fa, r) != len(fb, r))
        continue;
      for (int32_t k = 0; k < len(fa, r); ++k) {
        ia.push_back(fa.begin[static_cast<size_t>(r)] + k);
        ib.push_back(fb.begin[static_cast<size_t>(r)] + k);
      }
    }
    SHOAL_ASSIGN_OR_RETURN(ArrayPtr eq,
                           ComparePairs("is_not_distinct_from", *fa.items, ia, *fb.items, ib, ctx));
    std::vector<uint8_t> values(static_cast<size_t>(e.n), 0);
    std::vector<uint8_t> valid(static_cast<size_t>(e.n), 1);
    int64_t pair = 0;
    for (int64_t r = 0; r < e.n; ++r) {
      bool equal = false;
      if (!a.IsValid(r) || !b.IsValid(r)) {
        equal = !a.IsValid(r) && !b.IsValid(r);
        if (!distinct)
          valid[static_cast<size_t>(r)] = 0;
      } else if (len(fa, r) == len(fb, r)) {
        equal = true;
        for (int32_t k = 0; k < len(fa, r); ++k, ++pair)
          equal = equal && eq->BoolValue(pair);
      }
      values[static_cast<size_t>(r)] = (equal != negate) ? 1 : 0;
    }
    return FixedResult<uint8_t>(DataType::Boolean(), values, valid, e.scalar, ctx);
  });
}

Result<KernelPtr> MakeArrayOrderingKernel(const std::string& op) {
  // array_cmp's order (element by element, a NULL element above any value, a prefix below its
  // extensions) is the memcmp order of the key encoding (row_key/nested_key_encoder.h): both
  // sides are encoded once per batch and compared a row at a time. NULL when an array is NULL.
  const bool less = op[0] == '<';
  const bool or_equal = op.size() == 2;
  return MakeLambdaKernel([less, or_equal](const std::vector<Datum>& args, int64_t length,
                                           KernelContext* ctx) -> Result<Datum> {
    SHOAL_ASSIGN_OR_RETURN(Expanded e, Expand(args, length, ctx));
    SHOAL_ASSIGN_OR_RETURN(ArrayPtr ka, EncodeNestedKeys(*e.arrays[0], ctx->pool));
    SHOAL_ASSIGN_OR_RETURN(ArrayPtr kb, EncodeNestedKeys(*e.arrays[1], ctx->pool));
    std::vector<uint8_t> values(static_cast<size_t>(e.n), 0);
    std::vector<uint8_t> valid(static_cast<size_t>(e.n), 1);
    for (int64_t r = 0; r < e.n; ++r) {
      if (ka->IsNull(r) || kb->IsNull(r)) {
        valid[static_cast<size_t>(r)] = 0;
        continue;
      }
      const int c = ka->StringValue(r).compare(kb->StringValue(r));
      values[static_cast<size_t>(r)] = (less ? c < 0 : c > 0) || (or_equal && c == 0);
    }
    return FixedResult<uint8_t>(DataType::Boolean(), values, valid, e.scalar, ctx);
  });
}

void RegisterArrayKernels(KernelRegistry* registry) {
  registry->Register("make_array", MakeArrayKernel);
  registry->Register("array_subscript", SubscriptKernel);
  registry->Register("array_slice", SliceKernel);
  registry->Register("array_length", [](const KernelSignature&) { return ArrayLengthKernel(0); });
  registry->Register("array_upper", [](const KernelSignature&) { return ArrayLengthKernel(1); });
  registry->Register("array_lower", [](const KernelSignature&) { return ArrayLengthKernel(2); });
  registry->Register("cardinality", CardinalityKernel);
  registry->Register("array_position", ArrayPositionKernel);
  registry->Register("array_cat",
                     [](const KernelSignature& s) { return CatKernel(CatKind::kCat, s); });
  registry->Register("array_append",
                     [](const KernelSignature& s) { return CatKernel(CatKind::kAppend, s); });
  registry->Register("array_prepend",
                     [](const KernelSignature& s) { return CatKernel(CatKind::kPrepend, s); });
  for (const char* op : {"=", "<>", "<", "<=", ">", ">="}) {
    registry->Register(std::string(op) + " any",
                       [op](const KernelSignature&) { return QuantifiedKernel(op, false); });
    registry->Register(std::string(op) + " all",
                       [op](const KernelSignature&) { return QuantifiedKernel(op, true); });
  }
  registry->Register("@>", [](const KernelSignature&) { return SetKernel(SetKind::kContains); });
  registry->Register("<@", [](const KernelSignature&) { return SetKernel(SetKind::kContainedBy); });
  registry->Register("&&", [](const KernelSignature&) { return SetKernel(SetKind::kOverlaps); });
  registry->Register("array_to_string", ArrayToStringKernel);
  registry->Register("string_to_array", StringToArrayKernel);
  registry->Register("row", RowKernel);
  registry->Register("struct_field", StructFieldKernel);
  registry->Register("map_extract_value", MapExtractKernel);
  registry->Register("map_keys", [](const KernelSignature& s) { return MapPartKernel(0, s); });
  registry->Register("map_values", [](const KernelSignature& s) { return MapPartKernel(1, s); });
  registry->Register("map", MapKernel);
}

}  // namespace shoal::exec
