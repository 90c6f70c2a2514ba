// Stage 04's rebind, without a GPU: the side of A for a size, the verdicts
// per size (copy-in against the streams, the fastest graph way) and the
// crossover follow from made-up times branch by branch, a failed check
// concludes nothing and fails the run, the report carries every way of every
// size in the JSON, and bad --rebind-kib lists are refused by the built stage.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "04_graph_capture_gemm/lab/rebind/rebind.hpp"
#include "made_up.hpp"
#include "matchers.hpp"
#include "run_process.hpp"
#include "usage_checks.hpp"

namespace csg::graphs {
namespace cpu_rebind {

// A size of `kib` KiB whose ways took these wall medians (ms), in RebindWay's order.
RebindSize size_of(long long kib, std::array<double, kRebindWays> wall_ms) {
  RebindSize s;
  s.kib = kib;
  s.m = side_for_kib(kib);
  s.input_bytes = std::uint64_t(s.m) * std::uint64_t(s.m) * 4;
  for (std::size_t w = 0; w < wall_ms.size(); ++w) {
    s.wall[w] = testing::ms(wall_ms[w]);
    s.host[w] = testing::ms(wall_ms[w] / 10);
    s.gpu[w] = testing::ms(wall_ms[w] * 0.9);
  }
  return s;
}

// Small inputs: the replays beat the streams; large: the copies make copy-in lose.
RebindResult result() {
  RebindResult r;
  r.config.kib = {64, 1024, 262144};
  r.sizes = {size_of(64, {0.100, 0.060, 0.050, 0.080, 0.045}), size_of(1024, {0.200, 0.199, 0.150, 0.180, 0.140}),
             size_of(262144, {10.0, 14.0, 10.1, 10.2, 9.9})};
  r.requests_checked = 3 * 5 * 12;
  r.verified = true;
  return r;
}

TEST(Rebind, TheSideOfAIsTheSquareRootOfTheSizeInFloats) {
  EXPECT_EQ(side_for_kib(64), 128);
  EXPECT_EQ(side_for_kib(1024), 512);
  EXPECT_EQ(side_for_kib(262144), 8192);
  EXPECT_EQ(side_for_kib(1), 16);
  EXPECT_EQ(side_for_kib(3), 27);  // floor(sqrt(768))
}

TEST(Rebind, CopyInAgainstTheStreamsPerSize) {
  const RebindResult r = result();
  const Verdict small = copy_in_verdict(r, r.sizes[0]);
  EXPECT_EQ(small.id, "rebind.copy_in.kib_64");
  EXPECT_EQ(small.outcome, "graph_wins");
  EXPECT_THAT(small.sentence, AllOf(HasSubstr("the graph fed by copies took 0.060 ms a request, 1.67x faster than the "
                                              "streams (0.100 ms)"),
                                    HasSubstr("the replay saves more than the copies cost")));
  EXPECT_EQ(copy_in_verdict(r, r.sizes[1]).outcome, "same");
  const Verdict large = copy_in_verdict(r, r.sizes[2]);
  EXPECT_EQ(large.outcome, "graph_loses");
  EXPECT_THAT(large.sentence, HasSubstr("the copies cost more than the replay saves"));
  EXPECT_DOUBLE_EQ(large.figures.at("ratio").get<double>(), 1.4);
}

TEST(Rebind, TheFastestGraphWayIsNamedAgainstCopyInAndTheStreams) {
  const RebindResult r = result();
  const Verdict small = best_way_verdict(r, r.sizes[0]);
  EXPECT_EQ(small.id, "rebind.best.kib_64");
  EXPECT_EQ(small.outcome, "device_update");
  EXPECT_THAT(small.sentence, AllOf(HasSubstr("graph, nodes re-pointed (device), 0.045 ms a request"),
                                    HasSubstr("1.33x faster than copying in"), HasSubstr("2.22x faster than the streams")));
  EXPECT_DOUBLE_EQ(small.figures.at("node_params_ms").get<double>(), 0.050);
  EXPECT_EQ(best_way_verdict(r, r.sizes[2]).outcome, "device_update");
  RebindResult copy_best = r;
  copy_best.sizes[0] = size_of(64, {0.100, 0.040, 0.050, 0.080, 0.045});
  EXPECT_EQ(best_way_verdict(copy_best, copy_best.sizes[0]).outcome, "copy_in");
  EXPECT_THAT(best_way_verdict(copy_best, copy_best.sizes[0]).sentence, Not(HasSubstr("copying in,")));
}

TEST(Rebind, TheCrossoverIsTheSmallestSizeFromWhichCopyInLosesOnward) {
  const Verdict from = crossover_verdict(result());
  EXPECT_EQ(from.outcome, "copy_in_loses_from");
  EXPECT_EQ(from.figures.at("from_kib"), 262144);
  EXPECT_THAT(from.sentence, HasSubstr("from 256.0 MiB per batch on (at 1.0 MiB per batch it did not)"));
  RebindResult never = result();
  never.sizes.pop_back();
  EXPECT_EQ(crossover_verdict(never).outcome, "copy_in_never_loses");
  RebindResult always = result();
  always.sizes = {size_of(64, {0.1, 0.2, 0.1, 0.1, 0.1}), size_of(1024, {0.2, 0.4, 0.2, 0.2, 0.2})};
  EXPECT_EQ(crossover_verdict(always).outcome, "copy_in_always_loses");
  // A win after a loss: the crossover is where losing starts for good.
  RebindResult back = result();
  back.sizes[0] = size_of(64, {0.1, 0.2, 0.1, 0.1, 0.1});
  EXPECT_EQ(crossover_verdict(back).figures.at("from_kib"), 262144);
  // --rebind-kib 262144,1024,64: the sizes stand as given; the crossover is the same.
  RebindResult given = result();
  std::reverse(given.sizes.begin(), given.sizes.end());
  EXPECT_EQ(crossover_verdict(given).figures.at("from_kib"), 262144);
  EXPECT_EQ(crossover_verdict(given).sentence, from.sentence);
}

TEST(Rebind, AFailedCheckConcludesNothingAndFailsTheRun) {
  RebindResult r = result();
  r.verified = false;
  r.failure = "1.0 MiB per batch, device_update: batch 2, row 0, column 0: expected 5, got nan";
  EXPECT_EQ(copy_in_verdict(r, r.sizes[0]).outcome, "not_verified");
  EXPECT_EQ(best_way_verdict(r, r.sizes[0]).outcome, "not_verified");
  EXPECT_THAT(crossover_verdict(r).sentence, HasSubstr("no conclusion about rebinding: a check failed (1.0 MiB"));
  const Report report = testing::report_of("04_graph_capture_gemm", "rebind", report_rebind, r.config, r);
  EXPECT_FALSE(report.passed());
  EXPECT_EQ(report.document().at("rebind").at("failure"), r.failure);
}

TEST(Rebind, TheReportCarriesEveryWayOfEverySizeAndAVerdictEach) {
  const RebindResult r = result();
  const Report report = testing::report_of("04_graph_capture_gemm", "rebind", report_rebind, r.config, r);
  EXPECT_TRUE(report.passed());
  EXPECT_THAT(report.console(), AllOf(HasSubstr("graph, re-capture + exec update"), HasSubstr("1.40x"),
                                      HasSubstr(crossover_verdict(r).sentence)));
  const nlohmann::json doc = report.document();
  EXPECT_THAT(doc.at("verdicts"), SizeIs(2 * 3 + 1));
  const nlohmann::json& sizes = doc.at("rebind").at("sizes");
  ASSERT_THAT(sizes, SizeIs(3));
  EXPECT_EQ(sizes.at(2).at("m"), 8192);
  EXPECT_DOUBLE_EQ(sizes.at(0).at("ways").at("exec_update").at("wall").at("median_ms").get<double>(), 0.080);
  EXPECT_DOUBLE_EQ(sizes.at(0).at("ways").at("streams").at("host").at("median_ms").get<double>(), 0.010);
  EXPECT_EQ(doc.at("verification").at("batches_checked"), r.requests_checked * r.config.batches);
}

#if defined(CSG_STAGE04_BINARY)
TEST(Rebind, ABadSizeListIsRefusedWithExitTwo) {
  for (const auto& [value, mention] : std::vector<std::pair<std::string, std::string>>{
           {"0", "--rebind-kib takes an integer in [1, 1048576], got 0"}, {"64,64", "lists 64 twice"},
           {"64,,1", "--rebind-kib"}}) {
    testing::TempDir dir;
    const testing::ProcessResult run = testing::run_process({CSG_STAGE04_BINARY, "rebind", "--rebind-kib", value});
    EXPECT_TRUE(testing::refused_as_usage(run, mention, dir)) << value << ": " << run.err;
  }
}
#endif

}  // namespace cpu_rebind
}  // namespace csg::graphs
