#include "stage_commands.hpp"

#include <cctype>
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

namespace {

bool is_name_char(char c) {
  const auto byte = static_cast<unsigned char>(c);
  return std::islower(byte) != 0 || std::isdigit(byte) != 0 || c == '-';
}

// Whether `text` appears in `line` at `at` (false past its end).
bool starts_at(const std::string& line, std::size_t at, const std::string& text) {
  return at <= line.size() && line.compare(at, text.size(), text) == 0;
}

// The name ([a-z0-9-]+) that starts at `at` in `line`, or "" if none does.
std::string name_at(const std::string& line, std::size_t at) {
  std::size_t end = at;
  while (end < line.size() && is_name_char(line[end])) ++end;
  return line.substr(at, end - at);
}

}  // namespace

std::vector<std::string> laboratory_of(const std::string& stage_help) {
  // "The laboratory, beyond the article (...):" then "  name  summary" lines.
  std::vector<std::string> names;
  std::istringstream lines(stage_help);
  bool inside = false;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("The laboratory", 0) == 0) {
      inside = true;
      continue;
    }
    if (!inside) continue;
    if (line.rfind("  ", 0) != 0 || line.size() < 3 || line[2] == ' ') break;
    const std::string name = name_at(line, 2);
    const std::size_t after = 2 + name.size();
    if (name.empty() || (after < line.size() && !starts_at(line, after, "  "))) break;
    names.push_back(name);
  }
  return names;
}

std::set<std::string> options_of(const std::string& help) {
  // cxxopts' option lines: "  -h, --help ..." and "      --batches N ...",
  // the long name in column 7 either way (a wrapped description is indented further).
  std::set<std::string> options;
  std::istringstream lines(help);
  for (std::string line; std::getline(lines, line);) {
    constexpr std::size_t at = 6;
    if (starts_at(line, 0, "  -") && starts_at(line, 4, ", --")) line.replace(0, 6, "      ");  // "  -h, " -> spaces
    if (line.find_first_not_of(' ') != at || !starts_at(line, at, "--")) continue;
    const std::string name = name_at(line, at + 2);
    if (!name.empty()) options.insert(name);
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
