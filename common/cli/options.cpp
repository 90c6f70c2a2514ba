#include "cli/options.hpp"

#include <cxxopts.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <climits>

#include "base/enum_names.hpp"
#include "base/errors.hpp"
#include "base/output_file.hpp"
#include "base/text.hpp"
#include "base/units.hpp"

namespace csg {
namespace {

constexpr long long kIntMax = INT_MAX;
// --help fits a terminal of this many columns.
constexpr std::size_t kHelpWidth = 100;

// `text` with every line longer than `width` broken at its last space before
// that width; the lines' own breaks are kept. A word longer than the width stays whole.
std::string wrapped(const std::string& text, std::size_t width) {
  std::string out;
  std::size_t begin = 0;
  while (begin <= text.size()) {
    const std::size_t end = std::min(text.find('\n', begin), text.size());
    std::string line = text.substr(begin, end - begin);
    while (line.size() > width) {
      std::size_t cut = line.rfind(' ', width);
      if (cut == std::string::npos || cut == 0) cut = line.find(' ', width);
      if (cut == std::string::npos) break;
      out += line.substr(0, cut) + "\n";
      line = line.substr(std::min(line.find_first_not_of(' ', cut), line.size()));
    }
    out += line;
    if (end == text.size()) break;
    out += "\n";
    begin = end + 1;
  }
  return out;
}

std::string range_text(long long min_value, long long max_value) {
  return "[" + std::to_string(min_value) + ", " + std::to_string(max_value) + "]";
}

// "1,,2" -> {"1", "", "2"}: every item, empty ones too, for the strict parsers to judge.
std::vector<std::string> split_at_commas(const std::string& text) {
  std::vector<std::string> items;
  for (std::size_t begin = 0;;) {
    const std::size_t end = text.find(',', begin);
    items.push_back(text.substr(begin, end == std::string::npos ? std::string::npos : end - begin));
    if (end == std::string::npos) return items;
    begin = end + 1;
  }
}

// cxxopts only knows one-letter names as short options (-m), but the suite's
// flags are --m, --n, --k like every other flag. Their values are taken out
// here ("--m V" and "--m=V"), before cxxopts sees the rest, and go to the
// strict integer parser as typed: a value may start with '-' or hold any
// character, and every message names --m and the value the user gave.
std::vector<std::string> take_one_letter_flags(const std::vector<std::string>& args,
                                               const std::vector<std::string>& one_letter,
                                               std::map<std::string, std::vector<std::string>>& values) {
  std::vector<std::string> rest;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg.size() >= 3 && arg.compare(0, 2, "--") == 0 && (arg.size() == 3 || arg[3] == '=')) {
      const std::string name = arg.substr(2, 1);
      if (std::find(one_letter.begin(), one_letter.end(), name) != one_letter.end()) {
        const std::string value = arg.size() > 3 ? arg.substr(4) : i + 1 < args.size() ? args[++i] : "";
        if (value.empty()) throw UsageError("--" + name + " needs a value");
        values[name].push_back(value);
        continue;
      }
    }
    rest.push_back(arg);
  }
  return rest;
}

// Strict comma-separated host memory kinds from `choices`, no repeats, in
// enum order. Throws UsageError naming --host-memory.
std::vector<HostMemory> parse_host_memory_list(const std::string& text, const std::vector<HostMemory>& choices) {
  std::vector<std::string> names;
  for (HostMemory kind : choices) names.emplace_back(to_string(kind));
  const std::string expected = "--host-memory takes one of " + join(names, "|") + ", or a comma-separated list of them";
  std::vector<HostMemory> kinds;
  for (const std::string& item : split_at_commas(text)) {
    const auto kind = parse_host_memory(item);
    if (!kind || std::find(choices.begin(), choices.end(), *kind) == choices.end()) {
      throw UsageError(expected + ", got '" + text + "'");
    }
    if (std::find(kinds.begin(), kinds.end(), *kind) != kinds.end()) {
      throw UsageError("--host-memory lists " + item + " twice");
    }
    kinds.push_back(*kind);
  }
  std::sort(kinds.begin(), kinds.end());
  return kinds;
}

}  // namespace

long long parse_int(const std::string& flag, const std::string& text, long long min_value, long long max_value) {
  long long value = 0;
  const char* first = text.data();
  const char* last = text.data() + text.size();
  const auto [end, error] = std::from_chars(first, last, value);
  const std::string expected = "--" + flag + " takes an integer in " + range_text(min_value, max_value);
  if (text.empty() || error == std::errc::invalid_argument || end != last) {
    throw UsageError(expected + ", got '" + text + "'");
  }
  if (error == std::errc::result_out_of_range || value < min_value || value > max_value) {
    throw UsageError(expected + ", got " + text);
  }
  return value;
}

