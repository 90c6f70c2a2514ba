// Stage 02's pieces that need no GPU: the byte pattern every copy moves
// catches every corruption; size lists (--sizes 4K,64K,1M,1G) parse strictly;
// and the stage's command line as a user runs it: bad sizes and kinds exit 2
// with one line naming the flag, before any CUDA call.
#include <gtest/gtest.h>

#include <algorithm>

#include "base/errors.hpp"
#include "run_process.hpp"
#include "usage_checks.hpp"
#include "02_pinned_vs_pageable/copy_buffers.hpp"
#include "02_pinned_vs_pageable/options.hpp"

namespace csg::copies {
namespace {

constexpr std::uint64_t kSeed = 7;

TEST(BytePattern, EveryByteIsOddSoNeverZeroNorPoison) {
  std::vector<std::byte> data(1003);
  fill_pattern(data, kSeed);
  for (std::size_t i = 0; i < data.size(); ++i) {
    ASSERT_EQ(static_cast<unsigned>(data[i]) & 1u, 1u) << "byte " << i;
    ASSERT_EQ(data[i], pattern_byte(kSeed, i)) << "byte " << i;
  }
  EXPECT_FALSE(find_pattern_mismatch(data, kSeed).has_value());
}

TEST(BytePattern, FindsTheFirstWrongByteAnywhere) {
  std::vector<std::byte> data(1003);
  for (const std::size_t offset : {std::size_t{0}, std::size_t{7}, std::size_t{8}, std::size_t{500},
                                   std::size_t{999}, std::size_t{1002}}) {
    fill_pattern(data, kSeed);
    data[offset] = kPoisonByte;
    const auto mismatch = find_pattern_mismatch(data, kSeed);
    ASSERT_TRUE(mismatch.has_value()) << "offset " << offset;
    EXPECT_EQ(mismatch->offset, offset);
    EXPECT_EQ(mismatch->got, kPoisonByte);
    EXPECT_EQ(mismatch->expected, pattern_byte(kSeed, offset));
  }
  fill_pattern(data, kSeed);
  EXPECT_TRUE(find_pattern_mismatch(data, kSeed + 1).has_value()) << "another seed's data passed";
}



TEST(SizeList, ParsesSuffixesAsPowersOfTwo) {
  EXPECT_EQ(parse_size("sizes", "1"), 1u);
  EXPECT_EQ(parse_size("sizes", "1000"), 1000u);
  EXPECT_EQ(parse_size("sizes", "4K"), 4096u);
  EXPECT_EQ(parse_size("sizes", "4k"), 4096u);
  EXPECT_EQ(parse_size("sizes", "4KiB"), 4096u);
  EXPECT_EQ(parse_size("sizes", "3M"), 3u << 20);
  EXPECT_EQ(parse_size("sizes", "2G"), std::uint64_t{2} << 30);
  EXPECT_EQ(parse_size("sizes", "1T"), kMaxTransferBytes);
}

TEST(SizeList, ParsesAListInAscendingOrder) {
  EXPECT_EQ(parse_size_list("sizes", "1G,4K,64K,1M"),
            (std::vector<std::uint64_t>{4096, 65536, 1u << 20, std::uint64_t{1} << 30}));
  EXPECT_EQ(parse_size_list("sizes", "7"), (std::vector<std::uint64_t>{7}));
}

struct BadSize {
  std::string text;
  std::string must_mention;
};

TEST(SizeList, RefusesBadItemsNamingTheFlagAndTheItem) {
  const std::vector<BadSize> cases = {
      {"0", "at least 1 byte"},
      {"0K", "at least 1 byte"},
      {"", "needs a list"},
      {"abc", "'abc'"},
      {"4K,abc", "'abc'"},
      {"4K,,8K", "empty item"},
      {"4K,", "empty item"},
      {",4K", "empty item"},
      {"4KB", "'4KB'"},
      {"1.5M", "'1.5M'"},
      {"-4K", "'-4K'"},
      {"+4K", "'+4K'"},
      {" 4K", "' 4K'"},
      {"4 K", "'4 K'"},
      {"4X", "'4X'"},
      {"18446744073709551616", "overflows 64 bits"},  // 2^64
      {"17179869184T", "overflows 64 bits"},          // 2^34 TiB = 2^74 bytes
      {"1025G", "larger than 1T"},
      {"2T", "larger than 1T"},
      {"4K,4096", "twice"},
  };
  for (const BadSize& bad : cases) {
    try {
      parse_size_list("sizes", bad.text);
      ADD_FAILURE() << "'" << bad.text << "' was accepted";
    } catch (const UsageError& error) {
      const std::string what = error.what();
      EXPECT_NE(what.find("--sizes"), std::string::npos) << bad.text << ": " << what;
      EXPECT_NE(what.find(bad.must_mention), std::string::npos) << bad.text << ": " << what;
    }
  }
}

TEST(SizeList, PowersOfFourIncludeBothEnds) {
  EXPECT_EQ(powers_of_4(4096, std::uint64_t{1} << 30).size(), 10u);  // 4K 16K ... 256M 1G
  EXPECT_EQ(powers_of_4(4096, std::uint64_t{1} << 30).back(), std::uint64_t{1} << 30);
  EXPECT_EQ(powers_of_4(1, 15), (std::vector<std::uint64_t>{1, 4}));
  EXPECT_TRUE(powers_of_4(8, 4).empty());
  EXPECT_EQ(powers_of_4(std::uint64_t{1} << 62, UINT64_MAX).size(), 1u);  // no overflow past 2^64
}

TEST(SizeList, FormatsExactSizesShortly) {
  EXPECT_EQ(format_size(4096), "4 KiB");
  EXPECT_EQ(format_size(256u << 20), "256 MiB");
  EXPECT_EQ(format_size(std::uint64_t{1} << 30), "1 GiB");
  EXPECT_EQ(format_size(1536 * 1024), "1536 KiB");
  EXPECT_EQ(format_size(1000), "1000 B");
}

// ---- the stage binary --------------------------------------------------------

#ifdef CSG_STAGE02_BINARY

// Bad sizes, kinds and values of the stage's own options, each with what the
// one line on stderr must say.
const std::vector<testing::BadCase> kBadSizesAndKinds = {
    {{"--sizes", "0"}, "--sizes takes sizes of at least 1 byte"},
    {{"--sizes", "4K,abc"}, "'abc'"},
    {{"--sizes", "4K,,8K"}, "empty item"},
    {{"--sizes=2T"}, "larger than 1T"},
    {{"--sizes", "99999999999999999999"}, "overflows 64 bits"},
    {{"--sizes"}, "--sizes needs a value"},
    {{"--sizes", "4K", "--sizes", "8K"}, "--sizes is given twice"},
    // 1 TiB passes the parser; 2 buffers per kind of it fit in no machine's
    // memory, checked against MemAvailable before any CUDA call.
    {{"--sizes", "1T"}, "of host memory"},
    {{"--sizes", "1T", "--host-memory", "pinned"}, "choose smaller --sizes"},
    {{"--host-memory", "nowhere"}, "--host-memory takes one of"},
    {{"--host-memory", "pinned,pinned"}, "lists pinned twice"},
    {{"--overlap-mib", "0"}, "--overlap-mib takes an integer"},
    {{"--kernel-ms", "abc"}, "--kernel-ms takes an integer"},
    {{"--pin-max-mib", "-1"}, "--pin-max-mib takes an integer"},
};

TEST(Stage02Cli, BadSizesAndKindsExit2WithOneLineAndNoFile) {
  for (const testing::BadCase& bad : kBadSizesAndKinds) {
    EXPECT_TRUE(testing::refuses_before_writing(CSG_STAGE02_BINARY, bad)) << ::testing::PrintToString(bad.args);
  }
}

TEST(Stage02Cli, GoodOptionsReachTheDeviceCheck) {
  // With every GPU hidden, valid options get as far as require_device: exit 77,
  // which proves they were accepted (a refusal would have been exit 2).
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"--quick"},
           {"--sizes", "4K,1000,3M", "--host-memory", "pageable,write-combined"},
           {"--sizes=64K", "--host-memory=pinned", "--overlap-mib", "1", "--kernel-ms", "1", "--pin-max-mib", "1"},
           {"--batches", "2", "--m", "8"},  // accepted by every stage, unused here
       }) {
    std::vector<std::string> argv{CSG_STAGE02_BINARY};
    argv.insert(argv.end(), args.begin(), args.end());
    const testing::ProcessResult run = testing::run_process(argv, {"CUDA_VISIBLE_DEVICES="});
    EXPECT_EQ(run.exit_code, kExitNoDevice) << ::testing::PrintToString(args) << "\nstderr: " << run.err;
  }
}

TEST(Stage02Cli, HelpListsTheStageOptions) {
  const testing::ProcessResult run = testing::run_process({CSG_STAGE02_BINARY, "--help"});
  EXPECT_EQ(run.exit_code, kExitOk);
  for (const char* flag : {"--sizes LIST", "--host-memory LIST", "--quick", "--overlap-mib", "--kernel-ms",
                           "--pin-max-mib", "Unused by this stage"}) {
    EXPECT_NE(run.out.find(flag), std::string::npos) << "--help lacks " << flag << "\n" << run.out;
  }
}

#endif  // CSG_STAGE02_BINARY

}  // namespace
}  // namespace csg::copies
