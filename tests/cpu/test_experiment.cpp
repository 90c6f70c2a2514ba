// The laboratory's frame without a GPU: the one end every run shares (the
// console in order, the verdicts carried in the JSON in the words printed,
// a failed check failing the run), a verdict's JSON both ways, and each
// stage's registry as "STAGE --list" gives it: every line whole, every
// subcommand run by the suite, its --full, the GPU-box check and ctest,
// every run's arguments accepted by the stage itself.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "matchers.hpp"
#include "experiment/experiment.hpp"
#include "experiment/report.hpp"
#include "report/verdict.hpp"
#include "stage.hpp"
#include "run_process.hpp"
#include "stage_binaries.hpp"

namespace csg {
namespace cpu_experiment {

Verdict made_up_verdict(const std::string& outcome) {
  return {.id = "made_up.pool",
          .outcome = outcome,
          .figures = {{"pool_ms", 16.0}, {"serial_ms", 31.0}},
          .threshold = 0.03,
          .sentence = "the pool took 16.00 ms, 1.94x faster than serial"};
}

Report made_up_report() {
  DeviceInfo device;
  device.name = "Test GPU";
  Report report("03_stream_pool_gemm", "made-up", device);
  report.result.verification.passed = true;
  report.result.verification.batches_checked = 4;
  report.result.verification.method = "freivalds+sampled";
  report.out() << "what ran\n";
  report.verdict(made_up_verdict("faster"));
  report.out() << "a note after the verdict\n";
  report.sections["made_up"] = {{"streams", 8}};
  return report;
}

TEST(ExperimentReport, TheConsoleIsTheTitleThePartsInOrderAndTheVerification) {
  const Report report = made_up_report();
  const std::string text = report.console();
  EXPECT_THAT(text, StartsWith("03_stream_pool_gemm made-up on Test GPU"));
  const std::size_t ran = text.find("what ran");
  const std::size_t verdict = text.find("the pool took 16.00 ms");
  const std::size_t note = text.find("a note after the verdict");
  const std::size_t verified = text.find("all 4 batches verified");
  EXPECT_LT(ran, verdict);
  EXPECT_LT(verdict, note);
  EXPECT_LT(note, verified);
  EXPECT_NE(verified, std::string::npos) << text;
  EXPECT_TRUE(report.passed());
}

TEST(ExperimentReport, TheDocumentCarriesTheVerdictsInTheWordsPrinted) {
  const Report report = made_up_report();
  const nlohmann::json doc = report.document();
  EXPECT_EQ(doc.at("schema"), "cuda-streams-graphs/result/v2");
  EXPECT_EQ(doc.at("subcommand"), "made-up");
  EXPECT_EQ(doc.at("made_up").at("streams"), 8);
  ASSERT_THAT(doc.at("verdicts"), SizeIs(1));
  const Verdict verdict = verdict_from_json(doc.at("verdicts").at(0));
  EXPECT_EQ(verdict.id, "made_up.pool");
  EXPECT_EQ(verdict.outcome, "faster");
  EXPECT_DOUBLE_EQ(verdict.threshold.get<double>(), 0.03);
  EXPECT_DOUBLE_EQ(verdict.figures.at("serial_ms").get<double>(), 31.0);
  EXPECT_THAT(report.console(), HasSubstr(verdict.sentence + "\n"));
}

TEST(ExperimentReport, ALessonsDocumentNamesNoSubcommand) {
  Report lesson("01_serial_baseline", "", DeviceInfo{});
  EXPECT_TRUE(lesson.document().at("subcommand").is_null());
  EXPECT_THAT(lesson.console(), StartsWith("01_serial_baseline on "));
}

TEST(ExperimentReport, AFailedCheckFailsTheRunAndIsNamedLast) {
  Report report = made_up_report();
  report.fail("the graph has 3 programmatic edges, 4 expected");
  EXPECT_FALSE(report.passed());
  EXPECT_THAT(report.console(), HasSubstr("FAILED: the graph has 3 programmatic edges, 4 expected\n"));
  EXPECT_THAT(report.document().at("failures"), ElementsAre("the graph has 3 programmatic edges, 4 expected"));
  testing::TempDir dir;
  std::ostringstream out;
  EXPECT_EQ(report.finish(out, dir.file("run.json")), kExitFailure);
  EXPECT_EQ(testing::read_json(dir.file("run.json")).at("failures").size(), 1U);
}

TEST(ExperimentReport, FinishWritesTheJsonAndTheOtherFilesWhole) {
  Report report = made_up_report();
  testing::TempDir dir;
  report.file(dir.file("graph.dot"), "digraph {}\n");
  std::ostringstream out;
  EXPECT_EQ(report.finish(out, dir.file("run.json")), kExitOk);
  EXPECT_EQ(out.str(), report.console());
  EXPECT_EQ(testing::read_text(dir.file("graph.dot")), "digraph {}\n");
  EXPECT_EQ(testing::read_json(dir.file("run.json")).at("verdicts").at(0).at("outcome"), "faster");
  EXPECT_THAT(dir.entries(), ::testing::UnorderedElementsAre("graph.dot", "run.json"));
}

TEST(VerdictJson, ReadsBackWhatItWritesAndNamesAMissingField) {
  const Verdict verdict = made_up_verdict("same");
  const Verdict back = verdict_from_json(to_json(verdict));
  EXPECT_EQ(back.id, verdict.id);
  EXPECT_EQ(back.outcome, verdict.outcome);
  EXPECT_EQ(back.figures, verdict.figures);
  EXPECT_EQ(back.threshold, verdict.threshold);
  EXPECT_EQ(back.sentence, verdict.sentence);
  nlohmann::json no_sentence = to_json(verdict);
  no_sentence.erase("sentence");
  EXPECT_THROW(verdict_from_json(no_sentence), std::invalid_argument);
  nlohmann::json numeric_outcome = to_json(verdict);
  numeric_outcome["outcome"] = 3;
  EXPECT_THROW(verdict_from_json(numeric_outcome), std::invalid_argument);
}

TEST(RunsTable, EachLineBecomesOneTabSeparatedRunWithItsOptionsAndArguments) {
  const char* runs = R"(
# a comment, then a blank line

qfc  -      --host-memory pinned
t    tiny   ctest=whole_gpu,alone env=CUDA_MODULE_LOADING=EAGER --batches 3  --m 8
c    hours  exit=2 --m 65536
t    join   exit=1 expect=cudaErrorStreamCaptureUnjoined --streams 3
)";
  EXPECT_EQ(list_runs("kernels", runs),
            "run\tkernels\t-\tqfc\t0\t-\t-\t-\t--host-memory pinned\n"
            "run\tkernels\ttiny\tt\t0\tCUDA_MODULE_LOADING=EAGER\twhole_gpu,alone\t-\t--batches 3 --m 8\n"
            "run\tkernels\thours\tc\t2\t-\t-\t-\t--m 65536\n"
            "run\tkernels\tjoin\tt\t1\t-\t-\tcudaErrorStreamCaptureUnjoined\t--streams 3\n");
  EXPECT_EQ(list_runs("", "q -\n"), "run\t-\t-\tq\t0\t-\t-\t-\t\n") << "the lesson's, with no arguments";
}

TEST(RunsTable, ALineItCannotReadNamesItsLine) {
  EXPECT_THAT([] { list_runs("pdl", "q -\nx tiny --batches 3\n"); },
              ::testing::ThrowsMessage<std::logic_error>(HasSubstr("the runs of pdl, line 2: modes 'x'")));
  EXPECT_THAT([] { list_runs("", "t\n"); },
              ::testing::ThrowsMessage<std::logic_error>(HasSubstr("the runs of the lesson, line 1: no name")));
  EXPECT_THAT([] { list_runs("graph", "t tiny exit=one\n"); },
              ::testing::ThrowsMessage<std::logic_error>(HasSubstr("exit=one")));
}

TEST(About, ItsFirstLineIsNameAndSummaryThenTheDescriptionAfterABlankLine) {
  const About about = read_about(R"(
count-sweep: 1 to 1,024 streams: where more stop helping

The stream pool from 1 to 1,024 streams,
each size with its own bound.
)");
  EXPECT_EQ(about.name, "count-sweep");
  EXPECT_EQ(about.summary, "1 to 1,024 streams: where more stop helping") << "a colon after the first stays";
  EXPECT_EQ(about.description, "The stream pool from 1 to 1,024 streams,\neach size with its own bound.");
  EXPECT_EQ(runner::one_paragraph(about.description),
            "The stream pool from 1 to 1,024 streams, each size with its own bound.");
  const About no_colon = read_about("count-sweep\n\nwords");
  EXPECT_EQ(no_colon.name, "count-sweep");
  EXPECT_THAT(no_colon.summary, ::testing::IsEmpty()) << "what StageRegistry's summary check then catches";
}

#ifdef CSG_STAGE_BINARIES

// One "run" line of STAGE --list.
struct ListedRun {
  std::string subcommand, name, modes, exit, env, ctest, expect, args;
};

struct Registry {
  std::string stage;
  std::vector<std::string> subcommands;
  std::vector<ListedRun> runs;
};

std::vector<std::string> tab_fields(const std::string& line) {
  std::vector<std::string> fields;
  std::stringstream in(line);
  for (std::string field; std::getline(in, field, '\t');) fields.push_back(field);
  if (!line.empty() && line.back() == '\t') fields.emplace_back();  // empty arguments at the end
  return fields;
}

Registry read_registry(const std::string& binary) {
  const testing::ProcessResult listed = testing::run_process({binary, "--list"});
  EXPECT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_EQ(listed.err, "");
  Registry registry;
  std::stringstream lines(listed.out);
  for (std::string line; std::getline(lines, line);) {
    const std::vector<std::string> f = tab_fields(line);
    if (f.at(0) == "stage") {
      EXPECT_THAT(f, SizeIs(2)) << line;
      registry.stage = f.at(1);
    } else if (f.at(0) == "subcommand") {
      EXPECT_THAT(f, SizeIs(3)) << line;
      EXPECT_THAT(f.at(2), Not(::testing::IsEmpty())) << "a subcommand's summary: " << line;
      registry.subcommands.push_back(f.at(1));
    } else {
      EXPECT_EQ(f.at(0), "run") << line;
      EXPECT_THAT(f, SizeIs(9)) << line;
      if (f.size() != 9) continue;
      registry.runs.push_back({f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8]});
    }
  }
  return registry;
}

