// The real binaries on a GPU: a real SIGINT or SIGTERM in the middle of the
// timing ends the run with 130 or 143, one line, and no file written (an old
// result stays as it was); a long run prints its progress, a short one does
// not; a request estimated over --max-minutes is refused with the estimate;
// and two processes (two stages) agree on the digest of their outputs.
#include <csignal>
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "base/errors.hpp"
#include "gpu_test.hpp"
#include "run_process.hpp"

namespace csg {
namespace gpu_interrupts_and_digests {

class InterruptTest : public testing::GpuTest {};

TEST_F(InterruptTest, SigintDuringTheTimingEndsWith130AndWritesNothing) {
  testing::TempDir dir;
  const std::string json = dir.file("01.json");
  { std::ofstream(json) << "old result"; }
  // The lesson, long enough (thousands of rounds) that only the signal can
  // end it; it comes once the progress line shows the rounds are running.
  const testing::InterruptedRun run = testing::run_process_and_signal(
      {CSG_STAGE01_BINARY, "--repeats", "100000", "--max-minutes", "100000", "--json", json}, "done, about", SIGINT);
  ASSERT_TRUE(run.signalled) << run.result.err;
  EXPECT_EQ(run.result.exit_code, 130) << run.result.err;
  const std::string& err = run.result.err;
  EXPECT_NE(err.find(" done, about "), std::string::npos) << err;  // the progress line came first
  EXPECT_NE(err.find("interrupted by SIGINT: round "), std::string::npos) << err;  // "round 12 of 100002"
  EXPECT_NE(err.find("was not finished; no results were written\n"), std::string::npos) << err;
  EXPECT_EQ(err.substr(err.rfind('\n', err.size() - 2) + 1).find("interrupted"), 20U) << err;  // the last line
  EXPECT_EQ(testing::read_text(json), "old result");
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"01.json"});  // no temporary file
}

TEST_F(InterruptTest, SigtermEndsStageFourWith143) {
  testing::TempDir dir;
  const testing::InterruptedRun run = testing::run_process_and_signal(
      {CSG_STAGE04_BINARY, "costs", "--repeats", "100000", "--max-minutes", "100000", "--json", dir.file("04.json")},
      "one-time costs", SIGTERM, 200);
  ASSERT_TRUE(run.signalled) << run.result.err;
  EXPECT_EQ(run.result.exit_code, 143) << run.result.err;
  EXPECT_NE(run.result.err.find("interrupted by SIGTERM"), std::string::npos) << run.result.err;
  EXPECT_TRUE(dir.entries().empty()) << "no JSON, no temporary file";
}

TEST_F(InterruptTest, AShortRunPrintsNoRoundProgress) {
  testing::TempDir dir;
  const testing::ProcessResult run = testing::run_process(
      {CSG_STAGE03_BINARY, "--batches", "8", "--m", "64", "--n", "64", "--k", "64", "--json", dir.file("03.json")});
  ASSERT_EQ(run.exit_code, kExitOk) << run.err;
  EXPECT_EQ(run.err.find("round "), std::string::npos) << run.err;
  EXPECT_EQ(run.err.find("estimated"), std::string::npos) << run.err;
}

// GEMMs of 32768^3 (4 GiB a matrix: stage 03's buffers fit a GPU of 32 GB)
// take minutes at the naive kernel's rate on any GPU: over a limit of one
// minute, refused before any work with the estimate. (65536^3 took hours on
// an H200, but on an H100 its 96 GiB were refused for memory first.)
TEST_F(InterruptTest, ARequestOfHoursIsRefusedWithItsEstimate) {
  for (const char* binary : {CSG_STAGE01_BINARY, CSG_STAGE03_BINARY}) {
    testing::TempDir dir;
    const testing::ProcessResult run =
        testing::run_process({binary, "--m", "32768", "--n", "32768", "--k", "32768", "--batches", "1",
                              "--max-minutes", "1", "--json", dir.file("out.json")});
    EXPECT_EQ(run.exit_code, kExitUsage) << binary << "\n" << run.err;
    EXPECT_NE(run.err.find("this run would take about"), std::string::npos) << run.err;
    EXPECT_NE(run.err.find("raise --max-minutes (1)"), std::string::npos) << run.err;
    EXPECT_TRUE(dir.entries().empty());
  }
}

// Every digest of a run's JSON for the stage's own workload (measurements and
// verification), null ones left out.
std::set<std::string> digests_of(const std::string& path) {
  const nlohmann::json doc = testing::read_json(path);
  std::set<std::string> found;
  for (const auto& m : doc.at("measurements")) {
    // 04's tiny GEMMs are another workload, with their own digest.
    if (m.at("name").get<std::string>().rfind("tiny_", 0) == 0) continue;
    if (m.contains("digest") && !m.at("digest").is_null()) found.insert(m.at("digest").get<std::string>());
  }
  if (!doc.at("verification").at("digest").is_null()) found.insert(doc.at("verification").at("digest"));
  return found;
}

TEST_F(InterruptTest, TwoStagesInTwoProcessesAgreeOnTheDigest) {
  testing::TempDir dir;
  const std::vector<std::string> shape{"--batches", "12", "--m", "48", "--n", "40", "--k", "56", "--repeats", "2"};
  auto run = [&](const std::string& binary, const std::string& name, std::vector<std::string> extra,
                 const std::string& seed = "5", const std::string& subcommand = "") {
    std::vector<std::string> argv{binary};
    if (!subcommand.empty()) argv.push_back(subcommand);  // 04's laboratory: its costs run both ways
    argv.insert(argv.end(), {"--seed", seed});
    argv.insert(argv.end(), shape.begin(), shape.end());
    argv.insert(argv.end(), extra.begin(), extra.end());
    const testing::JsonRun result = testing::run_with_json(argv, dir, name);
    EXPECT_EQ(result.exit_code, kExitOk) << result.err;
    return digests_of(result.json_path);
  };
  const std::set<std::string> serial = run(CSG_STAGE01_BINARY, "01.json", {});
  const std::set<std::string> pool = run(CSG_STAGE03_BINARY, "03.json", {"--streams", "5", "--streams-sweep", "1,3"});
  const std::set<std::string> graph = run(CSG_STAGE04_BINARY, "04.json", {}, "5", "costs");
  ASSERT_EQ(serial.size(), 1U) << "every variant of 01 has the same digest";
  EXPECT_EQ(pool, serial) << "every pool size and order of 03 matches 01";
  EXPECT_EQ(graph, serial) << "04's streams and graph match 01";
  const std::set<std::string> other_seed = run(CSG_STAGE01_BINARY, "01b.json", {}, "6");
  EXPECT_NE(other_seed, serial);
}

}  // namespace gpu_interrupts_and_digests
}  // namespace csg
