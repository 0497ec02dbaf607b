// Nested Parquet columns (structs, lists, maps; the Dremel encoding): ParquetWriter shreds them and
// ParquetTable assembles them back, for every shape with NULLs at every level, empty lists,
// slices, several pages and row groups; the legacy list forms of LogicalTypes.md read from
// footers rewritten by hand; leaf statistics; the schema the writer declares. DuckDB reading and
// writing the same shapes is tests/interop/parquet_nested_interop.mjs.
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <unistd.h>

#include "shoal/columnar/builder.h"
#include "shoal/columnar/pretty_print.h"
#include "shoal/columnar/record_batch.h"
#include "shoal/io/parquet/column_assembler_internal.h"
#include "shoal/io/parquet/column_chunk_reader.h"
#include "shoal/io/parquet/format/parquet_types.h"
#include "shoal/io/parquet/parquet_table.h"
#include "shoal/io/parquet/parquet_writer.h"
#include "shoal/io/parquet/thrift_codec.h"
#include "tests/support/gtest_util.h"

namespace shoal::io::parquet {
namespace {

using columnar::Array;
using columnar::ArrayBuilder;
using columnar::ArrayPtr;
using columnar::DataType;
using columnar::Field;
using columnar::RecordBatch;
using columnar::RecordBatchPtr;
using columnar::Schema;
using columnar::TypeId;

// Appends one value written as a literal to a builder of `type`: `null`; numbers; strings in
// double quotes; lists, fixed-size lists and structs (fields in order) as [a, b, ...]; maps as
// [[key, value], ...]. Just enough to write the test data as text.
class Literal {
 public:
  explicit Literal(const std::string& text) : s_(text) {}

  void Append(const DataType& type, ArrayBuilder* builder) {
    Skip();
    if (s_.compare(pos_, 4, "null") == 0) {
      pos_ += 4;
      ASSERT_OK(builder->AppendNull());
      return;
    }
    switch (type.id()) {
      case TypeId::kList:
      case TypeId::kLargeList:
      case TypeId::kMap: {
        auto* list = static_cast<columnar::ListBuilder*>(builder);
        ASSERT_OK(list->Append());
        Expect('[');
        while (!Next(']')) {
          if (type.id() == TypeId::kMap) {
            auto* entries = list->entries_builder();
            ASSERT_OK(entries->Append());
            Expect('[');
            Append(type.key_field().type, entries->field_builder(0));
            Expect(',');
            Append(type.value_field().type, entries->field_builder(1));
            Expect(']');
          } else {
            Append(type.item_type(), list->value_builder());
          }
          Next(',');
        }
        return;
      }
      case TypeId::kFixedSizeList: {
        auto* list = static_cast<columnar::FixedSizeListBuilder*>(builder);
        ASSERT_OK(list->Append());
        Expect('[');
        while (!Next(']')) {
          Append(type.item_type(), list->value_builder());
          Next(',');
        }
        return;
      }
      case TypeId::kStruct: {
        auto* row = static_cast<columnar::StructBuilder*>(builder);
        ASSERT_OK(row->Append());
        Expect('[');
        for (int f = 0; f < type.num_fields(); ++f) {
          Append(type.field(f).type, row->field_builder(f));
          Next(',');
        }
        Expect(']');
        return;
      }
      case TypeId::kUtf8: {
        Expect('"');
        const size_t end = s_.find('"', pos_);
        ASSERT_OK(static_cast<columnar::BinaryBuilder*>(builder)->Append(
            std::string_view(s_).substr(pos_, end - pos_)));
        pos_ = end + 1;
        return;
      }
      default: {
        size_t used = 0;
        const int64_t v = std::stoll(s_.substr(pos_), &used);
        pos_ += used;
        switch (type.id()) {
          case TypeId::kInt16:
            ASSERT_OK(static_cast<columnar::FixedWidthBuilder<int16_t>*>(builder)->Append(
                static_cast<int16_t>(v)));
            return;
          case TypeId::kInt32:
            ASSERT_OK(static_cast<columnar::FixedWidthBuilder<int32_t>*>(builder)->Append(
                static_cast<int32_t>(v)));
            return;
          case TypeId::kInt64:
            ASSERT_OK(static_cast<columnar::FixedWidthBuilder<int64_t>*>(builder)->Append(v));
            return;
          default: FAIL() << "no literal for " << type.ToString();
        }
      }
    }
  }

