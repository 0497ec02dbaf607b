// Mutation test of the Arrow IPC readers: valid streams and files of every type (plain, LZ4 and
// zstd bodies, dictionaries with deltas and replacements, slices, empty batches) are corrupted in
// thousands of ways -- bit flips, bytes and integers overwritten with edge values, truncation,
// duplicated and removed chunks -- and fed to the stream and file readers. Every batch a reader
// returns is validated and every value formatted. The readers may refuse the input, but only with
// InvalidData or NotImplemented; anything else (OutOfMemory from a pool far larger than any
// input could justify, in particular), a batch that fails Validate, or a sanitizer report fails
// the test.
//
// Deterministic: SHOAL_FUZZ_SEED (default 20240601) and SHOAL_FUZZ_ITERATIONS (default 5000).
// Run under ASan + UBSan in CI (label `fuzz`).
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "shoal/columnar/builder.h"
#include "shoal/columnar/ipc/format/message_generated.h"
#include "shoal/columnar/ipc/reader.h"
#include "shoal/columnar/ipc/writer.h"
#include "tests/support/mutation_harness.h"
#include "tests/unit/columnar/ipc_test_data.h"

namespace shoal::columnar::ipc {
namespace {

using shoal::testing::MutationHarness;
using shoal::testing::MutationStats;
namespace mutate = shoal::testing::mutate;

namespace fbs = ::shoal::columnar::ipc::flatbuf;

struct Input {
  std::string name;
  std::string bytes;
  bool file_format;
  // Byte ranges holding metadata (message headers, the footer), where most mutations go: body
  // bytes are mostly values, which a reader is free to accept.
  std::vector<std::pair<size_t, size_t>> hot;
};

// Finds the metadata of each message by walking the framing of a valid input.
std::vector<std::pair<size_t, size_t>> HotRanges(const std::string& bytes, bool file_format) {
  std::vector<std::pair<size_t, size_t>> hot;
  size_t p = file_format ? 8 : 0;
  if (file_format)
    hot.emplace_back(0, 8);
  while (p + 8 <= bytes.size()) {
    uint32_t marker;
    int32_t length;
    size_t prefix = 8;
    std::memcpy(&marker, bytes.data() + p, 4);
    if (marker == 0xFFFFFFFFu) {
      std::memcpy(&length, bytes.data() + p + 4, 4);
    } else {
      std::memcpy(&length, &marker, 4);  // legacy framing
      prefix = 4;
    }
    if (length <= 0) {
      hot.emplace_back(p, p + prefix);  // the end-of-stream marker
      break;
    }
    const size_t meta_end = p + prefix + static_cast<size_t>(length);
    const auto* message = fbs::GetMessage(bytes.data() + p + prefix);
    const auto body = static_cast<size_t>(message->body_length());
    hot.emplace_back(p, meta_end);
    // The first bytes of a body hold bitmaps and compression length prefixes.
    hot.emplace_back(meta_end, std::min(bytes.size(), meta_end + std::min<size_t>(body, 32)));
    p = meta_end + body;
  }
  if (file_format) {
    int32_t footer;
    std::memcpy(&footer, bytes.data() + bytes.size() - 10, 4);
    hot.emplace_back(bytes.size() - 10 - static_cast<size_t>(footer), bytes.size());
  }
  return hot;
}

Input MakeInput(std::string name, const SchemaPtr& schema,
                const std::vector<RecordBatchPtr>& batches, bool file_format,
                WriteOptions options = {}) {
  auto bytes = testing::WriteIpc(schema, batches, file_format, options);
  SHOAL_CHECK(bytes.ok(), "{}: {}", name, bytes.status().ToString());
  Input in{std::move(name), std::move(*bytes), file_format, {}};
  in.hot = HotRanges(in.bytes, file_format);
  return in;
}

std::vector<Input> Corpus() {
  std::vector<Input> corpus;
  testing::RandomData data(99);
  auto schema = testing::AllTypesSchema();
  auto b1 = data.Batch(schema, 24);
  auto b2 = data.Batch(schema, 9, 0.5);
  // Batches sharing b1's dictionaries, for the file format.
  std::vector<ArrayPtr> shared = b2->columns();
  for (int c = 0; c < schema->num_fields(); ++c) {
    if (schema->field(c).type.id() == TypeId::kDictionary) {
      shared[static_cast<size_t>(c)] =
          data.DictionaryArray(schema->field(c).type, b1->column(c)->dictionary(), 9,
                               schema->field(c).nullable ? 0.3 : 0.0);
    }
  }
  auto b2_shared = RecordBatch::Make(schema, 9, shared);
  const std::vector<RecordBatchPtr> stream_batches = {b1, b2, b1->Slice(3, 13),
                                                      data.Batch(schema, 0)};
  const std::vector<RecordBatchPtr> file_batches = {b1, b2_shared, b1->Slice(5, 7)};
  const char* names[] = {"plain", "lz4", "zstd"};
  for (int c = 0; c < 3; ++c) {
    WriteOptions options;
    options.compression = static_cast<Compression>(c);
    corpus.push_back(
        MakeInput(fmt::format("stream/{}", names[c]), schema, stream_batches, false, options));
    corpus.push_back(
        MakeInput(fmt::format("file/{}", names[c]), schema, file_batches, true, options));
  }
  WriteOptions wide;
  wide.widen_decimal64 = true;
  corpus.push_back(MakeInput("stream/widened", schema, {b1}, false, wide));

  // Every nested shape (lists, large and fixed-size lists, structs, maps, nested in each other),
  // nulls at every level, empty lists, a slice; a stream and a compressed file.
  auto nested = testing::NestedSchema();
  auto n1 = data.Batch(nested, 12);
  auto n2 = data.Batch(nested, 5, 0.5);
  corpus.push_back(MakeInput("stream/nested", nested, {n1, n2, n1->Slice(3, 6)}, false));
  WriteOptions nested_zstd;
  nested_zstd.compression = Compression::kZstd;
  corpus.push_back(MakeInput("file/nested_zstd", nested, {n1, n2}, true, nested_zstd));

  // A dictionary that grows (deltas) and is replaced.
  const DataType dict_type = DataType::Dictionary(TypeId::kInt16, DataType::Utf8());
  auto dict_schema = testing::SchemaOf({dict_type, DataType::Int64()});
  BinaryBuilder small(DataType::Utf8(), DefaultMemoryPool());
  for (const char* v : {"alpha", "beta"})
    SHOAL_CHECK(small.Append(v).ok(), "");
  ArrayPtr d1 = *small.Finish();
  for (const char* v : {"alpha", "beta", "gamma", "δέλτα"})
    SHOAL_CHECK(small.Append(v).ok(), "");
  ArrayPtr d2 = *small.Finish();
  auto with = [&](const ArrayPtr& dictionary) {
    return RecordBatch::Make(dict_schema, 6,
                             {data.DictionaryArray(dict_type, dictionary, 6, 0.2),
                              data.Array(DataType::Int64(), 6, 0.2)});
  };
  auto replaced = with(data.Array(DataType::Utf8(), 3, 0.0));
  for (int c = 0; c < 3; ++c) {
    WriteOptions options;
    options.compression = static_cast<Compression>(c);
    corpus.push_back(MakeInput(fmt::format("stream/dictionaries/{}", names[c]), dict_schema,
                               {with(d1), with(d2), replaced, with(d1)}, false, options));
    corpus.push_back(MakeInput(fmt::format("file/deltas/{}", names[c]), dict_schema,
                               {with(d1), with(d2)}, true, options));
  }
  // Deltas of fixed-width and boolean dictionaries with nulls in the dictionary values.
  for (const DataType& value_type :
       {DataType::Int64(), DataType::Boolean(), DataType::Decimal(25, 5)}) {
    const DataType type = DataType::Dictionary(TypeId::kInt8, value_type);
    auto schema1 = testing::SchemaOf({type});
    ArrayPtr full = data.Array(value_type, 9, 0.3);
    std::vector<RecordBatchPtr> batches;
    for (int64_t n : {4, 6, 9}) {
      batches.push_back(
          RecordBatch::Make(schema1, 5, {data.DictionaryArray(type, full->Slice(0, n), 5, 0.2)}));
    }
    corpus.push_back(MakeInput("stream/deltas/" + value_type.ToString(), schema1, batches, false));
  }

  // What other writers produce: date64, 32- and 128-bit decimals, legacy framing, deltas.
  {
    using testing::Bits;
    using testing::Bytes;
    testing::RawStream raw;
    raw.legacy_framing = true;
    raw.Schema({{"date64", testing::Date64Type()},
                {"d32", testing::DecimalType(9, 2, 32)},
                {"d128", testing::DecimalType(18, 4, 128)},
                {"dict", testing::Utf8Type(), true, true, 3}});
    auto utf8_dictionary = [](std::vector<int32_t> offsets, std::string data) {
      const auto n = static_cast<int64_t>(offsets.size()) - 1;
      return testing::BatchSpec{n, {{n, 0}}, {"", Bytes(offsets), std::move(data)}};
    };
    raw.Dictionary(3, utf8_dictionary({0, 1, 3}, "abc"), false);
    raw.Dictionary(3, utf8_dictionary({0, 2}, "de"), true);
    const int64_t day = 86'400'000;
    raw.Batch({3,
               {{3, 1}, {3, 0}, {3, 1}, {3, 1}},
               {Bits({1, 0, 1}), Bytes<int64_t>({day, 0, -3 * day}), "",
                Bytes<int32_t>({1, -99999, 123456789}), Bits({0, 1, 1}),
                Bytes<int64_t>({0, 0, 5, 0, -7, -1}), Bits({1, 1, 0}), Bytes<int32_t>({2, 0, 1})}});
    raw.End();
    Input in{"stream/foreign", raw.bytes, false, {}};
    in.hot = HotRanges(in.bytes, false);
    corpus.push_back(std::move(in));
  }

  auto empty_schema = std::make_shared<const Schema>(std::vector<Field>{});
  corpus.push_back(MakeInput("stream/no_columns", empty_schema,
                             {RecordBatch::Make(empty_schema, 3, {})}, false));
  return corpus;
}

class Mutator {
 public:
  explicit Mutator(uint64_t seed) : rng_(seed) {}

