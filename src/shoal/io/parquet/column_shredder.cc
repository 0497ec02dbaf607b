#include "shoal/io/parquet/column_chunk_writer.h"
#include "shoal/io/parquet/column_shredder_internal.h"

namespace shoal::io::parquet::internal {

namespace {

using columnar::Array;
using columnar::TypeId;

format::SchemaElement Group(const std::string& name, format::FieldRepetitionType::type repetition,
                            int children) {
  format::SchemaElement e;
  e.__set_name(name);
  e.__set_repetition_type(repetition);
  e.__set_num_children(children);
  return e;
}

format::FieldRepetitionType::type RepetitionOf(bool nullable) {
  return nullable ? format::FieldRepetitionType::OPTIONAL : format::FieldRepetitionType::REQUIRED;
}

}  // namespace

Result<ColumnShredder> ColumnShredder::Make(const columnar::Field& field,
                                            std::vector<format::SchemaElement>* elements) {
  ColumnShredder shredder;
  SHOAL_RETURN_IF_ERROR(shredder.Build(field, 0, 0, {}, elements, &shredder.root_));
  return shredder;
}

Status ColumnShredder::Build(const columnar::Field& field, int parent_def, int parent_rep,
                             std::vector<std::string> path,
                             std::vector<format::SchemaElement>* elements, Node* node) {
  const columnar::DataType& type = field.type;
  path.push_back(field.name);
  node->nullable = field.nullable;
  node->def = parent_def + (field.nullable ? 1 : 0);
  node->first_leaf = static_cast<int>(leaves_.size());
  switch (type.id()) {
    case TypeId::kStruct: {
      if (type.num_fields() == 0)
        return Status::NotImplemented(
            "column \"{}\": a struct without fields cannot be written "
            "to Parquet",
            field.name);
      node->kind = Kind::kStruct;
      elements->push_back(Group(field.name, RepetitionOf(field.nullable), type.num_fields()));
      for (const columnar::Field& child : type.fields()) {
        Node c;
        SHOAL_RETURN_IF_ERROR(Build(child, node->def, parent_rep, path, elements, &c));
        node->children.push_back(std::move(c));
      }
      break;
    }
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kFixedSizeList:
    case TypeId::kMap: {
      const bool is_map = type.id() == TypeId::kMap;
      node->kind = is_map ? Kind::kMap : Kind::kList;
      node->rep = parent_rep + 1;
      format::SchemaElement outer = Group(field.name, RepetitionOf(field.nullable), 1);
      format::LogicalType logical;
      if (is_map) {
        logical.__set_MAP(format::MapType());
        outer.__set_converted_type(format::ConvertedType::MAP);
      } else {
        logical.__set_LIST(format::ListType());
        outer.__set_converted_type(format::ConvertedType::LIST);
      }
      outer.__set_logicalType(logical);
      elements->push_back(std::move(outer));
      const int element_def = node->def + 1;
      if (is_map) {
        elements->push_back(Group("key_value", format::FieldRepetitionType::REPEATED, 2));
        path.emplace_back("key_value");
        Node entries;
        entries.kind = Kind::kStruct;
        entries.nullable = false;
        entries.def = element_def;
        entries.first_leaf = static_cast<int>(leaves_.size());
        Node key, value;
        SHOAL_RETURN_IF_ERROR(Build(columnar::Field("key", type.key_field().type, false),
                                    element_def, node->rep, path, elements, &key));
        SHOAL_RETURN_IF_ERROR(
            Build(columnar::Field("value", type.value_field().type, type.value_field().nullable),
                  element_def, node->rep, path, elements, &value));
        entries.children.push_back(std::move(key));
        entries.children.push_back(std::move(value));
        entries.num_leaves = static_cast<int>(leaves_.size()) - entries.first_leaf;
        node->children.push_back(std::move(entries));
      } else {
        elements->push_back(Group("list", format::FieldRepetitionType::REPEATED, 1));
        path.emplace_back("list");
        Node element;
        SHOAL_RETURN_IF_ERROR(
            Build(columnar::Field("element", type.item_type(), type.item_field().nullable),
                  element_def, node->rep, path, elements, &element));
        node->children.push_back(std::move(element));
      }
      break;
    }
    default: {
      node->kind = Kind::kLeaf;
      SHOAL_ASSIGN_OR_RETURN(format::SchemaElement element, MakeSchemaElement(field));
      elements->push_back(std::move(element));
      Leaf leaf;
      leaf.field = field;
      SHOAL_ASSIGN_OR_RETURN(leaf.layout, LayoutOf(field));
      leaf.path = std::move(path);
      leaf.max_def = node->def;
      leaf.max_rep = parent_rep;
      leaves_.push_back(std::move(leaf));
      break;
    }
  }
  node->num_leaves = static_cast<int>(leaves_.size()) - node->first_leaf;
  return Status::OK();
}

void ColumnShredder::PutAbsent(const Node& node, int def, int rep, std::vector<Scratch>* scratch) {
  for (int l = node.first_leaf; l < node.first_leaf + node.num_leaves; ++l) {
    Values* v = (*scratch)[static_cast<size_t>(l)].values;
    v->levels.push_back(static_cast<uint32_t>(def));
    v->reps.push_back(static_cast<uint32_t>(rep));
  }
}

void ColumnShredder::Put(const Node& node, const Array& array, int64_t i, int rep, int parent_def,
                         std::vector<Scratch>* scratch) const {
  if (node.nullable && array.IsNull(i)) {
    PutAbsent(node, parent_def, rep, scratch);
    return;
  }
  switch (node.kind) {
    case Kind::kLeaf: {
      Scratch& s = (*scratch)[static_cast<size_t>(node.first_leaf)];
      s.values->levels.push_back(static_cast<uint32_t>(node.def));
      s.values->reps.push_back(static_cast<uint32_t>(rep));
      s.positions.push_back(i);
      s.source = &array;
      return;
    }
    case Kind::kStruct: {
      const int64_t row = array.ChildRow(i);
      for (size_t k = 0; k < node.children.size(); ++k)
        Put(node.children[k], *array.child(static_cast<int>(k)), row, rep, node.def, scratch);
      return;
    }
    case Kind::kList:
    case Kind::kMap: {
      const int64_t start = array.ListStart(i);
      const int64_t end = array.ListEnd(i);
      const Node& element = node.children[0];
      if (start == end) {
        PutAbsent(element, node.def, rep, scratch);
        return;
      }
      const Array& items = *array.child(0);
      Put(element, items, start, rep, node.def + 1, scratch);
      for (int64_t j = start + 1; j < end; ++j)
        Put(element, items, j, node.rep, node.def + 1, scratch);
      return;
    }
  }
}

Result<std::vector<Values>> ColumnShredder::Shred(
    const std::vector<columnar::ArrayPtr>& pieces) const {
  std::vector<Values> out(leaves_.size());
  std::vector<Scratch> scratch(leaves_.size());
  for (size_t l = 0; l < leaves_.size(); ++l)
    scratch[l].values = &out[l];
  for (const auto& piece : pieces) {
    for (int64_t i = 0; i < piece->length(); ++i)
      Put(root_, *piece, i, 0, 0, &scratch);
    for (size_t l = 0; l < leaves_.size(); ++l) {
      Scratch& s = scratch[l];
      if (!s.positions.empty()) {
        SHOAL_RETURN_IF_ERROR(GatherSelected(*s.source, s.positions.data(),
                                             static_cast<int64_t>(s.positions.size()),
                                             leaves_[l].field, &out[l]));
      }
      s.positions.clear();
      s.source = nullptr;
    }
  }
  for (size_t l = 0; l < leaves_.size(); ++l) {
    Values& v = out[l];
    v.num_rows = static_cast<int64_t>(v.levels.size());
    v.null_count = v.num_rows - NumValues(v, leaves_[l].layout.physical);
  }
  return out;
}

}  // namespace shoal::io::parquet::internal
