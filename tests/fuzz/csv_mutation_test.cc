// Mutation test of the TBL / CSV reader (io/delimited_reader.*): small valid TBL and CSV texts with
// integer, decimal, date, timestamp-free text and float columns are corrupted -- ragged lines
// (delimiters added and removed), broken quotes, bad dates and decimals, overlong numbers,
// control bytes, truncation -- and read in full through DelimitedTable, as one range and split
// into small byte ranges, with the schema given and (for CSV) inferred. Every outcome must be OK or
// a clean InvalidData / InvalidArgument / OutOfRange / NotImplemented error; a batch that fails
// Validate or a sanitizer report fails the test.
//
// Deterministic: SHOAL_FUZZ_SEED (default 20241129) and SHOAL_FUZZ_ITERATIONS (default 2000).
// Run under ASan + UBSan in CI (label `fuzz`).
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <unistd.h>

#include "shoal/columnar/record_batch.h"
#include "shoal/io/delimited_table.h"
#include "tests/support/mutation_harness.h"

namespace shoal::io {
namespace {

using shoal::testing::MutationHarness;
using shoal::testing::MutationStats;
namespace mutate = shoal::testing::mutate;

struct Input {
  std::string name;
  DelimitedFormat format;
  std::string text;
};

columnar::SchemaPtr TestSchema() {
  using columnar::DataType;
  return std::make_shared<const columnar::Schema>(
      std::vector<columnar::Field>{{"id", DataType::Int64()},
                                   {"price", DataType::Decimal(15, 2)},
                                   {"day", DataType::Date32()},
                                   {"name", DataType::Utf8()},
                                   {"ratio", DataType::Float64()},
                                   {"small", DataType::Int32()},
                                   {"big", DataType::Decimal(38, 6)}});
}

std::vector<Input> Corpus() {
  std::string tbl;
  std::string csv = "id,price,day,name,ratio,small,big\n";
  for (int i = 0; i < 40; ++i) {
    const std::string price = std::to_string(i * 37 - 500) + "." + std::to_string(10 + i % 90);
    const std::string day = fmt::format("19{:02}-{:02}-{:02}", 70 + i % 30, 1 + i % 12, 1 + i % 28);
    const std::string name = i % 7 == 0 ? "" : "name " + std::to_string(i);
    const std::string ratio = std::to_string(i * 0.125 - 2);
    const std::string big = std::to_string(i) + "12345678901234567890.123456";
    tbl += fmt::format("{}|{}|{}|{}|{}|{}|{}|\n", i, price, day, name, ratio, i * 1000, big);
    const std::string quoted = i % 5 == 0 ? "\"say \"\"hi\"\", " + name + "\"" : name;
    csv +=
        fmt::format("{},{},{},{},{},{},{}\n", i, price, day, quoted, ratio, i % 3 ? "" : "7", big);
  }
  // A byte-order mark before the header, as Windows tools write "UTF-8" text.
  return {{"tbl", DelimitedFormat::kTbl, tbl},
          {"csv", DelimitedFormat::kCsv, csv},
          {"csv_bom", DelimitedFormat::kCsv, "\xEF\xBB\xBF" + csv}};
}

class Mutator : public shoal::testing::MutationRng {
 public:
  using MutationRng::MutationRng;

