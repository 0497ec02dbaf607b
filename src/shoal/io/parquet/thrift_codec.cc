#include "shoal/io/parquet/thrift_codec.h"

#include <algorithm>
#include <climits>
#include <exception>
#include <memory>
#include <typeinfo>

#include <thrift/TConfiguration.h>
#include <thrift/protocol/TCompactProtocol.h>
#include <thrift/transport/TBufferTransports.h>

namespace shoal::io::parquet::internal {

namespace {

using apache::thrift::TConfiguration;
using apache::thrift::protocol::TCompactProtocolT;
using apache::thrift::transport::TMemoryBuffer;

// Nesting in the Parquet metadata is at most ~6 deep (FileMetaData > RowGroup > ColumnChunk >
// ColumnMetaData > Statistics); a small limit stops stack exhaustion from crafted nesting.
constexpr int kRecursionLimit = 32;

// The demangled-enough name of the struct for messages ("N5shoal2io7parquet6format10PageHeaderE"
// would not help a user); typeid gives the mangled name, so keep the part after the last digit run.
std::string StructName(const apache::thrift::TBase& value) {
  std::string name = typeid(value).name();
  size_t end = name.size();
  if (end > 0 && name[end - 1] == 'E')
    --end;
  size_t start = end;
  while (start > 0 && !(name[start - 1] >= '0' && name[start - 1] <= '9'))
    --start;
  return start < end ? name.substr(start, end - start) : name;
}

}  // namespace

Result<size_t> DeserializeThriftBase(const uint8_t* data, size_t size, apache::thrift::TBase* out) {
  if (size > static_cast<size_t>(INT_MAX)) {
    return Status::InvalidData("thrift {} of {} bytes is larger than the 2 GiB limit",
                               StructName(*out), size);
  }
  try {
    // The message size bounds every length the input claims (strings, list element counts) by the
    // bytes that remain, before anything is allocated for it.
    const int limit = std::max<int>(static_cast<int>(size), 1);
    auto config = std::make_shared<TConfiguration>(limit, limit, kRecursionLimit);
    auto buffer = std::make_shared<TMemoryBuffer>(
        const_cast<uint8_t*>(data), static_cast<uint32_t>(size), TMemoryBuffer::OBSERVE, config);
    TCompactProtocolT<TMemoryBuffer> protocol(buffer, limit, limit);
    const uint32_t consumed = out->read(&protocol);
    return static_cast<size_t>(consumed);
  } catch (const std::exception& e) {
    return Status::InvalidData("malformed thrift {} ({} bytes available): {}", StructName(*out),
                               size, e.what());
  } catch (...) {
    return Status::InvalidData("malformed thrift {} ({} bytes available)", StructName(*out), size);
  }
}

Result<std::string> SerializeThriftBase(const apache::thrift::TBase& value) {
  try {
    auto buffer = std::make_shared<TMemoryBuffer>();
    TCompactProtocolT<TMemoryBuffer> protocol(buffer);
    value.write(&protocol);
    return buffer->getBufferAsString();
  } catch (const std::exception& e) {
    return Status::InvalidArgument("cannot serialize thrift {}: {}", StructName(value), e.what());
  } catch (...) {
    return Status::InvalidArgument("cannot serialize thrift {}", StructName(value));
  }
}

}  // namespace shoal::io::parquet::internal
