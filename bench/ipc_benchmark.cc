// Arrow IPC throughput: 1M rows x 8 columns (int32, int64, two decimal(15,2), date32, two utf8 of
// 10-40 characters, float64) in 16 batches of 64Ki rows, written as a stream into memory and read
// back, without compression and with LZ4 frame and zstd bodies. Bytes/second are of the batches'
// in-memory size, so write and read numbers compare directly; the encoded size is a counter.
// WriteStream includes copying the encoded stream into a fresh std::string (growth and page
// faults included); WriteStreamReusedBuffer reuses the string's memory; WriteStreamDiscard is the
// writer alone (without compression it copies nothing, so only the codecs are measured). ReadStream
// validates everything, UTF-8 included.
#include <random>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "shoal/columnar/builder.h"
#include "shoal/columnar/ipc/reader.h"
#include "shoal/columnar/ipc/writer.h"

namespace shoal::columnar::ipc {
namespace {

constexpr int64_t kBatchRows = 64 * 1024;
constexpr int kBatches = 16;

struct Dataset {
  SchemaPtr schema;
  std::vector<RecordBatchPtr> batches;
  int64_t bytes = 0;
};

const Dataset& Data() {
  static const Dataset data = [] {
    Dataset d;
    d.schema = std::make_shared<const Schema>(std::vector<Field>{
        {"l_partkey", DataType::Int32(), false},
        {"l_orderkey", DataType::Int64(), false},
        {"l_extendedprice", DataType::Decimal(15, 2), false},
        {"l_discount", DataType::Decimal(15, 2)},
        {"l_shipdate", DataType::Date32()},
        {"l_shipinstruct", DataType::Utf8()},
        {"l_comment", DataType::Utf8()},
        {"l_tax", DataType::Float64()},
    });
    static const char* const kWords[] = {
        "furiously", "carefully", "quickly",  "slyly",    "blithely",    "regular",
        "express",   "final",     "pending",  "ironic",   "even",        "bold",
        "packages",  "deposits",  "requests", "accounts", "theodolites", "pinto",
        "beans",     "foxes",     "ideas",    "sleep",    "nag",         "haggle",
        "wake",      "along",     "above",    "the",      "of"};
    std::mt19937_64 rng(1);
    auto text = [&] {
      const size_t target = 10 + rng() % 31;
      std::string s;
      while (s.size() < target) {
        if (!s.empty())
          s.push_back(' ');
        s += kWords[rng() % std::size(kWords)];
      }
      s.resize(target);
      return s;
    };
    auto pool = DefaultMemoryPool();
    for (int b = 0; b < kBatches; ++b) {
      Int32Builder partkey(DataType::Int32(), pool);
      Int64Builder orderkey(DataType::Int64(), pool);
      Decimal64Builder price(DataType::Decimal(15, 2), pool);
      Decimal64Builder discount(DataType::Decimal(15, 2), pool);
      Int32Builder shipdate(DataType::Date32(), pool);
      BinaryBuilder instruct(DataType::Utf8(), pool);
      BinaryBuilder comment(DataType::Utf8(), pool);
      Float64Builder tax(DataType::Float64(), pool);
      for (int64_t i = 0; i < kBatchRows; ++i) {
        const int64_t row = b * kBatchRows + i;
        (void)partkey.Append(static_cast<int32_t>(rng() % 200000));
        (void)orderkey.Append(row / 4 * 32 + static_cast<int64_t>(rng() % 8));
        (void)price.Append(90000 + static_cast<int64_t>(rng() % 10000000));
        (void)(rng() % 50 == 0 ? discount.AppendNull()
                               : discount.Append(static_cast<int64_t>(rng() % 11)));
        (void)shipdate.Append(8035 + static_cast<int32_t>(rng() % 2526));
        (void)instruct.Append(text());
        (void)comment.Append(text());
        (void)tax.Append(static_cast<double>(rng() % 9) / 100.0);
      }
      std::vector<ArrayPtr> columns = {*partkey.Finish(),  *orderkey.Finish(), *price.Finish(),
                                       *discount.Finish(), *shipdate.Finish(), *instruct.Finish(),
                                       *comment.Finish(),  *tax.Finish()};
      auto batch = RecordBatch::Make(d.schema, kBatchRows, std::move(columns));
      d.bytes += batch->BufferBytes();
      d.batches.push_back(std::move(batch));
    }
    return d;
  }();
  return data;
}

// Counts and drops the bytes: the writer's own cost, without a copy into memory.
class DiscardSink : public OutputSink {
 public:
  Status Write(const uint8_t*, int64_t size) override {
    position_ += size;
    return Status::OK();
  }

