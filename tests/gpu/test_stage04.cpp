// Stage 04's laboratory end to end, as a user runs each subcommand, at small
// sizes: exit 0 with every run verified and the JSON it writes (its
// "subcommand", its measurements, its extra objects); graph's --dot;
// skip-join's error and exit 1.
#include <gmock/gmock.h>

#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "base/errors.hpp"
#include "gpu_test.hpp"
#include "run_process.hpp"

#ifdef CSG_STAGE04_BINARY

namespace csg {
namespace gpu_stage04 {

class Stage04Test : public testing::GpuTest {};

// The article's work at a small, odd size: 37 batches on 3 streams.
const std::vector<std::string> kTiny = {"--batches", "37", "--m", "33", "--n", "17", "--k", "65",
                                        "--streams", "3", "--warmup", "1", "--repeats", "3"};

std::vector<std::string> command(const std::string& subcommand, const std::vector<std::string>& extra,
                                 bool article_work = true) {
  std::vector<std::string> argv{CSG_STAGE04_BINARY, subcommand};
  if (article_work) argv.insert(argv.end(), kTiny.begin(), kTiny.end());
  argv.insert(argv.end(), extra.begin(), extra.end());
  return argv;
}

// Every measurement named in the document, with its median.
std::map<std::string, double> medians(const nlohmann::json& doc) {
  std::map<std::string, double> found;
  for (const auto& m : doc.at("measurements")) found.emplace(m.at("name"), m.at("median_ms").get<double>());
  return found;
}

// A bound bounds at one and at three batches of tiny GEMMs, where each op
// takes about as long as a timed region's fixed cost: the fill and drain must
// leave that cost out, or the bound comes out longer than the run. And at two
// batches on 32 streams, where the pool's fork and join cost more than the
// work: the resources alone must be issued with the same fork and join. And at
// twelve on one stream, where the pool's stream order sets its bound.
TEST_F(Stage04Test, TheCostsBoundsHoldAtOneAndAtThreeTinyBatches) {
  for (const auto& [batches, streams] :
       {std::pair{"1", "8"}, std::pair{"3", "8"}, std::pair{"2", "32"}, std::pair{"12", "1"}}) {
    testing::TempDir dir;
    const testing::JsonRun run = testing::run_with_json(
        {CSG_STAGE04_BINARY, "costs", "--batches", batches, "--streams", streams, "--m", "96", "--n", "80", "--k",
         "40", "--repeats", "15"},
        dir, "04.json");
    ASSERT_EQ(run.exit_code, kExitOk) << run.out << run.err;
    EXPECT_THAT(run.out, ::testing::Not(::testing::HasSubstr("FASTER THAN ITS BOUND")));
    int bounded = 0;
    std::set<std::string> first_ops;
    const nlohmann::json doc = run.doc();  // held: a loop over a temporary's member would dangle
    for (const auto& m : doc.at("measurements")) {
      if (m.at("name").get<std::string>().ends_with("_first_op")) first_ops.insert(m.at("name"));
      if (!m.contains("bound")) continue;
      ++bounded;
      EXPECT_LE(m.at("bound").at("percent_of_bound").get<double>(),
                100.0 * (1.0 + m.at("bound").at("tolerance").get<double>()))
          << batches << " batches: " << m.dump();
    }
    EXPECT_EQ(bounded, 2) << "the replay and the stream pool";
    EXPECT_EQ(first_ops, (std::set<std::string>{"h2d_first_op", "kernel_first_op", "d2h_first_op"}));
  }
}

// It holds both GPU variants to their bounds ("Bound" in its name): it runs alone.
TEST_F(Stage04Test, CostsWritesEveryMeasurementTheGraphAndNoVariantBeatsItsBound) {
  testing::TempDir dir;
  const testing::JsonRun run = testing::run_with_json(command("costs", {}), dir, "04.json");
  ASSERT_EQ(run.exit_code, kExitOk) << run.out << run.err;
  EXPECT_THAT(run.out, ::testing::HasSubstr("all 37 batches verified"));
  EXPECT_THAT(run.out, ::testing::HasSubstr("break-even"));

  const nlohmann::json doc = run.doc();
  EXPECT_EQ(doc.at("schema"), "cuda-streams-graphs/result/v2");
  EXPECT_EQ(doc.at("stage"), "04_graph_capture_gemm");
  EXPECT_EQ(doc.at("subcommand"), "costs");
  EXPECT_EQ(doc.at("config").at("streams"), 3);
  EXPECT_EQ(doc.at("config").at("host_memory"), "pinned");
  EXPECT_EQ(doc.at("verification").at("passed"), true);
  EXPECT_EQ(doc.at("verification").at("batches_checked"), 37);

  // Verified wherever the run checked an output; null exactly where there is none to check.
  const std::set<std::string> checked = {"first_launch", "relaunch", "launch_after_upload", "graph_replay",
                                         "stream_pool"};
  for (const auto& m : doc.at("measurements")) {
    const std::string name = m.at("name");
    EXPECT_EQ(m.at("samples"), 3) << m.dump();
    EXPECT_GT(m.at("median_ms").get<double>(), 0.0) << m.dump();
    if (checked.count(name) != 0) {
      EXPECT_EQ(m.at("verified"), true) << m.dump();
    } else {
      EXPECT_TRUE(m.at("verified").is_null()) << m.dump();
    }
    // The two GPU variants carry their own bound, and don't beat it by more than its noise.
    EXPECT_EQ(m.contains("bound"), name == "graph_replay" || name == "stream_pool") << name;
    if (m.contains("bound")) {
      EXPECT_LE(m.at("bound").at("percent_of_bound").get<double>(),
                100.0 * (1.0 + m.at("bound").at("tolerance").get<double>()))
          << m.dump();
    }
  }
  const std::map<std::string, double> median = medians(doc);
  for (const char* name : {"capture", "instantiate", "upload", "first_launch", "relaunch", "launch_after_upload",
                           "graph_replay", "stream_pool", "issue_streams_cpu", "issue_graph_cpu",
                           "issue_kernels_graph_cpu", "h2d_sum", "kernel_sum", "d2h_sum", "resource_alone"}) {
    EXPECT_EQ(median.count(name), 1u) << "no measurement " << name;
  }

  const auto& graph = doc.at("graph");
  EXPECT_EQ(graph.at("nodes"), 3 * 37);
  EXPECT_EQ(graph.at("kernel_nodes"), 37);
  EXPECT_EQ(graph.at("memcpy_nodes"), 74);
  EXPECT_EQ(graph.at("event_nodes"), 0);
  EXPECT_EQ(graph.at("roots"), 3);
  EXPECT_EQ(graph.at("leaves"), 3);
  // The break-even count is the formula applied to the JSON's own figures.
  const double saved = median.at("issue_streams_cpu") - median.at("issue_graph_cpu");
  if (saved > 0.0) {
    EXPECT_NEAR(doc.at("bounds").at("break_even_replays").get<double>(),
                (median.at("capture") + median.at("instantiate")) / saved, 1e-9);
  } else {
    EXPECT_TRUE(doc.at("bounds").at("break_even_replays").is_null());
  }
  EXPECT_NEAR(doc.at("bounds").at("replay_over_stream_pool").get<double>(),
              median.at("graph_replay") / median.at("stream_pool"), 1e-9);
}

TEST_F(Stage04Test, NodeUpdatesShowTheRefusedUpdateAndVerifyEverySwitch) {
  testing::TempDir dir;
  const testing::JsonRun run = testing::run_with_json(command("node-updates", {}), dir, "04.json");
  ASSERT_EQ(run.exit_code, kExitOk) << run.out << run.err;
  const nlohmann::json doc = run.doc();
  EXPECT_EQ(doc.at("subcommand"), "node-updates");
  ASSERT_EQ(doc.at("updates").size(), 2u);
  EXPECT_EQ(doc.at("updates")[0].at("allowed"), true);
  EXPECT_EQ(doc.at("updates")[1].at("allowed"), false);
  EXPECT_THAT(doc.at("updates")[1].at("result").get<std::string>(), ::testing::HasSubstr("TopologyChanged"));
  const nlohmann::json& nodes = doc.at("changing_shapes").at("node_updates");
  EXPECT_EQ(nodes.at("verified"), true) << nodes.dump();
  EXPECT_EQ(nodes.at("kernel_nodes"), 37);
  EXPECT_EQ(nodes.at("memcpy_nodes"), 74);
  EXPECT_GT(nodes.at("node_level_ms").get<double>(), 0.0) << "the naive kernel's nodes can be re-pointed";
  EXPECT_TRUE(doc.at("changing_shapes").at("sequence").is_null());
  const std::map<std::string, double> median = medians(doc);
  for (const char* name : {"update_exec", "update_call", "recapture_instantiate", "node_update"}) {
    EXPECT_EQ(median.count(name), 1u) << "no measurement " << name;
  }
  EXPECT_EQ(doc.at("verification").at("passed"), true);
}

TEST_F(Stage04Test, PerBatchBuffersAndPageableMemoryVerify) {
  for (const char* subcommand : {"costs", "node-updates"}) {
    const testing::ProcessResult run = testing::run_process(
        command(subcommand, {"--device-buffers", "per-batch", "--host-memory", "pageable"}));
    EXPECT_EQ(run.exit_code, kExitOk) << subcommand << "\n" << run.out << run.err;
  }
}

TEST_F(Stage04Test, TinyWorkCountsEveryLaunchAndVerifiesEveryGemm) {
  testing::TempDir dir;
  const testing::JsonRun run = testing::run_with_json(
      command("tiny-work", {"--tiny-count", "40", "--tiny-size", "16", "--streams", "3", "--repeats", "3"},
              /*article_work=*/false),
      dir, "04.json");
  ASSERT_EQ(run.exit_code, kExitOk) << run.out << run.err;
  const nlohmann::json doc = run.doc();
  EXPECT_EQ(doc.at("subcommand"), "tiny-work");
  EXPECT_EQ(doc.at("tiny").at("empty_graph_nodes"), 40);
  EXPECT_EQ(doc.at("tiny").at("gemm_graph_nodes"), 40);
  for (const auto& m : doc.at("measurements")) {
    EXPECT_EQ(m.at("verified"), true) << m.dump();
    EXPECT_EQ(m.at("samples"), 3) << m.dump();
  }
  EXPECT_EQ(medians(doc).size(), 5u);
  EXPECT_EQ(doc.at("verification").at("batches_checked"), 40);
  EXPECT_GT(doc.at("bounds").at("tiny_empty_graph_us_per_node").get<double>(), 0.0);
}

TEST_F(Stage04Test, LaunchChainsFitEveryFigureAndCheckEveryChain) {
  testing::TempDir dir;
  const testing::JsonRun run = testing::run_with_json(
      command("launch-chains", {"--launch-chains", "4,40,400", "--launch-repeats", "5"}), dir, "04.json");
  ASSERT_EQ(run.exit_code, kExitOk) << run.out << run.err;
  EXPECT_THAT(run.out, ::testing::HasSubstr("what one launch costs"));
  const nlohmann::json doc = run.doc();
  EXPECT_EQ(doc.at("subcommand"), "launch-chains");
  const nlohmann::json& launch = doc.at("launch_costs");
  EXPECT_EQ(launch.at("checked"), true) << launch.dump();
  ASSERT_EQ(launch.at("chains").size(), 3U);
  for (const auto& chain : launch.at("chains")) {
    for (const char* figure : {"stream_cpu", "stream_queued", "stream_end_to_end", "graph_cpu", "graph_queued",
                               "graph_end_to_end"}) {
      EXPECT_GT(chain.at(figure).at("median_ms").get<double>(), 0.0) << figure << " " << chain.dump();
      EXPECT_EQ(chain.at(figure).at("samples"), 15);  // 3 x 5: chains up to 1,000 ops
    }
  }
  EXPECT_EQ(launch.at("fits").at("graph_queued").at("points"), 3);
  EXPECT_GT(launch.at("steady").at("graph_launch_cpu").at("median_ms").get<double>(), 0.0);
  // The interleaved halves of the pairs: the article's work measured in rounds in this run.
  EXPECT_GT(launch.at("interleaved").at("graph_launch_cpu_ms").get<double>(), 0.0);
  EXPECT_GT(launch.at("interleaved").at("streams_issue_cpu_ms").get<double>(), 0.0);
  EXPECT_EQ(doc.at("verification").at("passed"), true);
}

TEST_F(Stage04Test, ChangingShapesVerifiesEveryRequestOfEveryWay) {
  testing::TempDir dir;
  const testing::JsonRun run = testing::run_with_json(
      command("changing-shapes",
              {"--shape-requests", "6", "--shape-max-batches", "9", "--shape-size", "16", "--shape-rounds", "1",
               "--streams", "3"},
              /*article_work=*/false),
      dir, "04.json");
  ASSERT_EQ(run.exit_code, kExitOk) << run.out << run.err;
  const nlohmann::json doc = run.doc();
  EXPECT_EQ(doc.at("subcommand"), "changing-shapes");
  const nlohmann::json& sequence = doc.at("changing_shapes").at("sequence");
  for (const char* way : {"streams", "recapture", "exec_update", "buckets"}) {
    EXPECT_EQ(sequence.at("ways").at(way).at("verified"), true) << way;
  }
  EXPECT_EQ(sequence.at("updates").at("applied_other_batches"), 0);
  EXPECT_TRUE(doc.at("changing_shapes").at("node_updates").is_null());
  int ways = 0;
  for (const auto& m : doc.at("measurements")) {
    EXPECT_EQ(m.at("name"), "changing_shapes");
    EXPECT_EQ(m.at("verified"), true) << m.dump();
    EXPECT_EQ(m.at("samples"), 1) << "one round: one sum per way";
    ++ways;
  }
  EXPECT_EQ(ways, 4);
}

TEST_F(Stage04Test, GraphWritesItsStructureAndTheDotFile) {
  testing::TempDir dir;
  const testing::JsonRun run =
      testing::run_with_json(command("graph", {"--m", "64", "--n", "48", "--k", "32", "--dot", dir.file("g.dot")},
                                     /*article_work=*/false),
                             dir, "04.json");
  ASSERT_EQ(run.exit_code, kExitOk) << run.out << run.err;
  EXPECT_THAT(testing::read_text(dir.file("g.dot")), ::testing::HasSubstr("digraph"));
  const nlohmann::json doc = run.doc();
  EXPECT_EQ(doc.at("subcommand"), "graph");
  EXPECT_EQ(doc.at("graph").at("dot_file"), dir.file("g.dot"));
  EXPECT_EQ(doc.at("graph").at("nodes"), 300) << "the article's 100 batches, on its 8 streams";
  EXPECT_EQ(doc.at("graph").at("chains"), 8);
  EXPECT_EQ(doc.at("verification").at("batches_checked"), 100);
  EXPECT_THAT(run.out, ::testing::HasSubstr("batch i was captured on stream i % 8"));
}

TEST_F(Stage04Test, SkipJoinReportsTheUnjoinedCaptureAndExits1) {
  testing::TempDir dir;
  const testing::JsonRun run = testing::run_with_json(
      {CSG_STAGE04_BINARY, "skip-join", "--batches", "37", "--m", "33", "--n", "17", "--k", "65", "--streams", "3"},
      dir, "04.json");
  EXPECT_EQ(run.exit_code, kExitFailure) << run.out << run.err;
  // The error, in plain words, what became of the streams, and the same capture with the join.
  for (const char* said :
       {"cudaErrorStreamCaptureUnjoined", "never joined back", "no pool stream is capturing", "gave 111 nodes"}) {
    EXPECT_THAT(run.out, ::testing::HasSubstr(said));
  }
  const nlohmann::json doc = run.doc();
  EXPECT_EQ(doc.at("subcommand"), "skip-join");
  EXPECT_EQ(doc.at("skip_join").at("end_capture_error"), "cudaErrorStreamCaptureUnjoined");
  EXPECT_EQ(doc.at("skip_join").at("recaptured_verified"), true);
}

}  // namespace gpu_stage04
}  // namespace csg

#endif  // CSG_STAGE04_BINARY
