// Stage 04's pdl subcommand end to end at a tiny size: exit 0 with every way
// of both chains verified, the PDL graph's edges all programmatic, and the
// JSON's section; skipped below compute capability 9.0 (the run exits 77).
#include <gmock/gmock.h>

#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "base/errors.hpp"
#include "gpu_test.hpp"
#include "run_process.hpp"

#ifdef CSG_STAGE04_BINARY

namespace csg {
namespace gpu_pdl {

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

}  // namespace gpu_pdl
}  // namespace csg

#endif  // CSG_STAGE04_BINARY
