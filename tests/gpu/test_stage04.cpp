// Stage 04's laboratory end to end, as a user runs each subcommand, at small
// sizes: exit 0 with every run verified and the JSON it writes (its
// "subcommand", its measurements, its extra objects); graph's --dot;
// skip-join's error and exit 1; conditional, pdl and startup end to end.
#include <gmock/gmock.h>

#include <map>
#include <set>
#include <string>

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

// conditional at a small size: every counter and output verified, and the
// JSON (every variant at every N, the fits, the verdicts, the SWITCH part's
// buckets). A driver without the node types exits 77: the test then skips.
class ConditionalTest : public testing::GpuTest {};

TEST_F(ConditionalTest, EveryLoopAndEveryBucketIsCountedAndVerified) {
  testing::TempDir dir;
  const testing::JsonRun run = testing::run_with_json(
      {CSG_STAGE04_BINARY, "conditional", "--cond-iterations", "1,5,40", "--cond-size", "24", "--cond-unroll-max",
       "5", "--cond-buckets", "8,16,40", "--cond-requests", "12", "--warmup", "1", "--repeats", "3"},
      dir, "04.json");
  if (run.exit_code == kExitNoDevice) GTEST_SKIP() << run.err;
  ASSERT_EQ(run.exit_code, kExitOk) << run.out << run.err;
  EXPECT_THAT(run.out, ::testing::HasSubstr("the WHILE node against each"));
  const nlohmann::json doc = run.doc();
  // Per body the WHILE node against four rivals, and the SWITCH part, each printed as it is carried.
  ASSERT_EQ(doc.at("verdicts").size(), 9u);
  for (const auto& verdict : doc.at("verdicts")) {
    EXPECT_THAT(run.out, ::testing::HasSubstr(verdict.at("sentence").get<std::string>()));
  }
  EXPECT_EQ(doc.at("subcommand"), "conditional");
  EXPECT_EQ(doc.at("verification").at("passed"), true);
  // 2 bodies x 3 N x 5 variants, less the unrolled graph at N = 40 (twice), and the two SWITCH runs.
  EXPECT_EQ(doc.at("measurements").size(), 2u * 3u * 5u - 2u + 2u);
  for (const auto& m : doc.at("measurements")) {
    EXPECT_EQ(m.at("verified"), true) << m.dump();
    EXPECT_EQ(m.at("samples"), 3) << m.dump();
    EXPECT_GT(m.at("median_ms").get<double>(), 0.0) << m.dump();
  }
  const nlohmann::json& section = doc.at("conditional");
  // Every timed and warm-up run of every variant read its counter: per body
  // 3 N x 5 variants less one, 4 runs each; and the 2 SWITCH variants' 4 runs.
  EXPECT_EQ(section.at("counter_checks"), 2 * 14 * 4 + 2 * 4);
  for (const char* body : {"empty", "gemm"}) {
    const nlohmann::json& loop = section.at("loops").at(body);
    EXPECT_EQ(loop.at("points").size(), 3u);
    EXPECT_TRUE(loop.at("fits").contains("while_node")) << loop.dump();
    EXPECT_FALSE(loop.at("points").at(2).contains("unrolled_ms"));
    EXPECT_TRUE(loop.at("points").at(1).contains("unrolled_instantiate_ms"));
  }
  const nlohmann::json& sw = section.at("switch");
  EXPECT_NE(sw.at("verdict"), "not_run");
  int served = 0;
  for (const auto& count : sw.at("per_bucket")) served += count.get<int>();
  EXPECT_EQ(served, 12);
}

// pdl at a tiny size: every way of both chains verified, the PDL graph's
// edges all programmatic, and the JSON's section; skipped below compute
// capability 9.0 (the run exits 77).
class PdlTest : public testing::GpuTest {};

