// A verdict: one conclusion a run draws from its own figures, decided once,
// in C++, with a stated threshold; printed as its sentence and carried in the
// result's JSON ("verdicts"), where scripts/report.py quotes the sentence as
// it is and decides nothing again.
//
//   {"id": "serial.overlap", "outcome": "nothing_overlapped",
//    "figures": {"total_ms": 93.2, "stage_sum_ms": 94.4}, "threshold": 0.1,
//    "sentence": "serial total 93.20 ms = 0.99x the sum of the stages: nothing overlapped ..."}
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace csg {

struct Verdict {
  std::string id{};     // what it judges, the same in every run: "serial.overlap", "pdl.gemm.streams"
  std::string outcome{};  // the branch the figures chose: "nothing_overlapped", "saves", ...
  nlohmann::json figures = nlohmann::json::object();  // the figures it rests on, by name
  // What the figures were held against: a fraction (0.1 = 10%), an object
  // of several named ones, or null where the verdict compares no figure
  // with a threshold (a check that failed, a count).
  nlohmann::json threshold = nullptr;
  std::string sentence{};  // what the console prints and report.md quotes
};

nlohmann::json to_json(const Verdict& verdict);
// Reads one back (what the tests and --compare do); throws std::invalid_argument
// naming the field that is missing or of the wrong type.
Verdict verdict_from_json(const nlohmann::json& doc);

}  // namespace csg
