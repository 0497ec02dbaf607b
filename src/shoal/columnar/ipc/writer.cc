// Arrow IPC stream and file writers (writer.h).
#include "shoal/columnar/ipc/writer.h"

#include <cstring>
#include <limits>
#include <unordered_map>
#include <vector>

#include "shoal/columnar/ipc/body_encoder_internal.h"
#include "shoal/columnar/ipc/compression_internal.h"
#include "shoal/columnar/ipc/metadata_internal.h"

namespace shoal::columnar::ipc {
namespace {

using internal::BodyEncoder;
using internal::Codec;
using internal::IpcSchema;
using internal::PadTo8;
namespace fb = internal::fb;

constexpr uint8_t kZeros[8] = {};

class IpcWriter : public RecordBatchWriter {
 public:
  IpcWriter(OutputSink* sink, IpcSchema schema, WriteOptions options, bool file_format,
            std::unique_ptr<Codec> codec)
      : sink_(sink),
        schema_(std::move(schema)),
        options_(std::move(options)),
        file_format_(file_format),
        codec_(std::move(codec)),
        body_(options_.pool, codec_.get()),
        start_(sink->position()) {}

  Status Start() {
    if (file_format_) {
      uint8_t header[internal::kFileHeaderSize] = {};
      std::memcpy(header, internal::kFileMagic, internal::kFileMagicSize);
      SHOAL_RETURN_IF_ERROR(sink_->Write(header, sizeof(header)));
    }
    fbb_.Clear();
    auto schema = internal::BuildSchema(&fbb_, schema_);
    internal::FinishMessage(&fbb_, fb::MessageHeader::Schema, schema.Union(), 0);
    fb::Block block;
    return WriteMessage(nullptr, &block);
  }

  Status WriteBatch(const RecordBatch& batch) override {
    if (closed_)
      return Status::InvalidArgument("WriteBatch on an Arrow IPC writer that is already closed");
    SHOAL_RETURN_IF_ERROR(CheckBatch(batch));
    SHOAL_RETURN_IF_ERROR(WriteDictionaries(batch));

    body_.Reset();
    for (int i = 0; i < batch.num_columns(); ++i) {
      const internal::FieldEncoding& encoding = schema_.fields[static_cast<size_t>(i)];
      SHOAL_RETURN_IF_ERROR(body_.AddColumn(*batch.column(i), encoding.values, &encoding.children));
    }
    SHOAL_RETURN_IF_ERROR(body_.Finish());
    fbb_.Clear();
    auto record_batch = BuildRecordBatch(batch.num_rows());
    internal::FinishMessage(&fbb_, fb::MessageHeader::RecordBatch, record_batch.Union(),
                            body_.body_length());
    fb::Block block;
    SHOAL_RETURN_IF_ERROR(WriteMessage(&body_, &block));
    if (file_format_)
      record_blocks_.push_back(block);
    ++num_batches_;
    return Status::OK();
  }

  Status Close() override {
    if (closed_)
      return Status::OK();
    closed_ = true;
    // End-of-stream marker: continuation and a zero metadata length.
    const uint32_t eos[2] = {internal::kContinuation, 0};
    SHOAL_RETURN_IF_ERROR(sink_->Write(reinterpret_cast<const uint8_t*>(eos), sizeof(eos)));
    if (file_format_) {
      fbb_.Clear();
      auto schema = internal::BuildSchema(&fbb_, schema_);
      auto dictionaries = fbb_.CreateVectorOfStructs(dictionary_blocks_);
      auto records = fbb_.CreateVectorOfStructs(record_blocks_);
      auto footer = fb::CreateFooter(fbb_, fb::MetadataVersion::V5, schema, dictionaries, records);
      fbb_.Finish(footer);
      const auto size = static_cast<int32_t>(fbb_.GetSize());
      SHOAL_RETURN_IF_ERROR(sink_->Write(fbb_.GetBufferPointer(), size));
      SHOAL_RETURN_IF_ERROR(sink_->Write(reinterpret_cast<const uint8_t*>(&size), 4));
      SHOAL_RETURN_IF_ERROR(sink_->Write(reinterpret_cast<const uint8_t*>(internal::kFileMagic),
                                         internal::kFileMagicSize));
    }
    return sink_->Close();
  }

