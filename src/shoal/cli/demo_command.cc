#include "shoal/cli/demo_command.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <string_view>
#include <vector>

#include <fmt/core.h>
#include <unistd.h>

#include "shoal/columnar/builder.h"
#include "shoal/columnar/ipc/compression_name.h"
#include "shoal/columnar/ipc/reader.h"
#include "shoal/columnar/ipc/writer.h"
#include "shoal/columnar/pretty_print.h"

namespace shoal::cli {
namespace {

using columnar::ArrayPtr;
using columnar::DataType;
using columnar::Field;
using columnar::RecordBatch;
using columnar::RecordBatchPtr;
using columnar::Schema;
using columnar::TimeUnit;
using columnar::TypeId;

// More rows than this would print a table nobody reads; the file format itself has no such limit.
constexpr int64_t kMaxRows = 1000000;
// Batches are written as slices of this many rows, so larger demos also exercise multi-batch
// files and the writer's compaction of sliced arrays.
constexpr int64_t kRowsPerBatch = 1024;

// Options arrive as text and are checked by RunDemo, so that every bad value, like every other
// failure, is one "shoal demo: error: ..." line and exit status 1.
struct DemoArgs {
  std::string output;
  std::string compression = "none";
  std::string rows = "10";
};

std::string DefaultOutputPath() {
  const char* tmp = std::getenv("TMPDIR");
  std::string dir = tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
  if (dir.back() == '/')
    dir.pop_back();
  return fmt::format("{}/shoal-demo-{}.arrow", dir, static_cast<long>(::getpid()));
}

// Whether row i of a column is NULL: each column has its own stride and phase, so every row
// shows some values and every nullable column some NULLs.
bool NullAt(int64_t i, int stride, int phase) {
  return i % stride == phase;
}

Status AppendIntColumns(int64_t rows, const std::shared_ptr<MemoryPool>& pool,
                        std::vector<ArrayPtr>* columns) {
  columnar::Int32Builder id(DataType::Int32(), pool);
  columnar::BooleanBuilder flag(pool);
  columnar::Int8Builder i8(DataType::Int8(), pool);
  columnar::Int16Builder i16(DataType::Int16(), pool);
  columnar::Int64Builder i64(DataType::Int64(), pool);
  columnar::UInt8Builder u8(DataType::UInt8(), pool);
  columnar::UInt16Builder u16(DataType::UInt16(), pool);
  columnar::UInt32Builder u32(DataType::UInt32(), pool);
  columnar::UInt64Builder u64(DataType::UInt64(), pool);
  for (columnar::ArrayBuilder* b :
       std::vector<columnar::ArrayBuilder*>{&id, &flag, &i8, &i16, &i64, &u8, &u16, &u32, &u64}) {
    SHOAL_RETURN_IF_ERROR(b->Reserve(rows));
  }
  for (int64_t i = 0; i < rows; ++i) {
    id.UnsafeAppend(static_cast<int32_t>(i + 1));
    if (NullAt(i, 3, 2))
      SHOAL_RETURN_IF_ERROR(flag.AppendNull());
    else
      flag.UnsafeAppend(i % 2 == 0);
    if (NullAt(i, 5, 3))
      SHOAL_RETURN_IF_ERROR(i8.AppendNull());
    else
      i8.UnsafeAppend(static_cast<int8_t>(i == 0 ? -128 : (i * 37) % 256 - 128));
    i16.UnsafeAppend(static_cast<int16_t>((i * 1000) % 60000 - 30000));
    // The extremes of int64 on the first two rows: printing and IPC must keep every bit.
    i64.UnsafeAppend(i == 0   ? std::numeric_limits<int64_t>::min()
                     : i == 1 ? std::numeric_limits<int64_t>::max()
                              : (i % 2 == 0 ? -1 : 1) * i * i * i * 1000003);
    u8.UnsafeAppend(static_cast<uint8_t>(255 - i % 256));
    if (NullAt(i, 4, 1))
      SHOAL_RETURN_IF_ERROR(u16.AppendNull());
    else
      u16.UnsafeAppend(static_cast<uint16_t>((i * 2000) % 65536));
    u32.UnsafeAppend(static_cast<uint32_t>(4000000000u - static_cast<uint32_t>(i % 1000000)));
    u64.UnsafeAppend(std::numeric_limits<uint64_t>::max() - static_cast<uint64_t>(i));
  }
  for (columnar::ArrayBuilder* b :
       std::vector<columnar::ArrayBuilder*>{&id, &flag, &i8, &i16, &i64, &u8, &u16, &u32, &u64}) {
    SHOAL_ASSIGN_OR_RETURN(ArrayPtr column, b->Finish());
    columns->push_back(std::move(column));
  }
  return Status::OK();
}

Status AppendNumericColumns(int64_t rows, const std::shared_ptr<MemoryPool>& pool,
                            std::vector<ArrayPtr>* columns) {
  columnar::Float32Builder f32(DataType::Float32(), pool);
  columnar::Float64Builder f64(DataType::Float64(), pool);
  columnar::Decimal64Builder price(DataType::Decimal(12, 2), pool);
  columnar::Decimal128Builder big(DataType::Decimal(38, 10), pool);
  const columnar::int128_t max38 = columnar::MaxUnscaled(38);
  for (int64_t i = 0; i < rows; ++i) {
    SHOAL_RETURN_IF_ERROR(f32.Append(static_cast<float>(i + 1) * 0.25f));
    if (NullAt(i, 6, 4)) {
      SHOAL_RETURN_IF_ERROR(f64.AppendNull());
    } else if (i % 6 == 2) {
      SHOAL_RETURN_IF_ERROR(f64.Append(std::numeric_limits<double>::quiet_NaN()));
    } else if (i % 6 == 5) {
      SHOAL_RETURN_IF_ERROR(f64.Append(-std::numeric_limits<double>::infinity()));
    } else {
      SHOAL_RETURN_IF_ERROR(f64.Append(1.0 / static_cast<double>(i + 1) * 1e6));
    }
    if (NullAt(i, 5, 1))
      SHOAL_RETURN_IF_ERROR(price.AppendNull());
    else
      SHOAL_RETURN_IF_ERROR(price.Append(i * 12345 - 20005));
    // decimal(38,10) at its extremes, then ordinary values.
    if (i == 0)
      SHOAL_RETURN_IF_ERROR(big.Append(max38));
    else if (i == 1)
      SHOAL_RETURN_IF_ERROR(big.Append(-max38));
    else if (NullAt(i, 7, 3))
      SHOAL_RETURN_IF_ERROR(big.AppendNull());
    else
      SHOAL_RETURN_IF_ERROR(big.Append(columnar::int128_t{i} * columnar::PowerOfTen(12) + i));
  }
  for (columnar::ArrayBuilder* b : std::vector<columnar::ArrayBuilder*>{&f32, &f64, &price, &big}) {
    SHOAL_ASSIGN_OR_RETURN(ArrayPtr column, b->Finish());
    columns->push_back(std::move(column));
  }
  return Status::OK();
}

Status AppendTemporalColumns(int64_t rows, const std::shared_ptr<MemoryPool>& pool,
                             std::vector<ArrayPtr>* columns) {
  columnar::Int32Builder day(DataType::Date32(), pool);
  columnar::Int64Builder ts(DataType::Timestamp(TimeUnit::kMicro), pool);
  columnar::Int64Builder tstz(DataType::Timestamp(TimeUnit::kMilli, "UTC"), pool);
  columnar::IntervalBuilder span(DataType::Interval(), pool);
  const int64_t leap_day = columnar::DaysFromCivil(2024, 2, 29);
  const int64_t ides_of_march_44bc = columnar::DaysFromCivil(-43, 3, 15);
  const int64_t ts_base = leap_day * 86400000000LL + (13 * 3600 + 45 * 60) * 1000000LL + 250000;
  for (int64_t i = 0; i < rows; ++i) {
    if (NullAt(i, 6, 5))
      SHOAL_RETURN_IF_ERROR(day.AppendNull());
    else
      SHOAL_RETURN_IF_ERROR(day.Append(static_cast<int32_t>(i % 6 == 3 ? ides_of_march_44bc
                                                            : i == 1   ? 0
                                                                       : leap_day + i * 40)));
    if (NullAt(i, 4, 2))
      SHOAL_RETURN_IF_ERROR(ts.AppendNull());
    else
      SHOAL_RETURN_IF_ERROR(ts.Append(ts_base + i * 3601500000LL));
    SHOAL_RETURN_IF_ERROR(tstz.Append(i * 86400000LL + i * 1001));
    if (NullAt(i, 5, 4)) {
      SHOAL_RETURN_IF_ERROR(span.AppendNull());
    } else {
      // Mixed signs on some rows, as PostgreSQL prints them ("-1 days +02:00:00").
      const auto months = static_cast<int32_t>(i % 15);
      const auto days = static_cast<int32_t>(i % 3 == 1 ? -1 : i);
      SHOAL_RETURN_IF_ERROR(span.Append({months, days, (i % 4) * 3723500000000LL}));
    }
  }
  for (columnar::ArrayBuilder* b : std::vector<columnar::ArrayBuilder*>{&day, &ts, &tstz, &span}) {
    SHOAL_ASSIGN_OR_RETURN(ArrayPtr column, b->Finish());
    columns->push_back(std::move(column));
  }
  return Status::OK();
}

Status AppendBinaryColumns(int64_t rows, const std::shared_ptr<MemoryPool>& pool,
                           std::vector<ArrayPtr>* columns) {
  static constexpr std::string_view kNames[] = {"héllo", "日本語", "Ωmega", "😀 smile", "plain"};
  static constexpr std::string_view kCities[] = {"Oslo", "Lima", "Kyoto", "Zürich"};
  columnar::BinaryBuilder name(DataType::Utf8(), pool);
  columnar::BinaryBuilder bytes(DataType::Binary(), pool);
  columnar::DictionaryBuilder city(DataType::Utf8(), pool, TypeId::kInt32);
  columnar::NullBuilder nothing(pool);
  const std::string_view blob("\xde\xad\xbe\xef\x00\x01", 6);
  for (int64_t i = 0; i < rows; ++i) {
    if (NullAt(i, 6, 5))
      SHOAL_RETURN_IF_ERROR(name.AppendNull());
    else
      SHOAL_RETURN_IF_ERROR(name.Append(kNames[i % 5]));
    if (NullAt(i, 7, 6))
      SHOAL_RETURN_IF_ERROR(bytes.AppendNull());
    else
      SHOAL_RETURN_IF_ERROR(bytes.Append(blob.substr(0, static_cast<size_t>(i % 7))));
    if (NullAt(i, 5, 2))
      SHOAL_RETURN_IF_ERROR(city.AppendNull());
    else
      SHOAL_RETURN_IF_ERROR(city.Append(kCities[i % 4]));
    SHOAL_RETURN_IF_ERROR(nothing.AppendNull());
  }
  for (columnar::ArrayBuilder* b :
       std::vector<columnar::ArrayBuilder*>{&name, &bytes, &city, &nothing}) {
    SHOAL_ASSIGN_OR_RETURN(ArrayPtr column, b->Finish());
    columns->push_back(std::move(column));
  }
  return Status::OK();
}

Result<int64_t> ParseRows(std::string_view text) {
  int64_t rows = -1;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), rows);
  if (ec != std::errc() || end != text.data() + text.size() || rows < 0 || rows > kMaxRows)
    return Status::InvalidArgument("--rows must be an integer from 0 to {}, got '{}'", kMaxRows,
                                   text);
  return rows;
}

