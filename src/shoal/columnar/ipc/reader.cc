// Arrow IPC stream and file readers (reader.h).
#include "shoal/columnar/ipc/reader.h"

#include <cerrno>
#include <cstring>
#include <unordered_map>
#include <utility>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shoal/columnar/ipc/array_loader_internal.h"
#include "shoal/columnar/ipc/dictionary_accumulator_internal.h"
#include "shoal/columnar/ipc/message_internal.h"
#include "shoal/columnar/ipc/metadata_internal.h"

namespace shoal::columnar::ipc {
namespace {

using internal::ArrayLoader;
using internal::ColumnSpec;
using internal::DictionaryAccumulator;
using internal::IpcMessage;
using internal::IpcSchema;
namespace fb = internal::fb;

// A read-only mapping of a whole file; buffers read from it hold it through their owner chain.
class MappedFile {
 public:
  static Result<std::shared_ptr<const MappedFile>> Open(const std::string& path) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      int err = errno;
      if (err == ENOENT)
        return Status::NotFound("cannot open '{}': {}", path, std::strerror(err));
      return Status::IoError("cannot open '{}': {}", path, std::strerror(err));
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
      int err = errno;
      ::close(fd);
      return Status::IoError("cannot stat '{}': {}", path, std::strerror(err));
    }
    if (!S_ISREG(st.st_mode)) {
      ::close(fd);
      return Status::InvalidArgument("'{}' is not a regular file", path);
    }
    auto size = static_cast<size_t>(st.st_size);
    void* addr = nullptr;
    if (size > 0) {
      addr = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
      if (addr == MAP_FAILED) {
        int err = errno;
        ::close(fd);
        return Status::IoError("cannot map '{}' ({} bytes): {}", path, size, std::strerror(err));
      }
    }
    ::close(fd);
    return std::shared_ptr<const MappedFile>(new MappedFile(addr, size));
  }

  ~MappedFile() {
    if (addr_ != nullptr)
      ::munmap(addr_, size_);
  }

  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const uint8_t* data() const { return static_cast<const uint8_t*>(addr_); }

  int64_t size() const { return static_cast<int64_t>(size_); }

 private:
  MappedFile(void* addr, size_t size) : addr_(addr), size_(size) {}
  void* addr_;
  size_t size_;
};

const std::shared_ptr<MemoryPool>& PoolOf(const ReadOptions& options) {
  return options.pool ? options.pool : DefaultMemoryPool();
}

// The dictionaries of a schema's dictionary fields, by id, as the messages read so far define them.
class DictionaryMemo {
 public:
  DictionaryMemo(const IpcSchema& schema, const std::shared_ptr<MemoryPool>& pool) {
    for (int i = 0; i < schema.schema->num_fields(); ++i) {
      const Field& f = schema.schema->field(i);
      if (f.type.id() != TypeId::kDictionary)
        continue;
      const internal::FieldEncoding& e = schema.fields[static_cast<size_t>(i)];
      entries_.try_emplace(e.dictionary_id, Entry{&f, e.values, DictionaryAccumulator(pool)});
    }
  }

  /// Applies a dictionary batch. The file format forbids replacing a dictionary.
  Status Apply(const IpcMessage& message, ArrayLoader* loader, bool file_format) {
    const fb::DictionaryBatch* batch = message.message->header_as_DictionaryBatch();
    auto it = entries_.find(batch->id());
    if (it == entries_.end()) {
      return Status::InvalidData("dictionary batch for id {}, which no field of the schema uses",
                                 batch->id());
    }
    Entry& entry = it->second;
    const DataType& value_type = entry.field->type.value_type();
    std::vector<ColumnSpec> columns(1);
    columns[0].field = entry.field;
    columns[0].type = value_type;
    columns[0].encoding = entry.encoding;
    int64_t rows = 0;
    auto loaded = loader->Load(batch->data(), message.body, columns, &rows);
    if (!loaded.ok()) {
      return std::move(loaded).status().WithContext(
          fmt::format("dictionary id {} of field '{}'", batch->id(), entry.field->name));
    }
    ArrayPtr values = std::move(loaded).MoveValueUnsafe()[0];
    if (batch->is_delta()) {
      Status st = entry.dictionary.Append(values);
      if (!st.ok())
        return std::move(st).WithContext(fmt::format("delta for dictionary id {}", batch->id()));
      return Status::OK();
    }
    if (file_format && entry.dictionary.dictionary() != nullptr) {
      return Status::InvalidData(
          "the file holds a second non-delta dictionary for id {} (field '{}'); the Arrow IPC "
          "file format does not allow replacing a dictionary",
          batch->id(), entry.field->name);
    }
    entry.dictionary.Replace(std::move(values));
    return Status::OK();
  }

