#include "shoal/common/prometheus_registry.h"

#include <algorithm>
#include <cmath>

#include <fmt/core.h>

#include "shoal/common/check.h"

namespace shoal {

namespace {

bool IsMetricName(std::string_view name) {
  if (name.empty()) {
    return false;
  }
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
    if (!letter && !(i > 0 && c >= '0' && c <= '9')) {
      return false;
    }
  }
  return true;
}

bool IsLabelName(std::string_view name) {
  return IsMetricName(name) && name.find(':') == std::string_view::npos &&
         name.substr(0, 2) != "__";
}

// Label values escape backslash, double quote and newline; help texts backslash and newline.
void AppendEscaped(std::string* out, std::string_view text, bool quote) {
  for (char c : text) {
    if (c == '\\') {
      *out += "\\\\";
    } else if (c == '\n') {
      *out += "\\n";
    } else if (c == '"' && quote) {
      *out += "\\\"";
    } else {
      *out += c;
    }
  }
}

void AppendLabels(std::string* out, const MetricLabels& labels, const char* extra_name = nullptr,
                  const std::string& extra_value = "") {
  if (labels.empty() && extra_name == nullptr) {
    return;
  }
  *out += '{';
  bool first = true;
  for (const auto& [name, value] : labels) {
    if (!first) {
      *out += ',';
    }
    first = false;
    *out += name;
    *out += "=\"";
    AppendEscaped(out, value, true);
    *out += '"';
  }
  if (extra_name != nullptr) {
    if (!first) {
      *out += ',';
    }
    *out += extra_name;
    *out += "=\"";
    *out += extra_value;
    *out += '"';
  }
  *out += '}';
}

// Prometheus's float forms: +Inf, -Inf, NaN, else the shortest text that reads back the same.
std::string FormatValue(double v) {
  if (std::isnan(v)) {
    return "NaN";
  }
  if (std::isinf(v)) {
    return v > 0 ? "+Inf" : "-Inf";
  }
  return fmt::format("{}", v);
}

}  // namespace

Histogram::Histogram(std::vector<double> bounds)
    : bounds_(std::move(bounds)),
      buckets_(std::make_unique<std::atomic<int64_t>[]>(bounds_.size() + 1)) {
  for (size_t i = 1; i < bounds_.size(); ++i) {
    SHOAL_CHECK(bounds_[i - 1] < bounds_[i], "histogram bounds must increase");
  }
}

void Histogram::Observe(double value) {
  const size_t bucket = static_cast<size_t>(
      std::lower_bound(bounds_.begin(), bounds_.end(), value) - bounds_.begin());
  buckets_[bucket].fetch_add(1, std::memory_order_relaxed);
  count_.fetch_add(1, std::memory_order_relaxed);
  sum_.fetch_add(value, std::memory_order_relaxed);
}

int64_t Histogram::CumulativeCount(size_t i) const {
  int64_t total = 0;
  for (size_t b = 0; b <= i && b <= bounds_.size(); ++b) {
    total += buckets_[b].load(std::memory_order_relaxed);
  }
  return total;
}

PrometheusRegistry::Metric& PrometheusRegistry::Find(std::string_view name, std::string_view help,
                                                     Type type, const MetricLabels& labels,
                                                     const std::vector<double>* bounds) {
  SHOAL_CHECK(IsMetricName(name), "invalid metric name '{}'", name);
  auto it = families_.find(name);
  if (it == families_.end()) {
    for (const auto& label : labels) {
      SHOAL_CHECK(IsLabelName(label.first), "invalid label name '{}'", label.first);
    }
    Family family;
    family.type = type;
    family.help = std::string(help);
    if (bounds != nullptr) {
      family.bounds = *bounds;
    }
    it = families_.emplace(std::string(name), std::move(family)).first;
  }
  Family& family = it->second;
  SHOAL_CHECK(family.type == type, "metric '{}' was registered with another type", name);
  for (auto& metric : family.metrics) {
    if (metric->labels == labels) {
      return *metric;
    }
  }
  for (const auto& label : labels) {
    SHOAL_CHECK(IsLabelName(label.first), "invalid label name '{}'", label.first);
  }
  auto metric = std::make_unique<Metric>();
  metric->labels = labels;
  switch (type) {
    case Type::kCounter: metric->counter = std::make_unique<Counter>(); break;
    case Type::kGauge: metric->gauge = std::make_unique<Gauge>(); break;
    case Type::kHistogram: metric->histogram = std::make_unique<Histogram>(family.bounds); break;
  }
  family.metrics.push_back(std::move(metric));
  return *family.metrics.back();
}

