// Stage 03's graph-priorities, without a GPU: its two verdicts follow from
// made-up latencies branch by branch (what the flag changes, what the launch
// stream changes), runs that can't tell say so, the report prints the table
// and the sentences and carries every way in the JSON, the p99 is the
// nearest rank, and a sample count past its own limit is refused by the
// built stage.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "03_stream_pool_gemm/lab/graph-priorities/graph_priorities.hpp"
#include "made_up.hpp"
#include "matchers.hpp"
#include "run_process.hpp"
#include "usage_checks.hpp"

namespace csg::pool {
namespace cpu_graph_priorities {

// Three samples: 0.9, 1 and 1.5 x the median (the p99 is the largest).
Summary ms(double median) { return testing::ms(median, 0.9, 1.5); }

// A verified run on an H200-like GPU, the flood 95% busy beside every way;
// the median latency of each way in ms, in GraphWay's order after idle.
GraphPriorityResult result(double stream_default, double stream_greatest, double graph_plain, double graph_flag,
                           double graph_on_greatest) {
  GraphPriorityResult r;
  r.device = {.least_priority = 0, .greatest_priority = -5, .sm_count = 132, .flood_blocks_per_sm = 8,
              .hardware_queues = 8};
  r.captured_node_priority = -5;
  const double medians[kGraphWays] = {0.004, stream_default, stream_greatest, graph_plain, graph_flag,
                                      graph_on_greatest};
  for (int w = 0; w < kGraphWays; ++w) {
    r.ways[std::size_t(w)].latency = ms(medians[w]);
    r.ways[std::size_t(w)].flood_busy = w == 0 ? 0.0 : 0.95;
    r.ways[std::size_t(w)].flood_blocks_per_ms = w == 0 ? 0.0 : 50000.0 - 1000.0 * w;
  }
  r.verified = true;
  return r;
}

// As streams do on an H200: priority cuts the wait 6.4x; graphs follow `graph_*`.
GraphPriorityResult streams_helped(double graph_plain, double graph_flag, double graph_on_greatest) {
  return result(0.160, 0.025, graph_plain, graph_flag, graph_on_greatest);
}

TEST(GraphPriorities, TheFlagGivingTheNodesTheirPriorityIsSaidWithTheStreamsBesideIt) {
  const GraphPriorityResult r = streams_helped(0.160, 0.025, 0.025);
  const Verdict verdict = node_priority_verdict(r);
  EXPECT_THAT(verdict, IsVerdict("graph_priorities.node_priority", "helps",
                                 {"cudaGraphInstantiateFlagUseNodePriority cut the graph's short kernels' median "
                                  "latency 6.4x",
                                  "median 25.0 us (p99 37.5) with the flag, 160.0 us (p99 240.0) without",
                                  "with the flag the graph was about as fast as (within 10%) kernels on the "
                                  "greatest-priority stream",
                                  "without it, about as fast as (within 10%) kernels on its"}));
  EXPECT_NEAR(verdict.figures.at("median_latency_speedup").get<double>(), 0.160 / 0.025, 1e-9);
  EXPECT_DOUBLE_EQ(verdict.figures.at("graph_node_priority_median_ms").get<double>(), 0.025);
  EXPECT_DOUBLE_EQ(verdict.figures.at("graph_plain_p99_ms").get<double>(), 0.160 * 1.5);
  EXPECT_DOUBLE_EQ(verdict.threshold.at("priority_within").get<double>(), kPriorityWithin);
}

TEST(GraphPriorities, NoDifferenceSaysWhetherTheNodesLostAPriorityThatHelpsStreams) {
  const Verdict lost = node_priority_verdict(streams_helped(0.160, 0.155, 0.025));
  EXPECT_EQ(lost.outcome, "no_difference");
  EXPECT_THAT(lost.sentence, AllOf(HasSubstr("made no difference to the graph's short kernels within 10%"),
                                   HasSubstr("the graph's nodes lost theirs")));
  // Priority helps no one: the flag had nothing to keep.
  const Verdict nothing = node_priority_verdict(result(0.100, 0.098, 0.100, 0.099, 0.100));
  EXPECT_EQ(nothing.outcome, "no_difference");
  EXPECT_THAT(nothing.sentence, HasSubstr("priority did not help kernels on streams either: there was nothing to keep"));
}

TEST(GraphPriorities, WhatRuledIsSaidOnlyWhereTheFiguresShowIt) {
  // The flag helped, but the flagged graph is still 2x the greatest-priority stream: no claim that the nodes ruled.
  const Verdict halfway = node_priority_verdict(streams_helped(0.160, 0.050, 0.025));
  EXPECT_EQ(halfway.outcome, "helps");
  EXPECT_THAT(halfway.sentence, AllOf(HasSubstr("latency 3.2x.\n"), Not(HasSubstr("ruled")),
                                      HasSubstr("with the flag the graph was 2.00x slower than kernels on the "
                                                "greatest-priority stream")));
  // No difference, both graphs as fast as the greatest-priority stream: the priority was kept, not lost.
  const Verdict kept = node_priority_verdict(streams_helped(0.026, 0.025, 0.025));
  EXPECT_EQ(kept.outcome, "no_difference");
  EXPECT_THAT(kept.sentence, AllOf(HasSubstr("the graph kept its nodes' priority even without the flag"),
                                   Not(HasSubstr("lost"))));
}

TEST(GraphPriorities, TheFlagMakingThingsWorseIsSaid) {
  const Verdict worse = node_priority_verdict(streams_helped(0.050, 0.080, 0.025));
  EXPECT_EQ(worse.outcome, "worse");
  EXPECT_THAT(worse.sentence, HasSubstr("made the graph's short kernels slower, 1.60x"));
}

TEST(GraphPriorities, TheLaunchStreamsPriorityCarriesAPlainGraphOrNot) {
  const Verdict carried = launch_stream_verdict(streams_helped(0.160, 0.025, 0.025));
  EXPECT_EQ(carried.id, "graph_priorities.launch_stream");
  EXPECT_EQ(carried.outcome, "helps");
  EXPECT_THAT(carried.sentence, AllOf(HasSubstr("took the priority of the stream it was launched on: 6.4x faster"),
                                      HasSubstr("median 160.0 us (p99 240.0) launched on the default-priority stream, "
                                                "25.0 us (p99 37.5) on the greatest")));
  const Verdict same = launch_stream_verdict(streams_helped(0.160, 0.025, 0.150));
  EXPECT_EQ(same.outcome, "no_difference");
  EXPECT_THAT(same.sentence, HasSubstr("made no difference within 10%"));
  EXPECT_EQ(launch_stream_verdict(streams_helped(0.100, 0.025, 0.150)).outcome, "worse");
}

TEST(GraphPriorities, RunsThatCantTellSaySoInBothVerdicts) {
  GraphPriorityResult failed = streams_helped(0.160, 0.025, 0.025);
  failed.verified = false;
  failed.failure = "short kernel 3, thread 7: expected 1, got 2";
  for (const Verdict& v : {node_priority_verdict(failed), launch_stream_verdict(failed)}) {
    EXPECT_EQ(v.outcome, "not_verified");
    EXPECT_THAT(v.sentence, HasSubstr("no conclusion about graph priorities: a check failed (short kernel 3"));
  }
  GraphPriorityResult gaps = streams_helped(0.160, 0.025, 0.025);
  gaps.flood_gaps = 2;
  EXPECT_EQ(node_priority_verdict(gaps).outcome, "flood_gaps");
  GraphPriorityResult not_full = streams_helped(0.160, 0.025, 0.025);
  not_full.ways[std::size_t(GraphWay::stream_default)].flood_busy = 0.5;
  EXPECT_EQ(launch_stream_verdict(not_full).outcome, "gpu_not_full");
  GraphPriorityResult one_level = streams_helped(0.160, 0.025, 0.025);
  one_level.device.greatest_priority = 0;
  EXPECT_EQ(node_priority_verdict(one_level).outcome, "one_level");
}

Report report_of(const GraphPriorityResult& r) {
  return testing::report_of("03_stream_pool_gemm", "graph-priorities", report_graph_priorities, r.config, r);
}

TEST(GraphPriorities, TheReportPrintsEveryWayAndCarriesItInTheJson) {
  const GraphPriorityResult r = streams_helped(0.160, 0.025, 0.025);
  const Report report = report_of(r);
  EXPECT_TRUE(report.passed());
  EXPECT_THAT(report.console(),
              AllOf(HasSubstr("graphs, node priority flag, default stream"), HasSubstr("a node\n  carried priority -5"),
                    HasSubstr(node_priority_verdict(r).sentence), HasSubstr(launch_stream_verdict(r).sentence)));
  const nlohmann::json doc = report.document();
  const nlohmann::json& section = doc.at("graph_priorities");
  EXPECT_EQ(section.at("captured_node_priority"), -5);
  const nlohmann::json& ways = section.at("ways");
  EXPECT_EQ(ways.size(), std::size_t(kGraphWays));
  EXPECT_TRUE(ways.at("stream_greatest").at("node_priority").is_null());
  EXPECT_EQ(ways.at("graph_node_priority").at("node_priority"), -5);
  EXPECT_EQ(ways.at("graph_node_priority").at("use_node_priority"), true);
  EXPECT_EQ(ways.at("graph_on_greatest").at("stream_priority"), -5);
  EXPECT_DOUBLE_EQ(ways.at("graph_plain").at("latency").at("p99_ms").get<double>(), 0.160 * 1.5);
  EXPECT_TRUE(ways.at("idle").at("flood_busy").is_null());
  EXPECT_DOUBLE_EQ(section.at("median_us").at("graph_node_priority").get<double>(), 25.0);
  EXPECT_THAT(doc.at("verdicts"), ::testing::SizeIs(2));
  EXPECT_EQ(doc.at("verdicts").at(0).at("id"), "graph_priorities.node_priority");
  EXPECT_EQ(doc.at("verification").at("batches_checked"), kGraphWays * (r.config.plan.warmup + r.config.plan.repeats));
}

TEST(GraphPriorities, AFailedCheckFailsTheRun) {
  GraphPriorityResult r = streams_helped(0.160, 0.025, 0.025);
  r.verified = false;
  r.failure = "flood stream 1: 10 blocks counted";
  const Report report = report_of(r);
  EXPECT_FALSE(report.passed());
  EXPECT_EQ(report.document().at("graph_priorities").at("failure"), "flood stream 1: 10 blocks counted");
}

TEST(GraphPriorities, TheP99IsTheNearestRank) {
  std::vector<Millis> hundred;
  for (int i = 100; i >= 1; --i) hundred.push_back(Millis(i));
  EXPECT_DOUBLE_EQ(p99_ms(summarize(hundred)), 99.0);
  EXPECT_DOUBLE_EQ(p99_ms(ms(2.0)), 3.0);
  EXPECT_DOUBLE_EQ(p99_ms(Summary{}), 0.0);
}

#if defined(CSG_STAGE03_BINARY)
TEST(GraphPriorities, MoreSamplesThanItsGraphsAllowAreRefused) {
  testing::TempDir dir;
  const testing::ProcessResult run =
      testing::run_process({CSG_STAGE03_BINARY, "graph-priorities", "--priority-samples", "10001"});
  EXPECT_TRUE(testing::refused_as_usage(run, "--priority-samples takes an integer in [1, 10000]", dir)) << run.err;
}
#endif

}  // namespace cpu_graph_priorities
}  // namespace csg::pool
