// Stage 04 end to end, as a user runs it, at small sizes: exit 0 with every
// run verified and the JSON it writes; --dot; --skip-join's error and exit 1.
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "base/errors.hpp"
#include "gpu_test.hpp"
#include "run_process.hpp"

#ifdef CSG_STAGE04_BINARY

namespace csg {
namespace {

class Stage04Test : public testing::GpuTest {};

const std::vector<std::string> kTiny = {"--batches", "37", "--m", "33", "--n", "17", "--k", "65", "--warmup", "1",
                                        "--repeats", "3", "--tiny-count", "40", "--tiny-size", "16",
                                        "--launch-chains", "4,40,400", "--launch-repeats", "5",
                                        "--shape-requests", "6", "--shape-max-batches", "9", "--shape-size", "16",
                                        "--shape-rounds", "1"};

std::vector<std::string> with(std::vector<std::string> extra) {
  std::vector<std::string> argv{CSG_STAGE04_BINARY};
  argv.insert(argv.end(), kTiny.begin(), kTiny.end());
  argv.insert(argv.end(), extra.begin(), extra.end());
  return argv;
}

// A bound bounds at one and at three batches of tiny GEMMs, where each op
// takes about as long as a timed region's fixed cost: the fill and drain must
// leave that cost out, or the bound comes out longer than the run. And at two
// batches on 32 streams, where the pool's fork and join cost more than the
// work: the resources alone must be issued with the same fork and join. And at
// twelve on one stream, where the pool's stream order sets its bound.
TEST_F(Stage04Test, TheBoundsHoldAtOneAndAtThreeTinyBatches) {
  for (const auto& [batches, streams] :
       {std::pair{"1", "8"}, std::pair{"3", "8"}, std::pair{"2", "32"}, std::pair{"12", "1"}}) {
    testing::TempDir dir;
    const testing::JsonRun run = testing::run_with_json(
        {CSG_STAGE04_BINARY, "--batches", batches, "--streams", streams, "--m", "96", "--n", "80", "--k", "40",
         "--repeats", "15",
         "--launch-chains", "off", "--shape-requests", "0", "--node-updates", "off", "--tiny-count", "10"},
        dir, "04.json");
    ASSERT_EQ(run.exit_code, kExitOk) << run.out << run.err;
    EXPECT_EQ(run.out.find("FASTER THAN ITS BOUND"), std::string::npos) << run.out;
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

TEST_F(Stage04Test, WritesEveryMeasurementAndTheGraphStructure) {
  testing::TempDir dir;
  const testing::JsonRun run = testing::run_with_json(with({"--streams", "3"}), dir, "04.json");
  ASSERT_EQ(run.exit_code, kExitOk) << run.out << run.err;
  EXPECT_NE(run.out.find("all 37 batches verified"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("break-even"), std::string::npos) << run.out;

  const nlohmann::json doc = run.doc();
  EXPECT_EQ(doc.at("schema"), "cuda-streams-graphs/result/v1");
  EXPECT_EQ(doc.at("stage"), "04_graph_capture_gemm");
  EXPECT_EQ(doc.at("config").at("streams"), 3);
  EXPECT_EQ(doc.at("config").at("host_memory"), "pinned");
  EXPECT_EQ(doc.at("verification").at("passed"), true);
  EXPECT_EQ(doc.at("verification").at("batches_checked"), 37);

  // The launch-cost study: every chain length, every figure, checked, fitted.
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
  EXPECT_NE(run.out.find("what one launch costs"), std::string::npos);

  std::set<std::string> names;
  // Verified wherever the stage checked an output; null exactly where there is none to check.
  const std::set<std::string> checked = {"first_launch",     "relaunch",          "launch_after_upload",
                                         "graph_replay",     "stream_pool",       "update_exec",
                                         "recapture_instantiate", "tiny_empty_streams", "tiny_empty_graph",
                                         "tiny_gemm_streams", "tiny_gemm_graph",  "tiny_gemm_graph_launch_cpu",
                                         "changing_shapes",  "node_update"};
  std::map<std::string, double> median;
  for (const auto& m : doc.at("measurements")) {
    const std::string name = m.at("name");
    names.insert(name);
    median.emplace(name, m.at("median_ms").get<double>());
    // The changing shapes sum a sequence per round (--shape-rounds 1): one sample each.
    const bool shapes = name == "changing_shapes";
    EXPECT_EQ(m.at("samples"), shapes ? 1 : 3) << m.dump();
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
  for (const char* name : {"capture", "instantiate", "upload", "first_launch", "graph_replay", "stream_pool",
                           "issue_streams_cpu", "issue_graph_cpu", "tiny_empty_streams", "tiny_empty_graph",
                           "tiny_gemm_streams", "tiny_gemm_graph", "tiny_gemm_graph_launch_cpu", "update_exec",
                           "recapture_instantiate"}) {
    EXPECT_EQ(names.count(name), 1u) << "no measurement " << name;
  }
  for (const auto& m : doc.at("measurements")) {
    if (m.at("name") == "capture" || m.at("name") == "instantiate") EXPECT_TRUE(m.at("verified").is_null());
    if (m.at("name") == "graph_replay" || m.at("name") == "stream_pool") EXPECT_EQ(m.at("verified"), true);
    if (m.at("name") == "tiny_gemm_graph_launch_cpu") EXPECT_EQ(m.at("verified"), true);  // outputs checked
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
  ASSERT_EQ(doc.at("updates").size(), 2u);
  EXPECT_EQ(doc.at("updates")[0].at("allowed"), true);
  EXPECT_EQ(doc.at("updates")[1].at("allowed"), false);
  EXPECT_NE(doc.at("updates")[1].at("result").get<std::string>().find("TopologyChanged"), std::string::npos);
}

TEST_F(Stage04Test, PerBatchBuffersAndPageableMemoryVerify) {
  const testing::ProcessResult run =
      testing::run_process(with({"--streams", "8", "--device-buffers", "per-batch", "--host-memory", "pageable"}));
  EXPECT_EQ(run.exit_code, kExitOk) << run.out << run.err;
}

TEST_F(Stage04Test, DotWritesTheGraph) {
  testing::TempDir dir;
  const testing::ProcessResult run = testing::run_process(with({"--streams", "2", "--dot", dir.file("g.dot")}));
  ASSERT_EQ(run.exit_code, kExitOk) << run.err;
  const std::string text = testing::read_text(dir.file("g.dot"));
  EXPECT_NE(text.find("digraph"), std::string::npos);
}

TEST_F(Stage04Test, SkipJoinReportsTheUnjoinedCaptureAndExits1) {
  testing::TempDir dir;
  const testing::ProcessResult run = testing::run_process(with({"--skip-join", "--json", dir.file("04.json")}));
  EXPECT_EQ(run.exit_code, kExitFailure) << run.out << run.err;
  EXPECT_NE(run.out.find("cudaErrorStreamCaptureUnjoined"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("never joined back"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("no pool stream is capturing"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("gave 111 nodes"), std::string::npos) << run.out;
}

}  // namespace
}  // namespace csg

#endif  // CSG_STAGE04_BINARY
