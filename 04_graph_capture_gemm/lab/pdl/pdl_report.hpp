// What the pdl subcommand reports (pdl_chains.hpp measures): per chain, the
// time per kernel each way, the gap between kernels each way, and whether
// programmatic dependent launch saved time per kernel on streams and in the
// graph, chosen by the figures with a stated threshold. Plain C++: the CPU
// tests call it on made-up figures.
//
// Definitions, in µs per kernel:
//   per kernel  events around the chain (after the hold) / kernels
//   alone       events around one kernel of the chain (after a hold)
//   own time    the kernel's own running time: its alone figure minus the
//               empty kernel's alone figure (what one launch costs the GPU
//               around any kernel); 0 for the empty pair by definition
//   gap         per kernel - own time: what the chain adds between kernels
//               (negative when the next kernel's work overlaps the previous one's)
#pragma once

#include <array>
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "04_graph_capture_gemm/lab/pdl/pdl_chains.hpp"
#include "cli/options.hpp"
#include "report/result.hpp"

namespace csg::graphs {

// PDL "saved" or "cost" time per kernel when the PDL way's median differs
// from the plain way's by more than this fraction of the plain one, or by
// more than either median's own spread ((median - min) / median), whichever
// is larger: below that, the two are the same within noise.
inline constexpr double kPdlEqualWithin = 0.03;

enum class PdlVerdict {
  saves,         // PDL's time per kernel is below the plain one's by more than the threshold
  gap_is_noise,  // the same within the threshold, and the plain gap itself is under it: nothing to hide
  no_gain,       // the same within the threshold although the plain gap is larger than it
  costs,         // PDL's time per kernel is above the plain one's by more than the threshold
};
const char* to_string(PdlVerdict verdict);  // "saves", "gap_is_noise", "no_gain", "costs"

// One comparison: the plain way against the PDL way of the same launch kind.
struct PdlComparison {
  double plain_us = 0.0;      // per kernel
  double pdl_us = 0.0;        // per kernel
  double own_us = 0.0;        // the kernel's own time
  double plain_spread = 0.0;  // relative_spread of the plain median
  double pdl_spread = 0.0;
  double threshold() const;   // the fraction named above
  double saving_us() const { return plain_us - pdl_us; }
  double plain_gap_us() const { return plain_us - own_us; }
};
PdlVerdict pdl_verdict(const PdlComparison& comparison);
// One sentence, "on streams" / "in the graph" given as `where`, with the figures and the threshold.
std::string pdl_conclusion(const std::string& where, const PdlComparison& comparison);

// What the conclusions read from one chain's run.
struct PdlChainFigures {
  int kernels = 0;
  double hold_ms = 0.0;
  double alone_us = 0.0;  // one kernel alone
  double own_us = 0.0;    // see above
  std::array<double, kPdlWays> per_kernel_us{};
  std::array<double, kPdlWays> spread{};
  std::array<double, kPdlWays> issue_max_ms{};  // the slowest run's host issue time
  double gap_us(PdlWay way) const { return per_kernel_us[index_of(way)] - own_us; }
  // A run of `way` that took the host longer to queue than the hold: its
  // figure includes the host's pace.
  bool host_bound(PdlWay way) const { return issue_max_ms[index_of(way)] > hold_ms; }
  PdlComparison streams() const;  // stream_plain against stream_pdl
  PdlComparison graph() const;    // graph_plain against graph_pdl
};
// `empty_alone_us`: the empty kernel's alone figure, subtracted to give the own time.
PdlChainFigures chain_figures(const PdlChainRun& run, double empty_alone_us);

// The ways whose runs were host bound, as one line ("" when none): "gemm: stream_pdl's slowest run took the host
// 2.1 ms to queue, longer than the 1.1 ms hold: its figure includes the host's pace".
std::string host_bound_text(const std::string& chain, const PdlChainFigures& figures);

// The pdl subcommand's options: the workload's --batches, --m, --n, --k (the
// GEMM chain; the naive kernel's shape, no --kernel), no --host-memory
// (nothing is copied while timed; the checks read back into pageable memory),
// and its own --pdl-pairs N (default 250: a chain of 500 one-thread kernels).
CommonDefaults pdl_defaults();
void add_pdl_options(StageCli& cli);
// After cli.parse(): the chains, the plan and the seed.
PdlConfig read_pdl_options(const StageCli& cli, const CommonOptions& options);

struct PdlRun {
  CommonOptions options;  // work: the GEMM chain
  PdlConfig config;
  PdlCosts costs;
};

// Measurements pdl_gemm_<way>, pdl_gemm_alone (verified batch by batch),
// pdl_empty_<way>, pdl_empty_alone (verified by their counters), each with
// params {"chain", "way", "kernels"} and the host's issue time; bounds
// pdl_<chain>_<way>_us_per_kernel, pdl_<chain>_<way>_gap_us,
// pdl_<chain>_alone_us, pdl_<chain>_own_us. The verdict: every check of both
// chains, the edge counts included.
StageResult pdl_result(const DeviceInfo& device, const PdlRun& run);
// subcommand_json(result, "pdl") and "pdl": {"threshold", "gemm": {...}, "empty": {...}}, each chain with
// "kernels", "hold_ms", "alone_us", "own_us", "ways" ({way: {"per_kernel_us", "gap_us", "issue_max_ms",
// "host_bound"}}), "streams" and "graph" ({"verdict", "saving_us", "threshold"}), "programmatic_edges",
// "graph_edges", "plain_graph_edges",
// "plain_programmatic_edges", and "failure" when a check failed.
nlohmann::json pdl_json(const StageResult& result, const PdlRun& run);
void print_pdl(std::ostream& out, const StageResult& result, const PdlRun& run);

// The whole run at the GEMM's rate (`gemm_seconds`: one GEMM of the chain):
// every round of both chains (holds included) and the checks.
double pdl_seconds(const PdlConfig& config, double gemm_seconds);

}  // namespace csg::graphs