TEST_F(PdlTest, EveryWayOfBothChainsIsVerifiedAndTheGraphsEdgesAreProgrammatic) {
  testing::TempDir dir;
  const testing::JsonRun run = testing::run_with_json(
      {CSG_STAGE04_BINARY, "pdl", "--batches", "7", "--m", "33", "--n", "17", "--k", "65", "--pdl-pairs", "6",
       "--warmup", "1", "--repeats", "3"},
      dir, "pdl.json");
  if (run.exit_code == kExitNoDevice) GTEST_SKIP() << run.err;  // below compute capability 9.0
  ASSERT_EQ(run.exit_code, kExitOk) << run.out << run.err;
  EXPECT_THAT(run.out, ::testing::HasSubstr("PDL"));

  const nlohmann::json doc = run.doc();
  EXPECT_EQ(doc.at("subcommand"), "pdl");
  EXPECT_TRUE(doc.at("verification").at("passed").get<bool>());
  std::set<std::string> names;
  for (const auto& m : doc.at("measurements")) {
    names.insert(m.at("name"));
    EXPECT_TRUE(m.at("verified").get<bool>()) << m.dump();
    EXPECT_GT(m.at("median_ms").get<double>(), 0.0) << m.dump();
  }
  for (const char* chain : {"gemm", "empty"}) {
    for (const char* way : {"stream_plain", "stream_pdl", "graph_plain", "graph_pdl", "alone"}) {
      EXPECT_TRUE(names.contains(std::string("pdl_") + chain + "_" + way)) << chain << " " << way;
    }
  }
  const nlohmann::json& pdl = doc.at("pdl");
  EXPECT_EQ(pdl.at("gemm").at("kernels"), 7);
  EXPECT_EQ(pdl.at("gemm").at("programmatic_edges"), 6);
  EXPECT_EQ(pdl.at("gemm").at("graph_edges"), 6);
  EXPECT_EQ(pdl.at("gemm").at("plain_programmatic_edges"), 0);
  EXPECT_EQ(pdl.at("empty").at("kernels"), 12);
  EXPECT_EQ(pdl.at("empty").at("programmatic_edges"), 11);
  const std::set<std::string> verdicts = {"saves", "gap_is_noise", "no_gain", "costs"};
  for (const char* chain : {"gemm", "empty"}) {
    EXPECT_FALSE(pdl.at(chain).contains("failure")) << pdl.at(chain).dump();
    EXPECT_TRUE(verdicts.contains(pdl.at(chain).at("streams").at("verdict").get<std::string>()));
    EXPECT_TRUE(verdicts.contains(pdl.at(chain).at("graph").at("verdict").get<std::string>()));
  }
  // Both chains, on streams and in the graph (and a chain's hold, where the host was slower than it).
  std::set<std::string> ids;
  for (const auto& verdict : doc.at("verdicts")) ids.insert(verdict.at("id").get<std::string>());
  for (const char* id : {"pdl.gemm.streams", "pdl.gemm.graph", "pdl.empty.streams", "pdl.empty.graph"}) {
    EXPECT_TRUE(ids.contains(id)) << id;
  }
}

// startup at a small size: every bucket graph of every layout launched and
// verified, and the JSON (its rows, their sizes, the budget's verdict); no
// assertion on any time except that each was measured.
class StartupTest : public testing::GpuTest {};

