#include "04_graph_capture_gemm/lab/device-launch/device_launch_report.hpp"

#include <algorithm>
#include <cstdio>

#include "base/text.hpp"
#include "04_graph_capture_gemm/lab/report.hpp"

namespace csg::graphs {
namespace {

std::string num(double value, int digits) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", digits, value);
  return text;
}

std::string us(double value) { return num(value, value < 10.0 ? 2 : 1) + " µs"; }

// "1.8x": the larger over the smaller of two positive figures.
std::string times(double a, double b) {
  const double low = std::min(a, b), high = std::max(a, b);
  return low > 0.0 ? num(high / low, 1) + "x" : "n/a";
}

const std::string kThreshold = " (a clear difference: " + num(kClearRatio, 1) + "x either way)";

struct Ways {
  double host = 0.0, tail = 0.0, fire = 0.0;
  double device() const { return std::min(tail, fire); }
  const char* device_name() const { return tail <= fire ? "tail launch" : "fire-and-forget"; }
};

Ways empty_ways(const DeviceLaunchRun& run) {
  const DeviceLaunchFigures& f = run.figures;
  const int n = run.config.launches;
  return {per_launch_us(f.empty_host.end_to_end, n), per_launch_us(f.empty_tail.end_to_end, n),
          per_launch_us(f.empty_fire.end_to_end, n)};
}

Ways work_ways(const DeviceLaunchRun& run) {
  const WorkRuns& w = run.figures.work;
  const int n = run.config.work_launches;
  return {per_launch_us(w.host.end_to_end, n), per_launch_us(w.tail.end_to_end, n),
          per_launch_us(w.fire.end_to_end, n)};
}

double cpu_us(const Summary& s) { return 1000.0 * s.median_ms; }

nlohmann::json ways_json(const Ways& w) {
  return {{"host", w.host}, {"tail", w.tail}, {"fire_and_forget", w.fire}};
}

}  // namespace

Faster faster(double host_us, double device_us) {
  if (host_us <= 0.0 || device_us <= 0.0) return Faster::even;
  const double ratio = host_us / device_us;
  if (ratio >= kClearRatio) return Faster::device;
  if (ratio <= 1.0 / kClearRatio) return Faster::host;
  return Faster::even;
}

double per_launch_us(const Summary& end_to_end, int launches) {
  return launches > 0 ? 1000.0 * end_to_end.median_ms / launches : 0.0;
}

Conclusion launches_conclusion(const DeviceLaunchRun& run) {
  const Ways w = empty_ways(run);
  const std::string figures = std::string(w.device_name()) + " " + us(w.device()) + " per launch, the host's " +
                              "cudaGraphLaunch " + us(w.host);
  switch (faster(w.host, w.device())) {
    case Faster::device:
      return {"device_launch_faster",
              "launching from the device pays off for back-to-back launches: " + figures + ", " +
                  times(w.host, w.device()) + " faster end to end" + kThreshold};
    case Faster::host:
      return {"host_launch_faster",
              "launching from the device does not pay off for back-to-back launches: " + figures + ", the host " +
                  times(w.host, w.device()) + " faster" + kThreshold};
    case Faster::even:
      break;
  }
  return {"launches_even", "back-to-back launches cost about the same from the device and the host: " + figures +
                               kThreshold};
}

Conclusion work_conclusion(const DeviceLaunchRun& run) {
  const Ways w = work_ways(run);
  const std::string what = run.figures.work_kernels_only() ? "the article's kernels" : "the article's work";
  const std::string figures = std::string(w.device_name()) + " " + us(w.device()) + " per run, the host " +
                              us(w.host);
  switch (faster(w.host, w.device())) {
    case Faster::device:
      return {"work_device_faster", "for " + what + " device launch still pays off: " + figures + ", " +
                                        times(w.host, w.device()) + " faster" + kThreshold};
    case Faster::host:
      return {"work_host_faster", "for " + what + " device launch does not pay off: " + figures + ", the host " +
                                      times(w.host, w.device()) + " faster" + kThreshold};
    case Faster::even:
      break;
  }
  return {"work_even", "for " + what + " the launch hides behind the work: " + figures +
                           ", no clear difference" + kThreshold + ": device launch does not pay off here"};
}

