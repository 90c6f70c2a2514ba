// What every report's verdicts promise, checked the same way for each
// subcommand's CPU test: each sentence is printed on the console as the JSON
// carries it, on a line of its own (after any bullet or indent).
#pragma once

#include <gmock/gmock.h>

#include <string>
#include <vector>

#include "experiment/report.hpp"

namespace csg::testing {

// The ids of `report`'s verdicts in the order printed, each sentence checked
// to stand on the console whole, ending its line.
inline std::vector<std::string> printed_verdict_ids(const Report& report) {
  const std::string console = report.console();
  std::vector<std::string> ids;
  for (const Verdict& verdict : report.verdicts()) {
    EXPECT_THAT(console, ::testing::HasSubstr(verdict.sentence + "\n")) << verdict.id;
    ids.push_back(verdict.id);
  }
  return ids;
}

}  // namespace csg::testing
