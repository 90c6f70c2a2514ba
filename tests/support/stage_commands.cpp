#include "stage_commands.hpp"

#include <regex>
#include <sstream>

#include "run_process.hpp"

namespace csg::testing {

std::string StageCommand::label() const {
  const std::string stage = binary.substr(binary.find_last_of('/') + 1);
  return subcommand.empty() ? stage : stage + " " + subcommand;
}

std::vector<std::string> StageCommand::argv(const std::vector<std::string>& args) const {
  std::vector<std::string> words{binary};
  if (!subcommand.empty()) words.push_back(subcommand);
  words.insert(words.end(), args.begin(), args.end());
  return words;
}

std::vector<std::string> laboratory_of(const std::string& stage_help) {
  // "The laboratory, beyond the article (...):" then "  name  summary" lines.
  static const std::regex entry(R"(^  ([a-z0-9][a-z0-9-]*)(  |$))");
  std::vector<std::string> names;
  std::istringstream lines(stage_help);
  bool inside = false;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("The laboratory", 0) == 0) {
      inside = true;
      continue;
    }
    if (!inside) continue;
    std::smatch match;
    if (!std::regex_search(line, match, entry)) break;
    names.push_back(match[1]);
  }
  return names;
}

std::set<std::string> options_of(const std::string& help) {
  // cxxopts' option lines: "  -h, --help ..." and "      --batches N ...".
  static const std::regex option_line(R"(^ {2,}(-[a-zA-Z], )?--([a-z0-9][a-z0-9-]*))");
  std::set<std::string> options;
  std::istringstream lines(help);
  for (std::string line; std::getline(lines, line);) {
    std::smatch match;
    if (std::regex_search(line, match, option_line)) options.insert(match[2]);
  }
  return options;
}

std::vector<StageCommand> stage_commands(const std::string& binary) {
  std::vector<StageCommand> commands;
  auto add = [&](const std::string& subcommand) {
    StageCommand command{binary, subcommand, "", -1, {}};
    const ProcessResult help = run_process(command.argv({"--help"}));
    command.help = help.out;
    command.help_exit_code = help.exit_code;
    command.options = options_of(help.out);
    commands.push_back(command);
  };
  add("");
  for (const std::string& name : laboratory_of(commands.front().help)) add(name);
  return commands;
}

}  // namespace csg::testing