// Alone: its graph memory is read with cudaMemGetInfo, which every process on the GPU moves.
TEST_F(StartupTest, EveryBucketGraphOfEveryLayoutIsBuiltAndVerifiedAlone) {
  testing::TempDir dir;
  const testing::JsonRun run = testing::run_with_json(
      {CSG_STAGE04_BINARY, "startup", "--startup-buckets", "2,9", "--startup-max-batches", "9", "--startup-size",
       "16", "--startup-rounds", "2", "--startup-requests", "500", "--streams", "3", "--startup-budget-ms",
       "100000"},
      dir, "04.json");
  ASSERT_EQ(run.exit_code, kExitOk) << run.out << run.err;
  const nlohmann::json doc = run.doc();
  EXPECT_EQ(doc.at("subcommand"), "startup");
  const nlohmann::json& startup = doc.at("startup");
  ASSERT_EQ(startup.at("rows").size(), 2u);
  const nlohmann::json& two = startup.at("rows")[0];
  EXPECT_EQ(two.at("sizes"), (std::vector<int>{5, 9}));
  EXPECT_EQ(two.at("batches_captured"), 14);
  const nlohmann::json& nine = startup.at("rows")[1];
  EXPECT_EQ(nine.at("batches_captured"), 45);  // 1 + 2 + ... + 9
  EXPECT_DOUBLE_EQ(nine.at("padding_waste").at("uniform").get<double>(), 0.0);
  for (const nlohmann::json* row : {&two, &nine}) {
    for (const char* layout : {"shared", "separate"}) {
      const nlohmann::json& cell = row->at(layout);
      EXPECT_EQ(cell.at("verified"), true) << layout << " " << cell.dump();
      EXPECT_EQ(cell.at("batches_checked"), 2 * row->at("batches_captured").get<int>()) << "two rounds";
      EXPECT_EQ(cell.at("rounds"), 2);
      EXPECT_GT(cell.at("capture_ms").get<double>(), 0.0);
      EXPECT_GT(cell.at("instantiate_ms").get<double>(), 0.0);
      EXPECT_GT(cell.at("upload_ms").get<double>(), 0.0);
    }
  }
  // The buffers' bytes are counted: the shared pool holds 9 batches, the separate buffers 1 + 2 + ... + 9.
  const long long shared_bytes = nine.at("shared").at("buffer_bytes").get<long long>();
  EXPECT_GT(shared_bytes, 0) << "the shared pool's allocation";
  EXPECT_GT(nine.at("separate").at("buffer_bytes").get<long long>(), 4 * shared_bytes) << nine.dump();
  // The first build: the most buckets (9) on the shared pool, before the rows, verified.
  const nlohmann::json& first = startup.at("first_build");
  EXPECT_EQ(first.at("buckets"), 9);
  EXPECT_EQ(first.at("layout"), "shared");
  EXPECT_EQ(first.at("batches_captured"), 45);
  EXPECT_EQ(first.at("verified"), true) << first.dump();
  EXPECT_EQ(first.at("batches_checked"), 45);
  EXPECT_GT(first.at("instantiate_ms").get<double>(), 0.0);
  EXPECT_GE(first.at("graph_bytes").get<long long>(), 0) << "execs take device memory, never give it";
  EXPECT_EQ(startup.at("first_over_budget").at("shared"), nullptr);
  EXPECT_EQ(startup.at("most_within_budget").at("shared"), 9);
  EXPECT_EQ(doc.at("verification").at("passed"), true);
  int launches = 0, first_builds = 0;
  for (const auto& m : doc.at("measurements")) {
    if (m.at("name") == "startup_first_build") ++first_builds;
    if (m.at("name") != "startup_launches") continue;
    EXPECT_EQ(m.at("verified"), true) << m.dump();
    ++launches;
  }
  EXPECT_EQ(launches, 4);
  EXPECT_EQ(first_builds, 1);
  EXPECT_THAT(run.out, ::testing::AllOf(::testing::HasSubstr("the process's first build of 9 graphs took"),
                                        ::testing::HasSubstr("no bucket count exceeded the 100000 ms budget")));
  std::vector<std::string> ids;
  for (const auto& verdict : doc.at("verdicts")) ids.push_back(verdict.at("id").get<std::string>());
  EXPECT_THAT(ids, ::testing::ElementsAre("startup.budget", "startup.parts", "startup.first_build", "startup.memory"));
  EXPECT_EQ(doc.at("verdicts").at(0).at("outcome"), "none_over");
}

}  // namespace gpu_stage04
}  // namespace csg

#endif  // CSG_STAGE04_BINARY
