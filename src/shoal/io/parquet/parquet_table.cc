#include "shoal/io/parquet/parquet_table.h"

#include <algorithm>
#include <charconv>
#include <cstring>

#include "shoal/columnar/record_batch.h"
#include "shoal/io/memory_table.h"
#include "shoal/io/parquet/chunk_decoder_internal.h"
#include "shoal/io/parquet/column_assembler_internal.h"
#include "shoal/io/parquet/column_chunk_reader.h"
#include "shoal/io/parquet/rle_decoder.h"
#include "shoal/io/parquet/thrift_codec.h"
#include "shoal/io/random_access_file.h"

namespace shoal::io::parquet {

namespace {

using columnar::Buffer;
using columnar::BufferPtr;
using columnar::Scalar;

constexpr char kMagic[4] = {'P', 'A', 'R', '1'};
constexpr char kEncryptedMagic[4] = {'P', 'A', 'R', 'E'};

// Payload: "<row group> <row groups total> <row groups pruned> <path>"; row group -1 reads nothing
// (it only carries the metrics).
std::string EncodeUnit(int64_t row_group, int64_t total, int64_t pruned, const std::string& path) {
  return fmt::format("{} {} {} {}", row_group, total, pruned, path);
}

Status DecodeUnit(const std::string& payload, int64_t* row_group, int64_t* total, int64_t* pruned,
                  std::string* path) {
  const char* p = payload.data();
  const char* end = p + payload.size();
  for (int64_t* out : {row_group, total, pruned}) {
    auto r = std::from_chars(p, end, *out);
    if (r.ec != std::errc() || r.ptr == end || *r.ptr != ' ')
      return Status::InvalidData("bad parquet scan unit payload '{}'", payload);
    p = r.ptr + 1;
  }
  path->assign(p, end);
  return Status::OK();
}

bool SameColumns(const std::vector<ColumnDescriptor>& a, const std::vector<ColumnDescriptor>& b,
                 std::string* difference) {
  if (a.size() != b.size()) {
    *difference = fmt::format("{} columns instead of {}", b.size(), a.size());
    return false;
  }
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].name != b[i].name || a[i].type != b[i].type) {
      *difference = fmt::format("column {} is '{}' {} instead of '{}' {}", i + 1, b[i].name,
                                b[i].type.ToString(), a[i].name, a[i].type.ToString());
      return false;
    }
  }
  return true;
}

// `node` cut down to the struct fields `paths` name (all sharing their first `depth` steps; one
// of exactly `depth` steps keeps the node whole), with the type SelectStructFields gives.
Result<SchemaNode> PruneNode(const SchemaNode& node, const std::vector<FieldPath>& paths,
                             size_t depth) {
  std::map<int, std::vector<FieldPath>> by_field;
  for (const FieldPath& path : paths) {
    if (path.size() <= depth)
      return node;
    by_field[path[depth]].push_back(path);
  }
  if (node.kind != SchemaNode::Kind::kStruct)
    return Status::InvalidArgument("column '{}' is not a struct but a scan names its fields",
                                   node.field.name);
  SchemaNode out = node;
  out.children.clear();
  std::vector<columnar::Field> fields;
  for (const auto& [index, sub] : by_field) {
    if (index < 0 || static_cast<size_t>(index) >= node.children.size())
      return Status::InvalidArgument("struct '{}' has no field {}", node.field.name, index);
    SHOAL_ASSIGN_OR_RETURN(SchemaNode child,
                           PruneNode(node.children[static_cast<size_t>(index)], sub, depth + 1));
    fields.push_back(child.field);
    out.children.push_back(std::move(child));
  }
  out.field.type = columnar::DataType::Struct(std::move(fields));
  // The struct's rows and validity come from its first leaf: any leaf under it has them.
  const SchemaNode& last = out.children.back();
  out.first_leaf = out.children.front().first_leaf;
  out.num_leaves = last.first_leaf + last.num_leaves - out.first_leaf;
  return out;
}

// The leaves the (pruned) tree of `node` reads, in file order.
void CollectLeaves(const SchemaNode& node, std::vector<int>* leaves) {
  if (node.kind == SchemaNode::Kind::kStruct) {
    for (const SchemaNode& child : node.children)
      CollectLeaves(child, leaves);
    return;
  }
  for (int l = node.first_leaf; l < node.first_leaf + node.num_leaves; ++l)
    leaves->push_back(l);
}

// The leaves a scan of `column` of `file` with `paths` reads.
Result<std::vector<int>> ProjectedLeaves(const ParquetFileInfo& file, int column,
                                         const std::vector<FieldPath>& paths) {
  std::vector<int> leaves;
  const SchemaNode& node = file.nodes[static_cast<size_t>(column)];
  if (paths.empty()) {
    CollectLeaves(node, &leaves);
    return leaves;
  }
  SHOAL_ASSIGN_OR_RETURN(SchemaNode pruned, PruneNode(node, paths, 0));
  CollectLeaves(pruned, &leaves);
  return leaves;
}

