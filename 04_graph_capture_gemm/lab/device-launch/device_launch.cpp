#include "04_graph_capture_gemm/lab/device-launch/device_launch.hpp"

#include "04_graph_capture_gemm/lab/launch_costs.hpp"
#include "04_graph_capture_gemm/lab/options.hpp"
#include "04_graph_capture_gemm/lab/report.hpp"
#include "experiment/lab.hpp"

namespace csg::graphs {
namespace {

constexpr const char* kAbout = R"(
device-launch: graphs launched from the GPU: tail, fire-and-forget, a scheduler, vs the host

Graphs launched from the GPU: a one-kernel counting graph and the article's work (small) launched N
times by the host, by a graph tail-launching itself and by a launcher kernel firing and forgetting;
a scheduler kernel picking the next graph from a value on the device against the host copying it
back, synchronising and launching; and what the device-launch flag costs a graph the host launches.
)";

// What scripts/run_suite.sh, the GPU-box check and ctest run of it (STAGE --list).
constexpr const char* kRuns = R"(
# graphs launched from the GPU: after-the-article table, after_article.png
qfc  -
t    tiny      --launches 7 --work-launches 3 --work-batches 5 --work-size 33 --fan-out 3 --streams 3 --warmup 1 --repeats 2
t    pageable  --host-memory pageable --launches 5 --work-launches 2 --work-batches 3 --work-size 16 --fan-out 2 --streams 2 --warmup 0 --repeats 1
m    -         --launches 5 --work-launches 2 --work-batches 3 --work-size 16 --fan-out 2 --streams 2 --warmup 0 --repeats 1
)";

std::string us(double value) { return fixed(value, value < 10.0 ? 2 : 1) + " µs"; }

// "1.8x": the larger over the smaller of two positive figures.
std::string times(double a, double b) {
  const double low = std::min(a, b), high = std::max(a, b);
  return low > 0.0 ? fixed(high / low, 1) + "x" : "n/a";
}

const std::string kThreshold = " (a clear difference: " + fixed(kClearRatio, 1) + "x either way)";

double cpu_us(const Summary& s) { return 1000.0 * s.median_ms; }

// N launches three ways, per launch.
struct Ways {
  double host = 0.0, tail = 0.0, fire = 0.0;
  double device() const { return std::min(tail, fire); }
  const char* device_name() const { return tail <= fire ? "tail launch" : "fire-and-forget"; }
  nlohmann::json json() const { return {{"host", host}, {"tail", tail}, {"fire_and_forget", fire}}; }
};

Ways ways(const LaunchRun& host, const LaunchRun& tail, const LaunchRun& fire, int launches) {
  return {per_op_us(host.end_to_end, launches), per_op_us(tail.end_to_end, launches),
          per_op_us(fire.end_to_end, launches)};
}

enum class Faster { device, host, even };

// host_us / device_us >= kClearRatio: device; <= 1 / kClearRatio: host; else even.
Faster faster(double host_us, double device_us) {
  if (host_us <= 0.0 || device_us <= 0.0) return Faster::even;
  const double ratio = host_us / device_us;
  if (ratio >= kClearRatio) return Faster::device;
  if (ratio <= 1.0 / kClearRatio) return Faster::host;
  return Faster::even;
}

// A verdict of the host against the device, its figures named, its outcome
// and sentence left to the caller.
Verdict host_against_device(const char* id, double host_us, double device_us, nlohmann::json figures) {
  figures["host_us"] = host_us;
  figures["device_us"] = device_us;
  figures["host_over_device"] = device_us > 0.0 ? host_us / device_us : 0.0;
  return {.id = id, .figures = std::move(figures), .threshold = {{"clear_ratio", kClearRatio}}};
}

Verdict ways_verdict(const char* id, const Ways& w) {
  return host_against_device(id, w.host, w.device(), {{"tail_us", w.tail}, {"fire_and_forget_us", w.fire}});
}

// An outcome and its sentence, for each of who was faster.
struct Said {
  const char* outcome;
  std::string sentence;
};
Verdict decided(Verdict v, Faster who, Said device, Said host, Said even) {
  Said& said = who == Faster::device ? device : who == Faster::host ? host : even;
  return graphs::decided(std::move(v), said.outcome, std::move(said.sentence));
}

enum class FlagEffect { costs, saves, none };

