#include <cstring>

#include "shoal/columnar/bitmap.h"
#include "shoal/io/parquet/column_assembler_internal.h"

namespace shoal::io::parquet::internal {

namespace {

using columnar::Array;
using columnar::ArrayPtr;
using columnar::Buffer;
using columnar::BufferPtr;

class Assembler {
 public:
  Assembler(const std::vector<DecodedLeaf>& leaves, std::shared_ptr<MemoryPool> pool)
      : leaves_(leaves), pool_(std::move(pool)) {}

  Result<ArrayPtr> Build(const SchemaNode& node) {
    if (node.first_leaf < 0 || static_cast<size_t>(node.first_leaf) >= leaves_.size())
      return Status::Internal("leaf {} of {}", node.first_leaf, leaves_.size());
    const DecodedLeaf& leaf = leaves_[static_cast<size_t>(node.first_leaf)];
    if (node.kind == SchemaNode::Kind::kLeaf)
      return leaf.values;
    const uint8_t* def = leaf.def->data();
    const uint8_t* rep = leaf.rep != nullptr ? leaf.rep->data() : nullptr;
    const int64_t n = leaf.num_levels;
    const auto slot_rep = static_cast<uint8_t>(node.slot_rep);
    const auto slot_def = static_cast<uint8_t>(node.slot_def);
    const auto present = static_cast<uint8_t>(node.def);
    // Slots of this node: at most one per entry.
    SHOAL_ASSIGN_OR_RETURN(BufferPtr validity,
                           Buffer::AllocateZeroed(columnar::bitmap::BytesForBits(n), pool_));
    uint8_t* valid = validity->mutable_data();
    int64_t slots = 0;
    int64_t nulls = 0;
    if (node.kind == SchemaNode::Kind::kStruct) {
      for (int64_t i = 0; i < n; ++i) {
        const uint8_t r = rep != nullptr ? rep[i] : 0;
        if (r <= slot_rep && def[i] >= slot_def) {
          if (def[i] >= present)
            columnar::bitmap::SetBit(valid, slots);
          else
            ++nulls;
          ++slots;
        }
      }
      std::vector<ArrayPtr> children;
      for (const SchemaNode& child : node.children) {
        SHOAL_ASSIGN_OR_RETURN(ArrayPtr array, Build(child));
        if (array->length() != slots)
          return Status::InvalidData(
              "struct '{}' has {} rows by its first leaf but field '{}' has {}", node.field.name,
              slots, child.field.name, array->length());
        children.push_back(std::move(array));
      }
      return Array::MakeNested(node.field.type, slots, {nulls > 0 ? validity : nullptr},
                               std::move(children), nulls);
    }
    // Lists and maps: an entry is a new row when it has a slot here, and an element of the
    // current row when it has a slot in the element.
    if (rep == nullptr)
      return Status::Internal("list '{}' without repetition levels", node.field.name);
    SHOAL_ASSIGN_OR_RETURN(BufferPtr offsets_buffer, Buffer::Allocate((n + 1) * 4, pool_));
    auto* offsets = offsets_buffer->mutable_data_as<int32_t>();
    const auto element_rep = static_cast<uint8_t>(node.rep);
    const auto element_def = static_cast<uint8_t>(node.element_def);
    int32_t count = 0;
    offsets[0] = 0;
    for (int64_t i = 0; i < n; ++i) {
      const uint8_t r = rep[i];
      const uint8_t d = def[i];
      if (r <= slot_rep && d >= slot_def) {
        if (d >= present)
          columnar::bitmap::SetBit(valid, slots);
        else
          ++nulls;
        ++slots;
        offsets[slots] = count;
      }
      if (r <= element_rep && d >= element_def) {
        ++count;
        offsets[slots] = count;
      }
    }
    if (slots == 0 && count > 0)
      return Status::InvalidData("list '{}' has elements before its first row", node.field.name);
    SHOAL_ASSIGN_OR_RETURN(ArrayPtr child, Build(node.children[0]));
    if (child->length() != count)
      return Status::InvalidData(
          "list '{}' has {} elements by its first leaf but its element has {}", node.field.name,
          count, child->length());
    if (node.kind == SchemaNode::Kind::kMap) {
      const columnar::DataType& entries = node.field.type.item_type();
      if (child->child(0)->null_count() > 0)
        return Status::InvalidData("map '{}' has a null key", node.field.name);
      // The key_value group's struct with the map's entries type (its key is non-null); a
      // group without a value field (LogicalTypes.md allows it) gets all-NULL values.
      std::vector<ArrayPtr> fields = child->children();
      if (fields.size() == 1) {
        SHOAL_ASSIGN_OR_RETURN(
            ArrayPtr values,
            columnar::Scalar(node.field.type.value_field().type).MakeArray(child->length(), pool_));
        fields.push_back(std::move(values));
      }
      child = Array::MakeNested(entries, child->length(), {child->buffers()[0]}, std::move(fields),
                                child->null_count());
    }
    SHOAL_RETURN_IF_ERROR(offsets_buffer->Resize((slots + 1) * 4));
    return Array::MakeNested(node.field.type, slots,
                             {nulls > 0 ? validity : nullptr, offsets_buffer}, {std::move(child)},
                             nulls);
  }

 private:
  const std::vector<DecodedLeaf>& leaves_;
  std::shared_ptr<MemoryPool> pool_;
};

}  // namespace

Result<ArrayPtr> AssembleColumn(const SchemaNode& node, const std::vector<DecodedLeaf>& leaves,
                                int64_t num_rows, const std::shared_ptr<MemoryPool>& pool) {
  // Every leaf's first entry starts a row: a continuation there belongs to no row.
  for (int l = node.first_leaf; l < node.first_leaf + node.num_leaves; ++l) {
    const DecodedLeaf& leaf = leaves[static_cast<size_t>(l)];
    if (leaf.rep != nullptr && leaf.num_levels > 0 && leaf.rep->data()[0] != 0)
      return Status::InvalidData("the column chunk of leaf {} starts with repetition level {}", l,
                                 static_cast<int>(leaf.rep->data()[0]));
  }
  Assembler assembler(leaves, pool);
  SHOAL_ASSIGN_OR_RETURN(ArrayPtr array, assembler.Build(node));
  if (array->length() != num_rows)
    return Status::InvalidData("the column has {} rows but the row group has {}", array->length(),
                               num_rows);
  return array;
}

}  // namespace shoal::io::parquet::internal