// Reads one row group of a unit as a stream of batches of batch_size rows. Each projected column
// has a cursor: a flat leaf's is a streaming ChunkDecoder over the chunk's bytes (read in one
// pread at its first batch), which decodes only the pages a batch's rows lie in, straight into
// the batch's buffers; so a partition holds its compressed chunks, a page and about one batch of
// values, not the decoded row group. A nested column (its leaves' levels assemble only as a
// whole) is decoded whole at its first batch and sliced; a column the file lacks is a constant.
class RowGroupReader final : public columnar::RecordBatchReader {
 public:
  // A batch keeping at least 1/kDenseSelection of its rows decodes the other columns whole and
  // cuts them (measured on TPC-H Q1, 98% kept: picking rows was 20% slower); below, only the rows
  // kept are decoded.
  static constexpr int64_t kDenseSelection = 2;

  RowGroupReader(const ParquetFileInfo* file, const std::vector<Scalar>* missing, int64_t row_group,
                 std::vector<int> projection, std::vector<std::vector<FieldPath>> field_paths,
                 columnar::SchemaPtr schema, int64_t batch_size, std::shared_ptr<MemoryPool> pool,
                 ScanRowFilter* row_filter,
                 std::function<void(const std::string&, int64_t)> add_metric,
                 std::shared_ptr<ScanBuffers> buffers)
      : file_(file),
        missing_(missing),
        row_group_(row_group),
        projection_(std::move(projection)),
        field_paths_(std::move(field_paths)),
        schema_(std::move(schema)),
        batch_size_(std::max<int64_t>(1, batch_size)),
        pool_(std::move(pool)),
        row_filter_(row_filter),
        add_metric_(std::move(add_metric)),
        buffers_(std::move(buffers)) {}

  ~RowGroupReader() override {
    for (Cursor& cursor : cursors_)
      Release(&cursor);
  }

  const columnar::SchemaPtr& schema() const override { return schema_; }

  Result<columnar::RecordBatchPtr> Next() override {
    if (row_group_ < 0)
      return columnar::RecordBatchPtr();
    if (!opened_) {
      SHOAL_RETURN_IF_ERROR(Open());
      opened_ = true;
    }
    while (next_row_ < num_rows_) {
      const int64_t n = std::min(batch_size_, num_rows_ - next_row_);
      SHOAL_ASSIGN_OR_RETURN(columnar::RecordBatchPtr batch, ReadBatch(n));
      next_row_ += n;
      if (batch != nullptr)
        return batch;
    }
    for (Cursor& cursor : cursors_)
      Release(&cursor);
    cursors_.clear();  // the chunks' bytes and decoders
    file_handle_.reset();
    // What filtering while decoding saved: flat columns' values decoded and passed over.
    if (row_filter_ != nullptr && add_metric_ && (values_decoded_ > 0 || values_skipped_ > 0)) {
      add_metric_("values_decoded", values_decoded_);
      add_metric_("values_skipped", values_skipped_);
      values_decoded_ = values_skipped_ = 0;
    }
    return columnar::RecordBatchPtr();
  }

 private:
  struct Cursor {
    enum class Kind { kFlat, kNested, kConstant };
    Kind kind = Kind::kFlat;
    int leaf = -1;                                    // kFlat
    BufferPtr bytes;                                  // kFlat: the chunk, once read
    std::unique_ptr<internal::ChunkDecoder> decoder;  // kFlat, once opened
    columnar::ArrayPtr array;  // kNested: the column, once decoded; kConstant: batch_size rows
    int64_t position = 0;      // rows of the row group read or passed over
  };

  Status Open() {
    const format::RowGroup& rg = file_->metadata->row_groups[static_cast<size_t>(row_group_)];
    num_rows_ = rg.num_rows;
    cursors_.resize(projection_.size());
    for (size_t i = 0; i < projection_.size(); ++i) {
      Cursor& cursor = cursors_[i];
      const int column = projection_[i];
      const std::vector<FieldPath>& paths = PathsOf(i);
      if (static_cast<size_t>(column) >= file_->columns.size()) {  // added after the file
        if (static_cast<size_t>(column) >= missing_->size())
          return Status::InvalidData("{} has no column {}", file_->path, column + 1);
        cursor.kind = Cursor::Kind::kConstant;
        SHOAL_ASSIGN_OR_RETURN(columnar::ArrayPtr constant,
                               (*missing_)[static_cast<size_t>(column)].MakeArray(
                                   std::min(batch_size_, num_rows_), pool_));
        SHOAL_ASSIGN_OR_RETURN(cursor.array, SelectStructFields(constant, paths));
        continue;
      }
      const SchemaNode& node = file_->nodes[static_cast<size_t>(column)];
      if (node.kind == SchemaNode::Kind::kLeaf &&
          !file_->leaves[static_cast<size_t>(node.first_leaf)].nested) {
        if (!paths.empty())
          return Status::InvalidArgument("column '{}' is not a struct but a scan names its fields",
                                         node.field.name);
        cursor.kind = Cursor::Kind::kFlat;
        cursor.leaf = node.first_leaf;
      } else {
        cursor.kind = Cursor::Kind::kNested;
      }
    }
    return Status::OK();
  }

