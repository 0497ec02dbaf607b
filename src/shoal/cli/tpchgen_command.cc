#include "shoal/cli/tpchgen_command.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <deque>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <fmt/core.h>

#include "shoal/common/result.h"
#include "shoal/io/copy_writer.h"
#include "shoal/io/file_writer.h"
#include "shoal/io/tpch/scale.h"
#include "shoal/io/tpch/text_pool.h"
#include "shoal/io/tpch/tpch_generator.h"
#include "shoal/io/tpch/tpch_memory_tables.h"

namespace shoal::cli {
namespace {

using io::tpch::TpchGenerator;
using io::tpch::TpchGenOptions;
using io::tpch::TpchGenReport;
using io::tpch::TpchScale;

struct TpchgenArgs {
  std::string scale_factor;
  std::string output;
  std::string format = "tbl";
  std::string tables;
  int parts = 0;
  int threads = 0;
  bool quiet = false;
};

Result<TpchGenOptions> MakeOptions(const TpchgenArgs& args) {
  SHOAL_ASSIGN_OR_RETURN(TpchScale scale, TpchScale::Parse(args.scale_factor));
  if (args.format != "tbl" && args.format != "csv" && args.format != "parquet") {
    return Status::InvalidArgument("unknown output format '{}'", args.format)
        .WithHint("use --format tbl, csv or parquet");
  }
  TpchGenOptions options(scale);
  options.output_dir = args.output;
  options.parts = args.parts;
  options.threads = args.threads;
  std::string_view rest = args.tables;
  while (!rest.empty()) {
    size_t comma = rest.find(',');
    std::string_view name = rest.substr(0, comma);
    auto table = io::tpch::TpchTableFromName(name);
    if (!table)
      return Status::InvalidArgument("unknown TPC-H table '{}'", name);
    options.tables.push_back(*table);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
  }
  return options;
}

// Parent rows (orders, parts, ...) per generated chunk of a CSV / Parquet file.
constexpr int64_t kTabularChunkRows = 30000;

// One file of a CSV / Parquet data set: parent rows [begin, end) of `table`.
struct TabularFile {
  io::tpch::TpchTable table;
  std::string path;
  int64_t begin = 0;
  int64_t end = 0;
};

// Writes one file: chunks of parent rows are generated on `threads` worker threads, at most
// `threads` + 1 ahead of the writer, and written in order by the calling thread (which encodes
// Parquet / formats CSV meanwhile), so generation and encoding overlap.
Result<int64_t> WriteTabularFile(const io::tpch::TpchScale& scale, const io::tpch::TextPool& text,
                                 const TabularFile& file, const io::CopyWriteOptions& options,
                                 int threads) {
  using Batches = std::vector<columnar::RecordBatchPtr>;
  SHOAL_ASSIGN_OR_RETURN(auto writer,
                         io::OpenCopyWriter(file.path, io::tpch::TpchSchema(file.table), options));
  std::deque<std::future<Result<Batches>>> in_flight;
  int64_t next = file.begin;
  auto launch = [&] {
    const int64_t b = next;
    const int64_t e = std::min(file.end, b + kTabularChunkRows);
    next = e;
    in_flight.push_back(std::async(std::launch::async, [&scale, &text, &file, b, e] {
      return io::tpch::GenerateTpchBatches(scale, text, file.table, b, e);
    }));
  };
  int64_t rows = 0;
  Status status;
  while (status.ok() && (next < file.end || !in_flight.empty())) {
    while (next < file.end && static_cast<int>(in_flight.size()) <= threads) {
      launch();
    }
    Result<Batches> batches = in_flight.front().get();
    in_flight.pop_front();
    if (!batches.ok()) {
      status = batches.status();
      break;
    }
    for (const auto& batch : *batches) {
      rows += batch->num_rows();
      status = writer->WriteBatch(batch);
      if (!status.ok()) {
        break;
      }
    }
  }
  for (auto& f : in_flight) {
    (void)f.get();
  }
  if (!status.ok()) {
    writer->Abort();
    return status;
  }
  SHOAL_RETURN_IF_ERROR(writer->Close());
  return rows;
}

// --format csv | parquet: typed rows from the generator straight into the file writers (the same
// types as the in-memory TPC-H tables: int64 keys, decimal(15,2) money, dates, varchar).
Status RunTabularTpchgen(const TpchgenArgs& args, const TpchGenOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  int threads = options.threads > 0
                    ? options.threads
                    : static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));
  io::CopyWriteOptions write_options;
  write_options.format = args.format == "csv" ? io::CopyFormat::kCsv : io::CopyFormat::kParquet;
  write_options.parquet.threads = threads;
  SHOAL_RETURN_IF_ERROR(io::FileWriter::CreateDirectories(options.output_dir));
  SHOAL_ASSIGN_OR_RETURN(std::shared_ptr<const io::tpch::TextPool> text,
                         io::tpch::TextPool::Build(threads));
  std::vector<io::tpch::TpchTable> tables = options.tables;
  if (tables.empty()) {
    tables.assign(std::begin(io::tpch::kAllTpchTables), std::end(io::tpch::kAllTpchTables));
  }
  const int parts = std::max(options.parts, 1);
  std::vector<TabularFile> files;
  for (io::tpch::TpchTable table : tables) {
    if (options.parts > 0) {
      SHOAL_RETURN_IF_ERROR(io::FileWriter::CreateDirectories(
          fmt::format("{}/{}", options.output_dir, io::tpch::TpchTableName(table))));
    }
    const int64_t parent_rows = io::tpch::TpchParentRows(options.scale, table);
    for (int p = 1; p <= parts; ++p) {
      auto [begin, end] = TpchGenerator::PartRange(parent_rows, parts, p);
      std::string path = TpchGenerator::OutputPath(options.output_dir, table, options.parts, p);
      path = path.substr(0, path.size() - 3) + (args.format == "csv" ? "csv" : "parquet");
      files.push_back({table, std::move(path), begin, end});
    }
  }
  int64_t total_rows = 0;
  for (const TabularFile& file : files) {
    SHOAL_ASSIGN_OR_RETURN(int64_t rows,
                           WriteTabularFile(options.scale, *text, file, write_options, threads));
    total_rows += rows;
    if (!args.quiet) {
      fmt::print("{:<9} {:>12} rows  {}\n", io::tpch::TpchTableName(file.table), rows, file.path);
    }
  }
  if (!args.quiet) {
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    fmt::print("TPC-H SF {} written to {} as {}: {} rows in {:.2f} s on {} threads\n",
               options.scale.effective_scale_factor(), args.output, args.format, total_rows,
               seconds, threads);
  }
  return Status::OK();
}

