// The device-launch subcommand in words, table and JSON
// (device_launch_measure.hpp measures). Pure C++: the CPU tests call these
// on made-up figures, one test per branch of every conclusion.
#pragma once

#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/options.hpp"
#include "04_graph_capture_gemm/lab/device-launch/device_launch_measure.hpp"
#include "report/result.hpp"

namespace csg::graphs {

struct DeviceLaunchRun {
  CommonOptions options;
  DeviceLaunchConfig config;
  DeviceLaunchFigures figures;
};

// --launches N (1000), --work-launches N (100), --work-batches N (8),
// --work-size N (128), --fan-out N (100, at most kMaxFanOut), --streams N (4).
void add_device_launch_options(StageCli& cli);
// After cli.parse(): the config, with the common options' host memory and seed.
DeviceLaunchConfig read_device_launch_options(const StageCli& cli, const CommonOptions& options);

// One way is called faster when the other takes at least this many times
// as long (per launch, per decision); closer than that they are even.
inline constexpr double kClearRatio = 1.2;
// The device-launch flag is said to cost host launches something when it
// makes one at least this many times as long and at least kFlagExtraUs longer.
inline constexpr double kFlagRatio = 1.1;
inline constexpr double kFlagExtraUs = 0.2;

enum class Faster { device, host, even };
// host_us / device_us >= kClearRatio: device; <= 1 / kClearRatio: host; else even.
Faster faster(double host_us, double device_us);

// Median end to end of N launches, in µs per launch.
double per_launch_us(const Summary& end_to_end, int launches);

// A conclusion: a short id for the JSON and tests, and its sentence.
struct Conclusion {
  std::string id;
  std::string text;
};

// The empty graph N times: the faster device way (tail or fire-and-forget)
// against N host launches. ids: device_launch_faster, host_launch_faster, launches_even.
Conclusion launches_conclusion(const DeviceLaunchRun& run);
// The article's work N times, the same way. ids: work_device_faster,
// work_host_faster, work_even (the work hides what a launch costs).
Conclusion work_conclusion(const DeviceLaunchRun& run);
// Who decides what runs next, per decision. ids: device_decides_faster,
// host_decides_faster, decisions_even.
Conclusion decision_conclusion(const DeviceLaunchRun& run);
// What the flag does to each graph the host launches (the empty graph and
// the work's): `costs` at least kFlagRatio times as long and kFlagExtraUs
// longer, `saves` the same the other way, else `none`.
enum class FlagEffect { costs, saves, none };
FlagEffect flag_effect(double plain_us, double flagged_us);
// Both graphs' effects in one sentence. ids: flag_costs_host (some graph
// dearer, none cheaper), flag_saves_host (the other way), flag_mixed (one
// each), flag_free (neither).
Conclusion flag_conclusion(const DeviceLaunchRun& run);
// Whether the article's graph took the flag: "" when it did, else the refusal
// and what was measured instead.
std::string work_flag_text(const DeviceLaunchRun& run);

// Measurements: dl_empty_launch_cpu_plain, dl_empty_launch_cpu_flag,
// dl_work_launch_cpu_plain, dl_work_launch_cpu_flag (host cost of one
// launch), dl_empty_{host,tail,fire}, dl_work_{host,tail,fire} (N launches
// end to end), dl_decide_{host,device} (N decisions end to end); bounds:
// the per-launch and per-decision µs of each and dl_flag_extra_us.
StageResult device_launch_result(const DeviceInfo& device, const DeviceLaunchRun& run);
// subcommand_json(result, "device-launch") and "device_launch": {"launches",
// "work_launches", "fan_out", "work": {"batches", "size", "nodes",
// "kernels_only", "flag_refusal"}, "per_launch_us": {"empty"|"work":
// {"host", "tail", "fire_and_forget"}}, "per_decision_us": {"host",
// "device"}, "decisions": {"a", "b"}, "host_launch_us": {"empty"|"work":
// {"plain", "device_flag"}}, "conclusions": {"launches", "work", "decision",
// "flag"} (the ids)}.
nlohmann::json device_launch_json(const StageResult& result, const DeviceLaunchRun& run);
void print_device_launch(std::ostream& out, const StageResult& result, const DeviceLaunchRun& run);

// The whole run, for its estimate, when one launch of the article's work
// takes `work_seconds` on the GPU.
double device_launch_seconds(const DeviceLaunchConfig& config, const RepeatPlan& plan, double work_seconds);

}  // namespace csg::graphs