Conclusion decision_conclusion(const DeviceLaunchRun& run) {
  const int n = run.config.launches;
  const double host = per_launch_us(run.figures.decide_host.end_to_end, n);
  const double device = per_launch_us(run.figures.decide_device.end_to_end, n);
  const std::string figures =
      "a scheduler kernel " + us(device) + " per decision, the host (copy back, synchronise, launch) " + us(host);
  switch (faster(host, device)) {
    case Faster::device:
      return {"device_decides_faster", "deciding on the device pays off: " + figures + ", " + times(host, device) +
                                           " faster, " + us(host - device) + " saved per decision" + kThreshold};
    case Faster::host:
      return {"host_decides_faster", "deciding on the device does not pay off: " + figures + ", the host " +
                                         times(host, device) + " faster" + kThreshold};
    case Faster::even:
      break;
  }
  return {"decisions_even",
          "deciding on the device does not pay off here: " + figures + ", no clear difference" + kThreshold};
}

FlagEffect flag_effect(double plain_us, double flagged_us) {
  if (plain_us <= 0.0 || flagged_us <= 0.0) return FlagEffect::none;
  if (flagged_us >= kFlagRatio * plain_us && flagged_us - plain_us >= kFlagExtraUs) return FlagEffect::costs;
  if (plain_us >= kFlagRatio * flagged_us && plain_us - flagged_us >= kFlagExtraUs) return FlagEffect::saves;
  return FlagEffect::none;
}

Conclusion flag_conclusion(const DeviceLaunchRun& run) {
  const DeviceLaunchFigures& f = run.figures;
  struct Graph {
    const char* name;
    double plain, flagged;
  };
  const Graph graphs[] = {{"the empty graph", cpu_us(f.empty_plain_cpu), cpu_us(f.empty_flag_cpu)},
                          {"the work's graph", cpu_us(f.work_plain_cpu), cpu_us(f.work_flag_cpu)}};
  std::string parts;
  bool costs = false, saves = false;
  for (const Graph& g : graphs) {
    const FlagEffect effect = flag_effect(g.plain, g.flagged);
    costs = costs || effect == FlagEffect::costs;
    saves = saves || effect == FlagEffect::saves;
    if (!parts.empty()) parts += "; ";
    parts += std::string(g.name) + " " + us(g.flagged) + " with the flag, " + us(g.plain) + " without";
    if (effect == FlagEffect::costs) parts += " (" + us(g.flagged - g.plain) + " more)";
    if (effect == FlagEffect::saves) parts += " (" + times(g.plain, g.flagged) + " less)";
  }
  const std::string figures = "one host cudaGraphLaunch of " + parts;
  const std::string threshold = " (noticeable: " + num(kFlagRatio, 1) + "x and " + num(kFlagExtraUs, 1) + " µs)";
  if (costs && saves) {
    return {"flag_mixed", "the device-launch flag made one graph dearer and the other cheaper for the host to "
                          "launch: " + figures + threshold + "; the host's call only: what the flag does to "
                              "the replay on the GPU is not timed here (launch-anatomy times it)"};
  }
  if (costs) {
    return {"flag_costs_host", "the device-launch flag costs a graph the host launches: " + figures + threshold +
                                   "; instantiate with it only the graphs a kernel launches"};
  }
  if (saves) {
    return {"flag_saves_host", "the device-launch flag made host launches cheaper: " + figures + threshold +
                                   "; the host's call only: what the flag does to the replay on the GPU is not "
                                   "timed here (launch-anatomy times it)"};
  }
  return {"flag_free", "the device-launch flag costs host launches nothing noticeable: " + figures + threshold};
}

std::string work_flag_text(const DeviceLaunchRun& run) {
  if (!run.figures.work_kernels_only()) return "";
  return "the article's graph (with its host copies) was refused the device-launch flag: " +
         run.figures.work_flag_refusal + "; its kernels alone were measured instead";
}

