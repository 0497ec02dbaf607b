#include "shoal/io/parquet/parquet_writer.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <optional>
#include <thread>
#include <utility>

#include <fmt/format.h>
#include <unistd.h>

#include "shoal/common/version.h"
#include "shoal/io/parquet/thrift_codec.h"
#include "shoal/io/temporary_path.h"

namespace shoal::io::parquet {

namespace {

constexpr char kFileMagic[] = "PAR1";

// Row groups smaller than this are encoded on the calling thread (threads cost more than they
// save).
constexpr int64_t kParallelMinRows = 8192;

}  // namespace

Result<std::unique_ptr<ParquetWriter>> ParquetWriter::Open(std::string path,
                                                           columnar::SchemaPtr schema,
                                                           ParquetWriteOptions options) {
  if (options.row_group_size < 1) {
    return Status::InvalidArgument("ROW_GROUP_SIZE must be at least 1, got {}",
                                   options.row_group_size)
        .WithSqlState("22023");
  }
  std::unique_ptr<ParquetWriter> writer(
      new ParquetWriter(std::move(path), std::move(schema), options));
  SHOAL_RETURN_IF_ERROR(writer->Start());
  return writer;
}

Status ParquetWriter::Start() {
  format::SchemaElement root;
  root.__set_name("schema");
  root.__set_num_children(schema_->num_fields());
  schema_elements_.push_back(root);
  for (const auto& field : schema_->fields()) {
    SHOAL_ASSIGN_OR_RETURN(auto column, ColumnChunkWriter::Make(field, options_.encoding));
    schema_elements_.insert(schema_elements_.end(), column->schema_elements().begin(),
                            column->schema_elements().end());
    num_leaves_ += column->num_leaves();
    columns_.push_back(std::move(column));
  }
  SHOAL_ASSIGN_OR_RETURN(temporary_, TemporaryPath::Create(path_));
  temporary_path_ = temporary_->path();
  SHOAL_ASSIGN_OR_RETURN(file_, FileWriter::Open(temporary_path_));
  return file_->Write(std::string_view(kFileMagic, 4));
}

ParquetWriter::~ParquetWriter() {
  Abort();
}

void ParquetWriter::Abort() {
  if (closed_) {
    return;
  }
  closed_ = true;
  if (file_) {
    (void)file_->Close();
    file_.reset();
  }
  temporary_.reset();  // removes the temporary file
}

Status ParquetWriter::WriteBatch(const columnar::RecordBatchPtr& batch) {
  if (closed_) {
    return Status::Internal("ParquetWriter::WriteBatch after Close or Abort");
  }
  if (batch->num_columns() != schema_->num_fields()) {
    return Status::Internal("batch of {} columns for a Parquet file of {}", batch->num_columns(),
                            schema_->num_fields());
  }
  if (batch->num_rows() == 0) {
    return Status::OK();
  }
  pending_.push_back(batch);
  pending_rows_ += batch->num_rows();
  while (pending_rows_ >= options_.row_group_size) {
    Status st = FlushRowGroup(options_.row_group_size);
    if (!st.ok()) {
      Abort();
      return st;
    }
  }
  return Status::OK();
}

Status ParquetWriter::FlushRowGroup(int64_t rows) {
  // The batches (or slices) covering the first `rows` pending rows; the rest stays pending.
  std::vector<columnar::RecordBatchPtr> group;
  int64_t taken = 0;
  size_t used = 0;
  while (taken < rows) {
    const auto& batch = pending_[used];
    const int64_t want = rows - taken;
    if (batch->num_rows() <= want) {
      group.push_back(batch);
      taken += batch->num_rows();
      ++used;
    } else {
      group.push_back(batch->Slice(0, want));
      pending_[used] = batch->Slice(want, batch->num_rows() - want);
      taken += want;
    }
  }
  pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(used));
  pending_rows_ -= rows;

  format::RowGroup row_group;
  int64_t total_uncompressed = 0;
  int64_t total_compressed = 0;
  const int64_t group_offset = file_->bytes_written();
  std::vector<format::ColumnChunk> chunks;
  int64_t reserved = 0;
  if (options_.pool) {
    for (const auto& batch : group) {
      reserved += 2 * batch->BufferBytes();
    }
    SHOAL_RETURN_IF_ERROR(options_.pool->Reserve(reserved));
  }
  struct ReleaseOnExit {
    MemoryPool* pool;
    int64_t bytes;
    ~ReleaseOnExit() {
      if (pool != nullptr) {
        pool->Release(bytes);
      }
    }
  } release{options_.pool.get(), reserved};