 private:
  Status CheckBatch(const RecordBatch& batch) const {
    const Schema& schema = *schema_.schema;
    if (batch.num_columns() != schema.num_fields()) {
      return Status::InvalidArgument(
          "the batch has {} columns but the Arrow IPC writer's schema has {} fields",
          batch.num_columns(), schema.num_fields());
    }
    if (batch.schema().get() != &schema) {
      for (int i = 0; i < schema.num_fields(); ++i) {
        const Field& a = schema.field(i);
        const Field& b = batch.schema()->field(i);
        if (a.name != b.name || a.type != b.type || a.nullable != b.nullable) {
          return Status::InvalidArgument(
              "the batch's schema ({}) does not match the Arrow IPC writer's ({}) at field {}",
              batch.schema()->ToString(), schema.ToString(), i);
        }
      }
    }
    for (int i = 0; i < schema.num_fields(); ++i) {
      const Field& f = schema.field(i);
      const Array& c = *batch.column(i);
      if (c.type() != f.type) {
        return Status::InvalidArgument("column '{}' has type {} but its field says {}", f.name,
                                       c.type().ToString(), f.type.ToString());
      }
      if (c.length() != batch.num_rows()) {
        return Status::InvalidArgument("column '{}' has {} rows but the batch has {}", f.name,
                                       c.length(), batch.num_rows());
      }
      if (!f.nullable && c.null_count() > 0 && c.type_id() != TypeId::kNull) {
        return Status::InvalidArgument("column '{}' is declared NOT NULL but holds {} nulls",
                                       f.name, c.null_count());
      }
      if (c.type_id() == TypeId::kDictionary && c.dictionary() == nullptr)
        return Status::InvalidArgument("dictionary column '{}' has no dictionary", f.name);
    }
    return Status::OK();
  }

  // Sends each dictionary column's dictionary unless readers already have it: in full the first
  // time, as a delta when it only grew, and otherwise as a replacement (streams only). Every
  // column is checked before anything is written, so a refused batch leaves no stray messages.
  Status WriteDictionaries(const RecordBatch& batch) {
    enum class Action { kNone, kFull, kDelta };
    const Schema& schema = *schema_.schema;
    std::vector<Action> actions(static_cast<size_t>(schema.num_fields()), Action::kNone);
    for (int i = 0; i < schema.num_fields(); ++i) {
      const internal::FieldEncoding& encoding = schema_.fields[static_cast<size_t>(i)];
      if (encoding.dictionary_id < 0)
        continue;
      Action& action = actions[static_cast<size_t>(i)];
      const ArrayPtr& dictionary = batch.column(i)->dictionary();
      auto it = sent_.find(encoding.dictionary_id);
      if (it == sent_.end()) {
        action = Action::kFull;
        continue;
      }
      const ArrayPtr& previous = it->second;
      if (previous == dictionary)
        continue;
      const int64_t known = previous->length();
      if (dictionary->length() >= known && ArraysEqual(*dictionary->Slice(0, known), *previous)) {
        if (dictionary->length() == known) {
          it->second = dictionary;  // same values; remember the pointer to skip the comparison
          continue;
        }
        if (options_.emit_dictionary_deltas) {
          action = Action::kDelta;
          continue;
        }
      }
      if (file_format_) {
        return Status::InvalidArgument(
            "column '{}' of batch {} carries a different dictionary than earlier batches; the "
            "Arrow IPC file format allows one dictionary per column (plus deltas that append to "
            "it). Write a stream instead, or unify the dictionaries before writing",
            schema.field(i).name, num_batches_);
      }
      action = Action::kFull;
    }
    for (int i = 0; i < schema.num_fields(); ++i) {
      const Action action = actions[static_cast<size_t>(i)];
      if (action == Action::kNone)
        continue;
      const internal::FieldEncoding& encoding = schema_.fields[static_cast<size_t>(i)];
      const ArrayPtr& dictionary = batch.column(i)->dictionary();
      ArrayPtr& sent = sent_[encoding.dictionary_id];
      if (action == Action::kDelta) {
        const int64_t known = sent->length();
        auto delta = dictionary->Slice(known, dictionary->length() - known);
        SHOAL_RETURN_IF_ERROR(WriteDictionary(encoding, *delta, true));
      } else {
        SHOAL_RETURN_IF_ERROR(WriteDictionary(encoding, *dictionary, false));
      }
      sent = dictionary;
    }
    return Status::OK();
  }

  Status WriteDictionary(const internal::FieldEncoding& encoding, const Array& values,
                         bool is_delta) {
    body_.Reset();
    SHOAL_RETURN_IF_ERROR(body_.AddColumn(values, encoding.values));
    SHOAL_RETURN_IF_ERROR(body_.Finish());
    fbb_.Clear();
    auto data = BuildRecordBatch(values.length());
    auto dictionary_batch = fb::CreateDictionaryBatch(fbb_, encoding.dictionary_id, data, is_delta);
    internal::FinishMessage(&fbb_, fb::MessageHeader::DictionaryBatch, dictionary_batch.Union(),
                            body_.body_length());
    fb::Block block;
    SHOAL_RETURN_IF_ERROR(WriteMessage(&body_, &block));
    if (file_format_)
      dictionary_blocks_.push_back(block);
    return Status::OK();
  }