  Status Close() override { return Status::OK(); }

  int64_t position() const override { return position_; }

 private:
  int64_t position_ = 0;
};

void WriteTo(OutputSink* sink, Compression compression, bool file_format) {
  const Dataset& d = Data();
  WriteOptions options;
  options.compression = compression;
  auto writer = file_format ? MakeFileWriter(sink, d.schema, options)
                            : MakeStreamWriter(sink, d.schema, options);
  SHOAL_CHECK(writer.ok(), "{}", writer.status().ToString());
  for (const auto& batch : d.batches)
    SHOAL_CHECK((*writer)->WriteBatch(*batch).ok(), "write");
  SHOAL_CHECK((*writer)->Close().ok(), "close");
}

std::string Write(Compression compression, bool file_format) {
  BufferSink sink;
  WriteTo(&sink, compression, file_format);
  return sink.TakeBytes();
}

void BM_WriteStream(benchmark::State& state) {
  const auto compression = static_cast<Compression>(state.range(0));
  const Dataset& d = Data();
  int64_t encoded = 0;
  for (auto _ : state) {
    std::string bytes = Write(compression, false);
    encoded = static_cast<int64_t>(bytes.size());
    benchmark::DoNotOptimize(bytes.data());
  }
  state.SetBytesProcessed(state.iterations() * d.bytes);
  state.counters["encoded_MB"] = static_cast<double>(encoded) / 1e6;
  state.counters["ratio"] = static_cast<double>(d.bytes) / static_cast<double>(encoded);
}

void BM_WriteStreamReusedBuffer(benchmark::State& state) {
  const auto compression = static_cast<Compression>(state.range(0));
  const Dataset& d = Data();
  std::string buffer;
  for (auto _ : state) {
    BufferSink sink(std::move(buffer));
    WriteTo(&sink, compression, false);
    buffer = sink.TakeBytes();
    benchmark::DoNotOptimize(buffer.data());
  }
  state.SetBytesProcessed(state.iterations() * d.bytes);
}

void BM_WriteStreamDiscard(benchmark::State& state) {
  const auto compression = static_cast<Compression>(state.range(0));
  const Dataset& d = Data();
  for (auto _ : state) {
    DiscardSink sink;
    WriteTo(&sink, compression, false);
    benchmark::DoNotOptimize(sink.position());
  }
  state.SetBytesProcessed(state.iterations() * d.bytes);
}

void ReadStream(benchmark::State& state, bool check_utf8) {
  const auto compression = static_cast<Compression>(state.range(0));
  const Dataset& d = Data();
  auto bytes = std::make_shared<const std::string>(Write(compression, false));
  ReadOptions options;
  options.check_utf8 = check_utf8;
  for (auto _ : state) {
    auto read = ReadAllFromBytes(bytes, options);
    SHOAL_CHECK(read.ok() && read->batches.size() == d.batches.size(), "{}",
                read.status().ToString());
    benchmark::DoNotOptimize(read->batches.data());
  }
  state.SetBytesProcessed(state.iterations() * d.bytes);
  state.counters["encoded_MB"] = static_cast<double>(bytes->size()) / 1e6;
}

void BM_ReadStream(benchmark::State& state) {
  ReadStream(state, true);
}

void BM_ReadStreamNoUtf8Check(benchmark::State& state) {
  ReadStream(state, false);
}

void BM_ReadFileMemory(benchmark::State& state) {
  const Dataset& d = Data();
  auto bytes = std::make_shared<const std::string>(Write(Compression::kNone, true));
  for (auto _ : state) {
    auto reader = OpenFileReader(bytes);
    SHOAL_CHECK(reader.ok(), "{}", reader.status().ToString());
    for (int i = 0; i < (*reader)->num_batches(); ++i) {
      auto batch = (*reader)->ReadBatch(i);
      benchmark::DoNotOptimize(batch->get());
    }
  }
  state.SetBytesProcessed(state.iterations() * d.bytes);
}

void Codecs(benchmark::internal::Benchmark* b) {
  b->ArgName("codec")->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
}

BENCHMARK(BM_WriteStream)->Apply(Codecs);
BENCHMARK(BM_WriteStreamReusedBuffer)->Apply(Codecs);
BENCHMARK(BM_WriteStreamDiscard)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_ReadStream)->Apply(Codecs);
BENCHMARK(BM_ReadStreamNoUtf8Check)->Arg(0)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_ReadFileMemory)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace shoal::columnar::ipc

BENCHMARK_MAIN();
