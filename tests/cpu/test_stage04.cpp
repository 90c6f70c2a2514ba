// Stage 04's pieces that need no GPU: every sentence it prints about its
// figures, each branch on made-up figures; the JSON built from made-up
// measurements (break-even from its own fields, the bounds of both GPU
// variants); and its own options, through the binary as a user runs it: bad
// values exit 2 with one line naming the flag, before any CUDA call, and
// write no file.
#include <gtest/gtest.h>

#include <algorithm>

#include "04_graph_capture_gemm/conclusions.hpp"
#include "04_graph_capture_gemm/report.hpp"
#include "base/errors.hpp"
#include "made_up.hpp"
#include "run_process.hpp"
#include "usage_checks.hpp"

namespace csg::graphs {
namespace {

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

using testing::ms;

// A run of 1000 batches on 8 streams where the host's issue bounds the streams.
GraphStageRun made_up_run() {
  GraphStageRun run;
  run.streams = 8;
  run.device_buffers = "slots";
  run.article_check.passed = true;
  run.lifecycle = {ms(0.5), ms(0.7), ms(16.0), ms(16.0), ms(0.3), ms(16.0), {}, {}, {}};
  run.replay.graph_replay = ms(5.7);
  run.replay.stream_pool = ms(7.0);
  run.replay.issue_streams_cpu = ms(9.4);
  run.replay.issue_graph_cpu = ms(0.4);
  run.replay.replay_issue = ms(0.4);
  run.replay.pool_issue = ms(6.9);
  run.replay.sums = {ms(2.0), ms(6.0), ms(2.0)};
  run.replay.stream_alone = {ms(4.0), ms(2.1), ms(2.1), ms(3.0)};
  run.replay.graph_alone = {ms(3.5), ms(2.0), ms(2.0), ms(2.9)};
  run.updates = {ms(0.6), ms(0.25), ms(0.06), {}, {}, {}, std::nullopt, {}};
  run.tiny_config = {1000, 64, HostMemory::pinned, 1};
  run.tiny.empty_streams = ms(3.8);
  run.tiny.empty_graph = ms(0.9);
  run.tiny.gemm_streams = ms(3.9);
  run.tiny.gemm_graph = ms(0.6);
  run.tiny.gemm_graph_launch_cpu = ms(0.02);
  run.tiny.empty_checked = true;
  for (VerifyResult* check : {&run.lifecycle.first_launch_check, &run.lifecycle.relaunch_check,
                              &run.lifecycle.uploaded_check, &run.replay.graph_check, &run.replay.streams_check,
                              &run.updates.updated_check, &run.updates.reinstantiated_check,
                              &run.tiny.gemm_streams_check, &run.tiny.gemm_graph_check, &run.tiny.gemm_launch_check}) {
    check->passed = true;
  }
  run.options.work.batches = 1000;
  return run;
}

TEST(Stage04Report, TheJsonsFiguresFollowFromEachOther) {
  const GraphStageRun run = made_up_run();
  const StageResult result = graph_stage_result("04_graph_capture_gemm", DeviceInfo{}, run);
  const nlohmann::json doc = graph_stage_json(result, run);
  auto median = [&](const std::string& name) {
    for (const auto& m : doc.at("measurements")) {
      if (m.at("name") == name) return m.at("median_ms").get<double>();
    }
    ADD_FAILURE() << "no " << name;
    return 0.0;
  };
  const auto& bounds = doc.at("bounds");
  EXPECT_NEAR(bounds.at("break_even_replays").get<double>(),
              (median("capture") + median("instantiate")) / (median("issue_streams_cpu") - median("issue_graph_cpu")),
              1e-9);
  // The streams' run can't end before the host queued it: 6.9 ms of issue is its bound.
  EXPECT_EQ(bounds.at("stream_pool_limited_by"), "host issue");
  EXPECT_NEAR(bounds.at("stream_pool_bound_ms").get<double>(), 6.9, 1e-9);
  // The replay is bound by its kernels alone, replayed as a graph (3.5) plus fill and drain.
  EXPECT_EQ(bounds.at("graph_replay_limited_by"), "kernels");
  EXPECT_NEAR(bounds.at("graph_replay_bound_ms").get<double>(), 3.5 + 2.0 / 1000 + 2.0 / 1000, 1e-9);
  EXPECT_NEAR(bounds.at("replay_over_stream_pool").get<double>(), median("graph_replay") / median("stream_pool"), 1e-9);
  for (const auto& m : doc.at("measurements")) {
    const std::string name = m.at("name");
    const bool checked = name == "first_launch" || name == "relaunch" || name == "launch_after_upload" ||
                         name == "graph_replay" || name == "stream_pool" || name == "update_exec" ||
                         name == "recapture_instantiate" || name.rfind("tiny_", 0) == 0;
    if (checked) {
      EXPECT_EQ(m.at("verified"), true) << m.dump();
    } else {
      EXPECT_TRUE(m.at("verified").is_null()) << m.dump();
    }
    EXPECT_EQ(m.contains("bound"), name == "graph_replay" || name == "stream_pool") << name;
  }
}

TEST(Stage04Report, OneStreamBoundsTheStreamsByTheirOrderAndSaysWhyTheReplaysBoundReadsLow) {
  // 100 batches on one stream: each batch's share of the sums is 0.02 + 0.06 + 0.02 ms,
  // so the stream runs 10 ms of work in a row, more than any resource alone or the issue.
  GraphStageRun run = made_up_run();
  run.streams = 1;
  run.options.work.batches = 100;
  run.replay.stream_alone = {ms(6.0), ms(2.0), ms(2.0), ms(4.0)};  // on one stream: the sums
  run.replay.pool_issue = ms(0.8);
  run.replay.stream_pool = ms(10.4);
  run.replay.graph_replay = ms(10.3);
  const StageResult result = graph_stage_result("04_graph_capture_gemm", DeviceInfo{}, run);
  const nlohmann::json bounds = graph_stage_json(result, run).at("bounds");
  EXPECT_EQ(bounds.at("stream_pool_limited_by"), "stream order");
  EXPECT_NEAR(bounds.at("stream_pool_bound_ms").get<double>(), 100 * (0.02 + 0.06 + 0.02), 1e-9);
  EXPECT_EQ(bounds.at("graph_replay_limited_by"), "kernels") << "a replay has no stream order";
  std::ostringstream out;
  print_graph_stage(out, result, run);
  EXPECT_NE(out.str().find("limited by stream order (the busiest stream's 100 batches one after another"),
            std::string::npos)
      << out.str();
  EXPECT_NE(out.str().find("the replay's bound has no stream order"), std::string::npos) << out.str();
  // With 8 streams the host's issue bounds the streams, and nothing is said about the stream order.
  const GraphStageRun eight = made_up_run();
  std::ostringstream eight_out;
  print_graph_stage(eight_out, graph_stage_result("04_graph_capture_gemm", DeviceInfo{}, eight), eight);
  EXPECT_EQ(eight_out.str().find("no stream order"), std::string::npos) << eight_out.str();
}

#ifdef CSG_STAGE04_BINARY

// Bad values of the stage's own options, each with what the one line on
// stderr must say ("{dir}": the run's own directory).
const std::vector<testing::BadCase> kBadOptions = {
    {{"--streams", "0"}, "--streams takes an integer in [1, 1024]"},
    {{"--streams", "abc"}, "--streams takes an integer"},
    {{"--streams", "1025"}, "--streams takes an integer in [1, 1024]"},
    {{"--device-buffers", "foo"}, "--device-buffers takes one of slots|per-batch"},
    {{"--dot", "/nonexistent-dir/graph.dot"}, "does not exist"},
    {{"--dot", "{dir}"}, "is a directory"},
    {{"--tiny-count", "0"}, "--tiny-count takes an integer"},
    {{"--tiny-size", "x"}, "--tiny-size takes an integer"},
    {{"--skip-join", "--streams", "1"}, "--skip-join needs --streams 2 or more"},
};

TEST(Stage04Cli, BadOptionsExit2WithOneClearLine) {
  for (const testing::BadCase& bad : kBadOptions) {
    EXPECT_TRUE(testing::refuses_before_writing(CSG_STAGE04_BINARY, bad)) << ::testing::PrintToString(bad.args);
  }
}

TEST(Stage04Cli, BadOptionsAreRefusedBeforeLookingForAGpu) {
  // With every GPU hidden, a bad option still gives 2 (usage), not 77 (no device).
  const testing::ProcessResult run =
      testing::run_process({CSG_STAGE04_BINARY, "--streams", "0"}, {"CUDA_VISIBLE_DEVICES="});
  EXPECT_EQ(run.exit_code, kExitUsage) << run.err;
}

TEST(Stage04Cli, HelpListsTheStageOptions) {
  const testing::ProcessResult run = testing::run_process({CSG_STAGE04_BINARY, "--help"});
  EXPECT_EQ(run.exit_code, kExitOk);
  for (const char* flag : {"--streams", "--device-buffers", "--dot", "--skip-join", "--tiny-count", "--tiny-size"}) {
    EXPECT_NE(run.out.find(flag), std::string::npos) << "--help lacks " << flag;
  }
  // Pinned host memory is this stage's default, as in the article's graph listing.
  EXPECT_NE(run.out.find("(default: pinned)"), std::string::npos) << run.out;
}

#endif  // CSG_STAGE04_BINARY

}  // namespace
}  // namespace csg::graphs
