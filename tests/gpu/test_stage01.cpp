// Stage 01 end to end, as a user runs it, at small sizes: the lesson and the
// kernels experiment exit 0 with every batch verified, and the JSON they
// write carries the schema, the subcommand and the right counts.
#include <nlohmann/json.hpp>

#include "base/errors.hpp"
#include "gpu_test.hpp"
#include "run_process.hpp"

namespace csg {
namespace gpu_stage01 {

class Stage01Test : public testing::GpuTest, public ::testing::WithParamInterface<std::string> {};

TEST_P(Stage01Test, VerifiesEveryBatchAndWritesTheSchema) {
  const std::string host_memory = GetParam();
  testing::TempDir dir;
  const testing::JsonRun run =
      testing::run_with_json({CSG_STAGE01_BINARY, "--batches", "7", "--m", "33", "--n", "17", "--k", "65", "--warmup",
                              "1", "--repeats", "3", "--host-memory", host_memory},
                             dir, "01.json");
  ASSERT_EQ(run.exit_code, kExitOk) << run.out << run.err;
  EXPECT_NE(run.out.find("all 7 batches verified"), std::string::npos) << run.out;

  const nlohmann::json doc = run.doc();
  EXPECT_EQ(doc.at("schema"), "cuda-streams-graphs/result/v2");
  EXPECT_EQ(doc.at("stage"), "01_serial_baseline");
  EXPECT_TRUE(doc.at("subcommand").is_null()) << "the lesson";
  EXPECT_EQ(doc.at("config").at("batches"), 7);
  EXPECT_EQ(doc.at("config").at("kernel"), "naive");
  EXPECT_EQ(doc.at("config").at("host_memory"), host_memory);
  EXPECT_EQ(doc.at("verification").at("passed"), true);
  EXPECT_EQ(doc.at("verification").at("batches_checked"), 7);
  EXPECT_EQ(doc.at("verification").at("variants_checked"), 2);
  std::vector<std::string> names;
  for (const auto& m : doc.at("measurements")) {
    names.push_back(m.at("name"));
    EXPECT_EQ(m.at("samples"), 3) << m.dump();
    EXPECT_GT(m.at("median_ms").get<double>(), 0.0) << m.dump();
    EXPECT_LE(m.at("min_ms").get<double>(), m.at("median_ms").get<double>());
    EXPECT_LE(m.at("median_ms").get<double>(), m.at("max_ms").get<double>());
    EXPECT_EQ(m.at("verified"), true);
  }
  EXPECT_EQ(names, (std::vector<std::string>{"serial", "h2d_sum", "kernel_sum", "d2h_sum"}));
  const auto& bounds = doc.at("bounds");
  EXPECT_NEAR(bounds.at("stage_sum_ms").get<double>(),
              bounds.at("h2d_sum_ms").get<double>() + bounds.at("kernel_sum_ms").get<double>() +
                  bounds.at("d2h_sum_ms").get<double>(),
              1e-9);
}

// The parameter as the test's name: "pageable", not "\"pageable\"".
std::string word(const ::testing::TestParamInfo<std::string>& param_info) { return param_info.param; }

INSTANTIATE_TEST_SUITE_P(HostMemory, Stage01Test, ::testing::Values("pageable", "pinned"), word);

class Stage01Kernels : public testing::GpuTest, public ::testing::WithParamInterface<std::string> {};

// The laboratory's kernels: the same serial run and sums through Gemm, at a
// shape that is no multiple of any tile.
TEST_P(Stage01Kernels, VerifiesEveryBatchAndNamesTheKernel) {
  const std::string kernel = GetParam();
  std::vector<std::string> argv{CSG_STAGE01_BINARY, "kernels", "--batches", "5", "--m", "33", "--n", "17", "--k",
                                "65", "--warmup", "0", "--repeats", "2"};
  if (kernel == "cublas_tf32") {
    argv.insert(argv.end(), {"--kernel", "cublas", "--tf32"});
  } else {
    argv.insert(argv.end(), {"--kernel", kernel});
  }
  testing::TempDir dir;
  const testing::JsonRun run = testing::run_with_json(argv, dir, "kernels.json");
  ASSERT_EQ(run.exit_code, kExitOk) << run.out << run.err;
  EXPECT_NE(run.out.find("all 5 batches verified"), std::string::npos) << run.out;
  const nlohmann::json doc = run.doc();
  EXPECT_EQ(doc.at("subcommand"), "kernels");
  EXPECT_EQ(doc.at("bounds").at("kernel"), kernel == "cublas_tf32" ? "cublas+tf32" : kernel);
  EXPECT_EQ(doc.at("verification").at("passed"), true);
  EXPECT_EQ(doc.at("measurements").size(), 4U);
}

INSTANTIATE_TEST_SUITE_P(Kernels, Stage01Kernels, ::testing::Values("tiled", "cublas", "cublas_tf32"), word);

TEST(Stage01Limits, ARequestLargerThanTheMachineIsRefusedWithExit2) {
  if (!testing::has_cuda_device()) {
    if (std::getenv("CSG_REQUIRE_GPU") != nullptr) FAIL() << "no CUDA device";
    GTEST_SKIP() << "no CUDA device";
  }
  // 10^6 batches at the article's size: 6 TB of device memory.
  testing::TempDir dir;
  const testing::ProcessResult run =
      testing::run_process({CSG_STAGE01_BINARY, "--batches", "1000000", "--json", dir.file("out.json")});
  EXPECT_EQ(run.exit_code, kExitUsage) << run.err;
  EXPECT_NE(run.err.find("device memory"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("fewer --batches"), std::string::npos) << run.err;
  EXPECT_TRUE(dir.entries().empty());
}

}  // namespace gpu_stage01
}  // namespace csg
