// The changing-shapes experiment on a real GPU at a small size: the changing-shapes sequence run
// the four ways and the node-level switch to new buffers, through the stage
// folder's functions, with the article's steps as the laboratory binds them
// (graph_steps.hpp: capture with fork/join on a pool, instantiate, launch).
// What is asserted is what must hold on any GPU: every output verified, no
// cudaGraphExecUpdate ever applied across different batch counts, the
// bucket count, the node-level exec computing the second buffers' result.
// No assertion on any time.
#include <gmock/gmock.h>

#include <cstring>
#include <string>

#include "04_graph_capture_gemm/lab/exec_update.hpp"
#include "04_graph_capture_gemm/lab/graph_steps.hpp"
#include "04_graph_capture_gemm/lab/changing-shapes/changing_shapes.hpp"
#include "cuda/stream_pool.hpp"
#include "gpu_test.hpp"
#include "batches.hpp"
#include "workload/gemm.hpp"

namespace csg::graphs {
namespace gpu_changing_shapes {

constexpr int kStreams = 3;
constexpr std::uint64_t kDataSeed = 5;

// The laboratory's pool and GEMM, and its steps bound to them.
class Lab {
 public:
  explicit Lab(GemmKernel kernel) : gemm_(GemmChoice{kernel, false}), pool_(kStreams) {
    prepare_pool(gemm_, pool_);
  }

  ShapeRequestSteps request_steps(BatchBuffers& buffers) const {
    return shape_request_steps(pool_, gemm_, buffers, kDataSeed);
  }
  UpdateExperiment updates(BatchBuffers& first, BatchBuffers& second, std::uint64_t second_seed) const {
    return update_experiment(pool_, gemm_, first, second, second_seed);
  }

