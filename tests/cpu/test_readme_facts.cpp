// Facts the README states that the build can check, so that they can't rot:
// the portable set of GPU architectures it lists is the one
// cmake/Architectures.cmake builds (CSG_PORTABLE_CUDA_ARCHITECTURES), every
// count of architectures it quotes ("six-architecture", "seven
// architectures") is that set's number of real architectures, and its "from
// Turing to Blackwell" names the set's oldest and newest.
//
// Where the README says it: between the marker comments
//   <!-- csg:architectures -->  ...  <!-- /csg:architectures -->
// if the README has them, else its section "## Choosing GPU architectures".
// The counts are checked in the whole README.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace csg {
namespace cpu_readme_facts {

std::string read_source(const std::string& relative) {
  std::ifstream in(std::string(CSG_SOURCE_DIR) + "/" + relative, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::string> split(const std::string& list) {
  std::vector<std::string> items;
  std::stringstream stream(list);
  for (std::string item; std::getline(stream, item, ';');) items.push_back(item);
  return items;
}

// The portable set as cmake/Architectures.cmake sets it.
std::vector<std::string> portable_set(const std::string& cmake_text) {
  static const std::regex line(R"re(set\(CSG_PORTABLE_CUDA_ARCHITECTURES "([^"]+)"\))re");
  std::smatch match;
  if (!std::regex_search(cmake_text, match, line)) return {};
  return split(match[1]);
}

// The part of the README about architectures: between the markers, else the section.
std::string architecture_part(const std::string& readme) {
  const std::string open = "<!-- csg:architectures -->";
  const std::string close = "<!-- /csg:architectures -->";
  const std::size_t begin = readme.find(open);
  if (begin != std::string::npos) {
    const std::size_t end = readme.find(close, begin);
    return readme.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
  }
  const std::size_t section = readme.find("\n## Choosing GPU architectures");
  if (section == std::string::npos) return "";
  const std::size_t next = readme.find("\n## ", section + 1);
  return readme.substr(section, next == std::string::npos ? std::string::npos : next - section);
}

// Every list of three or more architectures written as CMake writes them ("75-real;80-real;...").
std::vector<std::vector<std::string>> architecture_lists(const std::string& text) {
  static const std::regex list(R"(\b\d{2,3}(-real|-virtual)?(;\d{2,3}(-real|-virtual)?){2,})");
  std::vector<std::vector<std::string>> lists;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), list); it != std::sregex_iterator(); ++it) {
    lists.push_back(split(it->str()));
  }
  return lists;
}

int real_count(const std::vector<std::string>& set) {
  return static_cast<int>(std::count_if(set.begin(), set.end(), [](const std::string& arch) {
    return arch.find("-virtual") == std::string::npos;
  }));
}

int number_of(std::string word) {
  static const std::map<std::string, int> words = {
      {"one", 1}, {"two", 2},   {"three", 3}, {"four", 4},  {"five", 5},    {"six", 6},
      {"seven", 7}, {"eight", 8}, {"nine", 9},  {"ten", 10}, {"eleven", 11}, {"twelve", 12}};
  std::transform(word.begin(), word.end(), word.begin(), [](unsigned char c) { return std::tolower(c); });
  const auto found = words.find(word);
  return found != words.end() ? found->second : std::stoi(word);
}

// Each "<count>-architecture" or "<count> architectures" and the count it says.
std::vector<std::pair<std::string, int>> architecture_counts(const std::string& text) {
  static const std::regex phrase(
      R"(\b(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|\d+)[- ](real )?architectures?\b)",
      std::regex::icase);
  std::vector<std::pair<std::string, int>> counts;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), phrase); it != std::sregex_iterator(); ++it) {
    counts.emplace_back(it->str(), number_of((*it)[1]));
  }
  return counts;
}

