#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <mutex>
#include <set>
#include <thread>
#include <utility>
#include <vector>

#include "base/parallel.hpp"
#include "base/units.hpp"
#include "batches.hpp"

namespace csg {
namespace cpu_workload {

TEST(Workload, ArticleShapeByteCounts) {
  const Workload work;  // the article's defaults
  EXPECT_EQ(work.batches, 100);
  EXPECT_EQ(work.a_bytes(), 1024u * 512u * 4u);   // 2 MiB per A_i
  EXPECT_EQ(work.b_bytes(), 512u * 1024u * 4u);   // 2 MiB
  EXPECT_EQ(work.c_bytes(), 1024u * 1024u * 4u);  // 4 MiB per C_i
  EXPECT_DOUBLE_EQ(work.flops_per_batch(), 2.0 * 1024 * 1024 * 512);
}

TEST(Workload, FillGivesSmallIntegersThatAreNotAllEqual) {
  std::vector<float> data(10000);
  fill_matrix(data, 1, 5);
  std::set<float> values(data.begin(), data.end());
  EXPECT_EQ(values, (std::set<float>{0.f, 1.f, 2.f, 3.f, 4.f}));
}

TEST(Workload, FillIsDeterministicPerSeedAndMatrix) {
  std::vector<float> first(4096), second(4096), other_seed(4096), other_matrix(4096);
  fill_matrix(first, 42, 3);
  fill_matrix(second, 42, 3);
  fill_matrix(other_seed, 43, 3);
  fill_matrix(other_matrix, 42, 4);
  EXPECT_EQ(first, second);
  EXPECT_NE(first, other_seed);
  EXPECT_NE(first, other_matrix);
}

TEST(Workload, FillInputsMatchesPerMatrixFill) {
  // A_i is matrix i+1 and B is matrix 0, whatever the batch count: the same
  // seed gives the same A_3 in a run of 4 batches and in a run of 10.
  Workload small;
  small.batches = 4;
  small.shape = GemmShape{8, 6, 5};
  Workload large = small;
  large.batches = 10;
  std::vector<float> a_small(small.batch_count() * small.a_elems()), b_small(small.b_elems());
  std::vector<float> a_large(large.batch_count() * large.a_elems()), b_large(large.b_elems());
  fill_inputs(small, 9, a_small, b_small);
  fill_inputs(large, 9, a_large, b_large);
  EXPECT_EQ(b_small, b_large);
  EXPECT_TRUE(std::equal(a_small.begin(), a_small.end(), a_large.begin()));
  std::vector<float> b_direct(small.b_elems());
  fill_matrix(b_direct, 9, 0);
  EXPECT_EQ(b_small, b_direct);
}

TEST(Workload, ManySmallAsAreSharedOutARunOfBatchesPerThreadAndFilledAsOneByOne) {
  EXPECT_EQ(grain_for(64 * 64), 16u);  // 16 matrices of 64x64 are worth a thread
  EXPECT_EQ(grain_for(1024 * 512), 1u);
  EXPECT_EQ(grain_for(0), kFloatsPerThread);
  Workload many;
  many.batches = 64;  // four grains: split between threads wherever there are two cores
  many.shape = GemmShape{64, 64, 64};
  std::vector<float> a(many.batch_count() * many.a_elems()), b(many.b_elems());
  fill_inputs(many, 3, a, b);
  std::vector<float> one(many.a_elems());
  for (std::size_t batch = 0; batch < many.batch_count(); ++batch) {
    fill_matrix(one, 3, batch + 1);
    ASSERT_TRUE(std::equal(one.begin(), one.end(), a.begin() + std::ptrdiff_t(batch * many.a_elems())))
        << "batch " << batch;
  }
}

TEST(Workload, PoisonIsNaNEverywhere) {
  std::vector<float> data(1000, 1.0f);
  poison_host(data);
  EXPECT_TRUE(std::all_of(data.begin(), data.end(), [](float v) { return std::isnan(v); }));
}

TEST(ParallelFor, EveryIndexOnceWhateverTheGrain) {
  for (std::size_t grain : {std::size_t(1), std::size_t(7), std::size_t(1000), std::size_t(1) << 20}) {
    std::vector<std::atomic<int>> seen(5000);
    parallel_for(seen.size(), [&](std::size_t begin, std::size_t end) {
      for (std::size_t i = begin; i < end; ++i) seen[i].fetch_add(1);
    }, grain);
    for (std::size_t i = 0; i < seen.size(); ++i) ASSERT_EQ(seen[i].load(), 1) << "index " << i << ", grain " << grain;
  }
}

TEST(ParallelFor, WorkBelowTwoGrainsRunsOnTheCallingThreadInOneChunk) {
  std::mutex mutex;
  std::vector<std::pair<std::size_t, std::size_t>> chunks;
  std::set<std::thread::id> threads;
  parallel_for(4096, [&](std::size_t begin, std::size_t end) {
    const std::lock_guard<std::mutex> lock(mutex);
    chunks.emplace_back(begin, end);
    threads.insert(std::this_thread::get_id());
  }, std::size_t(1) << 16);
  ASSERT_EQ(chunks.size(), 1u);
  EXPECT_EQ(chunks[0], (std::pair<std::size_t, std::size_t>{0, 4096}));
  EXPECT_EQ(*threads.begin(), std::this_thread::get_id());
}

TEST(Units, CheckedArithmetic) {
  EXPECT_EQ(checked_mul(1u << 20, 1u << 20), std::uint64_t{1} << 40);
  EXPECT_FALSE(checked_mul(std::uint64_t{1} << 40, std::uint64_t{1} << 30).has_value());
  EXPECT_FALSE(checked_add(~std::uint64_t{0}, 1).has_value());
  EXPECT_EQ(checked_add(2, 3), 5u);
}

TEST(Units, FormatBytes) {
  EXPECT_EQ(format_bytes(512), "512 B");
  EXPECT_EQ(format_bytes(2 * kKiB), "2.0 KiB");
  EXPECT_EQ(format_bytes(400 * kMiB), "400.0 MiB");
  EXPECT_EQ(format_bytes(3 * kGiB / 2), "1.50 GiB");
}

}  // namespace cpu_workload
}  // namespace csg