  flatbuffers::Offset<fb::RecordBatch> BuildRecordBatch(int64_t length) {
    auto nodes = fbb_.CreateVectorOfStructs(body_.nodes());
    auto buffers = fbb_.CreateVectorOfStructs(body_.buffers());
    flatbuffers::Offset<fb::BodyCompression> compression = 0;
    if (codec_ != nullptr) {
      auto codec = codec_->compression() == Compression::kLz4Frame ? fb::CompressionType::LZ4_FRAME
                                                                   : fb::CompressionType::ZSTD;
      compression = fb::CreateBodyCompression(fbb_, codec, fb::BodyCompressionMethod::BUFFER);
    }
    return fb::CreateRecordBatch(fbb_, length, nodes, buffers, compression);
  }

  // Frames the finished message in fbb_ (continuation, length, metadata padded so the body starts
  // 8-byte aligned) and writes it with its body.
  Status WriteMessage(const BodyEncoder* body, fb::Block* block) {
    const int64_t offset = sink_->position() - start_;
    const auto size = static_cast<int64_t>(fbb_.GetSize());
    const int64_t padded = PadTo8(size + 8) - 8;
    if (padded > std::numeric_limits<int32_t>::max())
      return Status::InvalidArgument("message metadata of {} bytes exceeds 2 GiB", padded);
    const uint32_t prefix[2] = {internal::kContinuation, static_cast<uint32_t>(padded)};
    SHOAL_RETURN_IF_ERROR(sink_->Write(reinterpret_cast<const uint8_t*>(prefix), 8));
    SHOAL_RETURN_IF_ERROR(sink_->Write(fbb_.GetBufferPointer(), size));
    if (padded > size)
      SHOAL_RETURN_IF_ERROR(sink_->Write(kZeros, padded - size));
    int64_t body_length = 0;
    if (body != nullptr) {
      SHOAL_RETURN_IF_ERROR(body->WriteTo(sink_));
      body_length = body->body_length();
    }
    *block = fb::Block(offset, static_cast<int32_t>(8 + padded), body_length);
    return Status::OK();
  }

  OutputSink* sink_;
  IpcSchema schema_;
  WriteOptions options_;
  bool file_format_;
  std::unique_ptr<Codec> codec_;
  BodyEncoder body_;
  flatbuffers::FlatBufferBuilder fbb_;
  int64_t start_;
  std::vector<fb::Block> dictionary_blocks_;
  std::vector<fb::Block> record_blocks_;
  // Per dictionary id, the dictionary readers hold after the messages written so far.
  std::unordered_map<int64_t, ArrayPtr> sent_;
  int64_t num_batches_ = 0;
  bool closed_ = false;
};

Result<std::unique_ptr<RecordBatchWriter>> MakeWriter(OutputSink* sink, SchemaPtr schema,
                                                      WriteOptions options, bool file_format) {
  if (sink == nullptr)
    return Status::InvalidArgument("Arrow IPC writer without an output sink");
  if (schema == nullptr)
    return Status::InvalidArgument("Arrow IPC writer without a schema");
  if (options.pool == nullptr)
    options.pool = DefaultMemoryPool();
  std::unique_ptr<Codec> codec;
  switch (options.compression) {
    case Compression::kNone: break;
    case Compression::kLz4Frame:
    case Compression::kZstd: {
      SHOAL_ASSIGN_OR_RETURN(codec, Codec::Make(options.compression, options.zstd_level));
      break;
    }
    default:
      return Status::InvalidArgument("unknown Arrow IPC compression {}",
                                     static_cast<int>(options.compression));
  }
  SHOAL_ASSIGN_OR_RETURN(IpcSchema ipc_schema,
                         internal::PlanWriteSchema(std::move(schema), options.widen_decimal64));
  auto writer = std::make_unique<IpcWriter>(sink, std::move(ipc_schema), std::move(options),
                                            file_format, std::move(codec));
  SHOAL_RETURN_IF_ERROR(writer->Start());
  return std::unique_ptr<RecordBatchWriter>(std::move(writer));
}

}  // namespace

Result<std::unique_ptr<RecordBatchWriter>> MakeStreamWriter(OutputSink* sink, SchemaPtr schema,
                                                            WriteOptions options) {
  return MakeWriter(sink, std::move(schema), std::move(options), false);
}

Result<std::unique_ptr<RecordBatchWriter>> MakeFileWriter(OutputSink* sink, SchemaPtr schema,
                                                          WriteOptions options) {
  return MakeWriter(sink, std::move(schema), std::move(options), true);
}

}  // namespace shoal::columnar::ipc
