#include "experiment/report.hpp"

#include <utility>

#include "base/errors.hpp"
#include "base/output_file.hpp"

namespace csg {

Report::Report(const char* stage, std::string subcommand, const DeviceInfo& device)
    : subcommand_(std::move(subcommand)) {
  result.stage = stage;
  result.device = device;
}

const Verdict& Report::verdict(Verdict verdict) {
  console_ << verdict.sentence << '\n';
  result.verdicts.push_back(std::move(verdict));
  return result.verdicts.back();
}

std::string Report::console() const {
  std::string text = result.stage + (subcommand_.empty() ? std::string() : " " + subcommand_) + " on " +
                     result.device.summary() + '\n' + console_.str();
  text += '\n' + result.verification.message() + (checked_runs_.empty() ? "" : " " + checked_runs_) + '\n';
  for (const std::string& failure : failures_) text += "FAILED: " + failure + '\n';
  return text;
}

nlohmann::json Report::document() const {
  nlohmann::json doc = to_json(result);
  doc["subcommand"] = subcommand_.empty() ? nlohmann::json(nullptr) : nlohmann::json(subcommand_);
  if (!failures_.empty()) doc["failures"] = failures_;
  for (const auto& [key, value] : sections.items()) doc[key] = value;
  return doc;
}

int Report::finish(std::ostream& out, const std::string& json_path) const {
  out << console() << std::flush;
  if (!json_path.empty()) write_json_file(json_path, document());
  for (const auto& [path, text] : files_) write_text_file(path, text);
  return passed() ? kExitOk : kExitFailure;
}

void add_timeline(Report& report, const StageTimeline& timeline, const TimelineOptions& options) {
  report_stage_timeline(report.out(), timeline, options, report.result.stage);
  report.sections["timeline"] = to_json(timeline, options);
  if (!timeline.passed()) report.fail("the recorded timeline's run did not verify");
}

}  // namespace csg
