#include "shoal/io/parquet/parquet_table.h"

#include <algorithm>
#include <charconv>
#include <cstring>

#include "shoal/columnar/record_batch.h"
#include "shoal/io/memory_table.h"
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

// Reads one row group of a unit and hands it out in slices of batch_size rows.
class RowGroupReader final : public columnar::RecordBatchReader {
 public:
  RowGroupReader(const ParquetFileInfo* file, const std::vector<Scalar>* missing, int64_t row_group,
                 std::vector<int> projection, std::vector<std::vector<FieldPath>> field_paths,
                 columnar::SchemaPtr schema, int64_t batch_size, std::shared_ptr<MemoryPool> pool,
                 ScanRowFilter* row_filter)
      : file_(file),
        missing_(missing),
        row_group_(row_group),
        projection_(std::move(projection)),
        field_paths_(std::move(field_paths)),
        schema_(std::move(schema)),
        batch_size_(std::max<int64_t>(1, batch_size)),
        pool_(std::move(pool)),
        row_filter_(row_filter) {}

  const columnar::SchemaPtr& schema() const override { return schema_; }

  Result<columnar::RecordBatchPtr> Next() override {
    if (row_group_ < 0)
      return columnar::RecordBatchPtr();
    if (!loaded_) {
      SHOAL_RETURN_IF_ERROR(Load());
      loaded_ = true;
    }
    if (batch_ == nullptr || offset_ >= batch_->num_rows()) {
      batch_.reset();
      return columnar::RecordBatchPtr();
    }
    const int64_t n = std::min(batch_size_, batch_->num_rows() - offset_);
    columnar::RecordBatchPtr out =
        (offset_ == 0 && n == batch_->num_rows()) ? batch_ : batch_->Slice(offset_, n);
    offset_ += n;
    return out;
  }

 private:
  // Runtime filters: the filter's columns are decoded first; a row group none of whose rows
  // survive is never decoded further, and the others are cut to the surviving rows.
  Status Load() {
    const format::RowGroup& rg = file_->metadata->row_groups[static_cast<size_t>(row_group_)];
    const int64_t num_rows = rg.num_rows;
    std::vector<columnar::ArrayPtr> columns(projection_.size());
    std::unique_ptr<RandomAccessFile> file;
    std::vector<int32_t> selection;
    int64_t kept = -1;
    if (row_filter_ != nullptr && !row_filter_->columns().empty()) {
      const std::vector<int> positions = row_filter_->columns();
      std::vector<columnar::ArrayPtr> keys;
      for (int position : positions) {
        if (position < 0 || static_cast<size_t>(position) >= projection_.size())
          return Status::Internal("runtime filter column {} of {}", position, projection_.size());
        auto& slot = columns[static_cast<size_t>(position)];
        if (slot == nullptr) {
          SHOAL_ASSIGN_OR_RETURN(slot,
                                 DecodeColumn(rg, static_cast<size_t>(position), num_rows, &file));
        }
        keys.push_back(slot);
      }
      SHOAL_ASSIGN_OR_RETURN(kept, row_filter_->Select(keys, num_rows, &selection));
      if (kept == 0)
        return Status::OK();  // batch_ stays null: nothing to return
    }
    for (size_t i = 0; i < projection_.size(); ++i) {
      if (columns[i] == nullptr) {
        SHOAL_ASSIGN_OR_RETURN(columns[i], DecodeColumn(rg, i, num_rows, &file));
      }
    }
    batch_ = columnar::RecordBatch::Make(schema_, num_rows, std::move(columns));
    if (kept >= 0 && kept < num_rows) {
      SHOAL_ASSIGN_OR_RETURN(batch_, row_filter_->Take(*batch_, selection));
    }
    return Status::OK();
  }

