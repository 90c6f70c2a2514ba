// The results JSON: schema fields present, values right, written whole or not at all.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "01_serial_baseline/report.hpp"
#include "made_up.hpp"
#include "report/result.hpp"
#include "run_process.hpp"

namespace csg {
namespace cpu_result_json {

StageResult sample_result() {
  StageResult result;
  result.stage = "01_serial_baseline";
  result.device.name = "Test GPU";
  result.device.cc_major = 9;
  result.device.cc_minor = 0;
  result.device.sm_count = 132;
  result.device.async_engines = 3;
  result.device.pcie_gen = 5;
  result.device.pcie_width = 16;
  result.device.driver_version = 13000;
  result.device.runtime_version = 13000;
  CommonOptions options;
  options.host_memory = HostMemory::pinned;
  result.config = config_json(options);
  const Summary stats{.median_ms = 20.0,
                      .min_ms = 19.0,
                      .max_ms = 22.0,
                      .p95_ms = 21.0,
                      .samples = 3,
                      .samples_ms = {20.0, 19.0, 22.0}};
  result.measurements.push_back({"serial", {{"host_memory", "pinned"}}, stats, Work{600e6, 2e12}, true});
  result.measurements.push_back({"kernel_sum", nlohmann::json::object(), stats, Work{0.0, 2e12}, true});
  result.bounds = {{"kernel_sum_ms", 17.9}};
  result.verification.passed = true;
  result.verification.batches_checked = 100;
  result.variants_verified = 2;
  return result;
}

TEST(ResultJson, HasTheSchemaFields) {
  const nlohmann::json doc = to_json(sample_result());
  EXPECT_EQ(doc.at("schema"), "cuda-streams-graphs/result/v2");
  EXPECT_EQ(doc.at("stage"), "01_serial_baseline");
  EXPECT_TRUE(doc.at("verdicts").is_array()) << "v2: every result carries its verdicts, none here";
  EXPECT_TRUE(doc.at("verdicts").empty());
  const auto& device = doc.at("device");
  EXPECT_EQ(device.at("name"), "Test GPU");
  EXPECT_EQ(device.at("compute_capability"), "9.0");
  EXPECT_EQ(device.at("sm_count"), 132);
  EXPECT_EQ(device.at("async_engines"), 3);
  EXPECT_EQ(device.at("pcie_gen"), 5);
  EXPECT_EQ(device.at("pcie_width"), 16);
  EXPECT_TRUE(device.at("pcie_gen_max").is_null());  // not reported: null, not a made-up number
  EXPECT_EQ(device.at("driver_version"), 13000);
  EXPECT_EQ(device.at("runtime_version"), 13000);
  const auto& config = doc.at("config");
  for (const char* key : {"batches", "m", "n", "k", "host_memory", "kernel", "warmup", "repeats", "seed"}) {
    EXPECT_TRUE(config.contains(key)) << key;
  }
  EXPECT_EQ(config.at("host_memory"), "pinned");
  EXPECT_EQ(config.at("batches"), 100);
  const auto& m = doc.at("measurements").at(0);
  EXPECT_EQ(m.at("name"), "serial");
  EXPECT_EQ(m.at("params").at("host_memory"), "pinned");
  EXPECT_DOUBLE_EQ(m.at("median_ms").get<double>(), 20.0);
  EXPECT_DOUBLE_EQ(m.at("min_ms").get<double>(), 19.0);
  EXPECT_DOUBLE_EQ(m.at("max_ms").get<double>(), 22.0);
  EXPECT_DOUBLE_EQ(m.at("p95_ms").get<double>(), 21.0);
  EXPECT_EQ(m.at("samples"), 3);
  EXPECT_EQ(m.at("samples_ms"), (std::vector<double>{20.0, 19.0, 22.0}));
  EXPECT_DOUBLE_EQ(m.at("gflops").get<double>(), 2e12 / 20e-3 / 1e9);  // 100000 GFLOP/s
  EXPECT_DOUBLE_EQ(m.at("gbps").get<double>(), 600e6 / 20e-3 / 1e9);   // 30 GB/s
  EXPECT_EQ(m.at("verified"), true);
  EXPECT_TRUE(doc.at("measurements").at(1).at("gbps").is_null());  // no bytes: null, not 0 or NaN
  EXPECT_DOUBLE_EQ(doc.at("bounds").at("kernel_sum_ms").get<double>(), 17.9);
  EXPECT_EQ(doc.at("verification").at("passed"), true);
  EXPECT_EQ(doc.at("verification").at("batches_checked"), 100);
  EXPECT_EQ(doc.at("verification").at("method"), "freivalds+sampled");
}

TEST(ResultJson, AFailedVerificationCarriesItsMessage) {
  StageResult result = sample_result();
  result.verification.passed = false;
  result.verification.first_failure = Mismatch{37, 1, 2, 100.0, 99.0, "freivalds"};
  const nlohmann::json doc = to_json(result);
  EXPECT_EQ(doc.at("verification").at("passed"), false);
  EXPECT_NE(doc.at("verification").at("failure").get<std::string>().find("batch 37"), std::string::npos);
}

TEST(ResultJson, WriteIsWholeAndParses) {
  testing::TempDir dir;
  const std::string path = dir.file("result.json");
  write_json_file(path, to_json(sample_result()));
  const nlohmann::json back = testing::read_json(path);
  EXPECT_EQ(back, to_json(sample_result()));
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"result.json"}) << "no temporary file left behind";
}