  std::string Mutate(const Input& in) {
    const char delimiter = in.format == DelimitedFormat::kTbl ? '|' : ',';
    return EditRounds(in.text, 4, [&](std::string* edited) {
      std::string& b = *edited;
      const size_t pos = Below(b.size());
      static const char* kTokens[] = {
          "\"",         "\"\"", "\n",   "\r\n",       "2024-02-30",
          "1999-13-01", "-",    ".",    "e309",       "99999999999999999999999",
          "1.2.3",      "\xC3", "\x00", "\\",         "NaN",
          " ",          "+",    "1e",   "0000-00-00", "12345678901234567890.1234567"};
      switch (Below(8)) {
        case 0:  // extra delimiter: a ragged line
          b.insert(pos, 1, delimiter);
          break;
        case 1: {  // remove a delimiter
          const size_t d = b.find(delimiter, pos);
          if (d != std::string::npos)
            b.erase(d, 1);
          break;
        }
        case 2: {  // insert a troublesome token
          const char* t = kTokens[Below(std::size(kTokens))];
          b.insert(pos, t, std::max<size_t>(1, std::strlen(t)));
          break;
        }
        case 3:  // random byte
          b[pos] = static_cast<char>(Below(256));
          break;
        case 4:  // truncate
          mutate::Truncate(&b, pos);
          break;
        case 5:  // remove a range (joins lines)
          mutate::EraseRange(&b, pos, 1 + Below(40));
          break;
        case 6:  // duplicate a range
          mutate::DuplicateRange(&b, pos, pos, 1 + Below(40));
          break;
        default: {  // replace a field's digits with letters
          for (size_t i = pos; i < b.size() && i < pos + 4; ++i)
            if (b[i] >= '0' && b[i] <= '9')
              b[i] = static_cast<char>('a' + (b[i] - '0'));
          break;
        }
      }
    });
  }
};

// Every outcome other than these (and OK) is a failure.
constexpr std::initializer_list<StatusCode> kAcceptable = {
    StatusCode::kInvalidData, StatusCode::kInvalidArgument, StatusCode::kOutOfRange,
    StatusCode::kNotImplemented};

Status ReadTable(const std::string& path, DelimitedFormat format, columnar::SchemaPtr schema,
                 const std::map<std::string, std::string>& options, const std::string& what,
                 MutationStats* stats) {
  ++stats->reads;
  SHOAL_ASSIGN_OR_RETURN(auto table, DelimitedTable::Make(format, path, schema, options));
  ScanRequest request;
  for (int i = 0; i < table->schema()->num_fields(); ++i)
    request.projection.push_back(i);
  request.batch_size = 16;
  ScanContext context;
  context.pool = MemoryPool::MakeRoot("fuzz", int64_t{256} << 20);
  SHOAL_ASSIGN_OR_RETURN(auto units, table->PlanScan(request));
  for (const auto& unit : units) {
    SHOAL_ASSIGN_OR_RETURN(auto reader, table->OpenUnit(unit, request, context));
    for (int n = 0; n < 100000; ++n) {
      SHOAL_ASSIGN_OR_RETURN(auto batch, reader->Next());
      if (batch == nullptr)
        break;
      ++stats->batches;
      Status valid = batch->Validate();
      if (!valid.ok())
        stats->Fail(what, "a returned batch does not validate: " + valid.ToString());
    }
  }
  return Status::OK();
}

int Run() {
  MutationHarness harness("csv mutation test", 20241129, 2000);
  const std::vector<Input> corpus = Corpus();
  const std::string base = (std::filesystem::temp_directory_path() /
                            ("shoal_csv_mutation_" + std::to_string(::getpid())))
                               .string();
  const columnar::SchemaPtr schema = TestSchema();
  const std::map<std::string, std::string> csv_header = {{"header", "true"}};

  // Every way one input is read: given schema in one range; given schema in small ranges (TBL
  // only, CSV with quotes is never split); CSV with the schema inferred from the text.
  auto read_all = [&](const Input& in, const std::string& text, const std::string& what,
                      MutationStats* stats) {
    const std::string path = base + (in.format == DelimitedFormat::kTbl ? ".tbl" : ".csv");
    std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
    std::map<std::string, std::string> options;
    if (in.format == DelimitedFormat::kCsv)
      options = csv_header;
    stats->Check(ReadTable(path, in.format, schema, options, what, stats), what + " schema",
                 kAcceptable);
    if (in.format == DelimitedFormat::kTbl) {
      options["split_bytes"] = "97";
      stats->Check(ReadTable(path, in.format, schema, options, what, stats), what + " split",
                   kAcceptable);
    } else {
      stats->Check(ReadTable(path, in.format, nullptr, options, what, stats), what + " inferred",
                   kAcceptable);
    }
    std::remove(path.c_str());
  };

  MutationStats& clean = harness.clean();
  for (const Input& in : corpus) {
    read_all(in, in.text, in.name, &clean);
    if (clean.outcomes.size() != 1 || clean.Count("OK") == 0) {
      std::fprintf(stderr, "FAIL corpus input %s does not read cleanly\n", in.name.c_str());
      for (const auto& [code, n] : clean.outcomes)
        std::fprintf(stderr, "  %s %lld\n", code.c_str(), static_cast<long long>(n));
      return 1;
    }
  }

  Mutator mutator(harness.seed());
  harness.RunOverCorpus(
      corpus, [&](const Input& in) { return mutator.Mutate(in); },
      [&](const Input& in, const std::string& mutant, const MutationHarness::Iteration& it) {
        read_all(in, mutant, it.what, it.stats);
      });
  return harness.Finish({"InvalidData", "InvalidArgument"},
                        fmt::format("over {} inputs", corpus.size()));
}

}  // namespace
}  // namespace shoal::io

int main() {
  return shoal::io::Run();
}
