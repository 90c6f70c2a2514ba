// Command-line options shared by every stage, parsed with cxxopts and validated
// in one place, before any CUDA call. Every stage accepts the same names:
//   --batches --m --n --k --warmup --repeats --seed --max-minutes --json FILE
//   --host-memory KIND
// Numbers are parsed strictly here (no "12x", no "-1", no values past the
// type's range), and every error has one style: the flag as the user typed
// it, what was wrong, what is accepted ("--batches needs a value: an integer
// in [1, 2147483647]", "--m takes an integer in [1, ...], got '5x'"). Output
// files are checked here too (base/output_file.hpp). A stage adds its own
// options through the same add_* calls.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "workload/gemm.hpp"
#include "base/output_file.hpp"  // check_output_path, for the stages' own output options
#include "owners.hpp"
#include "measure/stats.hpp"
#include "stage.hpp"
#include "batches.hpp"

namespace cxxopts {
class Options;
}

namespace csg {

struct CommonOptions {
  Workload work;
  RepeatPlan plan;
  std::uint64_t seed = 1;
  std::string json_path;  // empty: no JSON
  HostMemory host_memory = HostMemory::pageable;
  // With CommonDefaults::host_memory_list: every kind given, in the order
  // pageable, pinned, registered, write_combined (host_memory is the first).
  std::vector<HostMemory> host_memories;
  GemmChoice gemm;  // --kernel, --tf32 (stages that run the GEMM workload)
  int max_minutes = 10;  // --max-minutes: a run estimated longer is refused
};

// What a stage starts from when the user says nothing.
struct CommonDefaults {
  HostMemory host_memory = HostMemory::pageable;
  std::vector<HostMemory> host_memory_choices = {HostMemory::pageable, HostMemory::pinned};
  // true: --host-memory takes a comma-separated list of kinds (default: every
  // choice), for a stage that measures several kinds (02).
  bool host_memory_list = false;
  // false: the stage does not run the GEMM workload; --batches, --m, --n, --k
  // are not offered, nor --kernel and --tf32. true: they are.
  bool gemm_workload = true;
  // false: the run uses `kernel` (the lessons: the article's naive one), and
  // --kernel and --tf32 are not offered; true: they are.
  bool kernel_choice = true;
  // The kernel the run starts from: --kernel's default, or the run's kernel
  // where --kernel is not offered. The shape is checked against the kernel
  // actually chosen (validate: each grid covers its own number of rows).
  GemmKernel kernel = GemmKernel::naive;
  // What --kernel offers, e.g. {tiled, cublas} where the naive kernel is the lesson's.
  std::vector<GemmKernel> kernel_choices = {GemmKernel::naive, GemmKernel::tiled, GemmKernel::cublas};
  // false: --host-memory is not offered, and host_memory is the default's (the lessons).
  bool host_memory_choice = true;
  // --max-minutes: offered by runs whose length depends on their options.
  bool max_minutes = true;
  // false: the run is not timed in the shared rounds (it captures and
  // launches once, or counts its own rounds): --warmup and --repeats are
  // not offered, so --help lists only what it takes; the plan keeps its defaults.
  bool rounds = true;
};

class StageCli {
 public:
  StageCli(std::string program, std::string description, CommonDefaults defaults = {});
  ~StageCli();
  StageCli(const StageCli&) = delete;
  StageCli& operator=(const StageCli&) = delete;

  // Stage-specific options, read after parse() with get_int / get_string / get_flag.
  void add_int(const std::string& name, const std::string& help, long long default_value,
               long long min_value, long long max_value);
  void add_choice(const std::string& name, const std::string& help, const std::string& default_value,
                  std::vector<std::string> choices);
  void add_flag(const std::string& name, const std::string& help);
  // Free text (a list, a file name); the stage parses it, e.g. with parse_int_list.
  // `accepted` says what it takes when the value is missing ("one of
  // tiled|cublas"); empty: "a comma-separated list" for a LIST, else its placeholder.
  void add_text(const std::string& name, const std::string& help, const std::string& default_value,
                const std::string& placeholder, const std::string& accepted = "");
  // An output file (like --json): parse() checks that it can be written, that
  // it is a regular file if it exists, and that no two outputs name one file.
  void add_output(const std::string& name, const std::string& help);

