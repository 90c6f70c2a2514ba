// Stage 04's capture, as the stage itself runs it: the graph CUDA builds from
// the article's fork/join capture, for several pool sizes, read from the
// graph subcommand's JSON (one independent chain per stream, no event nodes); and the
// pieces of the stage folder on graphs of the tests' own: the capture guard,
// a refused exec update, the graph inspection.
#include <gmock/gmock.h>

#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "04_graph_capture_gemm/lab/capture_guard.hpp"
#include "04_graph_capture_gemm/lab/exec_update.hpp"
#include "04_graph_capture_gemm/graph_inspect.hpp"
#include "base/errors.hpp"
#include "owners.hpp"
#include "cuda/graph.hpp"
#include "cuda/stream_pool.hpp"
#include "gpu_test.hpp"
#include "run_process.hpp"
#include "workload/gemm.hpp"

namespace csg::graphs {
namespace gpu_graph_capture {

class GraphCaptureTest : public testing::GpuTest {};

struct PoolCase {
  int batches;
  int streams;
};

class StageGraphTest : public testing::GpuTest, public ::testing::WithParamInterface<PoolCase> {};

TEST_P(StageGraphTest, OneChainPerStreamAndNoEventNodes) {
  const auto [batches, streams] = GetParam();
  testing::TempDir dir;
  const testing::JsonRun run = testing::run_with_json(
      {CSG_STAGE04_BINARY, "graph", "--batches", std::to_string(batches), "--m", "33", "--n", "17", "--k", "65",
       "--streams", std::to_string(streams)},
      dir, "04.json");
  ASSERT_EQ(run.exit_code, kExitOk) << run.out << run.err;
  const nlohmann::json doc = run.doc();
  const auto& g = doc.at("graph");
  const int chains = std::min(batches, streams);
  EXPECT_EQ(g.at("nodes"), 3 * batches);
  EXPECT_EQ(g.at("kernel_nodes"), batches);
  EXPECT_EQ(g.at("memcpy_nodes"), 2 * batches);
  EXPECT_EQ(g.at("event_nodes"), 0) << "fork and join events make no nodes";
  EXPECT_EQ(g.at("empty_nodes").get<int>() + g.at("other_nodes").get<int>(), 0);
  EXPECT_EQ(g.at("roots"), chains);
  EXPECT_EQ(g.at("leaves"), chains);
  EXPECT_EQ(g.at("chains"), chains);
  EXPECT_EQ(g.at("edges"), 3 * batches - chains) << "a chain of n nodes has n - 1 edges";
  EXPECT_EQ(doc.at("verification").at("passed"), true) << doc.at("verification").dump();
}

INSTANTIATE_TEST_SUITE_P(PoolSizes, StageGraphTest,
                         ::testing::Values(PoolCase{37, 1}, PoolCase{37, 3}, PoolCase{37, 8}, PoolCase{5, 8}),
                         [](const ::testing::TestParamInfo<PoolCase>& param_info) {
                           return std::to_string(param_info.param.batches) + "_batches_" +
                                  std::to_string(param_info.param.streams) + "_streams";
                         });

// A capture of `count` poison memsets on one stream: a graph of the tests' own.
Graph capture_memsets(cudaStream_t stream, DeviceBuffer<float>& data, int count) {
  CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  for (int i = 0; i < count; ++i) poison_device(data.data(), data.size(), stream);
  return end_capture(stream);
}

TEST_F(GraphCaptureTest, AnExceptionMidCaptureLeavesNoStreamCapturing) {
  const StreamPool pool(3);
  DeviceBuffer<float> data(256);
  EXPECT_THROW(
      {
        CUDA_CHECK(cudaStreamBeginCapture(pool[0], cudaStreamCaptureModeGlobal));
        const CaptureGuard guard(pool);
        CUDA_CHECK(cudaEventRecord(pool.fork_event(), pool[0]));
        CUDA_CHECK(cudaStreamWaitEvent(pool[1], pool.fork_event(), 0));  // stream 1 joins the capture
        poison_device(data.data(), data.size(), pool[1]);
        throw std::runtime_error("a failure in the middle of step 3");
      },
      std::runtime_error);
  EXPECT_FALSE(any_capturing(pool));
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  // The same streams capture again.
  const Graph graph = capture_memsets(pool[1], data, 2);
  EXPECT_EQ(graph.node_count(), 2u);
}

TEST_F(GraphCaptureTest, ARefusedExecUpdateIsAnAnswerNotAnError) {
  const Stream stream;
  DeviceBuffer<float> first(256);
  DeviceBuffer<float> second(256);
  const GraphExec exec = GraphExec::instantiate(capture_memsets(stream.get(), first, 2));
  // Same topology, other pointers: applied.
  const ExecUpdateAttempt same = update_exec(exec, capture_memsets(stream.get(), second, 2));
  EXPECT_TRUE(same.applied()) << same.describe();
  // One node fewer: refused, and reported as such.
  const ExecUpdateAttempt fewer = update_exec(exec, capture_memsets(stream.get(), first, 1));
  EXPECT_FALSE(fewer.applied());
  EXPECT_EQ(fewer.status, cudaErrorGraphExecUpdateFailure);
  EXPECT_EQ(fewer.result, cudaGraphExecUpdateErrorTopologyChanged) << fewer.describe();
  EXPECT_THAT(fewer.describe(), ::testing::HasSubstr("TopologyChanged"));
  EXPECT_EQ(cudaGetLastError(), cudaSuccess) << "a refused update must not be left for the next check";
}

TEST_F(GraphCaptureTest, InspectionCountsChainsRootsAndLeaves) {
  const Stream stream;
  DeviceBuffer<float> data(64);
  const GraphStructure chain = inspect_graph(capture_memsets(stream.get(), data, 4));
  EXPECT_EQ(chain.nodes, 4u);
  EXPECT_EQ(chain.edges, 3u);
  EXPECT_EQ(chain.memcpy_nodes + chain.kernel_nodes, 0u);
  EXPECT_EQ(chain.other_nodes, 4u) << "memset nodes are neither copies nor kernels";
  EXPECT_EQ(chain.roots, 1u);
  EXPECT_EQ(chain.leaves, 1u);
  EXPECT_EQ(chain.chains, 1u);
}

}  // namespace gpu_graph_capture
}  // namespace csg::graphs
