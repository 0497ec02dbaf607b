#include "shoal/cli/progress_line.h"

#include <string>

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <unistd.h>

namespace shoal::cli {
namespace {

using std::chrono::duration;

engine::QueryProgressSnapshot Snap(int64_t total, int64_t read) {
  engine::QueryProgressSnapshot s;
  s.bytes_total = total;
  s.bytes_read = read;
  return s;
}

TEST(ProgressLineTest, RendersShareBytesElapsedAndTimeLeft) {
  EXPECT_EQ(ProgressLine::Render(duration<double>(1.5), std::nullopt), "running, 1.5 s");
  EXPECT_EQ(ProgressLine::Render(duration<double>(1.5), engine::QueryProgressSnapshot{}),
            "running, 1.5 s");  // no scan of known size
  EXPECT_EQ(ProgressLine::Render(duration<double>(2), Snap(100'000'000, 25'000'000)),
            " 25% of 100.0 MB read, 2.0 s, about 6 s left");
  // Too little read to tell the time left; more read than planned (a rescan) stays at 100%.
  EXPECT_EQ(ProgressLine::Render(duration<double>(1), Snap(1000, 10)),
            "  1% of 1.0 kB read, 1.0 s");
  EXPECT_EQ(ProgressLine::Render(duration<double>(3), Snap(500, 900)), "100% of 500 B read, 3.0 s");
}

TEST(ProgressLineTest, RendersEachStageOfADistributedQuery) {
  engine::QueryProgressSnapshot s = Snap(1'000'000, 400'000);
  // A scan stage 40% through, a stage of 3 that reads other stages with 1 done, and a stage
  // not yet told anything (adaptive dispatch): left out.
  s.stages = {
      {1, 1'000'000, 400'000, 1200, 0, 4, {}}, {2, 0, 0, 10, 1, 3, {}}, {3, 0, 0, 0, 0, 0, {}}};
  EXPECT_EQ(ProgressLine::Render(duration<double>(2), s),
            " 40% of 1.0 MB read, 2.0 s, about 3 s left | s1 40% s2 1/3");
  // Stages without a known total still show.
  s.bytes_total = 0;
  s.stages[0].bytes_total = 0;
  EXPECT_EQ(ProgressLine::Render(duration<double>(2), s), "running, 2.0 s | s1 0/4 s2 1/3");
}

// Reads what the line drew on the pipe so far, waiting up to 10 s for the first bytes.
std::string ReadSome(int fd) {
  pollfd p{fd, POLLIN, 0};
  if (poll(&p, 1, 10'000) <= 0)
    return "";
  char buffer[4096];
  ssize_t n = read(fd, buffer, sizeof(buffer));
  return n > 0 ? std::string(buffer, static_cast<size_t>(n)) : "";
}

TEST(ProgressLineTest, DrawsAfterTheDelayAndErasesOnPause) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  {
    ProgressLine line([] { return Snap(1000, 500); }, fds[1], std::chrono::milliseconds(0));
    const std::string drawn = ReadSome(fds[0]);
    EXPECT_NE(drawn.find("\r\033[K 50% of 1.0 kB read"), std::string::npos) << drawn;
    line.Pause();
    // Erased before Pause returns: the caller's output starts on a clean line.
    fcntl(fds[0], F_SETFL, O_NONBLOCK);
    std::string erased;
    char buffer[4096];
    for (ssize_t n; (n = read(fds[0], buffer, sizeof(buffer))) > 0;)
      erased.append(buffer, static_cast<size_t>(n));
    ASSERT_GE(erased.size(), 4u);
    EXPECT_EQ(erased.substr(erased.size() - 4), "\r\033[K");
  }
  close(fds[0]);
  close(fds[1]);
}

}  // namespace
}  // namespace shoal::cli
