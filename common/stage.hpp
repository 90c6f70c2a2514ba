// The frame of every stage's main: the lesson runs when the stage is started
// without a subcommand, an experiment of the laboratory when the first word
// names one ("03_stream_pool_gemm priorities --help"):
//   int main(int argc, char** argv) { return csg::run_stage(kStage, argc, argv, laboratory(), parse_options, lesson); }
// Exit codes: base/errors.hpp (a run too large for this machine is refused
// with 2 before any allocation).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "batches.hpp"

namespace csg {

// ---- the laboratory's subcommands ----------------------------------------------

// The runs of a stage that the scripts and ctest make, declared beside what
// they run (a subcommand's declaration, or the stage's table for the lesson)
// and listed by "STAGE --list": scripts/run_suite.sh, the GPU-box check,
// ctest and report.py read that list, and nothing else writes it again.
// A table, one run a line ("#" starts a comment):
//   MODES NAME [exit=N] [env=VAR=value] [ctest=FLAGS] [expect=WORD] ARGUMENTS...
//   MODES  who makes it: q scripts/run_suite.sh, f run_suite.sh --full, c the
//          GPU-box check; t a ctest run (tiny sizes), s ctest under the four
//          compute-sanitizer tools, m ctest under memcheck and initcheck alone
//          (a run whose kernels hold no shared memory and no barrier, where
//          racecheck and synccheck have nothing to check)
//   NAME   what sets it apart among its subcommand's runs ("cublas"); - for none
//   exit   the status it must end with (a demonstrated error); 0 when not given
//   env    VAR=value for this run alone
//   ctest  how a ctest run shares the GPU, comma-separated: whole_gpu (it
//          floods every SM), alone (it holds a figure to its bound: RUN_SERIAL),
//          api_errors_expected (under the sanitizers: it provokes CUDA errors)
//   expect a ctest run passes when its output holds this word, whatever its exit code
struct Subcommand {
  std::string_view name;     // the word after the stage's name, and its folder lab/<name>/
  std::string_view summary;  // one line of the stage's --help
  // Runs it in `stage` with its own arguments: argv[0] is the subcommand's name.
  int (*run)(const char* stage, int argc, char** argv);
  const char* runs = "";  // what the scripts and ctest run of it: the table above
};

// A stage's one registry: the lesson's runs and the laboratory's table.
struct Laboratory {
  const char* lesson;  // the lesson's runs: the table above
  std::span<const Subcommand> subcommands;
};

// The frame's work before the lesson: names the stage in progress lines and
// errors, catches Ctrl-C and SIGTERM, answers "STAGE --list" (one tab-separated
// line each: "subcommand <name> <summary>" and
//   run <subcommand or -> <name or -> <modes> <exit> <env or -> <ctest or -> <expect or -> <args>)
// and runs the subcommand that argv[1] names. Its exit code; nothing when the
// lesson runs. Throws UsageError for a word that names no subcommand.
std::optional<int> run_laboratory(const char* stage, int argc, char** argv, const Laboratory& laboratory);
// The --help lines that list the laboratory, one per subcommand.
std::string laboratory_help(const char* stage, const Laboratory& laboratory);
// The lines "run ..." of --list for one table of runs (`subcommand`: "" for the
// lesson's); a line it can't read is a bug of the stage: std::logic_error naming it.
std::string list_runs(std::string_view subcommand, const char* runs);

// In main's catch (...): one line on stderr naming what went wrong, and the
// exit code (base/errors.hpp) that it maps to.
int exit_code_of_current_exception(const char* stage) noexcept;

// What every lesson's options hold besides its own (the workload, the pool).
struct LessonOptions {
  int warmup = 2;          // --warmup: rounds run first and not kept
  int repeats = 10;        // --repeats: timed rounds; each figure is the median over them
  std::uint64_t seed = 1;  // --seed: of the data and of the verification
  std::string json_path;   // --json FILE: every figure, schema cuda-streams-graphs/result/v2
  int max_minutes = 10;    // --max-minutes: a run estimated longer is refused
  int rounds() const { return warmup + repeats; }
};

// What main.cu measures: one sample per timed round of each figure.
using Samples = std::vector<Millis>;
// Keeps a round's sample when the round is timed (the warm-up rounds are not kept).
inline void keep(bool timed, Samples& samples, Millis sample) {
  if (timed) samples.push_back(sample);
}

// main: the laboratory's subcommand when argv[1] names one, else `lesson` on
// the options `parse` read; every exception ends as its exit code.
template <class Options>
int run_stage(const char* stage, int argc, char** argv, const Laboratory& laboratory,
              std::optional<Options> (*parse)(int, char**), int (*lesson)(const Options&)) noexcept {
  try {
    if (const std::optional<int> code = run_laboratory(stage, argc, argv, laboratory)) return *code;
    const std::optional<Options> options = parse(argc, argv);
    return options ? lesson(*options) : kExitOk;
  } catch (...) {
    return exit_code_of_current_exception(stage);
  }
}

// ---- what a run needs ----------------------------------------------------------

// Selects the first CUDA device; NoDeviceError (exit 77) without one.
int require_device();

struct MemoryNeeds {
  std::uint64_t device_bytes = 0;
  std::uint64_t host_bytes = 0;
  HostMemory host_kind = HostMemory::pageable;
};
// What BatchBuffers allocates for `work` (batches.hpp) with `device_slots`
// device slots (0: one per batch, the article's layout).
MemoryNeeds memory_needs(const Workload& work, HostMemory host_kind, int device_slots = 0);
// What two sets of buffers need together (saturating: too large to count is too large).
MemoryNeeds combined(const MemoryNeeds& a, const MemoryNeeds& b);
// Compares `needs` with the free device memory and the host's available
// memory; throws ResourceError (exit 2) with the figures and `suggestion`.
void check_fits(const MemoryNeeds& needs, const std::string& suggestion);
// The host half alone, which needs no GPU.
void check_host_fits(const MemoryNeeds& needs, const std::string& suggestion);
// MemAvailable from /proc/meminfo, or nothing where it can't be read.
std::optional<std::uint64_t> available_host_bytes();

// After round `round` (0, 1, ...) of `rounds` of a lesson's loop: stops the run
// if Ctrl-C came (exit 130), and in a long run prints how far it is.
void round_done(int round, int rounds);

}  // namespace csg