  const std::vector<FieldPath>& PathsOf(size_t position) const {
    static const std::vector<FieldPath> kWhole;
    return position < field_paths_.size() ? field_paths_[position] : kWhole;
  }

  // The next `n` rows of the row group. With a row filter, the filter's columns are read first; a
  // batch none of whose rows survive only moves the other columns' cursors on (their pages of
  // only such rows are never decoded); when some survive, the other flat columns decode only
  // those rows (ChunkDecoder::ReadSelected) and the rest are cut to them. Null when no row
  // survives.
  Result<columnar::RecordBatchPtr> ReadBatch(int64_t n) {
    std::vector<columnar::ArrayPtr> columns(projection_.size());
    int64_t kept = -1;
    // Filters may arrive between batches: columns() looks them up, once per batch.
    if (row_filter_ != nullptr)
      filter_columns_ = row_filter_->columns();
    if (row_filter_ != nullptr && !filter_columns_.empty()) {
      const std::vector<int>& positions = filter_columns_;
      std::vector<columnar::ArrayPtr>& keys = keys_;
      keys.clear();
      for (int position : positions) {
        if (position < 0 || static_cast<size_t>(position) >= projection_.size())
          return Status::Internal("row filter column {} of {}", position, projection_.size());
        auto& slot = columns[static_cast<size_t>(position)];
        if (slot == nullptr) {
          SHOAL_ASSIGN_OR_RETURN(slot, Read(static_cast<size_t>(position), n));
        }
        keys.push_back(slot);
      }
      SHOAL_ASSIGN_OR_RETURN(kept, row_filter_->Select(keys, n, &selection_));
      keys.clear();
      if (kept == 0) {
        for (size_t i = 0; i < projection_.size(); ++i)
          if (columns[i] == nullptr)
            SHOAL_RETURN_IF_ERROR(Skip(i, n));
        return columnar::RecordBatchPtr();
      }
      // Few rows kept: the other columns decode only those. Most kept: whole pages decoded and
      // cut are cheaper than picking rows.
      if (kept > 0 && kept * kDenseSelection < n)
        return ReadKept(n, kept, std::move(columns));
    }
    for (size_t i = 0; i < projection_.size(); ++i) {
      if (columns[i] == nullptr) {
        SHOAL_ASSIGN_OR_RETURN(columns[i], Read(i, n));
      }
    }
    columnar::RecordBatchPtr batch = columnar::RecordBatch::Make(schema_, n, std::move(columns));
    if (kept > 0 && kept < n) {
      SHOAL_ASSIGN_OR_RETURN(batch, row_filter_->Take(*batch, selection_));
    }
    return batch;
  }

  // The `kept` rows selection_ names of the next `n`, given the filter's columns (the others
  // null): flat columns decode only those rows; the filter's and the nested ones are cut to them.
  Result<columnar::RecordBatchPtr> ReadKept(int64_t n, int64_t kept,
                                            std::vector<columnar::ArrayPtr> columns) {
    std::vector<size_t> cut;
    std::vector<columnar::Field> cut_fields;
    std::vector<columnar::ArrayPtr> cut_columns;
    for (size_t i = 0; i < projection_.size(); ++i) {
      Cursor& cursor = cursors_[i];
      if (columns[i] == nullptr && cursor.kind == Cursor::Kind::kFlat) {
        SHOAL_ASSIGN_OR_RETURN(columns[i], ReadSelected(i, n, kept));
        continue;
      }
      if (columns[i] == nullptr && cursor.kind == Cursor::Kind::kConstant) {
        cursor.position += n;
        columns[i] = cursor.array->Slice(0, kept);
        continue;
      }
      if (columns[i] == nullptr) {
        SHOAL_ASSIGN_OR_RETURN(columns[i], Read(i, n));
      }
      cut.push_back(i);
      cut_fields.push_back(schema_->field(static_cast<int>(i)));
      cut_columns.push_back(columns[i]);
    }
    if (!cut.empty()) {
      auto cut_schema = std::make_shared<const columnar::Schema>(std::move(cut_fields));
      SHOAL_ASSIGN_OR_RETURN(
          columnar::RecordBatchPtr taken,
          row_filter_->Take(
              *columnar::RecordBatch::Make(std::move(cut_schema), n, std::move(cut_columns)),
              selection_));
      for (size_t k = 0; k < cut.size(); ++k)
        columns[cut[k]] = taken->column(static_cast<int>(k));
    }
    return columnar::RecordBatch::Make(schema_, kept, std::move(columns));
  }

  std::string Where(int leaf) const {
    return fmt::format("{} row group {} column '{}'", file_->path, row_group_,
                       file_->leaves[static_cast<size_t>(leaf)].name);
  }

