// The PostgreSQL protocol codec of `shoal server` (src/shoal/server/pg_wire.h, pg_types.h):
// frontend messages as clients send them (bytes written here from the protocol documentation's
// "Message Formats"), malformed ones refused with 08P01, and backend messages byte for byte.
#include "shoal/server/pg_wire.h"

#include <string>

#include <gtest/gtest.h>

#include "shoal/columnar/builder.h"
#include "shoal/server/pg_types.h"

namespace shoal::server {
namespace {

std::string Int32Bytes(int32_t v) {
  MessageWriter w;
  w.Int32(v);
  return w.buffer();
}

std::string Int16Bytes(int16_t v) {
  MessageWriter w;
  w.Int16(v);
  return w.buffer();
}

std::string Str(std::string_view s) {
  return std::string(s) + std::string(1, '\0');
}

TEST(PgWireTest, StartupPacketParameters) {
  std::string body = Int32Bytes(kProtocolVersion3) + Str("user") + Str("alice") + Str("database") +
                     Str("db") + Str("application_name") + Str("psql") + std::string(1, '\0');
  auto packet = ParseStartupPacket(body);
  ASSERT_TRUE(packet.ok()) << packet.status().ToString();
  EXPECT_EQ(packet->kind, StartupPacket::Kind::kStartup);
  EXPECT_EQ(packet->Get("user"), "alice");
  EXPECT_EQ(packet->Get("database"), "db");
  EXPECT_EQ(packet->Get("application_name"), "psql");
  EXPECT_EQ(packet->Get("options"), "");
}

TEST(PgWireTest, SpecialStartupCodes) {
  auto ssl = ParseStartupPacket(Int32Bytes(kSslRequestCode));
  ASSERT_TRUE(ssl.ok());
  EXPECT_EQ(ssl->kind, StartupPacket::Kind::kSslRequest);
  auto gss = ParseStartupPacket(Int32Bytes(kGssEncRequestCode));
  ASSERT_TRUE(gss.ok());
  EXPECT_EQ(gss->kind, StartupPacket::Kind::kGssEncRequest);
  auto cancel = ParseStartupPacket(Int32Bytes(kCancelRequestCode) + Int32Bytes(7) + Int32Bytes(-5));
  ASSERT_TRUE(cancel.ok());
  EXPECT_EQ(cancel->kind, StartupPacket::Kind::kCancelRequest);
  EXPECT_EQ(cancel->cancel_pid, 7);
  EXPECT_EQ(cancel->cancel_key, -5);
}

TEST(PgWireTest, MalformedStartupPackets) {
  // No terminating empty name.
  auto a = ParseStartupPacket(Int32Bytes(kProtocolVersion3) + Str("user") + Str("bob"));
  EXPECT_FALSE(a.ok());
  EXPECT_EQ(a.status().sqlstate(), "08P01");
  // A name without its value.
  EXPECT_FALSE(ParseStartupPacket(Int32Bytes(kProtocolVersion3) + Str("user")).ok());
  // Protocol 2.
  auto v2 = ParseStartupPacket(Int32Bytes(2 << 16) + std::string(1, '\0'));
  EXPECT_FALSE(v2.ok());
  EXPECT_EQ(v2.status().sqlstate(), "0A000");
  // A CancelRequest cut short, an SSLRequest with bytes after it.
  EXPECT_FALSE(ParseStartupPacket(Int32Bytes(kCancelRequestCode) + Int32Bytes(7)).ok());
  EXPECT_FALSE(ParseStartupPacket(Int32Bytes(kSslRequestCode) + "x").ok());
  EXPECT_FALSE(ParseStartupPacket("").ok());
}

TEST(PgWireTest, ParseMessage) {
  auto m = ParseParseMessage(Str("s1") + Str("select $1") + Int16Bytes(1) + Int32Bytes(23));
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->statement, "s1");
  EXPECT_EQ(m->query, "select $1");
  ASSERT_EQ(m->parameter_types.size(), 1u);
  EXPECT_EQ(m->parameter_types[0], 23u);
  // A count larger than the bytes left, a negative count, trailing bytes.
  EXPECT_FALSE(ParseParseMessage(Str("") + Str("x") + Int16Bytes(1000)).ok());
  EXPECT_FALSE(ParseParseMessage(Str("") + Str("x") + Int16Bytes(-1)).ok());
  EXPECT_FALSE(ParseParseMessage(Str("") + Str("x") + Int16Bytes(0) + "z").ok());
}

TEST(PgWireTest, BindMessage) {
  std::string body = Str("p") + Str("s") + Int16Bytes(1) + Int16Bytes(1) + Int16Bytes(2) +
                     Int32Bytes(4) + Int32Bytes(42) + Int32Bytes(-1) + Int16Bytes(1) +
                     Int16Bytes(1);
  auto m = ParseBindMessage(body);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->portal, "p");
  EXPECT_EQ(m->statement, "s");
  ASSERT_EQ(m->parameters.size(), 2u);
  EXPECT_EQ(*m->parameters[0], Int32Bytes(42));
  EXPECT_FALSE(m->parameters[1].has_value());
  EXPECT_EQ(m->result_formats, std::vector<int16_t>{1});
  // A value length past the end, a negative length other than -1, a format code 2, and two
  // parameter formats for one parameter.
  EXPECT_FALSE(
      ParseBindMessage(Str("") + Str("") + Int16Bytes(0) + Int16Bytes(1) + Int32Bytes(100) + "ab")
          .ok());
  EXPECT_FALSE(ParseBindMessage(Str("") + Str("") + Int16Bytes(0) + Int16Bytes(1) + Int32Bytes(-2) +
                                Int16Bytes(0))
                   .ok());
  EXPECT_FALSE(ParseBindMessage(Str("") + Str("") + Int16Bytes(1) + Int16Bytes(2) + Int16Bytes(0) +
                                Int16Bytes(0))
                   .ok());
  auto mismatch = ParseBindMessage(Str("") + Str("") + Int16Bytes(2) + Int16Bytes(0) +
                                   Int16Bytes(0) + Int16Bytes(1) + Int32Bytes(-1) + Int16Bytes(0));
  ASSERT_FALSE(mismatch.ok());
  EXPECT_EQ(mismatch.status().sqlstate(), "08P01");
}

