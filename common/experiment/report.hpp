// What an experiment's report function fills, and the one end every subcommand
// shares: the console, the result JSON, the other files it writes, and the exit
// code. Plain C++: the CPU tests fill one from made-up figures.
#pragma once

#include <ostream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/result.hpp"
#include "report/table.hpp"
#include "report/verdict.hpp"
#include "timeline/stage_timeline.hpp"

namespace csg {

class Report {
 public:
  Report(const char* stage, std::string subcommand, const DeviceInfo& device);  // "": the lesson

  // The shared schema; stage and device are set.
  StageResult result;
  // The experiment's own JSON objects, beside the shared fields ("pdl": {...}).
  nlohmann::json sections = nlohmann::json::object();

  // The console, in the order written (after the title line).
  std::ostream& out() { return console_; }
  void table(const Table& table) { table.print(console_); }
  // The stock table of result.measurements (report/result.hpp).
  void measurements() { print_measurements(console_, result.measurements); }
  // Its sentence printed here, one line (or its own lines); kept for "verdicts".
  const Verdict& verdict(Verdict verdict);
  const std::vector<Verdict>& verdicts() const { return result.verdicts; }

  // A check that is no batch verification (a counter, a graph's edges, a
  // recorded timeline) failed: the run exits 1, with `why` printed at the end
  // (the verification's own failure, if any, stays the one the JSON reports).
  void fail(const std::string& why) { failures_.push_back(why); }
  bool passed() const { return result.verification.passed && failures_.empty(); }
  // "(3 runs checked, each after poisoning the outputs)" after the
  // verification's message; empty: the message alone.
  void checked_runs(std::string text) { checked_runs_ = std::move(text); }

  // Another output (a trace, a DOT file), written whole after the JSON.
  void file(std::string path, std::string text) { files_.emplace_back(std::move(path), std::move(text)); }

  // The title, the console and the verification, as printed.
  std::string console() const;
  // The result document: to_json(result), "subcommand", the sections, "measured_at".
  nlohmann::json document() const;
  // The end of a run: the console to `out`, then the JSON (when `json_path`
  // is not empty) and the other files; kExitOk when passed(), else kExitFailure.
  int finish(std::ostream& out, const std::string& json_path) const;

 private:
  std::string subcommand_;  // empty: the lesson
  std::ostringstream console_;
  std::vector<std::string> failures_;
  std::string checked_runs_;
  std::vector<std::pair<std::string, std::string>> files_;
};

// A timeline subcommand's recording: its picture, overlap figures and the
// cost of recording printed, "timeline" in the JSON (and the trace file),
// and the run failed when the recorded or the re-timed run did not verify.
void add_timeline(Report& report, const StageTimeline& timeline, const TimelineOptions& options);

}  // namespace csg