  // The next `n` rows of the column at `position` of the projection.
  Result<columnar::ArrayPtr> Read(size_t position, int64_t n) {
    Cursor& cursor = cursors_[position];
    columnar::ArrayPtr out;
    switch (cursor.kind) {
      case Cursor::Kind::kConstant:
        out = n == cursor.array->length() ? cursor.array : cursor.array->Slice(0, n);
        break;
      case Cursor::Kind::kNested:
        if (cursor.array == nullptr) {
          const format::RowGroup& rg = file_->metadata->row_groups[static_cast<size_t>(row_group_)];
          SHOAL_ASSIGN_OR_RETURN(cursor.array, DecodeNested(rg, position));
        }
        out = (cursor.position == 0 && n == cursor.array->length())
                  ? cursor.array
                  : cursor.array->Slice(cursor.position, n);
        break;
      case Cursor::Kind::kFlat: {
        if (cursor.decoder == nullptr)
          SHOAL_RETURN_IF_ERROR(OpenFlat(&cursor));
        internal::ChunkDecoder& decoder = *cursor.decoder;
        Status st = decoder.BeginOutput(n);
        if (st.ok())
          st = decoder.ReadRows(n);
        if (!st.ok())
          return std::move(st).WithContext(Where(cursor.leaf));
        Result<columnar::ArrayPtr> array = decoder.Finish();
        if (!array.ok())
          return std::move(array).status().WithContext(Where(cursor.leaf));
        out = *std::move(array);
        values_decoded_ += n;
        if (decoder.position() == num_rows_) {  // the chunk is done: its bytes can go
          Release(&cursor);
        }
        break;
      }
    }
    cursor.position += n;
    return out;
  }

  // Rows selection_[0, kept) of the next `n` of the flat column at `position`, the others passed
  // over undecoded.
  Result<columnar::ArrayPtr> ReadSelected(size_t position, int64_t n, int64_t kept) {
    Cursor& cursor = cursors_[position];
    if (cursor.decoder == nullptr)
      SHOAL_RETURN_IF_ERROR(OpenFlat(&cursor));
    internal::ChunkDecoder& decoder = *cursor.decoder;
    Status st = decoder.BeginOutput(kept);
    if (st.ok())
      st = decoder.ReadSelected(n, selection_.data(), kept);
    if (!st.ok())
      return std::move(st).WithContext(Where(cursor.leaf));
    Result<columnar::ArrayPtr> array = decoder.Finish();
    if (!array.ok())
      return std::move(array).status().WithContext(Where(cursor.leaf));
    values_decoded_ += kept;
    values_skipped_ += n - kept;
    if (decoder.position() == num_rows_) {
      Release(&cursor);
    }
    cursor.position += n;
    return *std::move(array);
  }

  // Moves the cursor of the column at `position` over `n` rows.
  Status Skip(size_t position, int64_t n) {
    Cursor& cursor = cursors_[position];
    if (cursor.kind == Cursor::Kind::kFlat)
      values_skipped_ += n;
    // A flat column not opened yet passes over its first rows when it is.
    if (cursor.kind == Cursor::Kind::kFlat && cursor.decoder != nullptr) {
      Status st = cursor.decoder->SkipRows(n);
      if (!st.ok())
        return std::move(st).WithContext(Where(cursor.leaf));
    }
    cursor.position += n;
    return Status::OK();
  }

  // Drops a flat column's decoder and chunk bytes, their buffers back to the scan's for the next
  // row group (scan_buffers.h).
  void Release(Cursor* cursor) {
    if (cursor->decoder != nullptr && buffers_ != nullptr)
      cursor->decoder->GiveBuffers(buffers_.get());
    cursor->decoder.reset();
    if (buffers_ != nullptr)
      buffers_->Give(std::move(cursor->bytes));
    cursor->bytes.reset();
  }

  // Reads a flat column's chunk and opens its decoder at the cursor's position.
  Status OpenFlat(Cursor* cursor) {
    const format::RowGroup& rg = file_->metadata->row_groups[static_cast<size_t>(row_group_)];
    const int leaf = cursor->leaf;
    const ColumnDescriptor& descriptor = file_->leaves[static_cast<size_t>(leaf)];
    const std::string where = Where(leaf);
    const format::ColumnChunk& chunk = rg.columns[static_cast<size_t>(leaf)];
    ChunkRange range;
    SHOAL_ASSIGN_OR_RETURN(cursor->bytes, ReadChunk(chunk, where, &range));
    SHOAL_ASSIGN_OR_RETURN(cursor->decoder, OpenLeafChunk(descriptor, chunk.meta_data, num_rows_,
                                                          cursor->bytes->data(), range.size,
                                                          range.offset, pool_, where));
    if (buffers_ != nullptr)
      SHOAL_RETURN_IF_ERROR(cursor->decoder->TakeBuffers(buffers_.get()));
    if (cursor->position > 0) {
      Status st = cursor->decoder->SkipRows(cursor->position);
      if (!st.ok())
        return std::move(st).WithContext(where);
    }
    return Status::OK();
  }

