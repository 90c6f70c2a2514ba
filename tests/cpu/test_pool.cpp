// The stream-pool pieces that need no GPU: the pipeline bound's arithmetic,
// the device slots a run allocates, and stage 03's own options.
#include <gtest/gtest.h>

#include <algorithm>

#include "base/errors.hpp"
#include "measure/pipeline_bound.hpp"
#include "cli/pool_options.hpp"
#include "run_process.hpp"
#include "usage_checks.hpp"

namespace csg {
namespace {

TEST(PipelineBound, ComputeBoundAddsOneBatchOfFillAndDrain) {
  // 100 batches: H2D 4 ms, kernels 18 ms, D2H 8 ms -> per batch 0.04, 0.18, 0.08.
  const PipelineBound bound = pipeline_bound({4.0, 18.0, 8.0}, 9.0, 100);
  EXPECT_DOUBLE_EQ(bound.kernel_path_ms, 0.04 + 18.0 + 0.08);
  EXPECT_DOUBLE_EQ(bound.h2d_path_ms, 4.0 + 0.18 + 0.08);
  EXPECT_DOUBLE_EQ(bound.d2h_path_ms, 0.04 + 0.18 + 8.0);
  EXPECT_DOUBLE_EQ(bound.both_ways_ms, 9.0);
  EXPECT_DOUBLE_EQ(bound.bound_ms, 18.12);
  EXPECT_EQ(bound.limited_by, "kernels");
}

TEST(PipelineBound, CopyBoundRegimesNameTheirResource) {
  // A fast kernel: 2 ms for all, copies 4 and 8 ms.
  const PipelineBound d2h = pipeline_bound({4.0, 2.0, 8.0}, 7.0, 100);
  EXPECT_EQ(d2h.limited_by, "D2H copies");
  EXPECT_DOUBLE_EQ(d2h.bound_ms, 0.04 + 0.02 + 8.0);
  // Both directions at once slower than either alone: the shared link sets it.
  const PipelineBound both = pipeline_bound({4.0, 2.0, 8.0}, 10.0, 100);
  EXPECT_EQ(both.limited_by, "PCIe both ways");
  EXPECT_DOUBLE_EQ(both.bound_ms, 10.0);
  const PipelineBound h2d = pipeline_bound({9.0, 2.0, 1.0}, 9.1, 10);
  EXPECT_EQ(h2d.limited_by, "H2D copies");
  EXPECT_DOUBLE_EQ(h2d.bound_ms, 9.0 + 0.2 + 0.1);
  EXPECT_THROW(pipeline_bound({1.0, 1.0, 1.0}, 1.0, 0), std::invalid_argument);
}

TEST(PoolConfig, SlotsAreOnePerStreamAndShareAStreamInEverySweptPool) {
  PoolConfig config;
  config.streams = 8;
  EXPECT_EQ(device_slots_for(config, 100), 8);
  config.sweep = {1, 2, 4, 8, 16, 32};
  EXPECT_EQ(device_slots_for(config, 100), 32);  // lcm; 32 % every size == 0
  config.sweep = {3, 8};
  EXPECT_EQ(device_slots_for(config, 100), 24);
  config.sweep = {7, 11, 13};
  EXPECT_EQ(device_slots_for(config, 100), 100);  // lcm 8008 > batches: one slot per batch
  config.sweep = {};
  config.streams = 32;
  EXPECT_EQ(device_slots_for(config, 10), 10);  // never more slots than batches
  config.device_buffers = DeviceBuffers::per_batch;
  config.streams = 8;
  EXPECT_EQ(device_slots_for(config, 100), 100);
  // Whatever the sizes, batches sharing a slot share a stream in every pool.
  config.device_buffers = DeviceBuffers::slots;
  config.sweep = {1, 3, 5, 8};
  const int slots = device_slots_for(config, 1000);
  for (int size : {1, 3, 5, 8}) EXPECT_EQ(slots % size, 0) << size;
}

TEST(PoolConfig, ReadsTheOptionsAndWarnsAboutIdleStreams) {
  StageCli cli("test", "test");
  add_pool_options(cli, /*with_sweep=*/true);
  auto options = cli.parse(std::vector<std::string>{"--batches", "10", "--streams", "16", "--streams-sweep", "2,4"});
  ASSERT_TRUE(options);
  const PoolConfig config = read_pool_options(cli, *options, true);
  EXPECT_EQ(config.streams, 16);
  EXPECT_EQ(config.sweep, (std::vector<int>{2, 4}));
  EXPECT_EQ(config.device_buffers, DeviceBuffers::slots);
  ASSERT_EQ(config.warnings.size(), 1u);
  EXPECT_NE(config.warnings[0].find("6 stream(s) get no work"), std::string::npos) << config.warnings[0];

  options = cli.parse(std::vector<std::string>{"--streams-sweep", "off", "--device-buffers", "per-batch"});
  ASSERT_TRUE(options);
  const PoolConfig off = read_pool_options(cli, *options, true);
  EXPECT_TRUE(off.sweep.empty());
  EXPECT_EQ(off.device_buffers, DeviceBuffers::per_batch);
  EXPECT_TRUE(off.warnings.empty());

  for (const char* bad : {"1,,2", ",", "0", "1,2000", "two"}) {
    options = cli.parse(std::vector<std::string>{"--streams-sweep", bad});
    ASSERT_TRUE(options);
    EXPECT_THROW(read_pool_options(cli, *options, true), UsageError) << bad;
  }
}

#ifdef CSG_STAGE03_BINARY
TEST(Stage03Cli, BadPoolOptionsExit2WithOneLineBeforeAnyCudaCall) {
  const std::vector<std::vector<std::string>> cases = {
      {"--streams", "0"}, {"--streams", "1025"}, {"--streams-sweep", "1,,2"}, {"--streams-sweep", ","},
      {"--streams-sweep", "4,x"}, {"--device-buffers", "foo"}, {"--host-memory", "registered"}};
  for (const auto& args : cases) {
    std::vector<std::string> argv{CSG_STAGE03_BINARY};
    argv.insert(argv.end(), args.begin(), args.end());
    testing::TempDir dir;
    argv.insert(argv.end(), {"--json", dir.file("out.json")});
    const testing::ProcessResult run = testing::run_process(argv);
    EXPECT_TRUE(testing::refused_as_usage(run, args[0], dir)) << args[0] << " " << args[1];
  }
}

#endif

}  // namespace
}  // namespace csg
