#include "shoal/columnar/data_type.h"

#include <gtest/gtest.h>

#include "shoal/columnar/schema.h"
#include "tests/support/gtest_util.h"

namespace shoal::columnar {
namespace {

struct LayoutCase {
  DataType type;
  const char* name;
  int bit_width;
  int num_buffers;
};

TEST(DataTypeTest, LayoutOfEveryType) {
  const LayoutCase cases[] = {
      {DataType::Null(), "null", 0, 0},
      {DataType::Boolean(), "boolean", 1, 2},
      {DataType::Int8(), "int8", 8, 2},
      {DataType::Int16(), "int16", 16, 2},
      {DataType::Int32(), "int32", 32, 2},
      {DataType::Int64(), "int64", 64, 2},
      {DataType::UInt8(), "uint8", 8, 2},
      {DataType::UInt16(), "uint16", 16, 2},
      {DataType::UInt32(), "uint32", 32, 2},
      {DataType::UInt64(), "uint64", 64, 2},
      {DataType::Float32(), "float32", 32, 2},
      {DataType::Float64(), "float64", 64, 2},
      {DataType::Decimal(15, 2), "decimal(15,2)", 64, 2},
      {DataType::Decimal(18, 0), "decimal(18,0)", 64, 2},
      {DataType::Decimal(19, 0), "decimal(19,0)", 128, 2},
      {DataType::Decimal(38, 38), "decimal(38,38)", 128, 2},
      {DataType::Date32(), "date32", 32, 2},
      {DataType::Timestamp(), "timestamp[us]", 64, 2},
      {DataType::Timestamp(TimeUnit::kSecond), "timestamp[s]", 64, 2},
      {DataType::Timestamp(TimeUnit::kMilli, "UTC"), "timestamp[ms, tz=UTC]", 64, 2},
      {DataType::Timestamp(TimeUnit::kNano, "Europe/Berlin"), "timestamp[ns, tz=Europe/Berlin]", 64,
       2},
      {DataType::Interval(), "interval", 128, 2},
      {DataType::Utf8(), "utf8", 0, 3},
      {DataType::Binary(), "binary", 0, 3},
      {DataType::Dictionary(TypeId::kInt32, DataType::Utf8()), "dictionary<int32, utf8>", 32, 2},
      {DataType::Dictionary(TypeId::kUInt8, DataType::Decimal(10, 3)),
       "dictionary<uint8, decimal(10,3)>", 8, 2},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(c.type.ToString(), c.name);
    EXPECT_EQ(c.type.bit_width(), c.bit_width);
    EXPECT_EQ(c.type.byte_width(), c.bit_width / 8);
    EXPECT_EQ(c.type.is_fixed_width(), c.bit_width > 0);
    EXPECT_EQ(c.type.num_buffers(), c.num_buffers);
    EXPECT_EQ(c.type, c.type);
  }
}

TEST(DataTypeTest, DefaultIsNull) {
  EXPECT_EQ(DataType(), DataType::Null());
  EXPECT_EQ(DataType().id(), TypeId::kNull);
}

TEST(DataTypeTest, IntegerClassification) {
  EXPECT_TRUE(DataType::Int8().is_integer());
  EXPECT_TRUE(DataType::UInt64().is_integer());
  EXPECT_FALSE(DataType::Boolean().is_integer());
  EXPECT_FALSE(DataType::Float32().is_integer());
  EXPECT_FALSE(DataType::Date32().is_integer());
  EXPECT_FALSE(DataType::Decimal(5, 0).is_integer());
  EXPECT_TRUE(DataType::Utf8().is_binary_like());
  EXPECT_TRUE(DataType::Binary().is_binary_like());
  EXPECT_FALSE(DataType::Dictionary(TypeId::kInt32, DataType::Utf8()).is_binary_like());
}

TEST(DataTypeTest, EqualityLooksAtParameters) {
  EXPECT_NE(DataType::Int32(), DataType::UInt32());
  EXPECT_NE(DataType::Int32(), DataType::Date32());
  EXPECT_NE(DataType::Utf8(), DataType::Binary());
  EXPECT_EQ(DataType::Decimal(15, 2), DataType::Decimal(15, 2));
  EXPECT_NE(DataType::Decimal(15, 2), DataType::Decimal(15, 3));
  EXPECT_NE(DataType::Decimal(15, 2), DataType::Decimal(16, 2));
  EXPECT_EQ(DataType::Timestamp(), DataType::Timestamp(TimeUnit::kMicro, ""));
  EXPECT_NE(DataType::Timestamp(TimeUnit::kMicro), DataType::Timestamp(TimeUnit::kNano));
  EXPECT_NE(DataType::Timestamp(TimeUnit::kMicro), DataType::Timestamp(TimeUnit::kMicro, "UTC"));
  EXPECT_NE(DataType::Timestamp(TimeUnit::kMicro, "UTC"),
            DataType::Timestamp(TimeUnit::kMicro, "Asia/Tokyo"));
  const DataType dict = DataType::Dictionary(TypeId::kInt32, DataType::Utf8());
  EXPECT_EQ(dict, DataType::Dictionary(TypeId::kInt32, DataType::Utf8()));
  EXPECT_NE(dict, DataType::Dictionary(TypeId::kInt16, DataType::Utf8()));
  EXPECT_NE(dict, DataType::Dictionary(TypeId::kInt32, DataType::Binary()));
  EXPECT_NE(dict, DataType::Dictionary(TypeId::kInt32, DataType::Utf8(), /*ordered=*/true));
  EXPECT_NE(dict, DataType::Utf8());
}

TEST(DataTypeTest, DictionaryAccessors) {
  const DataType dict = DataType::Dictionary(TypeId::kInt16, DataType::Decimal(20, 4), true);
  EXPECT_EQ(dict.id(), TypeId::kDictionary);
  EXPECT_EQ(dict.index_type(), TypeId::kInt16);
  EXPECT_EQ(dict.value_type(), DataType::Decimal(20, 4));
  EXPECT_TRUE(dict.ordered());
  // Copies share nothing observable: the copy compares equal and outlives the original.
  DataType copy;
  {
    DataType original = DataType::Dictionary(TypeId::kInt8, DataType::Utf8());
    copy = original;
  }
  EXPECT_EQ(copy.value_type(), DataType::Utf8());
}

TEST(DataTypeTest, MakeDecimalRefusesBadParametersWithAStatus) {
  EXPECT_OK(DataType::MakeDecimal(1, 0));
  EXPECT_OK(DataType::MakeDecimal(38, 38));
  EXPECT_STATUS_CODE(StatusCode::kInvalidArgument, DataType::MakeDecimal(0, 0));
  EXPECT_STATUS_CODE(StatusCode::kInvalidArgument, DataType::MakeDecimal(39, 0));
  EXPECT_STATUS_CODE(StatusCode::kInvalidArgument, DataType::MakeDecimal(-1, 0));
  EXPECT_STATUS_CODE(StatusCode::kInvalidArgument, DataType::MakeDecimal(10, 11));
  EXPECT_STATUS_CODE(StatusCode::kInvalidArgument, DataType::MakeDecimal(10, -1));
  ASSERT_OK_AND_ASSIGN(DataType t, DataType::MakeDecimal(18, 4));
  EXPECT_EQ(t.precision(), 18);
  EXPECT_EQ(t.scale(), 4);
  EXPECT_EQ(t.byte_width(), 8);
}

TEST(DataTypeTest, TypeIdNames) {
  EXPECT_STREQ(TypeIdName(TypeId::kUInt16), "uint16");
  EXPECT_STREQ(TypeIdName(TypeId::kDictionary), "dictionary");
  EXPECT_STREQ(TypeIdName(TypeId::kInterval), "interval");
}

TEST(DataTypeDeathTest, InvalidConstructionIsACallerBug) {
  // The unchecked factories are for Shoal's own constants; misuse is an invariant violation.
  EXPECT_DEATH((void)DataType::Decimal(40, 0), "precision 40");
  EXPECT_DEATH((void)DataType::Dictionary(TypeId::kUtf8, DataType::Utf8()), "must be an integer");
  EXPECT_DEATH((void)DataType::Int32().value_type(), "non-dictionary");
}

TEST(SchemaTest, FieldIndexAndToString) {
  Schema schema(
      {{"a", DataType::Int32(), false}, {"b", DataType::Utf8()}, {"a", DataType::Float64()}},
      {{"origin", "test"}});
  EXPECT_EQ(schema.num_fields(), 3);
  EXPECT_EQ(schema.FieldIndex("a"), 0);
  EXPECT_EQ(schema.FieldIndex("b"), 1);
  EXPECT_EQ(schema.FieldIndex("zzz"), std::nullopt);
  EXPECT_EQ(schema.ToString(), "a: int32 not null, b: utf8, a: float64");
  EXPECT_EQ(schema.metadata().at(0).second, "test");
  Schema same(
      {{"a", DataType::Int32(), false}, {"b", DataType::Utf8()}, {"a", DataType::Float64()}},
      {{"origin", "test"}});
  EXPECT_EQ(schema, same);
  Schema other_metadata(
      {{"a", DataType::Int32(), false}, {"b", DataType::Utf8()}, {"a", DataType::Float64()}});
  EXPECT_FALSE(schema == other_metadata);
  Schema nullable({{"a", DataType::Int32()}, {"b", DataType::Utf8()}, {"a", DataType::Float64()}},
                  {{"origin", "test"}});
  EXPECT_FALSE(schema == nullable);
}

}  // namespace
}  // namespace shoal::columnar

