#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>

#include "measure/stats.hpp"
#include "report/table.hpp"
#include "measure/timers.hpp"

namespace csg {
namespace cpu_stats {

std::vector<Millis> ms(std::initializer_list<double> values) {
  std::vector<Millis> out;
  for (double v : values) out.emplace_back(v);
  return out;
}

TEST(Stats, OddCountMedianMinMax) {
  const Summary s = summarize(ms({5, 1, 4, 2, 3}));
  EXPECT_DOUBLE_EQ(s.median_ms, 3);
  EXPECT_DOUBLE_EQ(s.min_ms, 1);
  EXPECT_DOUBLE_EQ(s.max_ms, 5);
  EXPECT_EQ(s.samples, 5);
  EXPECT_EQ(s.samples_ms, (std::vector<double>{5, 1, 4, 2, 3})) << "kept in the order they ran";
}

TEST(Stats, EvenCountMedianIsTheMeanOfTheMiddleTwo) {
  EXPECT_DOUBLE_EQ(summarize(ms({4, 1, 3, 2})).median_ms, 2.5);
}

TEST(Stats, P95IsNearestRank) {
  std::vector<Millis> samples;
  for (int i = 1; i <= 20; ++i) samples.emplace_back(i);
  EXPECT_DOUBLE_EQ(summarize(samples).p95_ms, 19);  // ceil(0.95·20) = 19th
  samples.emplace_back(21);
  EXPECT_DOUBLE_EQ(summarize(samples).p95_ms, 20);  // ceil(0.95·21) = 20th
  EXPECT_DOUBLE_EQ(summarize(ms({7})).p95_ms, 7);
  EXPECT_DOUBLE_EQ(summarize(ms({1, 100})).p95_ms, 100);
}

TEST(Stats, EmptyThrows) { EXPECT_THROW(summarize({}), std::invalid_argument); }

TEST(Stats, MeasureRunsWarmupAndRepeatsAndPreparesEachTime) {
  int prepared = 0;
  int ran = 0;
  const TimedVariant variant{[&] { ++prepared; },
                             [&] {
                               ++ran;
                               return Millis(double(ran));  // warm-ups return 1..3, repeats 4..8
                             },
                             nullptr};
  const Summary s = measure_interleaved(RepeatPlan{3, 5}, {variant}).front();
  EXPECT_EQ(prepared, 8);
  EXPECT_EQ(ran, 8);
  EXPECT_EQ(s.samples, 5);
  EXPECT_DOUBLE_EQ(s.min_ms, 4);
  EXPECT_DOUBLE_EQ(s.median_ms, 6);
}

TEST(Stats, InterleavedRunsVariantsInRoundsAndChecksEachAfterItsLastRun) {
  std::string trace;
  int a_runs = 0;
  const std::vector<TimedVariant> variants = {
      {[&] { trace += 'p'; }, [&] { trace += 'A'; return Millis(double(++a_runs)); }, [&] { trace += 'a'; }},
      {nullptr, [&] { trace += 'B'; return Millis(100.0); }, [&] { trace += 'b'; }},
  };
  const std::vector<Summary> summaries = measure_interleaved(RepeatPlan{1, 3}, variants);
  // One warm-up round, three timed rounds; each check right after its variant's last run.
  EXPECT_EQ(trace, "pAB" "pAB" "pAB" "pAaBb");
  ASSERT_EQ(summaries.size(), 2u);
  EXPECT_EQ(summaries[0].samples_ms, (std::vector<double>{2, 3, 4}));  // the warm-up's 1 is dropped
  EXPECT_DOUBLE_EQ(summaries[1].median_ms, 100.0);
}

TEST(HostTimer, NeverRunsBackwardsAndRestarts) {
  // steady_clock only: behaviour, not speed (no sleeps, no thresholds).
  HostTimer timer;
  const Millis first = timer.elapsed();
  const Millis second = timer.elapsed();
  EXPECT_GE(first.count(), 0.0);
  EXPECT_GE(second, first);
  volatile double sink = 0.0;
  for (int i = 0; i < 1000000; ++i) sink = sink + 1.0;  // some work, so that time passes
  const Millis third = timer.elapsed();
  timer.restart();
  EXPECT_LE(timer.elapsed(), third);
}

TEST(Stats, Throughput) {
  EXPECT_DOUBLE_EQ(gbps(1e9, 1000.0), 1.0);
  EXPECT_DOUBLE_EQ(gbps(55e6, 1.0), 55.0);
  EXPECT_DOUBLE_EQ(gflops(2e12, 1000.0), 2000.0);
  EXPECT_EQ(gbps(1.0, 0.0), 0.0);
}

TEST(Stats, RelativeSpreadIsTheMediansDistanceFromTheFastestRun) {
  EXPECT_DOUBLE_EQ(relative_spread(10.0, 9.0), 0.1);
  EXPECT_DOUBLE_EQ(relative_spread(summarize({Millis(2.0), Millis(4.0), Millis(5.0)})), 0.5);
  EXPECT_DOUBLE_EQ(relative_spread(0.0, 0.0), 0.0) << "nothing measured";
}

TEST(Table, AlignsColumns) {
  Table table({"variant", "ms"});
  table.add_row({"serial", "82.60"});
  table.add_row({"h2d", "4.1"});
  std::ostringstream out;
  table.print(out);
  EXPECT_EQ(out.str(),
            "variant     ms\n"
            "--------------\n"
            "serial   82.60\n"
            "h2d        4.1\n");
  EXPECT_THROW(table.add_row({"too", "many", "cells"}), std::invalid_argument);
}

TEST(Table, Fixed) {
  EXPECT_EQ(fixed(17.016, 2), "17.02");
  EXPECT_EQ(fixed(std::nan(""), 2), "-");
}

TEST(Table, FigureKeepsTheSignificantDigitsOfSmallValues) {
  EXPECT_EQ(figure(16.054, 2), "16.05");
  EXPECT_EQ(figure(685.28, 2), "685.28");
  EXPECT_EQ(figure(0.0511, 2), "0.0511") << "51 us is not 0.05 ms";
  EXPECT_EQ(figure(0.197, 2), "0.197");
  EXPECT_EQ(figure(4.06, 2), "4.06");
  EXPECT_EQ(figure(6252.4, 0, 2), "6252");
  EXPECT_EQ(figure(47.2, 0, 2), "47");
  EXPECT_EQ(figure(0.0312, 0, 2), "0.031") << "a tiny GEMM's GFLOP/s is not 0";
  EXPECT_EQ(figure(0.0000001234, 2), "0.000000") << "at most 6 decimals";
  EXPECT_EQ(figure(0.0, 2), "0.00");
  EXPECT_EQ(figure(-0.0042, 1, 2), "-0.0042");
  EXPECT_EQ(figure(std::nan(""), 2), "-");
}

}  // namespace cpu_stats
}  // namespace csg
