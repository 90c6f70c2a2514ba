// The pdl subcommand (kAbout in pdl.cpp says what it runs): a chain of GEMMs
// and a chain of empty kernels, each plain and with programmatic dependent
// launch, on a stream and as a graph. docs/pdl.md says how each run is held,
// timed and checked.
#pragma once

#include "04_graph_capture_gemm/lab/pdl/pdl_kernels.hpp"
#include "experiment/lab.hpp"

namespace csg::graphs {

// The four ways, in the order they are measured, printed and written.
enum class PdlWay { stream_plain, stream_pdl, graph_plain, graph_pdl };
inline constexpr int kPdlWays = 4;
inline constexpr PdlWay kAllPdlWays[kPdlWays] = {PdlWay::stream_plain, PdlWay::stream_pdl, PdlWay::graph_plain,
                                                 PdlWay::graph_pdl};
const char* to_string(PdlWay way);  // "stream_plain", ...
inline int index_of(PdlWay way) { return static_cast<int>(way); }

// 250 pairs: a chain of 500, well inside the stream's launch queue, so the
// host can queue it all behind the hold.
inline constexpr int kDefaultPdlPairs = 250;
inline constexpr int kMaxPdlPairs = 50'000;

struct PdlConfig {
  CommonOptions common;  // work: the GEMM chain, work.batches kernels of work.shape; the plan; --seed
  int pairs = kDefaultPdlPairs;  // --pdl-pairs: the empty chain has 2 x pairs kernels
  int empty_kernels() const { return 2 * pairs; }
};

// How long each run is held behind the spin kernel for the host to queue all
// `kernels` launches: 10 µs per launch (2-5 µs each on the H200) and 100 µs more.
double pdl_hold_ms(int kernels);

// One chain's figures and checks.
struct PdlChainRun {
  int kernels = 0;
  double hold_ms = 0.0;                    // pdl_hold_ms(kernels)
  Summary alone;                           // events around one kernel of the chain
  std::array<Summary, kPdlWays> chain{};   // events around the whole chain, per way
  std::array<Summary, kPdlWays> issue{};   // host time to queue each run, per way
  std::array<bool, kPdlWays + 1> passed{};  // per way, then the kernel alone
  // The GEMM chain's checks (per way, then the kernel alone); the empty
  // chain has none (its counters are `passed`).
  std::array<VerifyResult, kPdlWays + 1> verified{};
  int programmatic_edges = 0;  // of graph_pdl's graph: expected kernels - 1
  int graph_edges = 0;         // every edge of graph_pdl's graph
  int plain_graph_edges = 0;         // every edge of graph_plain's graph: expected kernels - 1
  int plain_programmatic_edges = 0;  // of graph_plain's graph: expected 0
  std::string failure;  // the first failed check of this chain, if any
  bool checked() const { return failure.empty(); }
};

struct PdlCosts {
  PdlChainRun gemm;
  PdlChainRun empty;
};

// Throws NoDeviceError (exit 77) naming the compute capability when the
// device is below 9.0.
void require_pdl(int device);

// Both chains, each way interleaved with the others in rounds (the plan).
PdlCosts measure_pdl(const PdlConfig& config);

// In place, the product the check compares with A_i B: C_i becomes C_i -
// (C_{i-1} mod kPdlCarry) for i >= 1 (from the last batch back, so each
// reads its predecessor as the chain wrote it); C_0 stays. `c` holds
// `batches` outputs of `c_elems` each, back to back. NaN stays NaN.
void undo_carry(std::span<float> c, std::size_t c_elems, int batches);

// ---- the verdicts: plain C++, the CPU tests call them on made-up figures ----
// (per kernel, alone, own time and gap: docs/pdl.md defines them, in µs per kernel)

// PDL saved or cost time when the two medians differ by more than this
// fraction of the plain one or either median's spread, whichever is larger.
inline constexpr double kPdlEqualWithin = 0.03;

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
// "pdl.<chain>.<where>" (`chain` "gemm" or "empty", `where` "streams" or
// "graph"): "saves", "costs", "gap_is_noise" or "no_gain" (docs/pdl.md's table).
Verdict pdl_verdict(const std::string& chain, const std::string& where, const PdlComparison& comparison);

// What the verdicts read from one chain's run.
struct PdlChainFigures {
  double hold_ms = 0.0;
  double alone_us = 0.0;  // one kernel alone
  double own_us = 0.0;    // alone, less the empty kernel alone
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

// "pdl.<chain>.hold", outcome "host_bound", when some way's slowest run took
// the host longer to queue than the hold (its figure then includes the host's
// pace); nothing when every way was queued within it.
std::optional<Verdict> hold_verdict(const std::string& chain, const PdlChainFigures& figures);

// The workload's options (the GEMM chain; no --kernel, no --host-memory) and --pdl-pairs.
CommonDefaults pdl_defaults();
void pdl_options(StageCli& cli);
PdlConfig read_pdl(const StageCli& cli, CommonOptions& common);

// The whole run at the GEMM's rate (`gemm_seconds`: one GEMM of the chain):
// every round of both chains (holds included) and the checks.
double pdl_seconds(const PdlConfig& config, double gemm_seconds);

// Measurements pdl_<chain>_<way> and pdl_<chain>_alone, bounds per kernel,
// the run's verification (every check of both chains, the edge counts
// included), the table, the verdicts and the section "pdl" (docs/pdl.md).
void report_pdl(const PdlConfig& config, const PdlCosts& costs, Report& report);

}  // namespace csg::graphs
