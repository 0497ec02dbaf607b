// Mutation test of the Parquet reader: the small DuckDB-written files in tests/data/parquet (every
// type, each codec, v1 and v2 pages, dictionary / delta / byte-stream-split encodings, several row
// groups, nested columns with their repetition and definition levels) are corrupted -- bit flips,
// bytes and little-endian integers overwritten with edge values, truncation, duplicated and removed
// byte ranges -- then opened as a table and read in full. The reader may refuse an input, but only
// with InvalidData, NotImplemented or (for a footer that claims more rows than the pool's limit
// allows) OutOfMemory; any other outcome, a batch that fails Validate, or a sanitizer report fails
// the test.
//
// Deterministic: SHOAL_FUZZ_SEED (default 20241129) and SHOAL_FUZZ_ITERATIONS (default 2000).
// Run under ASan + UBSan in CI (label `fuzz`).
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "shoal/columnar/record_batch.h"
#include "shoal/io/parquet/parquet_table.h"
#include "tests/support/mutation_harness.h"

namespace shoal::io::parquet {
namespace {

using shoal::testing::MutationHarness;
using shoal::testing::MutationStats;
namespace mutate = shoal::testing::mutate;

// Far above what any corpus file can legitimately need, far below what a bogus row count asks.
constexpr int64_t kPoolLimit = int64_t{256} << 20;

struct Input {
  std::string name;
  std::string bytes;
  size_t footer_start = 0;  // the thrift footer, where mutations matter most
};

class Mutator : public shoal::testing::MutationRng {
 public:
  using MutationRng::MutationRng;

  std::string Mutate(const Input& in) {
    return EditRounds(in.bytes, 3, [&](std::string* edited) {
      std::string& b = *edited;
      // Half the mutations hit the footer (and the 8-byte trailer), the rest anywhere.
      const size_t lo = Below(2) == 0 && in.footer_start < b.size() ? in.footer_start : 0;
      const size_t pos = lo + Below(b.size() - lo);
      switch (Below(7)) {
        case 0:  // flip one bit
          mutate::FlipBit(&b, pos, static_cast<int>(Below(8)));
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
          mutate::Truncate(&b, pos);
          break;
        case 4:  // remove a range
          mutate::EraseRange(&b, pos, 1 + Below(64));
          break;
        case 5:  // duplicate a range
          mutate::DuplicateRange(&b, pos, pos, 1 + Below(64));
          break;
        default: {  // splice: overwrite with bytes from elsewhere in the file
          const size_t from = Below(b.size());
          const size_t n =
              std::min({static_cast<size_t>(1 + Below(32)), b.size() - pos, b.size() - from});
          std::memmove(b.data() + pos, b.data() + from, n);
          break;
        }
      }
    });
  }
};

// Every outcome other than these (and OK) is a failure.
constexpr std::initializer_list<StatusCode> kAcceptable = {
    StatusCode::kInvalidData, StatusCode::kNotImplemented, StatusCode::kOutOfMemory};

// Opens `path` as a table and reads every row group of every column; returns the first error.
Status ReadTable(const std::string& path, const std::string& what, MutationStats* stats) {
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
      if (!valid.ok())
        stats->Fail(what, "a returned batch does not validate: " + valid.ToString());
    }
  }
  return first;
}

int Run() {
  MutationHarness harness("parquet mutation test", 20241129, 2000);
  const std::string dir = SHOAL_PARQUET_TEST_DATA_DIR;
  std::vector<Input> corpus;
  for (const char* name :
       {"types_snappy.parquet", "types_v2_zstd.parquet", "types_v2_snappy.parquet",
        "types_gzip.parquet", "types_lz4.parquet", "types_uncompressed.parquet",
        "types_zstd.parquet", "sorted.parquet",
        // Shoal's own writer: uncompressed pages with CRC-32s (PageHeader.crc)
        "shoal_crc_uncompressed.parquet",
        // Nested columns (lists of lists, lists of structs, structs of lists,
        // maps; NULLs at every level): DuckDB's v1 and v2 pages, Shoal's writer
        "nested_shapes.parquet", "nested_shapes_v2.parquet", "shoal_nested.parquet"}) {
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
  for (const Input& in : corpus) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << in.bytes;
    Status st = ReadTable(path, in.name, &harness.clean());
    if (!st.ok()) {
      std::fprintf(stderr, "FAIL corpus input %s does not read: %s\n", in.name.c_str(),
                   st.ToString().c_str());
      return 1;
    }
  }

  Mutator mutator(harness.seed());
  harness.RunOverCorpus(
      corpus, [&](const Input& in) { return mutator.Mutate(in); },
      [&](const Input&, const std::string& mutant, const MutationHarness::Iteration& it) {
        std::ofstream(path, std::ios::binary | std::ios::trunc) << mutant;
        it.stats->Check(ReadTable(path, it.what, it.stats), it.what, kAcceptable);
      });
  std::remove(path.c_str());
  return harness.Finish({"InvalidData"}, fmt::format("over {} files", corpus.size()));
}

}  // namespace
}  // namespace shoal::io::parquet

int main() {
  return shoal::io::parquet::Run();
}
