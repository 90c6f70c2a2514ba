// An experiment of the laboratory is a declaration (Experiment below), and one
// runner does the rest (DESIGN.md, "an experiment is a declaration"), in one
// order for everyone: parse (exit 2 before any CUDA call; --help wins), the
// host's memory, the device (77 without one), the device's memory, the
// estimate, a progress line, the measurement (Ctrl-C between rounds: 130), the
// report, the console, --json, the exit code.
#pragma once

#include <algorithm>
#include <iostream>
#include <string>
#include <string_view>

#include "base/progress.hpp"
#include "cli/options.hpp"
#include "experiment/report.hpp"
#include "measure/estimate.hpp"
#include "stage.hpp"

namespace csg {

// What a run needs, checked against the host before the device is touched
// and against the device once it is chosen.
struct Needs {
  MemoryNeeds memory{};  // zero: nothing worth checking
  std::string smaller;   // how to ask for less, in the refusal ("try fewer --batches")
};

// How long it takes at this GPU's rates (measure/estimate.hpp).
struct Estimate {
  double seconds = 0.0;
  std::string what;  // names the work in the refusal and in the first progress line
};

// What a subcommand is, as its --help says it: "name: its line in the stage's
// --help" (the name is its folder lab/<name>/), then after a blank line the
// first paragraph of its own --help.
struct About {
  std::string_view name, summary, description;
};

constexpr About read_about(std::string_view about) {
  const auto trim = [](std::string_view text) {
    const std::size_t first = text.find_first_not_of(" \n");
    if (first == std::string_view::npos) return std::string_view{};
    return text.substr(first, text.find_last_not_of(" \n") - first + 1);
  };
  about = trim(about);
  const std::size_t line_end = std::min(about.find('\n'), about.size());
  const std::string_view first = about.substr(0, line_end);
  const std::size_t colon = first.find(": ");
  if (colon == std::string_view::npos) return About{first, {}, {}};  // no summary: --list shows it empty
  return About{first.substr(0, colon), trim(first.substr(colon + 2)), trim(about.substr(line_end))};
}

template <class Config, class Figures>
struct Experiment {
  const char* about;                        // what it is: About above
  const char* runs = "";                    // its runs (stage.hpp's table): STAGE --list
  CommonDefaults defaults{};                // the shared flags it offers, and their defaults
  void (*options)(StageCli&) = nullptr;     // its own flags
  // The parsed flags as its configuration; cross-field checks throw
  // UsageError. May complete `common` (a kernel read from its own flag).
  Config (*read)(const StageCli&, CommonOptions& common) = nullptr;
  Needs (*needs)(const Config&) = nullptr;  // nullptr: nothing large to allocate
  // May measure rates on `device`; a GPU without the feature: NoDeviceError (exit 77).
  Estimate (*estimate)(const Config&, int device) = nullptr;
  Figures (*measure)(const Config&) = nullptr;
  void (*report)(const Config&, const Figures&, Report&) = nullptr;
};

namespace runner {
// Its lines joined by spaces.
inline std::string one_paragraph(std::string_view text) {
  std::string paragraph(text);
  std::replace(paragraph.begin(), paragraph.end(), '\n', ' ');
  return paragraph;
}
}  // namespace runner

template <class Config, class Figures>
int run_experiment(const Experiment<Config, Figures>& e, const char* stage, int argc, char** argv) {
  const About about = read_about(e.about);
  StageCli cli(std::string(stage) + " " + std::string(about.name), runner::one_paragraph(about.description),
               e.defaults);
  if (e.options) e.options(cli);
  std::optional<CommonOptions> common = cli.parse_or_help(argc, argv);  // every argument checked before any CUDA call
  if (!common) return kExitOk;  // --help
  const Config config = e.read(cli, *common);
  const Needs needs = e.needs ? e.needs(config) : Needs{};
  check_host_fits(needs.memory, needs.smaller);
  const int device = require_device();
  check_fits(needs.memory, needs.smaller);
  const Estimate estimate = e.estimate(config, device);
  check_estimate(estimate.seconds, common->max_minutes, estimate.what);
  progress(estimate.what);
  const Figures figures = e.measure(config);
  Report report(stage, std::string(about.name), query_device_info(device));
  e.report(config, figures, report);
  return report.finish(std::cout, common->json_path);  // the console, then --json
}

// The declaration `e` as an entry of the stage's table (its laboratory.cpp).
template <const auto& e>
Subcommand make_subcommand() {
  const About about = read_about(e.about);
  auto run = [](const char* stage, int argc, char** argv) { return run_experiment(e, stage, argc, argv); };
  return Subcommand{about.name, about.summary, run, e.runs};
}

}  // namespace csg