  // The bytes of a column chunk, followed by kDecodePadding zero bytes.
  Result<BufferPtr> ReadChunk(const format::ColumnChunk& chunk, const std::string& where,
                              ChunkRange* range_out) {
    SHOAL_ASSIGN_OR_RETURN(ChunkRange range, LocateColumnChunk(chunk, file_->size, where));
    *range_out = range;
    if (file_handle_ == nullptr) {
      SHOAL_ASSIGN_OR_RETURN(file_handle_, RandomAccessFile::Open(file_->path));
    }
    const int64_t size = range.size + static_cast<int64_t>(kDecodePadding);
    SHOAL_ASSIGN_OR_RETURN(BufferPtr bytes, buffers_ != nullptr ? buffers_->Take(size)
                                                                : Buffer::Allocate(size, pool_));
    std::memset(bytes->mutable_data() + range.size, 0, kDecodePadding);
    SHOAL_RETURN_IF_ERROR(
        file_handle_->ReadExactly(range.offset, range.size, bytes->mutable_data()));
    return bytes;
  }

  // A nested column at `position` of the projection, whole: the leaves of the fields read (all
  // of them without field paths), then the assembly of their levels.
  Result<columnar::ArrayPtr> DecodeNested(const format::RowGroup& rg, size_t position) {
    const int column = projection_[position];
    const std::vector<FieldPath>& paths = PathsOf(position);
    const SchemaNode& whole = file_->nodes[static_cast<size_t>(column)];
    SchemaNode pruned;
    if (!paths.empty()) {
      SHOAL_ASSIGN_OR_RETURN(pruned, PruneNode(whole, paths, 0));
    }
    const SchemaNode& node = paths.empty() ? whole : pruned;
    std::vector<int> read;
    CollectLeaves(node, &read);
    std::vector<internal::DecodedLeaf> leaves(file_->leaves.size());
    for (int l : read) {
      const std::string where = Where(l);
      const format::ColumnChunk& chunk = rg.columns[static_cast<size_t>(l)];
      ChunkRange range;
      SHOAL_ASSIGN_OR_RETURN(BufferPtr bytes, ReadChunk(chunk, where, &range));
      SHOAL_ASSIGN_OR_RETURN(
          leaves[static_cast<size_t>(l)],
          DecodeLeafChunk(file_->leaves[static_cast<size_t>(l)], chunk.meta_data, num_rows_,
                          bytes->data(), range.size, range.offset, pool_, where));
    }
    Result<columnar::ArrayPtr> array = internal::AssembleColumn(node, leaves, num_rows_, pool_);
    if (!array.ok())
      return std::move(array).status().WithContext(
          fmt::format("{} row group {} column '{}'", file_->path, row_group_, node.field.name));
    return array;
  }

  const ParquetFileInfo* file_;
  const std::vector<Scalar>* missing_;
  int64_t row_group_;
  std::vector<int> projection_;
  std::vector<std::vector<FieldPath>> field_paths_;  // empty or one per projection entry
  columnar::SchemaPtr schema_;
  int64_t batch_size_;
  std::shared_ptr<MemoryPool> pool_;
  ScanRowFilter* row_filter_;                                    // null: no row filter
  std::function<void(const std::string&, int64_t)> add_metric_;  // may be empty
  std::shared_ptr<ScanBuffers> buffers_;                         // may be null
  int64_t values_decoded_ = 0;
  int64_t values_skipped_ = 0;
  bool opened_ = false;
  int64_t num_rows_ = 0;
  int64_t next_row_ = 0;  // rows of the row group returned or filtered out
  std::vector<Cursor> cursors_;
  std::unique_ptr<RandomAccessFile> file_handle_;
  // Per-batch scratch of the runtime filters.
  std::vector<int> filter_columns_;
  std::vector<columnar::ArrayPtr> keys_;
  std::vector<int32_t> selection_;
};

}  // namespace

