#include <cstring>
#include <limits>

#include "shoal/exec/array_ops.h"
#include "shoal/exec/nested_array_ops_internal.h"

namespace shoal::exec::nested_internal {
namespace {

using columnar::Array;
using columnar::ArrayPtr;
using columnar::BufferPtr;
using columnar::DataType;
using columnar::TypeId;

Status CheckChildRows(int64_t rows, const DataType& type) {
  if (rows > std::numeric_limits<int32_t>::max())
    return Status::OutOfRange("a batch of {} values holds more than 2^31-1 items", type.ToString())
        .WithHint("use smaller batches (SET batch_size) or smaller lists");
  return Status::OK();
}

// Lists and maps: offsets from the kept elements' lengths, then one take of the child.
template <typename Offset>
Result<ArrayPtr> TakeList(const Array& array, const int32_t* indices, int64_t count,
                          const std::shared_ptr<MemoryPool>& pool, BufferPtr validity,
                          int64_t null_count) {
  SHOAL_ASSIGN_OR_RETURN(BufferPtr offsets_buf, AllocateValues<Offset>(count + 1, pool));
  Offset* offsets = offsets_buf->mutable_data_as<Offset>();
  int64_t total = 0;
  offsets[0] = 0;
  // A null element keeps no items, whatever its offsets span (outside arrays may leave some).
  const bool source_nulls = array.null_count() > 0;
  auto kept = [&](int32_t idx) { return idx >= 0 && (!source_nulls || array.IsValid(idx)); };
  for (int64_t i = 0; i < count; ++i) {
    const int32_t idx = indices[i];
    if (kept(idx))
      total += array.ListLength(idx);
    offsets[i + 1] = static_cast<Offset>(total);
  }
  SHOAL_RETURN_IF_ERROR(CheckChildRows(total, array.type()));
  std::vector<int32_t> items(static_cast<size_t>(total));
  int32_t* out = items.data();
  for (int64_t i = 0; i < count; ++i) {
    const int32_t idx = indices[i];
    if (!kept(idx))
      continue;
    const int64_t end = array.ListEnd(idx);
    for (int64_t r = array.ListStart(idx); r < end; ++r)
      *out++ = static_cast<int32_t>(r);
  }
  SHOAL_ASSIGN_OR_RETURN(ArrayPtr child, Take(*array.child(0), items.data(), total, pool));
  return Array::MakeNested(array.type(), count, {std::move(validity), std::move(offsets_buf)},
                           {std::move(child)}, null_count);
}

// The part of `a`'s child its elements use, and where it starts in the child.
ArrayPtr UsedChild(const Array& a, int64_t* start) {
  if (a.length() == 0) {
    *start = 0;
    return a.child(0)->Slice(0, 0);
  }
  *start = a.ListStart(0);
  return a.child(0)->Slice(*start, a.ListEnd(a.length() - 1) - *start);
}

template <typename Offset>
Result<ArrayPtr> ConcatenateLists(const std::vector<ArrayPtr>& arrays, int64_t length,
                                  const std::shared_ptr<MemoryPool>& pool, BufferPtr validity,
                                  int64_t null_count) {
  SHOAL_ASSIGN_OR_RETURN(BufferPtr offsets_buf, AllocateValues<Offset>(length + 1, pool));
  Offset* offsets = offsets_buf->mutable_data_as<Offset>();
  std::vector<ArrayPtr> children;
  children.reserve(arrays.size());
  int64_t pos = 0, base = 0;
  offsets[0] = 0;
  for (const ArrayPtr& a : arrays) {
    int64_t start = 0;
    children.push_back(UsedChild(*a, &start));
    for (int64_t i = 0; i < a->length(); ++i)
      offsets[pos + i + 1] = static_cast<Offset>(base + a->ListEnd(i) - start);
    pos += a->length();
    base += children.back()->length();
  }
  SHOAL_RETURN_IF_ERROR(CheckChildRows(base, arrays[0]->type()));
  SHOAL_ASSIGN_OR_RETURN(ArrayPtr child, Concatenate(children, pool));
  return Array::MakeNested(arrays[0]->type(), length, {std::move(validity), std::move(offsets_buf)},
                           {std::move(child)}, null_count);
}

}  // namespace

Result<ArrayPtr> TakeNested(const Array& array, const int32_t* indices, int64_t count,
                            const std::shared_ptr<MemoryPool>& pool, bool allow_null_index) {
  const DataType& type = array.type();
  int64_t null_count = 0;
  SHOAL_ASSIGN_OR_RETURN(BufferPtr validity, bits::TakeValidity(array, indices, count, pool,
                                                                allow_null_index, &null_count));
  switch (type.id()) {
    case TypeId::kList:
    case TypeId::kMap:
      return TakeList<int32_t>(array, indices, count, pool, std::move(validity), null_count);
    case TypeId::kLargeList:
      return TakeList<int64_t>(array, indices, count, pool, std::move(validity), null_count);
    case TypeId::kFixedSizeList: {
      // A null element still owns list_size() items: those of a null index are null items.
      const int64_t size = type.list_size();
      SHOAL_RETURN_IF_ERROR(CheckChildRows(count * size, type));
      std::vector<int32_t> items(static_cast<size_t>(count * size));
      bool null_items = false;
      for (int64_t i = 0; i < count; ++i) {
        const int32_t idx = indices[i];
        const int64_t start = idx >= 0 ? array.ListStart(idx) : -1;
        null_items |= idx < 0;
        for (int64_t j = 0; j < size; ++j)
          items[static_cast<size_t>(i * size + j)] =
              static_cast<int32_t>(idx >= 0 ? start + j : -1);
      }
      SHOAL_ASSIGN_OR_RETURN(ArrayPtr child, Take(*array.child(0), items.data(), count * size, pool,
                                                  /*allow_null_index=*/null_items));
      return Array::MakeNested(type, count, {std::move(validity)}, {std::move(child)}, null_count);
    }
    case TypeId::kStruct: {
      std::vector<int32_t> rows(static_cast<size_t>(count));
      bool null_rows = false;
      for (int64_t i = 0; i < count; ++i) {
        const int32_t idx = indices[i];
        null_rows |= idx < 0;
        rows[static_cast<size_t>(i)] = idx >= 0 ? static_cast<int32_t>(array.ChildRow(idx)) : -1;
      }
      std::vector<ArrayPtr> children;
      children.reserve(static_cast<size_t>(array.num_children()));
      for (const ArrayPtr& c : array.children()) {
        SHOAL_ASSIGN_OR_RETURN(ArrayPtr child,
                               Take(*c, rows.data(), count, pool, /*allow_null_index=*/null_rows));
        children.push_back(std::move(child));
      }
      return Array::MakeNested(type, count, {std::move(validity)}, std::move(children), null_count);
    }
    default: break;
  }
  return Status::Internal("TakeNested on {}", type.ToString());
}

Result<ArrayPtr> ConcatenateNested(const std::vector<ArrayPtr>& arrays,
                                   const std::shared_ptr<MemoryPool>& pool) {
  const DataType& type = arrays[0]->type();
  int64_t length = 0, null_count = 0;
  for (const ArrayPtr& a : arrays) {
    length += a->length();
    null_count += a->null_count();
  }
  SHOAL_ASSIGN_OR_RETURN(BufferPtr validity,
                         bits::ConcatenateValidity(arrays, length, null_count, pool));
  switch (type.id()) {
    case TypeId::kList:
    case TypeId::kMap:
      return ConcatenateLists<int32_t>(arrays, length, pool, std::move(validity), null_count);
    case TypeId::kLargeList:
      return ConcatenateLists<int64_t>(arrays, length, pool, std::move(validity), null_count);
    case TypeId::kFixedSizeList: {
      const int64_t size = type.list_size();
      SHOAL_RETURN_IF_ERROR(CheckChildRows(length * size, type));
      std::vector<ArrayPtr> parts;
      parts.reserve(arrays.size());
      for (const ArrayPtr& a : arrays)
        parts.push_back(a->child(0)->Slice(a->offset() * size, a->length() * size));
      SHOAL_ASSIGN_OR_RETURN(ArrayPtr child, Concatenate(parts, pool));
      return Array::MakeNested(type, length, {std::move(validity)}, {std::move(child)}, null_count);
    }
    case TypeId::kStruct: {
      std::vector<ArrayPtr> children;
      for (int f = 0; f < type.num_fields(); ++f) {
        std::vector<ArrayPtr> parts;
        parts.reserve(arrays.size());
        for (const ArrayPtr& a : arrays)
          parts.push_back(a->child(f)->Slice(a->offset(), a->length()));
        SHOAL_ASSIGN_OR_RETURN(ArrayPtr child, Concatenate(parts, pool));
        children.push_back(std::move(child));
      }
      return Array::MakeNested(type, length, {std::move(validity)}, std::move(children),
                               null_count);
    }
    default: break;
  }
  return Status::Internal("ConcatenateNested on {}", type.ToString());
}

}  // namespace shoal::exec::nested_internal
