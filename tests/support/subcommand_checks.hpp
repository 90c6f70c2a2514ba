// What a stage's lesson and each subcommand promise on the command line,
// checked the same way for every stage with a laboratory, a list of cases at
// a time (every failure reported): its --help lists its own flags and none of
// another's; valid options get as far as the device check (exit 77 with every
// GPU hidden, so they were accepted); bad ones are refused before it.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "base/errors.hpp"
#include "run_process.hpp"
#include "usage_checks.hpp"

namespace csg::testing {

struct HelpCase {
  std::string subcommand;          // "" for the lesson
  std::vector<std::string> has;    // what its --help must show
  std::vector<std::string> lacks;  // what it must not
};

// `check(item)` for every item: every failure in one result, not only the first.
template <typename Item, typename Check>
::testing::AssertionResult every_item_passes(const std::vector<Item>& items, Check check) {
  ::testing::AssertionResult failures = ::testing::AssertionFailure();
  bool ok = true;
  for (const Item& item : items) {
    const ::testing::AssertionResult result = check(item);
    if (result) continue;
    ok = false;
    failures << result.message() << '\n';
  }
  if (ok) return ::testing::AssertionSuccess();
  return failures;
}

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

inline ::testing::AssertionResult every_help_lists_its_own_flags(const std::string& binary,
                                                                const std::vector<HelpCase>& cases) {
  return every_item_passes(cases, [&](const HelpCase& c) { return help_lists_its_own_flags(binary, c); });
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

inline ::testing::AssertionResult every_run_reaches_the_device_check(
    const std::string& binary, const std::vector<std::vector<std::string>>& runs) {
  return every_item_passes(runs,
                           [&](const std::vector<std::string>& args) { return reaches_the_device_check(binary, args); });
}

// Bad input refused before any CUDA call: usage_checks.hpp's promise with
// every GPU hidden, so that 2 and not 77 shows the check came first.
inline ::testing::AssertionResult every_case_refused_before_any_cuda_call(const std::string& binary,
                                                                         const std::vector<BadCase>& cases) {
  return every_item_passes(cases, [&](const BadCase& bad) {
    ::testing::AssertionResult result = refuses_before_writing(binary, bad, {"CUDA_VISIBLE_DEVICES="});
    return result << " (" << ::testing::PrintToString(bad.args) << ")";
  });
}

// What a stage promises on its command line, its lesson's and each subcommand's.
struct CommandLinePromises {
  std::vector<BadCase> refused;                    // each exits 2 with one line naming the fault, before any CUDA call
  std::vector<std::vector<std::string>> accepted;  // each gets as far as the device check
  std::vector<HelpCase> helps;                     // each --help lists its own flags only
};

inline void expect_command_line_promises(const std::string& binary, const CommandLinePromises& promises) {
  EXPECT_TRUE(every_case_refused_before_any_cuda_call(binary, promises.refused));
  EXPECT_TRUE(every_run_reaches_the_device_check(binary, promises.accepted));
  EXPECT_TRUE(every_help_lists_its_own_flags(binary, promises.helps));
}

}  // namespace csg::testing
