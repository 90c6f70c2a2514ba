// The memory-nodes subcommand on made-up figures: each branch of each
// conclusion, the JSON's fields and verdict, and its options as a user types them.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "04_graph_capture_gemm/lab/memory-nodes/memory_nodes_report.hpp"
#include "base/errors.hpp"
#include "base/units.hpp"
#include "made_up.hpp"

#ifdef CSG_STAGE04_BINARY
#include "run_process.hpp"
#include "usage_checks.hpp"
#endif

namespace csg::graphs {
namespace {

using testing::ms;

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

constexpr std::uint64_t MiB(double n) { return static_cast<std::uint64_t>(n * double(kMiB)); }

// The article's sizes: 100 batches of 6 MiB (A 2 MiB + C 4 MiB), 8 slots preallocated.
MemorySizes article_sizes() { return MemorySizes{100, 8, MiB(6)}; }

// ---- replay time -------------------------------------------------------------------

TEST(MemoryNodes, AllocatingInsideTheGraphCostsReplayTimeBeyondTheNoise) {
  EXPECT_EQ(replay_verdict(ms(26.0), ms(25.0)), ReplayVerdict::slower);  // +4% against 2% noise
  EXPECT_TRUE(has(replay_text(ms(26.0), ms(25.0)), "allocating inside the graph costs replay time"));
  EXPECT_TRUE(has(replay_text(ms(26.0), ms(25.0)), "+4.0%, beyond the 2.0% noise"));
}

TEST(MemoryNodes, TheMemoryGraphCanReplayFaster) {
  EXPECT_EQ(replay_verdict(ms(24.0), ms(25.0)), ReplayVerdict::faster);
  EXPECT_TRUE(has(replay_text(ms(24.0), ms(25.0)), "replays faster"));
}

TEST(MemoryNodes, WithinTheNoiseTheAllocationsCostNothing) {
  EXPECT_EQ(replay_verdict(ms(25.4), ms(25.0)), ReplayVerdict::same);  // +1.6% < 2%
  EXPECT_TRUE(has(replay_text(ms(25.4), ms(25.0)), "costs no replay time here"));
  // A run that spreads 10% widens the noise: +4% is then within it.
  EXPECT_NEAR(replay_noise(ms(26.0, 0.9), ms(25.0)), 0.1, 1e-9);
  EXPECT_EQ(replay_verdict(ms(26.0, 0.9), ms(25.0)), ReplayVerdict::same);
}

// ---- footprint and reuse -----------------------------------------------------------

TEST(MemoryNodes, TheFootprintIsComparedWithThePreallocatedBuffers) {
  const MemorySizes sizes = article_sizes();  // 48 MiB preallocated, 600 MiB allocated in all
  EXPECT_EQ(footprint_verdict(MiB(32), sizes.preallocated_bytes()), FootprintVerdict::smaller);
  EXPECT_TRUE(has(footprint_text(MiB(32), sizes), "holds less memory than preallocating"));
  EXPECT_EQ(footprint_verdict(MiB(50), sizes.preallocated_bytes()), FootprintVerdict::same);
  EXPECT_TRUE(has(footprint_text(MiB(50), sizes), "holds about what preallocating does"));
  EXPECT_EQ(footprint_verdict(MiB(96), sizes.preallocated_bytes()), FootprintVerdict::larger);
  EXPECT_TRUE(has(footprint_text(MiB(96), sizes), "holds more memory than preallocating (2.0x)"));
  EXPECT_TRUE(has(footprint_text(MiB(96), sizes), "48.0 MiB of preallocated A and C (8 slots)"));
  EXPECT_EQ(footprint_verdict(0, sizes.preallocated_bytes()), FootprintVerdict::none);
  EXPECT_TRUE(has(footprint_text(0, sizes), "no graph memory reserved"));
}

TEST(MemoryNodes, ReuseInsideTheGraphIsReservedAgainstEveryAllocation) {
  const MemorySizes sizes = article_sizes();
  EXPECT_EQ(sizes.allocations_bytes(), MiB(600));
  EXPECT_EQ(reuse_verdict(MiB(64), sizes.allocations_bytes()), ReuseVerdict::reused);
  EXPECT_TRUE(has(reuse_text(MiB(64), sizes), "freed A and C served later batches"));
  EXPECT_EQ(reuse_verdict(MiB(600), sizes.allocations_bytes()), ReuseVerdict::not_reused);
  EXPECT_TRUE(has(reuse_text(MiB(600), sizes), "no reuse inside the graph"));
  EXPECT_EQ(reuse_verdict(0, sizes.allocations_bytes()), ReuseVerdict::none);
  EXPECT_TRUE(has(reuse_text(0, sizes), "no reserved memory"));
}

// ---- two graphs ------------------------------------------------------------------------

TEST(MemoryNodes, TwoGraphsShareWhenReservedStaysAsForOne) {
  EXPECT_EQ(sharing_verdict(MiB(64), MiB(64)), SharingVerdict::shared);
  EXPECT_TRUE(has(sharing_text(MiB(64), MiB(64)), "shared their memory"));
  EXPECT_EQ(sharing_verdict(MiB(64), MiB(128)), SharingVerdict::separate);
  EXPECT_TRUE(has(sharing_text(MiB(64), MiB(128)), "reserved doubled"));
  EXPECT_EQ(sharing_verdict(MiB(64), MiB(96)), SharingVerdict::partly);
  EXPECT_TRUE(has(sharing_text(MiB(64), MiB(96)), "shared part of their memory"));
  EXPECT_EQ(sharing_verdict(0, MiB(96)), SharingVerdict::none);
  EXPECT_TRUE(has(sharing_text(0, MiB(96)), "nothing to share"));
}

// ---- destroy and trim ------------------------------------------------------------------

GraphMemory held(double used_mib, double reserved_mib, double free_mib) {
  GraphMemory g;
  g.used_current = MiB(used_mib);
  g.reserved_current = MiB(reserved_mib);
  g.device_free = MiB(free_mib);
  return g;
}

TEST(MemoryNodes, DestroyingTheExecsKeepsOrReleasesTheReservedMemory) {
  EXPECT_TRUE(has(destroy_text(held(64, 64, 1000), held(0, 64, 1000)), "kept the reserved memory"));
  EXPECT_TRUE(has(destroy_text(held(64, 64, 1000), held(0, 0, 1064)), "released reserved memory"));
}

TEST(MemoryNodes, TheTrimGivesBackAllPartOrNothing) {
  EXPECT_EQ(trim_verdict(MiB(64), 0), TrimVerdict::all);
  EXPECT_TRUE(has(trim_text(held(0, 64, 1000), held(0, 0, 1064)), "gave back all 64.0 MiB"));
  EXPECT_TRUE(has(trim_text(held(0, 64, 1000), held(0, 0, 1064)), "free memory +64.0 MiB"));
  EXPECT_EQ(trim_verdict(MiB(64), MiB(32)), TrimVerdict::part);
  EXPECT_TRUE(has(trim_text(held(0, 64, 1000), held(0, 32, 1032)), "gave back 32.0 MiB of 64.0 MiB"));
  EXPECT_EQ(trim_verdict(MiB(64), MiB(64)), TrimVerdict::nothing);
  EXPECT_TRUE(has(trim_text(held(0, 64, 1000), held(0, 64, 1000)), "gave back nothing"));
  EXPECT_EQ(trim_verdict(0, 0), TrimVerdict::nothing_to_trim);
  EXPECT_TRUE(has(trim_text(held(0, 0, 1000), held(0, 0, 1000)), "had nothing to give back"));
}

// ---- result and JSON -------------------------------------------------------------------

VerifyResult passed(int batches) {
  VerifyResult check;
  check.passed = true;
  check.batches_checked = batches;
  check.digest = 42;
  return check;
}

MemoryNodesFigures made_up() {
  MemoryNodesFigures f;
  f.sizes = article_sizes();
  f.memory_replay = ms(26.0);
  f.preallocated_replay = ms(25.0);
  f.memory_launch_cpu = ms(0.01);
  f.preallocated_launch_cpu = ms(0.009);
  f.memory_instantiate = ms(2.0);
  f.preallocated_instantiate = ms(1.5);
  f.memory_nodes = 702;
  f.preallocated_nodes = 302;
  for (int i = 0; i < kMomentCount; ++i) f.footprint.at[std::size_t(i)] = held(64, 64, 1000);
  f.footprint[Moment::baseline] = held(0, 0, 1064);
  f.footprint[Moment::both_launched] = held(128, 64, 1000);
  f.footprint[Moment::destroyed] = held(0, 64, 1000);
  f.footprint[Moment::trimmed] = held(0, 0, 1064);
  f.memory_check = f.preallocated_check = f.first_launch_check = f.second_check = passed(100);
  return f;
}

CommonOptions article_options() {
  CommonOptions options;
  options.host_memory = HostMemory::pinned;
  return options;
}

TEST(MemoryNodes, TheJsonKeepsEveryMomentAndVerdict) {
  const MemoryNodesFigures f = made_up();
  const StageResult result = memory_nodes_result(DeviceInfo{}, article_options(), PoolConfig{}, f);
  const nlohmann::json doc = memory_nodes_json(result, f);
  EXPECT_EQ(doc.at("subcommand"), "memory-nodes");
  EXPECT_EQ(doc.at("measurements").size(), 6u);
  EXPECT_EQ(doc.at("measurements").at(0).at("name"), "memory_graph_replay");
  EXPECT_EQ(doc.at("measurements").at(0).at("params").at("device_buffers"), "graph_allocated");
  EXPECT_EQ(doc.at("measurements").at(4).at("name"), "memory_graph_instantiate");
  const nlohmann::json& mem = doc.at("memory_nodes");
  EXPECT_EQ(mem.at("allocations_bytes"), MiB(600));
  EXPECT_EQ(mem.at("preallocated_bytes"), MiB(48));
  EXPECT_EQ(mem.at("memory_graph_nodes"), 702);
  ASSERT_EQ(mem.at("footprint").size(), std::size_t(kMomentCount));
  EXPECT_EQ(mem.at("footprint").at(0).at("moment"), "baseline");
  EXPECT_EQ(mem.at("footprint").at(9).at("moment"), "trimmed");
  EXPECT_EQ(mem.at("footprint").at(7).at("used_current"), MiB(128));
  const nlohmann::json& v = mem.at("verdicts");
  EXPECT_EQ(v.at("replay"), "slower");
  EXPECT_EQ(v.at("footprint"), "larger");  // 64 MiB against 48
  EXPECT_EQ(v.at("reuse"), "reused");
  EXPECT_EQ(v.at("sharing"), "shared");
  EXPECT_EQ(v.at("trim"), "all");
  EXPECT_NEAR(doc.at("bounds").at("replay_memory_over_preallocated").get<double>(), 26.0 / 25.0, 1e-9);
  EXPECT_EQ(doc.at("bounds").at("reserved_two_graphs_bytes"), MiB(64));
  EXPECT_TRUE(doc.at("verification").at("passed").get<bool>());
}

TEST(MemoryNodes, AnyFailedCheckFailsTheVerdict) {
  for (VerifyResult MemoryNodesFigures::*check :
       {&MemoryNodesFigures::memory_check, &MemoryNodesFigures::preallocated_check,
        &MemoryNodesFigures::first_launch_check, &MemoryNodesFigures::second_check}) {
    MemoryNodesFigures f = made_up();
    (f.*check).passed = false;
    const StageResult result = memory_nodes_result(DeviceInfo{}, article_options(), PoolConfig{}, f);
    EXPECT_FALSE(result.verification.passed);
  }
}

TEST(MemoryNodes, TheScreenShowsTheTableAndEveryConclusion) {
  const MemoryNodesFigures f = made_up();
  const StageResult result = memory_nodes_result(DeviceInfo{}, article_options(), PoolConfig{}, f);
  std::ostringstream out;
  print_memory_nodes(out, result, article_options(), PoolConfig{}, f);
  const std::string text = out.str();
  for (const char* part : {"memory_graph_replay", "second_launched", "reserved high", "costs replay time",
                           "holds more memory", "served later batches", "shared their memory",
                           "kept the reserved memory", "gave back all"}) {
    EXPECT_TRUE(has(text, part)) << part << "\n" << text;
  }
}

#ifdef CSG_STAGE04_BINARY

TEST(MemoryNodes, BadOptionsExit2WithOneClearLine) {
  const std::vector<testing::BadCase> bad_options = {
      {{"memory-nodes", "--streams", "0"}, "--streams takes an integer in [1, 1024]"},
      {{"memory-nodes", "--device-buffers", "graph"}, "--device-buffers takes one of slots|per-batch"},
      {{"memory-nodes", "--tiny-count", "5"}, "unknown option '--tiny-count'"},
      {{"memory-nodes", "--batches", "0"}, "--batches takes an integer"},
  };
  for (const testing::BadCase& bad : bad_options) {
    EXPECT_TRUE(testing::refuses_before_writing(CSG_STAGE04_BINARY, bad)) << ::testing::PrintToString(bad.args);
  }
  const testing::ProcessResult run =
      testing::run_process({CSG_STAGE04_BINARY, "memory-nodes", "--streams", "0"}, {"CUDA_VISIBLE_DEVICES="});
  EXPECT_EQ(run.exit_code, kExitUsage) << run.err;
}

TEST(MemoryNodes, TheStageListsItAndItsHelpSaysWhatItMeasures) {
  EXPECT_TRUE(has(testing::run_process({CSG_STAGE04_BINARY, "--help"}).out, "\n  memory-nodes "));
  const testing::ProcessResult run = testing::run_process({CSG_STAGE04_BINARY, "memory-nodes", "--help"});
  EXPECT_EQ(run.exit_code, kExitOk);
  EXPECT_TRUE(has(run.out, "cudaMallocAsync")) << run.out;
  EXPECT_TRUE(has(run.out, "--device-buffers")) << run.out;
}

#endif  // CSG_STAGE04_BINARY

}  // namespace
}  // namespace csg::graphs
