// TpchGenerator: writes a TPC-H data set as .tbl files identical, byte for byte, to what the
// reference generator (dbgen 2.14, `dbgen -s SF`) writes, using every core.
//
// Each table's rows are split into chunks of about 300 KB of text. Workers take chunks in order,
// seek the generator's random streams straight to the chunk's first row (RowStream::SeekRow) and
// format the chunk into a buffer; whichever worker completes the next chunk of a file writes the
// run of completed chunks in order, so files come out sequential while generation stays parallel.
// At most a few chunks per worker are in flight, which bounds memory independently of the scale
// factor. Orders and lineitem (and part and partsupp) come from one pass, as in dbgen.
//
// With `parts` set, each table is written as DIR/<table>/part-<i>.tbl, i = 1..parts (zero-padded to
// the width of `parts` so names sort in order), split by rows exactly as `dbgen -C parts -S i`
// splits them (nation and region included, which dbgen does not split); concatenated in order, the
// parts are the single-file table.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "shoal/common/result.h"
#include "shoal/io/tpch/scale.h"
#include "shoal/io/tpch/tpch_table.h"

namespace shoal::io::tpch {

struct TpchGenOptions {
  explicit TpchGenOptions(TpchScale scale_in) : scale(scale_in) {}

  TpchScale scale;
  std::string output_dir;
  /// 0: one file DIR/<table>.tbl per table; N >= 1: DIR/<table>/part-<i>.tbl, i = 1..N.
  int parts = 0;
  /// 0: one per hardware thread.
  int threads = 0;
  /// Tables to write; empty means all eight.
  std::vector<TpchTable> tables;
  /// Rows (orders, parts, ...) per unit of parallel work; 0 picks a size per table. Tests use
  /// tiny chunks to exercise the ordering of writes.
  int64_t chunk_rows = 0;
};

struct TpchGenReport {
  struct Table {
    TpchTable table = TpchTable::kRegion;
    int64_t rows = 0;
    int64_t bytes = 0;
  };

  std::vector<Table> tables;
  int threads = 0;
  double text_pool_seconds = 0;
  double total_seconds = 0;
};

class TpchGenerator {
 public:
  explicit TpchGenerator(TpchGenOptions options) : options_(std::move(options)) {}

  /// Generates and writes the tables. Errors: the output directory or a file cannot be created or
  /// written (IoError), a bad option (InvalidArgument), out of memory.
  Result<TpchGenReport> Run();

  /// The row range [begin, end) (0-based) of part `part` (1-based) of `parts` for a table of
  /// `rows` rows: dbgen's split, equal parts with the remainder in the last.
  static std::pair<int64_t, int64_t> PartRange(int64_t rows, int parts, int part);

  /// The file of a table (or of one of its parts when parts > 0).
  static std::string OutputPath(const std::string& dir, TpchTable table, int parts, int part);

 private:
  TpchGenOptions options_;
};

}  // namespace shoal::io::tpch
