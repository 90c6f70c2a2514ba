// Stage 04's pdl subcommand on made-up figures: each branch of the verdict
// (PDL saves, the gap is noise, no gain, PDL costs) and its sentence, the
// threshold that grows with the spread, the host-bound warning, the figures
// derived from a chain's run, the rebuilt product the GEMM chain's check
// reads, the result's verdict and JSON, the options and the estimate.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <limits>
#include <vector>

#include "04_graph_capture_gemm/lab/pdl/pdl_report.hpp"
#include "base/errors.hpp"

namespace csg::graphs {
namespace {

Summary at(double median_ms, double min_ms = -1.0, double max_ms = -1.0) {
  Summary s;
  s.median_ms = s.p95_ms = median_ms;
  s.min_ms = min_ms < 0.0 ? median_ms : min_ms;
  s.max_ms = max_ms < 0.0 ? median_ms : max_ms;
  s.samples = 10;
  return s;
}

PdlComparison compare(double plain_us, double pdl_us, double own_us) {
  return PdlComparison{plain_us, pdl_us, own_us, 0.0, 0.0};
}

TEST(Pdl, VerdictSavesWhenPdlIsFasterBeyondTheThreshold) {
  // Empty kernels: 2.0 µs per kernel plainly, 1.2 with PDL.
  const PdlComparison c = compare(2.0, 1.2, 0.0);
  EXPECT_EQ(pdl_verdict(c), PdlVerdict::saves);
  const std::string text = pdl_conclusion("on streams", c);
  EXPECT_NE(text.find("on streams, PDL saved 0.800 µs per kernel"), std::string::npos) << text;
  EXPECT_NE(text.find("3% threshold"), std::string::npos) << text;
}

TEST(Pdl, VerdictGapIsNoiseWhenKernelsAreLong) {
  // 180 µs GEMMs, a 1 µs gap: PDL's 0.5 µs is under 3% of a kernel.
  const PdlComparison c = compare(181.0, 180.5, 180.0);
  EXPECT_EQ(pdl_verdict(c), PdlVerdict::gap_is_noise);
  const std::string text = pdl_conclusion("in the graph", c);
  EXPECT_NE(text.find("in the graph, PDL does not pay off here"), std::string::npos) << text;
  EXPECT_NE(text.find("the gap is noise"), std::string::npos) << text;
}

TEST(Pdl, VerdictNoGainWhenTheGapIsLargeButPdlDidNotHideIt) {
  // 10 µs per kernel, 5 of them gap, and PDL the same.
  const PdlComparison c = compare(10.0, 9.9, 5.0);
  EXPECT_EQ(pdl_verdict(c), PdlVerdict::no_gain);
  const std::string text = pdl_conclusion("on streams", c);
  EXPECT_NE(text.find("PDL did not save time"), std::string::npos) << text;
  EXPECT_NE(text.find("gap of 5.00 µs"), std::string::npos) << text;
}

TEST(Pdl, VerdictCostsWhenPdlIsSlowerBeyondTheThreshold) {
  const PdlComparison c = compare(2.0, 2.5, 0.0);
  EXPECT_EQ(pdl_verdict(c), PdlVerdict::costs);
  const std::string text = pdl_conclusion("on streams", c);
  EXPECT_NE(text.find("PDL cost 0.500 µs per kernel more"), std::string::npos) << text;
}

TEST(Pdl, TheThresholdIsTheLargerOfThreePercentAndTheSpread) {
  PdlComparison c = compare(2.0, 1.8, 0.0);  // 10% faster
  EXPECT_DOUBLE_EQ(c.threshold(), kPdlEqualWithin);
  EXPECT_EQ(pdl_verdict(c), PdlVerdict::saves);
  c.pdl_spread = 0.2;  // the PDL runs spread by 20%: 10% is within noise
  EXPECT_DOUBLE_EQ(c.threshold(), 0.2);
  EXPECT_EQ(pdl_verdict(c), PdlVerdict::no_gain);
  c.pdl_spread = 0.0;
  c.plain_spread = 0.15;
  EXPECT_EQ(pdl_verdict(c), PdlVerdict::no_gain);
  // Just inside and just outside 3%.
  EXPECT_EQ(pdl_verdict(compare(100.0, 97.5, 0.0)), PdlVerdict::no_gain);
  EXPECT_EQ(pdl_verdict(compare(100.0, 96.5, 0.0)), PdlVerdict::saves);
  EXPECT_EQ(pdl_verdict(compare(100.0, 103.5, 0.0)), PdlVerdict::costs);
}

TEST(Pdl, VerdictNamesAreStable) {
  EXPECT_STREQ(to_string(PdlVerdict::saves), "saves");
  EXPECT_STREQ(to_string(PdlVerdict::gap_is_noise), "gap_is_noise");
  EXPECT_STREQ(to_string(PdlVerdict::no_gain), "no_gain");
  EXPECT_STREQ(to_string(PdlVerdict::costs), "costs");
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

TEST(Pdl, AHostBoundWayIsNamed) {
  PdlChainRun run = made_up_run(1000, {2.0, 1.5, 1.8, 1.2}, 0.004);
  PdlChainFigures f = chain_figures(run, 4.0);
  EXPECT_EQ(host_bound_text("empty", f), "");
  run.issue[index_of(PdlWay::stream_pdl)] = at(5.0, 4.0, 12.5);  // longer than the 10.1 ms hold
  f = chain_figures(run, 4.0);
  EXPECT_TRUE(f.host_bound(PdlWay::stream_pdl));
  EXPECT_FALSE(f.host_bound(PdlWay::stream_plain));
  const std::string text = host_bound_text("empty", f);
  EXPECT_NE(text.find("empty: stream_pdl's slowest run took the host 12.50 ms to queue, longer than the 10.10 ms hold"),
            std::string::npos)
      << text;
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

PdlRun made_up_pdl() {
  PdlRun run;
  run.config.work = Workload{100, GemmShape{1024, 1024, 512}};
  run.options.work = run.config.work;
  run.costs.gemm = made_up_run(100, {18.1, 17.9, 18.05, 17.8}, 0.184);
  run.costs.empty = made_up_run(1000, {2.0, 1.2, 1.8, 1.0}, 0.004);
  for (VerifyResult& v : run.costs.empty.verified) v = VerifyResult{};  // the empty chain has counters only
  return run;
}

TEST(Pdl, TheResultVerifiesEveryWayAndWritesItsFigures) {
  const PdlRun run = made_up_pdl();
  const StageResult result = pdl_result(DeviceInfo{}, run);
  EXPECT_TRUE(result.verification.passed);
  EXPECT_EQ(result.variants_verified, 10);
  EXPECT_EQ(result.measurements.size(), 10u);
  EXPECT_NEAR(result.bounds.at("pdl_gemm_stream_plain_us_per_kernel").get<double>(), 181.0, 1e-9);
  EXPECT_NEAR(result.bounds.at("pdl_empty_stream_pdl_us_per_kernel").get<double>(), 1.2, 1e-9);
  EXPECT_NEAR(result.bounds.at("pdl_gemm_own_us").get<double>(), 180.0, 1e-9);
  EXPECT_NEAR(result.bounds.at("pdl_empty_graph_pdl_gap_us").get<double>(), 1.0, 1e-9);

  const nlohmann::json doc = pdl_json(result, run);
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

TEST(Pdl, AWrongCounterOrAMissingProgrammaticEdgeFailsTheRun) {
  PdlRun run = made_up_pdl();
  run.costs.empty.passed[index_of(PdlWay::stream_pdl)] = false;
  run.costs.empty.failure = "empty pair, stream_pdl: the sequence reached 11990 (expected 12000)";
  StageResult result = pdl_result(DeviceInfo{}, run);
  EXPECT_FALSE(result.verification.passed);
  EXPECT_NE(result.verification.method.find("sequence reached 11990"), std::string::npos);
  EXPECT_EQ(pdl_json(result, run).at("pdl").at("empty").at("failure"), run.costs.empty.failure);

  run = made_up_pdl();
  run.costs.gemm.programmatic_edges = 0;
  run.costs.gemm.failure = "the captured PDL chain has 0 programmatic edges of 99, expected 99";
  result = pdl_result(DeviceInfo{}, run);
  EXPECT_FALSE(result.verification.passed);
  EXPECT_NE(result.verification.method.find("programmatic edges"), std::string::npos);

  run = made_up_pdl();
  run.costs.gemm.verified[index_of(PdlWay::graph_pdl)].passed = false;
  result = pdl_result(DeviceInfo{}, run);
  EXPECT_FALSE(result.verification.passed);
}

TEST(Pdl, TheReportPrintsTheTableAndOneConclusionPerChainAndLaunchKind) {
  PdlRun run = made_up_pdl();
  run.options.plan = run.config.plan;
  const StageResult result = pdl_result(DeviceInfo{}, run);
  std::ostringstream out;
  print_pdl(out, result, run);
  const std::string text = out.str();
  EXPECT_NE(text.find("GEMM chain: on streams, PDL"), std::string::npos) << text;
  EXPECT_NE(text.find("GEMM chain: in the graph, PDL"), std::string::npos) << text;
  EXPECT_NE(text.find("empty pair: on streams, PDL saved 0.800 µs per kernel"), std::string::npos) << text;
  EXPECT_NE(text.find("empty pair: in the graph, PDL saved"), std::string::npos) << text;
  EXPECT_NE(text.find("999 (999)"), std::string::npos) << "the PDL graph's edges, programmatic in brackets";
  EXPECT_EQ(text.find("FAILED"), std::string::npos) << text;
}

PdlConfig parse(const std::vector<std::string>& args) {
  StageCli cli("04_graph_capture_gemm pdl", "test", pdl_defaults());
  add_pdl_options(cli);
  const std::optional<CommonOptions> options = cli.parse(args);
  if (!options) throw std::logic_error("--help");
  return read_pdl_options(cli, *options);
}

TEST(Pdl, OptionsSetTheChainsAndBadOnesAreRefused) {
  const PdlConfig defaults = parse({});
  EXPECT_EQ(defaults.pairs, kDefaultPdlPairs);
  EXPECT_EQ(defaults.empty_kernels(), 500);
  EXPECT_EQ(defaults.work.batches, 100);
  const PdlConfig small = parse({"--batches", "4", "--m", "64", "--pdl-pairs", "3", "--repeats", "1", "--seed", "7"});
  EXPECT_EQ(small.work.batches, 4);
  EXPECT_EQ(small.work.shape.m, 64);
  EXPECT_EQ(small.empty_kernels(), 6);
  EXPECT_EQ(small.plan.repeats, 1);
  EXPECT_EQ(small.seed, 7u);
  for (const std::vector<std::string>& bad :
       {std::vector<std::string>{"--pdl-pairs", "0"}, {"--pdl-pairs", "50001"}, {"--pdl-pairs", "x"},
        {"--kernel", "tiled"}, {"--host-memory", "pinned"}, {"--tf32"}}) {
    EXPECT_THROW(parse(bad), UsageError) << ::testing::PrintToString(bad);
  }
}

TEST(Pdl, TheEstimateGrowsWithBothChainsAndTheRounds) {
  PdlConfig config;
  config.work = Workload{100, GemmShape{1024, 1024, 512}};
  const double base = pdl_seconds(config, 180e-6);
  EXPECT_GT(base, 0.5);
  EXPECT_LT(base, 10.0);  // the defaults stay well inside 30 s on an H200
  PdlConfig more_pairs = config;
  more_pairs.pairs *= 2;
  EXPECT_GT(pdl_seconds(more_pairs, 180e-6), base);
  EXPECT_GT(pdl_seconds(config, 360e-6), base);
  PdlConfig more_rounds = config;
  more_rounds.plan.repeats *= 2;
  EXPECT_GT(pdl_seconds(more_rounds, 180e-6), base);
}

TEST(Pdl, TheHoldCoversTheHostsQueueing) {
  EXPECT_DOUBLE_EQ(pdl_hold_ms(1), 0.11);
  EXPECT_DOUBLE_EQ(pdl_hold_ms(1000), 10.1);
}

}  // namespace
}  // namespace csg::graphs
