// Programmatic dependent launch (Hopper, compute capability 9.0+): a chain
// of kernels where each reads what the one before it wrote, launched four
// ways on one stream:
//
//   stream_plain  kernel<<<grid, block, 0, stream>>>: each kernel starts only
//                 after the previous one has finished and flushed its writes
//   stream_pdl    cudaLaunchKernelEx with the launch attribute
//                 cudaLaunchAttributeProgrammaticStreamSerialization = 1 on
//                 every kernel after the first: the next kernel may start as
//                 soon as every block of the previous one has called
//                 cudaTriggerProgrammaticLaunchCompletion() (each kernel does,
//                 first thing), and waits in cudaGridDependencySynchronize()
//                 for the previous kernel's results before it reads them
//   graph_plain   the stream_plain chain captured into a graph (full edges)
//   graph_pdl     the stream_pdl chain captured into a graph: its edges are
//                 of type cudaGraphDependencyTypeProgrammatic, counted
//
// Two chains:
//   gemm   the workload's batches, one GEMM each, the article's naive kernel
//          shape (one thread per element of C, 32 x 32 blocks), chained:
//          C_0 = A_0 B, C_i = A_i B + (C_{i-1} mod 8). Each kernel computes
//          its dot products first (A_i and B are nobody's output), waits, then
//          adds the previous output and writes C_i: the work PDL can overlap.
//   empty  a pair of one-thread kernels, ping and pong, alternating: each
//          reads a sequence number, checks its parity (ping sees it even,
//          pong odd), and writes it plus one.
//
// What is timed: each run waits behind the suite's spin kernel long enough
// for the host to queue the whole chain (the hold), then CUDA events around
// the chain alone: GPU time per kernel with the host out of the way. The
// host's time to issue each run is kept beside it, and a run whose issue took
// longer than the hold is reported (its figure then includes the host's pace).
// Beside the four ways, one kernel of the chain alone (events around one
// launch, after the same kind of hold): its own time.
//
// What is checked, every timed run of every way: the GEMM chain's outputs
// are poisoned (NaN) before each run and, after each way's last run, read
// back and checked batch by batch: D_i = C_i - (C_{i-1} mod 8) must equal
// A_i B (the suite's Freivalds and sampled check on D), so a kernel that read
// C_{i-1} before it was written gives NaN or a wrong D and fails. The empty
// chain's sequence number runs on across the runs of a way: after the last
// it must equal runs x kernels, and no kernel may have seen the wrong parity.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "batches.hpp"
#include "measure/stats.hpp"

namespace csg::graphs {

// The four ways, in the order they are measured, printed and written.
enum class PdlWay { stream_plain, stream_pdl, graph_plain, graph_pdl };
inline constexpr int kPdlWays = 4;
inline constexpr PdlWay kAllPdlWays[kPdlWays] = {PdlWay::stream_plain, PdlWay::stream_pdl, PdlWay::graph_plain,
                                                 PdlWay::graph_pdl};
const char* to_string(PdlWay way);  // "stream_plain", ...
inline int index_of(PdlWay way) { return static_cast<int>(way); }

// The GEMM chain carries the previous output modulo this into the next one:
// every C stays an exact integer in float (at most 16 k + 7).
inline constexpr float kPdlCarry = 8.0f;

// The defaults: 250 pairs of empty kernels (a chain of 500: well inside
// the stream's launch queue, so the host can queue it all behind the hold) and the
// workload's batches as the GEMM chain.
inline constexpr int kDefaultPdlPairs = 250;
inline constexpr int kMaxPdlPairs = 50'000;

struct PdlConfig {
  Workload work;  // the GEMM chain: work.batches kernels of work.shape
  int pairs = kDefaultPdlPairs;  // --pdl-pairs: the empty chain has 2 x pairs kernels
  RepeatPlan plan;
  std::uint64_t seed = 1;
  int empty_kernels() const { return 2 * pairs; }
};

// How long each run is held behind the spin kernel so that the host has
// queued all `kernels` launches before the timed region starts: 10 µs per
// launch (an empty launch costs the host 2-5 µs on the H200) and 100 µs more.
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
// current device is below 9.0.
void require_pdl(int device);

// Both chains, each way interleaved with the others in rounds (plan).
PdlCosts measure_pdl(const PdlConfig& config);

// In place, the product the check compares with A_i B: C_i becomes C_i -
// (C_{i-1} mod kPdlCarry) for i >= 1 (from the last batch back, so each
// reads its predecessor as the chain wrote it); C_0 stays. `c` holds
// `batches` outputs of `c_elems` each, back to back. NaN stays NaN.
void undo_carry(std::span<float> c, std::size_t c_elems, int batches);

}  // namespace csg::graphs
