// Stage 04's launch anatomy on made-up figures: the fits by kind and shape,
// each branch of the sentences chosen by them (NVIDIA's figure, constant
// time per kind, the fork, the article's graph four ways), the quartiles and
// the JSON.
#include <gtest/gtest.h>

#include "04_graph_capture_gemm/lab/launch-anatomy/launch_anatomy_report.hpp"

namespace csg::graphs {
namespace {

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
  const std::string text = nvidia_text({.fixed_us = 2.4, .per_op_us = 0.0012, .r2 = 1.0, .points = 4});
  EXPECT_NE(text.find("this system matches it"), std::string::npos) << text;
  EXPECT_NE(text.find("2.4 us + 1.2 ns per node"), std::string::npos) << text;
}

TEST(LaunchAnatomy, NvidiasFigureCloseToConstantTime) {
  const std::string text = nvidia_text({.fixed_us = 2.1, .per_op_us = 0.0066, .r2 = 1.0, .points = 4});
  EXPECT_NE(text.find("close to constant time"), std::string::npos) << text;
  EXPECT_NE(text.find("7x NVIDIA's per node"), std::string::npos) << text;
  EXPECT_NE(text.find("a 10,000-node line costs 68 us"), std::string::npos) << text;
  EXPECT_EQ(text.find("matches"), std::string::npos) << text;
}

TEST(LaunchAnatomy, NvidiasFigureNotClaimedFromALineBelowZero) {
  // Node counts far from small graphs (say 8000 and 16000) can put the fit's fixed part below zero.
  const std::string text = nvidia_text({.fixed_us = -4.0, .per_op_us = 0.0012, .r2 = 1.0, .points = 2});
  EXPECT_EQ(text.find("matches"), std::string::npos) << text;
  EXPECT_EQ(text.find("-4.0"), std::string::npos) << text;
  EXPECT_NE(text.find("1.2 ns per node to launch (no fixed part: the fit's is below zero)"), std::string::npos) << text;
  EXPECT_NE(text.find("close to constant time"), std::string::npos) << text;
}

TEST(LaunchAnatomy, NvidiasFigureNotConstantTime) {
  const std::string text = nvidia_text({.fixed_us = 2.0, .per_op_us = 0.5, .r2 = 1.0, .points = 4});
  EXPECT_NE(text.find("NOT constant time on this system"), std::string::npos) << text;
  EXPECT_EQ(nvidia_text(LineFit{}), "") << "nothing to say without a fit";
}

TEST(LaunchAnatomy, KindsInConstantTimeOrNot) {
  const LineFit kernel{.fixed_us = 2.1, .per_op_us = 0.0066, .r2 = 1.0, .points = 4};
  const std::string memset = kind_text(NodeKind::memset, {.fixed_us = 1.0, .per_op_us = 0.72, .r2 = 1, .points = 4}, kernel);
  EXPECT_NE(memset.find("memset nodes: 0.720 us of host time per node: not launched in constant time"),
            std::string::npos)
      << memset;
  EXPECT_NE(memset.find("(109x a kernel node's)"), std::string::npos) << memset;
  const std::string memcpy = kind_text(NodeKind::memcpy, {.fixed_us = 2.0, .per_op_us = 0.0078, .r2 = 1, .points = 4}, kernel);
  EXPECT_NE(memcpy.find("launched in constant time, like kernels"), std::string::npos) << memcpy;
}

TEST(LaunchAnatomy, ForkFasterPartlySameOrSlowerOnTheGpu) {
  const LineFit host_line{.fixed_us = 2.0, .per_op_us = 0.006, .r2 = 1, .points = 4};
  const LineFit host_fork{.fixed_us = 10.0, .per_op_us = 0.002, .r2 = 1, .points = 4};
  auto gpu = [](double per_node) { return LineFit{.fixed_us = 1.0, .per_op_us = per_node, .r2 = 1, .points = 4}; };
  const std::string faster = fork_text(NodeKind::kernel, 8, host_line, host_fork, gpu(0.684), gpu(0.174));
  EXPECT_NE(faster.find("the GPU ran its nodes 3.9x faster"), std::string::npos) << faster;
  EXPECT_NE(faster.find("the lines ran side by side"), std::string::npos) << faster;
  EXPECT_NE(faster.find("fixed host cost 10.0 against 2.0 us"), std::string::npos) << faster;
  const std::string partly = fork_text(NodeKind::kernel, 8, host_line, host_fork, gpu(2.15), gpu(1.545));
  EXPECT_NE(partly.find("1.4x faster"), std::string::npos) << partly;
  EXPECT_NE(partly.find("the lines partly overlapped"), std::string::npos) << partly;
  const std::string same = fork_text(NodeKind::memset, 8, host_line, host_fork, gpu(0.92), gpu(0.93));
  EXPECT_NE(same.find("about as long per node"), std::string::npos) << same;
  const std::string slower = fork_text(NodeKind::memset, 8, host_line, host_fork, gpu(0.5), gpu(0.9));
  EXPECT_NE(slower.find("the GPU took longer per node"), std::string::npos) << slower;
}

TEST(LaunchAnatomy, ForkSaysNoFixedCostWhereTheLaunchIsNotConstantTime) {
  const LineFit memset_line{.fixed_us = -65.6, .per_op_us = 0.79, .r2 = 1, .points = 4};
  const LineFit memset_fork{.fixed_us = 1.1, .per_op_us = 0.51, .r2 = 1, .points = 4};
  auto gpu = [](double per_node) { return LineFit{.fixed_us = 1.0, .per_op_us = per_node, .r2 = 1, .points = 4}; };
  const std::string text = fork_text(NodeKind::memset, 8, memset_line, memset_fork, gpu(0.894), gpu(0.889));
  EXPECT_EQ(text.find("fixed host cost"), std::string::npos) << text;
  EXPECT_EQ(text.find("-65.6"), std::string::npos) << text;
}

TEST(LaunchAnatomy, ForkQuotesNoFixedCostBelowZero) {
  const LineFit line{.fixed_us = -3.4, .per_op_us = 0.0013, .r2 = 1, .points = 4};
  const LineFit fork{.fixed_us = 1.1, .per_op_us = 0.0011, .r2 = 1, .points = 4};
  auto gpu = [](double per_node) { return LineFit{.fixed_us = 1.0, .per_op_us = per_node, .r2 = 1, .points = 4}; };
  const std::string text = fork_text(NodeKind::kernel, 8, line, fork, gpu(0.684), gpu(0.174));
  EXPECT_EQ(text.find("fixed host cost"), std::string::npos) << text;
  EXPECT_EQ(text.find("-3.4"), std::string::npos) << text;
  EXPECT_NE(text.find("the lines ran side by side"), std::string::npos) << text;
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
  const std::string text = article_text(a);
  EXPECT_NE(text.find("no way of building the graph changed what its launch costs beyond the noise"), std::string::npos)
      << text;
  EXPECT_NE(text.find("the laboratory's graph launches as cheaply as the article's"), std::string::npos) << text;
}

TEST(LaunchAnatomy, ArticleGraphVariantCheaperAndDearer) {
  Anatomy a;
  a.article = {article(ArticleVariant::article, {480, 490, 500, 500, 500, 510, 520}),
               article(ArticleVariant::registered, {300, 310, 320, 330, 340, 350, 360}),
               article(ArticleVariant::breadth_first, {700, 710, 720, 730, 740, 750, 760}),
               article(ArticleVariant::slots, {495, 500, 505, 505, 505, 505, 510})};
  const std::string text = article_text(a);
  EXPECT_NE(text.find("cudaHostRegister'ed: 330 us, 1.52x cheaper;"), std::string::npos) << text;
  EXPECT_EQ(text.find("but its replay"), std::string::npos) << "the same GPU time: nothing to add\n" << text;
  EXPECT_NE(text.find("breadth-first (a wave of copies in, kernels, copies out): 730 us, 1.46x dearer"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("slot per stream"), std::string::npos) << "within 10%: not a difference\n" << text;
}

TEST(LaunchAnatomy, ArticleGraphCheaperToLaunchButSlowerOnTheGpu) {
  Anatomy a;
  a.article = {article(ArticleVariant::article, {590, 620, 641, 641, 660, 672, 700}),
               article(ArticleVariant::device_launch_flag, {36, 37, 38, 38, 40, 42, 44})};
  a.article[1].gpu = at_us(27250.0);
  const std::string text = article_text(a);
  EXPECT_NE(text.find("instantiated with cudaGraphInstantiateFlagDeviceLaunch: 38 us, 16.87x cheaper, but its replay "
                      "took 27.25 ms on the GPU against 16.00 ms (1.70x slower)"),
            std::string::npos)
      << text;
}

TEST(LaunchAnatomy, JsonHoldsLaunchesFitsAndTheArticleVariants) {
  Anatomy a = made_up();
  a.article = {article(ArticleVariant::article, {500, 510, 520})};
  const nlohmann::json doc = anatomy_json(a);
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
  a.chains_checked = false;
  a.chains_failure = "memset chain of 8 nodes, line 0 slot 3: expected 1, got -1";
  EXPECT_EQ(anatomy_json(a).at("chains_failure"), a.chains_failure);
}

TEST(LaunchAnatomy, NodeKindNamesRoundTrip) {
  for (const NodeKind kind : kNodeKinds) EXPECT_EQ(parse_node_kind(to_string(kind)), kind);
  EXPECT_FALSE(parse_node_kind("memcpy2d").has_value());
  EXPECT_FALSE(parse_node_kind("").has_value());
}

}  // namespace
}  // namespace csg::graphs
