// Test data for the Arrow IPC tests (unit tests and the mutation test): schemas with a column of
// every type Shoal's columnar core has, random batches for them (deterministic per seed, with
// nulls, extreme values and multi-byte UTF-8), a routine that reads every value of a batch the
// way a consumer would, and RawStream, which crafts IPC messages by hand with the flatbuffers API
// for what Shoal's writer never produces (other writers' choices, unsupported types, damage).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "shoal/columnar/ipc/format/message_generated.h"
#include "shoal/columnar/ipc/reader.h"
#include "shoal/columnar/ipc/writer.h"
#include "shoal/columnar/record_batch.h"

namespace shoal::columnar::ipc::testing {

/// One field per type: null, boolean, all integers, floats, decimals of 64- and 128-bit storage,
/// date32, timestamps of every unit with and without a time zone, interval, utf8, binary, and
/// dictionary columns (utf8 values with int8 / int32 indices, int64 values with uint16 indices).
/// Field and schema metadata are set; two fields are NOT NULL.
SchemaPtr AllTypesSchema();

/// Every nested shape: list, large list, fixed-size list, struct and map, a list of lists, a list
/// of structs, a struct of a list and a map, a map to lists, and leaves of several types inside
/// (decimals, utf8, dates); one NOT NULL list and one non-nullable item field.
SchemaPtr NestedSchema();

/// A schema of nullable fields c0, c1, ... of the given types.
SchemaPtr SchemaOf(const std::vector<DataType>& types);

class RandomData {
 public:
  explicit RandomData(uint64_t seed, std::shared_ptr<MemoryPool> pool = DefaultMemoryPool())
      : rng_(seed), pool_(std::move(pool)) {}

  /// `length` random values of `type`; each null with probability `null_probability`. Dictionary
  /// types get a fresh random dictionary.
  ArrayPtr Array(const DataType& type, int64_t length, double null_probability);
  /// A dictionary array of `type` over `dictionary` with random indices.
  ArrayPtr DictionaryArray(const DataType& type, const ArrayPtr& dictionary, int64_t length,
                           double null_probability);
  /// A batch of `schema` (NOT NULL fields get no nulls). Nested columns get random list lengths
  /// (empty lists included) and nulls at every level.
  RecordBatchPtr Batch(const SchemaPtr& schema, int64_t rows, double null_probability = 0.2);

  std::mt19937_64& rng() { return rng_; }

 private:
  int64_t Uniform(int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng_);
  }

  std::string RandomString(bool utf8);
  ArrayPtr NestedArray(const DataType& type, int64_t length, double null_probability);
  BufferPtr RandomValidity(int64_t length, double null_probability, int64_t* null_count);

  std::mt19937_64 rng_;
  std::shared_ptr<MemoryPool> pool_;
};

/// Formats every valid value (and decodes every dictionary index) of the batch, as a consumer
/// would; returns a hash of the text so the work cannot be optimised away. Columns longer than
/// `max_rows` are read up to that row.
uint64_t TouchAllValues(const RecordBatch& batch, int64_t max_rows = int64_t{1} << 20);

/// The kinds of the messages of a stream (or of the stream inside a file), in order: "schema",
/// "dictionary", "delta", "batch". For inspecting what a writer produced; expects valid input.
std::vector<std::string> MessageKinds(const std::string& bytes);

/// Writes `batches` with a stream or file writer into memory.
Result<std::string> WriteIpc(const SchemaPtr& schema, const std::vector<RecordBatchPtr>& batches,
                             bool file_format, WriteOptions options = {});

// ------------------------------------------------------------------------------------------------
// Hand-made streams.

namespace fbs = ::shoal::columnar::ipc::flatbuf;

/// A flatbuffers type description of one field, created inside the builder.
using TypeMaker =
    std::function<std::pair<fbs::Type, flatbuffers::Offset<void>>(flatbuffers::FlatBufferBuilder&)>;

inline TypeMaker IntType(int bits, bool is_signed) {
  return [=](flatbuffers::FlatBufferBuilder& b) {
    return std::make_pair(fbs::Type::Int, fbs::CreateInt(b, bits, is_signed).Union());
  };
}

inline TypeMaker Utf8Type() {
  return [](flatbuffers::FlatBufferBuilder& b) {
    return std::make_pair(fbs::Type::Utf8, fbs::CreateUtf8(b).Union());
  };
}

inline TypeMaker DecimalType(int precision, int scale, int bits) {
  return [=](flatbuffers::FlatBufferBuilder& b) {
    return std::make_pair(fbs::Type::Decimal,
                          fbs::CreateDecimal(b, precision, scale, bits).Union());
  };
}

inline TypeMaker Date64Type() {
  return [](flatbuffers::FlatBufferBuilder& b) {
    return std::make_pair(fbs::Type::Date, fbs::CreateDate(b, fbs::DateUnit::MILLISECOND).Union());
  };
}

