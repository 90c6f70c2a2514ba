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
// mention. In `args`, "{dir}" (alone or at the start of a path) stands for
// the run's own empty directory and "{json}" for a file in it (see command_line).
struct BadCase {
  std::vector<std::string> args;
  std::string must_mention;
};

// `args` with "{dir}" replaced by `dir` (alone or at the start of a path) and "{json}" by <dir>/out.json.
inline std::vector<std::string> in_dir(const std::vector<std::string>& args, const TempDir& dir) {
  std::vector<std::string> words;
  for (const std::string& arg : args) {
    if (arg == "{json}") {
      words.push_back(dir.file("out.json"));
    } else if (arg.rfind("{dir}", 0) == 0) {
      words.push_back(dir.path() + arg.substr(5));
    } else {
      words.push_back(arg);
    }
  }
  return words;
}

// `binary`, then in_dir(args, dir).
inline std::vector<std::string> command_line(const std::string& binary, const std::vector<std::string>& args,
                                             const TempDir& dir) {
  std::vector<std::string> argv{binary};
  for (const std::string& arg : in_dir(args, dir)) argv.push_back(arg);
  return argv;
}

// The options a case uses ("--m 12x" uses m; "--tf32=yes" uses tf32), so that
// it runs only against commands that have them. Names starting "no-such" are
// the unknown options a case means to give, and nothing after a "--" is an option.
inline std::vector<std::string> options_used(const std::vector<std::string>& args) {
  std::vector<std::string> names;
  for (const std::string& arg : args) {
    if (arg == "--") break;
    if (arg.size() < 3 || arg.rfind("--", 0) != 0) continue;
    const std::string name = arg.substr(2, arg.find('=') == std::string::npos ? std::string::npos : arg.find('=') - 2);
    if (name.rfind("no-such", 0) != 0) names.push_back(name);
  }
  return names;
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