Status RunTpchgen(const TpchgenArgs& args) {
  SHOAL_ASSIGN_OR_RETURN(TpchGenOptions options, MakeOptions(args));
  const double requested = options.scale.scale_factor();
  const double effective = options.scale.effective_scale_factor();
  if (requested != effective && !args.quiet) {
    std::fprintf(stderr,
                 "note: scale factor %g generates the data of %g, as dbgen does (it truncates to "
                 "an integer above 1 and to thousandths below)\n",
                 requested, effective);
  }
  if (args.format != "tbl") {
    return RunTabularTpchgen(args, options);
  }
  TpchGenerator generator(std::move(options));
  SHOAL_ASSIGN_OR_RETURN(TpchGenReport report, generator.Run());
  if (!args.quiet) {
    int64_t rows = 0;
    int64_t bytes = 0;
    for (const TpchGenReport::Table& t : report.tables) {
      fmt::print("{:<9} {:>12} rows {:>14} bytes\n", io::tpch::TpchTableName(t.table), t.rows,
                 t.bytes);
      rows += t.rows;
      bytes += t.bytes;
    }
    fmt::print(
        "TPC-H SF {} written to {}: {} rows, {} bytes in {:.2f} s on {} threads "
        "(text pool {:.2f} s)\n",
        effective, args.output, rows, bytes, report.total_seconds, report.threads,
        report.text_pool_seconds);
  }
  return Status::OK();
}

}  // namespace

void RegisterTpchgenCommand(CLI::App& app) {
  auto args = std::make_shared<TpchgenArgs>();
  CLI::App* cmd = app.add_subcommand(
      "tpchgen",
      "Generate TPC-H data as .tbl files identical to the reference dbgen's, or as CSV / Parquet");
  cmd->add_option("-s,--scale-factor", args->scale_factor,
                  "Scale factor, e.g. 0.01, 1, 10 (as dbgen -s)")
      ->required();
  cmd->add_option("-o,--output", args->output, "Output directory (created if missing)")->required();
  cmd->add_option("--format", args->format,
                  "Output format: tbl (dbgen's, default), csv (with a header) or parquet");
  cmd->add_option("--parts", args->parts,
                  "Write each table as N files <table>/part-<i>.tbl, split by rows as "
                  "dbgen -C N -S i");
  cmd->add_option("--threads", args->threads, "Worker threads (default: one per core)");
  cmd->add_option("--tables", args->tables, "Comma-separated tables to write (default: all eight)");
  cmd->add_flag("-q,--quiet", args->quiet, "Print nothing on success");
  cmd->callback([args] {
    Status st = RunTpchgen(*args);
    if (!st.ok()) {
      std::fprintf(stderr, "shoal tpchgen: error: %s\n", st.UserMessage().c_str());
      throw CLI::RuntimeError(1);
    }
  });
}

}  // namespace shoal::cli
