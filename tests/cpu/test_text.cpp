// Text for people (base/text.hpp): one plural rule for every count the suite
// prints, and user text echoed so that it can't break a message's one line.
#include <gtest/gtest.h>

#include "base/errors.hpp"
#include "base/text.hpp"

namespace csg {
namespace cpu_text {

TEST(Plural, OneIsSingularEveryOtherCountPlural) {
  EXPECT_EQ(plural(1, "batch"), "1 batch");
  EXPECT_EQ(plural(0, "batch"), "0 batches");
  EXPECT_EQ(plural(2, "batch"), "2 batches");
  EXPECT_EQ(plural(1, "stream"), "1 stream");
  EXPECT_EQ(plural(8, "stream"), "8 streams");
  EXPECT_EQ(plural(-1, "round"), "-1 round");
  EXPECT_EQ(plural(1024, "stream"), "1024 streams");
}

TEST(Plural, TheEnglishEndings) {
  EXPECT_EQ(noun(2, "batch"), "batches");  // ch
  EXPECT_EQ(noun(2, "flush"), "flushes");  // sh
  EXPECT_EQ(noun(2, "pass"), "passes");    // s
  EXPECT_EQ(noun(2, "box"), "boxes");      // x
  EXPECT_EQ(noun(2, "copy"), "copies");    // consonant + y
  EXPECT_EQ(noun(2, "key"), "keys");       // vowel + y
  EXPECT_EQ(noun(2, "kernel"), "kernels");
  EXPECT_EQ(noun(1, "copy"), "copy");
}

TEST(Plural, AnIrregularNounGivesItsPlural) {
  EXPECT_EQ(plural(1, "child", "children"), "1 child");
  EXPECT_EQ(plural(3, "child", "children"), "3 children");
  EXPECT_EQ(noun(0, "matrix", "matrices"), "matrices");
}

TEST(ShortenLongWords, AWordPastTheLimitIsCutToItsStartAndLengthTheRestKept) {
  EXPECT_EQ(shorten_long_words("--batches takes an integer", 10), "--batches takes an integer");
  const std::string digits(5000, '9');
  EXPECT_EQ(shorten_long_words("got '" + digits + "' here"),
            "got '" + std::string(63, '9') + "...(5002 characters) here");
  EXPECT_EQ(shorten_long_words("a  b", 1), "a  b") << "blanks kept as they are";
  const UsageError error("--batches takes an integer in [1, 2147483647], got '" + digits + "'");
  EXPECT_LT(std::string(error.what()).size(), 200U) << "the message stays one short line";
}

TEST(Printable, ControlCharactersAreEscapedTheRestKept) {
  EXPECT_EQ(printable("out.json"), "out.json");
  EXPECT_EQ(printable("a\nb"), "a\\nb");
  EXPECT_EQ(printable("a\r\tb"), "a\\r\\tb");
  EXPECT_EQ(printable("\x1b[31mred"), "\\x1b[31mred");
  EXPECT_EQ(printable(std::string("nul\0x", 5)), "nul\\x00x");
  EXPECT_EQ(printable("del\x7f"), "del\\x7f");
  EXPECT_EQ(printable("caf\xC3\xA9 \xE2\x89\xA4"), "caf\xC3\xA9 \xE2\x89\xA4");  // UTF-8 kept
  EXPECT_EQ(in_quotes("a\nb"), "'a\\nb'");
}

TEST(Printable, AUsageErrorIsOneLineWhateverItEchoes) {
  const UsageError error("--json dir/a\nb/out.json: directory does not exist");
  EXPECT_EQ(std::string(error.what()), "--json dir/a\\nb/out.json: directory does not exist");
  EXPECT_EQ(std::string(error.what()).find('\n'), std::string::npos);
}

}  // namespace cpu_text
}  // namespace csg