// The GPU family of a compute capability, as the README names it.
std::string family(const std::string& arch) {
  const int number = std::stoi(arch);
  if (number < 75) return "older than Turing";
  if (number < 80) return "Turing";
  if (number < 89) return "Ampere";
  if (number < 90) return "Ada";
  if (number < 100) return "Hopper";
  return "Blackwell";
}

TEST(ReadmeFacts, TheArchitecturesItListsAreThePortableSet) {
  const std::vector<std::string> built = portable_set(read_source("cmake/Architectures.cmake"));
  ASSERT_GE(built.size(), 2U) << "cmake/Architectures.cmake sets no CSG_PORTABLE_CUDA_ARCHITECTURES on one line";
  const std::string part = architecture_part(read_source("README.md"));
  ASSERT_FALSE(part.empty()) << "README.md has neither the architecture markers nor the section";
  const auto lists = architecture_lists(part);
  ASSERT_FALSE(lists.empty()) << "the README's architecture part lists no architectures:\n" << part;
  for (const auto& listed : lists) {
    EXPECT_EQ(listed, built) << "README.md lists a set the build does not use";
  }
}

TEST(ReadmeFacts, EveryCountOfArchitecturesItQuotesIsThePortableSets) {
  const std::vector<std::string> built = portable_set(read_source("cmake/Architectures.cmake"));
  ASSERT_FALSE(built.empty());
  for (const auto& [phrase, count] : architecture_counts(read_source("README.md"))) {
    EXPECT_EQ(count, real_count(built)) << "README.md says \"" << phrase << "\"; the portable set has "
                                        << real_count(built) << " real architectures";
  }
}

TEST(ReadmeFacts, ItsOldestAndNewestFamiliesAreThePortableSets) {
  const std::vector<std::string> built = portable_set(read_source("cmake/Architectures.cmake"));
  ASSERT_FALSE(built.empty());
  static const std::regex from_to(R"(from (Turing|Ampere|Ada|Hopper|Blackwell) to (Turing|Ampere|Ada|Hopper|Blackwell))");
  const std::string part = architecture_part(read_source("README.md"));
  std::smatch match;
  if (!std::regex_search(part, match, from_to)) return;  // the README names no range of families: nothing to hold
  EXPECT_EQ(match[1].str(), family(built.front()));
  EXPECT_EQ(match[2].str(), family(built.back()));
  // "plus PTX for the newest": the set ends with the newest architecture's PTX.
  if (part.find("PTX") != std::string::npos) {
    EXPECT_NE(built.back().find("-virtual"), std::string::npos);
  }
}

TEST(ReadmeFacts, TheCheckersFindWhatTheyLookFor) {
  // So that a README rewritten with other words fails loudly instead of checking nothing.
  EXPECT_EQ(portable_set("set(CSG_PORTABLE_CUDA_ARCHITECTURES \"75-real;90-real;120-virtual\")"),
            (std::vector<std::string>{"75-real", "90-real", "120-virtual"}));
  const std::string marked = "x\n<!-- csg:architectures -->\n-- 80-real;90-real;90-virtual\n<!-- /csg:architectures -->";
  EXPECT_EQ(architecture_lists(architecture_part(marked)),
            (std::vector<std::vector<std::string>>{{"80-real", "90-real", "90-virtual"}}));
  EXPECT_TRUE(architecture_lists("sm_90 and 9.0 and 75;80").empty());
  const auto counts = architecture_counts("the six-architecture default; Seven architectures; 3 real architectures");
  ASSERT_EQ(counts.size(), 3U);
  EXPECT_EQ(counts[0].second, 6);
  EXPECT_EQ(counts[1].second, 7);
  EXPECT_EQ(counts[2].second, 3);
  EXPECT_EQ(real_count({"75-real", "90-real", "120-real", "120-virtual"}), 3);
  EXPECT_EQ(family("75-real"), "Turing");
  EXPECT_EQ(family("120-virtual"), "Blackwell");
}

}  // namespace cpu_readme_facts
}  // namespace csg