std::vector<long long> parse_int_list(const std::string& flag, const std::string& text, long long min_value,
                                      long long max_value) {
  const std::string expected = "--" + flag + " takes a comma-separated list of integers in " +
                               range_text(min_value, max_value);
  std::vector<long long> values;
  for (const std::string& item : split_at_commas(text)) {
    if (item.empty()) throw UsageError(expected + ", got '" + text + "' (an empty item)");
    values.push_back(parse_int(flag, item, min_value, max_value));
  }
  return values;
}

std::vector<long long> parse_distinct_int_list(const std::string& flag, const std::string& text, long long min_value,
                                               long long max_value) {
  std::vector<long long> values = parse_int_list(flag, text, min_value, max_value);
  for (auto it = values.begin(); it != values.end(); ++it) {
    if (std::find(values.begin(), it, *it) != it) {
      throw UsageError("--" + flag + " lists " + std::to_string(*it) + " twice, in '" + text + "'");
    }
  }
  return values;
}

void add_kernel_option(StageCli& cli, GemmKernel kernel, const std::vector<GemmKernel>& choices) {
  std::vector<std::string> described;
  std::vector<std::string> names;
  for (GemmKernel choice : choices) {
    names.emplace_back(to_string(choice));
    described.push_back(names.back() + std::string(name_of(choice, {" (the article's kernel)",
                                                                    " (shared-memory tiles, 4x4 per thread)",
                                                                    " (cublasSgemm)"})));
  }
  cli.add_choice("kernel", "GEMM: " + join(described, ", "), std::string(to_string(kernel)), names);
  cli.add_flag("tf32", "With --kernel cublas: TF32 tensor cores (exact on the suite's integer data)");
}

void read_kernel_option(const StageCli& cli, CommonOptions& options) {
  options.gemm = parse_gemm_choice(cli.get_string("kernel"), cli.get_flag("tf32"));
  validate(options);
}

std::optional<CommonOptions> StageCli::parse_or_help(int argc, const char* const* argv, const std::string& more_help) {
  std::optional<CommonOptions> options = parse(std::vector<std::string>(argv + (argc > 0 ? 1 : 0), argv + argc));
  // --help's text: a UsageError when it can't be written ("--help > /dev/full"),
  // so that the exit code says the help was not shown.
  if (!options) print_to_stdout(help() + more_help, "--help");
  return options;
}

CommonDefaults lesson_defaults(HostMemory kind, bool host_memory_choice) {
  // The article's naive kernel; the laboratory's kernels subcommands offer the others.
  return {.host_memory = kind, .kernel_choice = false, .host_memory_choice = host_memory_choice};
}

CommonOptions common_options(const LessonOptions& options, const Workload& work, HostMemory host_memory) {
  return {.work = work, .plan = {options.warmup, options.repeats}, .seed = options.seed,
          .json_path = options.json_path, .host_memory = host_memory, .host_memories = {host_memory},
          .gemm = {}, .max_minutes = options.max_minutes};
}

LessonOptions lesson_options(const CommonOptions& common) {
  return {.warmup = common.plan.warmup, .repeats = common.plan.repeats, .seed = common.seed,
          .json_path = common.json_path, .max_minutes = common.max_minutes};
}

void validate(const CommonOptions& options) {
  const Workload& w = options.work;
  const long long max_rows = max_gemm_rows(options.gemm.kernel);
  if (max_rows > 0 && w.shape.m > max_rows) {
    throw UsageError("--m takes at most " + std::to_string(max_rows) + " rows with --kernel " +
                     std::string(to_string(options.gemm.kernel)) + " (its grid has at most 65535 blocks of " +
                     std::to_string(max_rows / kMaxGridY) + " rows), got " + std::to_string(w.shape.m));
  }
  // Every byte count the run will allocate or copy must fit in 64 bits.
  auto bytes = [](int rows, int cols, int copies) -> std::optional<std::uint64_t> {
    const auto elems = checked_mul(std::uint64_t(rows), std::uint64_t(cols));
    const auto one = elems ? checked_mul(*elems, sizeof(float)) : std::nullopt;
    return one ? checked_mul(*one, std::uint64_t(copies)) : std::nullopt;
  };
  const auto a_bytes = bytes(w.shape.m, w.shape.k, w.batches);
  const auto b_bytes = bytes(w.shape.k, w.shape.n, 1);
  const auto c_bytes = bytes(w.shape.m, w.shape.n, w.batches);
  const auto ab = (a_bytes && b_bytes) ? checked_add(*a_bytes, *b_bytes) : std::nullopt;
  if (!ab || !c_bytes || !checked_add(*ab, *c_bytes)) {
    throw UsageError("--batches " + std::to_string(w.batches) + " --m " + std::to_string(w.shape.m) + " --n " +
                     std::to_string(w.shape.n) + " --k " + std::to_string(w.shape.k) +
                     ": the buffers' byte counts overflow 64 bits; choose smaller sizes");
  }
}