Result<ParquetFileInfo> ReadParquetFooter(const std::string& path, int64_t size) {
  if (size < 12)
    return Status::InvalidData("{} is {} bytes, too small to be a Parquet file (at least 12)", path,
                               size);
  SHOAL_ASSIGN_OR_RETURN(auto file, RandomAccessFile::Open(path));
  uint8_t head[4];
  uint8_t tail[8];
  SHOAL_RETURN_IF_ERROR(file->ReadExactly(0, 4, head));
  SHOAL_RETURN_IF_ERROR(file->ReadExactly(size - 8, 8, tail));
  if (std::memcmp(tail + 4, kEncryptedMagic, 4) == 0)
    return Status::NotImplemented("{} is an encrypted Parquet file; encryption is not supported",
                                  path);
  if (std::memcmp(head, kMagic, 4) == 0 && std::memcmp(tail + 4, kMagic, 4) != 0)
    return Status::InvalidData(
        "{} starts like a Parquet file but does not end with the magic "
        "bytes PAR1: it is truncated or still being written",
        path);
  if (std::memcmp(head, kMagic, 4) != 0 || std::memcmp(tail + 4, kMagic, 4) != 0)
    return Status::InvalidData(
        "{} is not a Parquet file: it does not start and end with the "
        "magic bytes PAR1",
        path);
  uint32_t footer_length;
  std::memcpy(&footer_length, tail, 4);
  if (footer_length == 0 || footer_length > static_cast<uint64_t>(size - 12))
    return Status::InvalidData(
        "{}: footer length {} does not fit the {}-byte file (truncated or "
        "corrupted file?)",
        path, footer_length, size);
  std::vector<uint8_t> footer(footer_length);
  SHOAL_RETURN_IF_ERROR(file->ReadExactly(size - 8 - footer_length, footer_length, footer.data()));
  auto metadata = std::make_shared<format::FileMetaData>();
  Result<size_t> parsed = DeserializeThrift(footer.data(), footer.size(), metadata.get());
  if (!parsed.ok())
    return std::move(parsed).status().WithContext(
        fmt::format("{}: footer at offset {}", path, size - 8 - footer_length));
  Status enums = CheckEnumRanges(*metadata);
  if (!enums.ok())
    return std::move(enums).WithContext(fmt::format("{}: footer", path));
  ParquetFileInfo info;
  info.path = path;
  info.size = size;
  SHOAL_ASSIGN_OR_RETURN(ParquetSchema converted, ConvertSchema(*metadata, path));
  info.columns = std::move(converted.columns);
  info.leaves = std::move(converted.leaves);
  info.nodes = std::move(converted.nodes);
  int64_t rows = 0;
  for (size_t g = 0; g < metadata->row_groups.size(); ++g) {
    const auto& rg = metadata->row_groups[g];
    if (rg.num_rows < 0 || rg.columns.size() != info.leaves.size())
      return Status::InvalidData(
          "{}: row group {} has {} rows and {} column chunks (the schema "
          "has {} leaf columns)",
          path, g, rg.num_rows, rg.columns.size(), info.leaves.size());
    rows += rg.num_rows;
    std::vector<ChunkStatistics> leaf_stats(info.leaves.size());
    for (size_t l = 0; l < info.leaves.size(); ++l) {
      const auto& chunk = rg.columns[l];
      if (!chunk.__isset.meta_data || !chunk.meta_data.__isset.statistics)
        continue;
      const auto& s = chunk.meta_data.statistics;
      DecodeMinMax(info.leaves[l], s, &leaf_stats[l].min, &leaf_stats[l].max);
      // A flat column has one entry per row; a nested leaf's entries are not rows.
      const int64_t limit = info.leaves[l].nested ? chunk.meta_data.num_values : rg.num_rows;
      if (s.__isset.null_count && s.null_count >= 0 && s.null_count <= limit)
        leaf_stats[l].null_count = s.null_count;
    }
    std::vector<ChunkStatistics> stats(info.columns.size());
    for (size_t c = 0; c < info.columns.size(); ++c) {
      const SchemaNode& node = info.nodes[c];
      if (node.kind == SchemaNode::Kind::kLeaf &&
          !info.leaves[static_cast<size_t>(node.first_leaf)].nested)
        stats[c] = leaf_stats[static_cast<size_t>(node.first_leaf)];
    }
    info.leaf_statistics.push_back(std::move(leaf_stats));
    info.statistics.push_back(std::move(stats));
  }
  if (metadata->num_rows != rows)
    return Status::InvalidData("{}: the footer says {} rows but its row groups hold {}", path,
                               metadata->num_rows, rows);
  info.metadata = std::move(metadata);
  return info;
}

Result<std::shared_ptr<ParquetTable>> ParquetTable::Make(
    const std::string& location, const columnar::SchemaPtr& schema,
    const std::map<std::string, std::string>& options) {
  if (!options.empty())
    return Status::InvalidArgument(
        "unknown Parquet table option '{}' (Parquet tables take no "
        "options)",
        options.begin()->first);
  SHOAL_ASSIGN_OR_RETURN(auto listed, ListFiles(location, ParquetExtensions()));
  std::vector<ParquetFileInfo> files;
  files.reserve(listed.size());
  for (const auto& f : listed) {
    SHOAL_ASSIGN_OR_RETURN(ParquetFileInfo info, ReadParquetFooter(f.path, f.size));
    if (!files.empty()) {
      std::string difference;
      if (!SameColumns(files.front().columns, info.columns, &difference))
        return Status::InvalidData("{} does not match the schema of {}: {}", info.path,
                                   files.front().path, difference)
            .WithHint("all files of one Parquet table must have the same columns");
    }
    files.push_back(std::move(info));
  }
  std::vector<columnar::Field> fields;
  for (size_t c = 0; c < files.front().columns.size(); ++c) {
    const ColumnDescriptor& d = files.front().columns[c];
    bool nullable = false;
    for (const auto& f : files)
      nullable = nullable || f.columns[c].optional;
    fields.emplace_back(d.name, d.type, nullable);
  }
  auto file_schema = std::make_shared<const columnar::Schema>(std::move(fields));
  if (schema != nullptr && schema->num_fields() > 0) {
    std::string problem;
    if (schema->num_fields() != file_schema->num_fields()) {
      problem = fmt::format("the statement lists {} columns, the files have {}",
                            schema->num_fields(), file_schema->num_fields());
    } else {
      for (int i = 0; i < schema->num_fields() && problem.empty(); ++i) {
        const auto& want = schema->field(i);
        const auto& have = file_schema->field(i);
        if (want.name != have.name || want.type != have.type)
          problem = fmt::format("column {} is declared as {} {} but the files have {} {}", i + 1,
                                want.name, want.type.ToString(), have.name, have.type.ToString());
      }
    }
    if (!problem.empty())
      return Status::InvalidArgument("the column list does not match {}: {}", files.front().path,
                                     problem)
          .WithHint(
              "leave out the column list to take the columns from the Parquet file: "
              "(" +
              file_schema->ToString() + ")");
  }
  return std::make_shared<ParquetTable>(std::move(files), std::move(file_schema));
}

