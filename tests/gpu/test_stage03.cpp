// Stage 03's laboratory end to end, as a user runs it: every subcommand's
// variants (the serial baselines, the pool in each issue order, every swept
// pool size, one stream per engine, the isolated sums) verify every batch,
// whatever the kernel and the device layout, each JSON says which
// subcommand wrote it and keeps the old names for its figures, and no pool
// variant beats its own bound. Then the laboratory's shared loops and bound
// runs, called as the subcommands call them: nothing here issues work of
// its own.
#include <deque>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <nlohmann/json.hpp>

#include "03_stream_pool_gemm/lab/pool_experiment.hpp"
#include "base/errors.hpp"
#include "gpu_test.hpp"
#include "run_process.hpp"

namespace csg {
namespace gpu_stage03 {

class Stage03Binary : public testing::GpuTest {};

// What a subcommand wrote: its results JSON and its standard output.
struct Stage03Run {
  nlohmann::json doc = nlohmann::json::object();
  std::string out;
};

// `03_stream_pool_gemm <subcommand> <args> --json F` in a directory of its
// own, which must exit 0 and write a JSON that names its subcommand.
Stage03Run run_stage03(const std::string& subcommand, const std::vector<std::string>& args) {
  const testing::TempDir dir;
  std::vector<std::string> argv{CSG_STAGE03_BINARY, subcommand};
  argv.insert(argv.end(), args.begin(), args.end());
  const testing::JsonRun run = testing::run_with_json(argv, dir, "03.json");
  EXPECT_EQ(run.exit_code, kExitOk) << run.out << run.err;
  if (!run.wrote_json()) {
    ADD_FAILURE() << "no JSON written\n" << run.err;
    return {nlohmann::json::object(), run.out};
  }
  const nlohmann::json doc = run.doc();
  EXPECT_EQ(doc.at("subcommand"), subcommand);
  EXPECT_EQ(doc.at("stage"), "03_stream_pool_gemm");
  return {doc, run.out};
}

// Whether a measurement runs every batch to the end (so its check covers them all).
bool whole_run(const nlohmann::json& m) {
  return m.at("name") == "serial" || m.at("name") == "stream_pool" || m.at("name") == "engine_streams";
}

struct KernelLayout {
  std::string kernel;
  std::string device_buffers;
  std::string sweep;  // with slots, pool sizes whose least common multiple stays under the batch count
};

class Stage03Kernels : public testing::GpuTest, public ::testing::WithParamInterface<KernelLayout> {};

TEST_P(Stage03Kernels, EveryVariantVerifiesEveryBatch) {
  const auto& [kernel, layout, sweep] = GetParam();
  // 37 batches: not a multiple of any pool size; odd sizes: partial tiles everywhere.
  const nlohmann::json doc =
      run_stage03("kernels",
                  {"--batches", "37", "--m", "33", "--n", "17", "--k", "65", "--streams", "3", "--streams-sweep", sweep,
                   "--kernel", kernel, "--device-buffers", layout, "--warmup", "0", "--repeats", "1"}).doc;
  ASSERT_TRUE(doc.contains("measurements"));
  // A device slot per batch (per-batch, or slots for every pool size timed
  // once their least common multiple reaches the batch count): the isolated
  // sums can then be checked too.
  const bool per_batch = doc.at("config").at("device_slots") == 37;
  EXPECT_EQ(per_batch, layout == "per-batch") << "the sweep must keep the slots layout's slots shared";
  int checked = 0;
  int busiest = 0;
  for (const auto& m : doc.at("measurements")) {
    const std::string name = m.at("name");
    if (name == "resource_alone" || name.ends_with("_first_op")) {
      // One resource's work alone (a bound's path), or batch 0's op alone: no complete output to check.
      EXPECT_TRUE(m.at("verified").is_null()) << m.dump();
      if (name == "resource_alone" && m.at("params").at("resource") == "busiest_stream") ++busiest;
    } else if (whole_run(m) || per_batch) {
      EXPECT_EQ(m.at("verified"), true) << kernel << " " << layout << ": " << m.dump();
      ++checked;
    } else {
      EXPECT_TRUE(m.at("verified").is_null()) << "shared slots: the sums can't be checked per batch: " << m.dump();
    }
  }
  // 2 serial + the pool + 3 swept + engine streams (+ 4 sums with a slot per batch).
  EXPECT_EQ(checked, per_batch ? 11 : 7);
  EXPECT_EQ(busiest, 4) << "a busiest-stream run for the pool and for each swept size";
  EXPECT_EQ(doc.at("verification").at("passed"), true);
  EXPECT_EQ(doc.at("verification").at("variants_checked"), checked);
  EXPECT_EQ(doc.at("config").at("kernel"), kernel);
  EXPECT_EQ(doc.at("bounds").at("kernel"), kernel);
  for (const char* key : {"kernel_gflops", "stream_pool_ms", "pipeline_bound_ms", "engine_streams_ms", "limited_by",
                          "regime", "busiest_stream_ms", "speedup_vs_serial_pinned"}) {
    EXPECT_TRUE(doc.at("bounds").contains(key)) << key << ": the report's regime table reads it";
  }
  std::set<std::string> verdicts;
  for (const auto& verdict : doc.at("verdicts")) verdicts.insert(verdict.at("id").get<std::string>());
  for (const char* id : {"pool.vs_serial_pageable", "pool.vs_serial_pinned", "pool.bound", "pool.engine_streams",
                         "pool.regime", "pool.plateau"}) {
    EXPECT_EQ(verdicts.count(id), 1U) << id << " missing from " << doc.at("verdicts").dump();
  }
}

INSTANTIATE_TEST_SUITE_P(Kernels, Stage03Kernels,
                         ::testing::Values(KernelLayout{"naive", "slots", "1,2,6"},
                                           KernelLayout{"naive", "per-batch", "1,8,32"},
                                           KernelLayout{"tiled", "slots", "1,2,6"},
                                           KernelLayout{"cublas", "per-batch", "1,8,32"}),
                         [](const ::testing::TestParamInfo<KernelLayout>& param_info) {
                           return param_info.param.kernel + "_" +
                                  (param_info.param.device_buffers == "slots" ? "slots" : "per_batch");
                         });

TEST_F(Stage03Binary, OrderVerifiesBothOrdersAndNamesTheLimitingPath) {
  const Stage03Run run = run_stage03(
      "order", {"--batches", "37", "--m", "33", "--n", "17", "--k", "65", "--streams", "3", "--warmup", "1",
                "--repeats", "3"});
  EXPECT_THAT(run.out, ::testing::HasSubstr("all 37 batches verified"));
  EXPECT_THAT(run.out, ::testing::HasSubstr("breadth-first issue: "));
  EXPECT_EQ(run.doc.at("config").at("streams"), 3);
  EXPECT_EQ(run.doc.at("config").at("kernel"), "naive") << "the article's kernel";
  EXPECT_EQ(run.doc.at("verification").at("passed"), true);
  int pools = 0, serials = 0;
  std::set<std::string> orders;
  for (const auto& m : run.doc.at("measurements")) {
    EXPECT_EQ(m.at("samples"), 3);
    if (whole_run(m)) {
      EXPECT_EQ(m.at("verified"), true) << m.dump();
    }
    if (m.at("name") == "serial") ++serials;
    if (m.at("name") == "stream_pool") {
      ++pools;
      orders.insert(m.at("params").at("order").get<std::string>());
    }
    // Every pool variant carries its own bound, from its own streams' resource runs.
    EXPECT_EQ(m.contains("bound"), m.at("name") == "stream_pool") << m.dump();
    if (m.at("name") == "stream_pool") {
      EXPECT_GT(m.at("host_issue_ms").get<double>(), 0.0) << m.dump();
    }
  }
  EXPECT_EQ(serials, 2);
  EXPECT_EQ(pools, 2);
  EXPECT_EQ(orders, (std::set<std::string>{"depth_first", "breadth_first"}));
  const auto& bounds = run.doc.at("bounds");
  // The bound is the largest of its paths, and the regime names that path.
  const std::vector<std::pair<const char*, const char*>> paths = {{"kernel_path_ms", "kernels"},
                                                                  {"h2d_path_ms", "H2D copies"},
                                                                  {"d2h_path_ms", "D2H copies"},
                                                                  {"copies_both_ways_ms", "PCIe both ways"},
                                                                  {"host_issue_ms", "host issue"},
                                                                  {"stream_order_ms", "stream order"},
                                                                  {"busiest_stream_ms", "busiest stream"}};
  std::string largest;
  double largest_ms = -1.0;
  for (const auto& [key, name] : paths) {
    if (bounds.at(key).get<double>() > largest_ms) {
      largest_ms = bounds.at(key).get<double>();
      largest = name;
    }
  }
  EXPECT_GT(bounds.at("busiest_stream_ms").get<double>(), 0.0) << "measured on every pool";
  EXPECT_DOUBLE_EQ(bounds.at("pipeline_bound_ms").get<double>(), largest_ms);
  EXPECT_EQ(bounds.at("limited_by"), largest);
  const std::string regime = largest == "kernels"                                     ? "compute-bound"
                             : largest == "host issue"                                ? "launch-bound"
                             : largest == "stream order" || largest == "busiest stream" ? "stream-order-bound"
                                                                                      : "PCIe-bound";
  EXPECT_EQ(bounds.at("regime"), regime);
  EXPECT_NEAR(bounds.at("percent_of_bound").get<double>(),
              100.0 * largest_ms / bounds.at("stream_pool_ms").get<double>(), 1e-9);
}

TEST_F(Stage03Binary, OrderOnPageableMemorySaysWhetherThePoolOverlapped) {
  const Stage03Run run = run_stage03("order", {"--batches", "9", "--m", "40", "--n", "40", "--k", "40", "--streams",
                                                   "2", "--host-memory", "pageable", "--warmup", "0", "--repeats", "1"});
  EXPECT_EQ(run.doc.at("config").at("host_memory"), "pageable");
  EXPECT_THAT(run.out, ::testing::HasSubstr("pageable host memory: the pool took"));
  EXPECT_EQ(run.doc.at("verification").at("passed"), true);
}

TEST_F(Stage03Binary, EngineStreamsTimeThePoolAndOneStreamPerEngineEachWithItsPaths) {
  const Stage03Run run = run_stage03(
      "engine-streams", {"--batches", "13", "--m", "33", "--n", "17", "--k", "65", "--streams", "3", "--warmup", "0",
                         "--repeats", "2"});
  EXPECT_THAT(run.out, ::testing::HasSubstr("one stream per engine (H2D, kernels, D2H) took"));
  EXPECT_EQ(run.doc.at("config").at("kernel"), "cublas") << "its default";
  int bounded = 0;
  for (const auto& m : run.doc.at("measurements")) {
    EXPECT_NE(m.at("name"), "serial") << "no serial baselines here";
    if (m.contains("bound")) ++bounded;
  }
  EXPECT_EQ(bounded, 2) << "the pool and the engine streams";
  EXPECT_TRUE(run.doc.at("bounds").contains("engine_streams_ms"));
  EXPECT_FALSE(run.doc.at("bounds").contains("speedup_vs_serial_pinned"));
  EXPECT_EQ(run.doc.at("verification").at("passed"), true);
}

// A bound bounds: at sizes where the old one-stream bound was beaten (small
// kernels that fill a few SMs, so that kernels of different streams run side
// by side), at one where the copies count, and at short batches on one or
// two streams (where the busiest stream's measured path sets it), no variant
// runs faster than its own bound by more than the noise the stage measured
// for it.
struct BoundCase {
  std::string name;
  std::vector<std::string> args;  // the subcommand, then its flags
};

class Stage03Bound : public testing::GpuTest, public ::testing::WithParamInterface<BoundCase> {};

TEST_P(Stage03Bound, NoVariantBeatsItsOwnBound) {
  std::vector<std::string> args = GetParam().args;
  const std::string subcommand = args.front();
  args.erase(args.begin());
  args.insert(args.end(), {"--warmup", "2", "--repeats", "7"});
  const nlohmann::json doc = run_stage03(subcommand, args).doc;
  ASSERT_TRUE(doc.contains("measurements"));
  int bounded = 0;
  for (const auto& m : doc.at("measurements")) {
    if (!m.contains("bound")) continue;
    ++bounded;
    const double percent = m.at("bound").at("percent_of_bound").get<double>();
    const double tolerance = m.at("bound").at("tolerance").get<double>();
    EXPECT_LE(percent, 100.0 * (1.0 + tolerance)) << m.dump();
  }
  EXPECT_GE(bounded, 2) << "the pool, and one stream per engine or the other order";
}

INSTANTIATE_TEST_SUITE_P(
    Sizes, Stage03Bound,
    ::testing::Values(
        BoundCase{"small_kernels_on_8_and_32_streams",
                  {"kernels", "--kernel", "naive", "--batches", "300", "--m", "128", "--n", "128", "--k", "128",
                   "--streams", "8", "--streams-sweep", "2,32"}},
        BoundCase{"tiled_where_copies_count",
                  {"kernels", "--batches", "40", "--m", "512", "--n", "512", "--k", "256", "--streams", "4",
                   "--kernel", "tiled"}},
        // One and three batches whose ops last about as long as a timed region's fixed cost.
        BoundCase{"one_batch",
                  {"kernels", "--kernel", "naive", "--batches", "1", "--m", "96", "--n", "80", "--k", "40"}},
        BoundCase{"three_batches",
                  {"kernels", "--kernel", "naive", "--batches", "3", "--m", "96", "--n", "80", "--k", "40",
                   "--streams", "3", "--streams-sweep", "1,2"}},
        // Two tiny batches on pools of up to 32 streams: the fork and join of the pool cost
        // more than the work, so the resources alone must be issued with the same ones.
        BoundCase{"two_tiny_batches_up_to_32_streams",
                  {"kernels", "--kernel", "naive", "--batches", "2", "--m", "64", "--n", "48", "--k", "24",
                   "--streams", "2", "--streams-sweep", "1,8,32"}},
        // One stream: its batches run one after another, so the stream order sets the bound,
        // with ops longer than a launch, with tiny ones (paced by the launches), and pageable.
        BoundCase{"one_stream",
                  {"kernels", "--kernel", "naive", "--batches", "60", "--m", "256", "--n", "256", "--k", "256",
                   "--streams", "1", "--streams-sweep", "1,2"}},
        BoundCase{"one_stream_tiny_ops",
                  {"order", "--batches", "20", "--m", "32", "--n", "32", "--k", "32", "--streams", "1"}},
        BoundCase{"one_stream_pageable",
                  {"order", "--batches", "12", "--m", "256", "--n", "256", "--k", "256", "--streams", "1",
                   "--host-memory", "pageable"}},
        // Short batches on one and two streams: each op waits for the one before on another
        // engine, which the busiest stream's run alone measures.
        BoundCase{"short_batches_on_1_and_2_streams",
                  {"kernels", "--kernel", "naive", "--batches", "1000", "--m", "128", "--n", "128", "--k", "128",
                   "--streams", "1", "--streams-sweep", "2"}},
        BoundCase{"engine_streams_cublas",
                  {"engine-streams", "--batches", "40", "--m", "512", "--n", "512", "--k", "256", "--streams", "4"}}),
    [](const ::testing::TestParamInfo<BoundCase>& param_info) { return param_info.param.name; });

TEST_F(Stage03Binary, TheCountSweepTimesVerifiesAndExplainsEveryPoolSize) {
  const Stage03Run run =
      run_stage03("count-sweep", {"--count-sweep", "1,4,40", "--count-batches", "41", "--count-size", "24",
                                  "--warmup", "0", "--repeats", "2"});
  EXPECT_THAT(run.out, ::testing::HasSubstr("stream count, all the way: 41 GEMMs of 24x24x24"));
  EXPECT_THAT(run.out, ::testing::HasSubstr("why: "));
  const nlohmann::json& sweep = run.doc.at("stream_count");
  EXPECT_EQ(sweep.at("batches"), 41);
  EXPECT_EQ(sweep.at("verified"), true);
  ASSERT_EQ(sweep.at("points").size(), 3U);
  std::set<std::string> digests;
  for (const auto& point : sweep.at("points")) {
    EXPECT_EQ(point.at("verified"), true) << point.dump();
    EXPECT_GT(point.at("host_issue_ms").get<double>(), 0.0);
    EXPECT_FALSE(point.at("limited_by").is_null()) << "each pool size has its own bound";
    digests.insert(point.at("digest").get<std::string>());
  }
  EXPECT_EQ(digests.size(), 1U) << "every pool size computes the same outputs";
  EXPECT_TRUE(sweep.at("conclusion").is_string());
  // Every figure is in the measurements too: a busiest-stream run per pool size, and the sums, checked.
  int busiest = 0;
  for (const auto& m : run.doc.at("measurements")) {
    if (m.at("name") == "resource_alone" && m.at("params").at("resource") == "busiest_stream") ++busiest;
    if (m.at("name") == "d2h_sum") {
      EXPECT_EQ(m.at("verified"), true) << "a device slot per batch";
    }
  }
  EXPECT_EQ(busiest, 3);
  EXPECT_EQ(run.doc.at("config").at("batches"), 41);
  EXPECT_EQ(run.doc.at("verification").at("passed"), true);
}

TEST_F(Stage03Binary, APoolLargerThanTheBatchCountRunsAndWarns) {
  const testing::ProcessResult run = testing::run_process(
      {CSG_STAGE03_BINARY, "kernels", "--kernel", "naive", "--batches", "3", "--m", "8", "--n", "8", "--k", "8",
       "--streams", "5", "--warmup", "0", "--repeats", "1"});
  ASSERT_EQ(run.exit_code, kExitOk) << run.out << run.err;
  EXPECT_THAT(run.out, ::testing::HasSubstr("--streams 5 is more than --batches 3: 2 stream(s) get no work"));
}

TEST_F(Stage03Binary, SlotsLayoutVerifiesThePoolAndMarksSharedSlotSumsNotApplicable) {
  const nlohmann::json doc = run_stage03("kernels",
                                         {"--kernel", "naive", "--batches", "20", "--m", "64", "--n", "32", "--k", "16",
                                          "--streams", "4", "--warmup", "0", "--repeats", "2"}).doc;
  EXPECT_EQ(doc.at("config").at("device_slots"), 4);
  for (const auto& m : doc.at("measurements")) {
    if (whole_run(m)) {
      EXPECT_EQ(m.at("verified"), true) << m.dump();
    } else {
      EXPECT_TRUE(m.at("verified").is_null()) << m.dump();
    }
  }
}

// The two experiments that flood the GPU ("Priorities", "Contention" in the
// names: they take the whole_gpu lock), each as its own subcommand.
TEST_F(Stage03Binary, PrioritiesWriteTheirFiguresUnderTheirOldName) {
  const nlohmann::json doc =
      run_stage03("priorities", {"--priority-samples", "20", "--warmup", "0", "--repeats", "1"}).doc;
  ASSERT_TRUE(doc.contains("stream_priorities")) << doc.dump(1);
  EXPECT_EQ(doc.at("stream_priorities").at("verified"), true);
  EXPECT_EQ(doc.at("stream_priorities").at("config").at("samples"), 20);
  EXPECT_EQ(doc.at("verification").at("passed"), true);
  ASSERT_FALSE(doc.at("verdicts").empty());
  EXPECT_EQ(doc.at("verdicts").at(0).at("id"), "priorities.latency");
  EXPECT_FALSE(doc.contains("shared_memory_contention"));
}

TEST_F(Stage03Binary, ContentionWritesItsFiguresUnderItsOldName) {
  const nlohmann::json doc = run_stage03("contention", {"--warmup", "0", "--repeats", "2"}).doc;
  ASSERT_TRUE(doc.contains("shared_memory_contention")) << doc.dump(1);
  EXPECT_EQ(doc.at("shared_memory_contention").at("verified"), true);
  EXPECT_EQ(doc.at("shared_memory_contention").at("config").at("repeats"), 2);
  EXPECT_EQ(doc.at("verification").at("passed"), true);
  ASSERT_EQ(doc.at("verdicts").size(), 1U);
  EXPECT_EQ(doc.at("verdicts").at(0).at("id"), "contention.shared_memory");
}

// ---- the laboratory's own loops, as the subcommands call them ------------------------

class Stage03Loops : public testing::GpuTest {};

// Both issue orders compute every batch on a pool whose size divides no
// batch count here, and stage 01's loop does too.
TEST_F(Stage03Loops, BothIssueOrdersAndTheSerialLoopVerifyEveryBatch) {
  const Workload work{11, {33, 17, 65}};
  const Gemm gemm;
  BatchBuffers buffers(work, HostMemory::pinned, 3);  // slot b % 3: batches sharing a slot share a stream
  buffers.fill_inputs(5);
  const BatchOps ops = batch_ops(buffers, gemm);
  const StreamPool pool(3);
  pool::RunClock clock;
  for (const IssueOrder order : {IssueOrder::depth_first, IssueOrder::breadth_first}) {
    buffers.poison_outputs(pool[0]);
    EXPECT_GT(pool::pool_run(pool, order, ops, work.batches, clock).count(), 0.0);
    EXPECT_GT(clock.issued.count(), 0.0);
    const VerifyResult check = buffers.verify(5);
    EXPECT_TRUE(check.passed) << to_string(order) << ": " << check.message();
    EXPECT_EQ(check.batches_checked, 11);
  }
  buffers.poison_outputs(nullptr);
  EXPECT_GT(pool::serial_run(buffers, gemm, clock).count(), 0.0);
  EXPECT_TRUE(buffers.verify(5).passed) << buffers.verify(5).message();
}

// The bound of every pool size gets the busiest stream's batches alone on
// one stream, with the share of the work they are.
TEST_F(Stage03Loops, EveryPoolSizeGetsItsBusiestStreamTimedOnOneStream) {
  const Workload work{10, {16, 24, 8}};
  const Gemm gemm;
  BatchBuffers buffers(work, HostMemory::pinned);
  buffers.fill_inputs(3);
  const BatchOps ops = batch_ops(buffers, gemm);
  pool::RunClock clock;
  pool::PoolMeasurements runs(work, 3, gemm);
  const StreamPool pool(3);
  pool::add_pool_variant(runs, buffers, pool, IssueOrder::depth_first, ops, clock);
  std::deque<StreamPool> sweep;
  pool::add_sweep_variants(runs, buffers, sweep, {1, 4}, ops, clock);
  const pool::BoundStreams bound_streams;
  pool::add_bound_variants(runs, buffers, ops, bound_streams, clock);
  runs.measure({0, 2});
  for (const int streams : {3, 1, 4}) {
    const pool::PoolMeasurements::Entry* busiest = runs.resource(streams, "busiest_stream");
    ASSERT_NE(busiest, nullptr) << streams;
    const double share = double((10 + streams - 1) / streams) / 10.0;  // 4, 10 and 3 of the 10 batches
    EXPECT_DOUBLE_EQ(busiest->work.flops, share * 10 * work.flops_per_batch()) << streams;
    EXPECT_EQ(busiest->stats.samples, 2);
    EXPECT_GT(busiest->stats.median_ms, 0.0);
  }
  const std::optional<PipelineBound> bound = runs.bound_of(runs.pool(IssueOrder::depth_first));
  ASSERT_TRUE(bound.has_value());
  EXPECT_GT(bound->busiest_stream_ms, 0.0);
  EXPECT_TRUE(runs.pool(IssueOrder::depth_first).check.passed);
}

}  // namespace gpu_stage03
}  // namespace csg