// `costs` at least kFlagRatio times as long and kFlagExtraUs longer, `saves` the same the other way.
FlagEffect flag_effect(double plain_us, double flagged_us) {
  if (plain_us <= 0.0 || flagged_us <= 0.0) return FlagEffect::none;
  if (flagged_us >= kFlagRatio * plain_us && flagged_us - plain_us >= kFlagExtraUs) return FlagEffect::costs;
  if (plain_us >= kFlagRatio * flagged_us && plain_us - flagged_us >= kFlagExtraUs) return FlagEffect::saves;
  return FlagEffect::none;
}

Needs needs(const DeviceLaunchConfig& c) {
  const Workload& work = c.common.work;
  return {memory_needs(work, c.common.host_memory, work.batches), "try a smaller --work-batches or --work-size"};
}

csg::Estimate estimate(const DeviceLaunchConfig& c, int /*device*/) {
  const Workload& work = c.common.work;
  const double one_run =
      work_seconds(work, measure_rates(Gemm{}, work.shape), c.common.host_memory == HostMemory::pageable).serial();
  return {device_launch_seconds(c, one_run),
          "graphs launched from the GPU: " + std::to_string(c.launches) + " launches three ways, " +
              std::to_string(c.work_launches) + " runs of the work, " + std::to_string(c.launches) + " decisions"};
}

const Experiment<DeviceLaunchConfig, DeviceLaunchFigures> kExperiment{.about = kAbout, .runs = kRuns,
    .defaults = own_workload_defaults(), .options = device_launch_options, .read = read_device_launch, .needs = needs,
    .estimate = estimate, .measure = measure_device_launch, .report = report_device_launch};

}  // namespace

Verdict launches_verdict(const DeviceLaunchConfig& config, const DeviceLaunchFigures& figures) {
  const Ways w = ways(figures.empty_host, figures.empty_tail, figures.empty_fire, config.launches);
  const std::string said = std::string(w.device_name()) + " " + us(w.device()) + " per launch, the host's " +
                           "cudaGraphLaunch " + us(w.host);
  return decided(ways_verdict("device_launch.launches", w), faster(w.host, w.device()),
                 {"device_launch_faster", "launching from the device pays off for back-to-back launches: " + said +
                                              ", " + times(w.host, w.device()) + " faster end to end" + kThreshold},
                 {"host_launch_faster", "launching from the device does not pay off for back-to-back launches: " +
                                            said + ", the host " + times(w.host, w.device()) + " faster" + kThreshold},
                 {"launches_even",
                  "back-to-back launches cost about the same from the device and the host: " + said + kThreshold});
}

Verdict work_verdict(const DeviceLaunchConfig& config, const DeviceLaunchFigures& figures) {
  const Ways w = ways(figures.work.host, figures.work.tail, figures.work.fire, config.work_launches);
  const std::string what = figures.work_kernels_only() ? "the article's kernels" : "the article's work";
  const std::string said = std::string(w.device_name()) + " " + us(w.device()) + " per run, the host " + us(w.host);
  return decided(ways_verdict("device_launch.work", w), faster(w.host, w.device()),
                 {"work_device_faster", "for " + what + " device launch still pays off: " + said + ", " +
                                            times(w.host, w.device()) + " faster" + kThreshold},
                 {"work_host_faster", "for " + what + " device launch does not pay off: " + said + ", the host " +
                                          times(w.host, w.device()) + " faster" + kThreshold},
                 {"work_even", "for " + what + " the launch hides behind the work: " + said +
                                   ", no clear difference" + kThreshold + ": device launch does not pay off here"});
}

Verdict decision_verdict(const DeviceLaunchConfig& config, const DeviceLaunchFigures& figures) {
  const double host = per_op_us(figures.decide_host.end_to_end, config.launches);
  const double device = per_op_us(figures.decide_device.end_to_end, config.launches);
  const std::string said =
      "a scheduler kernel " + us(device) + " per decision, the host (copy back, synchronise, launch) " + us(host);
  return decided(host_against_device("device_launch.decision", host, device, nlohmann::json::object()),
                 faster(host, device),
                 {"device_decides_faster", "deciding on the device pays off: " + said + ", " + times(host, device) +
                                               " faster, " + us(host - device) + " saved per decision" + kThreshold},
                 {"host_decides_faster", "deciding on the device does not pay off: " + said + ", the host " +
                                             times(host, device) + " faster" + kThreshold},
                 {"decisions_even",
                  "deciding on the device does not pay off here: " + said + ", no clear difference" + kThreshold});
}

