// Stage 04's conditional subcommand end to end at a small size: exit 0 with
// every counter and output verified, and the JSON it writes (every variant at
// every N, the fits, the verdicts, the SWITCH part's buckets). A driver
// without the node types exits 77: the test then skips.
#include <gmock/gmock.h>

#include <nlohmann/json.hpp>

#include "base/errors.hpp"
#include "gpu_test.hpp"
#include "run_process.hpp"

#ifdef CSG_STAGE04_BINARY

namespace csg {
namespace gpu_conditional {

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

}  // namespace gpu_conditional
}  // namespace csg

#endif  // CSG_STAGE04_BINARY