  std::string Mutate(const Input& in) {
    std::string s = in.bytes;
    const int64_t rounds = Uniform(1, 3);
    for (int64_t r = 0; r < rounds && !s.empty(); ++r)
      MutateOnce(in, &s);
    return s;
  }

 private:
  int64_t Uniform(int64_t lo, int64_t hi) { return rng_.Uniform(lo, hi); }

  size_t Position(const Input& in, size_t size) {
    if (!in.hot.empty() && Uniform(0, 9) < 7) {
      const auto& [begin, end] =
          in.hot[static_cast<size_t>(Uniform(0, static_cast<int64_t>(in.hot.size()) - 1))];
      if (begin < end && begin < size)
        return static_cast<size_t>(
            Uniform(static_cast<int64_t>(begin), static_cast<int64_t>(std::min(end, size)) - 1));
    }
    return static_cast<size_t>(Uniform(0, static_cast<int64_t>(size) - 1));
  }

  int64_t Interesting(size_t input_size) {
    static const int64_t kValues[] = {0,
                                      1,
                                      -1,
                                      2,
                                      7,
                                      8,
                                      16,
                                      0x7F,
                                      0x80,
                                      0xFF,
                                      0x7FFF,
                                      0x8000,
                                      0xFFFF,
                                      0x7FFFFFFF,
                                      -0x7FFFFFFF - 1,
                                      0xFFFFFFFFLL,
                                      int64_t{1} << 32,
                                      int64_t{1} << 40,
                                      int64_t{1} << 62,
                                      std::numeric_limits<int64_t>::max(),
                                      std::numeric_limits<int64_t>::min(),
                                      -8};
    const int64_t pick = Uniform(0, static_cast<int64_t>(std::size(kValues)) + 2);
    if (pick == static_cast<int64_t>(std::size(kValues)))
      return static_cast<int64_t>(input_size);
    if (pick > static_cast<int64_t>(std::size(kValues)))
      return Uniform(-64, 4096);
    return kValues[pick];
  }