  Result<ArrayPtr> Get(int64_t id, const Field& field) const {
    auto it = entries_.find(id);
    if (it == entries_.end() || it->second.dictionary.dictionary() == nullptr) {
      return Status::InvalidData(
          "column '{}' uses dictionary id {} but no dictionary batch has defined it", field.name,
          id);
    }
    return it->second.dictionary.dictionary();
  }

 private:
  struct Entry {
    const Field* field;  // the first field using the id
    internal::WireEncoding encoding;
    internal::DictionaryAccumulator dictionary;
  };
  std::unordered_map<int64_t, Entry> entries_;
};

Result<RecordBatchPtr> LoadRecordBatch(const IpcMessage& message, const IpcSchema& schema,
                                       const DictionaryMemo& memo, ArrayLoader* loader) {
  const Schema& s = *schema.schema;
  std::vector<ColumnSpec> columns(static_cast<size_t>(s.num_fields()));
  for (int i = 0; i < s.num_fields(); ++i) {
    ColumnSpec& c = columns[static_cast<size_t>(i)];
    const internal::FieldEncoding& e = schema.fields[static_cast<size_t>(i)];
    c.field = &s.field(i);
    c.type = c.field->type;
    c.encoding = e.values;
    c.children = &e.children;
    if (c.type.id() == TypeId::kDictionary) {
      SHOAL_ASSIGN_OR_RETURN(c.dictionary, memo.Get(e.dictionary_id, *c.field));
    }
  }
  int64_t rows = 0;
  SHOAL_ASSIGN_OR_RETURN(auto arrays, loader->Load(message.message->header_as_RecordBatch(),
                                                   message.body, columns, &rows));
  return RecordBatch::Make(schema.schema, rows, std::move(arrays));
}

class StreamReaderImpl : public StreamReader {
 public:
  StreamReaderImpl(std::unique_ptr<InputStream> input, ReadOptions options)
      : input_(std::move(input)),
        options_(std::move(options)),
        messages_(input_.get(), PoolOf(options_)),
        loader_(PoolOf(options_), options_.check_utf8) {}

  Status Open() {
    SHOAL_ASSIGN_OR_RETURN(auto first, messages_.Next());
    if (!first.has_value()) {
      return Status::InvalidData(
          "the Arrow IPC stream is empty or truncated: it ends before its schema message");
    }
    if (first->message->header_type() != fb::MessageHeader::Schema) {
      return Status::InvalidData("the Arrow IPC stream starts with a {} message, not a schema",
                                 internal::MessageTypeName(first->message->header_type()));
    }
    auto parsed = internal::ParseSchema(first->message->header_as_Schema());
    if (!parsed.ok())
      return std::move(parsed).status().WithContext("schema message");
    schema_ = std::move(parsed).MoveValueUnsafe();
    memo_ = std::make_unique<DictionaryMemo>(schema_, PoolOf(options_));
    message_index_ = 1;
    return Status::OK();
  }

  const SchemaPtr& schema() const override { return schema_.schema; }

