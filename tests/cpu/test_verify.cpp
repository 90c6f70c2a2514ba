// Verification must catch every kind of wrong output and pass a right one.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "reference.hpp"
#include "batches.hpp"

namespace csg {
namespace cpu_verify {

struct Batches {
  Workload work;
  std::vector<float> a, b, c;

  Batches(int batches, int m, int n, int k, std::uint64_t seed = 7) {
    work.batches = batches;
    work.shape = GemmShape{m, n, k};
    a.resize(work.batch_count() * work.a_elems());
    b.resize(work.b_elems());
    fill_inputs(work, seed, a, b);
    c = testing::reference_gemm(work, a, b);
  }
  float& at(int batch, int row, int col) {
    return c[std::size_t(batch) * work.c_elems() + std::size_t(row) * work.shape.n + col];
  }
  VerifyResult verify() const { return verify_batches(work, a, b, c, VerifyOptions{3, 32}); }
};

TEST(Verify, PassesACorrectResult) {
  Batches data(5, 33, 17, 65);
  const VerifyResult result = data.verify();
  EXPECT_TRUE(result.passed) << result.message();
  EXPECT_EQ(result.batches_checked, 5);
  EXPECT_FALSE(result.first_failure.has_value());
  EXPECT_EQ(result.message(), "all 5 batches verified (freivalds+sampled)");
}

TEST(Verify, ReferenceIsNotTrivial) {
  // Guard against testing on zeros: the data and the products must be non-zero.
  Batches data(2, 8, 8, 8);
  double sum = 0.0;
  for (float v : data.c) sum += v;
  EXPECT_GT(sum, 0.0);
}

// One wrong element anywhere, in any batch, must be found and named exactly.
class VerifyCatchesOneWrongElement : public ::testing::TestWithParam<std::tuple<int, int, int>> {};

TEST_P(VerifyCatchesOneWrongElement, AndNamesIt) {
  const auto [batch, row, col] = GetParam();
  Batches data(6, 19, 23, 31);
  const float right = data.at(batch, row, col);
  data.at(batch, row, col) = right + 1.0f;
  const VerifyResult result = data.verify();
  ASSERT_FALSE(result.passed);
  ASSERT_TRUE(result.first_failure.has_value());
  EXPECT_EQ(result.first_failure->batch, batch);
  EXPECT_EQ(result.first_failure->row, row);
  EXPECT_EQ(result.first_failure->col, col);
  EXPECT_EQ(result.first_failure->expected, right);
  EXPECT_EQ(result.first_failure->got, right + 1.0f);
  EXPECT_NE(result.message().find("batch " + std::to_string(batch)), std::string::npos) << result.message();
}

INSTANTIATE_TEST_SUITE_P(Positions, VerifyCatchesOneWrongElement,
                         ::testing::Values(std::tuple{0, 0, 0}, std::tuple{5, 18, 22}, std::tuple{3, 7, 0},
                                           std::tuple{1, 0, 22}, std::tuple{4, 11, 13}),
                         [](const ::testing::TestParamInfo<std::tuple<int, int, int>>& param_info) {
                           // std::get, not a structured binding: its commas would split the macro's arguments.
                           return "batch" + std::to_string(std::get<0>(param_info.param)) + "_row" +
                                  std::to_string(std::get<1>(param_info.param)) + "_col" +
                                  std::to_string(std::get<2>(param_info.param));
                         });

TEST(Verify, CatchesNaN) {
  Batches data(3, 16, 16, 16);
  data.at(2, 4, 9) = std::numeric_limits<float>::quiet_NaN();
  const VerifyResult result = data.verify();
  ASSERT_FALSE(result.passed);
  EXPECT_EQ(result.first_failure->batch, 2);
  EXPECT_EQ(result.first_failure->row, 4);
  EXPECT_EQ(result.first_failure->col, 9);
  EXPECT_TRUE(std::isnan(result.first_failure->got));
}

TEST(Verify, CatchesInfinity) {
  Batches data(2, 8, 8, 8);
  data.at(1, 3, 3) = std::numeric_limits<float>::infinity();
  EXPECT_FALSE(data.verify().passed);
}

TEST(Verify, CatchesAnUnwrittenPoisonedBatch) {
  Batches data(4, 12, 10, 9);
  poison_host(std::span<float>(data.c).subspan(3 * data.work.c_elems(), data.work.c_elems()));
  const VerifyResult result = data.verify();
  ASSERT_FALSE(result.passed);
  EXPECT_EQ(result.first_failure->batch, 3);
  EXPECT_TRUE(std::isnan(result.first_failure->got));
}

TEST(Verify, CatchesAPartlyWrittenOutput) {
  // The last element of the last batch never written: the classic off-by-one.
  Batches data(3, 33, 33, 8);
  poison_host(std::span<float>(data.c).last(1));
  const VerifyResult result = data.verify();
  ASSERT_FALSE(result.passed);
  EXPECT_EQ(result.first_failure->batch, 2);
  EXPECT_EQ(result.first_failure->row, 32);
  EXPECT_EQ(result.first_failure->col, 32);
}

TEST(Verify, CatchesSwappedBatches) {
  // Right numbers in the wrong place (batch 1's C written into batch 0's slot).
  Batches data(2, 8, 8, 8);
  std::copy_n(data.c.begin() + std::ptrdiff_t(data.work.c_elems()), data.work.c_elems(), data.c.begin());
  const VerifyResult result = data.verify();
  ASSERT_FALSE(result.passed);
  EXPECT_EQ(result.first_failure->batch, 0);
}

TEST(Verify, ReportsTheLowestFailingBatch) {
  Batches data(8, 8, 8, 8);
  data.at(6, 1, 1) += 2.0f;
  data.at(2, 5, 5) += 2.0f;
  const VerifyResult result = data.verify();
  ASSERT_FALSE(result.passed);
  EXPECT_EQ(result.first_failure->batch, 2);
}

TEST(Verify, CatchesErrorsThatCancelInARowSum) {
  // +1 and -1 in one row: C·x changes by x_0 - x_col, which is zero only if
  // the random vector happens to match at both columns.
  Batches data(1, 4, 64, 4);
  int caught = 0;
  for (int col = 1; col < 64; ++col) {
    data.at(0, 2, 0) += 1.0f;
    data.at(0, 2, col) -= 1.0f;
    caught += data.verify().passed ? 0 : 1;
    data.at(0, 2, 0) -= 1.0f;
    data.at(0, 2, col) += 1.0f;
  }
  // With x_j in ±1..1024, x_0 == x_col for about 1 in 2048 columns; such a
  // pair escapes Freivalds and is caught only if sampled.
  EXPECT_GE(caught, 62);
}

TEST(Verify, OnlyTheSampledCheckCatchesErrorsFreivaldsCannotSee) {
  // Two errors in one row that cancel in C·x exactly: C[r][j1] += x[j2] and
  // C[r][j2] -= x[j1] change C·x by x[j2]·x[j1] - x[j1]·x[j2] = 0. Put j1 at
  // an element the sampled check looks at, so that it, and only it, sees them.
  Batches data(3, 16, 40, 8);
  const VerifyOptions options{3, 32};
  const std::vector<double> x = freivalds_multipliers(options.seed, data.work.shape.n);
  const auto [row, j1] = sampled_elements(options.seed, 1, data.work.shape, options.samples_per_batch).front();
  const int j2 = (j1 + 1) % data.work.shape.n;
  data.at(1, row, j1) += static_cast<float>(x[std::size_t(j2)]);
  data.at(1, row, j2) -= static_cast<float>(x[std::size_t(j1)]);

  const VerifyResult freivalds_only = verify_batches(data.work, data.a, data.b, data.c, VerifyOptions{3, 0});
  EXPECT_TRUE(freivalds_only.passed) << "the errors were meant to cancel in C·x: " << freivalds_only.message();
  const VerifyResult both = verify_batches(data.work, data.a, data.b, data.c, options);
  ASSERT_FALSE(both.passed);
  EXPECT_EQ(both.first_failure->check, "sampled");
  EXPECT_EQ(both.first_failure->batch, 1);
  EXPECT_EQ(both.first_failure->row, row);
  EXPECT_EQ(both.first_failure->col, j1);
}

TEST(Verify, RejectsBuffersSmallerThanTheWorkload) {
  Batches data(2, 4, 4, 4);
  std::vector<float> short_c(data.work.c_elems());
  EXPECT_THROW(verify_batches(data.work, data.a, data.b, short_c, VerifyOptions{}), std::invalid_argument);
}

}  // namespace cpu_verify
}  // namespace csg

