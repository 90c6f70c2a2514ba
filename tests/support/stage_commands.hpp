// Every command of the suite a user can run: each stage binary (its lesson)
// and each subcommand of its laboratory, as the stage's own --help lists them
// ("The laboratory" section), with the options each command's --help lists.
// The command-line tests run their cases against all of them, each case with
// the options that command has, so a subcommand added later is tested too.
#pragma once

#include <set>
#include <string>
#include <vector>

namespace csg::testing {

struct StageCommand {
  std::string binary;      // the stage binary's path
  std::string subcommand;  // "" for the lesson
  std::string help;        // what its --help printed
  int help_exit_code = -1;
  std::set<std::string> options;  // "json", "m", "tf32", "help" ...: every option its --help lists

  bool has(const std::string& option) const { return options.count(option) != 0; }
  // "03_stream_pool_gemm" or "03_stream_pool_gemm priorities", for failure messages.
  std::string label() const;
  // The command line: the binary, the subcommand if any, then `args`.
  std::vector<std::string> argv(const std::vector<std::string>& args) const;
};

// The subcommand names in a stage's --help, in its order.
std::vector<std::string> laboratory_of(const std::string& stage_help);
// The option names (without "--") of the option lines of a --help.
std::set<std::string> options_of(const std::string& help);
// The stage's lesson, then each of its subcommands.
std::vector<StageCommand> stage_commands(const std::string& binary);

}  // namespace csg::testing
