// Value codecs (type_codec.h): nested types and values cross the wire whole, and malformed nested
// types from outside bytes are refused.
#include "shoal/distributed/codec/type_codec.h"

#include <gtest/gtest.h>

#include "shoal/columnar/pretty_print.h"
#include "tests/support/gtest_util.h"
#include "tests/unit/columnar/ipc_test_data.h"

namespace shoal::distributed {
namespace {

using columnar::DataType;

TEST(TypeCodecTest, EveryNestedShapeRoundTripsWithNamesNullabilityAndMetadata) {
  columnar::SchemaPtr schema = columnar::ipc::testing::NestedSchema();
  proto::SchemaProto encoded;
  EncodeSchema(*schema, &encoded);
  // Through bytes, as a worker receives it.
  proto::SchemaProto received;
  ASSERT_TRUE(received.ParseFromString(encoded.SerializeAsString()));
  ASSERT_OK_AND_ASSIGN(columnar::SchemaPtr decoded, DecodeSchema(received));
  ASSERT_EQ(decoded->num_fields(), schema->num_fields());
  for (int i = 0; i < schema->num_fields(); ++i) {
    EXPECT_EQ(decoded->field(i), schema->field(i)) << schema->field(i).ToString();
    // Type equality ignores item field names; the wire keeps them anyway.
    EXPECT_EQ(decoded->field(i).type.field(0).name, schema->field(i).type.field(0).name);
  }
  proto::DataTypeProto sorted_map;
  EncodeType(DataType::Map(DataType::Utf8(), DataType::Int32(), /*keys_sorted=*/true), &sorted_map);
  ASSERT_OK_AND_ASSIGN(DataType map, DecodeType(sorted_map));
  EXPECT_TRUE(map.keys_sorted());
}

TEST(TypeCodecTest, NestedValuesRoundTrip) {
  columnar::ipc::testing::RandomData random(11);
  columnar::RecordBatchPtr batch = random.Batch(columnar::ipc::testing::NestedSchema(), 8, 0.2);
  int values = 0;
  for (int c = 0; c < batch->num_columns(); ++c) {
    for (int64_t r = 0; r < batch->num_rows(); ++r) {
      columnar::Scalar value = columnar::Scalar::FromArray(*batch->column(c), r);
      proto::ScalarProto encoded;
      EncodeScalar(value, &encoded);
      ASSERT_OK_AND_ASSIGN(columnar::Scalar decoded, DecodeScalar(encoded));
      EXPECT_EQ(decoded, value) << batch->schema()->field(c).name << " row " << r;
      values += !value.is_null();
    }
  }
  EXPECT_GT(values, 40);
}

TEST(TypeCodecTest, MalformedNestedTypesAndValuesAreInvalidData) {
  auto list_id = static_cast<uint32_t>(columnar::TypeId::kList);
  auto int_id = static_cast<uint32_t>(columnar::TypeId::kInt32);
  proto::DataTypeProto childless;
  childless.set_id(list_id);
  EXPECT_EQ(DecodeType(childless).status().code(), StatusCode::kInvalidData);

  proto::DataTypeProto two_items = childless;
  for (int i = 0; i < 2; ++i)
    two_items.add_children()->mutable_type()->set_id(int_id);
  EXPECT_EQ(DecodeType(two_items).status().code(), StatusCode::kInvalidData);

  proto::DataTypeProto negative_size;
  negative_size.set_id(static_cast<uint32_t>(columnar::TypeId::kFixedSizeList));
  negative_size.set_list_size(-3);
  negative_size.add_children()->mutable_type()->set_id(int_id);
  EXPECT_FALSE(DecodeType(negative_size).ok());

  // A map whose entries are not a struct of a key and a value.
  proto::DataTypeProto bad_map;
  bad_map.set_id(static_cast<uint32_t>(columnar::TypeId::kMap));
  bad_map.add_children()->mutable_type()->set_id(int_id);
  EXPECT_EQ(DecodeType(bad_map).status().code(), StatusCode::kInvalidData);

  // Nested far deeper than any real type: refused before the recursion gets deep.
  proto::DataTypeProto deep;
  proto::DataTypeProto* level = &deep;
  for (int i = 0; i < 90; ++i) {
    level->set_id(list_id);
    level = level->add_children()->mutable_type();
  }
  level->set_id(int_id);
  auto decoded = DecodeType(deep);
  ASSERT_FALSE(decoded.ok());
  EXPECT_EQ(decoded.status().code(), StatusCode::kInvalidData);
  EXPECT_NE(decoded.status().message().find("nested deeper"), std::string::npos);

  // A list literal whose bytes are not one value of its type.
  proto::ScalarProto literal;
  EncodeType(DataType::List(DataType::Int32()), literal.mutable_type());
  literal.set_nested_value("not an IPC stream");
  EXPECT_EQ(DecodeScalar(literal).status().code(), StatusCode::kInvalidData);
  literal.set_int_value(3);
  EXPECT_EQ(DecodeScalar(literal).status().code(), StatusCode::kInvalidData);
}

}  // namespace
}  // namespace shoal::distributed