std::string stage_of(const std::string& binary) { return binary.substr(binary.find_last_of('/') + 1); }

class StageRegistry : public ::testing::TestWithParam<std::string> {};

TEST_P(StageRegistry, EverySubcommandHasEveryKindOfRun) {
  const Registry registry = read_registry(GetParam());
  EXPECT_EQ(registry.stage, stage_of(GetParam()));
  std::vector<std::string> runnable = registry.subcommands;
  runnable.push_back("-");  // the lesson
  for (const std::string& subcommand : runnable) {
    std::set<char> modes;
    for (const ListedRun& run : registry.runs) {
      if (run.subcommand == subcommand) modes.insert(run.modes.begin(), run.modes.end());
    }
    for (const char mode : {'q', 'f', 'c', 't'}) {
      EXPECT_TRUE(modes.count(mode)) << registry.stage << ' ' << subcommand << " has no run marked " << mode;
    }
  }
}

TEST_P(StageRegistry, RunsAreWellFormedAndNamedOnce) {
  const Registry registry = read_registry(GetParam());
  std::map<std::string, int> names;  // per mode: no two runs a script makes share their files or test name
  for (const ListedRun& run : registry.runs) {
    EXPECT_THAT(run.modes, ::testing::MatchesRegex("[qfctsm]+")) << run.subcommand << ' ' << run.name;
    EXPECT_THAT(run.exit, ::testing::MatchesRegex("0|1|2")) << run.subcommand << ' ' << run.name;
    EXPECT_THAT(run.ctest, ::testing::MatchesRegex("-|((whole_gpu|alone|api_errors_expected),?)+"));
    if (run.subcommand != "-") {
      EXPECT_THAT(registry.subcommands, ::testing::Contains(run.subcommand)) << "a run of an unlisted subcommand";
    }
    for (const char mode : run.modes) ++names[std::string(1, mode) + run.subcommand + "/" + run.name];
  }
  for (const auto& [name, count] : names) EXPECT_EQ(count, 1) << "two runs named " << name;
}

