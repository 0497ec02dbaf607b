// ProgressLine: the line the shell keeps on a terminal's stderr while a statement runs longer
// than a second: the share of its input read, the bytes, the time so far and, once enough is
// read to tell, the time left at the rate so far; for a distributed query, then each stage
// (" | s1 40% s2 1/4": the share of its scans' input read, or, for a stage that reads only other
// stages, its tasks done out of its tasks).
//
// A thread of its own redraws it every 200 ms with "\r"; it is erased ("\r\033[K") before the
// statement prints anything (its first rows, a NOTICE, its end) and stays off until the next
// statement, so it never mixes with results or errors. The caller shows it only on a terminal
// (isatty(2), and not with --no-progress): a pipe or a file never sees it.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "shoal/engine/query_runner.h"

namespace shoal::cli {

class ProgressLine {
 public:
  /// What the running query has read, or nullopt when the target cannot tell (a server).
  using Source = std::function<std::optional<engine::QueryProgressSnapshot>()>;

  /// Draws on `fd`, starting `delay` after each statement's start.
  explicit ProgressLine(Source source, int fd = 2,
                        std::chrono::milliseconds delay = std::chrono::seconds(1));
  /// Erases the line and stops the thread.
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  /// A statement starts: its time counts from now.
  void Restart();
  /// Something is about to be printed: erase the line and keep it off until Restart().
  void Pause();

  /// The text for a query `elapsed` into its run that read `progress` (empty: nothing to show).
  static std::string Render(std::chrono::duration<double> elapsed,
                            const std::optional<engine::QueryProgressSnapshot>& progress);
  /// The per-stage part of Render (empty: no stages).
  static std::string RenderStages(const engine::QueryProgressSnapshot& progress);

 private:
  void Loop();
  void EraseLocked();

  const Source source_;
  const int fd_;
  const std::chrono::milliseconds delay_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  bool paused_ = false;
  bool shown_ = false;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::thread thread_;
};

}  // namespace shoal::cli