Verdict flag_verdict(const DeviceLaunchFigures& f) {
  struct Graph {
    const char* name;
    double plain, flagged;
  };
  const Graph graphs[] = {{"the empty graph", cpu_us(f.empty_plain_cpu), cpu_us(f.empty_flag_cpu)},
                          {"the work's graph", cpu_us(f.work_plain_cpu), cpu_us(f.work_flag_cpu)}};
  Verdict v{.id = "device_launch.flag",
            .figures = {{"empty_plain_us", graphs[0].plain},
                        {"empty_flag_us", graphs[0].flagged},
                        {"work_plain_us", graphs[1].plain},
                        {"work_flag_us", graphs[1].flagged}},
            .threshold = {{"ratio", kFlagRatio}, {"extra_us", kFlagExtraUs}}};
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
  const std::string said = "one host cudaGraphLaunch of " + parts + " (noticeable: " + fixed(kFlagRatio, 1) +
                           "x and " + fixed(kFlagExtraUs, 1) + " µs)";
  const std::string host_only =
      "; the host's call only: what the flag does to the replay on the GPU is not timed here (launch-anatomy times it)";
  if (costs && saves) {
    return decided(v, "flag_mixed", "the device-launch flag made one graph dearer and the other cheaper for the host "
                                    "to launch: " + said + host_only);
  }
  if (costs) {
    return decided(v, "flag_costs_host", "the device-launch flag costs a graph the host launches: " + said +
                                             "; instantiate with it only the graphs a kernel launches");
  }
  if (saves) {
    return decided(v, "flag_saves_host", "the device-launch flag made host launches cheaper: " + said + host_only);
  }
  return decided(v, "flag_free", "the device-launch flag costs host launches nothing noticeable: " + said);
}

void device_launch_options(StageCli& cli) {
  const DeviceLaunchConfig defaults;
  cli.add_int("launches", "Launches of the one-kernel counting graph, and decisions between two graphs",
              defaults.launches, 1, 1000000);
  cli.add_int("work-launches", "Launches of the article's work", defaults.work_launches, 1, 100000);
  cli.add_int("work-batches", "Batches (GEMMs) of the article's work", defaults.work_batches, 1, 1000);
  cli.add_int("work-size", "m = n = k of the article's GEMMs", defaults.work_size, 1, 4096);
  cli.add_int("fan-out", "Children a launcher kernel fires per execution (at most " + std::to_string(kMaxFanOut) + ")",
              defaults.fan_out, 1, kMaxFanOut);
  cli.add_int("streams", "Streams of the article's pool", defaults.streams, 1, 64);
}

DeviceLaunchConfig read_device_launch(const StageCli& cli, CommonOptions& common) {
  const auto get = [&cli](const char* name) { return static_cast<int>(cli.get_int(name)); };
  const int batches = get("work-batches"), size = get("work-size");
  common.work = Workload{batches, GemmShape{size, size, size}};
  return {.common = common, .launches = get("launches"), .work_launches = get("work-launches"),
          .work_batches = batches, .work_size = size, .fan_out = get("fan-out"), .streams = get("streams")};
}

double device_launch_seconds(const DeviceLaunchConfig& config, double work_seconds) {
  // Errs long: 5 µs a device or host launch of the empty graph, 30 µs a
  // decision from the host, 25 µs a launch and synchronise from the host.
  const double launch = 5e-6, round_trip = 30e-6, synchronised = 25e-6;
  const double work = std::max(work_seconds, launch);
  const double flag = 4.0 * 20.0 * (synchronised + 0.5 * work);
  const double empty = 3.0 * config.launches * launch;
  const double works = 3.0 * config.work_launches * work;
  const double decisions = config.launches * (round_trip + 2.0 * launch);
  const double setup = 0.5 + config.fan_out * 200e-6;  // instantiations and uploads
  const RepeatPlan& plan = config.common.plan;
  return setup + (plan.warmup + plan.repeats) * (flag + empty + works + decisions);
}

