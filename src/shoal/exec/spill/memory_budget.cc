#include "shoal/exec/spill/memory_budget.h"

namespace shoal::exec {

using columnar::TypeId;

int64_t EstimateSliceBytes(const columnar::Array& array, int64_t start, int64_t length) {
  if (length <= 0)
    return 0;
  const columnar::DataType& type = array.type();
  int64_t total = (length + 7) / 8;  // validity, present or not: a cheap upper bound
  if (type.is_binary_like()) {
    const int32_t* offsets = array.offsets();
    return total + int64_t{4} * length + (offsets[start + length] - offsets[start]);
  }
  switch (type.id()) {
    case TypeId::kDictionary: return total + int64_t{4} * length;
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kMap:
    case TypeId::kFixedSizeList: {
      // Offsets, then the items the rows span (one contiguous range of the child).
      if (type.id() != TypeId::kFixedSizeList)
        total += (type.id() == TypeId::kLargeList ? 8 : 4) * length;
      const int64_t first = array.ListStart(start);
      return total +
             EstimateSliceBytes(*array.child(0), first, array.ListEnd(start + length - 1) - first);
    }
    case TypeId::kStruct:
      for (const columnar::ArrayPtr& child : array.children())
        total += EstimateSliceBytes(*child, array.ChildRow(start), length);
      return total;
    default: break;
  }
  if (type.bit_width() > 1)
    total += length * (type.bit_width() / 8);
  return total;
}

int64_t EstimateBatchBytes(const columnar::RecordBatch& batch) {
  int64_t total = 0;
  for (const columnar::ArrayPtr& column : batch.columns())
    total += EstimateSliceBytes(*column, 0, batch.num_rows());
  return total;
}

}  // namespace shoal::exec
