#include "shoal/io/delimited_table.h"

#include <charconv>

namespace shoal::io {
namespace {

// Payload: "<begin> <end> <path>".
std::string EncodeUnit(const std::string& path, int64_t begin, int64_t end) {
  return std::to_string(begin) + " " + std::to_string(end) + " " + path;
}

Status DecodeUnit(const std::string& payload, std::string* path, int64_t* begin, int64_t* end) {
  const char* p = payload.data();
  const char* stop = p + payload.size();
  auto r1 = std::from_chars(p, stop, *begin);
  if (r1.ec != std::errc() || r1.ptr == stop || *r1.ptr != ' ')
    return Status::InvalidData("bad delimited scan unit payload '{}'", payload);
  auto r2 = std::from_chars(r1.ptr + 1, stop, *end);
  if (r2.ec != std::errc() || r2.ptr == stop || *r2.ptr != ' ')
    return Status::InvalidData("bad delimited scan unit payload '{}'", payload);
  path->assign(r2.ptr + 1, stop);
  return Status::OK();
}

}  // namespace

Result<std::shared_ptr<DelimitedTable>> DelimitedTable::Make(
    DelimitedFormat format, const std::string& location, columnar::SchemaPtr schema,
    const std::map<std::string, std::string>& options) {
  DelimitedOptions parsed =
      format == DelimitedFormat::kTbl ? DelimitedOptions::Tbl() : DelimitedOptions::Csv();
  SHOAL_RETURN_IF_ERROR(parsed.Apply(options));
  SHOAL_ASSIGN_OR_RETURN(
      auto files,
      ListFiles(location, format == DelimitedFormat::kTbl ? TblExtensions() : CsvExtensions()));
  if (schema == nullptr || schema->num_fields() == 0) {
    if (format == DelimitedFormat::kTbl)
      return Status::InvalidArgument(
          "a TBL table needs its columns: CREATE EXTERNAL TABLE name "
          "(column type, ...) STORED AS TBL ...");
    SHOAL_ASSIGN_OR_RETURN(schema, InferDelimitedSchema(files.front().path, parsed));
  }
  for (const auto& field : schema->fields())
    SHOAL_RETURN_IF_ERROR(CheckDelimitedType(field));
  return std::make_shared<DelimitedTable>(format, std::move(files), std::move(schema),
                                          std::move(parsed));
}

DelimitedTable::DelimitedTable(DelimitedFormat format, std::vector<ListedFile> files,
                               columnar::SchemaPtr schema, DelimitedOptions options)
    : format_(format),
      files_(std::move(files)),
      schema_(std::move(schema)),
      options_(std::move(options)) {}

TableStatistics DelimitedTable::statistics() const {
  TableStatistics stats;
  stats.total_bytes = 0;
  for (const auto& file : files_)
    stats.total_bytes += file.size;
  return stats;
}

Result<std::vector<ScanUnit>> DelimitedTable::PlanScan(const ScanRequest&) const {
  std::vector<ScanUnit> units;
  for (const auto& file : files_) {
    int64_t step = options_.splittable() ? std::max<int64_t>(1, options_.split_bytes) : file.size;
    if (file.size == 0 || step >= file.size) {
      units.push_back({file.path, file.size, -1, EncodeUnit(file.path, 0, -1)});
      continue;
    }
    for (int64_t begin = 0; begin < file.size; begin += step) {
      int64_t end = std::min(file.size, begin + step);
      units.push_back({file.path + " bytes " + std::to_string(begin) + "-" + std::to_string(end),
                       end - begin, -1, EncodeUnit(file.path, begin, end)});
    }
  }
  return units;
}

Result<columnar::RecordBatchReaderPtr> DelimitedTable::OpenUnit(const ScanUnit& unit,
                                                                const ScanRequest& request,
                                                                const ScanContext& context) const {
  std::string path;
  int64_t begin = 0;
  int64_t end = -1;
  SHOAL_RETURN_IF_ERROR(DecodeUnit(unit.payload, &path, &begin, &end));
  return OpenDelimitedReader(std::move(path), schema_, options_, request.projection, begin, end,
                             request.batch_size, context.pool ? context.pool : DefaultMemoryPool());
}

}  // namespace shoal::io
