// rebind: what feeding a graph new inputs costs. The article's shape (a fork
// into the pool's streams, one thin GEMM per batch, a join) fed a new
// request's A and C each replay, five ways (RebindWay; README.md's `rebind`
// says what each does), over input sizes per batch (--rebind-kib: A square,
// its side the size's square root in floats). Two request sets alternate, so
// every request really changes the pointers. Every request's C is poisoned
// before and checked exactly after (A of small integers, B's column j all
// j + 1: C = A's row sums times j + 1, exact in float).
#pragma once

#include "experiment/lab.hpp"

namespace csg::graphs {

inline constexpr int kRebindColumns = 64;            // n: B's columns, C's
inline constexpr long long kMaxRebindKib = 1 << 20;  // 1 GiB per batch at most
inline constexpr int kMaxRebindBatches = 256;

struct RebindConfig {
  std::vector<long long> kib{64, 1024, 16384, 262144};  // input size per batch
  int batches = 8;   // per request, one GEMM each
  int streams = 8;   // the pool's
  RepeatPlan plan{2, 10};
  std::uint64_t seed = 1;
};

enum class RebindWay { streams, copy_in, node_params, exec_update, device_update };
inline constexpr int kRebindWays = 5;
std::string_view to_string(RebindWay way);  // "streams", "copy_in", ...
std::string_view label(RebindWay way);      // the table's words

// The side of A for `kib` KiB of floats: floor(sqrt(kib x 1024 / 4)), at least 1.
int side_for_kib(long long kib);

struct RebindSize {
  long long kib = 0;             // asked
  int m = 0;                     // A is m x m floats
  std::uint64_t input_bytes = 0; // per batch
  // Per way (RebindWay's order), per request: the wall time from the first
  // call to done, the host's time to issue, and the GPU's (events).
  std::array<Summary, kRebindWays> wall{};
  std::array<Summary, kRebindWays> host{};
  std::array<Summary, kRebindWays> gpu{};
  const Summary& wall_of(RebindWay way) const { return wall[static_cast<std::size_t>(way)]; }
};

struct RebindResult {
  RebindConfig config;
  std::vector<RebindSize> sizes;
  int requests_checked = 0;
  bool verified = false;
  std::string failure;
};

// ---- the verdicts ----------------------------------------------------------------------

// "rebind.copy_in.kib_<K>": the copy-in replay against the streams, per
// request (wall): outcome "graph_wins" (faster by more than kEqualWithin),
// "same" or "graph_loses"; "not_verified" when a check failed.
Verdict copy_in_verdict(const RebindResult& result, const RebindSize& size);
// "rebind.best.kib_<K>": the fastest of the four graph ways (wall), as its
// outcome ("copy_in", "node_params", ...), against copy_in and the streams.
Verdict best_way_verdict(const RebindResult& result, const RebindSize& size);
// "rebind.crossover": the smallest size from which copy-in loses to the
// streams at every larger size ("copy_in_loses_from"), "copy_in_never_loses"
// or "copy_in_always_loses".
Verdict crossover_verdict(const RebindResult& result);

// The table (a row per size and way), the verdicts, the checks and the JSON ("rebind").
void report_rebind(const RebindConfig& config, const RebindResult& result, Report& report);

}  // namespace csg::graphs
