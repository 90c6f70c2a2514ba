// The startup subcommand end to end at a small size, as a user runs it:
// exit 0 with every bucket graph of every layout launched and verified, and
// the JSON it writes (its rows, their sizes, the budget's verdict). What is
// asserted is what must hold on any GPU; no assertion on any time except that
// each was measured.
#include <gmock/gmock.h>

#include <nlohmann/json.hpp>

#include "base/errors.hpp"
#include "gpu_test.hpp"
#include "run_process.hpp"

#ifdef CSG_STAGE04_BINARY

namespace csg {
namespace gpu_startup {

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

}  // namespace gpu_startup
}  // namespace csg

#endif  // CSG_STAGE04_BINARY