Counter& PrometheusRegistry::GetCounter(std::string_view name, std::string_view help,
                                        const MetricLabels& labels) {
  std::lock_guard lock(mutex_);
  return *Find(name, help, Type::kCounter, labels, nullptr).counter;
}

Gauge& PrometheusRegistry::GetGauge(std::string_view name, std::string_view help,
                                    const MetricLabels& labels) {
  std::lock_guard lock(mutex_);
  Metric& metric = Find(name, help, Type::kGauge, labels, nullptr);
  if (metric.gauge == nullptr) {  // it was a gauge function
    metric.gauge = std::make_unique<Gauge>();
  }
  return *metric.gauge;
}

Histogram& PrometheusRegistry::GetHistogram(std::string_view name, std::string_view help,
                                            const std::vector<double>& bounds,
                                            const MetricLabels& labels) {
  std::lock_guard lock(mutex_);
  return *Find(name, help, Type::kHistogram, labels, &bounds).histogram;
}

void PrometheusRegistry::SetGaugeFunction(std::string_view name, std::string_view help,
                                          const MetricLabels& labels,
                                          std::function<double()> read) {
  std::lock_guard lock(mutex_);
  Metric& metric = Find(name, help, Type::kGauge, labels, nullptr);
  metric.read = std::move(read);
}

std::string PrometheusRegistry::WriteText() const {
  std::lock_guard lock(mutex_);
  std::string out;
  for (const auto& [name, family] : families_) {
    out += "# HELP ";
    out += name;
    out += ' ';
    AppendEscaped(&out, family.help, false);
    out += "\n# TYPE ";
    out += name;
    switch (family.type) {
      case Type::kCounter: out += " counter\n"; break;
      case Type::kGauge: out += " gauge\n"; break;
      case Type::kHistogram: out += " histogram\n"; break;
    }
    for (const auto& metric : family.metrics) {
      if (family.type == Type::kHistogram) {
        const Histogram& h = *metric->histogram;
        for (size_t i = 0; i <= h.bounds().size(); ++i) {
          out += name;
          out += "_bucket";
          AppendLabels(&out, metric->labels, "le",
                       i < h.bounds().size() ? FormatValue(h.bounds()[i]) : "+Inf");
          out += fmt::format(" {}\n", h.CumulativeCount(i));
        }
        out += name;
        out += "_sum";
        AppendLabels(&out, metric->labels);
        out += ' ' + FormatValue(h.sum()) + '\n';
        out += name;
        out += "_count";
        AppendLabels(&out, metric->labels);
        out += fmt::format(" {}\n", h.CumulativeCount(h.bounds().size()));
        continue;
      }
      out += name;
      AppendLabels(&out, metric->labels);
      if (metric->counter != nullptr) {
        out += fmt::format(" {}\n", metric->counter->value());
      } else if (metric->read) {
        out += ' ' + FormatValue(metric->read()) + '\n';
      } else {
        out += fmt::format(" {}\n", metric->gauge->value());
      }
    }
  }
  return out;
}

PrometheusRegistry& ProcessMetrics() {
  // Never destroyed: threads that outlive main (gRPC's, the HTTP listener's) may still count.
  // NOLINTNEXTLINE(cppcoreguidelines-avoid-non-const-global-variables): the registry is mutable
  static auto* registry = new PrometheusRegistry();
  return *registry;
}

const std::vector<double>& DurationSecondsBuckets() {
  static const std::vector<double> kBounds = {0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5,
                                              1,     2.5,   5,    10,    30,   60,  120,  300};
  return kBounds;
}

}  // namespace shoal
