// Stage 04's laboratory on the CPU: every sentence it prints about its
// figures, each branch on made-up figures; each subcommand's result and JSON
// built from made-up measurements (break-even from its own fields, the bounds
// of both GPU variants, the verdict over every check); and each subcommand's
// options through the binary as a user runs it: bad values exit 2 with one
// line naming the flag, before any CUDA call, and write no file.
#include <gtest/gtest.h>

#include <sstream>

#include "04_graph_capture_gemm/conclusions.hpp"
#include "04_graph_capture_gemm/lab/costs/costs.hpp"
#include "04_graph_capture_gemm/graph_inspect.hpp"
#include "04_graph_capture_gemm/lab/node-updates/node_updates.hpp"
#include "04_graph_capture_gemm/lab/report.hpp"
#include "04_graph_capture_gemm/lab/skip-join/skip_join.hpp"
#include "04_graph_capture_gemm/lab/tiny-work/tiny_work.hpp"
#include "base/errors.hpp"
#include "made_up.hpp"
#include "run_process.hpp"
#include "usage_checks.hpp"

namespace csg::graphs {
namespace {

using testing::ms;

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// ---- the sentences ------------------------------------------------------------

TEST(Stage04Conclusions, BreakEvenCountsTheCaptureAndTheInstantiate) {
  EXPECT_DOUBLE_EQ(*break_even_replays(0.5, 0.7, 0.8, 0.5), (0.5 + 0.7) / 0.3);
  EXPECT_FALSE(break_even_replays(0.5, 0.7, 0.5, 0.5).has_value()) << "no saving: never";
  EXPECT_FALSE(break_even_replays(0.5, 0.7, 0.4, 0.5).has_value());
  EXPECT_NE(break_even_text(0.5, 0.7, 0.8, 0.5).find("= 4.0 replays"), std::string::npos);
  EXPECT_NE(break_even_text(0.5, 0.7, 0.5, 0.6).find("never"), std::string::npos);
}

TEST(Stage04Conclusions, ReplayAgainstStreamsSaysWhichWasFasterAndWhy) {
  const std::string same = replay_text(16.03, 16.05, 0.8, 300);
  EXPECT_NE(same.find("about as fast as"), std::string::npos) << same;
  EXPECT_NE(same.find("does not make copies or kernels faster"), std::string::npos) << same;
  // 1000 batches of 128^3: the host needed 9.4 ms to issue what the GPU did in 7.
  const std::string launch_bound = replay_text(5.70, 7.01, 9.4, 3000);
  EXPECT_NE(launch_bound.find("faster than the streams"), std::string::npos) << launch_bound;
  EXPECT_NE(launch_bound.find("the GPU waited for the"), std::string::npos) << launch_bound;
  EXPECT_EQ(launch_bound.find("does not make"), std::string::npos) << launch_bound;
  const std::string scheduling = replay_text(5.70, 7.01, 1.0, 3000);
  EXPECT_NE(scheduling.find("less time between them"), std::string::npos) << scheduling;
  EXPECT_NE(replay_text(8.0, 7.0, 1.0, 300).find("ran slower"), std::string::npos);
}

TEST(Stage04Conclusions, LaunchCopyNodesUpdatesAndTinyWork) {
  EXPECT_NE(launch_cost_text(0.33, 0.75).find("2.3x less"), std::string::npos);
  EXPECT_NE(launch_cost_text(0.74, 0.75).find("no less"), std::string::npos);
  EXPECT_NE(copy_node_text(0.5, 0.02, 1000, 200).find("2.40 us each"), std::string::npos);
  EXPECT_NE(copy_node_text(0.025, 0.02, 1000, 200).find("add little"), std::string::npos);
  EXPECT_NE(update_text(0.24, 0.59).find("saves the instantiate"), std::string::npos);
  EXPECT_NE(update_text(0.60, 0.59).find("saved nothing"), std::string::npos);
  EXPECT_NE(per_op_text("empty kernels", 3.77, 0.88).find("4.28x faster"), std::string::npos);
  EXPECT_NE(per_op_text("1024^3 GEMMs", 200.0, 199.0).find("no win for the graph"), std::string::npos);
}

TEST(Stage04Conclusions, AGraphWithoutCopyNodesIsNeverChargedPerCopyNode) {
  const std::string text = copy_node_text(0.5, 0.02, 1000, 0);
  EXPECT_EQ(text.find("copy nodes of host memory"), std::string::npos) << text;
  EXPECT_EQ(text.find("inf"), std::string::npos) << text;
}

TEST(Stage04Conclusions, TheUpdateIsComparedToTheReCaptureNotTheOtherWayRound) {
  const std::string text = update_text(0.24, 0.59);
  EXPECT_NE(text.find("2.46x faster than re-capture + instantiate"), std::string::npos) << text;
}

// The article's capture on 8 streams: 8 chains of 3 x batches / 8 nodes, no event nodes.
GraphStructure article_graph() {
  GraphStructure g;
  g.nodes = 300;
  g.edges = 292;
  g.kernel_nodes = 100;
  g.memcpy_nodes = 200;
  g.roots = 8;
  g.leaves = 8;
  g.max_in_degree = 1;
  g.max_out_degree = 1;
  g.chains = 8;
  return g;
}

TEST(Stage04Graph, TheStructureSaysChainsAndThatTheEventsAddedNoNodes) {
  const std::string text = structure_text(article_graph());
  EXPECT_TRUE(has(text, "the captured graph: 300 nodes (100 kernel, 200 memcpy, 0 event, 0 other), 292 edges, 8 "
                        "roots, 8 leaves: 8 independent chains, one per stream used.")) << text;
  EXPECT_TRUE(has(text, "the fork and join events added no nodes")) << text;
}

TEST(Stage04Graph, EventNodesAndAGraphOfNoChainsAreSaidAsTheyAre) {
  GraphStructure g = article_graph();
  g.event_nodes = 2;
  g.chains = 0;
  g.max_in_degree = 3;
  const std::string text = structure_text(g);
  EXPECT_FALSE(has(text, "independent chains")) << text;
  EXPECT_FALSE(has(text, "added no nodes")) << text;
  EXPECT_TRUE(has(text, "the capture holds 2 event nodes")) << text;
  EXPECT_TRUE(has(fork_join_text(g, 8), "not a set of chains: a node has up to 3 dependencies"));
  EXPECT_TRUE(has(fork_join_text(article_graph(), 8), "batch i was captured on stream i % 8"));
}

// ---- what every subcommand's result is made of ---------------------------------

VerifyResult passed(int batches = 100) {
  VerifyResult check;
  check.passed = true;
  check.batches_checked = batches;
  return check;
}

VerifyResult failed_at(int batch) {
  VerifyResult check;
  check.passed = false;
  check.batches_checked = batch + 1;
  check.method = "failed at batch " + std::to_string(batch);
  return check;
}

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

// A run of 1000 batches on 8 streams where the host's issue bounds the streams.
CostsRun made_up_costs() {
  CostsRun run;
  run.pool.streams = 8;
  run.options.work.batches = 1000;
  run.structure = article_graph();
  run.six_steps_check = passed(1000);
  run.lifecycle = {ms(0.5), ms(0.7), ms(16.0), ms(16.0), ms(0.3), ms(16.0), passed(1000), passed(1000), passed(1000)};
  run.replay.graph_replay = ms(5.7);
  run.replay.stream_pool = ms(7.0);
  run.replay.issue_streams_cpu = ms(9.4);
  run.replay.issue_graph_cpu = ms(0.4);
  run.replay.replay_issue = ms(0.4);
  run.replay.pool_issue = ms(6.9);
  run.replay.sums = {ms(2.0), ms(6.0), ms(2.0)};
  run.replay.stream_alone = {ms(4.0), ms(2.1), ms(2.1), ms(3.0)};
  run.replay.graph_alone = {ms(3.5), ms(2.0), ms(2.0), ms(2.9)};
  run.replay.graph_check = passed(1000);
  run.replay.streams_check = passed(1000);
  run.kernels_graph_launch_cpu = ms(0.02);
  return run;
}

double median_of(const nlohmann::json& doc, const std::string& name) {
  for (const auto& m : doc.at("measurements")) {
    if (m.at("name") == name) return m.at("median_ms").get<double>();
  }
  ADD_FAILURE() << "no " << name;
  return 0.0;
}

// What a subcommand makes of a run, as it makes it: its result, its JSON and
// its printed report.
struct Reported {
  StageResult result;
  nlohmann::json doc;
  std::string text;
};

template <class Run>
Reported reported(const Run& run, StageResult (*result_of)(const DeviceInfo&, const Run&),
                  nlohmann::json (*json_of)(const StageResult&, const Run&),
                  void (*print)(std::ostream&, const StageResult&, const Run&)) {
  Reported r{result_of(DeviceInfo{}, run), {}, {}};
  r.doc = json_of(r.result, run);
  std::ostringstream out;
  print(out, r.result, run);
  r.text = out.str();
  return r;
}

Reported reported(const CostsRun& run) { return reported(run, costs_result, costs_json, print_costs); }
Reported reported(const NodeUpdatesRun& run) {
  return reported(run, node_updates_result, node_updates_json, print_node_updates);
}
Reported reported(const TinyRun& run) { return reported(run, tiny_result, tiny_json, print_tiny); }

TEST(Stage04Costs, TheJsonsFiguresFollowFromEachOther) {
  const Reported costs = reported(made_up_costs());
  const nlohmann::json& doc = costs.doc;
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
    if (checked) {
      EXPECT_EQ(m.at("verified"), true) << m.dump();
    } else {
      EXPECT_TRUE(m.at("verified").is_null()) << m.dump();
    }
    EXPECT_EQ(m.contains("bound"), name == "graph_replay" || name == "stream_pool") << name;
  }
  EXPECT_EQ(doc.at("verification").at("passed"), true);
  EXPECT_EQ(costs.result.variants_verified, 6);
}

TEST(Stage04Costs, AFailedRelaunchFailsTheRun) {
  CostsRun run = made_up_costs();
  run.lifecycle.relaunch_check = failed_at(12);
  const StageResult result = costs_result(DeviceInfo{}, run);
  EXPECT_FALSE(result.verification.passed);
  EXPECT_EQ(result.verification.method, "failed at batch 12");
}

TEST(Stage04Costs, TheCopyNodesAreChargedAgainstTheKernelsAloneGraph) {
  const std::string text = reported(made_up_costs()).text;
  // (0.4 - 0.02) ms over the 2000 copy nodes of 1000 batches.
  EXPECT_TRUE(has(text, "a graph of 1000 kernel nodes and no copies took 20.0 us: this graph's launch pays for "
                        "its 2000 copy nodes of host memory, about 0.19 us each"))
      << text;
  EXPECT_TRUE(has(text, "break-even: ")) << text;
  EXPECT_TRUE(has(text, "the captured graph: 300 nodes")) << text;
}

TEST(Stage04Costs, OneStreamIsBoundByItsOrderAndTheReplaysBoundSaysWhy) {
  // 100 batches on one stream: each batch's share of the sums is 0.02 + 0.06 + 0.02 ms,
  // so the stream runs 10 ms of work in a row, more than any resource alone or the issue.
  CostsRun run = made_up_costs();
  run.pool.streams = 1;
  run.options.work.batches = 100;
  run.replay.stream_alone = {ms(6.0), ms(2.0), ms(2.0), ms(4.0)};  // on one stream: the sums
  run.replay.pool_issue = ms(0.8);
  run.replay.stream_pool = ms(10.4);
  run.replay.graph_replay = ms(10.3);
  const Reported one_stream = reported(run);
  const nlohmann::json& bounds = one_stream.doc.at("bounds");
  EXPECT_EQ(bounds.at("stream_pool_limited_by"), "stream order");
  EXPECT_NEAR(bounds.at("stream_pool_bound_ms").get<double>(), 100 * (0.02 + 0.06 + 0.02), 1e-9);
  EXPECT_EQ(bounds.at("graph_replay_limited_by"), "kernels") << "a replay has no stream order";
  EXPECT_TRUE(has(one_stream.text, "limited by stream order (the busiest stream's 100 batches one after another"))
      << one_stream.text;
  EXPECT_TRUE(has(one_stream.text, "the replay's bound has no stream order")) << one_stream.text;
  // With 8 streams the host's issue bounds the streams, and nothing is said about the stream order.
  const std::string eight = reported(made_up_costs()).text;
  EXPECT_FALSE(has(eight, "no stream order")) << eight;
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

NodeUpdatesRun made_up_node_updates() {
  NodeUpdatesRun run;
  run.pool.streams = 8;
  run.options.work.batches = 100;
  UpdateCosts& u = run.updates;
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
  run.node_updates = {100, 100, 200, ms(0.8), ms(0.3), ms(2.1), "", passed(), passed(), passed()};
  return run;
}

TEST(Stage04NodeUpdates, TheJsonKeepsTheUpdatesAndTheNodeLevelSwitches) {
  const Reported updates = reported(made_up_node_updates());
  const nlohmann::json& doc = updates.doc;
  EXPECT_EQ(doc.at("subcommand"), "node-updates");
  ASSERT_EQ(doc.at("updates").size(), 2u);
  EXPECT_EQ(doc.at("updates")[0].at("allowed"), true);
  EXPECT_EQ(doc.at("updates")[1].at("allowed"), false);
  EXPECT_TRUE(has(doc.at("updates")[1].at("result").get<std::string>(), "TopologyChanged"));
  EXPECT_EQ(doc.at("updates")[1].at("change"), "batches 100 -> 99");
  const nlohmann::json& shapes = doc.at("changing_shapes");
  EXPECT_TRUE(shapes.at("sequence").is_null()) << "the changing-shapes subcommand's";
  EXPECT_EQ(shapes.at("node_updates").at("node_level_ms"), 0.3);
  EXPECT_EQ(shapes.at("node_updates_on"), true);
  int switches = 0;
  for (const auto& m : doc.at("measurements")) {
    if (m.at("name") == "update_call") {
      EXPECT_TRUE(m.at("verified").is_null());
    } else {
      EXPECT_EQ(m.at("verified"), true) << m.dump();
    }
    switches += m.at("name") == "node_update";
  }
  EXPECT_EQ(switches, 3);
  EXPECT_EQ(updates.result.variants_verified, 5);
  EXPECT_TRUE(updates.result.verification.passed);
}

TEST(Stage04NodeUpdates, ThePrintedReportSaysWhatCudaAllowedAndWhatEachSwitchCost) {
  NodeUpdatesRun run = made_up_node_updates();
  const std::string text = reported(run).text;
  EXPECT_TRUE(has(text, "(allowed: same topology)")) << text;
  EXPECT_TRUE(has(text, "batch count 100 -> 99: cudaGraphExecUpdate -> cudaErrorGraphExecUpdateFailure: "
                        "cudaGraphExecUpdateErrorTopologyChanged (refused")) << text;
  EXPECT_TRUE(has(text, "the updated exec computed the new buffers' result")) << text;
  EXPECT_TRUE(has(text, "node by node (SetParams)")) << text;
  // An exec that still reads the first buffers fails the run, and the report says so.
  run.node_updates.node_level_check = failed_at(0);
  const Reported failed = reported(run);
  EXPECT_FALSE(failed.result.verification.passed);
  EXPECT_TRUE(has(failed.text, "FAILED: ")) << failed.text;
}

TinyRun made_up_tiny() {
  TinyRun run;
  run.config = {1000, 64, 8, HostMemory::pinned, 1};
  run.options.work = tiny_gemm_workload(run.config);
  run.costs = {.empty_streams = ms(3.8), .empty_graph = ms(0.9), .gemm_streams = ms(3.9), .gemm_graph = ms(0.6),
               .gemm_graph_launch_cpu = ms(0.02), .empty_checked = true, .empty_failure = "",
               .gemm_streams_check = passed(1000), .gemm_graph_check = passed(1000), .gemm_launch_check = passed(1000),
               .empty_graph_nodes = 1000, .gemm_graph_nodes = 1000};
  return run;
}

TEST(Stage04TinyWork, PerOperationFiguresFollowFromTheMedians) {
  const Reported tiny = reported(made_up_tiny());
  const nlohmann::json& doc = tiny.doc;
  EXPECT_EQ(doc.at("subcommand"), "tiny-work");
  EXPECT_NEAR(doc.at("bounds").at("tiny_empty_stream_us_per_launch").get<double>(), 3.8, 1e-9);
  EXPECT_NEAR(doc.at("bounds").at("tiny_empty_graph_us_per_node").get<double>(), 0.9, 1e-9);
  EXPECT_NEAR(doc.at("bounds").at("tiny_gemm_graph_launch_cpu_us").get<double>(), 20.0, 1e-9);
  EXPECT_EQ(doc.at("tiny").at("gemm_graph_nodes"), 1000);
  EXPECT_FALSE(doc.at("tiny").contains("empty_failure"));
  EXPECT_EQ(doc.at("config").at("batches"), 1000) << "the tiny GEMMs are the run's workload";
  EXPECT_EQ(doc.at("config").at("m"), 64);
  EXPECT_TRUE(tiny.result.verification.passed);
  EXPECT_TRUE(has(tiny.text, "empty kernels: 3.80 us each on a stream vs 0.90 us each as graph nodes")) << tiny.text;
}

TEST(Stage04TinyWork, AWrongCounterFailsTheRunAndIsNamed) {
  TinyRun run = made_up_tiny();
  run.costs.empty_checked = false;
  run.costs.empty_failure = "counting chain as a graph run 2: the counter reads 999, expected 1000";
  const Reported wrong = reported(run);
  const std::string& method = wrong.result.verification.method;
  EXPECT_FALSE(wrong.result.verification.passed);
  EXPECT_TRUE(has(method, "empty-kernel counter: counting chain")) << method;
  EXPECT_TRUE(has(wrong.doc.at("tiny").at("empty_failure").get<std::string>(), "reads 999"));
  EXPECT_TRUE(has(wrong.text, "empty-kernel counter WRONG")) << wrong.text;
}

TEST(Stage04SkipJoin, TheRefusedCaptureIsSaidInPlainWords) {
  MissingJoin run;
  run.streams = 3;
  run.end_capture = cudaErrorStreamCaptureUnjoined;
  run.recaptured = article_graph();
  run.recaptured_check = passed(100);
  std::ostringstream out;
  print_missing_join(out, run);
  EXPECT_TRUE(has(out.str(), "cudaStreamEndCapture returned cudaErrorStreamCaptureUnjoined")) << out.str();
  EXPECT_TRUE(has(out.str(), "never joined back")) << out.str();
  EXPECT_TRUE(has(out.str(), "no pool stream is capturing (cudaStreamIsCapturing on all 3)")) << out.str();
  EXPECT_TRUE(has(out.str(), "gave 300 nodes and 8 roots")) << out.str();
  const nlohmann::json doc = to_json(run);
  EXPECT_EQ(doc.at("end_capture_error"), "cudaErrorStreamCaptureUnjoined");
  EXPECT_EQ(doc.at("still_capturing"), false);
  EXPECT_EQ(doc.at("recaptured").at("nodes"), 300);
  run.still_capturing = true;
  std::ostringstream capturing;
  print_missing_join(capturing, run);
  EXPECT_TRUE(has(capturing.str(), "a pool stream is STILL capturing")) << capturing.str();
}

TEST(Stage04SkipJoin, ACaptureCudaAcceptsIsReportedAsNotWhatWasExpected) {
  MissingJoin run;
  run.streams = 2;
  run.end_capture = cudaSuccess;
  run.recaptured = article_graph();
  std::ostringstream out;
  print_missing_join(out, run);
  EXPECT_TRUE(has(out.str(), "CUDA accepted a capture without the join")) << out.str();
  EXPECT_FALSE(has(out.str(), "never joined back")) << out.str();
  EXPECT_TRUE(to_json(run).at("end_capture_error").is_null());
}

#ifdef CSG_STAGE04_BINARY

// ---- each subcommand's options, as a user types them ------------------------------

// Bad values of each subcommand's options, each with what the one line on
// stderr must say ("{dir}": the run's own directory).
const std::vector<testing::BadCase> kBadOptions = {
    {{"costs", "--streams", "0"}, "--streams takes an integer in [1, 1024]"},
    {{"costs", "--streams", "abc"}, "--streams takes an integer"},
    {{"costs", "--device-buffers", "foo"}, "--device-buffers takes one of slots|per-batch"},
    {{"costs", "--kernel", "fast"}, "--kernel takes one of naive|tiled|cublas"},
    {{"costs", "--dot", "g.dot"}, "unknown option '--dot'"},
    {{"node-updates", "--streams", "1025"}, "--streams takes an integer in [1, 1024]"},
    {{"node-updates", "--tiny-count", "5"}, "unknown option '--tiny-count'"},
    {{"changing-shapes", "--shape-requests", "0"}, "--shape-requests takes an integer in [1, "},
    {{"changing-shapes", "--repeats", "3"}, "--repeats does not apply here"},
    {{"changing-shapes", "--batches", "3"}, "unknown option '--batches'"},
    {{"tiny-work", "--tiny-count", "0"}, "--tiny-count takes an integer"},
    {{"tiny-work", "--tiny-size", "x"}, "--tiny-size takes an integer"},
    {{"tiny-work", "--device-buffers", "slots"}, "unknown option '--device-buffers'"},
    {{"launch-chains", "--launch-chains", "5,5"}, "--launch-chains lists 5 twice"},
    {{"launch-chains", "--launch-chains", "off"}, "--launch-chains takes an integer"},
    {{"launch-chains", "--launch-repeats", "4"}, "--launch-repeats takes an integer in [5, "},
    {{"regime-map", "--map-sizes", "7"}, "--map-sizes takes an integer in [8, 8192], got 7"},
    {{"regime-map", "--host-memory", "pageable"}, "unknown option '--host-memory'"},
    {{"regime-map", "--m", "64"}, "unknown option '--m'"},
    {{"graph", "--dot", "/nonexistent-dir/graph.dot"}, "does not exist"},
    {{"graph", "--dot", "{dir}"}, "is a directory"},
    {{"graph", "--repeats", "3"}, "--repeats does not apply here"},
    {{"skip-join", "--streams", "1"}, "skip-join needs 2 or more streams"},
    {{"timeline", "--timeline"}, "unknown option '--timeline'"},  // its bad values: test_timeline_options
    {{"everything"}, "unknown subcommand 'everything'"},
};

TEST(Stage04Cli, BadOptionsExit2WithOneClearLine) {
  for (const testing::BadCase& bad : kBadOptions) {
    EXPECT_TRUE(testing::refuses_before_writing(CSG_STAGE04_BINARY, bad)) << ::testing::PrintToString(bad.args);
  }
}

TEST(Stage04Cli, BadOptionsAreRefusedBeforeLookingForAGpu) {
  // With every GPU hidden, a bad option still gives 2 (usage), not 77 (no device).
  for (const char* subcommand : {"costs", "tiny-work", "regime-map", "timeline"}) {
    const testing::ProcessResult run =
        testing::run_process({CSG_STAGE04_BINARY, subcommand, "--streams", "0"}, {"CUDA_VISIBLE_DEVICES="});
    EXPECT_EQ(run.exit_code, kExitUsage) << subcommand << ": " << run.err;
  }
}

TEST(Stage04Cli, TheStagesHelpListsEverySubcommand) {
  const testing::ProcessResult run = testing::run_process({CSG_STAGE04_BINARY, "--help"});
  EXPECT_EQ(run.exit_code, kExitOk);
  for (const char* name : {"costs", "node-updates", "changing-shapes", "tiny-work", "launch-chains", "regime-map",
                           "graph", "skip-join", "timeline"}) {
    EXPECT_TRUE(has(run.out, std::string("\n  ") + name + " ")) << "--help lacks " << name << "\n" << run.out;
  }
}

struct HelpCase {
  const char* subcommand;
  std::vector<const char*> offered;
  std::vector<const char*> not_offered;
};

TEST(Stage04Cli, EachSubcommandsHelpShowsItsFlagsOnly) {
  const std::vector<HelpCase> cases = {
      {"costs", {"--kernel", "--tf32", "--streams", "--device-buffers", "--host-memory", "--max-minutes"},
       {"--dot", "--tiny-count", "--launch-chains", "--trace"}},
      {"node-updates", {"--kernel", "--streams", "--batches"}, {"--dot", "--shape-requests", "--timeline-batches"}},
      {"changing-shapes", {"--shape-requests", "--shape-size", "--shape-rounds", "--kernel", "--streams"},
       {"--batches", "--m ", "--node-updates", "--tiny-size"}},
      {"tiny-work", {"--tiny-count", "--tiny-size", "--streams"}, {"--batches", "--kernel", "--device-buffers"}},
      {"launch-chains", {"--launch-chains", "--launch-repeats", "--batches"}, {"--tiny-count", "--dot"}},
      {"regime-map", {"--map-sizes", "--map-batches", "--map-cell-seconds", "--kernel"},
       {"--batches", "--host-memory", "--regime-map"}},
      {"graph", {"--dot", "--streams", "--batches"}, {"--max-minutes", "--trace"}},
      {"skip-join", {"--streams", "--batches"}, {"--skip-join", "--dot", "--max-minutes"}},
      {"timeline", {"--timeline-batches", "--trace", "--streams"}, {"--timeline ", "--dot", "--tiny-count"}},
  };
  for (const HelpCase& c : cases) {
    const testing::ProcessResult run = testing::run_process({CSG_STAGE04_BINARY, c.subcommand, "--help"});
    EXPECT_EQ(run.exit_code, kExitOk) << c.subcommand;
    EXPECT_TRUE(has(run.out, std::string("04_graph_capture_gemm ") + c.subcommand)) << run.out;
    for (const char* flag : c.offered) EXPECT_TRUE(has(run.out, flag)) << c.subcommand << " lacks " << flag;
    for (const char* flag : c.not_offered) EXPECT_FALSE(has(run.out, flag)) << c.subcommand << " offers " << flag;
  }
  // Pinned host memory is the default, as in the article's graph listing.
  EXPECT_TRUE(has(testing::run_process({CSG_STAGE04_BINARY, "costs", "--help"}).out, "(default: pinned)"));
}

#endif  // CSG_STAGE04_BINARY

}  // namespace
}  // namespace csg::graphs

namespace csg::graphs {
namespace {

VerifyResult part(bool passed, int batches, int failing_batch = -1) {
  VerifyResult v;
  v.passed = passed;
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

}  // namespace
}  // namespace csg::graphs
