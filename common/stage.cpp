#include "stage.hpp"

#include <cstdio>
#include <fstream>
#include <map>
#include <stdexcept>
#include <sstream>
#include <string_view>

#include "base/errors.hpp"
#include "base/interrupt.hpp"
#include "base/output_file.hpp"
#include "base/progress.hpp"
#include "base/text.hpp"
#include "base/units.hpp"

namespace csg {
namespace {

// The share of the free device memory and of the available host memory a
// run may take; the rest is left to the CUDA context, the OS and the page cache.
constexpr double kUsableFraction = 0.9;

std::string refusal(const char* where, std::uint64_t needed, std::uint64_t free_bytes, const std::string& kind,
                    const std::string& suggestion) {
  return "this run needs " + format_bytes(needed) + " of " + where + " memory" + kind + ", more than the " +
         std::to_string(static_cast<int>(kUsableFraction * 100.0 + 0.5)) + "% of the " + format_bytes(free_bytes) +
         " free that a run may take; " + suggestion;
}

// "STAGE --list", if argv asks for it.
bool list_laboratory(const char* stage, int argc, char** argv, const Laboratory& laboratory) {
  if (argc < 2 || std::string_view(argv[1]) != "--list") return false;
  for (int i = 2; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-h") return false;  // --help wins: the lesson's parser prints it
  }
  if (argc > 2) throw UsageError("--list takes no other argument, got '" + std::string(argv[2]) + "'");
  std::ostringstream out;
  out << "stage\t" << stage << '\n' << list_runs("", laboratory.lesson);
  for (const Subcommand& subcommand : laboratory.subcommands) {
    out << "subcommand\t" << subcommand.name << '\t' << subcommand.summary << '\n'
        << list_runs(subcommand.name, subcommand.runs);
  }
  print_to_stdout(out.str(), "--list");
  return true;
}

const Subcommand* find_subcommand(int argc, char** argv, const Laboratory& laboratory) {
  if (argc < 2 || argv[1][0] == '-') return nullptr;
  const std::string_view word = argv[1];
  std::vector<std::string> names;
  for (const Subcommand& subcommand : laboratory.subcommands) {
    if (word == subcommand.name) return &subcommand;
    names.emplace_back(subcommand.name);
  }
  throw UsageError("unknown subcommand '" + std::string(word) + "' (the laboratory's are: " + join(names, ", ") + ")");
}

}  // namespace

std::optional<std::uint64_t> available_host_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string line;
  while (std::getline(meminfo, line)) {
    std::istringstream fields(line);
    std::string key;
    std::uint64_t kib = 0;
    if (fields >> key >> kib && key == "MemAvailable:") return kib * kKiB;
  }
  return std::nullopt;
}

std::optional<int> run_laboratory(const char* stage, int argc, char** argv, const Laboratory& laboratory) {
  set_progress_stage(stage);
  catch_interrupts();
  if (list_laboratory(stage, argc, argv, laboratory)) return kExitOk;
  const Subcommand* subcommand = find_subcommand(argc, argv, laboratory);
  if (subcommand == nullptr) return std::nullopt;
  // "[03_stream_pool_gemm priorities +1.2s] ..."
  set_progress_stage(std::string(stage) + " " + std::string(subcommand->name));
  return subcommand->run(stage, argc - 1, argv + 1);
}

std::string laboratory_help(const char* stage, const Laboratory& laboratory) {
  std::size_t width = 0;
  for (const Subcommand& subcommand : laboratory.subcommands) width = std::max(width, subcommand.name.size());
  std::string text = "\nThe laboratory, beyond the article (" + std::string(stage) +
                     " SUBCOMMAND --help for its options):\n";
  for (const Subcommand& subcommand : laboratory.subcommands) {
    std::string name(subcommand.name);
    name.resize(width, ' ');
    text += "  " + name + "  " + std::string(subcommand.summary) + "\n";
  }
  return text;
}

