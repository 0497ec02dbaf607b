// Value codecs: data types, scalars, schemas and statuses to protobuf (proto/distributed.proto)
// and back. They are the building blocks of every other codec (expressions, plan nodes, tables) and
// of the transports, which ship schemas and statuses on their own.
//
// Decoding treats the bytes as untrusted: an enum value out of range or a literal whose value does
// not fit its type is InvalidData, never a crash.
#pragma once

#include <cstdint>

#include "shoal/columnar/scalar.h"
#include "shoal/columnar/schema.h"
#include "shoal/common/result.h"
#include "shoal/distributed/proto/distributed.pb.h"

namespace shoal::distributed {

/// An enum value read from the wire, checked against the enum's last enumerator before the cast.
template <typename E>
Result<E> CheckedEnum(uint32_t value, E last, const char* what) {
  if (value > static_cast<uint32_t>(last))
    return Status::InvalidData("encoded plan: {} {} is out of range", what, value);
  return static_cast<E>(value);
}

void EncodeType(const columnar::DataType& type, proto::DataTypeProto* out);
/// `depth`: the levels of nested and dictionary types around this one so far (deeply nested types
/// and dictionaries of dictionaries are refused as InvalidData).
Result<columnar::DataType> DecodeType(const proto::DataTypeProto& in, int depth = 0);

void EncodeScalar(const columnar::Scalar& value, proto::ScalarProto* out);
Result<columnar::Scalar> DecodeScalar(const proto::ScalarProto& in);

void EncodeSchema(const columnar::Schema& schema, proto::SchemaProto* out);
Result<columnar::SchemaPtr> DecodeSchema(const proto::SchemaProto& in);

void EncodeStatus(const Status& status, proto::StatusProto* out);
Status DecodeStatus(const proto::StatusProto& in);

}  // namespace shoal::distributed