 private:
  void Skip() {
    while (pos_ < s_.size() && s_[pos_] == ' ')
      ++pos_;
  }
  bool Next(char c) {
    Skip();
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  void Expect(char c) {
    ASSERT_TRUE(Next(c)) << "expected " << c << " at " << pos_ << " of " << s_;
  }

  const std::string& s_;
  size_t pos_ = 0;
};

ArrayPtr MakeArray(const DataType& type, const std::vector<std::string>& values) {
  auto builder = columnar::MakeBuilder(type, DefaultMemoryPool());
  for (const auto& v : values) {
    Literal literal(v);
    literal.Append(type, builder.get());
  }
  auto array = builder->Finish();
  EXPECT_OK(array.status());
  EXPECT_OK((*array)->Validate());
  return *array;
}

// One column per row of text: {name, type, nullable, values}.
struct Column {
  std::string name;
  DataType type;
  bool nullable;
  std::vector<std::string> values;
};

RecordBatchPtr MakeNestedBatch(const std::vector<Column>& columns) {
  std::vector<Field> fields;
  std::vector<ArrayPtr> arrays;
  for (const auto& c : columns) {
    fields.emplace_back(c.name, c.type, c.nullable);
    arrays.push_back(MakeArray(c.type, c.values));
  }
  const int64_t rows = arrays.empty() ? 0 : arrays.front()->length();
  return RecordBatch::Make(std::make_shared<const Schema>(std::move(fields)), rows,
                           std::move(arrays));
}

// Every value of every column as PostgreSQL-style text, row by row.
std::vector<std::vector<std::string>> Texts(const std::vector<RecordBatchPtr>& batches) {
  std::vector<std::vector<std::string>> out;
  for (const auto& b : batches) {
    for (int64_t r = 0; r < b->num_rows(); ++r) {
      std::vector<std::string> row;
      for (int c = 0; c < b->num_columns(); ++c)
        row.push_back(b->column(c)->IsNull(r) ? "NULL" : columnar::FormatValue(*b->column(c), r));
      out.push_back(std::move(row));
    }
  }
  return out;
}

class ParquetNestedTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("shoal_parquet_nested_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string Path(const std::string& name) const { return (dir_ / name).string(); }

  void Write(const std::string& name, const std::vector<RecordBatchPtr>& batches,
             ParquetWriteOptions options = {}) {
    auto writer = ParquetWriter::Open(Path(name), batches.front()->schema(), options);
    ASSERT_OK(writer.status());
    for (const auto& b : batches)
      ASSERT_OK((*writer)->WriteBatch(b));
    ASSERT_OK((*writer)->Close());
  }

  // Every row of the file through ParquetTable (all columns), and its schema.
  std::vector<RecordBatchPtr> Read(const std::string& name, columnar::SchemaPtr* schema = nullptr,
                                   int64_t batch_size = 1024) {
    auto table = ParquetTable::Make(Path(name), nullptr, {});
    EXPECT_OK(table.status());
    if (!table.ok())
      return {};
    if (schema != nullptr)
      *schema = (*table)->schema();
    ScanRequest request;
    for (int c = 0; c < (*table)->schema()->num_fields(); ++c)
      request.projection.push_back(c);
    request.batch_size = batch_size;
    std::vector<RecordBatchPtr> out;
    auto units = (*table)->PlanScan(request);
    EXPECT_OK(units.status());
    for (const auto& unit : *units) {
      auto reader = (*table)->OpenUnit(unit, request, ScanContext{});
      EXPECT_OK(reader.status());
      while (true) {
        auto batch = (*reader)->Next();
        EXPECT_OK(batch.status());
        if (!batch.ok() || *batch == nullptr)
          break;
        for (int c = 0; c < (*batch)->num_columns(); ++c)
          EXPECT_OK((*batch)->column(c)->Validate());
        out.push_back(*batch);
      }
    }
    return out;
  }

  // Replaces the footer of `name` by what `edit` makes of it.
  void EditFooter(const std::string& name, const std::function<void(format::FileMetaData*)>& edit) {
    std::ifstream in(Path(name), std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    in.close();
    uint32_t length = 0;
    std::memcpy(&length, bytes.data() + bytes.size() - 8, 4);
    format::FileMetaData meta;
    ASSERT_OK(DeserializeThrift(
                  reinterpret_cast<const uint8_t*>(bytes.data() + bytes.size() - 8 - length),
                  length, &meta)
                  .status());
    edit(&meta);
    auto footer = SerializeThrift(meta);
    ASSERT_OK(footer.status());
    std::string out = bytes.substr(0, bytes.size() - 8 - length) + *footer;
    const auto new_length = static_cast<uint32_t>(footer->size());
    out.append(reinterpret_cast<const char*>(&new_length), 4);
    out.append("PAR1");
    std::ofstream(Path(name), std::ios::binary | std::ios::trunc) << out;
  }

  std::filesystem::path dir_;
};

DataType IntList() {
  return DataType::List(DataType::Int64());
}

std::vector<Column> EveryShape() {
  const DataType point =
      DataType::Struct({Field("a", DataType::Int32()), Field("b", DataType::Utf8())});
  return {
      {"id", DataType::Int32(), false, {"1", "2", "3", "4", "5", "6", "7"}},
      {"ll",
       DataType::List(IntList()),
       true,
       {"[[1, 2], [3]]", "null", "[]", "[null, [], [null, 4]]", "[[5]]", "[[], []]",
        "[[6, 7, 8], null]"}},
      {"ls",
       DataType::List(point),
       true,
       {"[[1, \"x\"], [2, null]]", "[null]", "null", "[]", "[[null, null]]",
        "[[3, \"\"], null, [4, \"long text\"]]", "[[5, \"y\"]]"}},
      {"sl",
       DataType::Struct({Field("x", DataType::Int32()),
                         Field("l", DataType::List(DataType::Utf8())), Field("p", point)}),
       true,
       {"[1, [\"a\", \"b\"], [7, \"q\"]]", "null", "[null, null, null]", "[2, [], [null, \"r\"]]",
        "[3, [null], null]", "[4, [\"c\", null, \"d\"], [8, null]]",
        "[null, [\"e\"], [9, \"s\"]]"}},
      {"m",
       DataType::Map(DataType::Utf8(), DataType::Int32()),
       true,
       {"[[\"k\", 1], [\"x\", null]]", "[]", "null", "[[\"a\", 2]]", "[[\"b\", null]]",
        "[[\"c\", 3], [\"d\", 4], [\"e\", 5]]", "null"}},
      {"ml",
       DataType::Map(DataType::Int32(), IntList()),
       true,
       {"[[1, [1, 2]], [2, null]]", "[[3, []]]", "[]", "null", "[[4, [null]]]", "[[5, [5]]]",
        "[[6, [6, 6]], [7, []]]"}},
      {"req",
       DataType::List(Field("item", DataType::Int32(), false)),
       false,
       {"[1]", "[]", "[2, 3]", "[]", "[4]", "[5, 6, 7]", "[8]"}},
      {"fsl",
       DataType::FixedSizeList(DataType::Int16(), 2),
       true,
       {"[1, 2]", "null", "[null, 3]", "[4, null]", "[5, 6]", "null", "[7, 8]"}},
  };
}

// Fixed-size lists come back as lists; the rest of the schema as written.
DataType ReadType(const DataType& written) {
  if (written.id() == TypeId::kFixedSizeList)
    return DataType::List(written.item_field());
  return written;
}

TEST_F(ParquetNestedTest, EveryShapeRoundTrips) {
  auto batch = MakeNestedBatch(EveryShape());
  Write("shapes.parquet", {batch});
  columnar::SchemaPtr schema;
  auto back = Read("shapes.parquet", &schema);
  ASSERT_EQ(schema->num_fields(), batch->num_columns());
  for (int c = 0; c < schema->num_fields(); ++c) {
    EXPECT_EQ(schema->field(c).type, ReadType(batch->schema()->field(c).type))
        << schema->field(c).type.ToString();
    EXPECT_EQ(schema->field(c).nullable, batch->schema()->field(c).nullable);
  }
  EXPECT_EQ(Texts(back), Texts({batch}));
  // Spot checks of the text form, so that a printer change cannot hide a wrong value.
  ASSERT_EQ(back.size(), 1U);
  EXPECT_EQ(columnar::FormatValue(*back[0]->column(1), 3), "{NULL,{},{NULL,4}}");
  EXPECT_TRUE(back[0]->column(1)->IsNull(1));
  EXPECT_FALSE(back[0]->column(1)->IsNull(2));  // an empty list
  EXPECT_EQ(columnar::FormatValue(*back[0]->column(3), 2), "(,,)");
  EXPECT_EQ(columnar::FormatValue(*back[0]->column(4), 0), "{k=1, x=NULL}");
  EXPECT_EQ(back[0]->column(1)->null_count(), 1);
}

TEST_F(ParquetNestedTest, SchemaIsTheStandardThreeLevelForm) {
  Write("schema.parquet", {MakeNestedBatch(EveryShape())});
  auto info =
      ReadParquetFooter(Path("schema.parquet"),
                        static_cast<int64_t>(std::filesystem::file_size(Path("schema.parquet"))));
  ASSERT_OK(info.status());
  const auto& s = info->metadata->schema;
  // id, then ll: optional group (LIST) { repeated group list { optional group element (LIST) {
  // repeated group list { optional int64 element } } } }.
  ASSERT_GT(s.size(), 7U);
  EXPECT_EQ(s[2].name, "ll");
  EXPECT_EQ(s[2].converted_type, format::ConvertedType::LIST);
  EXPECT_TRUE(s[2].logicalType.__isset.LIST);
  EXPECT_EQ(s[2].repetition_type, format::FieldRepetitionType::OPTIONAL);
  EXPECT_EQ(s[3].name, "list");
  EXPECT_EQ(s[3].repetition_type, format::FieldRepetitionType::REPEATED);
  EXPECT_EQ(s[4].name, "element");
  EXPECT_EQ(s[6].name, "element");
  EXPECT_EQ(s[6].type, format::Type::INT64);
  const auto& chunk = info->metadata->row_groups[0].columns[1].meta_data;
  EXPECT_EQ(chunk.path_in_schema,
            (std::vector<std::string>{"ll", "list", "element", "list", "element"}));
  // Leaves: id, ll 1, ls 2, sl 1 + 1 + 2, m 2, ml 2, req 1, fsl 1.
  EXPECT_EQ(info->leaves.size(), 14U);
  EXPECT_EQ(info->leaves[1].max_def, 5);
  EXPECT_EQ(info->leaves[1].max_rep, 2);
  // Map keys are required: the key_value group holds a required key and an optional value.
  bool found = false;
  for (size_t i = 0; i + 2 < s.size(); ++i) {
    if (s[i].name == "m") {
      found = true;
      EXPECT_EQ(s[i].converted_type, format::ConvertedType::MAP);
      EXPECT_EQ(s[i + 1].name, "key_value");
      EXPECT_EQ(s[i + 2].name, "key");
      EXPECT_EQ(s[i + 2].repetition_type, format::FieldRepetitionType::REQUIRED);
    }
  }
  EXPECT_TRUE(found);
}

TEST_F(ParquetNestedTest, LeafStatisticsAreReadable) {
  Write("stats.parquet", {MakeNestedBatch(EveryShape())});
  auto info =
      ReadParquetFooter(Path("stats.parquet"),
                        static_cast<int64_t>(std::filesystem::file_size(Path("stats.parquet"))));
  ASSERT_OK(info.status());
  // ll's leaf holds 1..8 in 16 entries, 8 of them without a value (a null or an empty list at
  // some level, or a null element).
  const ChunkStatistics& ll = info->leaf_statistics[0][1];
  ASSERT_TRUE(ll.min.has_value());
  EXPECT_EQ(*ll.min, columnar::Scalar::Int64(1));
  EXPECT_EQ(*ll.max, columnar::Scalar::Int64(8));
  EXPECT_EQ(ll.null_count, 8);
  // A nested column has no statistics of its own (no pruning on it), a flat one keeps its own.
  EXPECT_EQ(info->statistics[0][1].null_count, -1);
  EXPECT_FALSE(info->statistics[0][1].min.has_value());
  EXPECT_EQ(*info->statistics[0][0].max, columnar::Scalar::Int32(7));
}

TEST_F(ParquetNestedTest, ManyPagesAndRowGroups) {
  // Deterministic rows: list lengths 0..4, nulls at each level by different moduli.
  std::vector<std::string> ll, ls, m, ids;
  for (int i = 0; i < 5000; ++i) {
    ids.push_back(std::to_string(i));
    std::string l = i % 11 == 0 ? "null" : "[";
    std::string s = i % 13 == 0 ? "null" : "[";
    std::string mm = i % 7 == 0 ? "null" : "[";
    if (l != "null") {
      for (int k = 0; k < i % 4; ++k) {
        l += k ? ", " : "";
        l += (i + k) % 5 == 0 ? "null" : "[" + std::to_string(i) + ", " + std::to_string(k) + "]";
      }
      l += "]";
    }
    if (s != "null") {
      for (int k = 0; k < i % 3; ++k) {
        s += k ? ", " : "";
        s += (i + k) % 6 == 0
                 ? "null"
                 : "[" + std::to_string(i * k) + ", \"s" + std::to_string(i % 50) + "\"]";
      }
      s += "]";
    }
    if (mm != "null") {
      for (int k = 0; k < i % 5; ++k) {
        mm += k ? ", " : "";
        mm += "[\"k" + std::to_string(k) + "\", " +
              ((i + k) % 3 == 0 ? "null" : std::to_string(k)) + "]";
      }
      mm += "]";
    }
    ll.push_back(l);
    ls.push_back(s);
    m.push_back(mm);
  }
  const DataType point =
      DataType::Struct({Field("a", DataType::Int32()), Field("b", DataType::Utf8())});
  auto batch =
      MakeNestedBatch({{"id", DataType::Int32(), false, ids},
                       {"ll", DataType::List(IntList()), true, ll},
                       {"ls", DataType::List(point), true, ls},
                       {"m", DataType::Map(DataType::Utf8(), DataType::Int32()), true, m}});
  ParquetWriteOptions options;
  options.row_group_size = 1500;
  options.encoding.page_size = 512;  // many pages per chunk
  // The batch in uneven slices: pieces of a row group start inside the children.
  Write("many.parquet",
        {batch->Slice(0, 700), batch->Slice(700, 1), batch->Slice(701, 2999),
         batch->Slice(3700, 1300)},
        options);
  auto info = ReadParquetFooter(
      Path("many.parquet"), static_cast<int64_t>(std::filesystem::file_size(Path("many.parquet"))));
  ASSERT_OK(info.status());
  EXPECT_EQ(info->metadata->row_groups.size(), 4U);
  auto back = Read("many.parquet", nullptr, 333);
  EXPECT_EQ(Texts(back), Texts({batch}));
}

TEST_F(ParquetNestedTest, SlicedBatchesWriteOnlyTheirRows) {
  auto batch = MakeNestedBatch(EveryShape());
  Write("slice.parquet", {batch->Slice(2, 3)});
  auto back = Read("slice.parquet");
  EXPECT_EQ(Texts(back), Texts({batch->Slice(2, 3)}));
}

// LogicalTypes.md's backward-compatibility rules, from footers rewritten to the legacy forms
// (their levels equal those of the three-level form with a required element).
TEST_F(ParquetNestedTest, ReadsLegacyTwoLevelLists) {
  auto batch = MakeNestedBatch({{"l",
                                 DataType::List(Field("element", DataType::Int32(), false)),
                                 true,
                                 {"[1, 2]", "null", "[]", "[3]"}}});
  Write("two_level.parquet", {batch});
  // optional group l (LIST) { repeated int32 element; }
  EditFooter("two_level.parquet", [](format::FileMetaData* meta) {
    auto& s = meta->schema;
    ASSERT_EQ(s.size(), 4U);
    format::SchemaElement element = s[3];
    element.__set_repetition_type(format::FieldRepetitionType::REPEATED);
    s.erase(s.begin() + 2, s.end());
    s.push_back(element);
  });
  columnar::SchemaPtr schema;
  auto back = Read("two_level.parquet", &schema);
  EXPECT_EQ(schema->field(0).type.ToString(), "int32[]");
  EXPECT_EQ(Texts(back), Texts({batch}));
}

TEST_F(ParquetNestedTest, ReadsLegacyArrayGroupAsTheElement) {
  const DataType one = DataType::Struct({Field("x", DataType::Int32())});
  auto batch = MakeNestedBatch({{"l",
                                 DataType::List(Field("element", one, false)),
                                 true,
                                 {"[[1], [null]]", "[]", "null", "[[2]]"}}});
  Write("array.parquet", {batch});
  // optional group l (LIST) { repeated group array { optional int32 x; } }: a list of structs.
  EditFooter("array.parquet", [](format::FileMetaData* meta) {
    auto& s = meta->schema;
    ASSERT_EQ(s.size(), 5U);  // root, l, list, element, x
    format::SchemaElement array = s[3];
    array.__set_name("array");
    array.__set_repetition_type(format::FieldRepetitionType::REPEATED);
    s.erase(s.begin() + 2, s.begin() + 4);
    s.insert(s.begin() + 2, array);
  });
  columnar::SchemaPtr schema;
  auto back = Read("array.parquet", &schema);
  EXPECT_EQ(schema->field(0).type.ToString(), "struct(x int32)[]");
  EXPECT_EQ(Texts(back), Texts({batch}));
}

TEST_F(ParquetNestedTest, ReadsARepeatedFieldOutsideAListAsARequiredList) {
  auto batch = MakeNestedBatch({{"r",
                                 DataType::List(Field("element", DataType::Int64(), false)),
                                 false,
                                 {"[1, 2, 3]", "[]", "[4]"}}});
  Write("repeated.parquet", {batch});
  // repeated int64 r;
  EditFooter("repeated.parquet", [](format::FileMetaData* meta) {
    auto& s = meta->schema;
    ASSERT_EQ(s.size(), 4U);
    format::SchemaElement r = s[3];
    r.__set_name("r");
    r.__set_repetition_type(format::FieldRepetitionType::REPEATED);
    s.erase(s.begin() + 1, s.end());
    s.push_back(r);
  });
  columnar::SchemaPtr schema;
  auto back = Read("repeated.parquet", &schema);
  EXPECT_EQ(schema->field(0).type.ToString(), "int64[]");
  EXPECT_FALSE(schema->field(0).nullable);
  EXPECT_EQ(Texts(back), Texts({batch}));
}

// A struct read in part (ScanRequest::field_paths) reads only the chosen fields' leaf column
// chunks: the chunks of the other fields are overwritten with garbage, which a whole read trips
// over and the projected read never touches; the unit's cost counts only the chosen chunks.
TEST_F(ParquetNestedTest, ReadsOnlyTheLeavesOfTheChosenStructFields) {
  const DataType inner =
      DataType::Struct({Field("c", DataType::Utf8()), Field("d", DataType::Int64())});
  const DataType s_type = DataType::Struct({Field("a", DataType::Int32()), Field("b", inner),
                                            Field("e", DataType::List(DataType::Int32()))});
  auto batch = MakeNestedBatch(
      {{"id", DataType::Int32(), false, {"1", "2", "3", "4"}},
       {"s",
        s_type,
        true,
        {"[1, [\"x\", 10], [1, 2]]", "null", "[null, null, []]", "[4, [\"w\", null], null]"}}});
  Write("wide.parquet", {batch});
  // Leaves: id, s.a, s.b.c, s.b.d, s.e.list.element.
  auto footer = ReadParquetFooter(
      Path("wide.parquet"), static_cast<int64_t>(std::filesystem::file_size(Path("wide.parquet"))));
  ASSERT_OK(footer.status());
  ASSERT_EQ(footer->leaves.size(), 5U);
  const auto& rg = footer->metadata->row_groups[0];
  int64_t chosen_bytes = 0;
  for (int l : {1, 2})
    chosen_bytes += rg.columns[static_cast<size_t>(l)].meta_data.total_compressed_size;
  {
    std::fstream f(Path("wide.parquet"), std::ios::binary | std::ios::in | std::ios::out);
    for (int l : {3, 4}) {
      auto range = LocateColumnChunk(rg.columns[static_cast<size_t>(l)], footer->size, "test");
      ASSERT_OK(range.status());
      f.seekp(range->offset);
      const std::string garbage(static_cast<size_t>(range->size), '\xff');
      f.write(garbage.data(), static_cast<std::streamsize>(garbage.size()));
    }
  }
  auto table = ParquetTable::Make(Path("wide.parquet"), nullptr, {});
  ASSERT_OK(table.status());
  EXPECT_TRUE((*table)->ReadsStructFieldsAlone());
  auto read = [&](const ScanRequest& request) -> Result<std::vector<RecordBatchPtr>> {
    SHOAL_ASSIGN_OR_RETURN(auto units, (*table)->PlanScan(request));
    std::vector<RecordBatchPtr> out;
    for (const auto& unit : units) {
      SHOAL_ASSIGN_OR_RETURN(auto reader, (*table)->OpenUnit(unit, request, ScanContext{}));
      while (true) {
        SHOAL_ASSIGN_OR_RETURN(auto b, reader->Next());
        if (b == nullptr)
          break;
        for (int c = 0; c < b->num_columns(); ++c)
          SHOAL_RETURN_IF_ERROR(b->column(c)->Validate());
        out.push_back(b);
      }
    }
    return out;
  };
  ScanRequest whole;
  whole.projection = {1};
  EXPECT_FALSE(read(whole).ok());  // the garbage is where a whole read looks

  ScanRequest part;
  part.projection = {0, 1};
  part.field_paths = {{}, {{0}, {1, 0}}};  // s.{a,b.c}
  auto units = (*table)->PlanScan(part);
  ASSERT_OK(units.status());
  ASSERT_EQ(units->size(), 1U);
  EXPECT_EQ((*units)[0].bytes, chosen_bytes + rg.columns[0].meta_data.total_compressed_size);
  auto back = read(part);
  ASSERT_OK(back.status());
  ASSERT_EQ(back->size(), 1U);
  const DataType pruned =
      DataType::Struct({Field("a", DataType::Int32()),
                        Field("b", DataType::Struct({Field("c", DataType::Utf8())}))});
  EXPECT_EQ((*back)[0]->schema()->field(1).type, pruned)
      << (*back)[0]->schema()->field(1).type.ToString();
  EXPECT_EQ((*back)[0]->column(1)->type(), pruned);
  auto expected = MakeNestedBatch(
      {{"id", DataType::Int32(), false, {"1", "2", "3", "4"}},
       {"s", pruned, true, {"[1, [\"x\"]]", "null", "[null, null]", "[4, [\"w\"]]"}}});
  EXPECT_EQ(Texts(*back), Texts({expected}));
  // The array form cuts the column read whole down to the same values.
  auto pruned_array = SelectStructFields(batch->column(1), part.field_paths[1]);
  ASSERT_OK(pruned_array.status());
  EXPECT_EQ((*pruned_array)->type(), pruned);
  ASSERT_OK((*pruned_array)->Validate());
  EXPECT_EQ(Texts({RecordBatch::Make(
                std::make_shared<const Schema>(std::vector<Field>{Field("s", pruned, true)}), 4,
                {*pruned_array})}),
            Texts({RecordBatch::Make(
                std::make_shared<const Schema>(std::vector<Field>{Field("s", pruned, true)}), 4,
                {expected->column(1)})}));

  // A path that names no field is refused.
  ScanRequest bad;
  bad.projection = {1};
  bad.field_paths = {{{7}}};
  auto bad_units = (*table)->PlanScan(bad);
  EXPECT_FALSE(bad_units.ok());
}

// LogicalTypes.md: "The value field can be ... omitted"; such a map reads with all values NULL.
TEST_F(ParquetNestedTest, ReadsAMapWithoutValueFieldAsAllNullValues) {
  auto batch = MakeNestedBatch({{"m",
                                 DataType::Map(DataType::Int32(), DataType::Int32()),
                                 true,
                                 {"[[1, 10], [2, 20]]", "null", "[]", "[[3, 30]]"}}});
  Write("keys.parquet", {batch});
  // optional group m (MAP) { repeated group key_value { required int32 key; } }
  EditFooter("keys.parquet", [](format::FileMetaData* meta) {
    auto& s = meta->schema;
    ASSERT_EQ(s.size(), 5U);  // root, m, key_value, key, value
    s[2].__set_num_children(1);
    s.erase(s.begin() + 4);
    for (auto& rg : meta->row_groups) {
      ASSERT_EQ(rg.columns.size(), 2U);
      rg.total_byte_size -= rg.columns[1].meta_data.total_uncompressed_size;
      rg.columns.erase(rg.columns.begin() + 1);
    }
    if (meta->__isset.column_orders && meta->column_orders.size() == 2)
      meta->column_orders.pop_back();
  });
  columnar::SchemaPtr schema;
  auto back = Read("keys.parquet", &schema);
  EXPECT_EQ(schema->field(0).type, DataType::Map(DataType::Int32(), DataType::Null()))
      << schema->field(0).type.ToString();
  ASSERT_EQ(back.size(), 1U);
  const auto& m = back[0]->column(0);
  ASSERT_EQ(m->length(), 4);
  EXPECT_FALSE(m->IsNull(0));
  EXPECT_TRUE(m->IsNull(1));
  EXPECT_FALSE(m->IsNull(2));
  const auto& entries = m->child(0);
  ASSERT_EQ(entries->length(), 3);
  EXPECT_EQ(entries->child(1)->null_count(), 3);
  EXPECT_EQ(columnar::FormatValue(*entries->child(0), 2), "3");
}

// A key_value group of three fields is not a map.
TEST_F(ParquetNestedTest, RefusesAMapKeyValueGroupOfThreeFields) {
  auto batch = MakeNestedBatch(
      {{"m", DataType::Map(DataType::Int32(), DataType::Int32()), true, {"[[1, 10]]"}}});
  Write("three.parquet", {batch});
  EditFooter("three.parquet", [](format::FileMetaData* meta) {
    auto& s = meta->schema;
    ASSERT_EQ(s.size(), 5U);
    s[2].__set_num_children(3);
    format::SchemaElement extra = s[4];
    extra.__set_name("extra");
    s.push_back(extra);
    for (auto& rg : meta->row_groups)
      rg.columns.push_back(rg.columns[1]);
  });
  auto table = ParquetTable::Make(Path("three.parquet"), nullptr, {});
  ASSERT_FALSE(table.ok());
  EXPECT_EQ(table.status().code(), StatusCode::kInvalidData) << table.status().ToString();
}

TEST_F(ParquetNestedTest, LevelsThatDisagreeWithTheSchemaAreInvalidData) {
  auto batch = MakeNestedBatch({{"l", IntList(), true, {"[1, 2]", "null", "[]", "[3]"}}});
  Write("bad.parquet", {batch});
  // Declaring the element required lowers max_def to 2; the file's def levels reach 3.
  EditFooter("bad.parquet", [](format::FileMetaData* meta) {
    meta->schema[3].__set_repetition_type(format::FieldRepetitionType::REQUIRED);
  });
  auto table = ParquetTable::Make(Path("bad.parquet"), nullptr, {});
  ASSERT_OK(table.status());
  ScanRequest request;
  request.projection = {0};
  auto units = (*table)->PlanScan(request);
  ASSERT_OK(units.status());
  auto reader = (*table)->OpenUnit(units->front(), request, ScanContext{});
  ASSERT_OK(reader.status());
  EXPECT_STATUS_CODE(StatusCode::kInvalidData, (*reader)->Next().status());
}

// The assembler on hand-made levels: optional list<required int64> (def 0 null, 1 empty, 2 item).
class ColumnAssemblerTest : public ::testing::Test {
 protected:
  static SchemaNode ListNode() {
    SchemaNode element;
    element.kind = SchemaNode::Kind::kLeaf;
    element.field = Field("element", DataType::Int64(), false);
    element.def = 2;
    element.slot_rep = 1;
    element.slot_def = 2;
    element.num_leaves = 1;
    SchemaNode list;
    list.kind = SchemaNode::Kind::kList;
    list.field = Field("l", DataType::List(element.field), true);
    list.def = 1;
    list.rep = 1;
    list.element_def = 2;
    list.num_leaves = 1;
    list.children.push_back(element);
    return list;
  }

  static internal::DecodedLeaf Leaf(const std::vector<uint8_t>& def,
                                    const std::vector<uint8_t>& rep, int64_t values) {
    internal::DecodedLeaf leaf;
    const auto n = static_cast<int64_t>(def.size());
    leaf.def = *columnar::Buffer::Allocate(n, DefaultMemoryPool());
    leaf.rep = *columnar::Buffer::Allocate(n, DefaultMemoryPool());
    std::memcpy(leaf.def->mutable_data(), def.data(), def.size());
    std::memcpy(leaf.rep->mutable_data(), rep.data(), rep.size());
    leaf.num_levels = n;
    auto buffer = *columnar::Buffer::Allocate(values * 8, DefaultMemoryPool());
    for (int64_t i = 0; i < values; ++i)
      buffer->mutable_data_as<int64_t>()[i] = 10 + i;
    leaf.values = Array::Make(DataType::Int64(), values, {nullptr, buffer}, 0);
    return leaf;
  }
};

TEST_F(ColumnAssemblerTest, BuildsOffsetsAndValidityFromLevels) {
  // Rows: [10, 11], NULL, [], [12].
  auto array = internal::AssembleColumn(ListNode(), {Leaf({2, 2, 0, 1, 2}, {0, 1, 0, 0, 0}, 3)}, 4,
                                        DefaultMemoryPool());
  ASSERT_OK(array.status());
  ASSERT_OK((*array)->Validate());
  EXPECT_EQ(columnar::FormatValue(**array, 0), "{10,11}");
  EXPECT_TRUE((*array)->IsNull(1));
  EXPECT_EQ(columnar::FormatValue(**array, 2), "{}");
  EXPECT_EQ(columnar::FormatValue(**array, 3), "{12}");
}

TEST_F(ColumnAssemblerTest, RefusesLevelsThatDisagree) {
  // A chunk that starts inside a row.
  EXPECT_STATUS_CODE(
      StatusCode::kInvalidData,
      internal::AssembleColumn(ListNode(), {Leaf({2, 2}, {1, 0}, 2)}, 1, DefaultMemoryPool())
          .status());
  // More elements in the levels than values in the leaf.
  EXPECT_STATUS_CODE(
      StatusCode::kInvalidData,
      internal::AssembleColumn(ListNode(), {Leaf({2, 2, 2}, {0, 1, 0}, 2)}, 2, DefaultMemoryPool())
          .status());
  // A row count other than the row group's.
  EXPECT_STATUS_CODE(
      StatusCode::kInvalidData,
      internal::AssembleColumn(ListNode(), {Leaf({2, 2}, {0, 0}, 2)}, 3, DefaultMemoryPool())
          .status());
}

}  // namespace
}  // namespace shoal::io::parquet
