#include "shoal/columnar/ipc/array_loader_internal.h"

#include <cstring>
#include <limits>

#include "shoal/columnar/bitmap.h"
#include "shoal/columnar/decimal.h"
#include "shoal/columnar/ipc/message_internal.h"

namespace shoal::columnar::ipc::internal {
namespace {

// Row counts beyond this are corrupt; it keeps every byte-size product far from overflow. Equal to
// the bound Array::Validate applies.
constexpr int64_t kMaxRows = int64_t{1} << 40;
constexpr int64_t kMillisPerDay = 86'400'000;

// Alignment the values buffer needs so that typed access to it is well-defined.
int64_t ValueAlignment(const DataType& type) {
  switch (type.id()) {
    case TypeId::kDecimal:
      return type.bit_width() == 128 ? static_cast<int64_t>(alignof(int128_t)) : 8;
    case TypeId::kInterval: return static_cast<int64_t>(alignof(MonthDayNano));
    case TypeId::kBoolean: return 1;
    default: return type.byte_width() > 0 ? type.byte_width() : 1;
  }
}

// Checks the values of a structurally valid utf8 array in one pass over its data instead of one
// call per value: the concatenation must be valid UTF-8 and no value may start inside a multi-byte
// character, which together hold exactly when every value is valid on its own.
Status CheckUtf8(const Array& array) {
  const int64_t n = array.length();
  if (n == 0)
    return Status::OK();
  const int32_t* o = array.offsets();
  const uint8_t* data = array.string_data();
  const int64_t begin = o[0];
  const int64_t end = o[n];
  if (end == begin)
    return Status::OK();
  auto find_bad_row = [&] {
    for (int64_t i = 0; i < n; ++i) {
      if (!IsValidUtf8(data + o[i], o[i + 1] - o[i]))
        return i;
    }
    return int64_t{0};
  };
  if (!IsValidUtf8(data + begin, end - begin)) {
    return Status::InvalidData("utf8 column holds invalid UTF-8 at row {}", find_bad_row());
  }
  for (int64_t i = 1; i < n; ++i) {
    if (o[i] < end && (data[o[i]] & 0xC0) == 0x80) {
      return Status::InvalidData("utf8 column holds invalid UTF-8 at row {}", find_bad_row());
    }
  }
  return Status::OK();
}

}  // namespace

struct ArrayLoader::Context {
  const flatbuffers::Vector<const fb::Buffer*>* buffers = nullptr;
  const BufferPtr& body;
  Codec* codec = nullptr;
  int buffer_index = 0;
  const flatbuffers::Vector<const fb::FieldNode*>* nodes = nullptr;
  int node_index = 0;
};

Result<Codec*> ArrayLoader::GetCodec(Compression compression) {
  std::unique_ptr<Codec>& codec = compression == Compression::kLz4Frame ? lz4_ : zstd_;
  if (codec == nullptr) {
    SHOAL_ASSIGN_OR_RETURN(codec, Codec::Make(compression));
  }
  return codec.get();
}

Result<BufferPtr> ArrayLoader::GetBuffer(Context& ctx, int64_t alignment) {
  const int index = ctx.buffer_index++;
  const fb::Buffer b = StructAt(ctx.buffers, static_cast<flatbuffers::uoffset_t>(index));
  const int64_t offset = b.offset();
  const int64_t length = b.length();
  const int64_t body_size = ctx.body->size();
  if (offset < 0 || length < 0 || offset > body_size || length > body_size - offset) {
    return Status::InvalidData("buffer {} [offset {}, length {}] lies outside the {}-byte body",
                               index, offset, length, body_size);
  }
  if (ctx.codec == nullptr || length == 0) {
    return EnsureAligned(Buffer::Slice(ctx.body, offset, length), alignment, pool_);
  }
  if (length < 8) {
    return Status::InvalidData(
        "compressed buffer {} has {} bytes, fewer than its 8-byte uncompressed-length prefix",
        index, length);
  }
  int64_t uncompressed;
  std::memcpy(&uncompressed, ctx.body->data() + offset, 8);
  const int64_t payload = length - 8;
  if (uncompressed == -1) {
    return EnsureAligned(Buffer::Slice(ctx.body, offset + 8, payload), alignment, pool_);
  }
  if (uncompressed < 0) {
    return Status::InvalidData("compressed buffer {} declares a negative size {}", index,
                               uncompressed);
  }
  const int64_t bound = ctx.codec->MaxDecompressedSize(payload);
  if (uncompressed > bound) {
    return Status::InvalidData(
        "compressed buffer {} declares {} bytes uncompressed, but {} bytes of {} data can hold at "
        "most {}",
        index, uncompressed, payload, CompressionName(ctx.codec->compression()), bound);
  }
  const uint8_t* compressed = ctx.body->data() + offset + 8;
  Status st = ctx.codec->CheckFrameHeader(compressed, payload, uncompressed);
  if (!st.ok())
    return std::move(st).WithContext(fmt::format("decompressing buffer {}", index));
  SHOAL_ASSIGN_OR_RETURN(BufferPtr out, Buffer::Allocate(uncompressed, pool_));
  st = ctx.codec->Decompress(ctx.body->data() + offset + 8, payload, out->mutable_data(),
                             uncompressed);
  if (!st.ok())
    return std::move(st).WithContext(fmt::format("decompressing buffer {}", index));
  return out;
}

Result<BufferPtr> ArrayLoader::GetValidity(Context& ctx, int64_t length, int64_t null_count) {
  SHOAL_ASSIGN_OR_RETURN(BufferPtr bits, GetBuffer(ctx, 1));
  // With no nulls the bitmap may be omitted, and when present it carries no information.
  if (null_count == 0)
    return BufferPtr();
  if (bits->size() < bitmap::BytesForBits(length)) {
    return Status::InvalidData("validity bitmap of {} bytes is too short for {} rows", bits->size(),
                               length);
  }
  const int64_t counted = length - bitmap::CountSetBits(bits->data(), 0, length);
  if (counted != null_count) {
    return Status::InvalidData("the field node says {} nulls but the validity bitmap has {}",
                               null_count, counted);
  }
  return bits;
}

Result<ArrayPtr> ArrayLoader::LoadColumn(Context& ctx, const ColumnSpec& spec,
                                         const fb::FieldNode& node) {
  const DataType& type = spec.type;
  const int64_t length = node.length();
  const int64_t null_count = node.null_count();
  if (type.id() == TypeId::kNull)
    return Array::Make(type, length, {});

  std::vector<BufferPtr> buffers;
  buffers.reserve(3);
  SHOAL_ASSIGN_OR_RETURN(BufferPtr validity, GetValidity(ctx, length, null_count));
  if (type.is_nested())
    return LoadNested(ctx, spec, node, std::move(validity));
  buffers.push_back(validity);

  if (type.is_binary_like()) {
    SHOAL_ASSIGN_OR_RETURN(BufferPtr offsets, GetBuffer(ctx, 4));
    SHOAL_ASSIGN_OR_RETURN(BufferPtr data, GetBuffer(ctx, 1));
    if (length == 0 && offsets->size() == 0) {
      offsets =
          Buffer::Wrap(reinterpret_cast<const uint8_t*>(kZeroOffset), sizeof(kZeroOffset), nullptr);
    }
    buffers.push_back(std::move(offsets));
    buffers.push_back(std::move(data));
  } else if (type.id() == TypeId::kDecimal && spec.encoding != WireEncoding::kSame) {
    // Wire decimals of another width become Shoal's int64 decimals, value by value.
    const bool narrow = spec.encoding == WireEncoding::kDecimal128As64;
    const int64_t wire_width = narrow ? 16 : 4;
    SHOAL_ASSIGN_OR_RETURN(BufferPtr wire, GetBuffer(ctx, 1));
    if (wire->size() < length * wire_width) {
      return Status::InvalidData("values buffer of {} bytes is too short for {} {}-bit decimals",
                                 wire->size(), length, wire_width * 8);
    }
    SHOAL_ASSIGN_OR_RETURN(BufferPtr values, Buffer::Allocate(length * 8, pool_));
    auto* out = values->mutable_data_as<int64_t>();
    const uint8_t* in = wire->data();
    const uint8_t* valid = validity ? validity->data() : nullptr;
    if (narrow) {
      for (int64_t i = 0; i < length; ++i) {
        int128_t v;
        std::memcpy(&v, in + i * 16, 16);
        const auto low = static_cast<int64_t>(v);
        if (low != v && (valid == nullptr || bitmap::GetBit(valid, i))) {
          return Status::InvalidData(
              "decimal({},{}) value {} at row {} needs more than the declared precision",
              type.precision(), type.scale(), Int128ToString(v), i);
        }
        out[i] = low;
      }
    } else {
      for (int64_t i = 0; i < length; ++i) {
        int32_t v;
        std::memcpy(&v, in + i * 4, 4);
        out[i] = v;
      }
    }
    buffers.push_back(std::move(values));
  } else if (type.id() == TypeId::kDate32 && spec.encoding == WireEncoding::kDate64AsDate32) {
    SHOAL_ASSIGN_OR_RETURN(BufferPtr wire, GetBuffer(ctx, 1));
    if (wire->size() < length * 8) {
      return Status::InvalidData("values buffer of {} bytes is too short for {} date64 values",
                                 wire->size(), length);
    }
    SHOAL_ASSIGN_OR_RETURN(BufferPtr values, Buffer::Allocate(length * 4, pool_));
    auto* out = values->mutable_data_as<int32_t>();
    const uint8_t* valid = validity ? validity->data() : nullptr;
    for (int64_t i = 0; i < length; ++i) {
      int64_t ms;
      std::memcpy(&ms, wire->data() + i * 8, 8);
      // Floor division, so that instants before 1970 land on the day that contains them.
      int64_t days = ms / kMillisPerDay - (ms % kMillisPerDay < 0 ? 1 : 0);
      if (days < std::numeric_limits<int32_t>::min() ||
          days > std::numeric_limits<int32_t>::max()) {
        if (valid == nullptr || bitmap::GetBit(valid, i)) {
          return Status::InvalidData("date64 value {} at row {} is outside the date32 range", ms,
                                     i);
        }
        days = 0;
      }
      out[i] = static_cast<int32_t>(days);
    }
    buffers.push_back(std::move(values));
  } else {
    SHOAL_ASSIGN_OR_RETURN(BufferPtr values, GetBuffer(ctx, ValueAlignment(type)));
    buffers.push_back(std::move(values));
  }

  ArrayPtr array = Array::Make(type, length, std::move(buffers), null_count, 0, spec.dictionary);
  // Structure first (offsets within the data); then UTF-8 over the whole data range at once. A
  // dictionary's values had their UTF-8 checked when the dictionary batch was loaded.
  SHOAL_RETURN_IF_ERROR(array->Validate(check_utf8_ && type.id() != TypeId::kUtf8 &&
                                        type.id() != TypeId::kDictionary));
  if (check_utf8_ && type.id() == TypeId::kUtf8)
    SHOAL_RETURN_IF_ERROR(CheckUtf8(*array));
  return array;
}

Result<ArrayPtr> ArrayLoader::LoadNested(Context& ctx, const ColumnSpec& spec,
                                         const fb::FieldNode& node, BufferPtr validity) {
  const DataType& type = spec.type;
  const int64_t length = node.length();
  std::vector<BufferPtr> buffers;
  buffers.push_back(std::move(validity));
  if (type.is_list_like()) {
    const bool large = type.id() == TypeId::kLargeList;
    SHOAL_ASSIGN_OR_RETURN(BufferPtr offsets, GetBuffer(ctx, large ? 8 : 4));
    if (length == 0 && offsets->size() == 0) {
      static constexpr int64_t kZero[1] = {0};
      offsets = Buffer::Wrap(reinterpret_cast<const uint8_t*>(kZero), sizeof(kZero), nullptr);
    }
    buffers.push_back(std::move(offsets));
  }
  const int num_fields = type.num_fields();
  if (spec.children == nullptr || static_cast<int>(spec.children->size()) != num_fields)
    return Status::Internal("nested column of type {} without child encodings", type.ToString());
  std::vector<ArrayPtr> children;
  children.reserve(static_cast<size_t>(num_fields));
  for (int c = 0; c < num_fields; ++c) {
    const Field& field = type.field(c);
    const FieldEncoding& encoding = (*spec.children)[static_cast<size_t>(c)];
    ColumnSpec child_spec;
    child_spec.field = &field;
    child_spec.type = field.type;
    child_spec.encoding = encoding.values;
    child_spec.children = &encoding.children;
    const fb::FieldNode child_node =
        StructAt(ctx.nodes, static_cast<flatbuffers::uoffset_t>(ctx.node_index++));
    if (child_node.length() < 0 || child_node.length() > kMaxRows || child_node.null_count() < 0 ||
        child_node.null_count() > child_node.length()) {
      return Status::InvalidData("child '{}' of {} has a field node of {} rows and {} nulls",
                                 field.name, type.ToString(), child_node.length(),
                                 child_node.null_count());
    }
    auto child = LoadColumn(ctx, child_spec, child_node);
    if (!child.ok()) {
      return std::move(child).status().WithContext(
          fmt::format("child '{}' ({})", field.name, field.type.ToString()));
    }
    children.push_back(std::move(child).MoveValueUnsafe());
  }
  ArrayPtr array =
      Array::MakeNested(type, length, std::move(buffers), std::move(children), node.null_count());
  // The children were validated as they were loaded (UTF-8 included); this checks the offsets,
  // the child lengths and the map keys, and the children's structure once more.
  SHOAL_RETURN_IF_ERROR(array->Validate(false));
  return array;
}

Result<std::vector<ArrayPtr>> ArrayLoader::Load(const fb::RecordBatch* batch, const BufferPtr& body,
                                                const std::vector<ColumnSpec>& columns,
                                                int64_t* num_rows) {
  if (batch == nullptr)
    return Status::InvalidData("the message has no record batch metadata");
  const int64_t length = batch->length();
  if (length < 0 || length > kMaxRows)
    return Status::InvalidData("impossible record batch length {}", length);
  const auto* nodes = batch->nodes();
  const int64_t num_nodes = nodes ? nodes->size() : 0;
  int64_t expected_nodes = 0;
  int64_t expected_buffers = 0;
  for (const ColumnSpec& c : columns) {
    expected_nodes += NumFieldNodes(c.type);
    expected_buffers += NumBuffers(c.type);
  }
  if (num_nodes != expected_nodes) {
    return Status::InvalidData("the batch has {} field nodes where its {} columns need {}",
                               num_nodes, columns.size(), expected_nodes);
  }
  const auto* buffers = batch->buffers();
  const int64_t num_buffers = buffers ? buffers->size() : 0;
  if (num_buffers != expected_buffers) {
    return Status::InvalidData("the batch has {} buffers where its {} columns need {}", num_buffers,
                               columns.size(), expected_buffers);
  }
  Codec* codec = nullptr;
  if (const fb::BodyCompression* compression = batch->compression()) {
    if (compression->method() != fb::BodyCompressionMethod::BUFFER) {
      return Status::InvalidData("unknown body compression method {}",
                                 static_cast<int>(compression->method()));
    }
    switch (compression->codec()) {
      case fb::CompressionType::LZ4_FRAME: {
        SHOAL_ASSIGN_OR_RETURN(codec, GetCodec(Compression::kLz4Frame));
        break;
      }
      case fb::CompressionType::ZSTD: {
        SHOAL_ASSIGN_OR_RETURN(codec, GetCodec(Compression::kZstd));
        break;
      }
      default:
        return Status::InvalidData("unknown body compression codec {}",
                                   static_cast<int>(compression->codec()));
    }
  }

  Context ctx{buffers, body, codec, 0, nodes, 0};
  std::vector<ArrayPtr> arrays;
  arrays.reserve(columns.size());
  for (size_t i = 0; i < columns.size(); ++i) {
    const ColumnSpec& spec = columns[i];
    const fb::FieldNode node =
        StructAt(nodes, static_cast<flatbuffers::uoffset_t>(ctx.node_index++));
    auto fail = [&](Status st) {
      return std::move(st).WithContext(
          fmt::format("column {} '{}' ({})", i, spec.field->name, spec.type.ToString()));
    };
    if (node.length() != length) {
      return fail(Status::InvalidData("the field node has {} rows but the batch {}", node.length(),
                                      length));
    }
    if (node.null_count() < 0 || node.null_count() > length) {
      return fail(
          Status::InvalidData("impossible null count {} for {} rows", node.null_count(), length));
    }
    if (!spec.field->nullable && node.null_count() > 0 && spec.type.id() != TypeId::kNull) {
      return fail(Status::InvalidData("the column is declared NOT NULL but holds {} nulls",
                                      node.null_count()));
    }
    auto array = LoadColumn(ctx, spec, node);
    if (!array.ok())
      return fail(std::move(array).status());
    arrays.push_back(std::move(array).MoveValueUnsafe());
  }
  *num_rows = length;
  return arrays;
}

}  // namespace shoal::columnar::ipc::internal
