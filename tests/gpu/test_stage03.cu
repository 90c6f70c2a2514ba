// Stage 03 end to end, as a user runs it: every variant (the serial
// baselines, the pool in both issue orders, every swept pool size, one stream
// per engine, the isolated sums) verifies every batch, whatever the kernel and
// the device layout, and the JSON reports the bound. The loops are the stage's
// own: nothing here issues work of its own.
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/errors.hpp"
#include "gpu_test.hpp"
#include "run_process.hpp"

namespace csg {
namespace {

class Stage03Binary : public testing::GpuTest {};

nlohmann::json run_stage03(const std::vector<std::string>& args, const testing::TempDir& dir) {
  std::vector<std::string> argv{CSG_STAGE03_BINARY, "--count-sweep", "off"};
  argv.insert(argv.end(), args.begin(), args.end());
  const testing::JsonRun run = testing::run_with_json(argv, dir, "03.json");
  EXPECT_EQ(run.exit_code, kExitOk) << run.out << run.err;
  if (!run.wrote_json()) {
    ADD_FAILURE() << "no JSON written\n" << run.err;
    return nlohmann::json::object();
  }
  return run.doc();
}

struct KernelLayout {
  std::string kernel;
  std::string device_buffers;
  std::string sweep;  // with slots, pool sizes whose least common multiple stays under the batch count
};

class Stage03Variants : public testing::GpuTest, public ::testing::WithParamInterface<KernelLayout> {};

TEST_P(Stage03Variants, EveryPoolSizeOrderAndEngineVariantVerifiesEveryBatch) {
  const auto& [kernel, layout, sweep] = GetParam();
  testing::TempDir dir;
  // 37 batches: not a multiple of any pool size; odd sizes: partial tiles everywhere.
  const nlohmann::json doc = run_stage03({"--batches", "37", "--m", "33", "--n", "17", "--k", "65", "--streams", "3",
                                          "--streams-sweep", sweep, "--kernel", kernel, "--device-buffers", layout,
                                          "--warmup", "0", "--repeats", "1"},
                                         dir);
  ASSERT_TRUE(doc.contains("measurements"));
  // A device slot per batch (per-batch, or slots for every pool size timed
  // once their least common multiple reaches the batch count): the isolated
  // sums can then be checked too.
  const bool per_batch = doc.at("config").at("device_slots") == 37;
  EXPECT_EQ(per_batch, layout == "per-batch") << "the sweep must keep the slots layout's slots shared";
  int checked = 0;
  for (const auto& m : doc.at("measurements")) {
    const bool whole_run = m.at("name") == "serial" || m.at("name") == "stream_pool" || m.at("name") == "engine_streams";
    const std::string name = m.at("name");
    if (name == "resource_alone" || name.ends_with("_first_op")) {
      // One resource's work alone (a bound's path), or batch 0's op alone: no complete output to check.
      EXPECT_TRUE(m.at("verified").is_null()) << m.dump();
    } else if (whole_run || per_batch) {
      EXPECT_EQ(m.at("verified"), true) << kernel << " " << layout << ": " << m.dump();
      ++checked;
    } else {
      EXPECT_TRUE(m.at("verified").is_null()) << "shared slots: the sums can't be checked per batch: " << m.dump();
    }
  }
  // 2 serial + 2 orders + 3 swept + engine streams (+ 4 sums with a slot per batch).
  EXPECT_EQ(checked, per_batch ? 12 : 8);
  EXPECT_EQ(doc.at("verification").at("passed"), true);
  EXPECT_EQ(doc.at("verification").at("variants_checked"), checked);
}

INSTANTIATE_TEST_SUITE_P(KernelsAndLayouts, Stage03Variants,
                         ::testing::Values(KernelLayout{"naive", "slots", "1,2,6"},
                                           KernelLayout{"naive", "per-batch", "1,8,32"},
                                           KernelLayout{"tiled", "slots", "1,2,6"},
                                           KernelLayout{"cublas", "per-batch", "1,8,32"}),
                         [](const ::testing::TestParamInfo<KernelLayout>& param_info) {
                           return param_info.param.kernel + "_" + (param_info.param.device_buffers == "slots" ? "slots" : "per_batch");
                         });

TEST_F(Stage03Binary, VerifiesEveryVariantAndReportsTheBound) {
  testing::TempDir dir;
  const testing::JsonRun run = testing::run_with_json(
      {CSG_STAGE03_BINARY, "--count-sweep", "off", "--batches", "37", "--m", "33", "--n", "17", "--k", "65", "--streams", "3",
       "--streams-sweep", "1,8,32", "--device-buffers", "per-batch", "--warmup", "1", "--repeats", "3"},
      dir, "03.json");
  ASSERT_EQ(run.exit_code, kExitOk) << run.out << run.err;
  EXPECT_NE(run.out.find("all 37 batches verified"), std::string::npos) << run.out;
  const nlohmann::json doc = run.doc();
  EXPECT_EQ(doc.at("stage"), "03_stream_pool_gemm");
  EXPECT_EQ(doc.at("config").at("streams"), 3);
  EXPECT_EQ(doc.at("config").at("device_slots"), 37);
  EXPECT_EQ(doc.at("verification").at("passed"), true);
  int pools = 0, sweeps = 0, serials = 0;
  for (const auto& m : doc.at("measurements")) {
    // A slot per batch: every variant with an output is checked, even the isolated sums.
    const std::string name = m.at("name");
    if (name == "resource_alone" || name.ends_with("_first_op")) {
      EXPECT_TRUE(m.at("verified").is_null()) << m.dump();
    } else {
      EXPECT_EQ(m.at("verified"), true) << m.dump();
    }
    EXPECT_EQ(m.at("samples"), 3);
    if (m.at("name") == "serial") ++serials;
    if (m.at("name") == "stream_pool") (m.at("params").at("sweep") == true ? sweeps : pools)++;
  }
  EXPECT_EQ(serials, 2);
  EXPECT_EQ(pools, 2);  // depth-first and breadth-first
  EXPECT_EQ(sweeps, 3);
  EXPECT_EQ(doc.at("config").at("kernel"), "naive");
  const auto& bounds = doc.at("bounds");
  EXPECT_EQ(bounds.at("kernel"), "naive");
  // The bound is the largest of its paths, and the regime names that path.
  const std::vector<std::pair<const char*, const char*>> paths = {{"kernel_path_ms", "kernels"},
                                                                  {"h2d_path_ms", "H2D copies"},
                                                                  {"d2h_path_ms", "D2H copies"},
                                                                  {"copies_both_ways_ms", "PCIe both ways"},
                                                                  {"host_issue_ms", "host issue"},
                                                                  {"stream_order_ms", "stream order"}};
  std::string largest;
  double largest_ms = -1.0;
  for (const auto& [key, name] : paths) {
    if (bounds.at(key).get<double>() > largest_ms) {
      largest_ms = bounds.at(key).get<double>();
      largest = name;
    }
  }
  EXPECT_DOUBLE_EQ(bounds.at("pipeline_bound_ms").get<double>(), largest_ms);
  EXPECT_EQ(bounds.at("limited_by"), largest);
  const std::string regime = largest == "kernels"        ? "compute-bound"
                             : largest == "host issue"   ? "launch-bound"
                             : largest == "stream order" ? "stream-order-bound"
                                                         : "PCIe-bound";
  EXPECT_EQ(bounds.at("regime"), regime);
  EXPECT_NEAR(bounds.at("percent_of_bound").get<double>(),
              100.0 * largest_ms / bounds.at("stream_pool_ms").get<double>(), 1e-9);
  // Every pool variant carries its own bound, from its own streams' resource runs.
  for (const auto& m : doc.at("measurements")) {
    const bool pipeline = m.at("name") == "stream_pool" || m.at("name") == "engine_streams";
    EXPECT_EQ(m.contains("bound"), pipeline) << m.dump();
    if (pipeline) EXPECT_GT(m.at("host_issue_ms").get<double>(), 0.0) << m.dump();
  }
}

// A bound bounds: at sizes where the old one-stream bound was beaten (small
// kernels that fill a few SMs, so that kernels of different streams run side
// by side) and at one where the copies count, no variant runs faster than its
// own bound by more than the noise the stage measured for it.
class Stage03Bound : public testing::GpuTest, public ::testing::WithParamInterface<std::vector<std::string>> {};

TEST_P(Stage03Bound, NoVariantBeatsItsOwnBound) {
  testing::TempDir dir;
  std::vector<std::string> args = GetParam();
  args.insert(args.end(), {"--warmup", "2", "--repeats", "7"});
  const nlohmann::json doc = run_stage03(args, dir);
  ASSERT_TRUE(doc.contains("measurements"));
  int bounded = 0;
  for (const auto& m : doc.at("measurements")) {
    if (!m.contains("bound")) continue;
    ++bounded;
    const double percent = m.at("bound").at("percent_of_bound").get<double>();
    const double tolerance = m.at("bound").at("tolerance").get<double>();
    EXPECT_LE(percent, 100.0 * (1.0 + tolerance)) << m.dump();
  }
  EXPECT_GE(bounded, 3) << "the pool in both orders, and one stream per engine";
}

INSTANTIATE_TEST_SUITE_P(
    Sizes, Stage03Bound,
    ::testing::Values(std::vector<std::string>{"--batches", "300", "--m", "128", "--n", "128", "--k", "128",
                                               "--streams", "8", "--streams-sweep", "2,32"},
                      std::vector<std::string>{"--batches", "40", "--m", "512", "--n", "512", "--k", "256",
                                               "--streams", "4", "--streams-sweep", "off", "--kernel", "tiled"},
                      // One and three batches whose ops last about as long as a timed region's fixed cost.
                      std::vector<std::string>{"--batches", "1", "--m", "96", "--n", "80", "--k", "40",
                                               "--streams-sweep", "off"},
                      std::vector<std::string>{"--batches", "3", "--m", "96", "--n", "80", "--k", "40",
                                               "--streams", "3", "--streams-sweep", "1,2"},
                      // Two tiny batches on pools of up to 32 streams: the fork and join of the pool cost
                      // more than the work, so the resources alone must be issued with the same ones.
                      std::vector<std::string>{"--batches", "2", "--m", "64", "--n", "48", "--k", "24",
                                               "--streams", "2", "--streams-sweep", "1,8,32"},
                      // One stream: its batches run one after another, so the stream order sets the bound,
                      // with ops longer than a launch, with tiny ones (paced by the launches), and pageable.
                      std::vector<std::string>{"--batches", "60", "--m", "256", "--n", "256", "--k", "256",
                                               "--streams", "1", "--streams-sweep", "1,2"},
                      std::vector<std::string>{"--batches", "20", "--m", "32", "--n", "32", "--k", "32",
                                               "--streams", "1", "--streams-sweep", "off"},
                      std::vector<std::string>{"--batches", "12", "--m", "256", "--n", "256", "--k", "256",
                                               "--streams", "1", "--host-memory", "pageable", "--streams-sweep",
                                               "off"}));

TEST_F(Stage03Binary, TheStreamCountSweepTimesVerifiesAndExplainsEveryPoolSize) {
  testing::TempDir dir;
  const testing::JsonRun run = testing::run_with_json(
      {CSG_STAGE03_BINARY, "--batches", "6", "--m", "16", "--n", "16", "--k", "16", "--streams-sweep", "off",
       "--count-sweep", "1,4,40,4", "--count-batches", "41", "--count-size", "24", "--warmup", "0", "--repeats", "2"},
      dir, "03.json");
  ASSERT_EQ(run.exit_code, kExitOk) << run.out << run.err;
  EXPECT_NE(run.out.find("stream count, all the way: 41 GEMMs of 24x24x24"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("why: "), std::string::npos) << run.out;
  const nlohmann::json doc = run.doc();
  const nlohmann::json& sweep = doc.at("stream_count");
  EXPECT_EQ(sweep.at("batches"), 41);
  EXPECT_EQ(sweep.at("verified"), true);
  ASSERT_EQ(sweep.at("points").size(), 3U);  // 4 given twice counts once
  std::set<std::string> digests;
  for (const auto& point : sweep.at("points")) {
    EXPECT_EQ(point.at("verified"), true) << point.dump();
    EXPECT_GT(point.at("host_issue_ms").get<double>(), 0.0);
    EXPECT_FALSE(point.at("limited_by").is_null()) << "each pool size has its own bound";
    digests.insert(point.at("digest").get<std::string>());
  }
  EXPECT_EQ(digests.size(), 1U) << "every pool size computes the same outputs";
  EXPECT_TRUE(sweep.at("conclusion").is_string());
}

TEST_F(Stage03Binary, APoolLargerThanTheBatchCountRunsAndWarns) {
  const testing::ProcessResult run =
      testing::run_process({CSG_STAGE03_BINARY, "--count-sweep", "off", "--batches", "3", "--m", "8", "--n", "8", "--k", "8", "--streams", "5",
                            "--streams-sweep", "off", "--warmup", "0", "--repeats", "1"});
  ASSERT_EQ(run.exit_code, kExitOk) << run.out << run.err;
  EXPECT_NE(run.out.find("--streams 5 is more than --batches 3: 2 stream(s) get no work"), std::string::npos)
      << run.out;
}

TEST_F(Stage03Binary, SlotsLayoutVerifiesThePoolAndMarksSharedSlotSumsNotApplicable) {
  testing::TempDir dir;
  const testing::JsonRun run = testing::run_with_json(
      {CSG_STAGE03_BINARY, "--count-sweep", "off", "--batches", "20", "--m", "64", "--n", "32", "--k", "16", "--streams", "4",
       "--streams-sweep", "off", "--warmup", "0", "--repeats", "2"},
      dir, "03.json");
  ASSERT_EQ(run.exit_code, kExitOk) << run.out << run.err;
  EXPECT_EQ(run.out.find("get no work"), std::string::npos) << run.out;
  const nlohmann::json doc = run.doc();
  EXPECT_EQ(doc.at("config").at("device_slots"), 4);
  for (const auto& m : doc.at("measurements")) {
    const bool is_sum = m.at("name") != "serial" && m.at("name") != "stream_pool" && m.at("name") != "engine_streams";
    if (is_sum) {
      EXPECT_TRUE(m.at("verified").is_null()) << m.dump();
    } else {
      EXPECT_EQ(m.at("verified"), true) << m.dump();
    }
  }
}

}  // namespace
}  // namespace csg
