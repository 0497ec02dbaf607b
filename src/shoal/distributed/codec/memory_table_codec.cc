#include "shoal/distributed/codec/memory_table_codec.h"

#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "shoal/columnar/ipc/reader.h"
#include "shoal/columnar/ipc/writer.h"
#include "shoal/distributed/codec/type_codec.h"
#include "shoal/distributed/proto/distributed.pb.h"
#include "shoal/io/memory_table.h"

namespace shoal::distributed {

namespace {

int64_t TableBytes(const io::MemoryTable& table) {
  return std::max<int64_t>(0, table.statistics().total_bytes);
}

}  // namespace

bool MemoryTableCodec::CanEncode(const io::TableProvider& table) const {
  const auto* memory = dynamic_cast<const io::MemoryTable*>(&table);
  return memory != nullptr && max_bytes_ > 0 && TableBytes(*memory) <= max_bytes_;
}

Result<std::string> MemoryTableCodec::Encode(const io::TableProvider& table,
                                             const std::string& table_name) const {
  const auto* memory = dynamic_cast<const io::MemoryTable*>(&table);
  if (memory == nullptr)
    return Status::Internal("table {} ({}) is not an in-memory table", table_name, table.kind());
  // One snapshot of the batch list: the scan units index it, and an INSERT running meanwhile
  // only appends (io/memory_table.h), so every planned index stays valid.
  const std::vector<columnar::RecordBatchPtr> batches = memory->batches();
  int64_t bytes = 0;
  for (const auto& b : batches)
    bytes += b->BufferBytes();
  if (bytes > max_bytes_)
    return Status::InvalidArgument(
               "table {} holds {} bytes in memory, more than {} ({}) lets travel to workers",
               table_name, bytes, kMaxBytesSetting, max_bytes_)
        .WithHint(fmt::format("SET {} to at least {}, or put the table where every worker can "
                              "read it (COPY ... TO a shared filesystem, then an external table)",
                              kMaxBytesSetting, bytes));
  proto::ValuesProto m;
  EncodeSchema(*memory->schema(), m.mutable_schema());
  columnar::ipc::BufferSink sink;
  SHOAL_ASSIGN_OR_RETURN(auto writer, columnar::ipc::MakeStreamWriter(&sink, memory->schema()));
  for (const auto& b : batches)
    SHOAL_RETURN_IF_ERROR(writer->WriteBatch(*b));
  SHOAL_RETURN_IF_ERROR(writer->Close());
  m.set_ipc_stream(sink.TakeBytes());
  return m.SerializeAsString();
}

Result<io::TableProviderPtr> MemoryTableCodec::Decode(const std::string& payload,
                                                      const std::string& table_name) const {
  proto::ValuesProto m;
  if (!m.ParseFromString(payload))
    return Status::InvalidData("encoded plan: malformed in-memory table '{}'", table_name);
  SHOAL_ASSIGN_OR_RETURN(columnar::SchemaPtr schema, DecodeSchema(m.schema()));
  auto bytes = std::make_shared<const std::string>(m.ipc_stream());
  auto read = columnar::ipc::ReadAllFromBytes(bytes);
  if (!read.ok())
    return Status::InvalidData("encoded plan: the batches of in-memory table '{}' do not read: {}",
                               table_name, read.status().message());
  std::vector<columnar::RecordBatchPtr> batches;
  batches.reserve(read->batches.size());
  for (auto& b : read->batches) {
    if (b->num_columns() != schema->num_fields())
      return Status::InvalidData(
          "encoded plan: in-memory table '{}' has {} columns but a batch of {}", table_name,
          schema->num_fields(), b->num_columns());
    for (int c = 0; c < b->num_columns(); ++c) {
      if (b->column(c)->type() != schema->field(c).type)
        return Status::InvalidData(
            "encoded plan: column \"{}\" of in-memory table '{}' is {} but its batch holds {}",
            schema->field(c).name, table_name, schema->field(c).type.ToString(),
            b->column(c)->type().ToString());
    }
    batches.push_back(columnar::RecordBatch::Make(schema, b->num_rows(), b->columns()));
  }
  SHOAL_ASSIGN_OR_RETURN(auto table, io::MemoryTable::Make(std::move(schema), std::move(batches)));
  return io::TableProviderPtr(std::move(table));
}

TableCodecRegistryPtr MemoryTableCodec::ForQuery(const TableCodecRegistryPtr& codecs,
                                                 const Settings& settings) {
  const auto* current = dynamic_cast<const MemoryTableCodec*>(codecs->Find(kId));
  if (current == nullptr)
    return codecs;
  // Declared in codec_settings.cc and registered at start-up; SET has checked it is an integer.
  const int64_t max_bytes = settings.GetInt(kMaxBytesSetting);
  if (current->max_bytes() == max_bytes)
    return codecs;
  // The same codecs in the same order (the first that accepts a table encodes it), this one
  // with the query's bound.
  auto bounded = std::make_shared<TableCodecRegistry>();
  for (const auto& codec : codecs->codecs()) {
    if (codec->id() == kId)
      bounded->Add(std::make_shared<MemoryTableCodec>(max_bytes));
    else
      bounded->Add(codec);
  }
  return bounded;
}

}  // namespace shoal::distributed