TEST(PgWireTest, DescribeExecuteQuery) {
  auto d = ParseTargetMessage("P" + Str("cur"), "Describe");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->kind, 'P');
  EXPECT_EQ(d->name, "cur");
  EXPECT_FALSE(ParseTargetMessage("X" + Str("cur"), "Describe").ok());
  auto e = ParseExecuteMessage(Str("cur") + Int32Bytes(100));
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->max_rows, 100);
  EXPECT_FALSE(ParseExecuteMessage(Str("cur") + "ab").ok());
  auto q = ParseQueryMessage(Str("select 1"));
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(*q, "select 1");
  EXPECT_FALSE(ParseQueryMessage("select 1").ok());  // no NUL
  // Not UTF-8: 22021, as PostgreSQL's "invalid byte sequence for encoding".
  auto latin1 = ParseQueryMessage(Str("select '\xe9'"));
  ASSERT_FALSE(latin1.ok());
  EXPECT_EQ(latin1.status().sqlstate(), "22021");
  EXPECT_EQ(ParseParseMessage(Str("") + Str("select '\xff'") + Int16Bytes(0)).status().sqlstate(),
            "22021");
}

TEST(PgWireTest, BackendMessagesByteForByte) {
  MessageWriter w;
  WriteReadyForQuery(w, 'I');
  EXPECT_EQ(w.buffer(), std::string("Z\0\0\0\x05I", 6));
  w.Clear();
  WriteCommandComplete(w, "SELECT 1");
  EXPECT_EQ(w.buffer(), std::string("C\0\0\0\x0dSELECT 1\0", 14));
  w.Clear();
  WriteParameterStatus(w, "a", "b");
  EXPECT_EQ(w.buffer(), std::string("S\0\0\0\x08"
                                    "a\0b\0",
                                    9));
  w.Clear();
  WriteErrorResponse(w, Status::InvalidArgument("bad").WithSqlState("22023").WithPosition(3));
  EXPECT_EQ(w.buffer(), std::string("E\0\0\0\x22"
                                    "SERROR\0VERROR\0C22023\0Mbad\0P3\0\0",
                                    35));
}

