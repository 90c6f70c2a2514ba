// The suite's promise for bad input, checked in one place for every
// command-line test: exit code 2, exactly one line on stderr that mentions
// what was wrong, nothing on stdout, and no file written.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "base/errors.hpp"
#include "run_process.hpp"

namespace csg::testing {

// `dir`: where the run was told to write (its --json, --trace ...); it must stay empty.
inline ::testing::AssertionResult refused_as_usage(const ProcessResult& run, const std::string& must_mention,
                                                   const TempDir& dir) {
  ::testing::AssertionResult failure = ::testing::AssertionFailure();
  bool ok = true;
  if (run.exit_code != kExitUsage) {
    ok = false;
    failure << "exit code " << run.exit_code << ", expected " << kExitUsage << "; ";
  }
  if (run.err.find(must_mention) == std::string::npos) {
    ok = false;
    failure << "stderr does not mention '" << must_mention << "'; ";
  }
  if (std::count(run.err.begin(), run.err.end(), '\n') != 1) {
    ok = false;
    failure << "stderr is not one line; ";
  }
  if (!run.out.empty()) {
    ok = false;
    failure << "stdout is not empty: " << run.out << "; ";
  }
  if (!dir.entries().empty()) {
    ok = false;
    failure << "a file was written; ";
  }
  if (ok) return ::testing::AssertionSuccess();
  return failure << "stderr: " << run.err;
}

// A command line a stage must refuse, and what its one line on stderr must
// mention. In `args`, "{dir}" stands for the run's own empty directory and
// "{json}" for a file in it (see command_line).
struct BadCase {
  std::vector<std::string> args;
  std::string must_mention;
};

// `binary`, then `args` with "{dir}" replaced by `dir` and "{json}" by
// <dir>/out.json.
inline std::vector<std::string> command_line(const std::string& binary, const std::vector<std::string>& args,
                                             const TempDir& dir) {
  std::vector<std::string> argv{binary};
  for (const std::string& arg : args) {
    argv.push_back(arg == "{dir}" ? dir.path() : arg == "{json}" ? dir.file("out.json") : arg);
  }
  return argv;
}

// Runs `binary` with `bad.args`, then "--json <dir>/out.json" so that a run
// that went ahead would leave a file, in a fresh directory: refused_as_usage.
inline ::testing::AssertionResult refuses_before_writing(const std::string& binary, const BadCase& bad,
                                                         const std::vector<std::string>& extra_env = {}) {
  const TempDir dir;
  std::vector<std::string> argv = command_line(binary, bad.args, dir);
  argv.insert(argv.end(), {"--json", dir.file("out.json")});
  return refused_as_usage(run_process(argv, extra_env), bad.must_mention, dir);
}

}  // namespace csg::testing
