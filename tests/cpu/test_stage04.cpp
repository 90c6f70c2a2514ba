// Stage 04 without a GPU: every verdict the lesson and the laboratory draw
// from their figures, each branch on made-up figures; the lesson's report
// (one screen, its verdicts in the JSON, "subcommand": null); each
// subcommand's report built from made-up measurements (break-even from its
// own fields, the bounds of both GPU variants, the verification over every
// check, a run failed by a check that is no batch); and each subcommand's
// options through the binary as a user runs it: bad values exit 2 with one
// line naming the flag, before any CUDA call; good ones reach the device
// check; each --help lists its own flags.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "matchers.hpp"
#include "04_graph_capture_gemm/conclusions.hpp"
#include "04_graph_capture_gemm/graph_inspect.hpp"
#include "04_graph_capture_gemm/lab/costs/costs.hpp"
#include "04_graph_capture_gemm/lab/node-updates/node_updates.hpp"
#include "04_graph_capture_gemm/lab/report.hpp"
#include "04_graph_capture_gemm/lab/skip-join/skip_join.hpp"
#include "04_graph_capture_gemm/lab/tiny-work/tiny_work.hpp"
#include "04_graph_capture_gemm/lesson.hpp"
#include "base/errors.hpp"
#include "made_up.hpp"
#include "report/conclusions.hpp"
#include "report/device_info.hpp"
#include "run_process.hpp"
#include "subcommand_checks.hpp"
#include "usage_checks.hpp"