  Result<RecordBatchPtr> Next() override {
    if (!error_.ok())
      return error_;
    if (finished_)
      return RecordBatchPtr();
    auto result = ReadNext();
    if (!result.ok())
      error_ = result.status();
    return result;
  }

 private:
  Result<RecordBatchPtr> ReadNext() {
    while (true) {
      const int64_t index = message_index_++;
      const int64_t position = messages_.position();
      auto next = messages_.Next();
      if (!next.ok()) {
        return std::move(next).status().WithContext(fmt::format("message {}", index));
      }
      std::optional<IpcMessage> message = std::move(next).MoveValueUnsafe();
      if (!message.has_value()) {
        finished_ = true;
        return RecordBatchPtr();
      }
      const fb::MessageHeader type = message->message->header_type();
      auto context = [&](Status st) {
        return std::move(st).WithContext(fmt::format(
            "{} message {} at byte {}", internal::MessageTypeName(type), index, position));
      };
      switch (type) {
        case fb::MessageHeader::DictionaryBatch: {
          Status st = memo_->Apply(*message, &loader_, false);
          if (!st.ok())
            return context(std::move(st));
          continue;
        }
        case fb::MessageHeader::RecordBatch: {
          auto batch = LoadRecordBatch(*message, schema_, *memo_, &loader_);
          if (!batch.ok())
            return context(std::move(batch).status());
          return batch;
        }
        case fb::MessageHeader::Schema:
          return context(Status::InvalidData("a second schema message inside the stream"));
        default:
          return context(Status::NotImplemented("Arrow IPC {} messages are not supported",
                                                internal::MessageTypeName(type)));
      }
    }
  }

  std::unique_ptr<InputStream> input_;
  ReadOptions options_;
  internal::MessageReader messages_;
  ArrayLoader loader_;
  IpcSchema schema_;
  std::unique_ptr<DictionaryMemo> memo_;
  int64_t message_index_ = 0;
  bool finished_ = false;
  Status error_;
};

class FileReaderImpl : public FileReader {
 public:
  explicit FileReaderImpl(ReadOptions options)
      : options_(std::move(options)), loader_(PoolOf(options_), options_.check_utf8) {}

  Status Open(const uint8_t* data, int64_t size, std::shared_ptr<const void> owner) {
    const int64_t kMinSize = internal::kFileHeaderSize + internal::kFileTrailerSize;
    if (size == 0)
      return Status::InvalidData("truncated Arrow IPC file: it is empty");
    if (size < internal::kFileMagicSize ||
        std::memcmp(data, internal::kFileMagic, internal::kFileMagicSize) != 0) {
      return Status::InvalidData(
          "not an Arrow IPC file: it does not start with the ARROW1 magic (an Arrow IPC stream "
          "is read with the stream reader)");
    }
    if (size < kMinSize || std::memcmp(data + size - internal::kFileMagicSize, internal::kFileMagic,
                                       internal::kFileMagicSize) != 0) {
      return Status::InvalidData(
          "truncated Arrow IPC file: its {} bytes do not end with the ARROW1 magic (was it "
          "completely written?)",
          size);
    }
    file_ = Buffer::Wrap(data, size, std::move(owner));
    int32_t footer_length;
    std::memcpy(&footer_length, data + size - internal::kFileTrailerSize, 4);
    const int64_t footer_end = size - internal::kFileTrailerSize;
    if (footer_length <= 0 || footer_length > footer_end - internal::kFileHeaderSize) {
      return Status::InvalidData("the file footer length {} is impossible for a {}-byte file",
                                 footer_length, size);
    }
    footer_start_ = footer_end - footer_length;
    SHOAL_ASSIGN_OR_RETURN(
        footer_buffer_, internal::EnsureAligned(Buffer::Slice(file_, footer_start_, footer_length),
                                                8, PoolOf(options_)));
    flatbuffers::Verifier verifier(footer_buffer_->data(),
                                   static_cast<size_t>(footer_buffer_->size()));
    if (!fb::VerifyFooterBuffer(verifier)) {
      return Status::InvalidData("the {}-byte file footer at byte {} is not a valid Arrow footer",
                                 footer_length, footer_start_);
    }
    footer_ = fb::GetFooter(footer_buffer_->data());
    if (footer_->version() < fb::MetadataVersion::V4) {
      return Status::NotImplemented(
          "the file's metadata version V{} predates Arrow 0.8; Shoal reads V4 and V5",
          static_cast<int>(footer_->version()) + 1);
    }
    if (footer_->schema() == nullptr)
      return Status::InvalidData("the file footer has no schema");
    auto parsed = internal::ParseSchema(footer_->schema());
    if (!parsed.ok())
      return std::move(parsed).status().WithContext("file footer schema");
    schema_ = std::move(parsed).MoveValueUnsafe();
    memo_ = std::make_unique<DictionaryMemo>(schema_, PoolOf(options_));
    if (const auto* blocks = footer_->dictionaries()) {
      for (flatbuffers::uoffset_t i = 0; i < blocks->size(); ++i) {
        const fb::Block block = internal::StructAt(blocks, i);
        Status st = ReadDictionary(block);
        if (!st.ok()) {
          return std::move(st).WithContext(
              fmt::format("dictionary block {} at byte {}", i, block.offset()));
        }
      }
    }
    num_batches_ =
        footer_->record_batches() ? static_cast<int>(footer_->record_batches()->size()) : 0;
    return Status::OK();
  }