  void MutateOnce(const Input& in, std::string* s) {
    const size_t size = s->size();
    const size_t at = Position(in, size);
    switch (Uniform(0, 9)) {
      case 0: mutate::FlipBit(s, at, static_cast<int>(Uniform(0, 7))); break;
      case 1: {
        static const uint8_t kBytes[] = {0, 0xFF, 0x7F, 0x80, 0x01, 0xFE};
        (*s)[at] = static_cast<char>(kBytes[Uniform(0, 5)]);
        break;
      }
      case 2:
        mutate::Put<int32_t>(s, Uniform(0, 1) ? at & ~size_t{3} : at,
                             static_cast<int32_t>(Interesting(size)));
        break;
      case 3:
        mutate::Put<int64_t>(s, Uniform(0, 1) ? at & ~size_t{7} : at, Interesting(size));
        break;
      case 4: mutate::Truncate(s, at); break;
      case 5: {  // duplicate a chunk somewhere
        const size_t from = Position(in, size);
        const size_t length = std::min<size_t>(size - from, static_cast<size_t>(Uniform(1, 256)));
        s->insert(at, s->substr(from, length));
        break;
      }
      case 6:  // remove a chunk
        mutate::EraseRange(s, at, static_cast<size_t>(Uniform(1, 64)));
        break;
      case 7: {  // swap two aligned words
        const size_t a = at & ~size_t{7};
        const size_t b = Position(in, size) & ~size_t{7};
        if (a + 8 <= size && b + 8 <= size) {
          char tmp[8];
          std::memcpy(tmp, s->data() + a, 8);
          std::memmove(s->data() + a, s->data() + b, 8);
          std::memcpy(s->data() + b, tmp, 8);
        }
        break;
      }
      case 8: (*s)[at] = static_cast<char>(Uniform(0, 255)); break;
      default: mutate::Put<int16_t>(s, at, static_cast<int16_t>(Interesting(size))); break;
    }
  }

