// Command-line options shared by every stage (--batches --m --n --k --warmup
// --repeats --seed --max-minutes --json --host-memory), parsed with cxxopts and
// validated in one place, before any CUDA call; a stage adds its own through
// the same add_* calls. Numbers are parsed strictly (no "12x", no "-1", nothing
// past the range), and every error names the flag as typed, what was wrong and
// what is accepted ("--m takes an integer in [1, ...], got '5x'").
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
  bool gemm_workload = true;  // offers --batches, --m, --n, --k (and --kernel, --tf32 with kernel_choice)
  bool kernel_choice = true;  // false: the run uses `kernel` (the lessons: the naive one)
  // --kernel's default, or the run's kernel where --kernel is not offered.
  GemmKernel kernel = GemmKernel::naive;
  // What --kernel offers, e.g. {tiled, cublas} where the naive kernel is the lesson's.
  std::vector<GemmKernel> kernel_choices = {GemmKernel::naive, GemmKernel::tiled, GemmKernel::cublas};
  // false: --host-memory is not offered, and host_memory is the default's (the lessons).
  bool host_memory_choice = true;
  // --max-minutes: offered by runs whose length depends on their options.
  bool max_minutes = true;
  // false: --warmup and --repeats are not offered (a run not timed in the
  // shared rounds); the plan keeps its defaults.
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

  // Parses and validates; nothing for --help. Throws UsageError for anything wrong.
  std::optional<CommonOptions> parse(const std::vector<std::string>& args);  // args without argv[0]
  // parse(), and for --help the help (and `more_help`: a lesson lists its laboratory) printed.
  std::optional<CommonOptions> parse_or_help(int argc, const char* const* argv, const std::string& more_help = "");

  long long get_int(const std::string& name) const;
  const std::string& get_string(const std::string& name) const;
  bool get_flag(const std::string& name) const;
  // Whether the user gave the option (as opposed to its default).
  bool given(const std::string& name) const;

  std::string help() const;

 private:
  // Throws UsageError for a value-taking option given no value, and for an unknown --option.
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

// The whole text a decimal integer in [min_value, max_value], else UsageError naming the flag and the range.
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

// --kernel KIND from `choices` (default `kernel`) and --tf32, as kernel_choice
// offers them; by hand only in a run that sets its shape after parsing
// (read_kernel_option then checks the shape against that kernel).
void add_kernel_option(StageCli& cli, GemmKernel kernel,
                       const std::vector<GemmKernel>& choices = CommonDefaults{}.kernel_choices);
void read_kernel_option(const StageCli& cli, CommonOptions& options);

// Throws UsageError for byte counts that overflow 64 bits, or a shape the kernel's grid can't cover.
void validate(const CommonOptions& options);

}  // namespace csg
