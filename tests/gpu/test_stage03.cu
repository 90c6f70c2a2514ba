// The stream pool computes exactly what the serial loop computes, for every
// batch, whatever the pool size, issue order or device layout; and stage 03
// end to end verifies and reports every variant and the bound.
#include <algorithm>
#include <cstring>
#include <fstream>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "workload/batch_buffers.hpp"
#include "03_stream_pool_gemm/engine_streams.hpp"
#include "base/errors.hpp"
#include "gpu_test.hpp"
#include "run_process.hpp"
#include "workload/serial_run.hpp"
#include "workload/stream_pool.hpp"

namespace csg {
namespace {

const Gemm kNaive;  // the article's kernel

constexpr std::uint64_t kSeed = 7;
const Workload kWork{37, GemmShape{33, 17, 65}};  // 37 batches: not a multiple of any pool size below

std::vector<float> host_c(BatchBuffers& buffers) {
  const float* c = buffers.host_c(0);
  return {c, c + buffers.work().batch_count() * buffers.work().c_elems()};
}

std::vector<float> serial_result() {
  BatchBuffers buffers(kWork, HostMemory::pinned, 1);
  buffers.fill_inputs(kSeed);
  buffers.poison_outputs(nullptr);
  run_serial_batches(buffers, kNaive);
  return host_c(buffers);
}

void issue(BatchBuffers& buffers, const StreamPool& pool, IssueOrder order) {
  pool.fork_from(pool[0]);
  const int batches = buffers.work().batches;
  if (order == IssueOrder::depth_first) {
    for (int b = 0; b < batches; ++b) {
      enqueue_h2d(buffers, b, pool.for_batch(b));
      enqueue_gemm(kNaive, buffers, b, pool.for_batch(b));
      enqueue_d2h(buffers, b, pool.for_batch(b));
    }
  } else {  // waves of one batch per stream, as stage 03 issues breadth-first
    for (int wave = 0; wave < batches; wave += pool.size()) {
      const int end = std::min(batches, wave + pool.size());
      for (int b = wave; b < end; ++b) enqueue_h2d(buffers, b, pool.for_batch(b));
      for (int b = wave; b < end; ++b) enqueue_gemm(kNaive, buffers, b, pool.for_batch(b));
      for (int b = wave; b < end; ++b) enqueue_d2h(buffers, b, pool.for_batch(b));
    }
  }
  pool.join_into(pool[0]);
  CUDA_CHECK(cudaStreamSynchronize(pool[0]));
}

using PoolCase = std::tuple<int, IssueOrder, bool>;  // streams, order, per-batch device buffers

class StreamPoolTest : public testing::GpuTest, public ::testing::WithParamInterface<PoolCase> {};

TEST_P(StreamPoolTest, EveryBatchEqualsTheSerialResultBitForBit) {
  const auto [streams, order, per_batch] = GetParam();
  const std::vector<float> expected = serial_result();
  const int slots = per_batch ? kWork.batches : std::min(streams, kWork.batches);
  BatchBuffers buffers(kWork, HostMemory::pinned, slots);
  buffers.fill_inputs(kSeed);
  StreamPool pool(streams);
  for (int replay = 0; replay < 2; ++replay) {  // twice, poisoned in between: each run writes every C_i
    buffers.poison_outputs(pool[0]);
    issue(buffers, pool, order);
    const std::vector<float> got = host_c(buffers);
    ASSERT_EQ(got.size(), expected.size());
    for (int batch = 0; batch < kWork.batches; ++batch) {
      const std::size_t first = std::size_t(batch) * kWork.c_elems();
      ASSERT_EQ(std::memcmp(got.data() + first, expected.data() + first, kWork.c_bytes()), 0)
          << "batch " << batch << ", " << streams << " streams, " << to_string(order)
          << (per_batch ? ", per-batch" : ", slots");
    }
    EXPECT_TRUE(buffers.verify(kSeed).passed);
  }
}

INSTANTIATE_TEST_SUITE_P(PoolSizes, StreamPoolTest,
                         ::testing::Combine(::testing::Values(1, 3, 8, 32),
                                            ::testing::Values(IssueOrder::depth_first, IssueOrder::breadth_first),
                                            ::testing::Bool()));

// One stream per engine: every slot count (1: every batch waits for the one
// before it; 37: no slot reused) and every kernel give the serial result's
// bits (the data are integers, so every kernel's result is exact).
using EngineCase = std::tuple<int, GemmKernel>;  // device slots, kernel
class EngineStreamsTest : public testing::GpuTest, public ::testing::WithParamInterface<EngineCase> {};

TEST_P(EngineStreamsTest, EveryBatchEqualsTheSerialResultBitForBit) {
  const auto [slots, kernel] = GetParam();
  const std::vector<float> expected = serial_result();
  BatchBuffers buffers(kWork, HostMemory::pinned, slots);
  buffers.fill_inputs(kSeed);
  const Gemm gemm(GemmChoice{kernel});
  const EngineStreams engines(slots);
  for (int run = 0; run < 2; ++run) {
    buffers.poison_outputs(engines.origin());
    engines.issue(gemm, buffers);
    CUDA_CHECK(cudaStreamSynchronize(engines.origin()));  // joined: the origin waits for all three streams
    const std::vector<float> got = host_c(buffers);
    for (int batch = 0; batch < kWork.batches; ++batch) {
      const std::size_t first = std::size_t(batch) * kWork.c_elems();
      ASSERT_EQ(std::memcmp(got.data() + first, expected.data() + first, kWork.c_bytes()), 0)
          << "batch " << batch << ", " << slots << " slots, " << to_string(kernel);
    }
  }
  EXPECT_TRUE(buffers.verify(kSeed).passed);
}

INSTANTIATE_TEST_SUITE_P(SlotsAndKernels, EngineStreamsTest,
                         ::testing::Combine(::testing::Values(1, 3, 8, 37),
                                            ::testing::Values(GemmKernel::naive, GemmKernel::tiled,
                                                              GemmKernel::cublas)));

TEST(EngineStreamsSlots, BuffersWithAnotherSlotCountAreRefused) {
  if (!testing::has_cuda_device()) GTEST_SKIP() << "no CUDA device";
  BatchBuffers buffers(Workload{4, GemmShape{8, 8, 8}}, HostMemory::pinned, 2);
  const EngineStreams engines(3);
  EXPECT_THROW(engines.issue(kNaive, buffers), std::invalid_argument);
}

class StreamPoolForkJoin : public testing::GpuTest {};
class Stage03Binary : public testing::GpuTest {};

TEST_F(StreamPoolForkJoin, TheOriginWaitsForEveryStream) {
  // Work queued on the origin after join_into must see every stream's work:
  // an H2D on each of 4 streams, then a D2H of all of it on the origin.
  constexpr int kStreams = 4;
  constexpr std::size_t kCount = 1 << 20;
  StreamPool pool(kStreams);
  HostBuffer<float> in(kStreams * kCount, HostMemory::pinned);
  HostBuffer<float> out(kStreams * kCount, HostMemory::pinned);
  DeviceBuffer<float> device(kStreams * kCount);
  for (std::size_t i = 0; i < in.size(); ++i) in.data()[i] = float(i % 1000) + 1.0f;
  poison_host(out.span());
  pool.fork_from(pool[0]);
  for (int s = 0; s < kStreams; ++s) {
    CUDA_CHECK(cudaMemcpyAsync(device.data() + s * kCount, in.data() + s * kCount, kCount * sizeof(float),
                               cudaMemcpyHostToDevice, pool[s]));
  }
  pool.join_into(pool[0]);
  CUDA_CHECK(cudaMemcpyAsync(out.data(), device.data(), out.bytes(), cudaMemcpyDeviceToHost, pool[0]));
  CUDA_CHECK(cudaStreamSynchronize(pool[0]));
  EXPECT_EQ(std::memcmp(in.data(), out.data(), in.bytes()), 0);
}

TEST_F(Stage03Binary, VerifiesEveryVariantAndReportsTheBound) {
  testing::TempDir dir;
  const std::string json_path = dir.file("03.json");
  const testing::ProcessResult run = testing::run_process(
      {CSG_STAGE03_BINARY, "--batches", "37", "--m", "33", "--n", "17", "--k", "65", "--streams", "3",
       "--streams-sweep", "1,8,32", "--device-buffers", "per-batch", "--warmup", "1", "--repeats", "3", "--json",
       json_path});
  ASSERT_EQ(run.exit_code, kExitOk) << run.out << run.err;
  EXPECT_NE(run.out.find("all 37 batches verified"), std::string::npos) << run.out;
  std::ifstream in(json_path);
  const nlohmann::json doc = nlohmann::json::parse(in);
  EXPECT_EQ(doc.at("stage"), "03_stream_pool_gemm");
  EXPECT_EQ(doc.at("config").at("streams"), 3);
  EXPECT_EQ(doc.at("config").at("device_slots"), 37);
  EXPECT_EQ(doc.at("verification").at("passed"), true);
  int pools = 0, sweeps = 0, serials = 0;
  for (const auto& m : doc.at("measurements")) {
    EXPECT_EQ(m.at("verified"), true) << m.dump();  // per-batch: even the isolated sums are checked
    EXPECT_EQ(m.at("samples"), 3);
    if (m.at("name") == "serial") ++serials;
    if (m.at("name") == "stream_pool") (m.at("params").at("sweep") == true ? sweeps : pools)++;
  }
  EXPECT_EQ(serials, 2);
  EXPECT_EQ(pools, 2);  // depth-first and breadth-first
  EXPECT_EQ(sweeps, 3);
  EXPECT_EQ(doc.at("config").at("kernel"), "naive");
  EXPECT_EQ(doc.at("bounds").at("kernel"), "naive");
  EXPECT_TRUE(doc.at("bounds").at("regime") == "compute-bound" || doc.at("bounds").at("regime") == "PCIe-bound");
  const auto& bounds = doc.at("bounds");
  for (const char* key : {"h2d_sum_ms", "kernel_sum_ms", "d2h_sum_ms", "copies_both_ways_ms", "pipeline_bound_ms",
                          "stream_pool_ms", "bound_over_achieved", "engine_streams_ms",
                          "engine_streams_bound_over_achieved", "kernel_gflops", "pipeline_gflops"}) {
    EXPECT_GT(bounds.at(key).get<double>(), 0.0) << key;
  }
  EXPECT_GE(bounds.at("pipeline_bound_ms").get<double>(), bounds.at("kernel_sum_ms").get<double>());
}

TEST_F(Stage03Binary, APoolLargerThanTheBatchCountRunsAndWarns) {
  const testing::ProcessResult run =
      testing::run_process({CSG_STAGE03_BINARY, "--batches", "3", "--m", "8", "--n", "8", "--k", "8", "--streams", "5",
                            "--streams-sweep", "off", "--warmup", "0", "--repeats", "1"});
  ASSERT_EQ(run.exit_code, kExitOk) << run.out << run.err;
  EXPECT_NE(run.out.find("--streams 5 is more than --batches 3: 2 stream(s) get no work"), std::string::npos)
      << run.out;
}

TEST_F(Stage03Binary, SlotsLayoutVerifiesThePoolAndMarksSharedSlotSumsNotApplicable) {
  testing::TempDir dir;
  const std::string json_path = dir.file("03.json");
  const testing::ProcessResult run = testing::run_process(
      {CSG_STAGE03_BINARY, "--batches", "20", "--m", "64", "--n", "32", "--k", "16", "--streams", "4",
       "--streams-sweep", "off", "--warmup", "0", "--repeats", "2", "--json", json_path});
  ASSERT_EQ(run.exit_code, kExitOk) << run.out << run.err;
  EXPECT_EQ(run.out.find("get no work"), std::string::npos) << run.out;
  std::ifstream in(json_path);
  const nlohmann::json doc = nlohmann::json::parse(in);
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