TEST(PgWireTest, NumericBinary) {
  // 12345.678: weight 1, digits 1 2345 6780, dscale 3.
  EXPECT_EQ(NumericBinaryFromText("12345.678"), Int16Bytes(3) + Int16Bytes(1) + Int16Bytes(0) +
                                                    Int16Bytes(3) + Int16Bytes(1) +
                                                    Int16Bytes(2345) + Int16Bytes(6780));
  // -0.0001: weight -1, one digit 1, negative, dscale 4.
  EXPECT_EQ(NumericBinaryFromText("-0.0001"),
            Int16Bytes(1) + Int16Bytes(-1) + Int16Bytes(0x4000) + Int16Bytes(4) + Int16Bytes(1));
  // Zero with a scale: no digits, dscale kept.
  EXPECT_EQ(NumericBinaryFromText("0.00"),
            Int16Bytes(0) + Int16Bytes(0) + Int16Bytes(0) + Int16Bytes(2));
  // 10000: one digit 1 of weight 1 (the trailing zero digit is dropped).
  EXPECT_EQ(NumericBinaryFromText("10000"),
            Int16Bytes(1) + Int16Bytes(1) + Int16Bytes(0) + Int16Bytes(0) + Int16Bytes(1));
}

TEST(PgWireTest, DataRowTextAndBinary) {
  columnar::Int32Builder ints(columnar::DataType::Int32(), DefaultMemoryPool());
  ASSERT_TRUE(ints.Append(7).ok());
  ASSERT_TRUE(ints.AppendNull().ok());
  auto ints_array = ints.Finish();
  ASSERT_TRUE(ints_array.ok());
  auto schema = std::make_shared<columnar::Schema>(
      std::vector<columnar::Field>{columnar::Field("i", columnar::DataType::Int32(), true)});
  auto batch = columnar::RecordBatch::Make(schema, 2, {*ints_array});
  MessageWriter text;
  WriteDataRows(text, *batch, 0, 2, {});
  EXPECT_EQ(text.buffer(), std::string("D\0\0\0\x0b\0\x01\0\0\0\x01"
                                       "7"
                                       "D\0\0\0\x0a\0\x01\xff\xff\xff\xff",
                                       23));
  MessageWriter binary;
  WriteDataRows(binary, *batch, 0, 1, {1});
  EXPECT_EQ(binary.buffer(), std::string("D\0\0\0\x0e\0\x01\0\0\0\x04\0\0\0\x07", 15));
  MessageWriter description;
  WriteRowDescription(description, *schema, {1});
  EXPECT_EQ(
      description.buffer(),
      std::string("T\0\0\0\x1a\0\x01i\0\0\0\0\0\0\0\0\0\0\x17\0\x04\xff\xff\xff\xff\0\x01", 27));
}

// Arrays: PostgreSQL's array OIDs in RowDescription, array_out's text and array_send's binary
// form (ndim, has-nulls flag, element OID, length and lower bound per dimension, then each
// element's length or -1 and bytes), as psycopg decodes them.
TEST(PgWireTest, ArraysAsPostgresSendsThem) {
  using columnar::DataType;
  const DataType type = DataType::List(DataType::Int32());
  columnar::ListBuilder lists(type, DefaultMemoryPool());
  auto* items = static_cast<columnar::Int32Builder*>(lists.value_builder());
  ASSERT_TRUE(lists.Append().ok());
  ASSERT_TRUE(items->Append(1).ok());
  ASSERT_TRUE(items->AppendNull().ok());
  ASSERT_TRUE(lists.Append().ok());  // {}
  auto array = lists.Finish();
  ASSERT_TRUE(array.ok());
  EXPECT_EQ(PgTypeOf(type).oid, 1007u);
  EXPECT_EQ(PgTypeOf(DataType::List(DataType::Utf8())).oid, 1009u);
  EXPECT_EQ(PgTypeOf(DataType::List(DataType::List(DataType::Int64()))).oid, 1016u);
  EXPECT_EQ(PgTypeOf(DataType::Struct({columnar::Field("a", DataType::Int32())})).oid, 2249u);
  std::string out;
  AppendBinaryValue(**array, 0, &out);
  EXPECT_EQ(out, Int32Bytes(1) + Int32Bytes(1) + Int32Bytes(23) + Int32Bytes(2) + Int32Bytes(1) +
                     Int32Bytes(4) + Int32Bytes(1) + Int32Bytes(-1));
  out.clear();
  AppendBinaryValue(**array, 1, &out);
  EXPECT_EQ(out, Int32Bytes(0) + Int32Bytes(0) + Int32Bytes(23));
}

}  // namespace
}  // namespace shoal::server
