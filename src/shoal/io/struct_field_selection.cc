#include "shoal/io/struct_field_selection.h"

#include <map>
#include <memory>

namespace shoal::io {

namespace {

using columnar::Array;
using columnar::ArrayPtr;
using columnar::DataType;
using columnar::TypeId;

// The kept fields of one struct level: a field is whole, or kept through its own kept fields.
struct Selection {
  bool whole = false;
  std::map<int, Selection> fields;
};

Result<Selection> BuildSelection(const DataType& type, const std::vector<FieldPath>& paths) {
  Selection root;
  if (paths.empty()) {
    root.whole = true;
    return root;
  }
  for (const FieldPath& path : paths) {
    if (path.empty()) {
      root.whole = true;
      continue;
    }
    Selection* at = &root;
    const DataType* t = &type;
    for (int index : path) {
      if (at->whole)
        break;
      if (t->id() != TypeId::kStruct || index < 0 || index >= t->num_fields())
        return Status::InvalidArgument("field path step {} does not name a field of {}", index,
                                       t->ToString());
      at = &at->fields[index];
      t = &t->field(index).type;
    }
    at->whole = true;
    at->fields.clear();
  }
  return root;
}

DataType PrunedType(const DataType& type, const Selection& s) {
  if (s.whole)
    return type;
  std::vector<columnar::Field> fields;
  for (const auto& [index, child] : s.fields) {
    columnar::Field f = type.field(index);
    f.type = PrunedType(f.type, child);
    fields.push_back(std::move(f));
  }
  return DataType::Struct(std::move(fields));
}

ArrayPtr PrunedArray(const ArrayPtr& array, const DataType& type, const Selection& s) {
  if (s.whole)
    return array;
  std::vector<ArrayPtr> children;
  for (const auto& [index, child] : s.fields) {
    const ArrayPtr& field = array->child(index);
    children.push_back(PrunedArray(field, PrunedType(field->type(), child), child));
  }
  return Array::MakeNested(type, array->length(), {array->buffers()[0]}, std::move(children),
                           array->null_count(), array->offset());
}

void Format(const DataType& type, const Selection& s, std::string* out) {
  bool first = true;
  for (const auto& [index, child] : s.fields) {
    if (!first)
      *out += ",";
    first = false;
    *out += type.field(index).name;
    if (!child.whole) {
      // One kept field reads as a dotted path; several as a nested set.
      if (child.fields.size() == 1) {
        *out += ".";
        Format(type.field(index).type, child, out);
      } else {
        *out += ".{";
        Format(type.field(index).type, child, out);
        *out += "}";
      }
    }
  }
}

}  // namespace

Result<DataType> SelectStructFields(const DataType& type, const std::vector<FieldPath>& paths) {
  SHOAL_ASSIGN_OR_RETURN(Selection s, BuildSelection(type, paths));
  return PrunedType(type, s);
}

Result<ArrayPtr> SelectStructFields(const ArrayPtr& array, const std::vector<FieldPath>& paths) {
  SHOAL_ASSIGN_OR_RETURN(Selection s, BuildSelection(array->type(), paths));
  if (s.whole)
    return array;
  return PrunedArray(array, PrunedType(array->type(), s), s);
}

std::string FormatFieldPaths(const DataType& type, const std::vector<FieldPath>& paths) {
  Result<Selection> s = BuildSelection(type, paths);
  if (!s.ok() || s->whole)
    return "";
  std::string out = ".{";
  Format(type, *s, &out);
  return out + "}";
}

}  // namespace shoal::io