std::string list_runs(std::string_view subcommand, const char* runs) {
  const std::string who = subcommand.empty() ? "the lesson" : std::string(subcommand);
  std::string out;
  std::istringstream lines(runs);
  int number = 0;
  for (std::string line; std::getline(lines, line);) {
    ++number;
    std::istringstream words(line);
    std::string modes, name;
    if (!(words >> modes) || modes[0] == '#') continue;  // blank, or a comment
    auto bad = [&](const std::string& why) {
      return std::logic_error("the runs of " + who + ", line " + std::to_string(number) + ": " + why);
    };
    if (modes.find_first_not_of("qfctsm") != std::string::npos) throw bad("modes '" + modes + "' are not of qfctsm");
    if (!(words >> name)) throw bad("no name (- for none)");
    std::map<std::string, std::string> given = {{"exit", "0"}, {"env", "-"}, {"ctest", "-"}, {"expect", "-"}};
    std::string word, args;
    while (words >> word) {
      const std::size_t equals = word.find('=');
      const std::string key = equals == std::string::npos ? "" : word.substr(0, equals);
      if (word.rfind("--", 0) != 0 && given.count(key) != 0) {
        given[key] = word.substr(equals + 1);
        continue;
      }
      args = word;
      for (std::string rest; words >> rest;) args += ' ' + rest;
    }
    if (given["exit"].find_first_not_of("0123456789") != std::string::npos) throw bad("exit=" + given["exit"]);
    out += "run\t" + std::string(subcommand.empty() ? "-" : subcommand) + '\t' + name + '\t' + modes + '\t' +
           given["exit"] + '\t' + given["env"] + '\t' + given["ctest"] + '\t' + given["expect"] + '\t' + args +
           '\n';
  }
  return out;
}

int exit_code_of_current_exception(const char* stage) noexcept {
  const std::string name = progress_stage().empty() ? std::string(stage) : progress_stage();
  auto fail = [&name](int code, const std::string& text) {
    std::fprintf(stderr, "%s: %s\n", name.c_str(), printable(text).c_str());
    return code;
  };
  try {
    throw;
  } catch (const UsageError& error) {
    return fail(kExitUsage, std::string(error.what()) + " (see --help)");
  } catch (const ResourceError& error) {
    return fail(kExitUsage, error.what());
  } catch (const NoDeviceError& error) {
    return fail(kExitNoDevice, error.what());
  } catch (const Interrupted& error) {
    return fail(error.exit_code(), "interrupted by " + signal_name(error.signal()) + ": " + error.what() +
                                       "; no results were written");
  } catch (const CudaError& error) {
    return fail(kExitFailure, std::string("CUDA error: ") + error.what());
  } catch (const std::exception& error) {
    return fail(kExitFailure, std::string("error: ") + error.what());
  } catch (...) {
    return fail(kExitFailure, "error: an unknown exception");
  }
}

int require_device() {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess || count == 0) {
    static_cast<void>(cudaGetLastError());
    const std::string reason = status != cudaSuccess ? cudaGetErrorName(status) : "0 devices";
    throw NoDeviceError("no CUDA device found (cudaGetDeviceCount: " + reason + ")");
  }
  CUDA_CHECK(cudaSetDevice(0));
  return 0;
}

MemoryNeeds memory_needs(const Workload& work, HostMemory host_kind, int device_slots) {
  // `copies` of A and C, and one B (saturating).
  auto bytes = [&work](std::uint64_t copies) {
    const std::uint64_t per_batch = work.a_bytes() + work.c_bytes();
    return checked_add(checked_mul(copies, per_batch).value_or(UINT64_MAX), work.b_bytes()).value_or(UINT64_MAX);
  };
  const std::uint64_t slots = device_slots == 0 ? work.batch_count() : std::uint64_t(device_slots);
  return {bytes(slots), bytes(work.batch_count()), host_kind};
}

MemoryNeeds combined(const MemoryNeeds& a, const MemoryNeeds& b) {
  MemoryNeeds sum = a;
  sum.device_bytes = checked_add(a.device_bytes, b.device_bytes).value_or(UINT64_MAX);
  sum.host_bytes = checked_add(a.host_bytes, b.host_bytes).value_or(UINT64_MAX);
  return sum;
}

void check_host_fits(const MemoryNeeds& needs, const std::string& suggestion) {
  const auto free_host = available_host_bytes();
  if (!free_host) return;  // no /proc/meminfo: an allocation that fails will say so
  if (static_cast<double>(needs.host_bytes) > kUsableFraction * static_cast<double>(*free_host)) {
    throw ResourceError(refusal("host", needs.host_bytes, *free_host,
                                " (" + std::string(to_string(needs.host_kind)) + ")", suggestion));
  }
}

void check_fits(const MemoryNeeds& needs, const std::string& suggestion) {
  std::size_t free_device = 0;
  std::size_t total_device = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_device, &total_device));
  if (static_cast<double>(needs.device_bytes) > kUsableFraction * static_cast<double>(free_device)) {
    throw ResourceError(refusal("device", needs.device_bytes, free_device, "", suggestion));
  }
  check_host_fits(needs, suggestion);
}

void round_done(int round, int rounds) {
  throw_if_interrupted("round " + std::to_string(round + 1) + " of " + std::to_string(rounds));
  static std::optional<RoundProgress> loop;
  if (round == 0) loop.emplace(rounds);  // a new loop
  if (loop) loop->done(round + 1);
}

}  // namespace csg