namespace csg {
namespace cpu_verify {

TEST(Digest, EqualForEqualOutputsAndChangedByAnyBit) {
  Batches first(4, 9, 7, 5), second(4, 9, 7, 5);
  const std::uint64_t digest = output_digest(first.work, first.c);
  EXPECT_EQ(output_digest(second.work, second.c), digest);  // same seed and shape
  // One bit of one element of the last batch.
  std::vector<float> changed = first.c;
  changed.back() = std::nextafter(changed.back(), 1e30f);
  EXPECT_NE(output_digest(first.work, changed), digest);
  // The same values in another batch order.
  std::vector<float> swapped = first.c;
  std::swap_ranges(swapped.begin(), swapped.begin() + first.work.c_elems(), swapped.begin() + first.work.c_elems());
  EXPECT_NE(output_digest(first.work, swapped), digest);
  // Another seed, other inputs, another digest.
  Batches other(4, 9, 7, 5, 8);
  EXPECT_NE(output_digest(other.work, other.c), digest);
  // 0.0 and -0.0 compare equal as floats but are other bits: another digest.
  std::vector<float> zeros(first.c.size(), 0.0f), negative_zeros(first.c.size(), -0.0f);
  EXPECT_NE(output_digest(first.work, zeros), output_digest(first.work, negative_zeros));
}

TEST(Verify, FreivaldsMultipliersAreNeverZeroAndAtMost1024) {
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    const std::vector<double> x = freivalds_multipliers(seed, 4096);
    ASSERT_EQ(x.size(), 4096U);
    for (const double v : x) {
      ASSERT_NE(v, 0.0) << "a zero multiplier hides its column from the row check (seed " << seed << ")";
      ASSERT_LE(std::abs(v), 1024.0);
      ASSERT_EQ(v, std::round(v));
    }
  }
}

// Digests are compared across runs, processes and versions (report.py
// --compare, the README's digest of the article's workload): the same output
// must keep its digest.
TEST(Digest, TheDigestOfAKnownOutputNeverChanges) {
  Workload counting;
  counting.batches = 3;
  counting.shape = GemmShape{2, 3, 4};
  std::vector<float> c(counting.batch_count() * counting.c_elems());
  for (std::size_t i = 0; i < c.size(); ++i) c[i] = static_cast<float>(i);
  EXPECT_EQ(digest_text(output_digest(counting, c)), "6f32606521b2e48c");
  const Batches seeded(3, 4, 5, 6, 1);
  EXPECT_EQ(digest_text(output_digest(seeded.work, seeded.c)), "7fc022c77d6602bf");
}

TEST(Digest, TextIsSixteenLowerCaseHexDigits) {
  EXPECT_EQ(digest_text(0x0123456789abcdefULL), "0123456789abcdef");
  EXPECT_EQ(digest_text(0), "0000000000000000");
  EXPECT_EQ(digest_text(~0ULL), "ffffffffffffffff");
}

}  // namespace cpu_verify
}  // namespace csg