TEST_P(StageRegistry, EveryRunsArgumentsParse) {
  // Arguments the stage refuses would fail the suite on the GPU box; here
  // every declared run must get past parsing (exit 77 without a GPU, or 0
  // for the lesson's --help-free runs on a GPU machine).
  const Registry registry = read_registry(GetParam());
  for (const ListedRun& run : registry.runs) {
    if (run.exit != "0" || run.args.find("{trace}") != std::string::npos ||
        run.args.find("{results}") != std::string::npos) {
      continue;  // a demonstrated error, or a path the scripts fill in
    }
    std::vector<std::string> argv = {GetParam()};
    if (run.subcommand != "-") argv.push_back(run.subcommand);
    std::stringstream words(run.args);
    for (std::string word; words >> word;) argv.push_back(word);
    argv.push_back("--help");  // --help wins: parsing alone, whatever the machine
    const testing::ProcessResult helped = testing::run_process(argv);
    EXPECT_EQ(helped.exit_code, 0) << run.subcommand << ' ' << run.args << '\n' << helped.err;
  }
}

TEST_P(StageRegistry, EverySubcommandIsNamedAsItsFolder) {
  const Registry registry = read_registry(GetParam());
  for (const std::string& subcommand : registry.subcommands) {
    const std::filesystem::path folder =
        std::filesystem::path(CSG_SOURCE_DIR) / registry.stage / "lab" / subcommand;
    EXPECT_TRUE(std::filesystem::is_directory(folder)) << "no folder " << folder << " for '" << subcommand << "'";
  }
}