  const SchemaPtr& schema() const override { return schema_.schema; }

  int num_batches() const override { return num_batches_; }

  Result<RecordBatchPtr> ReadBatch(int i) override {
    if (i < 0 || i >= num_batches_) {
      return Status::InvalidArgument("record batch {} does not exist; the file has {}", i,
                                     num_batches_);
    }
    const fb::Block block =
        internal::StructAt(footer_->record_batches(), static_cast<flatbuffers::uoffset_t>(i));
    auto context = [&](Status st) {
      return std::move(st).WithContext(
          fmt::format("record batch {} at byte {}", i, block.offset()));
    };
    auto message = internal::ReadMessageAt(file_, footer_start_, block, PoolOf(options_));
    if (!message.ok())
      return context(std::move(message).status());
    const fb::MessageHeader type = message->message->header_type();
    if (type != fb::MessageHeader::RecordBatch) {
      return context(Status::InvalidData("the block holds a {} message, not a record batch",
                                         internal::MessageTypeName(type)));
    }
    auto batch = LoadRecordBatch(*message, schema_, *memo_, &loader_);
    if (!batch.ok())
      return context(std::move(batch).status());
    return batch;
  }

 private:
  Status ReadDictionary(const fb::Block& block) {
    SHOAL_ASSIGN_OR_RETURN(IpcMessage message,
                           internal::ReadMessageAt(file_, footer_start_, block, PoolOf(options_)));
    const fb::MessageHeader type = message.message->header_type();
    if (type != fb::MessageHeader::DictionaryBatch) {
      return Status::InvalidData("the block holds a {} message, not a dictionary batch",
                                 internal::MessageTypeName(type));
    }
    return memo_->Apply(message, &loader_, true);
  }

  ReadOptions options_;
  ArrayLoader loader_;
  BufferPtr file_;
  BufferPtr footer_buffer_;
  const fb::Footer* footer_ = nullptr;
  int64_t footer_start_ = 0;
  IpcSchema schema_;
  std::unique_ptr<DictionaryMemo> memo_;
  int num_batches_ = 0;
};

Result<std::unique_ptr<FileReader>> OpenFileReaderImpl(const uint8_t* data, int64_t size,
                                                       std::shared_ptr<const void> owner,
                                                       ReadOptions options) {
  auto reader = std::make_unique<FileReaderImpl>(std::move(options));
  SHOAL_RETURN_IF_ERROR(reader->Open(data, size, std::move(owner)));
  return std::unique_ptr<FileReader>(std::move(reader));
}