  // Parses and validates. Returns nothing after printing --help (exit 0);
  // throws UsageError for anything wrong.
  std::optional<CommonOptions> parse(const std::vector<std::string>& args);  // args without argv[0]
  // parse(), and when it was asked for --help, the help (and `more_help`
  // after it: a lesson lists its laboratory) printed and nothing returned.
  std::optional<CommonOptions> parse_or_help(int argc, const char* const* argv, const std::string& more_help = "");

  long long get_int(const std::string& name) const;
  const std::string& get_string(const std::string& name) const;
  bool get_flag(const std::string& name) const;
  // Whether the user gave the option (as opposed to its default).
  bool given(const std::string& name) const;

  std::string help() const;

 private:
  // Every option that takes a value given as the last word or followed by
  // another option: "--batches needs a value: an integer in [1, ...]"; and
  // every unknown --option, as the user typed it. Throws UsageError.
  void check_values_given(const std::vector<std::string>& args) const;

  struct IntSpec {
    long long min_value;
    long long max_value;
  };
  std::string program_;
  CommonDefaults defaults_;
  std::unique_ptr<cxxopts::Options> options_;
  std::map<std::string, IntSpec> int_specs_;
  std::map<std::string, std::vector<std::string>> choice_specs_;
  std::vector<std::string> flag_names_;
  std::vector<std::string> text_names_;
  std::map<std::string, std::string> text_defaults_;
  std::map<std::string, long long> ints_;
  std::map<std::string, std::string> strings_;
  std::map<std::string, bool> flags_;
  std::map<std::string, bool> given_;
  std::map<std::string, std::string> accepted_;  // what each value-taking option accepts, for its errors
  std::vector<std::string> output_names_;
};

// Strict integer parsing: the whole text must be a decimal integer in
// [min_value, max_value]. Throws UsageError naming the flag and the range.
long long parse_int(const std::string& flag, const std::string& text, long long min_value, long long max_value);

// Strict comma-separated integers ("1,2,4,8"): every item as parse_int, no
// empty items ("1,,2", ",", ""). Throws UsageError naming the flag.
std::vector<long long> parse_int_list(const std::string& flag, const std::string& text, long long min_value,
                                      long long max_value);

// parse_int_list, and no value given twice ("--streams-sweep 8,8" is a typo,
// not a request to time 8 streams twice). Throws UsageError naming the flag.
std::vector<long long> parse_distinct_int_list(const std::string& flag, const std::string& text, long long min_value,
                                               long long max_value);

// A lesson's defaults: the article's naive kernel (no --kernel), host memory
// `kind`, offered as --host-memory pageable|pinned only with `host_memory_choice`.
CommonDefaults lesson_defaults(HostMemory kind, bool host_memory_choice = false);
// The options every lesson holds (stage.hpp), from the parsed ones; and
// back, with the lesson's workload and host memory, as the laboratory's
// reports read them.
LessonOptions lesson_options(const CommonOptions& common);
CommonOptions common_options(const LessonOptions& options, const Workload& work, HostMemory host_memory);

// --kernel KIND from `choices` (default `kernel`) and --tf32: what StageCli
// offers with CommonDefaults::kernel_choice. By hand (kernel_choice = false,
// then these) only in a run that sets its shape after parsing:
// read_kernel_option then reads them into options.gemm and checks the shape
// against that kernel (validate). Throws UsageError.
void add_kernel_option(StageCli& cli, GemmKernel kernel,
                       const std::vector<GemmKernel>& choices = CommonDefaults{}.kernel_choices);
void read_kernel_option(const StageCli& cli, CommonOptions& options);

// Cross-field checks on a parsed set: byte counts that overflow 64 bits,
// shapes the chosen kernel's grid can't cover, an unwritable --json path.
// Throws UsageError.
void validate(const CommonOptions& options);

}  // namespace csg