namespace {

// The statistics of column `c` in row group `g` of `file`: its chunk's, or (in `*scratch`)
// those of the constant a file without the column reads.
const ChunkStatistics& ChunkStatisticsOf(const ParquetFileInfo& file, size_t g, size_t c,
                                         const std::vector<Scalar>& missing,
                                         ChunkStatistics* scratch) {
  if (c < file.columns.size())
    return file.statistics[g][c];
  *scratch = ChunkStatistics{};
  const Scalar value = c < missing.size() ? missing[c] : Scalar();
  scratch->null_count = value.is_null() ? file.metadata->row_groups[g].num_rows : 0;
  if (!value.is_null()) {
    scratch->min = value;
    scratch->max = value;
  }
  return *scratch;
}

}  // namespace

ParquetTable::ParquetTable(std::vector<ParquetFileInfo> files, columnar::SchemaPtr schema,
                           std::vector<Scalar> missing)
    : files_(std::move(files)), schema_(std::move(schema)), missing_(std::move(missing)) {
  for (size_t i = 0; i < files_.size(); ++i)
    file_index_.emplace(files_[i].path, i);
  // Table statistics: sums and the envelope of every row group's min / max; any row group without
  // a value makes the column's value unknown.
  const size_t num_columns = static_cast<size_t>(schema_->num_fields());
  statistics_.num_rows = 0;
  statistics_.total_bytes = 0;
  statistics_.columns.assign(num_columns, ColumnStatistics{});
  std::vector<bool> minmax_known(num_columns, true);
  std::vector<bool> nulls_known(num_columns, true);
  for (auto& c : statistics_.columns)
    c.null_count = 0;
  for (const auto& file : files_) {
    statistics_.num_rows += file.metadata->num_rows;
    statistics_.total_bytes += file.size;
    for (size_t g = 0; g < file.statistics.size(); ++g) {
      for (size_t c = 0; c < num_columns; ++c) {
        ChunkStatistics scratch;
        const ChunkStatistics& s = ChunkStatisticsOf(file, g, c, missing_, &scratch);
        ColumnStatistics& out = statistics_.columns[c];
        if (s.null_count < 0)
          nulls_known[c] = false;
        else
          out.null_count += s.null_count;
        // A row group whose values are all NULL changes neither bound.
        if (!s.min && !s.max && s.null_count >= 0 &&
            s.null_count == file.metadata->row_groups[g].num_rows && c >= file.columns.size())
          continue;
        if (!s.min || !s.max) {
          minmax_known[c] = false;
          continue;
        }
        if (!out.min || CompareScalars(*s.min, *out.min).value_or(0) < 0)
          out.min = s.min;
        if (!out.max || CompareScalars(*s.max, *out.max).value_or(0) > 0)
          out.max = s.max;
      }
    }
  }
  for (size_t c = 0; c < num_columns; ++c) {
    if (!minmax_known[c]) {
      statistics_.columns[c].min.reset();
      statistics_.columns[c].max.reset();
    }
    if (!nulls_known[c])
      statistics_.columns[c].null_count = -1;
  }
}

bool ParquetTable::RowGroupRuledOut(const ParquetFileInfo& file, int row_group,
                                    const ColumnPredicate& p) const {
  if (p.column < 0 || p.column >= schema_->num_fields())
    return false;
  ChunkStatistics scratch;
  const ChunkStatistics& s = ChunkStatisticsOf(file, static_cast<size_t>(row_group),
                                               static_cast<size_t>(p.column), missing_, &scratch);
  const int64_t rows = file.metadata->row_groups[static_cast<size_t>(row_group)].num_rows;
  if (rows == 0)
    return true;
  const bool all_null = s.null_count >= 0 && s.null_count == rows;
  switch (p.op) {
    case PredicateOp::kIsNull: return s.null_count == 0;
    case PredicateOp::kIsNotNull: return all_null;
    default: break;
  }
  // A comparison with NULL is never true, so an all-null row group matches no comparison.
  if (all_null)
    return true;
  if (!s.min || !s.max)
    return false;
  auto outside = [&](const Scalar& v) {
    const auto lo = CompareScalars(v, *s.min);
    const auto hi = CompareScalars(v, *s.max);
    return lo.has_value() && hi.has_value() && (*lo < 0 || *hi > 0);
  };
  if (p.op == PredicateOp::kIn) {
    if (p.values.empty())
      return false;
    for (const Scalar& v : p.values)
      if (!outside(v))
        return false;
    return true;
  }
  if (p.values.size() != 1)
    return false;
  const Scalar& v = p.values[0];
  const auto vs_min = CompareScalars(v, *s.min);
  const auto vs_max = CompareScalars(v, *s.max);
  if (!vs_min || !vs_max)
    return false;
  switch (p.op) {
    case PredicateOp::kEq: return *vs_min < 0 || *vs_max > 0;
    case PredicateOp::kLt: return *vs_min <= 0;  // every value >= min >= v
    case PredicateOp::kLe: return *vs_min < 0;
    case PredicateOp::kGt: return *vs_max >= 0;  // every value <= max <= v
    case PredicateOp::kGe: return *vs_max > 0;
    case PredicateOp::kNe:
      // Only when every non-null value equals v; string bounds may be truncated, so skip them.
      return !v.type().is_binary_like() && *vs_min == 0 && *vs_max == 0;
    default: return false;
  }
}

