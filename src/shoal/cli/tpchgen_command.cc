#include "shoal/cli/tpchgen_command.h"

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "shoal/common/result.h"
#include "shoal/io/tpch/scale.h"
#include "shoal/io/tpch/tpch_generator.h"

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
  if (args.format != "tbl") {
    return Status::NotImplemented("output format '{}' is not supported; the only format is 'tbl'",
                                  args.format);
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
      "tpchgen", "Generate TPC-H data as .tbl files identical to the reference dbgen's");
  cmd->add_option("-s,--scale-factor", args->scale_factor,
                  "Scale factor, e.g. 0.01, 1, 10 (as dbgen -s)")
      ->required();
  cmd->add_option("-o,--output", args->output, "Output directory (created if missing)")->required();
  cmd->add_option("--format", args->format, "Output format; only 'tbl'");
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