  // Columns are encoded concurrently (each ColumnChunkWriter is used by one task) into their own
  // buffers at offset 0, then written in order with their offsets moved to where they landed.
  const int num_columns = schema_->num_fields();
  std::vector<std::string> buffers(static_cast<size_t>(num_columns));
  std::vector<Result<std::vector<format::ColumnChunk>>> encoded;
  encoded.reserve(static_cast<size_t>(num_columns));
  auto encode = [&](int c) {
    std::vector<columnar::ArrayPtr> pieces;
    pieces.reserve(group.size());
    for (const auto& batch : group) {
      pieces.push_back(batch->column(c));
    }
    return columns_[static_cast<size_t>(c)]->Write(pieces, 0, &buffers[static_cast<size_t>(c)]);
  };
  const int threads = options_.threads > 0
                          ? options_.threads
                          : static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));
  if (threads <= 1 || num_columns <= 1 || rows < kParallelMinRows) {
    for (int c = 0; c < num_columns; ++c) {
      encoded.push_back(encode(c));
    }
  } else {
    std::atomic<int> next{0};
    std::vector<std::optional<Result<std::vector<format::ColumnChunk>>>> results(
        static_cast<size_t>(num_columns));
    auto worker = [&] {
      for (int c = next.fetch_add(1); c < num_columns; c = next.fetch_add(1)) {
        results[static_cast<size_t>(c)].emplace(encode(c));
      }
    };
    std::vector<std::thread> pool;
    for (int t = 1; t < std::min(threads, num_columns); ++t) {
      pool.emplace_back(worker);
    }
    worker();
    for (auto& thread : pool) {
      thread.join();
    }
    for (auto& r : results) {
      encoded.push_back(std::move(*r));
    }
  }
  for (int c = 0; c < num_columns; ++c) {
    SHOAL_ASSIGN_OR_RETURN(std::vector<format::ColumnChunk> column_chunks,
                           std::move(encoded[static_cast<size_t>(c)]));
    const int64_t base = file_->bytes_written();
    for (format::ColumnChunk& chunk : column_chunks) {
      chunk.file_offset += base;
      chunk.meta_data.data_page_offset += base;
      if (chunk.meta_data.__isset.dictionary_page_offset) {
        chunk.meta_data.dictionary_page_offset += base;
      }
      total_uncompressed += chunk.meta_data.total_uncompressed_size;
      total_compressed += chunk.meta_data.total_compressed_size;
      chunks.push_back(std::move(chunk));
    }
    SHOAL_RETURN_IF_ERROR(file_->Write(buffers[static_cast<size_t>(c)]));
    buffers[static_cast<size_t>(c)] = std::string();
  }
  row_group.__set_columns(chunks);
  row_group.__set_num_rows(rows);
  row_group.__set_total_byte_size(total_uncompressed);
  row_group.__set_total_compressed_size(total_compressed);
  row_group.__set_file_offset(group_offset);
  if (row_groups_.size() <= 32767) {  // an i16 in the format; later row groups go without
    row_group.__set_ordinal(static_cast<int16_t>(row_groups_.size()));
  }
  row_groups_.push_back(std::move(row_group));
  rows_written_ += rows;
  return Status::OK();
}

Status ParquetWriter::Finish() {
  if (pending_rows_ > 0) {
    SHOAL_RETURN_IF_ERROR(FlushRowGroup(pending_rows_));
  }
  format::FileMetaData meta;
  meta.__set_version(1);
  meta.__set_schema(schema_elements_);
  meta.__set_num_rows(rows_written_);
  meta.__set_row_groups(row_groups_);
  meta.__set_created_by(fmt::format("shoal version {}", kVersion));
  // TYPE_ORDER for every column: readers may then trust min_value / max_value.
  format::ColumnOrder order;
  order.__set_TYPE_ORDER(format::TypeDefinedOrder());
  meta.__set_column_orders(
      std::vector<format::ColumnOrder>(static_cast<size_t>(num_leaves_), order));
  SHOAL_ASSIGN_OR_RETURN(std::string footer, SerializeThrift(meta));
  const auto length = static_cast<uint32_t>(footer.size());
  char length_bytes[4];
  std::memcpy(length_bytes, &length, 4);
  footer.append(length_bytes, 4);
  footer.append(kFileMagic, 4);
  SHOAL_RETURN_IF_ERROR(file_->Write(footer));
  SHOAL_RETURN_IF_ERROR(file_->Close());
  file_.reset();
  return temporary_->Publish(options_.durable);
}

Status ParquetWriter::Close() {
  if (closed_) {
    return Status::Internal("ParquetWriter::Close called twice or after Abort");
  }
  Status st = Finish();
  if (!st.ok()) {
    Abort();
    return st;
  }
  closed_ = true;
  return Status::OK();
}

}  // namespace shoal::io::parquet