TEST_P(StageRegistry, EverySubcommandsHelpOpensWithItsDescription) {
  const Registry registry = read_registry(GetParam());
  for (const std::string& subcommand : registry.subcommands) {
    const testing::ProcessResult help = testing::run_process({GetParam(), subcommand, "--help"});
    EXPECT_EQ(help.exit_code, 0) << subcommand << '\n' << help.err;
    // cxxopts prints the description, then a blank line, then "Usage:".
    const std::size_t usage = help.out.find("\nUsage:");
    ASSERT_NE(usage, std::string::npos) << subcommand << '\n' << help.out;
    EXPECT_THAT(help.out.substr(0, usage), ::testing::MatchesRegex("[^ \n][^\n]*(\n[^\n]+)*\n*"))
        << subcommand << ": its description, a paragraph before Usage:\n" << help.out;
  }
}

TEST_P(StageRegistry, ListTakesNoOtherArgument) {
  const testing::ProcessResult extra = testing::run_process({GetParam(), "--list", "kernels"});
  EXPECT_EQ(extra.exit_code, kExitUsage);
  EXPECT_THAT(extra.err, AllOf(HasSubstr("--list takes no other argument"), Not(HasSubstr("\n\n"))));
  const testing::ProcessResult help = testing::run_process({GetParam(), "--list", "--help"});
  EXPECT_EQ(help.exit_code, 0) << help.err;
  EXPECT_THAT(help.out, HasSubstr("Usage:"));
}

std::string stage_test_name(const ::testing::TestParamInfo<std::string>& info) {
  return "Stage" + stage_of(info.param).substr(0, 2);
}

INSTANTIATE_TEST_SUITE_P(EachStage, StageRegistry, ::testing::ValuesIn(testing::stage_binaries()), stage_test_name);

#endif  // CSG_STAGE_BINARIES

}  // namespace cpu_experiment
}  // namespace csg
