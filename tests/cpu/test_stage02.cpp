// Stage 02's pieces that need no GPU: the byte pattern every copy moves
// catches every corruption; size lists (--sizes 4K,64K,1M,1G) parse strictly;
// each subcommand takes its own flags and fills its options from them; and
// the command lines as a user runs them: bad sizes and kinds exit 2 with one
// line naming the flag, before any CUDA call, in the lesson and in every
// subcommand, and each --help lists its own flags only.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "matchers.hpp"
#include "base/errors.hpp"
#include "lesson_argv.hpp"
#include "run_process.hpp"
#include "subcommand_checks.hpp"
#include "usage_checks.hpp"
#include "02_pinned_vs_pageable/copy_buffers.hpp"
#include "02_pinned_vs_pageable/lab/overlap.hpp"
#include "02_pinned_vs_pageable/lab/pinning-cost/pinning_cost.hpp"
#include "02_pinned_vs_pageable/lab/sweep/sweep.hpp"
#include "02_pinned_vs_pageable/lesson.hpp"
#include "02_pinned_vs_pageable/options.hpp"

namespace csg::copies {
namespace cpu_stage02 {

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

class SizeListRefusal : public ::testing::TestWithParam<BadSize> {};

TEST_P(SizeListRefusal, NamesTheFlagAndTheItem) {
  try {
    parse_size_list("sizes", GetParam().text);
    ADD_FAILURE() << "'" << GetParam().text << "' was accepted";
  } catch (const UsageError& error) {
    EXPECT_THAT(error.what(), AllOf(HasSubstr("--sizes"), HasSubstr(GetParam().must_mention)));
  }
}

INSTANTIATE_TEST_SUITE_P(
    BadItems, SizeListRefusal,
    ::testing::Values(BadSize{"0", "at least 1 byte"}, BadSize{"0K", "at least 1 byte"}, BadSize{"", "needs a list"},
                      BadSize{"abc", "'abc'"}, BadSize{"4K,abc", "'abc'"}, BadSize{"4K,,8K", "empty item"},
                      BadSize{"4K,", "empty item"}, BadSize{",4K", "empty item"}, BadSize{"4KB", "'4KB'"},
                      BadSize{"1.5M", "'1.5M'"}, BadSize{"-4K", "'-4K'"}, BadSize{"+4K", "'+4K'"},
                      BadSize{" 4K", "' 4K'"}, BadSize{"4 K", "'4 K'"}, BadSize{"4X", "'4X'"},
                      BadSize{"18446744073709551616", "overflows 64 bits"},  // 2^64
                      BadSize{"17179869184T", "overflows 64 bits"},          // 2^34 TiB = 2^74 bytes
                      BadSize{"1025G", "larger than 1T"}, BadSize{"2T", "larger than 1T"},
                      BadSize{"4K,4096", "twice"}),
    [](const ::testing::TestParamInfo<BadSize>& param_info) { return "item" + std::to_string(param_info.index); });

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

// ---- each subcommand's options ------------------------------------------------

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;
constexpr HostMemory kAllKinds[] = {HostMemory::pageable, HostMemory::pinned, HostMemory::registered,
                                    HostMemory::write_combined};
constexpr HostMemory kArticleKinds[] = {HostMemory::pageable, HostMemory::pinned};

// Each declaration's configuration as the runner reads it.
using Args = std::vector<std::string>;
sweep::Config sweep_options(const Args& args) {
  return testing::read_as_declared(copy_defaults(kAllKinds), sweep::options, sweep::read, args);
}
overlap::Config overlap_options(const Args& args, bool timeline = false) {
  return testing::read_as_declared(
      copy_defaults(kArticleKinds), [timeline](StageCli& cli) { overlap::add_options(cli, timeline); },
      [timeline](const StageCli& cli, CommonOptions& common) { return overlap::read(cli, common, timeline); }, args);
}
PinningConfig pinning_options(const Args& args) {
  CommonDefaults defaults = copy_defaults(kArticleKinds);
  defaults.host_memory_choice = false;
  return testing::read_as_declared(defaults, add_pinning_options, read_pinning, args);
}

TEST(SweepOptions, QuickSetsFourSizesAndFewerRoundsUnlessTold) {
  const sweep::Config quick = sweep_options({"--quick"});
  EXPECT_THAT(quick.sizes, ElementsAre(64 * 1024, kMiB, 16 * kMiB, 256 * kMiB));
  EXPECT_EQ(quick.common.plan.warmup, 1);
  EXPECT_EQ(quick.common.plan.repeats, 5);
  EXPECT_TRUE(quick.quick);
  EXPECT_THAT(quick.kinds, ElementsAreArray(kAllKinds)) << "every kind by default";
  const sweep::Config told = sweep_options({"--quick", "--sizes", "4K", "--repeats", "7"});
  EXPECT_THAT(told.sizes, ElementsAre(4096)) << "--sizes wins over --quick";
  EXPECT_EQ(told.common.plan.repeats, 7);
  const sweep::Config plain = sweep_options({"--host-memory", "pinned,pageable"});
  EXPECT_EQ(plain.sizes.size(), 10U) << "powers of 4 from 4K to 1G";
  EXPECT_EQ(plain.common.plan.repeats, 10);
  EXPECT_THAT(plain.kinds, ElementsAreArray(kArticleKinds));
}

TEST(OverlapOptions, ComparesTheArticlesTwoKindsAndTimelineAddsItsTwoFlags) {
  const overlap::Config options = overlap_options({"--overlap-mib", "3"});
  EXPECT_THAT(options.kinds, ElementsAreArray(kArticleKinds));
  EXPECT_EQ(options.bytes, 3 * kMiB);
  EXPECT_EQ(options.kernel_ms, 10);
  EXPECT_FALSE(options.draw);
  EXPECT_EQ(options.timeline_pairs, 1);
  EXPECT_THROW(overlap_options({"--timeline-batches", "2"}), UsageError) << "only the timeline's";
  testing::TempDir dir;
  const overlap::Config timeline = overlap_options(
      {"--trace", dir.file("t.json"), "--host-memory", "pinned", "--timeline-batches", "4"}, /*timeline=*/true);
  EXPECT_TRUE(timeline.draw);
  EXPECT_EQ(timeline.trace_path, dir.file("t.json"));
  EXPECT_EQ(timeline.timeline_pairs, 4);
  EXPECT_THAT(timeline.kinds, ElementsAre(HostMemory::pinned));
  EXPECT_TRUE(dir.entries().empty()) << "parsing must not create the trace file";
}

TEST(PinningOptions, FourSizesDownFromTheMaximumAndAtMostThreeRounds) {
  const PinningConfig options = pinning_options({"--pin-max-mib", "64"});
  EXPECT_THAT(options.sizes, ElementsAre(kMiB, 4 * kMiB, 16 * kMiB, 64 * kMiB));
  EXPECT_EQ(options.repeats, 3) << "--repeats 10 by default, capped";
  const PinningConfig small = pinning_options({"--pin-max-mib", "2", "--repeats", "1"});
  EXPECT_THAT(small.sizes, ElementsAre(2 * kMiB)) << "no size under 1 MiB";
  EXPECT_EQ(small.repeats, 1);
}

// ---- the lesson's options ----------------------------------------------------

auto lesson_options(const Args& args) { return testing::parse_as_called(lesson02::parse_options, lesson02::kStage, args); }

TEST(Lesson02Options, FourSizesAndA64MiBCallByDefault) {
  const std::optional<lesson02::Options> options = lesson_options({});
  ASSERT_TRUE(options.has_value());
  EXPECT_EQ(options->sizes, (std::vector<std::size_t>{64 * 1024, kMiB, 16 * kMiB, 256 * kMiB}));
  EXPECT_EQ(options->async_bytes, 64 * kMiB);
  EXPECT_EQ(options->buffer_bytes(), 256 * kMiB) << "the largest copy";
  const std::optional<lesson02::Options> small = lesson_options({"--sizes", "1000,4K", "--async-mib", "1"});
  ASSERT_TRUE(small.has_value());
  EXPECT_EQ(small->sizes, (std::vector<std::size_t>{1000, 4096}));
  EXPECT_EQ(small->buffer_bytes(), kMiB) << "the async copy is the largest here";
}

TEST(Lesson02Options, TakesNoneOfTheLaboratorysFlags) {
  for (const char* flag : {"--quick", "--host-memory", "--overlap-mib", "--pin-max-mib", "--batches", "--trace"}) {
    EXPECT_THROW(lesson_options({flag, "1"}), UsageError) << flag;
  }
}

TEST(Lesson02Pattern, AMismatchNamesTheByteAndAnIntactBufferNothing) {
  std::vector<std::byte> data(5000);
  lesson02::fill_pattern(data, kSeed);
  EXPECT_EQ(lesson02::pattern_mismatch(data, kSeed), "");
  data[4321] = std::byte{0};
  EXPECT_THAT(lesson02::pattern_mismatch(data, kSeed), HasSubstr("byte 4321 of 5000 B is 0x00"));
}

// ---- the stage binary --------------------------------------------------------

#ifdef CSG_STAGE02_BINARY

// The lesson's and the subcommands' command lines: bad sizes, kinds and
// values, in the lesson and in each subcommand, each with what the one line
// on stderr must say (a bad --trace is refused by every stage's timeline
// alike: test_timeline_options).
const testing::CommandLinePromises kCommandLines = {
    .refused = {
        {{"--sizes", "0"}, "--sizes takes sizes of at least 1 byte"},
        {{"--sizes", "4K,abc"}, "'abc'"},
        {{"--sizes", "4K,,8K"}, "empty item"},
        {{"--sizes=2T"}, "larger than 1T"},
        {{"--sizes", "99999999999999999999"}, "overflows 64 bits"},
        {{"--sizes"}, "--sizes needs a value"},
        {{"--sizes", "4K", "--sizes", "8K"}, "--sizes is given twice"},
        // 1 TiB passes the parser; 4 buffers of it fit in no machine's memory,
        // checked against MemAvailable before any CUDA call.
        {{"--sizes", "1T"}, "choose smaller --sizes"},
        {{"--async-mib", "0"}, "--async-mib takes an integer"},
        {{"--quick"}, "unknown option '--quick'"},
        {{"--host-memory", "pinned"}, "unknown option '--host-memory'"},
        {{"--batches", "2"}, "unknown option '--batches'"},
        {{"sweep", "--sizes", "0"}, "--sizes takes sizes of at least 1 byte"},
        {{"sweep", "--sizes", "4K,4096"}, "twice"},
        {{"sweep", "--sizes", "1T"}, "of host memory"},
        {{"sweep", "--sizes", "1T", "--host-memory", "pinned"}, "choose smaller --sizes"},
        {{"sweep", "--host-memory", "nowhere"}, "--host-memory takes one of"},
        {{"sweep", "--host-memory", "pinned,pinned"}, "lists pinned twice"},
        {{"sweep", "--overlap-mib", "4"}, "unknown option '--overlap-mib'"},
        {{"sweep", "--pin-max-mib", "4"}, "unknown option '--pin-max-mib'"},
        {{"sweep", "--trace", "t.json"}, "unknown option '--trace'"},
        {{"sweep", "--batches", "2"}, "unknown option '--batches'"},
        {{"sweep", "--kernel", "tiled"}, "unknown option '--kernel'"},
        {{"overlap", "--trace", "t.json"}, "unknown option '--trace'"},
        {{"overlap", "--host-memory", "registered"}, "--host-memory takes one of"},
        {{"pinning-cost", "--host-memory", "pinned"}, "unknown option '--host-memory'"},
        {{"pinning-cost", "--pin-max-mib", "0"}, "--pin-max-mib takes an integer"},
        {{"overlap", "--overlap-mib", "0"}, "--overlap-mib takes an integer"},
        {{"overlap", "--kernel-ms", "abc"}, "--kernel-ms takes an integer"},
        {{"overlap", "--host-memory", "write-combined"}, "--host-memory takes one of"},
        {{"overlap", "--sizes", "4K"}, "unknown option '--sizes'"},
        {{"pinning-cost", "--pin-max-mib", "-1"}, "--pin-max-mib takes an integer"},
        {{"pinning-cost", "--sizes", "4K"}, "unknown option '--sizes'"},
        {{"timeline", "--timeline-batches", "0"}, "--timeline-batches takes an integer in [1, 1000]"},
        {{"overlap", "--timeline-batches", "2"}, "unknown option '--timeline-batches'"},
        {{"no-such-experiment"}, "unknown subcommand 'no-such-experiment'"},
    },
    .accepted = {
        {},
        {"--sizes", "4K,1000,3M", "--async-mib", "2"},
        {"sweep", "--quick"},
        {"sweep", "--sizes", "4K,1000,3M", "--host-memory", "pageable,write-combined"},
        {"overlap", "--host-memory=pinned", "--overlap-mib", "1", "--kernel-ms", "1"},
        {"pinning-cost", "--pin-max-mib", "1"},
        {"timeline", "--overlap-mib", "1", "--kernel-ms", "1"},
    },
    .helps = {
        {"", {"--sizes LIST", "--async-mib", "sweep", "overlap", "pinning-cost", "timeline"},
         {"--quick", "--host-memory", "--batches", "--kernel"}},
        {"sweep", {"--sizes LIST", "--host-memory LIST", "--quick"}, {"--overlap-mib", "--pin-max-mib", "--batches"}},
        {"overlap", {"--host-memory LIST", "--overlap-mib", "--kernel-ms"},
         {"--sizes", "--trace", "--timeline-batches", "--batches"}},
        {"pinning-cost", {"--pin-max-mib"}, {"--sizes", "--host-memory", "--overlap-mib", "--batches"}},
        {"timeline", {"--overlap-mib", "--kernel-ms", "--timeline-batches", "--trace FILE"}, {"--sizes", "--batches"}},
    },
};

TEST(Stage02Cli, RefusesBadInputTakesGoodInputAndHelpsWithItsOwnFlags) {
  testing::expect_command_line_promises(CSG_STAGE02_BINARY, kCommandLines);
}

#endif  // CSG_STAGE02_BINARY

}  // namespace cpu_stage02
}  // namespace csg::copies