void report_device_launch(const DeviceLaunchConfig& c, const DeviceLaunchFigures& f, Report& report) {
  const WorkRuns& w = f.work;
  Work one = work_of(c.common.work);
  if (f.work_kernels_only()) one.bytes = 0.0;
  const Work all{one.bytes * c.work_launches, one.flops * c.work_launches};
  const nlohmann::json flag_params = {{"graph", "empty"}};
  const nlohmann::json work_flag_params = {{"graph", "work"}, {"nodes", f.work_nodes}};
  const int fan_out = std::min(c.fan_out, c.launches);
  const nlohmann::json empty_params = {{"launches", c.launches}, {"fan_out", fan_out}};
  const nlohmann::json work_params = {{"launches", c.work_launches}, {"batches", c.work_batches},
                                      {"size", c.work_size},         {"streams", c.streams},
                                      {"kernels_only", f.work_kernels_only()}};
  const nlohmann::json decide_params = {{"decisions", c.launches}};

  StageResult& result = report.result;
  result.config = config_json(c.common);
  result.config.update({{"launches", c.launches},
                        {"work_launches", c.work_launches},
                        {"work_batches", c.work_batches},
                        {"work_size", c.work_size},
                        {"fan_out", c.fan_out},
                        {"streams", c.streams}});
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
      checked_without_digest("dl_decide_host", decide_params, f.decide_host.end_to_end, Work{}, f.decide_host.passed),
      checked_without_digest("dl_decide_device", decide_params, f.decide_device.end_to_end, Work{},
                             f.decide_device.passed),
  };
  const Ways empty = ways(f.empty_host, f.empty_tail, f.empty_fire, c.launches);
  const Ways work = ways(w.host, w.tail, w.fire, c.work_launches);
  const double decide_host = per_op_us(f.decide_host.end_to_end, c.launches);
  const double decide_device = per_op_us(f.decide_device.end_to_end, c.launches);
  result.bounds = {
      {"dl_empty_host_us_per_launch", empty.host},
      {"dl_empty_tail_us_per_launch", empty.tail},
      {"dl_empty_fire_us_per_launch", empty.fire},
      {"dl_work_host_us_per_launch", work.host},
      {"dl_work_tail_us_per_launch", work.tail},
      {"dl_work_fire_us_per_launch", work.fire},
      {"dl_decide_host_us_per_decision", decide_host},
      {"dl_decide_device_us_per_decision", decide_device},
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
  count_checked_runs(report);

  std::ostream& out = report.out();
  out << "graphs launched by a kernel (tail launch, fire-and-forget from a launcher, up to " << fan_out
      << " children per execution) against the host's cudaGraphLaunch: " << plural(c.launches, "launch", "launches")
      << " of a one-kernel counting graph, " << plural(c.work_launches, "run") << " of the article's work ("
      << c.work_batches << " naive " << c.work_size << "^3 " << noun(c.work_batches, "GEMM")
      << (f.work_kernels_only() ? ", kernels only" : "") << " on " << plural(c.streams, "stream") << "), "
      << plural(c.launches, "decision") << " between two graphs; median of " << plural(c.common.plan.repeats, "run")
      << " after " << c.common.plan.warmup << " warm-up, interleaved\n\n";
  report.measurements();
  out << '\n';
  if (f.work_kernels_only()) {
    out << "the article's graph (with its host copies) was refused the device-launch flag: " << f.work_flag_refusal
        << "; its kernels alone were measured instead\n";
  }
  nlohmann::json conclusions = nlohmann::json::object();
  for (Verdict verdict : {launches_verdict(c, f), work_verdict(c, f), decision_verdict(c, f), flag_verdict(f)}) {
    // "device_launch.launches" -> "launches": the section's own key for the outcome.
    conclusions[verdict.id.substr(verdict.id.find('.') + 1)] = verdict.outcome;
    out << "- ";
    report.verdict(std::move(verdict));
  }
  report.sections["device_launch"] = {
      {"launches", c.launches},
      {"work_launches", c.work_launches},
      {"fan_out", fan_out},
      {"work",
       {{"batches", c.work_batches},
        {"size", c.work_size},
        {"nodes", f.work_nodes},
        {"kernels_only", f.work_kernels_only()},
        {"flag_refusal", f.work_kernels_only() ? nlohmann::json(f.work_flag_refusal) : nlohmann::json(nullptr)}}},
      {"per_launch_us", {{"empty", empty.json()}, {"work", work.json()}}},
      {"per_decision_us", {{"host", decide_host}, {"device", decide_device}}},
      {"decisions", {{"a", f.decide_a}, {"b", f.decide_b}}},
      {"host_launch_us",
       {{"empty", {{"plain", cpu_us(f.empty_plain_cpu)}, {"device_flag", cpu_us(f.empty_flag_cpu)}}},
        {"work", {{"plain", cpu_us(f.work_plain_cpu)}, {"device_flag", cpu_us(f.work_flag_cpu)}}}}},
      {"conclusions", conclusions},
  };
}

extern const Subcommand kDeviceLaunch = make_subcommand<kExperiment>();

}  // namespace csg::graphs
