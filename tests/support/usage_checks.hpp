// The suite's promise for bad input, checked in one place for every
// command-line test: exit code 2, exactly one line on stderr that mentions
// what was wrong, nothing on stdout, and no file written.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

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

}  // namespace csg::testing