 private:
  Gemm gemm_;
  StreamPool pool_;
};

class ChangingShapesTest : public testing::GpuTest {};

ChangingShapesConfig small_config() {
  return {.requests = 6, .max_batches = 9, .seed = 3, .size = 32, .rounds = 2};
}

TEST_F(ChangingShapesTest, FourWaysVerifyAndNoUpdateCrossesBatchCounts) {
  const ChangingShapesConfig config = small_config();
  const std::vector<int> sequence = request_sequence(config);
  int changes = 0;  // consecutive requests of different batch counts, over every round
  for (int round = 0; round < config.rounds; ++round) {
    for (int r = 0; r < config.requests; ++r) {
      const int before = r > 0 ? sequence[std::size_t(r - 1)]
                                : (round == 0 ? sequence[std::size_t(std::min(config.requests, kShapeWarmupRequests) - 1)]
                                              : sequence.back());
      changes += sequence[std::size_t(r)] != before;
    }
  }
  ASSERT_GT(changes, 0) << "the seed must give differing batch counts, or nothing below is tested";

  const Lab steps(GemmKernel::naive);
  BatchBuffers buffers(changing_shapes_workload(config, {}), HostMemory::pinned, kStreams);
  ASSERT_EQ(buffers.work().batches, 16);
  ASSERT_EQ(buffers.work().shape.m, 32);
  buffers.fill_inputs(kDataSeed);
  const ShapeSequenceCosts costs = measure_changing_shapes(config, steps.request_steps(buffers));

  EXPECT_EQ(costs.sequence, sequence);
  EXPECT_EQ(costs.buckets.sizes, (std::vector<int>{1, 2, 4, 8, 16}));
  EXPECT_TRUE(costs.buckets.check.passed) << costs.buckets.check.message();
  EXPECT_EQ(costs.buckets.check.batches_checked, 1 + 2 + 4 + 8 + 16);
  const long long requested = requested_batches(sequence);
  for (ShapeWay way : kAllShapeWays) {
    const ShapeWayCosts& w = costs.way(way);
    EXPECT_TRUE(w.check.passed) << label(way) << ": " << w.check.message();
    EXPECT_EQ(w.batches_requested, requested) << label(way);
    const long long computed = way == ShapeWay::buckets ? padded_batches(sequence, costs.buckets.sizes) : requested;
    EXPECT_EQ(w.batches_computed, computed) << label(way);
    // Every computed batch of every request verified: the warm-up's and each round's.
    long long warmup = 0;
    for (int r = 0; r < std::min(config.requests, kShapeWarmupRequests); ++r) {
      const int b = sequence[std::size_t(r)];
      warmup += way == ShapeWay::buckets ? bucket_for(b, costs.buckets.sizes) : b;
    }
    EXPECT_EQ(w.check.batches_checked, config.rounds * computed + warmup) << label(way);
    EXPECT_EQ(w.total.samples, config.rounds) << label(way);
    EXPECT_GT(w.total.median_ms, 0.0) << label(way);
  }
  EXPECT_EQ(costs.way(ShapeWay::streams).prepare.median_ms, 0.0);
  EXPECT_GT(costs.way(ShapeWay::recapture).prepare.median_ms, 0.0);

  const UpdateCounts& u = costs.updates;
  EXPECT_EQ(u.attempts, config.requests * config.rounds);
  EXPECT_EQ(u.applied_other_batches, 0) << "a different batch count is a different topology";
  EXPECT_EQ(u.refused_same_batches, 0);
  EXPECT_EQ(u.refused, changes);
  EXPECT_EQ(u.applied_same_batches, u.attempts - changes);
  EXPECT_EQ(u.instantiations, u.refused);
  EXPECT_THAT(u.refused_result, ::testing::HasSubstr("TopologyChanged"));
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

TEST_F(ChangingShapesTest, BuffersSmallerThanTheTopBucketAreRefused) {
  const ChangingShapesConfig config = small_config();
  const Lab steps(GemmKernel::naive);
  BatchBuffers buffers(Workload{config.max_batches, {32, 32, 32}}, HostMemory::pinned, kStreams);
  buffers.fill_inputs(kDataSeed);
  EXPECT_THROW(measure_changing_shapes(config, steps.request_steps(buffers)), std::invalid_argument);
}

// The node-level update experiment's two buffer sets of one workload: the
// first filled from kDataSeed, the second from kSecondSeed, so that the two
// hold different data.
constexpr std::uint64_t kSecondSeed = kDataSeed + 1;
struct UpdateBuffers {
  explicit UpdateBuffers(const Workload& work)
      : first(work, HostMemory::pinned, kStreams), second(work, HostMemory::pinned, kStreams) {
    first.fill_inputs(kDataSeed);
    second.fill_inputs(kSecondSeed);
  }
  // measure_node_updates with `steps` moving the exec from the first buffers to the second.
  NodeUpdateCosts measure(const Lab& steps, const RepeatPlan& plan, GemmKernel kernel) {
    return measure_node_updates(plan, steps.updates(first, second, kSecondSeed), kernel);
  }
  BatchBuffers first;
  BatchBuffers second;
};

TEST_F(ChangingShapesTest, NodeLevelUpdatesPointTheExecAtTheSecondBuffers) {
  const Lab steps(GemmKernel::naive);
  const Workload work{7, {33, 17, 65}};
  UpdateBuffers buffers(work);
  const NodeUpdateCosts costs = buffers.measure(steps, RepeatPlan{1, 3}, GemmKernel::naive);
  EXPECT_EQ(costs.batches, 7);
  EXPECT_EQ(costs.kernel_nodes, 7u);
  EXPECT_EQ(costs.memcpy_nodes, 14u);
  EXPECT_TRUE(costs.node_level_note.empty()) << costs.node_level_note;
  ASSERT_TRUE(costs.node_level.has_value());
  EXPECT_EQ(costs.node_level->samples, 3);
  ASSERT_TRUE(costs.node_level_check.has_value());
  EXPECT_TRUE(costs.node_level_check->passed) << costs.node_level_check->message();
  EXPECT_EQ(costs.node_level_check->batches_checked, 7);
  EXPECT_TRUE(costs.whole_graph_check.passed) << costs.whole_graph_check.message();
  EXPECT_TRUE(costs.recapture_check.passed) << costs.recapture_check.message();
  // The second data differ from the first, so an exec still reading the first
  // buffers would have failed the check (verify compares C with its own A and B).
  EXPECT_NE(std::memcmp(buffers.first.host_a(0), buffers.second.host_a(0), work.a_bytes()), 0)
      << "the seeds gave the same data";
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

TEST_F(ChangingShapesTest, NodeLevelUpdatesSayNaiveKernelOnlyForOtherKernels) {
  const Lab steps(GemmKernel::tiled);
  UpdateBuffers buffers(Workload{4, {32, 32, 32}});
  const NodeUpdateCosts costs = buffers.measure(steps, RepeatPlan{0, 2}, GemmKernel::tiled);
  EXPECT_FALSE(costs.node_level.has_value());
  EXPECT_FALSE(costs.node_level_check.has_value());
  EXPECT_THAT(costs.node_level_note, ::testing::HasSubstr("node-level update: naive kernel only"));
  EXPECT_TRUE(costs.whole_graph_check.passed) << costs.whole_graph_check.message();
  EXPECT_TRUE(costs.recapture_check.passed) << costs.recapture_check.message();
}

}  // namespace gpu_changing_shapes
}  // namespace csg::graphs