StageCli::StageCli(std::string program, std::string description, CommonDefaults defaults)
    : program_(std::move(program)),
      defaults_(std::move(defaults)),
      options_(std::make_unique<cxxopts::Options>(program_, wrapped(description, kHelpWidth))) {
  // cxxopts wraps the options' descriptions at this width; the description
  // above them is wrapped here (cxxopts prints it as given).
  options_->set_width(kHelpWidth);
  options_->add_options()("h,help", "Show this help and exit");
  if (defaults_.gemm_workload) {
    add_int("batches", "Number of GEMMs C_i = A_i*B (the article: 100)", 100, 1, kIntMax);
    add_int("m", "Rows of A_i and C_i", 1024, 1, kIntMax);
    add_int("n", "Columns of B and C_i", 1024, 1, kIntMax);
    add_int("k", "Columns of A_i, rows of B", 512, 1, kIntMax);
  }
  if (defaults_.rounds) {
    add_int("warmup", "Untimed rounds before the timed ones", 2, 0, 1000);
    add_int("repeats", "Timed rounds; each variant's median over them is reported", 10, 1, 100000);
  }
  add_int("seed", "Seed of the input data and of the verification", 1, 0, LLONG_MAX);
  std::vector<std::string> kinds;
  for (HostMemory kind : defaults_.host_memory_choices) kinds.emplace_back(to_string(kind));
  if (defaults_.host_memory_choice && defaults_.host_memory_list) {
    add_text("host-memory", "Host memory kinds to measure, comma-separated, from " + join(kinds, "|"),
             join(kinds, ","), "LIST");
  } else if (defaults_.host_memory_choice) {
    add_choice("host-memory", "Host memory for A and C", std::string(to_string(defaults_.host_memory)), kinds);
  }
  if (defaults_.gemm_workload && defaults_.kernel_choice) {
    add_kernel_option(*this, defaults_.kernel, defaults_.kernel_choices);
  }
  if (defaults_.max_minutes) {
    add_int("max-minutes", "Refuse a run estimated to take longer than this many minutes", 10, 1, 100000);
  }
  add_output("json", "Write results to FILE (schema cuda-streams-graphs/result/v2)");
}

void StageCli::add_output(const std::string& name, const std::string& help) {
  add_text(name, help, "", "FILE");
  accepted_[name] = "a file name";
  output_names_.push_back(name);
}

StageCli::~StageCli() = default;

void StageCli::add_int(const std::string& name, const std::string& help, long long default_value,
                       long long min_value, long long max_value) {
  int_specs_[name] = IntSpec{min_value, max_value};
  accepted_[name] = "an integer in " + range_text(min_value, max_value);
  options_->add_options()(name, help + " " + range_text(min_value, max_value),
                          cxxopts::value<std::string>()->default_value(std::to_string(default_value)), "N");
}

void StageCli::add_choice(const std::string& name, const std::string& help, const std::string& default_value,
                          std::vector<std::string> choices) {
  options_->add_options()(name, help + ": " + join(choices, "|"),
                          cxxopts::value<std::string>()->default_value(default_value), "KIND");
  accepted_[name] = "one of " + join(choices, "|");
  choice_specs_[name] = std::move(choices);
}

void StageCli::add_flag(const std::string& name, const std::string& help) {
  options_->add_options()(name, help);
  flag_names_.push_back(name);
}

void StageCli::add_text(const std::string& name, const std::string& help, const std::string& default_value,
                        const std::string& placeholder, const std::string& accepted) {
  auto value = cxxopts::value<std::string>();
  // An empty default is left out of cxxopts (its help would show `(default: "")`).
  if (!default_value.empty()) value->default_value(default_value);
  options_->add_options()(name, help, value, placeholder);
  text_names_.push_back(name);
  text_defaults_[name] = default_value;
  accepted_[name] = !accepted.empty() ? accepted : placeholder == "LIST" ? "a comma-separated list" : placeholder;
}

