// PrometheusRegistry: the process's counters, gauges and histograms, written out in Prometheus's
// text exposition format 0.0.4 for a `/metrics` endpoint (the server's console, a worker's
// `--metrics` port).
//
// Contract:
//   - A metric is found (or made) by its family name and label values; the lookup takes a mutex,
//     so code on a hot path looks its metric up once and keeps the reference. The reference stays
//     valid for the registry's lifetime (metrics are never removed).
//   - Increments are lock-free: one relaxed atomic add (counters, gauges, a histogram's bucket,
//     count and sum). A scrape reads each value on its own: the figures of one scrape are not a
//     consistent snapshot, which Prometheus does not expect either.
//   - A family has one type and one help text; asking for an existing name with another type is
//     a bug (SHOAL_CHECK). Label names and metric names must match Prometheus's grammar (checked).
//   - Gauge functions are read at scrape time (memory in use, the limit): the value lives where it
//     is kept, and nothing has to push it.
//
// ProcessMetrics() is the registry of this process: every layer that counts something adds to it,
// and each `/metrics` endpoint writes it.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace shoal {

/// Label names and values of one metric, in the order they are written.
using MetricLabels = std::vector<std::pair<std::string, std::string>>;

/// A value that only goes up (events, bytes).
class Counter {
 public:
  void Add(int64_t n = 1) { value_.fetch_add(n, std::memory_order_relaxed); }
  int64_t value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<int64_t> value_{0};
};

/// A value that goes up and down (queries running now).
class Gauge {
 public:
  void Set(int64_t v) { value_.store(v, std::memory_order_relaxed); }
  void Add(int64_t n) { value_.fetch_add(n, std::memory_order_relaxed); }
  int64_t value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<int64_t> value_{0};
};

/// Observations counted into buckets by upper bound (query time in seconds); also their count and
/// sum. Bucket counts are kept per bucket (not cumulative) and summed when written.
class Histogram {
 public:
  /// `bounds`: upper bounds, strictly increasing; +Inf is implied.
  explicit Histogram(std::vector<double> bounds);
  void Observe(double value);

  const std::vector<double>& bounds() const { return bounds_; }
  /// Observations <= bounds()[i] (cumulative, as Prometheus writes them); i == bounds().size() is
  /// +Inf, the count.
  int64_t CumulativeCount(size_t i) const;
  int64_t count() const { return count_.load(std::memory_order_relaxed); }
  double sum() const { return sum_.load(std::memory_order_relaxed); }

 private:
  std::vector<double> bounds_;
  std::unique_ptr<std::atomic<int64_t>[]> buckets_;  // bounds_.size() + 1 (the last: +Inf)
  std::atomic<int64_t> count_{0};
  std::atomic<double> sum_{0};
};

class PrometheusRegistry {
 public:
  PrometheusRegistry() = default;
  PrometheusRegistry(const PrometheusRegistry&) = delete;
  PrometheusRegistry& operator=(const PrometheusRegistry&) = delete;

  Counter& GetCounter(std::string_view name, std::string_view help,
                      const MetricLabels& labels = {});
  Gauge& GetGauge(std::string_view name, std::string_view help, const MetricLabels& labels = {});
  /// `bounds` matter only when the family is new; later calls get the family's buckets.
  Histogram& GetHistogram(std::string_view name, std::string_view help,
                          const std::vector<double>& bounds, const MetricLabels& labels = {});
  /// A gauge whose value `read` returns at scrape time (called under the registry's mutex: it
  /// must not call back into the registry). Registering the same name and labels again replaces
  /// the function.
  void SetGaugeFunction(std::string_view name, std::string_view help, const MetricLabels& labels,
                        std::function<double()> read);

  /// Every family in the text format 0.0.4: `# HELP`, `# TYPE`, then one line per metric
  /// (histograms: `_bucket{le=...}` cumulative up to `+Inf`, `_sum`, `_count`), families sorted by
  /// name, metrics in the order they were made.
  std::string WriteText() const;

  /// Prometheus's content type of WriteText().
  static constexpr const char* kContentType = "text/plain; version=0.0.4; charset=utf-8";

 private:
  enum class Type { kCounter, kGauge, kHistogram };
  struct Metric {
    MetricLabels labels;
    std::unique_ptr<Counter> counter;
    std::unique_ptr<Gauge> gauge;
    std::unique_ptr<Histogram> histogram;
    std::function<double()> read;  // a gauge function
  };
  struct Family {
    Type type = Type::kCounter;
    std::string help;
    std::vector<double> bounds;
    std::vector<std::unique_ptr<Metric>> metrics;
  };
  // The metric of `name` and `labels`, made when new; the caller holds mutex_.
  Metric& Find(std::string_view name, std::string_view help, Type type, const MetricLabels& labels,
               const std::vector<double>* bounds);

  mutable std::mutex mutex_;
  std::map<std::string, Family, std::less<>> families_;
};

/// The registry of this process.
PrometheusRegistry& ProcessMetrics();

/// Histogram bounds for durations in seconds: 1 ms to about 5 minutes.
const std::vector<double>& DurationSecondsBuckets();

}  // namespace shoal
