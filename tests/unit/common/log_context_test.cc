#include "shoal/common/log_context.h"

#include <algorithm>
#include <string>

#include <gtest/gtest.h>

#include "shoal/common/logging.h"

namespace shoal {
namespace {

// One JSON line per message, with the thread's query and task, and text lines as before.
TEST(LogContextTest, JsonLinesCarryTheQueryAndTask) {
  const LogLevel level = GetLogLevel();
  SetLogLevel(LogLevel::kInfo);
  SetLogFormat(LogFormat::kJson);
  testing::internal::CaptureStderr();
  {
    const ScopedLogContext context("0123abcd", "0123abcd/1/2");
    SHOAL_LOG_INFO("ended \"task\"\n{}", 7);
    {
      const ScopedLogContext inner("other", "");
      SHOAL_LOG_INFO("inner");
    }
    SHOAL_LOG_INFO("back");
  }
  SHOAL_LOG_WARNING("none");
  SetLogFormat(LogFormat::kText);
  SHOAL_LOG_WARNING("text");
  const std::string out = testing::internal::GetCapturedStderr();
  SetLogLevel(level);
  EXPECT_NE(out.find(R"("level":"info",)"), std::string::npos) << out;
  EXPECT_NE(out.find(R"("query_id":"0123abcd","task":"0123abcd/1/2",)"), std::string::npos) << out;
  EXPECT_NE(out.find(R"("message":"ended \"task\"\n7"})"), std::string::npos) << out;
  EXPECT_NE(out.find(R"("query_id":"other","task":null,)"), std::string::npos) << out;
  // The outer context is back after the inner scope.
  const size_t back = out.find(R"("message":"back")");
  ASSERT_NE(back, std::string::npos);
  EXPECT_NE(out.rfind(R"("query_id":"0123abcd")", back), std::string::npos);
  EXPECT_NE(out.find(R"("query_id":null,"task":null,)"), std::string::npos) << out;
  // Every JSON line is one line; the text line keeps its form.
  EXPECT_NE(out.find("] text\n"), std::string::npos) << out;
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 5);
}

}  // namespace
}  // namespace shoal
