// Stage 04's device-launch subcommand on made-up figures: each branch of each
// verdict at and around its threshold, the verdicts' figures, the report (its
// console, its verdicts in the JSON, the section, a failed counter failing the
// run), the estimate and the options.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "matchers.hpp"
#include "04_graph_capture_gemm/lab/device-launch/device_launch.hpp"
#include "04_graph_capture_gemm/lab/options.hpp"
#include "04_graph_capture_gemm/lab/report.hpp"
#include "base/errors.hpp"
#include "declaration_checks.hpp"
#include "subcommand_checks.hpp"
#include "made_up.hpp"

namespace csg::graphs {
namespace cpu_device_launch {

using testing::flat;

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

struct MadeRun {
  DeviceLaunchConfig config;
  DeviceLaunchFigures figures;
};

MadeRun made(const Made& m) {
  MadeRun run;
  run.config.launches = 1000;
  run.config.work_launches = 100;
  run.config.common.work = Workload{8, GemmShape{128, 128, 128}};
  DeviceLaunchFigures& f = run.figures;
  auto total = [](double us_each, int n) { return flat(us_each * n / 1000.0); };
  f.empty_host.end_to_end = total(m.empty_host, 1000);
  f.empty_tail.end_to_end = total(m.empty_tail, 1000);
  f.empty_fire.end_to_end = total(m.empty_fire, 1000);
  f.work.host.end_to_end = total(m.work_host, 100);
  f.work.tail.end_to_end = total(m.work_tail, 100);
  f.work.fire.end_to_end = total(m.work_fire, 100);
  f.work.host_check = f.work.tail_check = f.work.fire_check = passed();
  f.decide_host.end_to_end = total(m.decide_host, 1000);
  f.decide_device.end_to_end = total(m.decide_device, 1000);
  f.empty_plain_cpu = flat(m.plain_cpu / 1000.0);
  f.empty_flag_cpu = flat(m.flag_cpu / 1000.0);
  f.work_plain_cpu = flat(m.work_plain_cpu / 1000.0);
  f.work_flag_cpu = flat(m.work_flag_cpu / 1000.0);
  f.work_nodes = 25;
  f.decide_a = 480;
  f.decide_b = 520;
  return run;
}

enum class Which { launches, work, decision, flag };

Verdict verdict_of(Which which, const MadeRun& run) {
  switch (which) {
    case Which::launches: return launches_verdict(run.config, run.figures);
    case Which::work: return work_verdict(run.config, run.figures);
    case Which::decision: return decision_verdict(run.config, run.figures);
    case Which::flag: break;
  }
  return flag_verdict(run.figures);
}

struct Branch {
  const char* name;
  Made made;
  Which which;
  const char* outcome;
  std::vector<std::string> words;  // what its sentence must say
};

class DeviceLaunchBranch : public ::testing::TestWithParam<Branch> {};

TEST_P(DeviceLaunchBranch, OutcomeAndSentence) {
  const Branch& b = GetParam();
  EXPECT_THAT(verdict_of(b.which, made(b.made)), IsVerdict("", b.outcome, b.words));
}

// Host over device 1.2 is clear (kClearRatio), 1.186 is not; the flag is
// noticeable at 1.1x and 0.2 µs both.
INSTANTIATE_TEST_SUITE_P(
    Verdicts, DeviceLaunchBranch,
    ::testing::Values(
        Branch{"LaunchesDevice", Made{}, Which::launches, "device_launch_faster",
               {"pays off for back-to-back launches", "tail launch 1.50 µs", "2.0x faster", "1.2x either way"}},
        Branch{"LaunchesDeviceAtTheRatio", Made{.empty_host = 3.0, .empty_tail = 2.5, .empty_fire = 2.5}, Which::launches,
               "device_launch_faster", {}},
        Branch{"LaunchesEvenUnderTheRatio", Made{.empty_host = 3.0, .empty_tail = 2.53, .empty_fire = 2.53},
               Which::launches, "launches_even", {"about the same from the device and the host"}},
        Branch{"LaunchesHost", Made{.empty_tail = 5.0, .empty_fire = 4.0}, Which::launches, "host_launch_faster",
               {"does not pay off", "fire-and-forget 4.00 µs"}},
        Branch{"WorkEven", Made{}, Which::work, "work_even",
               {"the article's work the launch hides behind the work", "does not pay off"}},
        Branch{"WorkDevice", Made{.work_tail = 20.0}, Which::work, "work_device_faster", {"still pays off"}},
        Branch{"WorkHost", Made{.work_tail = 60.0, .work_fire = 50.0}, Which::work, "work_host_faster",
               {"does not pay off: fire-and-forget 50.0 µs per run, the host 40.0 µs"}},
        Branch{"DecisionDevice", Made{}, Which::decision, "device_decides_faster", {"12.0 µs saved per decision"}},
        Branch{"DecisionHost", Made{.decide_device = 20.0}, Which::decision, "host_decides_faster",
               {"deciding on the device does not pay off: "}},
        Branch{"DecisionEven", Made{.decide_device = 14.0}, Which::decision, "decisions_even",
               {"does not pay off here", "no clear difference"}},
        Branch{"FlagFree", Made{}, Which::flag, "flag_free", {"nothing noticeable", "(noticeable: 1.1x and 0.2 µs)"}},
        Branch{"FlagFreeUnderTheExtra", Made{.plain_cpu = 1.0, .flag_cpu = 1.15}, Which::flag, "flag_free", {}},
        Branch{"FlagCosts", Made{.flag_cpu = 2.5}, Which::flag, "flag_costs_host",
               {"the empty graph 2.50 µs with the flag, 2.00 µs without (0.50 µs more)",
                "instantiate with it only the graphs a kernel launches"}},
        Branch{"FlagSaves", Made{.work_plain_cpu = 27.6, .work_flag_cpu = 5.9}, Which::flag, "flag_saves_host",
               {"(4.7x less)", "launch-anatomy times it"}},
        Branch{"FlagMixed", Made{.flag_cpu = 3.7, .work_plain_cpu = 27.6, .work_flag_cpu = 5.9}, Which::flag,
               "flag_mixed", {"(1.70 µs more)", "(4.7x less)"}}),
    [](const ::testing::TestParamInfo<Branch>& param_info) { return std::string(param_info.param.name); });

TEST(DeviceLaunchVerdicts, CarryTheirFiguresAndThresholds) {
  const MadeRun run = made({});
  const Verdict launches = launches_verdict(run.config, run.figures);
  EXPECT_EQ(launches.id, "device_launch.launches");
  EXPECT_DOUBLE_EQ(launches.figures.at("host_us").get<double>(), 3.0);
  EXPECT_DOUBLE_EQ(launches.figures.at("device_us").get<double>(), 1.5);
  EXPECT_DOUBLE_EQ(launches.figures.at("fire_and_forget_us").get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(launches.figures.at("host_over_device").get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(launches.threshold.at("clear_ratio").get<double>(), kClearRatio);
  const Verdict work = work_verdict(run.config, run.figures);
  EXPECT_EQ(work.id, "device_launch.work");
  EXPECT_DOUBLE_EQ(work.figures.at("host_us").get<double>(), 40.0);
  EXPECT_EQ(decision_verdict(run.config, run.figures).figures.at("device_us"), 3.0);
  const Verdict flag = flag_verdict(run.figures);
  EXPECT_EQ(flag.id, "device_launch.flag");
  EXPECT_DOUBLE_EQ(flag.figures.at("work_flag_us").get<double>(), 5.2);
  EXPECT_DOUBLE_EQ(flag.threshold.at("ratio").get<double>(), kFlagRatio);
  EXPECT_DOUBLE_EQ(flag.threshold.at("extra_us").get<double>(), kFlagExtraUs);
}

TEST(DeviceLaunchVerdicts, NameTheArticlesKernelsWhenTheFlagWasRefused) {
  MadeRun run = made({});
  run.figures.work_flag_refusal = "cudaGraphInstantiateWithParams failed: cudaErrorNotSupported";
  const Verdict work = work_verdict(run.config, run.figures);
  EXPECT_THAT(work.sentence, HasSubstr("the article's kernels"));
}

Report reported(const MadeRun& run) {
  return testing::report_of(kStage, "device-launch", report_device_launch, run.config, run.figures);
}

TEST(DeviceLaunchReport, PrintsEachVerdictAsABulletAndCarriesItInTheJson) {
  const Report report = reported(made({}));
  EXPECT_TRUE(report.passed());
  for (const Verdict& verdict : report.verdicts()) EXPECT_THAT(report.console(), HasSubstr("- " + verdict.sentence));
  EXPECT_THAT(testing::printed_verdict_ids(report), ElementsAre("device_launch.launches", "device_launch.work", "device_launch.decision",
                               "device_launch.flag"));
  EXPECT_THAT(report.console(), AllOf(HasSubstr("1000 launches of a one-kernel counting graph"),
                                      HasSubstr("dl_decide_device"), HasSubstr("runs checked"),
                                      Not(HasSubstr("refused the device-launch flag"))));
  const nlohmann::json doc = report.document();
  EXPECT_EQ(doc.at("subcommand"), "device-launch");
  EXPECT_EQ(doc.at("measurements").size(), 12u);
  EXPECT_EQ(doc.at("verdicts").size(), 4u);
  EXPECT_EQ(doc.at("config").at("work_launches"), 100);
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
  EXPECT_EQ(s.at("conclusions"), (nlohmann::json{{"launches", "device_launch_faster"},
                                                 {"work", "work_even"},
                                                 {"decision", "device_decides_faster"},
                                                 {"flag", "flag_free"}}));
}

TEST(DeviceLaunchReport, NamesTheRefusalOfTheFlag) {
  MadeRun run = made({});
  run.figures.work_flag_refusal = "cudaErrorNotSupported";
  const Report report = reported(run);
  EXPECT_THAT(report.console(), HasSubstr("refused the device-launch flag: cudaErrorNotSupported; its kernels alone"));
  EXPECT_EQ(report.document().at("device_launch").at("work").at("flag_refusal"), "cudaErrorNotSupported");
}

TEST(DeviceLaunchReport, AWrongCounterOrOutputFailsTheRun) {
  MadeRun run = made({});
  run.figures.empty_fire.passed = false;
  run.figures.empty_fire.failure = "counted 999 executions, expected 1000";
  const Report counted = reported(run);
  testing::expect_failed(counted, "counted 999");
  run = made({});
  run.figures.work.tail_check.passed = false;
  EXPECT_FALSE(reported(run).passed());
}

TEST(DeviceLaunch, EstimateGrowsWithTheLaunches) {
  const DeviceLaunchConfig small;
  DeviceLaunchConfig large = small;
  large.launches *= 10;
  EXPECT_GT(device_launch_seconds(large, 50e-6), device_launch_seconds(small, 50e-6));
  EXPECT_LT(device_launch_seconds(small, 50e-6), 10.0);  // the defaults: well inside 10 s
}

DeviceLaunchConfig parse(const std::vector<std::string>& args) {
  return testing::read_declared(own_workload_defaults(), device_launch_options, read_device_launch, args);
}

TEST(DeviceLaunchOptions, DefaultsAndTheWorkTheyMake) {
  const DeviceLaunchConfig d = parse({});
  EXPECT_EQ(d.launches, 1000);
  EXPECT_EQ(d.work_launches, 100);
  EXPECT_EQ(d.fan_out, 100);
  EXPECT_EQ(d.common.work.batches, 8);
  EXPECT_EQ(d.common.work.shape.k, 128);
  EXPECT_EQ(d.common.host_memory, HostMemory::pinned);
  const DeviceLaunchConfig given = parse({"--fan-out", "120", "--launches", "7", "--work-size", "33"});
  EXPECT_EQ(given.launches, 7);
  EXPECT_EQ(given.common.work.shape.m, 33);
}

}  // namespace cpu_device_launch
}  // namespace csg::graphs