StageResult device_launch_result(const DeviceInfo& device, const DeviceLaunchRun& run) {
  const DeviceLaunchConfig& c = run.config;
  const DeviceLaunchFigures& f = run.figures;
  const WorkRuns& w = f.work;
  const Workload workload = device_launch_workload(c);
  Work one = work_of(workload);
  if (f.work_kernels_only()) one.bytes = 0.0;
  const Work all{one.bytes * c.work_launches, one.flops * c.work_launches};
  const nlohmann::json flag_params = {{"graph", "empty"}};
  const nlohmann::json work_flag_params = {{"graph", "work"}, {"nodes", f.work_nodes}};
  const nlohmann::json empty_params = {{"launches", c.launches}, {"fan_out", std::min(c.fan_out, c.launches)}};
  const nlohmann::json work_params = {{"launches", c.work_launches}, {"batches", c.work_batches},
                                      {"size", c.work_size},         {"streams", c.streams},
                                      {"kernels_only", f.work_kernels_only()}};
  const nlohmann::json decide_params = {{"decisions", c.launches}};

  StageResult result;
  result.stage = kStage;
  result.device = device;
  result.config = config_json(run.options);
  result.config["launches"] = c.launches;
  result.config["work_launches"] = c.work_launches;
  result.config["work_batches"] = c.work_batches;
  result.config["work_size"] = c.work_size;
  result.config["fan_out"] = c.fan_out;
  result.config["streams"] = c.streams;
  result.measurements = {
      cost("dl_empty_launch_cpu_plain", flag_params, f.empty_plain_cpu),
      cost("dl_empty_launch_cpu_flag", flag_params, f.empty_flag_cpu),
      cost("dl_work_launch_cpu_plain", work_flag_params, f.work_plain_cpu),
      cost("dl_work_launch_cpu_flag", work_flag_params, f.work_flag_cpu),
      checked_without_digest("dl_empty_host", empty_params, f.empty_host.end_to_end, Work{}, f.empty_host.passed),
      checked_without_digest("dl_empty_tail", empty_params, f.empty_tail.end_to_end, Work{}, f.empty_tail.passed),
      checked_without_digest("dl_empty_fire", empty_params, f.empty_fire.end_to_end, Work{}, f.empty_fire.passed),
      checked("dl_work_host", work_params, w.host.end_to_end, all, w.host_check),
      checked("dl_work_tail", work_params, w.tail.end_to_end, all, w.tail_check),
      checked("dl_work_fire", work_params, w.fire.end_to_end, all, w.fire_check),
      checked_without_digest("dl_decide_host", decide_params, f.decide_host.end_to_end, Work{},
                             f.decide_host.passed),
      checked_without_digest("dl_decide_device", decide_params, f.decide_device.end_to_end, Work{},
                             f.decide_device.passed),
  };
  const Ways empty = empty_ways(run), work = work_ways(run);
  result.bounds = {
      {"dl_empty_host_us_per_launch", empty.host},
      {"dl_empty_tail_us_per_launch", empty.tail},
      {"dl_empty_fire_us_per_launch", empty.fire},
      {"dl_work_host_us_per_launch", work.host},
      {"dl_work_tail_us_per_launch", work.tail},
      {"dl_work_fire_us_per_launch", work.fire},
      {"dl_decide_host_us_per_decision", per_launch_us(f.decide_host.end_to_end, c.launches)},
      {"dl_decide_device_us_per_decision", per_launch_us(f.decide_device.end_to_end, c.launches)},
      {"dl_flag_extra_us", cpu_us(f.empty_flag_cpu) - cpu_us(f.empty_plain_cpu)},
  };
  set_verdict(result, w.host_check, {&w.host_check, &w.tail_check, &w.fire_check});
  const std::pair<const LaunchRun*, const char*> counted[] = {
      {&f.empty_host, "N host launches of the empty graph"},
      {&f.empty_tail, "N tail launches of the empty graph"},
      {&f.empty_fire, "N fire-and-forget launches of the empty graph"},
      {&w.host, "N host launches of the work"},
      {&w.tail, "N tail launches of the work"},
      {&w.fire, "N fire-and-forget launches of the work"},
      {&f.decide_host, "the host's decisions"},
      {&f.decide_device, "the scheduler kernel's decisions"}};
  for (const auto& [launch_run, what] : counted) {
    add_failure(result, launch_run->passed, std::string(what) + ": " + launch_run->failure);
  }
  return result;
}