struct FieldSpec {
  std::string name;
  TypeMaker type;
  bool nullable = true;
  bool dictionary = false;  // int32-indexed, id = dictionary_id
  int64_t dictionary_id = 0;
};

struct BatchSpec {
  int64_t length;
  std::vector<fbs::FieldNode> nodes;
  std::vector<std::string> buffers;  // raw bytes, laid out with 8-byte padding
  const fbs::CompressionType* codec = nullptr;
};

template <typename T>
std::string Bytes(const std::vector<T>& values) {
  return std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T));
}

inline std::string Bits(const std::vector<bool>& bits) {
  std::string out((bits.size() + 7) / 8, '\0');
  for (size_t i = 0; i < bits.size(); ++i) {
    if (bits[i])
      out[i / 8] = static_cast<char>(out[i / 8] | (1 << (i % 8)));
  }
  return out;
}

/// Builds a stream message by message.
class RawStream {
 public:
  /// Pre-1.0 framing: no 0xFFFFFFFF before the metadata length.
  bool legacy_framing = false;
  /// Added to the declared body length of the next message.
  int64_t body_length_delta = 0;
  std::string bytes;

  void Schema(const std::vector<FieldSpec>& fields,
              fbs::Endianness endianness = fbs::Endianness::Little) {
    flatbuffers::FlatBufferBuilder b;
    std::vector<flatbuffers::Offset<fbs::Field>> offsets;
    for (const FieldSpec& f : fields) {
      auto name = b.CreateString(f.name);
      auto [type_type, type] = f.type(b);
      flatbuffers::Offset<fbs::DictionaryEncoding> dictionary = 0;
      if (f.dictionary) {
        dictionary = fbs::CreateDictionaryEncoding(b, f.dictionary_id, fbs::CreateInt(b, 32, true));
      }
      offsets.push_back(fbs::CreateField(b, name, f.nullable, type_type, type, dictionary));
    }
    auto schema = fbs::CreateSchema(b, endianness, b.CreateVector(offsets));
    Message(b, fbs::MessageHeader::Schema, schema.Union(), "");
  }

  void Batch(const BatchSpec& spec) {
    flatbuffers::FlatBufferBuilder b;
    std::string body;
    auto batch = BuildBatch(b, spec, &body);
    Message(b, fbs::MessageHeader::RecordBatch, batch.Union(), body);
  }

  void Dictionary(int64_t id, const BatchSpec& spec, bool is_delta) {
    flatbuffers::FlatBufferBuilder b;
    std::string body;
    auto batch = BuildBatch(b, spec, &body);
    auto dictionary = fbs::CreateDictionaryBatch(b, id, batch, is_delta);
    Message(b, fbs::MessageHeader::DictionaryBatch, dictionary.Union(), body);
  }

  void End() {
    Append<uint32_t>(0xFFFFFFFFu);
    Append<uint32_t>(0);
  }

  Result<ReadAllResult> Read(ReadOptions options = {}) const {
    return ReadAllFromBytes(std::make_shared<const std::string>(bytes), std::move(options));
  }

 private:
  template <typename T>
  void Append(T v) {
    bytes.append(reinterpret_cast<const char*>(&v), sizeof(v));
  }

  static flatbuffers::Offset<fbs::RecordBatch> BuildBatch(flatbuffers::FlatBufferBuilder& b,
                                                          const BatchSpec& spec,
                                                          std::string* body) {
    std::vector<fbs::Buffer> buffers;
    for (const std::string& buf : spec.buffers) {
      buffers.emplace_back(static_cast<int64_t>(body->size()), static_cast<int64_t>(buf.size()));
      *body += buf;
      body->resize((body->size() + 7) / 8 * 8, '\0');
    }
    auto nodes = b.CreateVectorOfStructs(spec.nodes);
    auto buffer_vector = b.CreateVectorOfStructs(buffers);
    flatbuffers::Offset<fbs::BodyCompression> compression = 0;
    if (spec.codec != nullptr)
      compression = fbs::CreateBodyCompression(b, *spec.codec);
    return fbs::CreateRecordBatch(b, spec.length, nodes, buffer_vector, compression);
  }

  void Message(flatbuffers::FlatBufferBuilder& b, fbs::MessageHeader type,
               flatbuffers::Offset<void> header, const std::string& body) {
    auto message = fbs::CreateMessage(b, fbs::MetadataVersion::V5, type, header,
                                      static_cast<int64_t>(body.size()) + body_length_delta);
    body_length_delta = 0;
    b.Finish(message);
    std::string metadata(reinterpret_cast<const char*>(b.GetBufferPointer()), b.GetSize());
    metadata.resize((metadata.size() + 7) / 8 * 8, '\0');
    if (!legacy_framing)
      Append<uint32_t>(0xFFFFFFFFu);
    Append<int32_t>(static_cast<int32_t>(metadata.size()));
    bytes += metadata;
    bytes += body;
  }
};

}  // namespace shoal::columnar::ipc::testing
