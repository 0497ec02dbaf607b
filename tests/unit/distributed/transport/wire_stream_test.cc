// Wire streams: batches survive the chunked Arrow IPC encoding (plain, LZ4, ZSTD), and the demux's
// byte budget bounds buffering without deadlocking a reader that needs another partition first.
#include "shoal/distributed/transport/wire_stream.h"

#include <thread>

#include <gtest/gtest.h>

#include "tests/support/batch_builder.h"
#include "tests/support/gtest_util.h"

namespace shoal::distributed {
namespace {

TEST(WireStreamTest, BatchesRoundTripThroughChunksWithEveryCompression) {
  for (const char* name : {"none", "lz4", "zstd"}) {
    SCOPED_TRACE(name);
    ASSERT_OK_AND_ASSIGN(auto compression, ParseCompression(name));
    ASSERT_OK_AND_ASSIGN(
        auto batch, testing::TryMakeBatch(
                        {{"a", columnar::DataType::Int64()}, {"b", columnar::DataType::Utf8()}},
                        {{"1", "x"}, {"2", "NULL"}, {"3", "zzzzzzzzzzzzzzzz"}}));
    auto schema = batch->schema();
    ASSERT_OK_AND_ASSIGN(auto encoder, PartitionEncoder::Make(schema, compression));
    auto demux = std::make_shared<PartitionDemux>(2, 1 << 20);
    for (int i = 0; i < 3; ++i) {
      ASSERT_OK_AND_ASSIGN(std::string chunk, encoder->Encode(*batch));
      ASSERT_TRUE(demux->Push(1, std::move(chunk)));
    }
    ASSERT_OK_AND_ASSIGN(std::string last, encoder->Finish());
    ASSERT_TRUE(demux->Push(1, std::move(last)));
    demux->EndPartition(1, Status::OK());
    demux->EndPartition(0, Status::Unavailable("worker w7 is gone"));
    auto streams = demux->MakeStreams(nullptr, DefaultMemoryPool());
    ASSERT_EQ(streams.size(), 2u);
    EXPECT_STATUS_CODE(StatusCode::kUnavailable, streams[0]->Next());
    int64_t rows = 0;
    for (;;) {
      ASSERT_OK_AND_ASSIGN(auto got, streams[1]->Next());
      if (!got)
        break;
      EXPECT_EQ(got->num_rows(), 3);
      EXPECT_EQ(columnar::Scalar::FromArray(*got->column(1), 2).string_value(), "zzzzzzzzzzzzzzzz");
      EXPECT_TRUE(columnar::Scalar::FromArray(*got->column(1), 1).is_null());
      rows += got->num_rows();
    }
    EXPECT_EQ(rows, 9);
  }
  EXPECT_STATUS_CODE(StatusCode::kInvalidArgument, ParseCompression("snappy"));
}

TEST(WireStreamTest, TheBudgetBoundsBufferedBytes) {
  constexpr int64_t kBudget = 256;
  constexpr int kChunks = 200;
  auto demux = std::make_shared<PartitionDemux>(1, kBudget);
  std::thread sender([&] {
    for (int i = 0; i < kChunks; ++i)
      ASSERT_TRUE(demux->Push(0, std::string(64, 'x')));
    demux->EndPartition(0, Status::OK());
  });
  int received = 0;
  for (;;) {
    ASSERT_OK_AND_ASSIGN(std::string chunk, demux->Pop(0));
    if (chunk.empty())
      break;
    ++received;
  }
  sender.join();
  EXPECT_EQ(received, kChunks);
  // The sender may overshoot by at most the chunk that crossed the budget.
  EXPECT_LE(demux->peak_buffered_bytes(), kBudget + 64);
}

TEST(WireStreamTest, AStarvingReaderIsFedEvenWhenTheBudgetIsFull) {
  // The reader needs partition 0 first, but the sender sends partition 1 first: a strict budget
  // would deadlock here (the merge of a NetworkCoalesce reads like this).
  auto demux = std::make_shared<PartitionDemux>(2, 64);
  std::thread sender([&] {
    for (int i = 0; i < 50; ++i)
      ASSERT_TRUE(demux->Push(1, std::string(64, 'b')));
    ASSERT_TRUE(demux->Push(0, std::string(64, 'a')));
    demux->EndPartition(0, Status::OK());
    demux->EndPartition(1, Status::OK());
  });
  ASSERT_OK_AND_ASSIGN(std::string first, demux->Pop(0));
  EXPECT_EQ(first, std::string(64, 'a'));
  int rest = 0;
  for (;;) {
    ASSERT_OK_AND_ASSIGN(std::string chunk, demux->Pop(1));
    if (chunk.empty())
      break;
    ++rest;
  }
  sender.join();
  EXPECT_EQ(rest, 50);
}

TEST(WireStreamTest, CloseStopsABlockedSender) {
  auto demux = std::make_shared<PartitionDemux>(1, 64);
  std::thread sender([&] {
    bool open = true;
    while (open)
      open = demux->Push(0, std::string(64, 'x'));
  });
  ASSERT_OK_AND_ASSIGN(std::string chunk, demux->Pop(0));
  EXPECT_EQ(chunk.size(), 64u);
  demux->Close();
  sender.join();  // would hang if Close did not wake the sender
  EXPECT_STATUS_CODE(StatusCode::kCancelled, demux->Pop(0));
}

TEST(WireStreamTest, AutoCompressionSkipsLoopbackPeersOnly) {
  using columnar::ipc::Compression;
  EXPECT_TRUE(IsLoopbackAddress("127.0.0.1:7001"));
  EXPECT_TRUE(IsLoopbackAddress("127.1.2.3:1"));
  EXPECT_TRUE(IsLoopbackAddress("localhost:7001"));
  EXPECT_TRUE(IsLoopbackAddress("[::1]:7001"));
  EXPECT_TRUE(IsLoopbackAddress("::1"));
  EXPECT_FALSE(IsLoopbackAddress("10.0.0.7:7001"));
  EXPECT_FALSE(IsLoopbackAddress("[2001:db8::1]:7001"));
  EXPECT_FALSE(IsLoopbackAddress("worker-127:7001"));
  EXPECT_FALSE(IsLoopbackAddress(""));
  ASSERT_OK_AND_ASSIGN(auto local, ParseCompression("auto", "127.0.0.1:7001"));
  EXPECT_EQ(local, Compression::kNone);
  ASSERT_OK_AND_ASSIGN(auto remote, ParseCompression("auto", "10.0.0.7:7001"));
  EXPECT_EQ(remote, Compression::kLz4Frame);
  ASSERT_OK_AND_ASSIGN(auto forced, ParseCompression("lz4", "127.0.0.1:7001"));
  EXPECT_EQ(forced, Compression::kLz4Frame);
  EXPECT_STATUS_CODE(StatusCode::kInvalidArgument, ParseCompression("gzip"));
}

}  // namespace
}  // namespace shoal::distributed
