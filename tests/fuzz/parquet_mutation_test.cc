// Mutation test of the Parquet reader: the small DuckDB-written files in tests/data/parquet (every
// type, each codec, v1 and v2 pages, dictionary / delta / byte-stream-split encodings, several row
// groups) are corrupted -- bit flips, bytes and little-endian integers overwritten with edge
// values, truncation, duplicated and removed byte ranges -- then opened as a table and read in
// full. The reader may refuse an input, but only with InvalidData, NotImplemented or (for a footer
// that claims more rows than the pool's limit allows) OutOfMemory; any other outcome, a batch that
// fails Validate, or a sanitizer report fails the test.
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
#include "shoal/io/parquet/parquet_table.h"

namespace shoal::io::parquet {
namespace {

// Far above what any corpus file can legitimately need, far below what a bogus row count asks.
constexpr int64_t kPoolLimit = int64_t{256} << 20;

int64_t EnvInt(const char* name, int64_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtoll(v, nullptr, 10) : fallback;
}

struct Input {
  std::string name;
  std::string bytes;
  size_t footer_start = 0;  // the thrift footer, where mutations matter most
};

struct Stats {
  int64_t reads = 0;
  int64_t batches = 0;
  int failures = 0;
  std::map<std::string, int64_t> outcomes;
};

class Mutator {
 public:
  explicit Mutator(uint64_t seed) : rng_(seed) {}