  shoal::testing::MutationRng rng_;
};

// Reads allocate from a pool with this limit. The inputs are a few dozen KiB, so even the most a
// compressed buffer may legitimately expand to (zstd: 32768 times) stays below it; OutOfMemory
// therefore means a reader trusted a corrupted length, and fails the test.
constexpr int64_t kPoolLimit = int64_t{2} << 30;

void CheckStatus(const Status& st, const std::string& what, MutationStats* stats) {
  stats->Check(st, what, {StatusCode::kInvalidData, StatusCode::kNotImplemented});
}

// A sum of every value read, printed at the end, so that formatting them cannot be optimized away.
int64_t g_values_hash = 0;

void CheckBatch(const RecordBatchPtr& batch, const std::string& what, MutationStats* stats) {
  ++stats->batches;
  Status st = batch->Validate();
  if (!st.ok()) {
    stats->Fail(what, "a returned batch does not validate: " + st.ToString());
    return;
  }
  g_values_hash += static_cast<int64_t>(testing::TouchAllValues(*batch) & 0xFFFF);
}

// Reads `bytes` every way there is: format detection, the stream reader (over the embedded
// stream of a file too), the file reader, and a stream reader that copies instead of viewing.
void ReadEveryWay(const std::string& bytes, const std::string& what, bool copy,
                  MutationStats* stats) {
  auto shared = std::make_shared<const std::string>(bytes);
  const auto* data = reinterpret_cast<const uint8_t*>(shared->data());
  const auto size = static_cast<int64_t>(shared->size());
  ReadOptions options;
  options.pool = MemoryPool::MakeRoot("fuzz", kPoolLimit);

  ++stats->reads;
  auto all = ReadAllFromBytes(shared, options);
  CheckStatus(all.status(), what + " ReadAllFromBytes", stats);
  if (all.ok()) {
    for (const auto& b : all->batches)
      CheckBatch(b, what, stats);
  }

  const int64_t skip = bytes.compare(0, 6, "ARROW1") == 0 && size >= 8 ? 8 : 0;
  std::shared_ptr<const void> owner = copy ? nullptr : shared;
  auto stream = OpenStreamReader(
      std::make_unique<BufferInputStream>(data + skip, size - skip, owner), options);
  ++stats->reads;
  CheckStatus(stream.status(), what + " OpenStreamReader", stats);
  if (stream.ok()) {
    for (int n = 0; n < 1000; ++n) {
      auto next = (*stream)->Next();
      CheckStatus(next.status(), what + " StreamReader::Next", stats);
      if (!next.ok() || *next == nullptr)
        break;
      CheckBatch(*next, what, stats);
    }
  }

  ++stats->reads;
  auto file = OpenFileReader(shared, options);
  CheckStatus(file.status(), what + " OpenFileReader", stats);
  if (file.ok()) {
    for (int i = 0; i < (*file)->num_batches() && i < 1000; ++i) {
      auto batch = (*file)->ReadBatch(i);
      CheckStatus(batch.status(), what + " FileReader::ReadBatch", stats);
      if (batch.ok())
        CheckBatch(*batch, what, stats);
    }
  }
}

int Run() {
  MutationHarness harness("ipc mutation test", 20240601, 5000);
  std::vector<Input> corpus = Corpus();
  for (const Input& in : corpus) {
    // Keeps the pool limit meaningful (see kPoolLimit).
    SHOAL_CHECK(static_cast<int64_t>(in.bytes.size()) * 32768 < kPoolLimit / 2,
                "corpus input {} is too large for the pool limit", in.name);
  }

  // The unmutated inputs must read back in full, or the mutations below prove nothing.
  for (const Input& in : corpus) {
    auto read = ReadAllFromBytes(std::make_shared<const std::string>(in.bytes));
    if (!read.ok()) {
      std::fprintf(stderr, "FAIL corpus input %s does not read: %s\n", in.name.c_str(),
                   read.status().ToString().c_str());
      return 1;
    }
    ReadEveryWay(in.bytes, in.name, false, &harness.clean());
  }

  Mutator mutator(harness.seed());
  harness.RunOverCorpus(
      corpus, [&](const Input& in) { return mutator.Mutate(in); },
      [&](const Input&, const std::string& mutant, const MutationHarness::Iteration& it) {
        ReadEveryWay(mutant, it.what, it.index % 7 == 0, it.stats);
      });
  // Some mutations must have been refused, or the readers are not looking.
  return harness.Finish({"InvalidData"}, fmt::format("over {} inputs (values hash {})",
                                                     corpus.size(), g_values_hash));
}

}  // namespace
}  // namespace shoal::columnar::ipc

int main() {
  return shoal::columnar::ipc::Run();
}