bool HasFileMagic(const uint8_t* data, int64_t size) {
  return size >= internal::kFileMagicSize &&
         std::memcmp(data, internal::kFileMagic, internal::kFileMagicSize) == 0;
}

Result<ReadAllResult> ReadAllImpl(const uint8_t* data, int64_t size,
                                  std::shared_ptr<const void> owner, ReadOptions options) {
  ReadAllResult out;
  if (HasFileMagic(data, size)) {
    SHOAL_ASSIGN_OR_RETURN(auto reader,
                           OpenFileReaderImpl(data, size, std::move(owner), std::move(options)));
    out.schema = reader->schema();
    out.batches.reserve(static_cast<size_t>(reader->num_batches()));
    for (int i = 0; i < reader->num_batches(); ++i) {
      SHOAL_ASSIGN_OR_RETURN(auto batch, reader->ReadBatch(i));
      out.batches.push_back(std::move(batch));
    }
    return out;
  }
  SHOAL_ASSIGN_OR_RETURN(auto reader, OpenStreamReader(std::make_unique<BufferInputStream>(
                                                           data, size, std::move(owner)),
                                                       std::move(options)));
  out.schema = reader->schema();
  while (true) {
    SHOAL_ASSIGN_OR_RETURN(auto batch, reader->Next());
    if (batch == nullptr)
      break;
    out.batches.push_back(std::move(batch));
  }
  return out;
}

}  // namespace

Result<std::unique_ptr<StreamReader>> OpenStreamReader(std::unique_ptr<InputStream> input,
                                                       ReadOptions options) {
  if (input == nullptr)
    return Status::InvalidArgument("Arrow IPC stream reader without an input");
  auto reader = std::make_unique<StreamReaderImpl>(std::move(input), std::move(options));
  SHOAL_RETURN_IF_ERROR(reader->Open());
  return std::unique_ptr<StreamReader>(std::move(reader));
}

Result<std::unique_ptr<FileReader>> OpenFileReader(std::shared_ptr<const std::string> bytes,
                                                   ReadOptions options) {
  if (bytes == nullptr)
    return Status::InvalidArgument("Arrow IPC file reader without bytes");
  const auto* data = reinterpret_cast<const uint8_t*>(bytes->data());
  const auto size = static_cast<int64_t>(bytes->size());
  return OpenFileReaderImpl(data, size, std::move(bytes), std::move(options));
}

Result<std::unique_ptr<FileReader>> OpenFileReader(const std::string& path, ReadOptions options) {
  SHOAL_ASSIGN_OR_RETURN(auto mapping, MappedFile::Open(path));
  const uint8_t* data = mapping->data();
  const int64_t size = mapping->size();
  auto reader = OpenFileReaderImpl(data, size, std::move(mapping), std::move(options));
  if (!reader.ok())
    return std::move(reader).status().WithContext(fmt::format("reading '{}'", path));
  return reader;
}

Result<ReadAllResult> ReadAll(const std::string& path, ReadOptions options) {
  SHOAL_ASSIGN_OR_RETURN(auto mapping, MappedFile::Open(path));
  const uint8_t* data = mapping->data();
  const int64_t size = mapping->size();
  auto result = ReadAllImpl(data, size, std::move(mapping), std::move(options));
  if (!result.ok())
    return std::move(result).status().WithContext(fmt::format("reading '{}'", path));
  return result;
}

Result<ReadAllResult> ReadAllFromBytes(std::shared_ptr<const std::string> bytes,
                                       ReadOptions options) {
  if (bytes == nullptr)
    return Status::InvalidArgument("ReadAllFromBytes without bytes");
  const auto* data = reinterpret_cast<const uint8_t*>(bytes->data());
  const auto size = static_cast<int64_t>(bytes->size());
  return ReadAllImpl(data, size, std::move(bytes), std::move(options));
}

}  // namespace shoal::columnar::ipc
