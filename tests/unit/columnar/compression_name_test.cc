// The one parser of IPC compression names (columnar/ipc/compression_name.h), behind
// `shoal demo --compression`, the dist_compression setting and COPY (FORMAT arrow, COMPRESSION).
#include "shoal/columnar/ipc/compression_name.h"

#include <gtest/gtest.h>

namespace shoal::columnar::ipc {
namespace {

TEST(CompressionNameTest, NamesAndAliases) {
  for (auto [name, expected] :
       std::vector<std::pair<const char*, Compression>>{{"none", Compression::kNone},
                                                        {"uncompressed", Compression::kNone},
                                                        {"lz4", Compression::kLz4Frame},
                                                        {"LZ4_FRAME", Compression::kLz4Frame},
                                                        {"zstd", Compression::kZstd},
                                                        {"ZStd", Compression::kZstd}}) {
    auto c = ParseCompression(name);
    ASSERT_TRUE(c.ok()) << name;
    EXPECT_EQ(*c, expected) << name;
  }
}

TEST(CompressionNameTest, UnknownNamesListTheValidOnes) {
  for (const char* name : {"gzip", "", "auto", "lz4 ", "snappy"}) {
    auto c = ParseCompression(name);
    ASSERT_FALSE(c.ok()) << name;
    EXPECT_EQ(c.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(c.status().message(),
              std::string("unknown compression '") + name + "' (valid: none, lz4, zstd)");
  }
}

}  // namespace
}  // namespace shoal::columnar::ipc