  // The column at `position` of the projection.
  Result<columnar::ArrayPtr> DecodeColumn(const format::RowGroup& rg, size_t position,
                                          int64_t num_rows,
                                          std::unique_ptr<RandomAccessFile>* file) {
    const int column = projection_[position];
    static const std::vector<FieldPath> kWhole;
    const std::vector<FieldPath>& paths =
        position < field_paths_.size() ? field_paths_[position] : kWhole;
    if (static_cast<size_t>(column) >= file_->columns.size()) {  // added after the file
      if (static_cast<size_t>(column) >= missing_->size())
        return Status::InvalidData("{} has no column {}", file_->path, column + 1);
      SHOAL_ASSIGN_OR_RETURN(columnar::ArrayPtr constant,
                             (*missing_)[static_cast<size_t>(column)].MakeArray(num_rows, pool_));
      return SelectStructFields(constant, paths);
    }
    const SchemaNode& whole = file_->nodes[static_cast<size_t>(column)];
    if (whole.kind == SchemaNode::Kind::kLeaf &&
        !file_->leaves[static_cast<size_t>(whole.first_leaf)].nested) {
      if (!paths.empty())
        return Status::InvalidArgument("column '{}' is not a struct but a scan names its fields",
                                       whole.field.name);
      SHOAL_ASSIGN_OR_RETURN(internal::DecodedLeaf leaf,
                             DecodeLeaf(rg, whole.first_leaf, num_rows, file));
      return leaf.values;
    }
    // A nested column: the leaves of the fields read (all of them without field paths), then
    // the assembly of their levels.
    SchemaNode pruned;
    if (!paths.empty()) {
      SHOAL_ASSIGN_OR_RETURN(pruned, PruneNode(whole, paths, 0));
    }
    const SchemaNode& node = paths.empty() ? whole : pruned;
    std::vector<int> read;
    CollectLeaves(node, &read);
    std::vector<internal::DecodedLeaf> leaves(file_->leaves.size());
    for (int l : read) {
      SHOAL_ASSIGN_OR_RETURN(leaves[static_cast<size_t>(l)], DecodeLeaf(rg, l, num_rows, file));
    }
    Result<columnar::ArrayPtr> array = internal::AssembleColumn(node, leaves, num_rows, pool_);
    if (!array.ok())
      return std::move(array).status().WithContext(
          fmt::format("{} row group {} column '{}'", file_->path, row_group_, node.field.name));
    return array;
  }

  Result<internal::DecodedLeaf> DecodeLeaf(const format::RowGroup& rg, int leaf, int64_t num_rows,
                                           std::unique_ptr<RandomAccessFile>* file) {
    const ColumnDescriptor& descriptor = file_->leaves[static_cast<size_t>(leaf)];
    const std::string where =
        fmt::format("{} row group {} column '{}'", file_->path, row_group_, descriptor.name);
    const format::ColumnChunk& chunk = rg.columns[static_cast<size_t>(leaf)];
    SHOAL_ASSIGN_OR_RETURN(ChunkRange range, LocateColumnChunk(chunk, file_->size, where));
    if (*file == nullptr) {
      SHOAL_ASSIGN_OR_RETURN(*file, RandomAccessFile::Open(file_->path));
    }
    SHOAL_ASSIGN_OR_RETURN(
        BufferPtr bytes,
        Buffer::Allocate(range.size + static_cast<int64_t>(kDecodePadding), pool_));
    std::memset(bytes->mutable_data() + range.size, 0, kDecodePadding);
    SHOAL_RETURN_IF_ERROR((*file)->ReadExactly(range.offset, range.size, bytes->mutable_data()));
    return DecodeLeafChunk(descriptor, chunk.meta_data, num_rows, bytes->data(), range.size,
                           range.offset, pool_, where);
  }

  const ParquetFileInfo* file_;
  const std::vector<Scalar>* missing_;
  int64_t row_group_;
  std::vector<int> projection_;
  std::vector<std::vector<FieldPath>> field_paths_;  // empty or one per projection entry
  columnar::SchemaPtr schema_;
  int64_t batch_size_;
  std::shared_ptr<MemoryPool> pool_;
  ScanRowFilter* row_filter_;  // null: no runtime filter
  bool loaded_ = false;
  columnar::RecordBatchPtr batch_;
  int64_t offset_ = 0;
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
      request.batch_size, context.pool ? context.pool : DefaultMemoryPool(), context.row_filter));
}

}  // namespace shoal::io::parquet