std::string StageCli::help() const {
  // Show the one-letter flags the way the suite spells them (--m, not -m):
  // cxxopts writes "\n  -m N     " where a long name would be "\n      --m N".
  std::string text = options_->help();
  for (std::size_t at = text.find("\n  -"); at != std::string::npos; at = text.find("\n  -", at + 1)) {
    const std::string line_start = text.substr(at, 12);  // "\n  -m N     "
    if (line_start.size() == 12 && std::islower(static_cast<unsigned char>(line_start[4])) != 0 &&
        line_start.compare(5, 7, " N     ") == 0) {
      text.replace(at, 12, std::string("\n      --") + line_start[4] + " N");
    }
  }
  text +=
      "\nExit codes: 0 ran and verified; 1 a CUDA error or a failed verification; 2 bad usage, or a run\n"
      "  too large for this machine; 77 no CUDA device; 130, 143 stopped by SIGINT (Ctrl-C), SIGTERM.\n";
  return text;
}

std::optional<CommonOptions> StageCli::parse(const std::vector<std::string>& raw_args) {
  // --help wins over every other argument, good or bad: it says what the command accepts.
  if (std::find(raw_args.begin(), raw_args.end(), "--help") != raw_args.end() ||
      std::find(raw_args.begin(), raw_args.end(), "-h") != raw_args.end()) {
    return std::nullopt;
  }
  std::vector<std::string> one_letter;
  for (const auto& [name, spec] : int_specs_) {
    if (name.size() == 1) one_letter.push_back(name);
  }
  check_values_given(raw_args);
  std::map<std::string, std::vector<std::string>> one_letter_values;
  const std::vector<std::string> args = take_one_letter_flags(raw_args, one_letter, one_letter_values);
  std::vector<const char*> argv{program_.c_str()};
  for (const auto& arg : args) argv.push_back(arg.c_str());

  cxxopts::ParseResult result;
  try {
    result = options_->parse(static_cast<int>(argv.size()), argv.data());
  } catch (const std::exception& error) {  // cxxopts 2.x and 3.x both derive from std::exception
    // What check_values_given did not catch; in the suite's quotes, not cxxopts' curly ones.
    std::string message = error.what();
    for (const char* curly : {"\u2018", "\u2019"}) {
      for (std::size_t at = message.find(curly); at != std::string::npos; at = message.find(curly)) {
        message.replace(at, std::string(curly).size(), "'");
      }
    }
    throw UsageError(message);
  }
  // Every option at most once: with two values, which one counts is a guess.
  std::vector<std::string> all_names = text_names_;
  all_names.insert(all_names.end(), flag_names_.begin(), flag_names_.end());
  for (const auto& [name, spec] : int_specs_) all_names.push_back(name);
  for (const auto& [name, choices] : choice_specs_) all_names.push_back(name);
  // How often the user gave an option, and its value (or its default).
  auto count = [&](const std::string& name) {
    const auto taken = one_letter_values.find(name);
    return result.count(name) + (taken == one_letter_values.end() ? 0 : taken->second.size());
  };
  auto text = [&](const std::string& name) {
    const auto taken = one_letter_values.find(name);
    return taken == one_letter_values.end() ? result[name].as<std::string>() : taken->second.front();
  };
  for (const auto& name : all_names) {
    if (count(name) > 1) throw UsageError("--" + name + " is given twice");
    given_[name] = count(name) != 0;
  }
  // No value of a text option starts with "--": "--sizes --json f" lacks the value.
  for (const auto& name : text_names_) {
    if (result.count(name) != 0 && result[name].as<std::string>().rfind("--", 0) == 0) {
      throw UsageError("--" + name + " needs a value");
    }
  }
  if (!result.unmatched().empty()) throw UsageError("unexpected argument '" + result.unmatched().front() + "'");
  if (result.count("help") != 0) return std::nullopt;

  for (const auto& [name, spec] : int_specs_) {
    ints_[name] = parse_int(name, text(name), spec.min_value, spec.max_value);
  }
  for (const auto& [name, choices] : choice_specs_) {
    const std::string value = result[name].as<std::string>();
    if (std::find(choices.begin(), choices.end(), value) == choices.end()) {
      throw UsageError("--" + name + " takes one of " + join(choices, "|") + ", got '" + value + "'");
    }
    strings_[name] = value;
  }
  for (const auto& name : flag_names_) flags_[name] = result.count(name) != 0;
  for (const auto& name : text_names_) {
    strings_[name] = result.count(name) != 0 || !text_defaults_.at(name).empty() ? result[name].as<std::string>() : "";
  }

  CommonOptions options;
  if (defaults_.gemm_workload) {
    options.work.batches = static_cast<int>(ints_.at("batches"));
    options.work.shape = GemmShape{static_cast<int>(ints_.at("m")), static_cast<int>(ints_.at("n")),
                                   static_cast<int>(ints_.at("k"))};
  }
  if (defaults_.rounds) {
    options.plan = RepeatPlan{static_cast<int>(ints_.at("warmup")), static_cast<int>(ints_.at("repeats"))};
  }
  options.seed = static_cast<std::uint64_t>(ints_.at("seed"));
  if (!defaults_.host_memory_choice) {
    options.host_memories = {defaults_.host_memory};
  } else if (defaults_.host_memory_list) {
    options.host_memories = parse_host_memory_list(strings_.at("host-memory"), defaults_.host_memory_choices);
  } else {
    options.host_memories = {*parse_host_memory(strings_.at("host-memory"))};
  }
  options.host_memory = options.host_memories.front();
  options.gemm.kernel = defaults_.kernel;
  if (defaults_.gemm_workload && defaults_.kernel_choice) {
    options.gemm = parse_gemm_choice(strings_.at("kernel"), flags_.at("tf32"));
  }
  options.json_path = strings_.at("json");
  if (given_.at("json") && options.json_path.empty()) throw UsageError("--json needs a file name");
  if (defaults_.max_minutes) options.max_minutes = static_cast<int>(ints_.at("max-minutes"));
  validate(options);
  // Every output file: writable, a regular file if it exists, and no two the same.
  std::vector<std::pair<std::string, std::string>> outputs;
  for (const std::string& name : output_names_) {
    const std::string& path = strings_.at(name);
    if (path.empty() && !given_.at(name)) continue;
    check_output_path(name, path);  // an empty one given: "--NAME needs a file name"
    outputs.emplace_back(name, path);
  }
  check_distinct_outputs(outputs);
  return options;
}

