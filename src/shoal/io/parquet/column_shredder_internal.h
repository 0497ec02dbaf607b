// ColumnShredder: the writer's half of the Dremel encoding (parquet-format README "Nested
// Encoding"). It turns a nested top-level column (struct, list, large list, fixed-size list, map,
// nested in any way) into one Values per leaf column: a definition and a repetition level per
// entry and the leaf's non-null values, which ColumnChunkWriter then encodes like a flat column.
// Lists and maps are written in the standard three-level form of LogicalTypes.md
// (`<list> (LIST) { repeated group list { <element> } }`,
// `<map> (MAP) { repeated group key_value { required key; value } }`), fixed-size lists as lists.
//
// The walk recurses per value over the column's tree (a switch on the node kind, no virtual call);
// the leaf values are then gathered per piece as one selection (GatherSelected).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "shoal/io/parquet/column_values_internal.h"

namespace shoal::io::parquet::internal {

class ColumnShredder {
 public:
  struct Leaf {
    columnar::Field field;  // the leaf's name, type and nullability
    Layout layout;
    std::vector<std::string> path;  // path_in_schema
    int max_def = 0;
    int max_rep = 0;
  };

  /// The tree of `field` (a nested type) and its schema elements, appended to `elements` depth
  /// first. NotImplemented for leaf types Parquet cannot hold.
  static Result<ColumnShredder> Make(const columnar::Field& field,
                                     std::vector<format::SchemaElement>* elements);

  const std::vector<Leaf>& leaves() const { return leaves_; }

  /// One Values per leaf for the rows of `pieces`.
  Result<std::vector<Values>> Shred(const std::vector<columnar::ArrayPtr>& pieces) const;

 private:
  enum class Kind : uint8_t { kLeaf, kStruct, kList, kMap };
  struct Node {
    Kind kind = Kind::kLeaf;
    bool nullable = true;
    int def = 0;  // definition level of a present (non-null) value
    int rep = 0;  // lists and maps: the repetition level of their elements
    int first_leaf = 0;
    int num_leaves = 0;
    std::vector<Node> children;
  };
  struct Scratch {
    Values* values = nullptr;
    std::vector<int64_t> positions;
    const columnar::Array* source = nullptr;
  };

  Status Build(const columnar::Field& field, int parent_def, int parent_rep,
               std::vector<std::string> path, std::vector<format::SchemaElement>* elements,
               Node* node);
  void Put(const Node& node, const columnar::Array& array, int64_t i, int rep, int parent_def,
           std::vector<Scratch>* scratch) const;
  static void PutAbsent(const Node& node, int def, int rep, std::vector<Scratch>* scratch);

  Node root_;
  std::vector<Leaf> leaves_;
};

}  // namespace shoal::io::parquet::internal