  std::string Mutate(const Input& in) {
    std::string b = in.bytes;
    const int rounds = 1 + static_cast<int>(Below(3));
    for (int r = 0; r < rounds && !b.empty(); ++r) {
      // Half the mutations hit the footer (and the 8-byte trailer), the rest anywhere.
      const size_t lo = Below(2) == 0 && in.footer_start < b.size() ? in.footer_start : 0;
      const size_t pos = lo + Below(b.size() - lo);
      switch (Below(7)) {
        case 0:  // flip one bit
          b[pos] = static_cast<char>(b[pos] ^ (1 << Below(8)));
          break;
        case 1:  // random byte
          b[pos] = static_cast<char>(Below(256));
          break;
        case 2: {  // little-endian integer with an edge value
          static const uint32_t kEdges[] = {0,          1,          0x7F,       0x80,    0xFF,
                                            0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0x10000, 4096};
          const uint32_t v = kEdges[Below(std::size(kEdges))];
          const size_t n = std::min<size_t>(1 + Below(4), b.size() - pos);
          std::memcpy(b.data() + pos, &v, n);
          break;
        }
        case 3:  // truncate
          b.resize(pos);
          break;
        case 4: {  // remove a range
          const size_t n = std::min<size_t>(1 + Below(64), b.size() - pos);
          b.erase(pos, n);
          break;
        }
        case 5: {  // duplicate a range
          const size_t n = std::min<size_t>(1 + Below(64), b.size() - pos);
          b.insert(pos, b.substr(pos, n));
          break;
        }
        default: {  // splice: overwrite with bytes from elsewhere in the file
          const size_t from = Below(b.size());
          const size_t n =
              std::min({static_cast<size_t>(1 + Below(32)), b.size() - pos, b.size() - from});
          std::memmove(b.data() + pos, b.data() + from, n);
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

void CheckStatus(const Status& st, const std::string& what, Stats* stats) {
  stats->outcomes[st.ok() ? "OK" : std::string(StatusCodeName(st.code()))]++;
  if (st.ok() || st.code() == StatusCode::kInvalidData ||
      st.code() == StatusCode::kNotImplemented || st.code() == StatusCode::kOutOfMemory)
    return;
  ++stats->failures;
  std::fprintf(stderr, "FAIL %s: unexpected status %s\n", what.c_str(), st.ToString().c_str());
}

// Opens `path` as a table and reads every row group of every column; returns the first error.
Status ReadTable(const std::string& path, const std::string& what, Stats* stats) {
  ++stats->reads;
  SHOAL_ASSIGN_OR_RETURN(auto table, ParquetTable::Make(path, nullptr, {}));
  ScanRequest request;
  for (int i = 0; i < table->schema()->num_fields(); ++i)
    request.projection.push_back(i);
  request.batch_size = 64;
  ScanContext context;
  context.pool = MemoryPool::MakeRoot("fuzz", kPoolLimit);
  (void)table->statistics();
  SHOAL_ASSIGN_OR_RETURN(auto units, table->PlanScan(request));
  Status first;
  for (const auto& unit : units) {
    auto reader = table->OpenUnit(unit, request, context);
    if (!reader.ok()) {
      if (first.ok())
        first = reader.status();
      continue;
    }
    for (int n = 0; n < 100000; ++n) {
      auto batch = (*reader)->Next();
      if (!batch.ok()) {
        if (first.ok())
          first = batch.status();
        break;
      }
      if (*batch == nullptr)
        break;
      ++stats->batches;
      Status valid = (*batch)->Validate();
      if (!valid.ok()) {
        ++stats->failures;
        std::fprintf(stderr, "FAIL %s: a returned batch does not validate: %s\n", what.c_str(),
                     valid.ToString().c_str());
      }
    }
  }
  return first;
}

int Run() {
  const int64_t iterations = EnvInt("SHOAL_FUZZ_ITERATIONS", 2000);
  const auto seed = static_cast<uint64_t>(EnvInt("SHOAL_FUZZ_SEED", 20241129));
  const auto start = std::chrono::steady_clock::now();
  const std::string dir = SHOAL_PARQUET_TEST_DATA_DIR;
  std::vector<Input> corpus;
  for (const char* name : {"types_snappy.parquet", "types_v2_zstd.parquet",
                           "types_v2_snappy.parquet", "types_gzip.parquet", "types_lz4.parquet",
                           "types_uncompressed.parquet", "types_zstd.parquet", "sorted.parquet"}) {
    std::ifstream in(dir + "/" + name, std::ios::binary);
    Input input{name, std::string(std::istreambuf_iterator<char>(in), {}), 0};
    if (input.bytes.size() < 12) {
      std::fprintf(stderr, "FAIL cannot read corpus file %s/%s\n", dir.c_str(), name);
      return 1;
    }
    uint32_t footer;
    std::memcpy(&footer, input.bytes.data() + input.bytes.size() - 8, 4);
    input.footer_start = input.bytes.size() - 8 - std::min<size_t>(footer, input.bytes.size() - 8);
    corpus.push_back(std::move(input));
  }
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("shoal_parquet_mutation_" + std::to_string(::getpid()) + ".parquet"))
                               .string();

  // The unmutated inputs must read in full, or the mutations prove nothing.
  Stats clean;
  for (const Input& in : corpus) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << in.bytes;
    Status st = ReadTable(path, in.name, &clean);
    if (!st.ok()) {
      std::fprintf(stderr, "FAIL corpus input %s does not read: %s\n", in.name.c_str(),
                   st.ToString().c_str());
      return 1;
    }
  }

  Stats stats;
  Mutator mutator(seed);
  for (int64_t i = 0; i < iterations; ++i) {
    const Input& in = corpus[static_cast<size_t>(i) % corpus.size()];
    const std::string mutated = mutator.Mutate(in);
    std::ofstream(path, std::ios::binary | std::ios::trunc) << mutated;
    const std::string what = fmt::format("iteration {} ({})", i, in.name);
    CheckStatus(ReadTable(path, what, &stats), what, &stats);
    if (stats.failures > 20)
      break;
  }
  std::remove(path.c_str());
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf(
      "parquet mutation test: seed %llu, %lld iterations over %zu files, %lld reads, "
      "%lld batches returned, %.1f s\n",
      static_cast<unsigned long long>(seed), static_cast<long long>(iterations), corpus.size(),
      static_cast<long long>(stats.reads), static_cast<long long>(stats.batches), seconds);
  for (const auto& [code, n] : stats.outcomes)
    std::printf("  %-16s %lld\n", code.c_str(), static_cast<long long>(n));
  if (clean.failures + stats.failures > 0) {
    std::printf("FAILED: %d unexpected outcomes\n", clean.failures + stats.failures);
    return 1;
  }
  if (stats.outcomes["InvalidData"] == 0 && iterations >= 100) {
    std::printf("FAILED: no mutation was refused as InvalidData\n");
    return 1;
  }
  std::printf("PASSED\n");
  return 0;
}

}  // namespace
}  // namespace shoal::io::parquet

int main() {
  return shoal::io::parquet::Run();
}
