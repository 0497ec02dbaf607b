#include "shoal/cli/progress_line.h"

#include <fmt/format.h>
#include <unistd.h>

namespace shoal::cli {

namespace {

std::string Bytes(int64_t bytes) {
  const char* units[] = {"B", "kB", "MB", "GB", "TB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1000 && unit < 4) {
    value /= 1000;
    ++unit;
  }
  return unit == 0 ? fmt::format("{} B", bytes) : fmt::format("{:.1f} {}", value, units[unit]);
}

void WriteAll(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n <= 0)
      return;  // a terminal that went away: nothing to show it on
    done += static_cast<size_t>(n);
  }
}

}  // namespace

ProgressLine::ProgressLine(Source source, int fd, std::chrono::milliseconds delay)
    : source_(std::move(source)), fd_(fd), delay_(delay) {
  thread_ = std::thread([this] { Loop(); });
}

ProgressLine::~ProgressLine() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
    EraseLocked();
  }
  wake_.notify_all();
  thread_.join();
}

void ProgressLine::Restart() {
  std::lock_guard<std::mutex> lock(mutex_);
  EraseLocked();
  paused_ = false;
  start_ = std::chrono::steady_clock::now();
}

void ProgressLine::Pause() {
  std::lock_guard<std::mutex> lock(mutex_);
  EraseLocked();
  paused_ = true;
}

void ProgressLine::EraseLocked() {
  if (shown_)
    WriteAll(fd_, "\r\033[K");
  shown_ = false;
}

std::string ProgressLine::RenderStages(const engine::QueryProgressSnapshot& progress) {
  std::string text;
  for (const auto& stage : progress.stages) {
    if (stage.bytes_total > 0) {
      const double share = std::min(
          1.0, static_cast<double>(stage.bytes_read) / static_cast<double>(stage.bytes_total));
      text += fmt::format(" s{} {:.0f}%", stage.stage_id, share * 100);
    } else if (stage.tasks_total > 0) {
      // It reads other stages: how many of its tasks have finished.
      text += fmt::format(" s{} {}/{}", stage.stage_id, stage.tasks_done, stage.tasks_total);
    }
  }
  return text.empty() ? text : " |" + text;
}

std::string ProgressLine::Render(std::chrono::duration<double> elapsed,
                                 const std::optional<engine::QueryProgressSnapshot>& progress) {
  const double seconds = elapsed.count();
  if (!progress)
    return fmt::format("running, {:.1f} s", seconds);
  if (progress->bytes_total <= 0)
    return fmt::format("running, {:.1f} s", seconds) + RenderStages(*progress);
  const double share = std::min(
      1.0, static_cast<double>(progress->bytes_read) / static_cast<double>(progress->bytes_total));
  std::string text = fmt::format("{:3.0f}% of {} read, {:.1f} s", share * 100,
                                 Bytes(progress->bytes_total), seconds);
  if (share >= 0.02 && share < 1.0)
    text += fmt::format(", about {:.0f} s left", seconds * (1 - share) / share);
  return text + RenderStages(*progress);
}

void ProgressLine::Loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stop_) {
    wake_.wait_for(lock, std::chrono::milliseconds(200));
    if (stop_ || paused_)
      continue;
    const auto elapsed = std::chrono::steady_clock::now() - start_;
    if (elapsed < delay_)
      continue;
    // The source takes the runner's lock: read it without holding ours for long.
    lock.unlock();
    std::optional<engine::QueryProgressSnapshot> progress = source_();
    lock.lock();
    if (stop_ || paused_)
      continue;
    WriteAll(fd_, "\r\033[K" + Render(elapsed, progress));
    shown_ = true;
  }
}

}  // namespace shoal::cli
