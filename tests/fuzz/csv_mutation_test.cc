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
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <unistd.h>

#include "shoal/columnar/record_batch.h"
#include "shoal/io/delimited_table.h"

namespace shoal::io {
namespace {

int64_t EnvInt(const char* name, int64_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtoll(v, nullptr, 10) : fallback;
}

struct Input {
  std::string name;
  DelimitedFormat format;
  std::string text;
};

struct Stats {
  int64_t reads = 0;
  int64_t batches = 0;
  int failures = 0;
  std::map<std::string, int64_t> outcomes;
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
  return {{"tbl", DelimitedFormat::kTbl, tbl}, {"csv", DelimitedFormat::kCsv, csv}};
}

class Mutator {
 public:
  explicit Mutator(uint64_t seed) : rng_(seed) {}

  std::string Mutate(const Input& in) {
    std::string b = in.text;
    const int rounds = 1 + static_cast<int>(Below(4));
    const char delimiter = in.format == DelimitedFormat::kTbl ? '|' : ',';
    for (int r = 0; r < rounds && !b.empty(); ++r) {
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
          b.resize(pos);
          break;
        case 5: {  // remove a range (joins lines)
          b.erase(pos, std::min<size_t>(1 + Below(40), b.size() - pos));
          break;
        }
        case 6: {  // duplicate a range
          const size_t n = std::min<size_t>(1 + Below(40), b.size() - pos);
          b.insert(pos, b.substr(pos, n));
          break;
        }
        default: {  // replace a field's digits with letters
          for (size_t i = pos; i < b.size() && i < pos + 4; ++i)
            if (b[i] >= '0' && b[i] <= '9')
              b[i] = static_cast<char>('a' + (b[i] - '0'));
          break;
        }
      }
    }
    return b;
  }

 private:
  size_t Below(size_t n) { return n == 0 ? 0 : static_cast<size_t>(rng_() % n); }
  std::mt19937_64 rng_;
};

bool Acceptable(const Status& st) {
  switch (st.code()) {
    case StatusCode::kOk:
    case StatusCode::kInvalidData:
    case StatusCode::kInvalidArgument:
    case StatusCode::kOutOfRange:
    case StatusCode::kNotImplemented: return true;
    default: return false;
  }
}

Status ReadTable(const std::string& path, DelimitedFormat format, columnar::SchemaPtr schema,
                 const std::map<std::string, std::string>& options, const std::string& what,
                 Stats* stats) {
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
      if (!valid.ok()) {
        ++stats->failures;
        std::fprintf(stderr, "FAIL %s: a returned batch does not validate: %s\n", what.c_str(),
                     valid.ToString().c_str());
      }
    }
  }
  return Status::OK();
}

void Check(const Status& st, const std::string& what, Stats* stats) {
  stats->outcomes[st.ok() ? "OK" : std::string(StatusCodeName(st.code()))]++;
  if (Acceptable(st))
    return;
  ++stats->failures;
  std::fprintf(stderr, "FAIL %s: unexpected status %s\n", what.c_str(), st.ToString().c_str());
}

int Run() {
  const int64_t iterations = EnvInt("SHOAL_FUZZ_ITERATIONS", 2000);
  const auto seed = static_cast<uint64_t>(EnvInt("SHOAL_FUZZ_SEED", 20241129));
  const auto start = std::chrono::steady_clock::now();
  const std::vector<Input> corpus = Corpus();
  const std::string base = (std::filesystem::temp_directory_path() /
                            ("shoal_csv_mutation_" + std::to_string(::getpid())))
                               .string();
  const columnar::SchemaPtr schema = TestSchema();
  const std::map<std::string, std::string> csv_header = {{"header", "true"}};

  // Every way one input is read: given schema in one range; given schema in small ranges (TBL
  // only, CSV with quotes is never split); CSV with the schema inferred from the text.
  auto read_all = [&](const Input& in, const std::string& text, const std::string& what,
                      Stats* stats) {
    const std::string path = base + (in.format == DelimitedFormat::kTbl ? ".tbl" : ".csv");
    std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
    std::map<std::string, std::string> options;
    if (in.format == DelimitedFormat::kCsv)
      options = csv_header;
    Check(ReadTable(path, in.format, schema, options, what, stats), what + " schema", stats);
    if (in.format == DelimitedFormat::kTbl) {
      options["split_bytes"] = "97";
      Check(ReadTable(path, in.format, schema, options, what, stats), what + " split", stats);
    } else {
      Check(ReadTable(path, in.format, nullptr, options, what, stats), what + " inferred", stats);
    }
    std::remove(path.c_str());
  };

  Stats clean;
  for (const Input& in : corpus) {
    read_all(in, in.text, in.name, &clean);
    if (clean.outcomes.size() != 1 || clean.outcomes.count("OK") == 0) {
      std::fprintf(stderr, "FAIL corpus input %s does not read cleanly\n", in.name.c_str());
      for (const auto& [code, n] : clean.outcomes)
        std::fprintf(stderr, "  %s %lld\n", code.c_str(), static_cast<long long>(n));
      return 1;
    }
  }

  Stats stats;
  Mutator mutator(seed);
  for (int64_t i = 0; i < iterations; ++i) {
    const Input& in = corpus[static_cast<size_t>(i) % corpus.size()];
    read_all(in, mutator.Mutate(in), fmt::format("iteration {} ({})", i, in.name), &stats);
    if (stats.failures > 20)
      break;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf(
      "csv mutation test: seed %llu, %lld iterations over %zu inputs, %lld reads, %lld "
      "batches returned, %.1f s\n",
      static_cast<unsigned long long>(seed), static_cast<long long>(iterations), corpus.size(),
      static_cast<long long>(stats.reads), static_cast<long long>(stats.batches), seconds);
  for (const auto& [code, n] : stats.outcomes)
    std::printf("  %-16s %lld\n", code.c_str(), static_cast<long long>(n));
  if (clean.failures + stats.failures > 0) {
    std::printf("FAILED: %d unexpected outcomes\n", clean.failures + stats.failures);
    return 1;
  }
  if (stats.outcomes["InvalidData"] + stats.outcomes["InvalidArgument"] == 0 && iterations >= 100) {
    std::printf("FAILED: no mutation was refused\n");
    return 1;
  }
  std::printf("PASSED\n");
  return 0;
}

}  // namespace
}  // namespace shoal::io

int main() {
  return shoal::io::Run();
}
