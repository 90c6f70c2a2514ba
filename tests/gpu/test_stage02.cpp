// Stage 02's pieces on the GPU and the stage end to end: a CopySet refuses
// buffers that are not the kind they claim; the round trip is bit-exact for
// every kind; write-combined memory works as an H2D source; the busy kernel
// runs at least as long as asked; the lesson's and each subcommand's JSON
// holds a verified measurement for every size, kind and direction asked for
// (the stage's own allocation calls, checked kind by kind inside the run).
#include <chrono>
#include <set>
#include <tuple>
#include <vector>

#include <gmock/gmock.h>
#include <nlohmann/json.hpp>

#include "workload/spin.hpp"
#include "02_pinned_vs_pageable/copy_buffers.hpp"
#include "owners.hpp"
#include "base/errors.hpp"
#include "gpu_test.hpp"
#include "host_memory_kinds.hpp"
#include "02_pinned_vs_pageable/lab/pinning-cost/pinning_cost.hpp"
#include "report/result.hpp"
#include "run_process.hpp"
#include "cuda/stream_pool.hpp"
#include "measure/timers.hpp"

namespace csg::copies {
namespace gpu_stage02 {

constexpr HostMemory kAllKinds[] = {HostMemory::pageable, HostMemory::pinned, HostMemory::registered,
                                    HostMemory::write_combined};
// Not a multiple of 8 or of a page: the pattern's tail and partial pages are exercised.
constexpr std::size_t kOddBytes = (std::size_t{1} << 20) + 13;
constexpr std::uint64_t kSeed = 7;

// ---- on the GPU ----------------------------------------------------------------

using testing::memory_type;

// The tests' own way to get each kind (the laboratory's is copy_buffers.cpp's
// allocate_host, the lesson's in its main.cu; the runs below go through them).
HostBuffer<std::byte> allocate_for_test(HostMemory kind, std::size_t bytes) {
  return HostBuffer<std::byte>(static_cast<std::byte*>(testing::allocate_host(kind, bytes)), bytes, kind);
}

class Stage02KindTest : public testing::GpuTest, public ::testing::WithParamInterface<HostMemory> {};

TEST_P(Stage02KindTest, BuffersAreTheKindTheyClaim) {
  const HostMemory kind = GetParam();
  const HostMemory kinds[] = {kind};
  CopySet set(kOddBytes, kinds, kSeed, allocate_for_test);
  const cudaMemoryType expected = kind == HostMemory::pageable ? cudaMemoryTypeUnregistered : cudaMemoryTypeHost;
  EXPECT_EQ(memory_type(set.host_src(kind)), expected);
  EXPECT_EQ(memory_type(set.host_dst(kind)), expected);
  EXPECT_EQ(memory_type(set.device_in()), cudaMemoryTypeDevice);
}

TEST_P(Stage02KindTest, RoundTripIsBitExact) {
  const HostMemory kind = GetParam();
  const HostMemory kinds[] = {kind};
  CopySet set(kOddBytes, kinds, kSeed, allocate_for_test);
  Stream stream(cudaStreamNonBlocking);
  const auto round_trip = set.round_trip(kind, stream.get());
  EXPECT_FALSE(round_trip.has_value()) << to_string(kind) << ": byte " << round_trip->offset;
  // A D2H from device_out (which holds the pattern) into the destination.
  CUDA_CHECK(cudaMemcpyAsync(set.host_dst(kind), set.device_out(), set.bytes(), cudaMemcpyDeviceToHost,
                             stream.get()));
  const auto destination = set.check_destination(kind, stream.get());
  EXPECT_FALSE(destination.has_value()) << to_string(kind) << ": byte " << destination->offset;
}

TEST_P(Stage02KindTest, ADestinationNoCopyReachedFails) {
  // The checks can fail: the destination starts poisoned, and nothing copied into it.
  const HostMemory kind = GetParam();
  const HostMemory kinds[] = {kind};
  CopySet set(4096, kinds, kSeed, allocate_for_test);
  Stream stream(cudaStreamNonBlocking);
  const auto mismatch = set.check_destination(kind, stream.get());
  ASSERT_TRUE(mismatch.has_value()) << to_string(kind);
  EXPECT_EQ(mismatch->offset, 0u);
  EXPECT_EQ(mismatch->got, kPoisonByte);
}

INSTANTIATE_TEST_SUITE_P(AllKinds, Stage02KindTest, ::testing::ValuesIn(kAllKinds),
                         [](const ::testing::TestParamInfo<HostMemory>& param_info) {
                           std::string name(to_string(param_info.param));
                           std::erase(name, '-');
                           return name;
                         });

class Stage02Test : public testing::GpuTest {};

TEST_F(Stage02Test, PageableMemoryPassedOffAsPageLockedIsRefused) {
  // Ordinary memory under a page-locked kind's name: a sweep on it would time
  // a pageable copy and call it pinned. (Freeing it the claimed way fails with
  // a warning and leaks 8 KiB: this test only needs the refusal.)
  auto pretend = [](HostMemory claimed, std::size_t bytes) {
    return HostBuffer<std::byte>(static_cast<std::byte*>(page_aligned_alloc(bytes)), bytes, claimed);
  };
  for (const HostMemory kind : {HostMemory::pinned, HostMemory::registered, HostMemory::write_combined}) {
    const HostMemory kinds[] = {kind};
    EXPECT_THROW(CopySet(4096, kinds, kSeed, pretend), std::logic_error) << to_string(kind);
  }
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

TEST_F(Stage02Test, WriteCombinedMemoryIsAnH2DSource) {
  HostBuffer<std::byte> source = allocate_for_test(HostMemory::write_combined, kOddBytes);
  unsigned flags = 0;
  CUDA_CHECK(cudaHostGetFlags(&flags, source.data()));
  EXPECT_NE(flags & cudaHostAllocWriteCombined, 0u);
  fill_pattern(source.span(), kSeed);  // the host only writes it
  DeviceBuffer<std::byte> device(kOddBytes);
  CUDA_CHECK(cudaMemcpy(device.data(), source.data(), kOddBytes, cudaMemcpyHostToDevice));
  HostBuffer<std::byte> back(kOddBytes, HostMemory::pinned);
  std::fill(back.span().begin(), back.span().end(), kPoisonByte);
  CUDA_CHECK(cudaMemcpy(back.data(), device.data(), kOddBytes, cudaMemcpyDeviceToHost));
  EXPECT_FALSE(find_pattern_mismatch(back.span(), kSeed).has_value());
}

TEST_F(Stage02Test, BusyKernelRunsAtLeastItsDuration) {
  constexpr std::chrono::milliseconds kDuration{3};
  Stream stream(cudaStreamNonBlocking);
  EventTimer timer;
  timer.start(stream.get());
  launch_spin(kDuration, 4, stream.get());
  const Millis elapsed = timer.stop();
  // A correctness bound, not a speed one: the kernel must not return early.
  EXPECT_GE(elapsed.count(), 0.95 * Millis(kDuration).count());
}

TEST_F(Stage02Test, TheLaboratorysAllocationsAreTheKindTheyClaim) {
  for (const HostMemory kind : kAllKinds) {
    HostBuffer<std::byte> buffer = allocate_host(kind, kOddBytes);
    EXPECT_EQ(buffer.kind(), kind);
    EXPECT_EQ(memory_type(buffer.data()),
              kind == HostMemory::pageable ? cudaMemoryTypeUnregistered : cudaMemoryTypeHost)
        << to_string(kind);
  }
}

TEST_F(Stage02Test, PinningCostMeasuresEveryCall) {
  const std::vector<PinningCost> costs = measure_pinning_costs({std::uint64_t{1} << 20}, 2);
  ASSERT_EQ(costs.size(), 1u);
  EXPECT_EQ(costs[0].checks, 4) << "the cudaMallocHost block and the registered range, twice";
  EXPECT_TRUE(pinning_verified(costs));
  for (const Summary* s : {&costs[0].malloc_host, &costs[0].free_host, &costs[0].malloc_touch,
                           &costs[0].host_register, &costs[0].host_unregister}) {
    EXPECT_EQ(s->samples, 2);
    EXPECT_GT(s->median_ms, 0.0);
  }
}

// ---- the stage end to end ------------------------------------------------------

nlohmann::json run_stage02(const std::vector<std::string>& args, const testing::TempDir& dir,
                           const std::string& must_say) {
  std::vector<std::string> argv{CSG_STAGE02_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  const testing::JsonRun run = testing::run_with_json(argv, dir, "02.json");
  EXPECT_EQ(run.exit_code, kExitOk) << run.out << run.err;
  EXPECT_THAT(run.out, ::testing::HasSubstr(must_say));
  if (!run.wrote_json()) {
    ADD_FAILURE() << "no JSON written\n" << run.err;
    return nlohmann::json::object();
  }
  return run.doc();
}

using CopyKey = std::tuple<std::string, std::string, std::uint64_t>;  // (kind, direction, bytes)

std::set<CopyKey> copies_named(const nlohmann::json& doc, const std::string& name) {
  std::set<CopyKey> copies;
  for (const auto& m : doc.at("measurements")) {
    if (m.at("name") != name) continue;
    const auto& p = m.at("params");
    const bool inserted =
        copies.emplace(p.at("host_memory"), p.at("direction"), p.at("bytes").get<std::uint64_t>()).second;
    EXPECT_TRUE(inserted) << "duplicate " << m.dump();
    EXPECT_EQ(m.at("verified"), true) << m.dump();
    EXPECT_GT(m.at("median_ms").get<double>(), 0.0) << m.dump();
    EXPECT_LE(m.at("min_ms").get<double>(), m.at("median_ms").get<double>());
  }
  return copies;
}

// The lesson at odd sizes: every copy of both kinds each way, the calls of
// the async size, and the sweep's names for the same figures.
TEST_F(Stage02Test, TheLessonTimesEveryCopyAndEveryByteArrives) {
  testing::TempDir dir;
  const nlohmann::json doc =
      run_stage02({"--sizes", "1000,4K,64K", "--async-mib", "1", "--warmup", "1", "--repeats", "2"}, dir,
                  "every byte arrived");
  ASSERT_TRUE(doc.contains("measurements"));
  EXPECT_TRUE(doc.at("subcommand").is_null());
  EXPECT_EQ(doc.at("config").at("sizes"), nlohmann::json({1000, 4096, 65536}));
  std::set<CopyKey> expected;
  std::set<CopyKey> expected_async;
  for (const char* kind : {"pageable", "pinned"}) {
    for (const char* direction : {"h2d", "d2h"}) {
      for (const std::uint64_t bytes : {1000u, 4096u, 65536u}) expected.emplace(kind, direction, bytes);
      expected_async.emplace(kind, direction, std::uint64_t{1} << 20);
    }
  }
  EXPECT_EQ(copies_named(doc, "copy"), expected);
  EXPECT_EQ(copies_named(doc, "async_copy"), expected_async);
  EXPECT_EQ(copies_named(doc, "async_call"), expected_async);
  EXPECT_EQ(doc.at("verification").at("passed"), true);
  EXPECT_EQ(doc.at("verification").at("batches_checked"), 2);
  for (const char* key : {"pinned_h2d_peak_gbps", "pageable_d2h_peak_gbps", "pinned_over_pageable_h2d_at_largest",
                          "pageable_h2d_async_host_blocked_ms", "pinned_d2h_async_call_share"}) {
    ASSERT_TRUE(doc.at("bounds").contains(key)) << key << " missing from " << doc.at("bounds").dump();
    EXPECT_GT(doc.at("bounds").at(key).get<double>(), 0.0) << key;
  }
}

TEST_F(Stage02Test, TheSweepHasAVerifiedMeasurementForEverySizeKindAndDirection) {
  testing::TempDir dir;
  const nlohmann::json doc = run_stage02(
      {"sweep", "--sizes", "4K,64K,1000", "--warmup", "1", "--repeats", "2"}, dir, "round trips verified");
  ASSERT_TRUE(doc.contains("measurements"));
  EXPECT_EQ(doc.at("schema"), kResultSchema);
  EXPECT_EQ(doc.at("stage"), "02_pinned_vs_pageable");
  EXPECT_EQ(doc.at("subcommand"), "sweep");
  EXPECT_EQ(doc.at("config").at("sizes"), nlohmann::json({1000, 4096, 65536}));

  const std::set<CopyKey> copies = copies_named(doc, "copy");
  for (const std::uint64_t bytes : {1000u, 4096u, 65536u}) {
    for (const char* kind : {"pageable", "pinned", "registered", "write-combined"}) {
      for (const char* direction : {"h2d", "d2h"}) {
        EXPECT_EQ(copies.count({kind, direction, bytes}), 1u) << kind << " " << direction << " " << bytes;
      }
    }
    EXPECT_EQ(copies.count({"pinned", "bidirectional", bytes}), 1u) << bytes;
  }
  EXPECT_EQ(copies.size(), 3u * (4u * 2u + 1u));
  const auto& verification = doc.at("verification");
  EXPECT_EQ(verification.at("passed"), true);
  EXPECT_EQ(verification.at("method"), "round-trip bit-exact");
  EXPECT_EQ(verification.at("batches_checked"), 3 * 4);  // every (size, kind)
  for (const char* key : {"pinned_h2d_peak_gbps", "pinned_d2h_peak_gbps", "pageable_h2d_peak_gbps",
                          "pageable_d2h_peak_gbps", "bidirectional_peak_gbps", "sweep_peak_pinned_bytes"}) {
    ASSERT_TRUE(doc.at("bounds").contains(key)) << key << " missing from " << doc.at("bounds").dump();
    EXPECT_GT(doc.at("bounds").at(key).get<double>(), 0.0) << key;
  }
  EXPECT_EQ(doc.at("staging").size(), 3u * 2u);  // every size, both directions
}

TEST_F(Stage02Test, TheSweepsHostMemoryChoosesTheKindsMeasured) {
  testing::TempDir dir;
  const nlohmann::json doc =
      run_stage02({"sweep", "--sizes", "4K", "--host-memory", "pinned", "--warmup", "0", "--repeats", "1"}, dir,
                  "the 1 round trip verified");
  ASSERT_TRUE(doc.contains("measurements"));
  std::set<std::string> kinds;
  for (const auto& m : doc.at("measurements")) {
    if (m.at("name") == "copy") kinds.insert(m.at("params").at("host_memory"));
  }
  EXPECT_EQ(kinds, (std::set<std::string>{"pinned"}));
  EXPECT_EQ(doc.at("config").at("host_memory"), nlohmann::json({"pinned"}));
  EXPECT_FALSE(doc.at("bounds").contains("pageable_h2d_peak_gbps"));
  EXPECT_TRUE(doc.at("staging").empty());
  EXPECT_EQ(doc.at("verification").at("batches_checked"), 1);
}

TEST_F(Stage02Test, TheOverlapRunsEveryCaseAndChecksBothKinds) {
  testing::TempDir dir;
  const nlohmann::json doc = run_stage02(
      {"overlap", "--overlap-mib", "1", "--kernel-ms", "1", "--warmup", "1", "--repeats", "2"}, dir,
      "round trips verified");
  ASSERT_TRUE(doc.contains("measurements"));
  EXPECT_EQ(doc.at("subcommand"), "overlap");
  EXPECT_EQ(doc.at("overlap").size(), 2u * 2u * 2u);  // 2 kinds x 2 directions x 2 orders
  ASSERT_EQ(doc.at("verdicts").size(), 2u);            // the host held, and the copy beside the kernel
  EXPECT_EQ(doc.at("verdicts").at(0).at("id"), "overlap.host_blocked");
  EXPECT_EQ(doc.at("verification").at("batches_checked"), 2);
  for (const char* key : {"pageable_h2d_async_host_blocked_ms", "pinned_h2d_overlap_ratio"}) {
    ASSERT_TRUE(doc.at("bounds").contains(key)) << key << " missing from " << doc.at("bounds").dump();
    EXPECT_GT(doc.at("bounds").at(key).get<double>(), 0.0) << key;
  }
}

TEST_F(Stage02Test, ThePinningCostTimesEveryCallOfEverySize) {
  testing::TempDir dir;
  const nlohmann::json doc =
      run_stage02({"pinning-cost", "--pin-max-mib", "4", "--warmup", "0", "--repeats", "1"}, dir, "page-locked");
  ASSERT_TRUE(doc.contains("measurements"));
  EXPECT_EQ(doc.at("subcommand"), "pinning-cost");
  std::set<std::pair<std::string, std::uint64_t>> calls;
  for (const auto& m : doc.at("measurements")) {
    EXPECT_EQ(m.at("name"), "pin_cost");
    EXPECT_TRUE(m.at("verified").is_null()) << m.dump();
    calls.emplace(m.at("params").at("call"), m.at("params").at("bytes").get<std::uint64_t>());
  }
  EXPECT_EQ(calls.size(), 5u * 2u) << "5 calls at 1 and 4 MiB";
  EXPECT_EQ(doc.at("verification").at("passed"), true);
  EXPECT_EQ(doc.at("pinning").at("sizes"), nlohmann::json({std::uint64_t{1} << 20, std::uint64_t{4} << 20}));
}

}  // namespace gpu_stage02
}  // namespace csg::copies