Result<std::vector<ScanUnit>> ParquetTable::PlanScan(const ScanRequest& request) const {
  std::vector<ScanUnit> units;
  int64_t total = 0;
  int64_t pruned = 0;
  for (const auto& file : files_) {
    const auto& groups = file.metadata->row_groups;
    for (size_t g = 0; g < groups.size(); ++g) {
      ++total;
      bool skip = false;
      for (const auto& p : request.predicates) {
        if (RowGroupRuledOut(file, static_cast<int>(g), p)) {
          skip = true;
          break;
        }
      }
      if (skip) {
        ++pruned;
        continue;
      }
      // Bytes of the projected chunks only: what reading the unit costs.
      int64_t bytes = 0;
      for (size_t i = 0; i < request.projection.size(); ++i) {
        const int c = request.projection[i];
        if (c < 0 || static_cast<size_t>(c) >= file.nodes.size())
          continue;  // a column added after the file was written
        SHOAL_ASSIGN_OR_RETURN(
            std::vector<int> leaves,
            ProjectedLeaves(file, c,
                            i < request.field_paths.size() ? request.field_paths[i]
                                                           : std::vector<FieldPath>{}));
        for (int l : leaves) {
          const auto& chunk = groups[g].columns[static_cast<size_t>(l)];
          if (chunk.__isset.meta_data)
            bytes += chunk.meta_data.total_compressed_size;
        }
      }
      units.push_back({fmt::format("{} row group {}", file.path, g), std::max<int64_t>(bytes, 1),
                       groups[g].num_rows, EncodeUnit(static_cast<int64_t>(g), 0, 0, file.path)});
    }
  }
  if (files_.empty())  // an empty table of Shoal's (parquet_directory_storage.h): nothing to read
    return units;
  if (units.empty())
    units.push_back({"(every row group pruned)", 0, 0, EncodeUnit(-1, 0, 0, files_.front().path)});
  // The first unit reports the table's counts; the engine sums metrics over units.
  int64_t g0 = 0, t0 = 0, p0 = 0;
  std::string path;
  SHOAL_RETURN_IF_ERROR(DecodeUnit(units.front().payload, &g0, &t0, &p0, &path));
  units.front().payload = EncodeUnit(g0, total, pruned, path);
  return units;
}

Result<std::string> ParquetTable::UnitFile(const ScanUnit& unit) {
  int64_t row_group = 0, total = 0, pruned = 0;
  std::string path;
  SHOAL_RETURN_IF_ERROR(DecodeUnit(unit.payload, &row_group, &total, &pruned, &path));
  return path;
}

Result<columnar::RecordBatchReaderPtr> ParquetTable::OpenUnit(const ScanUnit& unit,
                                                              const ScanRequest& request,
                                                              const ScanContext& context) const {
  int64_t row_group = 0, total = 0, pruned = 0;
  std::string path;
  SHOAL_RETURN_IF_ERROR(DecodeUnit(unit.payload, &row_group, &total, &pruned, &path));
  auto it = file_index_.find(path);
  if (it == file_index_.end())
    return Status::InvalidData("parquet scan unit names unknown file '{}'", path);
  const ParquetFileInfo& file = files_[it->second];
  if (row_group >= static_cast<int64_t>(file.metadata->row_groups.size()))
    return Status::InvalidData("parquet scan unit names row group {} of {}, which has {}",
                               row_group, path, file.metadata->row_groups.size());
  if ((total > 0 || pruned > 0) && context.add_metric) {
    context.add_metric("row_groups_total", total);
    context.add_metric("row_groups_pruned", pruned);
  }
  for (int c : request.projection) {
    if (c < 0 || c >= schema_->num_fields())
      return Status::InvalidArgument("projection column {} out of range", c);
  }
  SHOAL_ASSIGN_OR_RETURN(columnar::SchemaPtr schema, ProjectSchema(*schema_, request));
  // A row group whose statistics rule out a runtime filter's range is not read at all.
  if (row_group >= 0 && context.row_filter != nullptr &&
      context.row_filter->BlockRuledOut([&](const ColumnPredicate& p) {
        return RowGroupRuledOut(file, static_cast<int>(row_group), p);
      }))
    row_group = -1;
  return columnar::RecordBatchReaderPtr(new RowGroupReader(
      &file, &missing_, row_group, request.projection, request.field_paths, std::move(schema),
      request.batch_size, context.pool ? context.pool : DefaultMemoryPool(), context.row_filter,
      context.add_metric, context.buffers));
}

}  // namespace shoal::io::parquet