Status RunDemo(const DemoArgs& args) {
  SHOAL_ASSIGN_OR_RETURN(const int64_t rows, ParseRows(args.rows));
  SHOAL_ASSIGN_OR_RETURN(columnar::ipc::Compression compression,
                         columnar::ipc::ParseCompression(args.compression));
  const std::string path = args.output.empty() ? DefaultOutputPath() : args.output;
  auto pool = MemoryPool::MakeRoot("demo");
  SHOAL_ASSIGN_OR_RETURN(RecordBatchPtr table, MakeDemoBatch(rows, pool));

  // Write: the table in slices of kRowsPerBatch rows (at least one batch, even when empty).
  std::vector<RecordBatchPtr> written;
  for (int64_t start = 0; start == 0 || start < table->num_rows(); start += kRowsPerBatch)
    written.push_back(table->Slice(start, std::min(kRowsPerBatch, table->num_rows() - start)));
  columnar::ipc::WriteOptions write_options;
  write_options.compression = compression;
  write_options.pool = pool;
  {
    SHOAL_ASSIGN_OR_RETURN(auto sink, columnar::ipc::FileSink::Open(path));
    SHOAL_ASSIGN_OR_RETURN(
        auto writer, columnar::ipc::MakeFileWriter(sink.get(), table->schema(), write_options));
    for (const auto& batch : written)
      SHOAL_RETURN_IF_ERROR(writer->WriteBatch(*batch));
    SHOAL_RETURN_IF_ERROR(writer->Close());
  }

  // Read back and check that the round trip lost nothing.
  columnar::ipc::ReadOptions read_options;
  read_options.pool = pool;
  SHOAL_ASSIGN_OR_RETURN(columnar::ipc::ReadAllResult read,
                         columnar::ipc::ReadAll(path, read_options));
  if (!(*read.schema == *table->schema())) {
    return Status::Internal("{} was read back with schema [{}], written as [{}]", path,
                            read.schema->ToString(), table->schema()->ToString());
  }
  if (read.batches.size() != written.size()) {
    return Status::Internal("{} was read back as {} batches, written as {}", path,
                            read.batches.size(), written.size());
  }
  for (size_t b = 0; b < written.size(); ++b) {
    if (!read.batches[b]->Equals(*written[b]))
      return Status::Internal("batch {} of {} was read back with different contents", b, path);
  }

  columnar::PrintOptions print_options;
  print_options.null_text = "NULL";  // as after psql's \pset null 'NULL'
  const std::string text = columnar::FormatTable(*read.schema, read.batches, print_options);
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec)
    return Status::IoError("cannot stat {}: {}", path, ec.message());
  fmt::print("wrote {}: {} bytes, compression {}, {} {} in {} record {}\n", path, size,
             args.compression, rows, rows == 1 ? "row" : "rows", written.size(),
             written.size() == 1 ? "batch" : "batches");
  return Status::OK();
}

}  // namespace

