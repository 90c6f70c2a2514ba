// Stage 03's partition, without a GPU: each partition's verdict against the
// greatest priority follows from made-up latencies and flood throughputs,
// branch by branch (beats priority, matches it, costs the flood more than it
// saves, worse, and the runs that can't tell); the report prints a row per
// way and a verdict per K and carries them in the JSON; bad --partition-sms
// lists are refused by the built stage.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "03_stream_pool_gemm/lab/partition/partition.hpp"
#include "made_up.hpp"
#include "matchers.hpp"
#include "run_process.hpp"
#include "usage_checks.hpp"

namespace csg::pool {
namespace cpu_partition {

Summary ms(double median) { return testing::ms(median, 0.9, 1.5); }

PartitionWay way(std::string id, int priority, int asked, int short_sms, int flood_sms, double median_ms,
                 double blocks_per_ms) {
  PartitionWay w;
  w.id = std::move(id);
  w.short_priority = priority;
  w.sms_asked = asked;
  w.short_sms = short_sms;
  w.flood_sms = flood_sms;
  w.mode.latency = ms(median_ms);
  w.mode.flood_busy = flood_sms > 0 ? 0.95 : 0.0;
  w.mode.flood_blocks_per_ms = blocks_per_ms;
  return w;
}

// A verified run on a 132-SM GPU: priority waits 25 us, the flood runs
// 50,000 blocks/ms beside it; one partition of 8 SMs with `median_ms` and
// the flood's `blocks_per_ms` beside it.
PartitionResult result(double median_ms, double blocks_per_ms) {
  PartitionResult r;
  r.config.sms = {8};
  r.device = {.least_priority = 0, .greatest_priority = -5, .sm_count = 132, .flood_blocks_per_sm = 8,
              .hardware_queues = 8};
  r.min_partition_sms = 8;
  r.sm_alignment = 8;
  r.ways = {way("idle", 0, 0, 132, 0, 0.004, 0.0), way("stream_default", 0, 0, 132, 132, 0.160, 50000.0),
            way("stream_greatest", -5, 0, 132, 132, 0.025, 50000.0),
            way("partition_8", 0, 8, 8, 124, median_ms, blocks_per_ms)};
  r.verified = true;
  return r;
}

const PartitionWay& partition_of(const PartitionResult& r) { return r.ways.back(); }

TEST(Partition, APartitionFasterThanPriorityBeatsItAndSaysWhatTheFloodLost) {
  const PartitionResult r = result(0.005, 47000.0);
  EXPECT_NEAR(flood_cost(r, partition_of(r)), 0.06, 1e-12);
  EXPECT_EQ(judge_partition(r, partition_of(r)), PartitionVerdict::beats_priority);
  const Verdict verdict = partition_verdict(r, partition_of(r));
  EXPECT_THAT(verdict, IsVerdict("partition.sms_8", "beats_priority",
                                 {"8 SMs of their own (the flood on 124): median 5.0 us, p99 7.5 us, against 25.0 us, "
                                  "p99 37.5 us at the greatest priority",
                                  "the partition beat priority 5.0x (80% less latency); the flood lost 6% of its "
                                  "throughput against priority's (it gave up 6% of the SMs)"}));
  EXPECT_DOUBLE_EQ(verdict.figures.at("partition_median_ms").get<double>(), 0.005);
  EXPECT_DOUBLE_EQ(verdict.figures.at("priority_p99_ms").get<double>(), 0.025 * 1.5);
  EXPECT_DOUBLE_EQ(verdict.threshold.at("flood_within").get<double>(), kEqualWithin);
  EXPECT_DOUBLE_EQ(verdict.figures.at("latency_saved").get<double>(), 0.8);
}

TEST(Partition, NoLatencyGainedIsAMatchOrACostByTheFloodsLoss) {
  const PartitionResult cheap = result(0.026, 49000.0);  // 2% lost: within 3%
  EXPECT_EQ(judge_partition(cheap, partition_of(cheap)), PartitionVerdict::matches_priority);
  EXPECT_THAT(partition_verdict(cheap, partition_of(cheap)).sentence, HasSubstr("as good as priority at no cost"));
  const PartitionResult costly = result(0.024, 45000.0);  // 10% lost
  EXPECT_EQ(judge_partition(costly, partition_of(costly)), PartitionVerdict::costs_more_than_it_saves);
  EXPECT_THAT(partition_verdict(costly, partition_of(costly)).sentence,
              AllOf(HasSubstr("no better than priority, yet the flood lost 10%"),
                    HasSubstr("costs the flood more than it saves the short kernels")));
  // Faster than priority, but the latency saved (20%) is a smaller share than the flood's throughput lost (24%).
  const PartitionResult dear = result(0.020, 38000.0);
  EXPECT_EQ(judge_partition(dear, partition_of(dear)), PartitionVerdict::costs_more_than_it_saves);
  EXPECT_THAT(partition_verdict(dear, partition_of(dear)).sentence,
              AllOf(HasSubstr("the partition cut the latency 20% below priority's, but the flood lost 24%"),
                    HasSubstr("costs the flood more than it saves")));
  EXPECT_EQ(judge_partition(result(0.020, 41000.0), partition_of(result(0.020, 41000.0))),
            PartitionVerdict::beats_priority);  // 18% lost for 20% saved
  const PartitionResult slower = result(0.040, 50000.0);
  EXPECT_EQ(judge_partition(slower, partition_of(slower)), PartitionVerdict::worse);
  EXPECT_THAT(partition_verdict(slower, partition_of(slower)).sentence, HasSubstr("1.60x slower than priority"));
  // Near the thresholds: 11% faster is a win, 2.5% of the flood no cost.
  const PartitionResult win = result(0.025 / 1.11, 50000.0);
  EXPECT_EQ(judge_partition(win, partition_of(win)), PartitionVerdict::beats_priority);
  const PartitionResult edge = result(0.025, 50000.0 * 0.975);
  EXPECT_EQ(judge_partition(edge, partition_of(edge)), PartitionVerdict::matches_priority);
}

TEST(Partition, RunsThatCantTellSaySoAndOnePriorityLevelIsNoObstacle) {
  PartitionResult failed = result(0.005, 47000.0);
  failed.verified = false;
  failed.failure = "short kernel 0, thread 1: expected 5, got 6";
  EXPECT_EQ(partition_verdict(failed, partition_of(failed)).outcome, "not_verified");
  EXPECT_THAT(partition_verdict(failed, partition_of(failed)).sentence,
              HasSubstr("no conclusion about partitions: a check failed (short kernel 0"));
  PartitionResult gaps = result(0.005, 47000.0);
  gaps.flood_gaps = 1;
  EXPECT_EQ(judge_partition(gaps, partition_of(gaps)), PartitionVerdict::flood_gaps);
  PartitionResult not_full = result(0.005, 47000.0);
  not_full.ways[1].mode.flood_busy = 0.5;
  EXPECT_EQ(judge_partition(not_full, partition_of(not_full)), PartitionVerdict::gpu_not_full);
  PartitionResult one_level = result(0.005, 47000.0);
  one_level.device.greatest_priority = 0;
  EXPECT_EQ(judge_partition(one_level, partition_of(one_level)), PartitionVerdict::beats_priority);
}

TEST(Partition, ASplitRoundsUpToItsStepAndDefaultsThatLeaveTheFloodNothingAreLeftOut) {
  // As the H100 split: at least 8 SMs, in steps of 8 (asked 1, 66, 124: got 8, 72, 128).
  EXPECT_EQ(partition_size(1, 8, 8), 8);
  EXPECT_EQ(partition_size(66, 8, 8), 72);
  EXPECT_EQ(partition_size(124, 8, 8), 128);
  EXPECT_EQ(partition_size(5, 2, 0), 5);  // no step given: SM by SM
  std::vector<int> left_out;
  EXPECT_EQ(usable_partitions({8, 32, 130, 124}, 132, 8, 8, left_out), (std::vector<int>{8, 32, 124}));
  EXPECT_EQ(left_out, std::vector<int>{130});
  std::vector<int> small_gpu;
  EXPECT_EQ(usable_partitions({8, 32}, 20, 4, 2, small_gpu), std::vector<int>{8});
  EXPECT_EQ(small_gpu, std::vector<int>{32});
  std::vector<int> whole_gpu;  // a partition of every SM leaves the flood none
  EXPECT_TRUE(usable_partitions({9}, 16, 8, 8, whole_gpu).empty());
  EXPECT_EQ(whole_gpu, std::vector<int>{9});
}

Report report_of(const PartitionResult& r) {
  return testing::report_of("03_stream_pool_gemm", "partition", report_partition, r.config, r);
}

TEST(Partition, TheReportPrintsEveryWayAVerdictPerPartitionAndTheJson) {
  PartitionResult r = result(0.005, 47000.0);
  r.config.sms = {8, 32};
  r.ways.push_back(way("partition_32", 0, 32, 32, 100, 0.005, 38000.0));
  const Report report = report_of(r);
  EXPECT_TRUE(report.passed());
  EXPECT_THAT(report.console(),
              AllOf(HasSubstr("green context of 8 SMs (asked 8)"), HasSubstr("greatest priority, every SM"),
                    HasSubstr("split into green contexts of at least 8 SMs in steps of 8"),
                    HasSubstr(partition_verdict(r, r.ways[3]).sentence),
                    HasSubstr(partition_verdict(r, r.ways[4]).sentence)));
  const nlohmann::json doc = report.document();
  ASSERT_THAT(doc.at("verdicts"), ::testing::SizeIs(2));
  EXPECT_EQ(doc.at("verdicts").at(1).at("id"), "partition.sms_32");
  const nlohmann::json& section = doc.at("partition");
  EXPECT_EQ(section.at("ways").size(), 5U);
  EXPECT_EQ(section.at("ways").at(3).at("flood_sms"), 124);
  EXPECT_TRUE(section.at("ways").at(2).at("flood_cost_vs_priority").is_null());
  EXPECT_NEAR(section.at("ways").at(4).at("flood_cost_vs_priority").get<double>(), 0.24, 1e-12);
  EXPECT_DOUBLE_EQ(section.at("ways").at(3).at("latency").at("p99_ms").get<double>(), 0.0075);
  EXPECT_EQ(section.at("first_partition").at("short_sms"), 8);
  EXPECT_DOUBLE_EQ(section.at("first_partition").at("median_us").get<double>(), 5.0);
  EXPECT_DOUBLE_EQ(section.at("first_partition").at("priority_median_us").get<double>(), 25.0);
  EXPECT_EQ(doc.at("config").at("partition_sms"), nlohmann::json({8, 32}));
  EXPECT_TRUE(section.at("left_out_sms").empty());
  EXPECT_THAT(report.console(), Not(HasSubstr("left out")));
  r.left_out_sms = {130};
  const Report left = report_of(r);
  EXPECT_THAT(left.console(), HasSubstr("left out: --partition-sms 130 (a partition of 136 SMs would leave the flood "
                                        "none of this GPU's 132)"));
  EXPECT_EQ(left.document().at("partition").at("left_out_sms"), nlohmann::json({130}));
}

#if defined(CSG_STAGE03_BINARY)
struct BadList {
  std::string name;
  std::string value;
  std::string must_mention;
};

class PartitionRefuses : public ::testing::TestWithParam<BadList> {};

TEST_P(PartitionRefuses, ABadSmListWithExitTwoBeforeAnyCudaCall) {
  testing::TempDir dir;
  const testing::ProcessResult run =
      testing::run_process({CSG_STAGE03_BINARY, "partition", "--partition-sms", GetParam().value});
  EXPECT_TRUE(testing::refused_as_usage(run, GetParam().must_mention, dir)) << run.err;
}

INSTANTIATE_TEST_SUITE_P(
    SmLists, PartitionRefuses,
    ::testing::Values(BadList{"zero", "0", "--partition-sms takes an integer in [1, 1024], got 0"},
                      BadList{"too_many", "8,1025", "got 1025"}, BadList{"twice", "8,8", "lists 8 twice"},
                      BadList{"not_a_number", "eight", "--partition-sms"}, BadList{"empty_item", "8,,16", "--partition-sms"}),
    [](const ::testing::TestParamInfo<BadList>& param_info) { return param_info.param.name; });
#endif

}  // namespace cpu_partition
}  // namespace csg::pool
