// A verdict: one conclusion a run draws from its own figures, decided once, in
// C++, with a stated threshold; printed as its sentence and carried in the
// result's JSON ("verdicts"), where scripts/report.py quotes it and decides nothing again.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace csg {

struct Verdict {
  std::string id{};     // what it judges, the same in every run: "serial.overlap", "pdl.gemm.streams"
  std::string outcome{};  // the branch the figures chose: "nothing_overlapped", "saves", ...
  nlohmann::json figures = nlohmann::json::object();  // the figures it rests on, by name
  // What the figures were held against: a fraction (0.1 = 10%), an object of
  // several named ones, or null where no figure is compared with a threshold.
  nlohmann::json threshold = nullptr;
  std::string sentence{};  // what the console prints and report.md quotes
};

nlohmann::json to_json(const Verdict& verdict);
// Reads one back (what the tests and --compare do); throws std::invalid_argument
// naming the field that is missing or of the wrong type.
Verdict verdict_from_json(const nlohmann::json& doc);

}  // namespace csg
