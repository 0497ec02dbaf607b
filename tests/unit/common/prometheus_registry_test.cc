#include "shoal/common/prometheus_registry.h"

#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace shoal {
namespace {

TEST(PrometheusRegistryTest, WritesCountersAndGaugesInTextFormat) {
  PrometheusRegistry registry;
  registry.GetCounter("shoal_queries_total", "Queries by final state.", {{"state", "finished"}})
      .Add(3);
  registry.GetCounter("shoal_queries_total", "Queries by final state.", {{"state", "failed"}})
      .Add();
  registry.GetGauge("shoal_queries_running", "Queries running now.").Set(2);
  EXPECT_EQ(registry.WriteText(),
            "# HELP shoal_queries_running Queries running now.\n"
            "# TYPE shoal_queries_running gauge\n"
            "shoal_queries_running 2\n"
            "# HELP shoal_queries_total Queries by final state.\n"
            "# TYPE shoal_queries_total counter\n"
            "shoal_queries_total{state=\"finished\"} 3\n"
            "shoal_queries_total{state=\"failed\"} 1\n");
}

TEST(PrometheusRegistryTest, SameNameAndLabelsIsTheSameMetric) {
  PrometheusRegistry registry;
  Counter& a = registry.GetCounter("c", "help", {{"k", "v"}});
  Counter& b = registry.GetCounter("c", "help", {{"k", "v"}});
  Counter& other = registry.GetCounter("c", "help", {{"k", "w"}});
  EXPECT_EQ(&a, &b);
  EXPECT_NE(&a, &other);
}

TEST(PrometheusRegistryTest, HistogramBucketsAreCumulativeWithSumAndCount) {
  PrometheusRegistry registry;
  Histogram& h = registry.GetHistogram("t_seconds", "Time.", {0.1, 1});
  h.Observe(0.05);
  h.Observe(0.1);  // an upper bound is inclusive
  h.Observe(0.5);
  h.Observe(7);
  EXPECT_EQ(registry.WriteText(),
            "# HELP t_seconds Time.\n"
            "# TYPE t_seconds histogram\n"
            "t_seconds_bucket{le=\"0.1\"} 2\n"
            "t_seconds_bucket{le=\"1\"} 3\n"
            "t_seconds_bucket{le=\"+Inf\"} 4\n"
            "t_seconds_sum 7.65\n"
            "t_seconds_count 4\n");
}

TEST(PrometheusRegistryTest, EscapesLabelValuesAndHelp) {
  PrometheusRegistry registry;
  registry.GetCounter("e", "a \\ b\nc", {{"q", "say \"hi\"\\\n"}}).Add();
  EXPECT_EQ(registry.WriteText(),
            "# HELP e a \\\\ b\\nc\n"
            "# TYPE e counter\n"
            "e{q=\"say \\\"hi\\\"\\\\\\n\"} 1\n");
}

TEST(PrometheusRegistryTest, GaugeFunctionsAreReadAtScrapeTime) {
  PrometheusRegistry registry;
  double value = 1;
  registry.SetGaugeFunction("m_bytes", "Memory.", {}, [&] { return value; });
  EXPECT_NE(registry.WriteText().find("m_bytes 1\n"), std::string::npos);
  value = 2.5;
  EXPECT_NE(registry.WriteText().find("m_bytes 2.5\n"), std::string::npos);
}

TEST(PrometheusRegistryTest, ConcurrentIncrementsAreAllCounted) {
  PrometheusRegistry registry;
  Counter& c = registry.GetCounter("n_total", "n");
  Histogram& h = registry.GetHistogram("h_seconds", "h", DurationSecondsBuckets());
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 10000; ++i) {
        c.Add();
        h.Observe(0.002);
      }
    });
  }
  for (auto& t : threads) {
    t.join();
  }
  EXPECT_EQ(c.value(), 40000);
  EXPECT_EQ(h.count(), 40000);
  EXPECT_EQ(h.CumulativeCount(0), 0);  // 0.002 > 0.001
  EXPECT_EQ(h.CumulativeCount(1), 40000);
}

TEST(PrometheusRegistryDeathTest, RefusesAnotherTypeForAName) {
  PrometheusRegistry registry;
  registry.GetCounter("x", "x");
  EXPECT_DEATH(registry.GetGauge("x", "x"), "another type");
  EXPECT_DEATH(registry.GetCounter("1bad", "x"), "invalid metric name");
}

}  // namespace
}  // namespace shoal
