// A parse function called as main calls it (argv[0] the stage's name) or as
// run_subcommand does (argv[0] the subcommand's): `name`, then `args`, as
// writable C strings that live as long as this object.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli/options.hpp"

namespace csg::testing {

class CommandArgv {
 public:
  CommandArgv(const std::string& name, const std::vector<std::string>& args) : words_{name} {
    words_.insert(words_.end(), args.begin(), args.end());
    for (std::string& word : words_) pointers_.push_back(word.data());
  }
  int argc() const { return static_cast<int>(pointers_.size()); }
  char** argv() { return pointers_.data(); }

 private:
  std::vector<std::string> words_;
  std::vector<char*> pointers_;
};

// `parse(argc, argv, extra...)` with argv `name`, then `args`: a lesson's or a
// subcommand's parse function as its caller calls it.
template <typename Parse, typename... Extra>
auto parse_as_called(Parse parse, const std::string& name, const std::vector<std::string>& args, Extra... extra) {
  CommandArgv words(name, args);
  return parse(words.argc(), words.argv(), extra...);
}

// A declaration's configuration as the runner reads it
// (experiment/experiment.hpp): the shared flags of `defaults`, its own from
// `options`, parsed from `args`, then `read`. Bad input throws UsageError.
template <typename Options, typename Read>
auto read_as_declared(const CommonDefaults& defaults, Options options, Read read, const std::vector<std::string>& args) {
  StageCli cli("test", "", defaults);
  options(cli);
  std::optional<CommonOptions> common = cli.parse(args);
  return read(cli, common.value());
}

}  // namespace csg::testing
