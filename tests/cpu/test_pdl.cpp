// Stage 04's pdl subcommand on made-up figures: each branch of the verdict
// (PDL saves, the gap is noise, no gain, PDL costs) and its sentence, the
// threshold that grows with the spread, the host-bound verdict, the figures
// derived from a chain's run, the rebuilt product the GEMM chain's check
// reads, the report (its table, its verdicts in the JSON, a failed check
// failing the run), the options and the estimate.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "matchers.hpp"
#include "04_graph_capture_gemm/lab/pdl/pdl.hpp"
#include "04_graph_capture_gemm/lab/report.hpp"
#include "base/errors.hpp"
#include "declaration_checks.hpp"
#include "subcommand_checks.hpp"
#include "made_up.hpp"

namespace csg::graphs {
namespace cpu_pdl {

Summary at(double median_ms, double min_ms = -1.0, double max_ms = -1.0) {
  Summary s;
  s.median_ms = s.p95_ms = median_ms;
  s.min_ms = min_ms < 0.0 ? median_ms : min_ms;
  s.max_ms = max_ms < 0.0 ? median_ms : max_ms;
  s.samples = 10;
  return s;
}

PdlComparison compare(double plain_us, double pdl_us, double own_us, double plain_spread = 0.0,
                      double pdl_spread = 0.0) {
  return PdlComparison{plain_us, pdl_us, own_us, plain_spread, pdl_spread};
}

using VerdictCase = VerdictBranch<PdlComparison>;

class PdlVerdictBranch : public ::testing::TestWithParam<VerdictCase> {};

TEST_P(PdlVerdictBranch, OutcomeAndSentence) {
  const VerdictCase& c = GetParam();
  const Verdict verdict = pdl_verdict("empty", "streams", c.figures);
  EXPECT_THAT(verdict, IsVerdict("pdl.empty.streams", c.outcome, c.words));
  EXPECT_THAT(verdict.sentence, StartsWith("empty pair: on streams, PDL"));
  EXPECT_DOUBLE_EQ(verdict.threshold.get<double>(), c.figures.threshold());
}

// The threshold: 3% of the plain time per kernel, or either median's spread if larger.
INSTANTIATE_TEST_SUITE_P(
    Verdicts, PdlVerdictBranch,
    ::testing::Values(
        // Empty kernels: 2.0 µs per kernel plainly, 1.2 with PDL.
        VerdictCase{"Saves", compare(2.0, 1.2, 0.0), "saves", {"PDL saved 0.800 µs per kernel", "3% threshold"}},
        // 180 µs GEMMs, a 1 µs gap: PDL's 0.5 µs is under 3% of a kernel.
        VerdictCase{"GapIsNoise", compare(181.0, 180.5, 180.0), "gap_is_noise",
                    {"PDL does not pay off here", "the gap is noise"}},
        // 10 µs per kernel, 5 of them gap, and PDL the same.
        VerdictCase{"NoGain", compare(10.0, 9.9, 5.0), "no_gain", {"PDL did not save time", "gap of 5.00 µs"}},
        VerdictCase{"Costs", compare(2.0, 2.5, 0.0), "costs", {"PDL cost 0.500 µs per kernel more"}},
        VerdictCase{"JustInsideThreePercent", compare(100.0, 97.5, 0.0), "no_gain", {}},
        VerdictCase{"JustBeyondThreePercent", compare(100.0, 96.5, 0.0), "saves", {}},
        VerdictCase{"CostsBeyondThreePercent", compare(100.0, 103.5, 0.0), "costs", {}},
        // 10% faster, but the PDL runs spread by 20% (or the plain ones by 15%): within noise.
        VerdictCase{"WithinThePdlSpread", compare(2.0, 1.8, 0.0, 0.0, 0.2), "no_gain", {"within 20%"}},
        VerdictCase{"WithinThePlainSpread", compare(2.0, 1.8, 0.0, 0.15, 0.0), "no_gain", {}}),
    [](const ::testing::TestParamInfo<VerdictCase>& param_info) { return std::string(param_info.param.name); });

TEST(PdlVerdicts, CarryTheirFiguresAndNameTheChainAndTheLaunchKind) {
  const Verdict verdict = pdl_verdict("gemm", "graph", compare(181.0, 179.0, 180.0));
  EXPECT_EQ(verdict.id, "pdl.gemm.graph");
  EXPECT_THAT(verdict.sentence, ::testing::StartsWith("GEMM chain: in the graph, PDL"));
  EXPECT_DOUBLE_EQ(verdict.figures.at("plain_us").get<double>(), 181.0);
  EXPECT_DOUBLE_EQ(verdict.figures.at("pdl_us").get<double>(), 179.0);
  EXPECT_DOUBLE_EQ(verdict.figures.at("saving_us").get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(verdict.figures.at("plain_gap_us").get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(verdict.threshold.get<double>(), kPdlEqualWithin);
}

TEST(Pdl, WayNamesAreStable) {
  EXPECT_STREQ(to_string(PdlWay::stream_plain), "stream_plain");
  EXPECT_STREQ(to_string(PdlWay::graph_pdl), "graph_pdl");
}

// A chain of `kernels` whose ways took these medians (ms for the whole chain).
PdlChainRun made_up_run(int kernels, std::array<double, kPdlWays> chain_ms, double alone_ms) {
  PdlChainRun run;
  run.kernels = kernels;
  run.hold_ms = pdl_hold_ms(kernels);
  run.alone = at(alone_ms);
  for (int w = 0; w < kPdlWays; ++w) {
    run.chain[w] = at(chain_ms[w], chain_ms[w] * 0.9);
    run.issue[w] = at(0.5 * run.hold_ms, 0.4 * run.hold_ms, 0.6 * run.hold_ms);
    run.verified[w].passed = true;
    run.verified[w].batches_checked = kernels;
    run.passed[w] = true;
  }
  run.verified[kPdlWays].passed = true;
  run.verified[kPdlWays].batches_checked = 1;
  run.passed[kPdlWays] = true;
  run.programmatic_edges = kernels - 1;
  run.graph_edges = kernels - 1;
  return run;
}

TEST(Pdl, ChainFiguresAreTimesPerKernelLessTheOwnTime) {
  // 100 GEMMs: 18.1 ms plainly; one alone 0.184 ms, an empty kernel alone 0.004 ms.
  const PdlChainRun run = made_up_run(100, {18.1, 17.9, 18.05, 17.8}, 0.184);
  const PdlChainFigures f = chain_figures(run, 4.0);
  EXPECT_NEAR(f.per_kernel_us[0], 181.0, 1e-9);
  EXPECT_NEAR(f.alone_us, 184.0, 1e-9);
  EXPECT_NEAR(f.own_us, 180.0, 1e-9);
  EXPECT_NEAR(f.gap_us(PdlWay::stream_plain), 1.0, 1e-9);
  EXPECT_NEAR(f.gap_us(PdlWay::graph_pdl), -2.0, 1e-9);
  EXPECT_NEAR(f.spread[0], 0.1, 1e-9);
  EXPECT_NEAR(f.streams().plain_us, 181.0, 1e-9);
  EXPECT_NEAR(f.streams().pdl_us, 179.0, 1e-9);
  EXPECT_NEAR(f.graph().plain_us, 180.5, 1e-9);
  EXPECT_NEAR(f.graph().pdl_us, 178.0, 1e-9);
  // The own time never goes below 0 (an empty kernel is all launch).
  EXPECT_EQ(chain_figures(run, 500.0).own_us, 0.0);
}

TEST(PdlVerdicts, AHostBoundWayIsNamed) {
  PdlChainRun run = made_up_run(1000, {2.0, 1.5, 1.8, 1.2}, 0.004);
  EXPECT_FALSE(hold_verdict("empty", chain_figures(run, 4.0)).has_value()) << "every way queued within the hold";
  run.issue[index_of(PdlWay::stream_pdl)] = at(5.0, 4.0, 12.5);  // longer than the 10.1 ms hold
  const PdlChainFigures f = chain_figures(run, 4.0);
  EXPECT_TRUE(f.host_bound(PdlWay::stream_pdl));
  EXPECT_FALSE(f.host_bound(PdlWay::stream_plain));
  const std::optional<Verdict> hold = hold_verdict("empty", f);
  ASSERT_TRUE(hold.has_value());
  EXPECT_THAT(*hold, IsVerdict("pdl.empty.hold", "host_bound",
                               {"empty: stream_pdl's slowest run took the host 12.50 ms to queue, longer than the "
                                "10.10 ms hold"}));
  EXPECT_DOUBLE_EQ(hold->figures.at("stream_pdl_issue_max_ms").get<double>(), 12.5);
  EXPECT_DOUBLE_EQ(hold->threshold.at("hold_ms").get<double>(), 10.1);
}

TEST(Pdl, UndoCarryRebuildsEachProductFromItsPredecessor) {
  // Two elements per batch, three batches: C_0 = P_0, C_i = P_i + (C_{i-1} mod 8).
  const std::vector<float> products = {13.0f, 4.0f, 20.0f, 0.0f, 7.0f, 100.0f};
  std::vector<float> c(products.size());
  for (int i = 0; i < 2; ++i) c[i] = products[i];
  for (int batch = 1; batch < 3; ++batch) {
    for (int i = 0; i < 2; ++i) c[2 * batch + i] = products[2 * batch + i] + std::fmod(c[2 * (batch - 1) + i], 8.0f);
  }
  undo_carry(c, 2, 3);
  EXPECT_EQ(c, products);
  // A NaN (an element the previous kernel had not written yet) stays NaN downstream.
  std::vector<float> poisoned = {1.0f, std::numeric_limits<float>::quiet_NaN(), 3.0f, 4.0f};
  undo_carry(poisoned, 2, 2);
  EXPECT_TRUE(std::isnan(poisoned[3]));
  EXPECT_EQ(poisoned[2], 2.0f);
  std::vector<float> short_buffer(3);
  EXPECT_THROW(undo_carry(short_buffer, 2, 2), std::invalid_argument);
}

TEST(Pdl, UndoCarryOfLargeOutputsSplitOverThreadsRebuildsEveryElement) {
  // Outputs large enough to be split between threads: every element of every
  // batch, the ranges' edges included, comes back as its product.
  constexpr std::size_t kElems = 40000;
  constexpr int kBatches = 4;
  std::vector<float> products(kElems * kBatches);
  for (std::size_t i = 0; i < products.size(); ++i) products[i] = float(i % 1009);
  std::vector<float> c = products;
  for (int batch = 1; batch < kBatches; ++batch) {
    for (std::size_t i = 0; i < kElems; ++i) {
      c[batch * kElems + i] = products[batch * kElems + i] + std::fmod(c[(batch - 1) * kElems + i], 8.0f);
    }
  }
  undo_carry(c, kElems, kBatches);
  EXPECT_EQ(c, products);
}

struct MadeUpPdl {
  PdlConfig config;
  PdlCosts costs;
};

MadeUpPdl made_up_pdl() {
  MadeUpPdl run;
  run.config.common.work = Workload{100, GemmShape{1024, 1024, 512}};
  run.costs.gemm = made_up_run(100, {18.1, 17.9, 18.05, 17.8}, 0.184);
  run.costs.empty = made_up_run(1000, {2.0, 1.2, 1.8, 1.0}, 0.004);
  for (VerifyResult& v : run.costs.empty.verified) v = VerifyResult{};  // the empty chain has counters only
  return run;
}

Report reported(const MadeUpPdl& run) {
  return testing::report_of(kStage, "pdl", report_pdl, run.config, run.costs);
}

TEST(PdlReport, VerifiesEveryWayAndWritesItsFigures) {
  const MadeUpPdl run = made_up_pdl();
  const Report report = reported(run);
  EXPECT_TRUE(report.passed());
  EXPECT_EQ(report.result.variants_verified, 10);
  EXPECT_EQ(report.result.measurements.size(), 10u);
  const nlohmann::json& bounds = report.result.bounds;
  EXPECT_NEAR(bounds.at("pdl_gemm_stream_plain_us_per_kernel").get<double>(), 181.0, 1e-9);
  EXPECT_NEAR(bounds.at("pdl_empty_stream_pdl_us_per_kernel").get<double>(), 1.2, 1e-9);
  EXPECT_NEAR(bounds.at("pdl_gemm_own_us").get<double>(), 180.0, 1e-9);
  EXPECT_NEAR(bounds.at("pdl_empty_graph_pdl_gap_us").get<double>(), 1.0, 1e-9);

  const nlohmann::json doc = report.document();
  EXPECT_EQ(doc.at("subcommand"), "pdl");
  const nlohmann::json& pdl = doc.at("pdl");
  EXPECT_EQ(pdl.at("threshold").get<double>(), kPdlEqualWithin);
  EXPECT_EQ(pdl.at("gemm").at("kernels"), 100);
  EXPECT_EQ(pdl.at("gemm").at("programmatic_edges"), 99);
  EXPECT_EQ(pdl.at("empty").at("kernels"), 1000);
  EXPECT_EQ(pdl.at("empty").at("streams").at("verdict"), "saves");
  EXPECT_NEAR(pdl.at("empty").at("streams").at("saving_us").get<double>(), 0.8, 1e-9);
  EXPECT_EQ(pdl.at("gemm").at("ways").at("stream_pdl").at("host_bound"), false);
  EXPECT_NEAR(pdl.at("gemm").at("ways").at("graph_plain").at("gap_us").get<double>(), 0.5, 1e-9);
  EXPECT_FALSE(pdl.at("gemm").contains("failure"));
}

TEST(PdlReport, PrintsTheTableAndOneVerdictPerChainAndLaunchKind) {
  const Report report = reported(made_up_pdl());
  const std::string text = report.console();
  EXPECT_THAT(testing::printed_verdict_ids(report), ElementsAre("pdl.gemm.streams", "pdl.gemm.graph", "pdl.empty.streams", "pdl.empty.graph"));
  EXPECT_EQ(report.document().at("verdicts").size(), 4u);
  EXPECT_THAT(text, AllOf(HasSubstr("empty pair: on streams, PDL saved 0.800 µs per kernel"),
                          HasSubstr("999 (999)"),  // the PDL graph's edges, programmatic in brackets
                          HasSubstr("one alone"), HasSubstr("own 180"), Not(HasSubstr("FAILED"))));
}

TEST(PdlReport, AWrongCounterOrAMissingProgrammaticEdgeFailsTheRun) {
  MadeUpPdl run = made_up_pdl();
  run.costs.empty.passed[index_of(PdlWay::stream_pdl)] = false;
  run.costs.empty.failure = "empty pair, stream_pdl: the sequence reached 11990 (expected 12000)";
  Report report = reported(run);
  testing::expect_failed(report, "sequence reached 11990");
  EXPECT_EQ(report.document().at("pdl").at("empty").at("failure"), run.costs.empty.failure);
  EXPECT_THAT(report.console(), HasSubstr("empty chain check FAILED: empty pair, stream_pdl"));

  run = made_up_pdl();
  run.costs.gemm.programmatic_edges = 0;
  run.costs.gemm.failure = "the captured PDL chain has 0 programmatic edges of 99, expected 99";
  report = reported(run);
  testing::expect_failed(report, "programmatic edges");

  run = made_up_pdl();
  run.costs.gemm.verified[index_of(PdlWay::graph_pdl)].passed = false;
  EXPECT_FALSE(reported(run).passed());
}

PdlConfig parse(const std::vector<std::string>& args) {
  return testing::read_declared(pdl_defaults(), pdl_options, read_pdl, args);
}

TEST(PdlOptions, SetTheChains) {
  const PdlConfig defaults = parse({});
  EXPECT_EQ(defaults.pairs, kDefaultPdlPairs);
  EXPECT_EQ(defaults.empty_kernels(), 500);
  EXPECT_EQ(defaults.common.work.batches, 100);
  const PdlConfig small = parse({"--batches", "4", "--m", "64", "--pdl-pairs", "3", "--repeats", "1", "--seed", "7"});
  EXPECT_EQ(small.common.work.batches, 4);
  EXPECT_EQ(small.common.work.shape.m, 64);
  EXPECT_EQ(small.empty_kernels(), 6);
  EXPECT_EQ(small.common.plan.repeats, 1);
  EXPECT_EQ(small.common.seed, 7u);
}

TEST(Pdl, TheEstimateGrowsWithBothChainsAndTheRounds) {
  PdlConfig config;
  config.common.work = Workload{100, GemmShape{1024, 1024, 512}};
  const double base = pdl_seconds(config, 180e-6);
  EXPECT_GT(base, 0.5);
  EXPECT_LT(base, 10.0);  // the defaults stay well inside 30 s on an H200
  PdlConfig more_pairs = config;
  more_pairs.pairs *= 2;
  EXPECT_GT(pdl_seconds(more_pairs, 180e-6), base);
  EXPECT_GT(pdl_seconds(config, 360e-6), base);
  PdlConfig more_rounds = config;
  more_rounds.common.plan.repeats *= 2;
  EXPECT_GT(pdl_seconds(more_rounds, 180e-6), base);
}

TEST(Pdl, TheHoldCoversTheHostsQueueing) {
  EXPECT_DOUBLE_EQ(pdl_hold_ms(1), 0.11);
  EXPECT_DOUBLE_EQ(pdl_hold_ms(1000), 10.1);
}

}  // namespace cpu_pdl
}  // namespace csg::graphs
