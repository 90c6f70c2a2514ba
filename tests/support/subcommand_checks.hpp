// What a stage's lesson and each subcommand promise on the command line,
// checked the same way for every stage with a laboratory: its --help lists
// its own flags and none of another's; valid options get as far as the
// device check (exit 77 with every GPU hidden, so they were accepted).
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "base/errors.hpp"
#include "run_process.hpp"

namespace csg::testing {

struct HelpCase {
  std::string subcommand;          // "" for the lesson
  std::vector<std::string> has;    // what its --help must show
  std::vector<std::string> lacks;  // what it must not
};

inline ::testing::AssertionResult help_lists_its_own_flags(const std::string& binary, const HelpCase& c) {
  std::vector<std::string> argv{binary};
  if (!c.subcommand.empty()) argv.push_back(c.subcommand);
  argv.push_back("--help");
  const ProcessResult run = run_process(argv);
  ::testing::AssertionResult failure = ::testing::AssertionFailure() << "'" << c.subcommand << " --help': ";
  bool ok = run.exit_code == kExitOk;
  if (!ok) failure << "exit code " << run.exit_code << "; ";
  for (const std::string& flag : c.has) {
    if (run.out.find(flag) != std::string::npos) continue;
    ok = false;
    failure << "lacks " << flag << "; ";
  }
  for (const std::string& flag : c.lacks) {
    if (run.out.find(flag) == std::string::npos) continue;
    ok = false;
    failure << "offers " << flag << "; ";
  }
  if (ok) return ::testing::AssertionSuccess();
  return failure << "\n" << run.out;
}

inline ::testing::AssertionResult reaches_the_device_check(const std::string& binary,
                                                           const std::vector<std::string>& args) {
  std::vector<std::string> argv{binary};
  argv.insert(argv.end(), args.begin(), args.end());
  const ProcessResult run = run_process(argv, {"CUDA_VISIBLE_DEVICES="});
  if (run.exit_code == kExitNoDevice) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << ::testing::PrintToString(args) << ": exit code " << run.exit_code
                                       << ", expected " << kExitNoDevice << "; stderr: " << run.err;
}

}  // namespace csg::testing