TEST(ResultJson, WriteReplacesAnExistingFileWhole) {
  testing::TempDir dir;
  const std::string path = dir.file("result.json");
  {
    std::ofstream old(path);
    old << std::string(100000, 'x');  // longer than the new content: no tail may survive
  }
  write_json_file(path, nlohmann::json{{"schema", kResultSchema}});
  EXPECT_EQ(testing::read_json(path).at("schema"), kResultSchema);
}

TEST(ResultJson, AFailedWriteLeavesNoFile) {
  testing::TempDir dir;
  const std::string path = dir.file("missing-subdir/result.json");
  EXPECT_THROW(write_json_file(path, nlohmann::json::object()), std::runtime_error);
  EXPECT_TRUE(dir.entries().empty());
}

TEST(ResultJson, AFailedRenameLeavesNoTemporaryFile) {
  testing::TempDir dir;
  // The target is a non-empty directory: the temporary file is written, the rename fails.
  std::filesystem::create_directories(dir.file("result.json/inside"));
  EXPECT_THROW(write_json_file(dir.file("result.json"), nlohmann::json::object()), std::runtime_error);
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"result.json"});
}

TEST(ResultJson, PrintedTableHasOneRowPerMeasurement) {
  std::ostringstream out;
  print_measurements(out, sample_result().measurements);
  const std::string text = out.str();
  EXPECT_NE(text.find("serial"), std::string::npos);
  EXPECT_NE(text.find("kernel_sum"), std::string::npos);
  EXPECT_NE(text.find("20.00"), std::string::npos);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 4);  // header, rule, two rows
}

}  // namespace cpu_result_json
}  // namespace csg

namespace csg {
namespace cpu_result_json {

TEST(ResultJson, Stage01BoundsAreTheTotalOverTheSumAndTheKernelsOwnRate) {
  CommonOptions options;
  options.work = Workload{10, GemmShape{256, 256, 128}};
  VerifyResult passed;
  passed.passed = true;
  passed.batches_checked = 10;
  // Serial 40 ms; the stages alone 5 + 20 + 10 = 35 ms.
  const StageSums sums{testing::ms(5.0), testing::ms(20.0), testing::ms(10.0)};
  const StageResult result =
      serial::serial_result("01_serial_baseline", DeviceInfo{}, options, testing::ms(40.0), sums, passed, passed);
  EXPECT_DOUBLE_EQ(result.bounds.at("total_over_stage_sum").get<double>(), 40.0 / 35.0);
  EXPECT_DOUBLE_EQ(result.bounds.at("kernel_gflops").get<double>(), gflops(10 * options.work.flops_per_batch(), 20.0));
}

TEST(ResultJson, ABoundNamesEveryPathWithItsLength) {
  const PipelineBound bound{.kernel_path_ms = 1.0,
                            .h2d_path_ms = 2.0,
                            .d2h_path_ms = 3.0,
                            .both_ways_ms = 4.0,
                            .host_issue_ms = 5.0,
                            .stream_order_ms = 6.0,
                            .busiest_stream_ms = 7.0,
                            .bound_ms = 7.0,
                            .limited_by = BoundPath::busiest_stream};
  const nlohmann::json doc = to_json(bound, 8.0, 0.02);
  const nlohmann::json expected_paths = {{"kernels_ms", 1.0},      {"h2d_ms", 2.0},          {"d2h_ms", 3.0},
                                         {"both_ways_ms", 4.0},    {"host_issue_ms", 5.0},   {"stream_order_ms", 6.0},
                                         {"busiest_stream_ms", 7.0}};
  EXPECT_EQ(doc.at("paths"), expected_paths);
  EXPECT_EQ(doc.at("limited_by"), "busiest stream");
  EXPECT_EQ(doc.at("regime"), "stream-order-bound");
  EXPECT_DOUBLE_EQ(doc.at("percent_of_bound").get<double>(), 87.5);
  EXPECT_DOUBLE_EQ(doc.at("tolerance").get<double>(), 0.02);
}

TEST(PipelineBound, TheFirstOfEqualPathsSetsTheBound) {
  // H2D and D2H alone take as long, longer than the kernels: the bound names H2D, the first in kBoundPaths.
  const ResourceTimes alone{.kernels_ms = 1.0, .h2d_ms = 5.0, .d2h_ms = 5.0};
  const PipelineBound bound = pipeline_bound(alone, StageTimes{}, 1, 0);
  EXPECT_EQ(bound.limited_by, BoundPath::h2d);
  EXPECT_DOUBLE_EQ(bound.bound_ms, 5.0);
  EXPECT_DOUBLE_EQ(path_ms(bound, BoundPath::d2h), 5.0);
}

TEST(ResultTable, CompactParamsKeepWhatDistinguishesAVariant) {
  // Keys in nlohmann::json's (sorted) order.
  EXPECT_EQ(compact_params({{"streams", 8}, {"order", "depth_first"}, {"sweep", false}}), "depth_first streams=8");
  EXPECT_EQ(compact_params({{"host_memory", "pinned"}, {"sweep", true}}), "pinned sweep");
  EXPECT_EQ(compact_params(nlohmann::json::object()), "-");
}

}  // namespace cpu_result_json
}  // namespace csg

namespace csg {
namespace cpu_result_json {

TEST(ResultTable, TheWorkloadLineCountsOneBatchInTheSingular) {
  const GemmChoice naive{};
  EXPECT_EQ(describe_workload(Workload{1, GemmShape{4, 2, 3}}, naive).rfind("1 batch of C_i = A_i*B: A_i 4x3", 0), 0U)
      << describe_workload(Workload{1, GemmShape{4, 2, 3}}, naive);
  EXPECT_EQ(describe_workload(Workload{100, GemmShape{4, 2, 3}}, naive).rfind("100 batches of C_i", 0), 0U);
}

}  // namespace cpu_result_json
}  // namespace csg