namespace shoal::columnar {
namespace {

TEST(NestedDataType, NamesAsDuckDbSpellsThem) {
  EXPECT_EQ(DataType::List(DataType::Int32()).ToString(), "int32[]");
  EXPECT_EQ(DataType::List(DataType::List(DataType::Utf8())).ToString(), "utf8[][]");
  EXPECT_EQ(DataType::LargeList(DataType::Int64()).ToString(), "large int64[]");
  EXPECT_EQ(DataType::FixedSizeList(DataType::Float64(), 3).ToString(), "float64[3]");
  EXPECT_EQ(DataType::Struct({{"a", DataType::Int32()}, {"b", DataType::Utf8()}}).ToString(),
            "struct(a int32, b utf8)");
  EXPECT_EQ(DataType::Map(DataType::Utf8(), DataType::Int32()).ToString(), "map(utf8, int32)");
  EXPECT_EQ(DataType::Struct({}).ToString(), "struct()");
}

TEST(NestedDataType, LayoutAndChildren) {
  const DataType list = DataType::List(DataType::Int32());
  EXPECT_TRUE(list.is_nested());
  EXPECT_TRUE(list.is_list_like());
  EXPECT_FALSE(list.is_fixed_width());
  EXPECT_EQ(list.num_buffers(), 2);
  EXPECT_EQ(list.num_fields(), 1);
  EXPECT_EQ(list.item_field().name, "item");
  EXPECT_TRUE(list.item_field().nullable);
  EXPECT_EQ(DataType::FixedSizeList(DataType::Int8(), 4).num_buffers(), 1);
  EXPECT_EQ(DataType::FixedSizeList(DataType::Int8(), 4).list_size(), 4);
  EXPECT_EQ(DataType::Struct({{"a", DataType::Int32()}}).num_buffers(), 1);
  const DataType map = DataType::Map(DataType::Utf8(), DataType::Int32(), true);
  EXPECT_EQ(map.num_buffers(), 2);
  EXPECT_TRUE(map.keys_sorted());
  EXPECT_EQ(map.item_field().name, "entries");
  EXPECT_FALSE(map.item_field().nullable);
  EXPECT_FALSE(map.key_field().nullable);
  EXPECT_EQ(map.key_field().type, DataType::Utf8());
  EXPECT_EQ(map.value_field().type, DataType::Int32());
  EXPECT_FALSE(DataType::Int32().is_nested());
}

TEST(NestedDataType, Equality) {
  // The item field's name is a writer's convention and does not make another type.
  EXPECT_EQ(DataType::List(Field("item", DataType::Int32())),
            DataType::List(Field("element", DataType::Int32())));
  EXPECT_NE(DataType::List(Field("item", DataType::Int32(), false)),
            DataType::List(Field("item", DataType::Int32(), true)));
  EXPECT_NE(DataType::List(DataType::Int32()), DataType::List(DataType::Int64()));
  EXPECT_NE(DataType::List(DataType::Int32()), DataType::LargeList(DataType::Int32()));
  EXPECT_NE(DataType::FixedSizeList(DataType::Int32(), 2),
            DataType::FixedSizeList(DataType::Int32(), 3));
  // Struct field names are part of the type.
  EXPECT_NE(DataType::Struct({{"a", DataType::Int32()}}),
            DataType::Struct({{"b", DataType::Int32()}}));
  EXPECT_EQ(DataType::Struct({{"a", DataType::Int32()}}),
            DataType::Struct({{"a", DataType::Int32()}}));
  EXPECT_NE(DataType::Map(DataType::Utf8(), DataType::Int32()),
            DataType::Map(DataType::Utf8(), DataType::Int32(), true));
  EXPECT_NE(DataType::Map(DataType::Utf8(), DataType::Int32()),
            DataType::Map(DataType::Utf8(), DataType::Int64()));
}

TEST(NestedDataType, InvalidParametersAreErrors) {
  EXPECT_FALSE(DataType::MakeFixedSizeList(Field("item", DataType::Int32()), -1).ok());
  EXPECT_FALSE(DataType::MakeMap(Field("entries", DataType::Int32(), false), false).ok());
  auto nullable_key = DataType::MakeMap(
      Field("entries", DataType::Struct({{"k", DataType::Utf8(), true}, {"v", DataType::Int32()}}),
            false),
      false);
  ASSERT_FALSE(nullable_key.ok());
  EXPECT_NE(nullable_key.status().message().find("nullable"), std::string::npos);
}

}  // namespace
}  // namespace shoal::columnar
