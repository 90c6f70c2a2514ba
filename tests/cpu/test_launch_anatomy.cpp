// Stage 04's launch anatomy on made-up figures: the fits by kind and shape,
// each branch of the verdicts chosen by them (NVIDIA's figure, constant
// time per kind, the fork, the article's graph five ways), the quartiles and
// the report's JSON.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "matchers.hpp"
#include "04_graph_capture_gemm/lab/launch-anatomy/launch_anatomy.hpp"
#include "04_graph_capture_gemm/lab/report.hpp"
#include "declaration_checks.hpp"
#include "report/device_info.hpp"
#include "made_up.hpp"

namespace csg::graphs {
namespace cpu_launch_anatomy {

Summary at_us(double us) {
  Summary s;
  s.median_ms = s.min_ms = s.max_ms = s.p95_ms = us / 1000.0;
  s.samples = 1;
  s.samples_ms = {us / 1000.0};
  return s;
}

Summary samples_us(std::vector<double> us) {
  Summary s;
  for (const double u : us) s.samples_ms.push_back(u / 1000.0);
  std::vector<double> sorted = s.samples_ms;
  std::sort(sorted.begin(), sorted.end());
  s.median_ms = sorted[sorted.size() / 2];
  s.min_ms = sorted.front();
  s.max_ms = s.p95_ms = sorted.back();
  s.samples = static_cast<int>(sorted.size());
  return s;
}

// Chains on exact lines: host fixed + per_node x n, GPU per_node_gpu x n.
void add_chains(Anatomy& a, NodeKind kind, GraphShape shape, double fixed, double per_node, double per_node_gpu) {
  for (const int n : a.config.nodes) {
    a.chains.push_back({kind, shape, n, at_us(fixed + per_node * n), at_us(1.0 + per_node_gpu * n)});
  }
}

Anatomy made_up() {
  Anatomy a;
  a.config.kinds = {NodeKind::kernel, NodeKind::memset};
  add_chains(a, NodeKind::kernel, GraphShape::line, 2.1, 0.0066, 0.684);
  add_chains(a, NodeKind::kernel, GraphShape::fork, 10.0, 0.002, 0.174);
  add_chains(a, NodeKind::memset, GraphShape::line, 1.0, 0.72, 0.92);
  add_chains(a, NodeKind::memset, GraphShape::fork, 9.0, 0.70, 0.92);
  return a;
}

ArticleLaunch article(ArticleVariant variant, std::vector<double> launch_us) {
  ArticleLaunch a;
  a.variant = variant;
  a.launch = samples_us(std::move(launch_us));
  a.gpu = at_us(16000.0);
  a.check.passed = true;
  return a;
}

TEST(LaunchAnatomy, FitsEachKindAndShapeApart) {
  const Anatomy a = made_up();
  const LineFit kernel_line = fit_chains(a, NodeKind::kernel, GraphShape::line, true);
  EXPECT_NEAR(kernel_line.fixed_us, 2.1, 1e-6);
  EXPECT_NEAR(kernel_line.per_op_us, 0.0066, 1e-9);
  EXPECT_EQ(kernel_line.points, 4);
  EXPECT_NEAR(fit_chains(a, NodeKind::kernel, GraphShape::fork, false).per_op_us, 0.174, 1e-9);
  EXPECT_NEAR(fit_chains(a, NodeKind::memset, GraphShape::line, true).per_op_us, 0.72, 1e-9);
  EXPECT_EQ(fit_chains(a, NodeKind::memcpy, GraphShape::line, true).points, 0) << "no memcpy chains were measured";
}

TEST(LaunchAnatomy, NvidiasFigureMatched) {
  const Verdict verdict = nvidia_verdict({.fixed_us = 2.4, .per_op_us = 0.0012, .r2 = 1.0, .points = 4});
  EXPECT_THAT(verdict, IsVerdict("launch_anatomy.nvidia", "matches",
                                 {"this system matches it", "2.4 us + 1.2 ns per node"}));
  EXPECT_DOUBLE_EQ(verdict.threshold.at("constant_time_per_node_us").get<double>(), kConstantTimePerNodeUs);
}

TEST(LaunchAnatomy, NvidiasFigureCloseToConstantTime) {
  const Verdict verdict = nvidia_verdict({.fixed_us = 2.1, .per_op_us = 0.0066, .r2 = 1.0, .points = 4});
  EXPECT_EQ(verdict.outcome, "close_to_constant_time");
  EXPECT_THAT(verdict.sentence, AllOf(HasSubstr("close to constant time"), HasSubstr("7x NVIDIA's per node"),
                                      HasSubstr("a 10,000-node line costs 68 us"), Not(HasSubstr("matches"))));
}

TEST(LaunchAnatomy, NvidiasFigureNotClaimedFromALineBelowZero) {
  // Node counts far from small graphs (say 8000 and 16000) can put the fit's fixed part below zero.
  const Verdict verdict = nvidia_verdict({.fixed_us = -4.0, .per_op_us = 0.0012, .r2 = 1.0, .points = 2});
  EXPECT_EQ(verdict.outcome, "close_to_constant_time");
  EXPECT_THAT(verdict.sentence, AllOf(Not(HasSubstr("matches")), Not(HasSubstr("-4.0")),
                                      HasSubstr("1.2 ns per node to launch (no fixed part: the fit's is below zero)")));
  EXPECT_TRUE(verdict.figures.at("fixed_us").is_null());
}

TEST(LaunchAnatomy, NvidiasFigureNotConstantTime) {
  EXPECT_THAT(nvidia_verdict({.fixed_us = 2.0, .per_op_us = 0.5, .r2 = 1.0, .points = 4}),
              IsVerdict("", "not_constant_time", {"NOT constant time on this system"}));
}

TEST(LaunchAnatomy, KindsInConstantTimeOrNot) {
  const LineFit kernel{.fixed_us = 2.1, .per_op_us = 0.0066, .r2 = 1.0, .points = 4};
  EXPECT_THAT(kind_verdict(NodeKind::memset, {.fixed_us = 1.0, .per_op_us = 0.72, .r2 = 1, .points = 4}, kernel),
              IsVerdict("launch_anatomy.kind.memset", "not_constant_time",
                        {"memset nodes: 0.720 us of host time per node: not launched in constant time",
                         "(109x a kernel node's)"}));
  EXPECT_THAT(kind_verdict(NodeKind::memcpy, {.fixed_us = 2.0, .per_op_us = 0.0078, .r2 = 1, .points = 4}, kernel),
              IsVerdict("", "constant_time", {"launched in constant time, like kernels"}));
}

LineFit gpu(double per_node) { return LineFit{.fixed_us = 1.0, .per_op_us = per_node, .r2 = 1, .points = 4}; }
constexpr LineFit kHostLine{.fixed_us = 2.0, .per_op_us = 0.006, .r2 = 1, .points = 4};
constexpr LineFit kHostFork{.fixed_us = 10.0, .per_op_us = 0.002, .r2 = 1, .points = 4};

TEST(LaunchAnatomy, ForkRanSideBySide) {
  EXPECT_THAT(fork_verdict(NodeKind::kernel, 8, kHostLine, kHostFork, gpu(0.684), gpu(0.174)),
              IsVerdict("launch_anatomy.fork.kernel", "side_by_side",
                        {"the GPU ran its nodes 3.9x faster", "the lines ran side by side",
                         "fixed host cost 10.0 against 2.0 us"}));
}

TEST(LaunchAnatomy, ForkPartlyOverlappedSameOrLonger) {
  EXPECT_THAT(fork_verdict(NodeKind::kernel, 8, kHostLine, kHostFork, gpu(2.15), gpu(1.545)),
              IsVerdict("", "partly_overlapped", {"1.4x faster", "the lines partly overlapped"}));
  EXPECT_THAT(fork_verdict(NodeKind::memset, 8, kHostLine, kHostFork, gpu(0.92), gpu(0.93)),
              IsVerdict("", "no_overlap", {"about as long per node"}));
  EXPECT_THAT(fork_verdict(NodeKind::memset, 8, kHostLine, kHostFork, gpu(0.5), gpu(0.9)),
              IsVerdict("", "longer", {"the GPU took longer per node"}));
}

TEST(LaunchAnatomy, ForkSaysNoFixedCostWhereTheLaunchIsNotConstantTime) {
  const LineFit memset_line{.fixed_us = -65.6, .per_op_us = 0.79, .r2 = 1, .points = 4};
  const LineFit memset_fork{.fixed_us = 1.1, .per_op_us = 0.51, .r2 = 1, .points = 4};
  EXPECT_THAT(fork_verdict(NodeKind::memset, 8, memset_line, memset_fork, gpu(0.894), gpu(0.889)).sentence,
              AllOf(Not(HasSubstr("fixed host cost")), Not(HasSubstr("-65.6"))));
}

TEST(LaunchAnatomy, ForkQuotesNoFixedCostBelowZero) {
  const LineFit line{.fixed_us = -3.4, .per_op_us = 0.0013, .r2 = 1, .points = 4};
  const LineFit fork{.fixed_us = 1.1, .per_op_us = 0.0011, .r2 = 1, .points = 4};
  EXPECT_THAT(fork_verdict(NodeKind::kernel, 8, line, fork, gpu(0.684), gpu(0.174)).sentence,
              AllOf(Not(HasSubstr("fixed host cost")), Not(HasSubstr("-3.4")), HasSubstr("the lines ran side by side")));
}

TEST(LaunchAnatomy, QuartilesByNearestRank) {
  const Summary s = samples_us({5, 1, 4, 2, 3, 8, 7, 6});
  EXPECT_DOUBLE_EQ(quartile_ms(s, 1), 0.002);
  EXPECT_DOUBLE_EQ(quartile_ms(s, 3), 0.006);
}

TEST(LaunchAnatomy, ArticleGraphNoVariantBeyondTheNoise) {
  Anatomy a;
  a.article = {article(ArticleVariant::article, {400, 450, 500, 550, 600, 700, 800}),
               article(ArticleVariant::slots, {420, 560, 590, 620, 640, 660, 700}),  // +11% but inside the middle half
               article(ArticleVariant::registered, {500, 540, 550, 560, 570, 580, 590}),
               // Its median 31% above the article's and outside its middle half, but its own middle half overlaps.
               article(ArticleVariant::breadth_first, {600, 680, 710, 720, 730, 760, 900})};
  ASSERT_GT(quartile_ms(a.article[3].launch, 2), quartile_ms(a.article[0].launch, 3));
  EXPECT_THAT(article_verdict(a),
              IsVerdict("launch_anatomy.article", "no_difference",
                        {"no way of building the graph changed what its launch costs beyond the noise",
                         "the laboratory's graph launches as cheaply as the article's"}));
}

TEST(LaunchAnatomy, ArticleGraphVariantCheaperAndDearer) {
  Anatomy a;
  a.article = {article(ArticleVariant::article, {480, 490, 500, 500, 500, 510, 520}),
               article(ArticleVariant::registered, {300, 310, 320, 330, 340, 350, 360}),
               article(ArticleVariant::breadth_first, {700, 710, 720, 730, 740, 750, 760}),
               article(ArticleVariant::slots, {495, 500, 505, 505, 505, 505, 510})};
  const Verdict verdict = article_verdict(a);
  EXPECT_EQ(verdict.outcome, "differs");
  EXPECT_THAT(verdict.sentence,
              AllOf(HasSubstr("cudaHostRegister'ed: 330 us, 1.52x cheaper;"),
                    Not(HasSubstr("but its replay")),  // the same GPU time: nothing to add
                    HasSubstr("breadth-first (a wave of copies in, kernels, copies out): 730 us, 1.46x dearer"),
                    Not(HasSubstr("slot per stream"))));  // within 10%: not a difference
  EXPECT_DOUBLE_EQ(verdict.figures.at("registered_launch_us").get<double>(), 330.0);
}

TEST(LaunchAnatomy, ArticleGraphCheaperToLaunchButSlowerOnTheGpu) {
  Anatomy a;
  a.article = {article(ArticleVariant::article, {590, 620, 641, 641, 660, 672, 700}),
               article(ArticleVariant::device_launch_flag, {36, 37, 38, 38, 40, 42, 44})};
  a.article[1].gpu = at_us(27250.0);
  EXPECT_THAT(article_verdict(a).sentence,
              HasSubstr("instantiated with cudaGraphInstantiateFlagDeviceLaunch: 38 us, 16.87x cheaper, but its "
                        "replay took 27.25 ms on the GPU against 16.00 ms (1.70x slower)"));
}

Report reported(const Anatomy& anatomy) {
  LaunchAnatomyOptions options;
  options.anatomy = anatomy.config;
  return testing::report_of(kStage, "launch-anatomy", report_launch_anatomy, options, anatomy);
}

TEST(LaunchAnatomy, TheReportHoldsLaunchesFitsTheVariantsAndItsVerdicts) {
  Anatomy a = made_up();
  a.article = {article(ArticleVariant::article, {500, 510, 520})};
  const Report report = reported(a);
  const nlohmann::json doc = report.document().at("launch_anatomy");
  EXPECT_EQ(doc.at("kinds"), nlohmann::json({"kernel", "memset"}));
  EXPECT_EQ(doc.at("launches").size(), a.chains.size());
  EXPECT_EQ(doc.at("launches").at(0).at("kind"), "kernel");
  EXPECT_EQ(doc.at("launches").at(0).at("shape"), "line");
  EXPECT_EQ(doc.at("fits").size(), 4u);
  EXPECT_NEAR(doc.at("fits").at(0).at("host_per_node_us").get<double>(), 0.0066, 1e-9);
  EXPECT_NEAR(doc.at("fits").at(1).at("gpu_per_node_us").get<double>(), 0.174, 1e-9);
  EXPECT_DOUBLE_EQ(doc.at("nvidia").at("fixed_us").get<double>(), kNvidiaFixedUs);
  EXPECT_EQ(doc.at("article").at(0).at("variant"), "article");
  EXPECT_NEAR(doc.at("article").at(0).at("launch_us").get<double>(), 510.0, 1e-9);
  EXPECT_TRUE(doc.at("chains_checked").get<bool>());
  EXPECT_FALSE(doc.contains("chains_failure"));
  EXPECT_THAT(testing::printed_verdict_ids(report),
              ElementsAre("launch_anatomy.nvidia", "launch_anatomy.kind.memset", "launch_anatomy.fork.kernel",
                          "launch_anatomy.fork.memset", "launch_anatomy.article"));
  EXPECT_TRUE(report.passed());
}

TEST(LaunchAnatomy, AWrongChainFailsTheRunAndIsNamed) {
  Anatomy a = made_up();
  a.article = {article(ArticleVariant::article, {500, 510, 520})};
  a.chains_checked = false;
  a.chains_failure = "memset chain of 8 nodes, line 0 slot 3: expected 1, got -1";
  const Report report = reported(a);
  EXPECT_EQ(report.document().at("launch_anatomy").at("chains_failure"), a.chains_failure);
  EXPECT_FALSE(report.passed());
  EXPECT_THAT(report.console(), HasSubstr("launch chains WRONG: memset chain of 8 nodes"));
}

TEST(LaunchAnatomy, NodeKindNamesRoundTrip) {
  for (const NodeKind kind : kNodeKinds) EXPECT_EQ(parse_node_kind(std::string(to_string(kind))), kind);
  EXPECT_FALSE(parse_node_kind("memcpy2d").has_value());
  EXPECT_FALSE(parse_node_kind("").has_value());
}

}  // namespace cpu_launch_anatomy
}  // namespace csg::graphs