namespace csg::graphs {
namespace cpu_stage04 {

using testing::ms;

std::vector<std::string> ids_of(const Report& report) {
  std::vector<std::string> ids;
  for (const Verdict& verdict : report.verdicts()) ids.push_back(verdict.id);
  return ids;
}

// Every verdict's sentence is what the console printed.
void expect_printed(const Report& report) {
  for (const Verdict& verdict : report.verdicts()) EXPECT_THAT(report.console(), HasSubstr(verdict.sentence));
}

std::vector<std::string> names_of(const nlohmann::json& doc) {
  std::vector<std::string> names;
  for (const auto& m : doc.at("measurements")) names.push_back(m.at("name"));
  return names;
}

double median_of(const nlohmann::json& doc, const std::string& name) {
  for (const auto& m : doc.at("measurements")) {
    if (m.at("name") == name) return m.at("median_ms").get<double>();
  }
  ADD_FAILURE() << "no " << name;
  return 0.0;
}

VerifyResult passed(int batches = 100) {
  VerifyResult check;
  check.passed = true;
  check.batches_checked = batches;
  check.method = "freivalds+sampled";
  return check;
}

VerifyResult failed_at(int batch) {
  VerifyResult check;
  check.passed = false;
  check.batches_checked = batch + 1;
  check.method = "failed at batch " + std::to_string(batch);
  return check;
}

// ---- the verdicts the lesson and costs share ------------------------------------

TEST(Stage04Verdicts, BreakEvenCountsTheCaptureAndTheInstantiate) {
  EXPECT_DOUBLE_EQ(*break_even_replays(0.5, 0.7, 0.8, 0.5), (0.5 + 0.7) / 0.3);
  const Verdict verdict = break_even_verdict(0.5, 0.7, 0.8, 0.5);
  EXPECT_EQ(verdict.id, "graph.break_even");
  EXPECT_EQ(verdict.outcome, "pays_off");
  EXPECT_THAT(verdict.sentence, HasSubstr("= 4.0 replays before the graph has saved the CPU more than it cost"));
  EXPECT_DOUBLE_EQ(verdict.figures.at("replays").get<double>(), 4.0);
  EXPECT_TRUE(verdict.threshold.is_null());
}

TEST(Stage04Verdicts, NoSavingPerLaunchNeverBreaksEven) {
  EXPECT_FALSE(break_even_replays(0.5, 0.7, 0.5, 0.5).has_value());
  EXPECT_FALSE(break_even_replays(0.5, 0.7, 0.4, 0.5).has_value());
  const Verdict verdict = break_even_verdict(0.5, 0.7, 0.5, 0.6);
  EXPECT_EQ(verdict.outcome, "never");
  EXPECT_THAT(verdict.sentence, HasSubstr("never"));
  EXPECT_TRUE(verdict.figures.at("replays").is_null());
}

TEST(Stage04Verdicts, AReplayAsFastAsTheStreamsIsTheSameWork) {
  const Verdict same = replay_verdict(16.03, 16.05, 0.8, 300);
  EXPECT_EQ(same.id, "graph.replay");
  EXPECT_EQ(same.outcome, "same");
  EXPECT_THAT(same.sentence, AllOf(HasSubstr("about as fast as"), HasSubstr("does not make copies or kernels faster")));
  EXPECT_DOUBLE_EQ(same.threshold.get<double>(), kEqualWithin);
  EXPECT_DOUBLE_EQ(same.figures.at("pool_issue_ms").get<double>(), 0.8);
}

TEST(Stage04Verdicts, AFasterReplaySaysWhetherTheHostPacedTheStreams) {
  // 1000 batches of 128^3: the host needed 9.4 ms to issue what the GPU did in 7.
  const Verdict host_bound = replay_verdict(5.70, 7.01, 9.4, 3000);
  EXPECT_EQ(host_bound.outcome, "faster_host_bound");
  EXPECT_THAT(host_bound.sentence, AllOf(HasSubstr("faster than the streams"), HasSubstr("the GPU waited for the"),
                                         Not(HasSubstr("does not make"))));
  const Verdict scheduling = replay_verdict(5.70, 7.01, 1.0, 3000);
  EXPECT_EQ(scheduling.outcome, "faster");
  EXPECT_THAT(scheduling.sentence, HasSubstr("less time between them"));
}

TEST(Stage04Verdicts, ASlowerReplayIsSaidPlainly) {
  const Verdict slower = replay_verdict(8.0, 7.0, 1.0, 300);
  EXPECT_EQ(slower.outcome, "slower");
  EXPECT_THAT(slower.sentence, HasSubstr("ran slower"));
}

TEST(Stage04Verdicts, TheGraphLaunchAgainstTheStreamIssue) {
  const Verdict cheaper = launch_cost_verdict(0.33, 0.75);
  EXPECT_EQ(cheaper.id, "graph.launch_cost");
  EXPECT_EQ(cheaper.outcome, "faster");
  EXPECT_THAT(cheaper.sentence, HasSubstr("2.3x less"));
  const Verdict same = launch_cost_verdict(0.74, 0.75);
  EXPECT_EQ(same.outcome, "same");
  EXPECT_THAT(same.sentence, HasSubstr("no less"));
  EXPECT_EQ(launch_cost_verdict(0.9, 0.75).outcome, "slower");
}

TEST(Stage04Verdicts, CopyNodesAreChargedOnlyWhereTheyDominate) {
  const Verdict dominate = copy_node_verdict(0.5, 0.02, 1000, 200);
  EXPECT_EQ(dominate.id, "graph.copy_nodes");
  EXPECT_EQ(dominate.outcome, "copy_nodes_dominate");
  EXPECT_THAT(dominate.sentence, HasSubstr("2.40 us each"));
  EXPECT_DOUBLE_EQ(dominate.threshold.get<double>(), kCopyNodesDominate);
  const Verdict little = copy_node_verdict(0.025, 0.02, 1000, 200);
  EXPECT_EQ(little.outcome, "copy_nodes_add_little");
  EXPECT_THAT(little.sentence, HasSubstr("add little"));
  // A graph without copy nodes is never charged per copy node.
  const Verdict none = copy_node_verdict(0.5, 0.02, 1000, 0);
  EXPECT_EQ(none.outcome, "copy_nodes_add_little");
  EXPECT_THAT(none.sentence, AllOf(Not(HasSubstr("copy nodes of host memory")), Not(HasSubstr("inf"))));
}

// The article's capture on 8 streams: 8 chains of 3 x batches / 8 nodes, no event nodes.
GraphStructure article_graph() {
  return {.nodes = 300, .edges = 292, .kernel_nodes = 100, .memcpy_nodes = 200, .roots = 8, .leaves = 8,
          .max_in_degree = 1, .max_out_degree = 1, .chains = 8};
}

TEST(Stage04Graph, TheStructureSaysChainsAndThatTheEventsAddedNoNodes) {
  const Verdict verdict = structure_verdict(article_graph());
  EXPECT_EQ(verdict.id, "graph.events");
  EXPECT_EQ(verdict.outcome, "no_event_nodes");
  EXPECT_THAT(verdict.sentence,
              AllOf(HasSubstr("the captured graph: 300 nodes (100 kernel, 200 memcpy, 0 event, 0 other), 292 edges, 8 "
                              "roots, 8 leaves: 8 independent chains, one per stream used."),
                    HasSubstr("the fork and join events added no nodes")));
  const Verdict chains = fork_join_verdict(article_graph(), 8);
  EXPECT_EQ(chains.id, "graph.chains");
  EXPECT_EQ(chains.outcome, "chains");
  EXPECT_THAT(chains.sentence, HasSubstr("batch i was captured on stream i % 8"));
}

TEST(Stage04Graph, EventNodesAndAGraphOfNoChainsAreSaidAsTheyAre) {
  GraphStructure g = article_graph();
  g.event_nodes = 2;
  g.chains = 0;
  g.max_in_degree = 3;
  const Verdict events = structure_verdict(g);
  EXPECT_EQ(events.outcome, "event_nodes");
  EXPECT_THAT(events.sentence, AllOf(Not(HasSubstr("independent chains")), Not(HasSubstr("added no nodes")),
                                     HasSubstr("the capture holds 2 event nodes")));
  const Verdict not_chains = fork_join_verdict(g, 8);
  EXPECT_EQ(not_chains.outcome, "not_chains");
  EXPECT_THAT(not_chains.sentence, HasSubstr("not a set of chains: a node has up to 3 dependencies"));
}

// ---- the lesson's report -----------------------------------------------------------

lesson04::Figures made_up_lesson(double replay_ms, double streams_ms) {
  lesson04::Figures f;
  for (int round = 0; round < 3; ++round) {
    f.capture.push_back(Millis(0.6));
    f.instantiate.push_back(Millis(1.5));
    f.replay.push_back(Millis(replay_ms));
    f.replay_issued.push_back(Millis(0.4));
    f.streams.push_back(Millis(streams_ms));
    f.streams_issued.push_back(Millis(0.8));
  }
  f.six_steps_check = f.replay_check = f.streams_check = passed();
  return f;
}

TEST(Lesson04Report, OneScreenWithItsVerdictsAndANullSubcommand) {
  testing::TempDir dir;
  lesson04::Options options;  // the article's 100 GEMMs on 8 streams
  options.work = Workload{100, {1024, 1024, 512}};
  options.json_path = dir.file("04.json");
  std::ostringstream out;
  EXPECT_TRUE(lesson04::report(out, options, DeviceInfo{}, made_up_lesson(17.0, 17.1), article_graph()));
  const std::string text = out.str();
  EXPECT_LE(std::count(text.begin(), text.end(), '\n'), 40) << text;
  EXPECT_THAT(text, AllOf(HasSubstr("300 nodes (100 kernels, 200 copies"), HasSubstr("graph replay (step 6)"),
                          HasSubstr("beyond the article"), HasSubstr("in each of the 3 runs")));
  const nlohmann::json doc = testing::read_json(options.json_path);
  EXPECT_TRUE(doc.at("subcommand").is_null());
  EXPECT_THAT(names_of(doc), ElementsAre("capture", "instantiate", "graph_replay", "stream_pool", "issue_graph_cpu",
                                         "issue_streams_cpu"));
  EXPECT_EQ(doc.at("graph").at("nodes"), 300);
  EXPECT_NEAR(doc.at("bounds").at("break_even_replays").get<double>(), (0.6 + 1.5) / (0.8 - 0.4), 1e-9);
  std::vector<std::string> ids;
  for (const auto& v : doc.at("verdicts")) {
    const Verdict verdict = verdict_from_json(v);
    ids.push_back(verdict.id);
    EXPECT_THAT(text, HasSubstr(verdict.sentence));
  }
  EXPECT_THAT(ids, ElementsAre("graph.replay", "graph.launch_cost", "graph.break_even"));
}

TEST(Lesson04Report, ABatchThatFailedFailsTheRunAndIsNamed) {
  lesson04::Figures f = made_up_lesson(17.0, 17.1);
  f.streams_check.passed = false;
  f.streams_check.first_failure = Mismatch{37, 12, 5, 100.0, 99.0, "sampled"};
  std::ostringstream out;
  EXPECT_FALSE(lesson04::report(out, lesson04::Options{}, DeviceInfo{}, f, article_graph()));
  EXPECT_THAT(out.str(), HasSubstr("batch 37"));
}

// ---- what every subcommand's result is made of ---------------------------------

TEST(Stage04Report, TheVerdictIsTheFirstFailureElseTheWholeRun) {
  StageResult result;
  const VerifyResult whole = passed(37);
  const VerifyResult first = failed_at(3);
  const VerifyResult second = failed_at(5);
  set_verdict(result, whole, {&whole, &first, &second});
  EXPECT_FALSE(result.verification.passed);
  EXPECT_EQ(result.verification.method, "failed at batch 3");
  EXPECT_EQ(result.variants_verified, 1);
  StageResult good;
  set_verdict(good, whole, {&whole, &whole});
  EXPECT_TRUE(good.verification.passed);
  EXPECT_EQ(good.verification.batches_checked, 37);
  EXPECT_EQ(good.variants_verified, 2);
  // A check that is no VerifyResult fails a passing verdict, and names itself...
  add_failure(good, false, "a counter read 7");
  EXPECT_FALSE(good.verification.passed);
  EXPECT_EQ(good.verification.method, "a counter read 7");
  // ... but never replaces the failure named first, and a passing one changes nothing.
  add_failure(result, false, "a counter read 7");
  EXPECT_EQ(result.verification.method, "failed at batch 3");
  StageResult still_good;
  set_verdict(still_good, whole, {&whole});
  add_failure(still_good, true, "a counter");
  EXPECT_TRUE(still_good.verification.passed);
}

VerifyResult part(bool ok, int batches, int failing_batch = -1) {
  VerifyResult v;
  v.passed = ok;
  v.batches_checked = batches;
  v.digest = 42;
  if (failing_batch >= 0) {
    v.first_failure = Mismatch{};
    v.first_failure->batch = failing_batch;
    v.method = "freivalds";
  }
  return v;
}

TEST(Stage04Report, FoldedChecksAddTheirBatchesAndKeepTheFirstFailure) {
  VerifyResult total;  // nothing checked yet
  fold_check(total, part(true, 3));
  EXPECT_TRUE(total.passed);
  EXPECT_EQ(total.batches_checked, 3);
  EXPECT_FALSE(total.digest.has_value()) << "parts' outputs overlap: no one digest stands for them";
  fold_check(total, part(false, 5, 2));
  fold_check(total, part(false, 4, 1));
  fold_check(total, part(true, 2));
  EXPECT_FALSE(total.passed) << "a failed part fails the whole, whatever passes after it";
  EXPECT_EQ(total.batches_checked, 14);
  ASSERT_TRUE(total.first_failure.has_value());
  EXPECT_EQ(total.first_failure->batch, 2) << "the first failure folded in stays";
  EXPECT_EQ(total.method, "freivalds");
}

// ---- costs ---------------------------------------------------------------------------

// A run of 1000 batches on 8 streams where the host's issue bounds the streams.
ArticleOptions article_options(int batches, int streams) {
  ArticleOptions options;
  options.common.work.batches = batches;
  options.pool.streams = streams;
  return options;
}

CostsFigures made_up_costs() {
  CostsFigures f;
  f.structure = article_graph();
  f.six_steps_check = passed(1000);
  f.lifecycle = {ms(0.5), ms(0.7), ms(16.0), ms(16.0), ms(0.3), ms(16.0), passed(1000), passed(1000), passed(1000)};
  f.replay.graph_replay = ms(5.7);
  f.replay.stream_pool = ms(7.0);
  f.replay.issue_streams_cpu = ms(9.4);
  f.replay.issue_graph_cpu = ms(0.4);
  f.replay.replay_issue = ms(0.4);
  f.replay.pool_issue = ms(6.9);
  f.replay.sums = {ms(2.0), ms(6.0), ms(2.0)};
  f.replay.stream_alone = {ms(4.0), ms(2.1), ms(2.1), ms(3.0)};
  f.replay.graph_alone = {ms(3.5), ms(2.0), ms(2.0), ms(2.9)};
  f.replay.graph_check = passed(1000);
  f.replay.streams_check = passed(1000);
  f.kernels_graph_launch_cpu = ms(0.02);
  return f;
}

Report reported(const ArticleOptions& options, const CostsFigures& f) {
  return testing::report_of(kStage, "costs", report_costs, options, f);
}

TEST(Stage04Costs, TheJsonsFiguresFollowFromEachOther) {
  const Report costs = reported(article_options(1000, 8), made_up_costs());
  const nlohmann::json doc = costs.document();
  EXPECT_EQ(doc.at("subcommand"), "costs");
  EXPECT_EQ(doc.at("graph").at("nodes"), 300);
  const auto& bounds = doc.at("bounds");
  EXPECT_NEAR(bounds.at("break_even_replays").get<double>(),
              (median_of(doc, "capture") + median_of(doc, "instantiate")) /
                  (median_of(doc, "issue_streams_cpu") - median_of(doc, "issue_graph_cpu")),
              1e-9);
  // The streams' run can't end before the host queued it: 6.9 ms of issue is its bound.
  EXPECT_EQ(bounds.at("stream_pool_limited_by"), "host issue");
  EXPECT_NEAR(bounds.at("stream_pool_bound_ms").get<double>(), 6.9, 1e-9);
  // The replay is bound by its kernels alone, replayed as a graph (3.5) plus fill and drain.
  EXPECT_EQ(bounds.at("graph_replay_limited_by"), "kernels");
  EXPECT_NEAR(bounds.at("graph_replay_bound_ms").get<double>(), 3.5 + 2.0 / 1000 + 2.0 / 1000, 1e-9);
  EXPECT_NEAR(bounds.at("replay_over_stream_pool").get<double>(),
              median_of(doc, "graph_replay") / median_of(doc, "stream_pool"), 1e-9);
  EXPECT_NEAR(median_of(doc, "issue_kernels_graph_cpu"), 0.02, 1e-9);
  for (const auto& m : doc.at("measurements")) {
    const std::string name = m.at("name");
    const bool checked = name == "first_launch" || name == "relaunch" || name == "launch_after_upload" ||
                         name == "graph_replay" || name == "stream_pool";
    EXPECT_EQ(m.at("verified").is_null(), !checked) << m.dump();
    EXPECT_EQ(m.contains("bound"), name == "graph_replay" || name == "stream_pool") << name;
  }
  EXPECT_EQ(doc.at("verification").at("passed"), true);
  EXPECT_EQ(costs.result.variants_verified, 6);
  EXPECT_THAT(ids_of(costs), ElementsAre("graph.events", "graph.replay", "costs.graph_replay.bound",
                                         "costs.stream_pool.bound", "graph.launch_cost", "graph.copy_nodes",
                                         "graph.break_even"));
  expect_printed(costs);
}

// The pool's bound has every path of stage 03's: with its busiest stream's
// 125 batches alone on one stream measured longer than the host's issue,
// that path sets it, and the run of it is in the JSON beside the others.
TEST(Stage04Costs, ThePoolsBoundHoldsItsBusiestStreamMeasured) {
  CostsFigures f = made_up_costs();
  f.replay.busiest_stream = ms(7.5);
  f.replay.stream_pool = ms(7.6);
  const nlohmann::json doc = reported(article_options(1000, 8), f).document();
  const nlohmann::json& bounds = doc.at("bounds");
  EXPECT_EQ(bounds.at("stream_pool_limited_by"), "busiest stream");
  EXPECT_NEAR(bounds.at("stream_pool_bound_ms").get<double>(), 7.5, 1e-9);
  EXPECT_NEAR(bounds.at("stream_pool_bound_tolerance").get<double>(), 0.01 + (1.0 / 0.99 - 1.0) + kTimingJitterMs / 7.6, 1e-9)
      << "made-up runs 1% apart: the run's spread, the path's median over its fastest, the timing's jitter";
  EXPECT_EQ(bounds.at("graph_replay_limited_by"), "kernels") << "a replay runs no stream's batches alone";
  EXPECT_NEAR(median_of(doc, "busiest_stream"), 7.5, 1e-9);
  for (const auto& m : doc.at("measurements")) {
    if (m.at("name") == "busiest_stream") {
      EXPECT_EQ(m.at("params").at("batches"), 125) << m.dump();
    }
  }
  // Not measured: no path of it, and no measurement.
  const nlohmann::json without = reported(article_options(1000, 8), made_up_costs()).document();
  EXPECT_EQ(without.at("bounds").at("stream_pool_limited_by"), "host issue");
  for (const auto& m : without.at("measurements")) EXPECT_NE(m.at("name"), "busiest_stream");
}

TEST(Stage04Costs, AFailedRelaunchFailsTheRun) {
  CostsFigures f = made_up_costs();
  f.lifecycle.relaunch_check = failed_at(12);
  const Report costs = reported(article_options(1000, 8), f);
  EXPECT_FALSE(costs.passed());
  EXPECT_EQ(costs.result.verification.method, "failed at batch 12");
}

TEST(Stage04Costs, TheCopyNodesAreChargedAgainstTheKernelsAloneGraph) {
  const std::string text = reported(article_options(1000, 8), made_up_costs()).console();
  // (0.4 - 0.02) ms over the 2000 copy nodes of 1000 batches.
  EXPECT_THAT(text, AllOf(HasSubstr("a graph of 1000 kernel nodes and no copies took 20.0 us: this graph's launch "
                                    "pays for its 2000 copy nodes of host memory, about 0.19 us each"),
                          HasSubstr("break-even: "), HasSubstr("the captured graph: 300 nodes"),
                          HasSubstr("(6 runs checked, each after poisoning the outputs)")));
}

// The count after the verification's message, "run" or "runs" as the count has it.
TEST(Stage04Report, TheCheckedRunsAreCountedInWords) {
  for (const int runs : {1, 2}) {
    Report report(kStage, "pdl", DeviceInfo{});
    report.result.variants_verified = runs;
    count_checked_runs(report);
    EXPECT_THAT(report.console(), HasSubstr(runs == 1 ? "(1 run checked, each after poisoning the outputs)"
                                                      : "(2 runs checked, each after poisoning the outputs)"));
  }
}

TEST(Stage04Costs, OneStreamIsBoundByItsOrderAndThePoolsBoundSaysWhyTheReplaysHasNone) {
  // 100 batches on one stream: each batch's share of the sums is 0.02 + 0.06 + 0.02 ms,
  // so the stream runs 10 ms of work in a row, more than any resource alone or the issue.
  CostsFigures f = made_up_costs();
  f.replay.stream_alone = {ms(6.0), ms(2.0), ms(2.0), ms(4.0)};  // on one stream: the sums
  f.replay.pool_issue = ms(0.8);
  f.replay.stream_pool = ms(10.4);
  f.replay.graph_replay = ms(10.3);
  const Report one_stream = reported(article_options(100, 1), f);
  const nlohmann::json bounds = one_stream.document().at("bounds");
  EXPECT_EQ(bounds.at("stream_pool_limited_by"), "stream order");
  EXPECT_NEAR(bounds.at("stream_pool_bound_ms").get<double>(), 100 * (0.02 + 0.06 + 0.02), 1e-9);
  EXPECT_EQ(bounds.at("graph_replay_limited_by"), "kernels") << "a replay has no stream order";
  const Verdict& pool = one_stream.verdicts().at(3);
  EXPECT_EQ(pool.id, "costs.stream_pool.bound");
  EXPECT_EQ(pool.outcome, "within_bound");
  EXPECT_THAT(pool.sentence, AllOf(HasSubstr("limited by stream order (the busiest stream's 100 batches one after another"),
                                   HasSubstr("the replay's bound has no stream order")));
  // With 8 streams the host's issue bounds the streams, and nothing is said about the stream order.
  EXPECT_THAT(reported(article_options(1000, 8), made_up_costs()).console(), Not(HasSubstr("no stream order")));
}

TEST(Stage04Costs, AVariantFasterThanItsBoundSaysTheBoundIsWrong) {
  CostsFigures f = made_up_costs();
  f.replay.stream_pool = ms(5.0);  // under the host issue's 6.9 ms
  const Report report = reported(article_options(1000, 8), f);
  const Verdict& pool = report.verdicts().at(3);
  EXPECT_EQ(pool.outcome, "faster_than_bound");
  EXPECT_THAT(pool.sentence, HasSubstr("FASTER THAN ITS BOUND, the bound is wrong"));
  EXPECT_GT(pool.figures.at("percent_of_bound").get<double>(), 100.0);
}

TEST(Stage04Costs, TheEstimateCountsEveryRound) {
  CommonOptions options;
  options.host_memory = HostMemory::pinned;
  const Rates rates{.kernel_flops_per_s = 2e12, .pinned_bytes_per_s = 50e9, .pageable_bytes_per_s = 20e9};
  const double twelve = costs_seconds(options, rates);
  options.plan = RepeatPlan{1, 5};
  EXPECT_NEAR(costs_seconds(options, rates), twelve / 2.0, 1e-12);
  EXPECT_GT(twelve, 0.0);
}

// ---- node-updates ----------------------------------------------------------------

TEST(Stage04NodeUpdates, TheUpdateIsComparedToTheReCaptureNotTheOtherWayRound) {
  const Verdict saves = update_verdict(0.24, 0.59);
  EXPECT_EQ(saves.id, "node_updates.exec_update");
  EXPECT_EQ(saves.outcome, "faster");
  EXPECT_THAT(saves.sentence,
              AllOf(HasSubstr("2.46x faster than re-capture + instantiate"), HasSubstr("saves the instantiate")));
  const Verdict nothing = update_verdict(0.60, 0.59);
  EXPECT_EQ(nothing.outcome, "same");
  EXPECT_THAT(nothing.sentence, HasSubstr("saved nothing"));
  EXPECT_EQ(update_verdict(0.9, 0.59).outcome, "slower");
}

TEST(Stage04NodeUpdates, NodeByNodeIsFastestOrNot) {
  const Verdict fastest = node_level_verdict(0.60, 0.15, 2.1, 300, "");
  EXPECT_EQ(fastest.id, "node_updates.node_level");
  EXPECT_EQ(fastest.outcome, "fastest");
  EXPECT_THAT(fastest.sentence, AllOf(HasSubstr("node by node (300 SetParams calls, no capture) took 0.150 ms"),
                                      HasSubstr("4.00x faster than capture + cudaGraphExecUpdate (0.600 ms)"),
                                      HasSubstr("14.00x faster than re-capture + instantiate"),
                                      HasSubstr("skips the capture")));
  const Verdict slow = node_level_verdict(0.60, 0.61, 2.1, 300, "");
  EXPECT_EQ(slow.outcome, "not_fastest");
  EXPECT_THAT(slow.sentence, HasSubstr("cost as much as capturing the graph again"));
}

TEST(Stage04NodeUpdates, NoNodeLevelFigureSaysWhy) {
  const Verdict none = node_level_verdict(0.60, std::nullopt, 2.1, 0,
                                          "node-level update: naive kernel only (this run's kernel is tiled");
  EXPECT_EQ(none.outcome, "not_measured");
  EXPECT_THAT(none.sentence, AllOf(HasSubstr("node-level update: naive kernel only"),
                                   HasSubstr("3.50x faster than re-capture + instantiate (2.100 ms)"),
                                   Not(HasSubstr("SetParams calls"))));
  EXPECT_TRUE(none.figures.at("node_level_ms").is_null());
}

NodeUpdatesFigures made_up_node_updates() {
  NodeUpdatesFigures f;
  UpdateCosts& u = f.updates;
  u.recapture_instantiate = ms(2.1);
  u.update_exec = ms(0.8);
  u.update_call = ms(0.2);
  u.updated_check = passed();
  u.reinstantiated_check = passed();
  u.smaller_batches = 99;
  u.topology_change.status = cudaErrorGraphExecUpdateFailure;
  u.topology_change.result = cudaGraphExecUpdateErrorTopologyChanged;
  // 100 batches: 100 kernel and 200 copy nodes; whole graph 0.8 ms, node by
  // node 0.3 ms, re-capture 2.1 ms; no note; every switch verified.
  f.node_updates = {100, 100, 200, ms(0.8), ms(0.3), ms(2.1), "", passed(), passed(), passed()};
  return f;
}

Report reported(const NodeUpdatesFigures& f) {
  return testing::report_of(kStage, "node-updates", report_node_updates, article_options(100, 8), f);
}

TEST(Stage04NodeUpdates, TheJsonKeepsTheUpdatesAndTheNodeLevelSwitches) {
  const Report updates = reported(made_up_node_updates());
  const nlohmann::json doc = updates.document();
  EXPECT_EQ(doc.at("subcommand"), "node-updates");
  ASSERT_EQ(doc.at("updates").size(), 2u);
  EXPECT_EQ(doc.at("updates")[0].at("allowed"), true);
  EXPECT_EQ(doc.at("updates")[1].at("allowed"), false);
  EXPECT_THAT(doc.at("updates")[1].at("result").get<std::string>(), HasSubstr("TopologyChanged"));
  EXPECT_EQ(doc.at("updates")[1].at("change"), "batches 100 -> 99");
  const nlohmann::json& shapes = doc.at("changing_shapes");
  EXPECT_TRUE(shapes.at("sequence").is_null()) << "the changing-shapes subcommand's";
  EXPECT_EQ(shapes.at("node_updates").at("node_level_ms"), 0.3);
  EXPECT_EQ(shapes.at("node_updates_on"), true);
  EXPECT_EQ(shapes.at("conclusions"), nlohmann::json::array({updates.verdicts().at(1).sentence}));
  for (const auto& m : doc.at("measurements")) {
    EXPECT_EQ(m.at("verified").is_null(), m.at("name") == "update_call") << m.dump();
  }
  EXPECT_THAT(names_of(doc), ElementsAre("update_exec", "update_call", "recapture_instantiate", "node_update",
                                         "node_update", "node_update"));
  EXPECT_EQ(updates.result.variants_verified, 5);
  EXPECT_TRUE(updates.passed());
  EXPECT_THAT(ids_of(updates), ElementsAre("node_updates.exec_update", "node_updates.node_level"));
}

TEST(Stage04NodeUpdates, ThePrintedReportSaysWhatCudaAllowedAndWhatEachSwitchCost) {
  NodeUpdatesFigures f = made_up_node_updates();
  const Report report = reported(f);
  EXPECT_THAT(report.console(),
              AllOf(HasSubstr("(allowed: same topology)"),
                    HasSubstr("batch count 100 -> 99: cudaGraphExecUpdate -> cudaErrorGraphExecUpdateFailure: "
                              "cudaGraphExecUpdateErrorTopologyChanged (refused"),
                    HasSubstr("the updated exec computed the new buffers' result"), HasSubstr("node by node (SetParams)")));
  expect_printed(report);
  // An exec that still reads the first buffers fails the run, and the report says so.
  f.node_updates.node_level_check = failed_at(0);
  const Report failed = reported(f);
  EXPECT_FALSE(failed.passed());
  EXPECT_THAT(failed.console(), HasSubstr("FAILED: "));
}

// ---- tiny-work -------------------------------------------------------------------

TEST(Stage04TinyWork, PerOperationTheGraphWinsOrNot) {
  const Verdict wins = per_op_verdict("tiny_work.empty_kernels", "empty kernels", 3.77, 0.88);
  EXPECT_EQ(wins.id, "tiny_work.empty_kernels");
  EXPECT_EQ(wins.outcome, "faster");
  EXPECT_THAT(wins.sentence, AllOf(HasSubstr("4.28x faster"), Not(HasSubstr("no win"))));
  const Verdict same = per_op_verdict("tiny_work.gemms", "1024^3 GEMMs", 200.0, 199.0);
  EXPECT_EQ(same.outcome, "same");
  EXPECT_THAT(same.sentence, HasSubstr("no win for the graph at this size"));
  EXPECT_EQ(per_op_verdict("tiny_work.gemms", "GEMMs", 1.0, 2.0).outcome, "slower");
}

TinyRun made_up_tiny_run() {
  TinyRun run;
  run.config = {1000, 64, 8, HostMemory::pinned, 1};
  run.options.work = tiny_gemm_workload(run.config);
  return run;
}

TinyCosts made_up_tiny() {
  return {.empty_streams = ms(3.8), .empty_graph = ms(0.9), .gemm_streams = ms(3.9), .gemm_graph = ms(0.6),
          .gemm_graph_launch_cpu = ms(0.02), .empty_checked = true, .empty_failure = "",
          .gemm_streams_check = passed(1000), .gemm_graph_check = passed(1000), .gemm_launch_check = passed(1000),
          .empty_graph_nodes = 1000, .gemm_graph_nodes = 1000};
}

Report reported(const TinyCosts& costs) {
  return testing::report_of(kStage, "tiny-work", report_tiny, made_up_tiny_run(), costs);
}

TEST(Stage04TinyWork, PerOperationFiguresFollowFromTheMedians) {
  const Report tiny = reported(made_up_tiny());
  const nlohmann::json doc = tiny.document();
  EXPECT_EQ(doc.at("subcommand"), "tiny-work");
  EXPECT_NEAR(doc.at("bounds").at("tiny_empty_stream_us_per_launch").get<double>(), 3.8, 1e-9);
  EXPECT_NEAR(doc.at("bounds").at("tiny_empty_graph_us_per_node").get<double>(), 0.9, 1e-9);
  EXPECT_NEAR(doc.at("bounds").at("tiny_gemm_graph_launch_cpu_us").get<double>(), 20.0, 1e-9);
  EXPECT_EQ(doc.at("tiny").at("gemm_graph_nodes"), 1000);
  EXPECT_FALSE(doc.at("tiny").contains("empty_failure"));
  EXPECT_EQ(doc.at("config").at("batches"), 1000) << "the tiny GEMMs are the run's workload";
  EXPECT_EQ(doc.at("config").at("m"), 64);
  EXPECT_TRUE(tiny.passed());
  EXPECT_THAT(ids_of(tiny), ElementsAre("tiny_work.empty_kernels", "tiny_work.gemms"));
  EXPECT_THAT(tiny.console(), HasSubstr("empty kernels: 3.80 us each on a stream vs 0.90 us each as graph nodes"));
  expect_printed(tiny);
}

TEST(Stage04TinyWork, AWrongCounterFailsTheRunAndIsNamed) {
  TinyCosts costs = made_up_tiny();
  costs.empty_checked = false;
  costs.empty_failure = "counting chain as a graph run 2: the counter reads 999, expected 1000";
  const Report wrong = reported(costs);
  testing::expect_failed(wrong, "empty-kernel counter: counting chain", "empty-kernel counter WRONG");
  EXPECT_THAT(wrong.document().at("tiny").at("empty_failure").get<std::string>(), HasSubstr("reads 999"));
}

// ---- skip-join -------------------------------------------------------------------

MissingJoin refused_capture() {
  MissingJoin run;
  run.streams = 3;
  run.end_capture = cudaErrorStreamCaptureUnjoined;
  run.recaptured = article_graph();
  run.recaptured_check = passed(100);
  return run;
}

TEST(Stage04SkipJoin, TheRefusedCaptureIsSaidInPlainWords) {
  const Verdict verdict = end_capture_verdict(refused_capture());
  EXPECT_EQ(verdict.id, "skip_join.end_capture");
  EXPECT_EQ(verdict.outcome, "refused");
  EXPECT_THAT(verdict.sentence, AllOf(HasSubstr("cudaStreamEndCapture returned cudaErrorStreamCaptureUnjoined"),
                                      HasSubstr("never joined back"),
                                      HasSubstr("no pool stream is capturing (cudaStreamIsCapturing on all 3)"),
                                      HasSubstr("gave 300 nodes and 8 roots")));
  MissingJoin capturing = refused_capture();
  capturing.still_capturing = true;
  EXPECT_THAT(end_capture_verdict(capturing).sentence, HasSubstr("a pool stream is STILL capturing"));
}

TEST(Stage04SkipJoin, ACaptureCudaAcceptsIsReportedAsNotWhatWasExpected) {
  MissingJoin run = refused_capture();
  run.end_capture = cudaSuccess;
  const Verdict verdict = end_capture_verdict(run);
  EXPECT_EQ(verdict.outcome, "accepted");
  EXPECT_THAT(verdict.sentence,
              AllOf(HasSubstr("CUDA accepted a capture without the join"), Not(HasSubstr("never joined back"))));
  EXPECT_TRUE(verdict.figures.at("end_capture_error").is_null());
}

TEST(Stage04SkipJoin, TheRunFailsByDesignAndTheJsonSaysWhatCudaSaid) {
  Report report(kStage, "skip-join", DeviceInfo{});
  report_skip_join(article_options(12, 3), refused_capture(), report);
  EXPECT_FALSE(report.passed()) << "skip-join exits 1: the error is the point";
  EXPECT_TRUE(report.result.verification.passed) << "the capture with the join verified";
  const nlohmann::json doc = report.document();
  EXPECT_EQ(doc.at("skip_join").at("end_capture_error"), "cudaErrorStreamCaptureUnjoined");
  EXPECT_EQ(doc.at("skip_join").at("still_capturing"), false);
  EXPECT_EQ(doc.at("skip_join").at("recaptured").at("nodes"), 300);
  EXPECT_THAT(report.console(), HasSubstr("FAILED: skip-join exits 1 by design"));
}

#ifdef CSG_STAGE04_BINARY

// Each subcommand's command line as a user types it ("{dir}": the run's own
// directory). The timeline's own flags are refused by every stage's
// timeline alike (test_timeline_options); these are the rest.
const testing::CommandLinePromises kCommandLines = {
    .refused = {
        {{"costs", "--streams", "0"}, "--streams takes an integer in [1, 1024]"},
        {{"costs", "--streams", "abc"}, "--streams takes an integer"},
        {{"costs", "--device-buffers", "foo"}, "--device-buffers takes one of slots|per-batch"},
        {{"costs", "--kernel", "fast"}, "--kernel takes one of naive|tiled|cublas"},
        {{"costs", "--dot", "g.dot"}, "unknown option '--dot'"},
        {{"node-updates", "--streams", "1025"}, "--streams takes an integer in [1, 1024]"},
        {{"node-updates", "--tiny-count", "5"}, "unknown option '--tiny-count'"},
        {{"changing-shapes", "--shape-requests", "0"}, "--shape-requests takes an integer in [1, "},
        {{"changing-shapes", "--repeats", "3"}, "unknown option '--repeats'"},
        {{"changing-shapes", "--batches", "3"}, "unknown option '--batches'"},
        {{"tiny-work", "--tiny-count", "0"}, "--tiny-count takes an integer"},
        {{"tiny-work", "--tiny-size", "x"}, "--tiny-size takes an integer"},
        {{"tiny-work", "--device-buffers", "slots"}, "unknown option '--device-buffers'"},
        {{"tiny-work", "--streams", "0"}, "--streams takes an integer in [1, 1024]"},
        {{"launch-chains", "--launch-chains", "5,5"}, "--launch-chains lists 5 twice"},
        {{"launch-chains", "--launch-chains", "off"}, "--launch-chains takes an integer"},
        {{"launch-chains", "--launch-repeats", "4"}, "--launch-repeats takes an integer in [5, "},
        {{"regime-map", "--map-sizes", "7"}, "--map-sizes takes an integer in [8, 8192], got 7"},
        {{"regime-map", "--host-memory", "pageable"}, "unknown option '--host-memory'"},
        {{"regime-map", "--m", "64"}, "unknown option '--m'"},
        {{"regime-map", "--streams", "0"}, "--streams takes an integer in [1, 1024]"},
        {{"graph", "--dot", "/nonexistent-dir/graph.dot"}, "does not exist"},
        {{"graph", "--dot", "{dir}"}, "is a directory"},
        {{"graph", "--repeats", "3"}, "unknown option '--repeats'"},
        {{"skip-join", "--streams", "1"}, "skip-join needs 2 or more streams"},
        {{"timeline", "--timeline"}, "unknown option '--timeline'"},
        {{"timeline", "--streams", "0"}, "--streams takes an integer in [1, 1024]"},
        {{"everything"}, "unknown subcommand 'everything'"},
        {{"conditional", "--host-memory", "pinned"}, "unknown option '--host-memory'"},
        {{"conditional", "--cond-iterations", "0"}, "--cond-iterations takes an integer in [1, 100000]"},
        {{"conditional", "--cond-iterations", "10,10"}, "--cond-iterations lists 10 twice"},
        {{"conditional", "--cond-iterations", "100001"}, "--cond-iterations takes an integer"},
        {{"conditional", "--cond-buckets", ""}, "--cond-buckets takes a comma-separated list"},
        {{"conditional", "--cond-buckets", "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17"},
         "--cond-buckets takes at most 16 sizes, got 17"},
        {{"conditional", "--cond-size", "0"}, "--cond-size takes an integer"},
        {{"conditional", "--cond-requests", "-1"}, "--cond-requests takes an integer"},
        {{"conditional", "--batches", "3"}, "unknown option '--batches'"},
        {{"device-launch", "--fan-out", "121"}, "--fan-out takes an integer in [1, 120]"},
        {{"device-launch", "--fan-out", "0"}, "--fan-out takes an integer in [1, 120], got 0"},
        {{"device-launch", "--launches", "0"}, "--launches takes an integer"},
        {{"device-launch", "--work-size", "x"}, "--work-size takes an integer"},
        {{"device-launch", "--work-batches", "-1"}, "--work-batches takes an integer"},
        {{"device-launch", "--batches", "3"}, "unknown option '--batches'"},
        {{"memory-nodes", "--streams", "0"}, "--streams takes an integer in [1, 1024]"},
        {{"memory-nodes", "--device-buffers", "graph"}, "--device-buffers takes one of slots|per-batch"},
        {{"memory-nodes", "--tiny-count", "5"}, "unknown option '--tiny-count'"},
        {{"memory-nodes", "--batches", "0"}, "--batches takes an integer"},
        {{"pdl", "--kernel", "tiled"}, "unknown option '--kernel'"},
        {{"pdl", "--host-memory", "pinned"}, "unknown option '--host-memory'"},
        {{"pdl", "--tf32"}, "unknown option '--tf32'"},
        {{"pdl", "--pdl-pairs", "0"}, "--pdl-pairs takes an integer in [1, 50000]"},
        {{"pdl", "--pdl-pairs", "50001"}, "--pdl-pairs takes an integer"},
        {{"pdl", "--pdl-pairs", "x"}, "--pdl-pairs takes an integer"},
        {{"startup", "--warmup", "2"}, "unknown option '--warmup'"},
        {{"startup", "--repeats", "3"}, "unknown option '--repeats'"},
        // Above the default top bucket of 256, or the default 64 and 256 buckets above 100.
        {{"startup", "--startup-buckets", "8,300"}, "300 buckets over 1..256 batches would leave some empty"},
        {{"startup", "--startup-max-batches", "100"}, "256 buckets over 1..100 batches"},
        {{"startup", "--startup-buckets", "8,8"}, "--startup-buckets lists 8 twice"},
        {{"startup", "--startup-buckets", "8,,16"}, "(an empty item)"},
        {{"startup", "--startup-buckets", "0"}, "--startup-buckets takes an integer in [1, 1024]"},
        {{"startup", "--startup-buckets", "1025"}, "--startup-buckets takes an integer"},
        {{"startup", "--startup-max-batches", "1025"}, "--startup-max-batches takes an integer"},
        {{"startup", "--startup-size", "0"}, "--startup-size takes an integer"},
        {{"startup", "--startup-budget-ms", "0"}, "--startup-budget-ms takes an integer"},
        {{"startup", "--startup-requests", "0"}, "--startup-requests takes an integer"},
        {{"startup", "--startup-rounds", "0"}, "--startup-rounds takes an integer in [1, 100]"},
        {{"startup", "--startup-rounds", "101"}, "--startup-rounds takes an integer"},
        {{"startup", "--batches", "3"}, "unknown option '--batches'"},
    },
    .accepted = {
        {},
        {"costs", "--kernel", "cublas", "--tf32", "--batches", "3"},
        {"node-updates", "--batches", "3"},
        {"changing-shapes", "--shape-requests", "3", "--shape-size", "8"},
        {"tiny-work", "--tiny-count", "5"},
        {"launch-chains", "--launch-chains", "3,30"},
        {"graph", "--batches", "3"},
        {"skip-join", "--streams", "2"},
        {"timeline", "--timeline-batches", "2"},
        {"conditional"},
        {"conditional", "--cond-requests", "0", "--cond-unroll-max", "0"},
        {"device-launch"},
        {"device-launch", "--launches", "5", "--host-memory", "pageable"},
        {"memory-nodes"},
        {"memory-nodes", "--device-buffers", "per-batch", "--kernel", "cublas"},
        {"pdl"},
        {"pdl", "--batches", "3", "--pdl-pairs", "2"},
        {"startup"},
        {"startup", "--startup-buckets", "2,4", "--startup-max-batches", "4"},
    },
    .helps = {
        {"", {"--streams", "costs", "node-updates", "changing-shapes", "tiny-work", "launch-chains", "regime-map",
              "graph", "skip-join", "timeline"},
         {"--kernel KIND", "--device-buffers"}},
        {"costs", {"--kernel", "--tf32", "--streams", "--device-buffers", "--host-memory", "--max-minutes",
                   "(default: pinned)"},
         {"--dot", "--tiny-count", "--launch-chains", "--trace"}},
        {"node-updates", {"--kernel", "--streams", "--batches"}, {"--dot", "--shape-requests", "--timeline-batches"}},
        {"changing-shapes", {"--shape-requests", "--shape-size", "--shape-rounds", "--kernel", "--streams"},
         {"--batches", "--m ", "--node-updates", "--tiny-size", "--warmup", "--repeats"}},
        {"tiny-work", {"--tiny-count", "--tiny-size", "--streams"}, {"--batches", "--kernel", "--device-buffers"}},
        {"launch-chains", {"--launch-chains", "--launch-repeats", "--batches"}, {"--tiny-count", "--dot"}},
        {"regime-map", {"--map-sizes", "--map-batches", "--map-cell-seconds", "--kernel"},
         {"--batches", "--host-memory", "--regime-map"}},
        {"graph", {"--dot", "--streams", "--batches"}, {"--max-minutes", "--trace", "--warmup", "--repeats"}},
        {"skip-join", {"--streams", "--batches"}, {"--skip-join", "--dot", "--max-minutes", "--warmup", "--repeats"}},
        {"timeline", {"--timeline-batches", "--trace", "--streams"}, {"--timeline ", "--dot", "--tiny-count"}},
        {"", {"\n  conditional "}, {}},
        {"conditional", {"--cond-iterations", "--cond-buckets", "WHILE"}, {"--host-memory", "--batches"}},
        {"", {"\n  device-launch "}, {}},
        {"device-launch", {"--launches", "--fan-out", "--work-size", "--host-memory"}, {"--batches", "--kernel"}},
        {"", {"\n  memory-nodes "}, {}},
        {"memory-nodes", {"cudaMallocAsync", "--device-buffers", "--streams"}, {"--tiny-count", "--streams-sweep"}},
        {"", {"\n  pdl "}, {}},
        {"pdl", {"--pdl-pairs", "--batches"}, {"--host-memory", "--kernel"}},
        {"", {"\n  startup "}, {}},
        {"startup", {"--startup-buckets", "--startup-budget-ms", "--streams"},
         {"--batches", "--device-buffers", "--warmup", "--repeats"}},
    },
};

TEST(Stage04Cli, RefusesBadInputTakesGoodInputAndHelpsWithItsOwnFlags) {
  testing::expect_command_line_promises(CSG_STAGE04_BINARY, kCommandLines);
}

#endif  // CSG_STAGE04_BINARY

}  // namespace cpu_stage04
}  // namespace csg::graphs