void StageCli::check_values_given(const std::vector<std::string>& args) const {
  auto is_switch = [this](const std::string& name) {
    return name == "help" || std::find(flag_names_.begin(), flag_names_.end(), name) != flag_names_.end();
  };
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") {
      // The end of the options; no command of the suite takes anything after it.
      const std::string rest = join({args.begin() + std::ptrdiff_t(i) + 1, args.end()}, " ");
      throw UsageError(rest.empty() ? "unexpected argument '--' (this command takes options only)"
                                    : "unexpected arguments after '--': " + in_quotes(rest) +
                                          " (this command takes options only)");
    }
    if (arg.rfind("--", 0) != 0) {
      if (arg == "-h") continue;
      if (arg.size() > 1 && arg[0] == '-') {
        throw UsageError("unknown option " + in_quotes(arg) + " (the options start with --, as in --m)");
      }
      throw UsageError("unexpected argument " + in_quotes(arg));
    }
    const std::size_t equals = arg.find('=');
    const std::string name = arg.substr(2, equals == std::string::npos ? std::string::npos : equals - 2);
    if (is_switch(name)) {
      if (equals != std::string::npos) {
        throw UsageError("--" + name + " is a switch and takes no value, got " + in_quotes(arg));
      }
      continue;
    }
    const auto accepted = accepted_.find(name);
    if (accepted == accepted_.end()) throw UsageError("unknown option " + in_quotes("--" + name));
    if (equals != std::string::npos) continue;  // "--batches=4": the strict parsers judge the value
    // A value-taking option as the last word, or followed by another option.
    if (i + 1 == args.size() || args[i + 1].rfind("--", 0) == 0) {
      throw UsageError(arg + " needs a value: " + accepted->second);
    }
    ++i;  // its value, whatever it looks like: the strict parsers judge it
  }
}

long long StageCli::get_int(const std::string& name) const { return ints_.at(name); }
const std::string& StageCli::get_string(const std::string& name) const { return strings_.at(name); }
bool StageCli::get_flag(const std::string& name) const { return flags_.at(name); }
bool StageCli::given(const std::string& name) const { return given_.at(name); }

}  // namespace csg