Result<RecordBatchPtr> MakeDemoBatch(int64_t rows, const std::shared_ptr<MemoryPool>& pool) {
  std::vector<ArrayPtr> columns;
  SHOAL_RETURN_IF_ERROR(AppendIntColumns(rows, pool, &columns));
  SHOAL_RETURN_IF_ERROR(AppendNumericColumns(rows, pool, &columns));
  SHOAL_RETURN_IF_ERROR(AppendTemporalColumns(rows, pool, &columns));
  SHOAL_RETURN_IF_ERROR(AppendBinaryColumns(rows, pool, &columns));
  std::vector<Field> fields = {
      {"id", DataType::Int32(), /*nullable=*/false},
      {"flag", DataType::Boolean()},
      {"i8", DataType::Int8()},
      {"i16", DataType::Int16(), false},
      {"i64", DataType::Int64(), false},
      {"u8", DataType::UInt8(), false},
      {"u16", DataType::UInt16()},
      {"u32", DataType::UInt32(), false},
      {"u64", DataType::UInt64(), false},
      {"f32", DataType::Float32(), false},
      {"f64", DataType::Float64()},
      {"price", DataType::Decimal(12, 2)},
      {"big", DataType::Decimal(38, 10)},
      {"day", DataType::Date32()},
      {"ts", DataType::Timestamp(TimeUnit::kMicro)},
      {"tstz", DataType::Timestamp(TimeUnit::kMilli, "UTC"), false},
      {"span", DataType::Interval()},
      {"name", DataType::Utf8()},
      {"bytes", DataType::Binary()},
      {"city", DataType::Dictionary(TypeId::kInt32, DataType::Utf8())},
      {"nothing", DataType::Null()},
  };
  auto batch = RecordBatch::Make(std::make_shared<const Schema>(std::move(fields)), rows,
                                 std::move(columns));
  SHOAL_RETURN_IF_ERROR(batch->Validate());
  return batch;
}

void RegisterDemoCommand(CLI::App& app) {
  auto args = std::make_shared<DemoArgs>();
  CLI::App* cmd =
      app.add_subcommand("demo", "Write a small table as an Arrow IPC file and print it back");
  cmd->add_option("-o,--output", args->output,
                  "Arrow IPC file to write (default: shoal-demo-<pid>.arrow in $TMPDIR or /tmp)");
  cmd->add_option("--compression", args->compression,
                  "Body compression: none, lz4 or zstd (default none)");
  cmd->add_option("--rows", args->rows,
                  fmt::format("Rows in the table, 0..{} (default 10)", kMaxRows));
  cmd->callback([args] {
    Status st = RunDemo(*args);
    if (!st.ok()) {
      std::fprintf(stderr, "shoal demo: error: %s\n", st.UserMessage().c_str());
      throw CLI::RuntimeError(1);
    }
  });
}

}  // namespace shoal::cli
