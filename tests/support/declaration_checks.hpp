// What a subcommand's declaration promises, checked the same way in each
// subcommand's CPU test: its options read as the runner reads them, and its
// report's verdicts each printed on the console as the JSON carries it.
#pragma once

#include <gmock/gmock.h>

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/options.hpp"
#include "experiment/report.hpp"

namespace csg::testing {

// The config a declaration's `options` and `read` make of `args` (no --help
// among them), with `defaults` as its CommonDefaults. Throws UsageError as the run would.
template <class Config>
Config read_declared(const CommonDefaults& defaults, void (*options)(StageCli&),
                     Config (*read)(const StageCli&, CommonOptions&), const std::vector<std::string>& args) {
  StageCli cli("a declaration", "under test", defaults);
  options(cli);
  std::optional<CommonOptions> common = cli.parse(args);
  if (!common) throw std::logic_error("--help is no configuration");
  return read(cli, *common);
}

// The ids of `report`'s verdicts in the order printed, each sentence checked
// to stand on the console whole, ending its line (after any bullet or indent).
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
