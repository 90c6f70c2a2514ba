// The memory-nodes subcommand on made-up figures: each branch of each
// verdict, their figures and thresholds, the report (its tables, its verdicts
// in the JSON, a failed check failing the run), and its options as a user
// types them.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "matchers.hpp"
#include "04_graph_capture_gemm/lab/memory-nodes/memory_nodes.hpp"
#include "04_graph_capture_gemm/lab/report.hpp"
#include "base/errors.hpp"
#include "base/units.hpp"
#include "made_up.hpp"

#include "declaration_checks.hpp"
#include "subcommand_checks.hpp"

namespace csg::graphs {
namespace cpu_memory_nodes {

using testing::ms;

constexpr std::uint64_t MiB(double n) { return static_cast<std::uint64_t>(n * double(kMiB)); }

// The article's sizes: 100 batches of 6 MiB (A 2 MiB + C 4 MiB), 8 slots preallocated.
MemorySizes article_sizes() { return MemorySizes{100, 8, MiB(6)}; }

// ---- the verdicts ---------------------------------------------------------------------

GraphMemory held(double used_mib, double reserved_mib, double free_mib) {
  GraphMemory g;
  g.used_current = MiB(used_mib);
  g.reserved_current = MiB(reserved_mib);
  g.device_free = MiB(free_mib);
  return g;
}

struct Branch {
  const char* name;
  Verdict verdict;
  const char* id;
  const char* outcome;
  std::vector<std::string> words;  // what its sentence must say
};

class MemoryNodesBranch : public ::testing::TestWithParam<Branch> {};

TEST_P(MemoryNodesBranch, OutcomeAndSentence) {
  const Branch& b = GetParam();
  EXPECT_EQ(b.verdict.id, b.id);
  EXPECT_EQ(b.verdict.outcome, b.outcome) << b.verdict.sentence;
  for (const std::string& words : b.words) EXPECT_THAT(b.verdict.sentence, HasSubstr(words));
}

// The article's sizes: 48 MiB preallocated, 600 MiB allocated in all.
INSTANTIATE_TEST_SUITE_P(
    Verdicts, MemoryNodesBranch,
    ::testing::Values(
        // Replays: +4% against 2% noise; -4%; +1.6%; +4% where a run spreads 10%.
        Branch{"ReplaySlower", replay_verdict(ms(26.0), ms(25.0)), "memory_nodes.replay", "slower",
               {"allocating inside the graph costs replay time", "+4.0%, beyond the 2.0% noise"}},
        Branch{"ReplayFaster", replay_verdict(ms(24.0), ms(25.0)), "memory_nodes.replay", "faster",
               {"replays faster"}},
        Branch{"ReplaySame", replay_verdict(ms(25.4), ms(25.0)), "memory_nodes.replay", "same",
               {"costs no replay time here"}},
        Branch{"ReplayWithinItsSpread", replay_verdict(ms(26.0, 0.9), ms(25.0)), "memory_nodes.replay", "same",
               {"within the 10.0% noise"}},
        Branch{"FootprintSmaller", footprint_verdict(MiB(32), article_sizes()), "memory_nodes.footprint", "smaller",
               {"holds less memory than preallocating"}},
        Branch{"FootprintSame", footprint_verdict(MiB(50), article_sizes()), "memory_nodes.footprint", "same",
               {"holds about what preallocating does"}},
        Branch{"FootprintLarger", footprint_verdict(MiB(96), article_sizes()), "memory_nodes.footprint", "larger",
               {"holds more memory than preallocating (2.0x)", "48.0 MiB of preallocated A and C (8 slots)"}},
        Branch{"FootprintNone", footprint_verdict(0, article_sizes()), "memory_nodes.footprint", "none",
               {"no graph memory reserved"}},
        Branch{"Reused", reuse_verdict(MiB(64), article_sizes()), "memory_nodes.reuse", "reused",
               {"freed A and C served later batches"}},
        Branch{"NotReused", reuse_verdict(MiB(600), article_sizes()), "memory_nodes.reuse", "not_reused",
               {"no reuse inside the graph"}},
        Branch{"ReuseNone", reuse_verdict(0, article_sizes()), "memory_nodes.reuse", "none", {"no reserved memory"}},
        Branch{"Shared", sharing_verdict(MiB(64), MiB(64)), "memory_nodes.sharing", "shared",
               {"shared their memory"}},
        Branch{"Separate", sharing_verdict(MiB(64), MiB(128)), "memory_nodes.sharing", "separate",
               {"reserved doubled"}},
        Branch{"Partly", sharing_verdict(MiB(64), MiB(96)), "memory_nodes.sharing", "partly",
               {"shared part of their memory"}},
        Branch{"SharingNone", sharing_verdict(0, MiB(96)), "memory_nodes.sharing", "none", {"nothing to share"}},
        Branch{"DestroyKeeps", destroy_verdict(held(64, 64, 1000), held(0, 64, 1000)), "memory_nodes.destroy",
               "kept", {"kept the reserved memory"}},
        Branch{"DestroyReleases", destroy_verdict(held(64, 64, 1000), held(0, 0, 1064)), "memory_nodes.destroy",
               "released", {"released reserved memory"}},
        Branch{"TrimAll", trim_verdict(held(0, 64, 1000), held(0, 0, 1064)), "memory_nodes.trim", "all",
               {"gave back all 64.0 MiB", "free memory +64.0 MiB"}},
        Branch{"TrimPart", trim_verdict(held(0, 64, 1000), held(0, 32, 1032)), "memory_nodes.trim", "part",
               {"gave back 32.0 MiB of 64.0 MiB"}},
        Branch{"TrimNothing", trim_verdict(held(0, 64, 1000), held(0, 64, 1000)), "memory_nodes.trim", "nothing",
               {"gave back nothing"}},
        Branch{"NothingToTrim", trim_verdict(held(0, 0, 1000), held(0, 0, 1000)), "memory_nodes.trim",
               "nothing_to_trim", {"had nothing to give back"}}),
    [](const ::testing::TestParamInfo<Branch>& param_info) { return std::string(param_info.param.name); });

TEST(MemoryNodesVerdicts, CarryTheirFiguresAndThresholds) {
  const Verdict replay = replay_verdict(ms(26.0, 0.9), ms(25.0));
  EXPECT_NEAR(replay.threshold.get<double>(), 0.1, 1e-9) << "the wider spread, not the 2% floor";
  EXPECT_DOUBLE_EQ(replay.figures.at("memory_ms").get<double>(), 26.0);
  EXPECT_NEAR(replay.figures.at("change").get<double>(), 0.04, 1e-9);
  const Verdict footprint = footprint_verdict(MiB(96), article_sizes());
  EXPECT_EQ(footprint.figures.at("reserved_bytes"), MiB(96));
  EXPECT_EQ(footprint.figures.at("preallocated_bytes"), MiB(48));
  EXPECT_DOUBLE_EQ(footprint.threshold.get<double>(), kSameBytes);
  EXPECT_EQ(reuse_verdict(MiB(64), article_sizes()).figures.at("allocations_bytes"), MiB(600));
  EXPECT_EQ(trim_verdict(held(0, 64, 1000), held(0, 0, 1064)).figures.at("reserved_before_bytes"), MiB(64));
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

Report reported(const MemoryNodesFigures& f) {
  ArticleOptions options;
  options.common.host_memory = HostMemory::pinned;
  return testing::report_of(kStage, "memory-nodes", report_memory_nodes, options, f);
}

TEST(MemoryNodesReport, TheJsonKeepsEveryMomentAndVerdict) {
  const Report report = reported(made_up());
  EXPECT_TRUE(report.passed());
  const nlohmann::json doc = report.document();
  EXPECT_EQ(doc.at("subcommand"), "memory-nodes");
  EXPECT_EQ(doc.at("measurements").size(), 6u);
  EXPECT_EQ(doc.at("measurements").at(0).at("name"), "memory_graph_replay");
  EXPECT_EQ(doc.at("measurements").at(0).at("params").at("device_buffers"), "graph_allocated");
  EXPECT_EQ(doc.at("measurements").at(4).at("name"), "memory_graph_instantiate");
  EXPECT_EQ(doc.at("config").at("streams"), 8);
  const nlohmann::json& mem = doc.at("memory_nodes");
  EXPECT_EQ(mem.at("allocations_bytes"), MiB(600));
  EXPECT_EQ(mem.at("preallocated_bytes"), MiB(48));
  EXPECT_EQ(mem.at("memory_graph_nodes"), 702);
  EXPECT_NEAR(mem.at("replay_noise").get<double>(), 0.02, 1e-12);
  ASSERT_EQ(mem.at("footprint").size(), std::size_t(kMomentCount));
  EXPECT_EQ(mem.at("footprint").at(0).at("moment"), "baseline");
  EXPECT_EQ(mem.at("footprint").at(9).at("moment"), "trimmed");
  EXPECT_EQ(mem.at("footprint").at(7).at("used_current"), MiB(128));
  EXPECT_EQ(mem.at("verdicts"), (nlohmann::json{{"replay", "slower"},
                                                 {"footprint", "larger"},  // 64 MiB against 48
                                                 {"reuse", "reused"},
                                                 {"sharing", "shared"},
                                                 {"destroy", "kept"},
                                                 {"trim", "all"}}));
  EXPECT_NEAR(doc.at("bounds").at("replay_memory_over_preallocated").get<double>(), 26.0 / 25.0, 1e-9);
  EXPECT_EQ(doc.at("bounds").at("reserved_two_graphs_bytes"), MiB(64));
  EXPECT_TRUE(doc.at("verification").at("passed").get<bool>());
}

TEST(MemoryNodesReport, PrintsTheTablesAndEveryVerdict) {
  const Report report = reported(made_up());
  const std::string text = report.console();
  EXPECT_THAT(testing::printed_verdict_ids(report), ElementsAre("memory_nodes.replay", "memory_nodes.footprint", "memory_nodes.reuse",
                               "memory_nodes.sharing", "memory_nodes.destroy", "memory_nodes.trim"));
  EXPECT_THAT(text, AllOf(HasSubstr("memory_graph_replay"), HasSubstr("preallocated_graph_instantiate"),
                          HasSubstr("second_launched"), HasSubstr("reserved high"), HasSubstr("+64.0")));
}

class MemoryNodesFailedCheck : public ::testing::TestWithParam<VerifyResult MemoryNodesFigures::*> {};

TEST_P(MemoryNodesFailedCheck, FailsTheRun) {
  MemoryNodesFigures f = made_up();
  (f.*GetParam()).passed = false;
  EXPECT_FALSE(reported(f).passed());
}

INSTANTIATE_TEST_SUITE_P(EachCheck, MemoryNodesFailedCheck,
                         ::testing::Values(&MemoryNodesFigures::memory_check, &MemoryNodesFigures::preallocated_check,
                                           &MemoryNodesFigures::first_launch_check,
                                           &MemoryNodesFigures::second_check));

}  // namespace cpu_memory_nodes
}  // namespace csg::graphs
