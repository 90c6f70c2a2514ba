// Stage 04's device-launch subcommand on made-up figures: each branch of
// each conclusion, the thresholds, the result's verdict, the JSON section,
// and the subcommand's options.
#include <gtest/gtest.h>

#include <stdexcept>

#include "04_graph_capture_gemm/lab/device-launch/device_launch_report.hpp"
#include "04_graph_capture_gemm/lab/options.hpp"
#include "04_graph_capture_gemm/lab/report.hpp"
#include "base/errors.hpp"

namespace csg::graphs {
namespace {

Summary at_ms(double median_ms) {
  Summary s;
  s.median_ms = s.min_ms = s.p95_ms = s.max_ms = median_ms;
  s.samples = 10;
  return s;
}

VerifyResult passed() {
  VerifyResult v;
  v.passed = true;
  v.batches_checked = 8;
  return v;
}

// Per launch / decision in µs, N = 1000 launches and decisions, 100 runs of the work.
struct Made {
  double empty_host = 3.0, empty_tail = 1.5, empty_fire = 2.0;
  double work_host = 40.0, work_tail = 39.0, work_fire = 41.0;
  double decide_host = 15.0, decide_device = 3.0;
  double plain_cpu = 2.0, flag_cpu = 2.1;
  double work_plain_cpu = 5.0, work_flag_cpu = 5.2;
};

DeviceLaunchRun made(const Made& m) {
  DeviceLaunchRun run;
  run.config.launches = 1000;
  run.config.work_launches = 100;
  DeviceLaunchFigures& f = run.figures;
  auto total = [](double us_each, int n) { return at_ms(us_each * n / 1000.0); };
  f.empty_host.end_to_end = total(m.empty_host, 1000);
  f.empty_tail.end_to_end = total(m.empty_tail, 1000);
  f.empty_fire.end_to_end = total(m.empty_fire, 1000);
  f.work.host.end_to_end = total(m.work_host, 100);
  f.work.tail.end_to_end = total(m.work_tail, 100);
  f.work.fire.end_to_end = total(m.work_fire, 100);
  f.work.host_check = f.work.tail_check = f.work.fire_check = passed();
  f.decide_host.end_to_end = total(m.decide_host, 1000);
  f.decide_device.end_to_end = total(m.decide_device, 1000);
  f.empty_plain_cpu = at_ms(m.plain_cpu / 1000.0);
  f.empty_flag_cpu = at_ms(m.flag_cpu / 1000.0);
  f.work_plain_cpu = at_ms(m.work_plain_cpu / 1000.0);
  f.work_flag_cpu = at_ms(m.work_flag_cpu / 1000.0);
  f.work_nodes = 25;
  f.decide_a = 480;
  f.decide_b = 520;
  return run;
}

TEST(DeviceLaunch, FasterUsesTheClearRatioBothWays) {
  EXPECT_EQ(faster(1.2, 1.0), Faster::device);
  EXPECT_EQ(faster(1.19, 1.0), Faster::even);
  EXPECT_EQ(faster(1.0, 1.2), Faster::host);
  EXPECT_EQ(faster(1.0, 1.19), Faster::even);
  EXPECT_EQ(faster(0.0, 1.0), Faster::even);  // nothing measured
  EXPECT_DOUBLE_EQ(per_launch_us(at_ms(3.0), 1000), 3.0);
  EXPECT_DOUBLE_EQ(per_launch_us(at_ms(3.0), 0), 0.0);
}

TEST(DeviceLaunch, LaunchesDeviceFaster) {
  const Conclusion c = launches_conclusion(made({}));  // tail 1.5 µs vs host 3.0 µs
  EXPECT_EQ(c.id, "device_launch_faster");
  EXPECT_NE(c.text.find("tail launch 1.50 µs"), std::string::npos) << c.text;
  EXPECT_NE(c.text.find("2.0x faster"), std::string::npos) << c.text;
}

TEST(DeviceLaunch, LaunchesHostFaster) {
  Made m;
  m.empty_tail = 5.0;
  m.empty_fire = 4.0;  // the better device way, still 1.33x slower than the host
  const Conclusion c = launches_conclusion(made(m));
  EXPECT_EQ(c.id, "host_launch_faster");
  EXPECT_NE(c.text.find("fire-and-forget 4.00 µs"), std::string::npos) << c.text;
  EXPECT_NE(c.text.find("does not pay off"), std::string::npos) << c.text;
}

TEST(DeviceLaunch, LaunchesEven) {
  Made m;
  m.empty_tail = 2.8;
  m.empty_fire = 3.3;
  EXPECT_EQ(launches_conclusion(made(m)).id, "launches_even");
}

TEST(DeviceLaunch, WorkEvenSaysTheWorkHidesTheLaunch) {
  const Conclusion c = work_conclusion(made({}));  // 39 vs 40 µs
  EXPECT_EQ(c.id, "work_even");
  EXPECT_NE(c.text.find("does not pay off"), std::string::npos) << c.text;
  EXPECT_NE(c.text.find("the article's work"), std::string::npos) << c.text;
}

TEST(DeviceLaunch, WorkDeviceFaster) {
  Made m;
  m.work_tail = 20.0;
  EXPECT_EQ(work_conclusion(made(m)).id, "work_device_faster");
}

TEST(DeviceLaunch, WorkHostFaster) {
  Made m;
  m.work_tail = 60.0;
  m.work_fire = 50.0;
  EXPECT_EQ(work_conclusion(made(m)).id, "work_host_faster");
}

TEST(DeviceLaunch, WorkKernelsOnlyIsNamed) {
  DeviceLaunchRun run = made({});
  EXPECT_EQ(work_flag_text(run), "");
  run.figures.work_flag_refusal = "cudaGraphInstantiateWithParams failed: cudaErrorNotSupported";
  EXPECT_NE(work_flag_text(run).find("cudaErrorNotSupported"), std::string::npos);
  EXPECT_NE(work_conclusion(run).text.find("the article's kernels"), std::string::npos);
}

TEST(DeviceLaunch, DecisionOnTheDevicePaysOff) {
  const Conclusion c = decision_conclusion(made({}));  // 3 vs 15 µs
  EXPECT_EQ(c.id, "device_decides_faster");
  EXPECT_NE(c.text.find("12.0 µs saved per decision"), std::string::npos) << c.text;
}

TEST(DeviceLaunch, DecisionOnTheHostFaster) {
  Made m;
  m.decide_device = 20.0;
  EXPECT_EQ(decision_conclusion(made(m)).id, "host_decides_faster");
}

TEST(DeviceLaunch, DecisionsEven) {
  Made m;
  m.decide_device = 14.0;
  const Conclusion c = decision_conclusion(made(m));
  EXPECT_EQ(c.id, "decisions_even");
  EXPECT_NE(c.text.find("does not pay off"), std::string::npos) << c.text;
}

TEST(DeviceLaunch, FlagFreeBelowEitherThreshold) {
  EXPECT_EQ(flag_conclusion(made({})).id, "flag_free");  // 2.1 vs 2.0: 1.05x
  Made m;
  m.plain_cpu = 1.0;
  m.flag_cpu = 1.15;  // 1.15x but only 0.15 µs
  EXPECT_EQ(flag_conclusion(made(m)).id, "flag_free");
}

TEST(DeviceLaunch, FlagCostsHostLaunches) {
  Made m;
  m.flag_cpu = 2.5;  // 1.25x and 0.5 µs
  const Conclusion c = flag_conclusion(made(m));
  EXPECT_EQ(c.id, "flag_costs_host");
  EXPECT_NE(c.text.find("the empty graph 2.50 µs with the flag, 2.00 µs without (0.50 µs more)"), std::string::npos)
      << c.text;
}

TEST(DeviceLaunch, FlagSavesHostLaunches) {
  Made m;
  m.work_plain_cpu = 27.6;  // a graph with copy nodes of pinned host memory
  m.work_flag_cpu = 5.9;
  const Conclusion c = flag_conclusion(made(m));
  EXPECT_EQ(c.id, "flag_saves_host");
  EXPECT_NE(c.text.find("(4.7x less)"), std::string::npos) << c.text;
  EXPECT_EQ(flag_effect(5.0, 5.6), FlagEffect::costs);
  EXPECT_EQ(flag_effect(5.6, 5.0), FlagEffect::saves);
  EXPECT_EQ(flag_effect(1.0, 1.15), FlagEffect::none);  // 1.15x but only 0.15 µs
  EXPECT_EQ(flag_effect(0.0, 1.0), FlagEffect::none);   // nothing measured
}

TEST(DeviceLaunch, FlagDearerForOneGraphCheaperForTheOther) {
  Made m;
  m.flag_cpu = 3.7;  // the empty graph: dearer
  m.work_plain_cpu = 27.6;
  m.work_flag_cpu = 5.9;  // the work: cheaper
  const Conclusion c = flag_conclusion(made(m));
  EXPECT_EQ(c.id, "flag_mixed");
  EXPECT_NE(c.text.find("(1.70 µs more)"), std::string::npos) << c.text;
  EXPECT_NE(c.text.find("(4.7x less)"), std::string::npos) << c.text;
}

TEST(DeviceLaunch, ResultVerdictFailsOnAWrongCounter) {
  DeviceLaunchRun run = made({});
  EXPECT_TRUE(device_launch_result(DeviceInfo{}, run).verification.passed);
  run.figures.empty_fire.passed = false;
  run.figures.empty_fire.failure = "counted 999 executions, expected 1000";
  const StageResult result = device_launch_result(DeviceInfo{}, run);
  EXPECT_FALSE(result.verification.passed);
  EXPECT_NE(result.verification.method.find("counted 999"), std::string::npos) << result.verification.method;
}

TEST(DeviceLaunch, ResultVerdictFailsOnWrongOutputs) {
  DeviceLaunchRun run = made({});
  run.figures.work.tail_check.passed = false;
  EXPECT_FALSE(device_launch_result(DeviceInfo{}, run).verification.passed);
}

TEST(DeviceLaunch, JsonSection) {
  const DeviceLaunchRun run = made({});
  const nlohmann::json doc = device_launch_json(device_launch_result(DeviceInfo{}, run), run);
  EXPECT_EQ(doc.at("subcommand"), "device-launch");
  const nlohmann::json& s = doc.at("device_launch");
  EXPECT_EQ(s.at("launches"), 1000);
  EXPECT_EQ(s.at("work_launches"), 100);
  EXPECT_EQ(s.at("fan_out"), 100);
  EXPECT_TRUE(s.at("work").at("flag_refusal").is_null());
  EXPECT_EQ(s.at("work").at("kernels_only"), false);
  EXPECT_DOUBLE_EQ(s.at("per_launch_us").at("empty").at("tail").get<double>(), 1.5);
  EXPECT_DOUBLE_EQ(s.at("per_launch_us").at("work").at("host").get<double>(), 40.0);
  EXPECT_DOUBLE_EQ(s.at("per_decision_us").at("device").get<double>(), 3.0);
  EXPECT_DOUBLE_EQ(s.at("host_launch_us").at("empty").at("device_flag").get<double>(), 2.1);
  EXPECT_EQ(s.at("decisions").at("b"), 520);
  EXPECT_EQ(s.at("conclusions").at("launches"), "device_launch_faster");
  EXPECT_EQ(s.at("conclusions").at("work"), "work_even");
  EXPECT_EQ(s.at("conclusions").at("decision"), "device_decides_faster");
  EXPECT_EQ(s.at("conclusions").at("flag"), "flag_free");
  EXPECT_EQ(doc.at("measurements").size(), 12u);
}

TEST(DeviceLaunch, EstimateGrowsWithTheLaunches) {
  const DeviceLaunchConfig small;
  DeviceLaunchConfig large = small;
  large.launches *= 10;
  const RepeatPlan plan;
  EXPECT_GT(device_launch_seconds(large, plan, 50e-6), device_launch_seconds(small, plan, 50e-6));
  EXPECT_LT(device_launch_seconds(small, plan, 50e-6), 10.0);  // the defaults: well inside 10 s
}

DeviceLaunchConfig parse(const std::vector<std::string>& args) {
  StageCli cli("04_graph_capture_gemm device-launch", "test", own_workload_defaults());
  add_device_launch_options(cli);
  const std::optional<CommonOptions> options = cli.parse(args);
  if (!options) throw std::logic_error("--help");
  return read_device_launch_options(cli, *options);
}

TEST(DeviceLaunch, OptionsAndBadOnes) {
  const DeviceLaunchConfig d = parse({});
  EXPECT_EQ(d.launches, 1000);
  EXPECT_EQ(d.work_launches, 100);
  EXPECT_EQ(d.fan_out, 100);
  EXPECT_EQ(parse({"--fan-out", "120", "--launches", "7"}).launches, 7);
  for (const std::vector<std::string>& bad :
       {std::vector<std::string>{"--fan-out", "121"}, {"--fan-out", "0"}, {"--launches", "0"},
        {"--work-size", "x"}, {"--work-batches", "-1"}, {"--batches", "3"}}) {
    EXPECT_THROW(parse(bad), UsageError) << ::testing::PrintToString(bad);
  }
}

}  // namespace
}  // namespace csg::graphs