nlohmann::json device_launch_json(const StageResult& result, const DeviceLaunchRun& run) {
  const DeviceLaunchConfig& c = run.config;
  const DeviceLaunchFigures& f = run.figures;
  nlohmann::json doc = subcommand_json(result, "device-launch");
  doc["device_launch"] = {
      {"launches", c.launches},
      {"work_launches", c.work_launches},
      {"fan_out", std::min(c.fan_out, c.launches)},
      {"work",
       {{"batches", c.work_batches},
        {"size", c.work_size},
        {"nodes", f.work_nodes},
        {"kernels_only", f.work_kernels_only()},
        {"flag_refusal", f.work_kernels_only() ? nlohmann::json(f.work_flag_refusal) : nlohmann::json(nullptr)}}},
      {"per_launch_us", {{"empty", ways_json(empty_ways(run))}, {"work", ways_json(work_ways(run))}}},
      {"per_decision_us",
       {{"host", per_launch_us(f.decide_host.end_to_end, c.launches)},
        {"device", per_launch_us(f.decide_device.end_to_end, c.launches)}}},
      {"decisions", {{"a", f.decide_a}, {"b", f.decide_b}}},
      {"host_launch_us",
       {{"empty", {{"plain", cpu_us(f.empty_plain_cpu)}, {"device_flag", cpu_us(f.empty_flag_cpu)}}},
        {"work", {{"plain", cpu_us(f.work_plain_cpu)}, {"device_flag", cpu_us(f.work_flag_cpu)}}}}},
      {"conclusions",
       {{"launches", launches_conclusion(run).id},
        {"work", work_conclusion(run).id},
        {"decision", decision_conclusion(run).id},
        {"flag", flag_conclusion(run).id}}},
  };
  return doc;
}

void print_device_launch(std::ostream& out, const StageResult& result, const DeviceLaunchRun& run) {
  const DeviceLaunchConfig& c = run.config;
  print_title(out, result, "device-launch");
  out << "graphs launched by a kernel (tail launch, fire-and-forget from a launcher, up to "
      << std::min(c.fan_out, c.launches) << " children per execution) against the host's cudaGraphLaunch: "
      << plural(c.launches, "launch", "launches") << " of a one-kernel counting graph, "
      << plural(c.work_launches, "run") << " of the article's work (" << c.work_batches << " naive " << c.work_size
      << "^3 " << noun(c.work_batches, "GEMM") << (run.figures.work_kernels_only() ? ", kernels only" : "")
      << " on " << plural(c.streams, "stream") << "), " << plural(c.launches, "decision")
      << " between two graphs; median of " << plural(run.options.plan.repeats, "run") << " after "
      << run.options.plan.warmup << " warm-up, interleaved\n\n";
  print_measurements(out, result.measurements);
  out << '\n';
  if (const std::string refused = work_flag_text(run); !refused.empty()) out << refused << '\n';
  for (const Conclusion& conclusion :
       {launches_conclusion(run), work_conclusion(run), decision_conclusion(run), flag_conclusion(run)}) {
    out << "- " << conclusion.text << '\n';
  }
  print_verification(out, result);
}

double device_launch_seconds(const DeviceLaunchConfig& config, const RepeatPlan& plan, double work_seconds) {
  // Errs long: 5 µs a device or host launch of the empty graph, 30 µs a
  // decision from the host, 25 µs a launch and synchronise from the host.
  const double launch = 5e-6, round_trip = 30e-6, synchronised = 25e-6;
  const double work = std::max(work_seconds, launch);
  const double flag = 4.0 * 20.0 * (synchronised + 0.5 * work);
  const double empty = 3.0 * config.launches * launch;
  const double works = 3.0 * config.work_launches * work;
  const double decisions = config.launches * (round_trip + 2.0 * launch);
  const double setup = 0.5 + config.fan_out * 200e-6;  // instantiations and uploads
  return setup + (plan.warmup + plan.repeats) * (flag + empty + works + decisions);
}

}  // namespace csg::graphs
