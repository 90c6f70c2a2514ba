#include "04_graph_capture_gemm/lab/memory-nodes/memory_nodes_report.hpp"

#include <algorithm>
#include <cstdlib>

#include "base/text.hpp"
#include "base/units.hpp"
#include "04_graph_capture_gemm/lab/report.hpp"
#include "report/table.hpp"

namespace csg::graphs {
namespace {

// "12.0 MiB"
std::string mib(std::uint64_t bytes) { return fixed(double(bytes) / double(kMiB), 1) + " MiB"; }

// `to` - `from` in MiB, signed: "+48.0", "-2.0", "0.0".
std::string signed_mib(std::uint64_t from, std::uint64_t to) {
  const double delta = (double(to) - double(from)) / double(kMiB);
  std::string text = fixed(delta, 1);
  if (delta > 0.0) text.insert(text.begin(), '+');
  return text;
}

// Whether `a` and `b` are within kSameBytes of the larger.
bool about_the_same(std::uint64_t a, std::uint64_t b) {
  const double larger = double(std::max(a, b));
  return std::abs(double(a) - double(b)) <= kSameBytes * larger;
}

const char* verdict_name(ReplayVerdict v) {
  switch (v) {
    case ReplayVerdict::slower: return "slower";
    case ReplayVerdict::faster: return "faster";
    case ReplayVerdict::same: return "same";
  }
  return "?";
}
const char* verdict_name(FootprintVerdict v) {
  switch (v) {
    case FootprintVerdict::smaller: return "smaller";
    case FootprintVerdict::same: return "same";
    case FootprintVerdict::larger: return "larger";
    case FootprintVerdict::none: return "none";
  }
  return "?";
}
const char* verdict_name(ReuseVerdict v) {
  switch (v) {
    case ReuseVerdict::reused: return "reused";
    case ReuseVerdict::not_reused: return "not_reused";
    case ReuseVerdict::none: return "none";
  }
  return "?";
}
const char* verdict_name(SharingVerdict v) {
  switch (v) {
    case SharingVerdict::shared: return "shared";
    case SharingVerdict::partly: return "partly";
    case SharingVerdict::separate: return "separate";
    case SharingVerdict::none: return "none";
  }
  return "?";
}
const char* verdict_name(TrimVerdict v) {
  switch (v) {
    case TrimVerdict::all: return "all";
    case TrimVerdict::part: return "part";
    case TrimVerdict::nothing: return "nothing";
    case TrimVerdict::nothing_to_trim: return "nothing_to_trim";
  }
  return "?";
}

}  // namespace

const char* to_string(Moment moment) {
  switch (moment) {
    case Moment::baseline: return "baseline";
    case Moment::instantiated: return "instantiated";
    case Moment::uploaded: return "uploaded";
    case Moment::first_launch: return "first_launch";
    case Moment::replays: return "replays";
    case Moment::second_uploaded: return "second_uploaded";
    case Moment::second_launched: return "second_launched";
    case Moment::both_launched: return "both_launched";
    case Moment::destroyed: return "destroyed";
    case Moment::trimmed: return "trimmed";
  }
  return "?";
}

// ---- conclusions --------------------------------------------------------------

double replay_noise(const Summary& memory, const Summary& preallocated) {
  return std::max({kMinReplayNoise, relative_spread(memory), relative_spread(preallocated)});
}

ReplayVerdict replay_verdict(const Summary& memory, const Summary& preallocated) {
  const double noise = replay_noise(memory, preallocated);
  if (memory.median_ms > preallocated.median_ms * (1.0 + noise)) return ReplayVerdict::slower;
  if (memory.median_ms < preallocated.median_ms * (1.0 - noise)) return ReplayVerdict::faster;
  return ReplayVerdict::same;
}

std::string replay_text(const Summary& memory, const Summary& preallocated) {
  const double change = preallocated.median_ms > 0.0 ? memory.median_ms / preallocated.median_ms - 1.0 : 0.0;
  const std::string figures = fixed(memory.median_ms, 3) + " ms a replay against " +
                              fixed(preallocated.median_ms, 3) + " ms preallocated (" +
                              std::string(change >= 0.0 ? "+" : "") + fixed(100.0 * change, 1) + "%";
  const std::string noise = fixed(100.0 * replay_noise(memory, preallocated), 1) + "% noise)";
  switch (replay_verdict(memory, preallocated)) {
    case ReplayVerdict::slower:
      return "allocating inside the graph costs replay time: " + figures + ", beyond the " + noise;
    case ReplayVerdict::faster:
      return "the graph that allocates its buffers replays faster: " + figures + ", beyond the " + noise;
    case ReplayVerdict::same: break;
  }
  return "allocating inside the graph costs no replay time here: " + figures + ", within the " + noise;
}

FootprintVerdict footprint_verdict(std::uint64_t reserved, std::uint64_t preallocated) {
  if (reserved == 0) return FootprintVerdict::none;
  if (about_the_same(reserved, preallocated)) return FootprintVerdict::same;
  return reserved < preallocated ? FootprintVerdict::smaller : FootprintVerdict::larger;
}

std::string footprint_text(std::uint64_t reserved, const MemorySizes& sizes) {
  const std::uint64_t pre = sizes.preallocated_bytes();
  const std::string figures = mib(reserved) + " reserved by the graph allocator after the replays, against " +
                              mib(pre) + " of preallocated A and C (" + plural(sizes.slots, "slot") + ")";
  switch (footprint_verdict(reserved, pre)) {
    case FootprintVerdict::none:
      return "the driver reported no graph memory reserved after the replays: no footprint to compare";
    case FootprintVerdict::smaller:
      return "allocating inside the graph holds less memory than preallocating: " + figures;
    case FootprintVerdict::same:
      return "allocating inside the graph holds about what preallocating does (within " +
             fixed(100.0 * kSameBytes, 0) + "%): " + figures;
    case FootprintVerdict::larger: break;
  }
  return "allocating inside the graph holds more memory than preallocating (" +
         fixed(pre > 0 ? double(reserved) / double(pre) : 0.0, 1) + "x): " + figures;
}

ReuseVerdict reuse_verdict(std::uint64_t reserved, std::uint64_t allocations) {
  if (reserved == 0) return ReuseVerdict::none;
  return double(reserved) < (1.0 - kSameBytes) * double(allocations) ? ReuseVerdict::reused
                                                                     : ReuseVerdict::not_reused;
}

std::string reuse_text(std::uint64_t reserved, const MemorySizes& sizes) {
  const std::uint64_t all = sizes.allocations_bytes();
  const std::string figures = mib(reserved) + " reserved for " + mib(all) + " allocated in all (" +
                              plural(sizes.batches, "batch") + " x " + mib(sizes.pair_bytes) + " of A and C)";
  switch (reuse_verdict(reserved, all)) {
    case ReuseVerdict::none: return "no reserved memory to compare with the graph's allocations";
    case ReuseVerdict::reused:
      return "inside the graph, a batch's freed A and C served later batches: " + figures;
    case ReuseVerdict::not_reused: break;
  }
  return "no reuse inside the graph: every batch kept its own memory, " + figures;
}

SharingVerdict sharing_verdict(std::uint64_t one, std::uint64_t two) {
  if (one == 0) return SharingVerdict::none;
  if (double(two) <= (1.0 + kSameBytes) * double(one)) return SharingVerdict::shared;
  if (double(two) >= (2.0 - kSameBytes) * double(one)) return SharingVerdict::separate;
  return SharingVerdict::partly;
}

std::string sharing_text(std::uint64_t one, std::uint64_t two) {
  const std::string figures =
      "reserved " + mib(one) + " with one graph launched, " + mib(two) + " with both launched one after the other";
  switch (sharing_verdict(one, two)) {
    case SharingVerdict::none: return "nothing was reserved after one graph's launches: nothing to share";
    case SharingVerdict::shared:
      return "two graphs that never run at once shared their memory: " + figures;
    case SharingVerdict::separate: return "each graph kept memory of its own (reserved doubled): " + figures;
    case SharingVerdict::partly: break;
  }
  return "the two graphs shared part of their memory: " + figures;
}

TrimVerdict trim_verdict(std::uint64_t before, std::uint64_t after) {
  if (before == 0) return TrimVerdict::nothing_to_trim;
  if (after == 0) return TrimVerdict::all;
  return after < before ? TrimVerdict::part : TrimVerdict::nothing;
}

std::string destroy_text(const GraphMemory& live, const GraphMemory& destroyed) {
  const std::string figures = "used " + mib(live.used_current) + " -> " + mib(destroyed.used_current) +
                              ", reserved " + mib(live.reserved_current) + " -> " + mib(destroyed.reserved_current);
  if (destroyed.reserved_current > 0 && double(destroyed.reserved_current) >=
                                            (1.0 - kSameBytes) * double(live.reserved_current)) {
    return "destroying both execs kept the reserved memory for the next graph (until trimmed): " + figures;
  }
  return "destroying both execs released reserved memory: " + figures;
}

std::string trim_text(const GraphMemory& destroyed, const GraphMemory& trimmed) {
  const std::uint64_t before = destroyed.reserved_current;
  const std::uint64_t after = trimmed.reserved_current;
  const std::string free_delta =
      " (cudaMemGetInfo: free memory " + signed_mib(destroyed.device_free, trimmed.device_free) + " MiB)";
  switch (trim_verdict(before, after)) {
    case TrimVerdict::nothing_to_trim:
      return "cudaDeviceGraphMemTrim had nothing to give back: nothing was reserved" + free_delta;
    case TrimVerdict::all: return "cudaDeviceGraphMemTrim gave back all " + mib(before) + free_delta;
    case TrimVerdict::part:
      return "cudaDeviceGraphMemTrim gave back " + mib(before - after) + " of " + mib(before) + ", " + mib(after) +
             " stays reserved" + free_delta;
    case TrimVerdict::nothing: break;
  }
  return "cudaDeviceGraphMemTrim gave back nothing: " + mib(after) + " stays reserved" + free_delta;
}

// ---- result, JSON, screen -------------------------------------------------------

StageResult memory_nodes_result(const DeviceInfo& device, const CommonOptions& options, const PoolConfig& pool,
                                const MemoryNodesFigures& f) {
  const Work full = work_of(options.work);
  const nlohmann::json memory = {{"streams", pool.streams}, {"batches", options.work.batches},
                                 {"device_buffers", "graph_allocated"}};
  const nlohmann::json pre = pool_params(pool, options.work.batches);
  StageResult result = pool_result(device, options, pool);
  result.measurements = {
      checked("memory_graph_replay", memory, f.memory_replay, full, f.memory_check),
      checked("preallocated_graph_replay", pre, f.preallocated_replay, full, f.preallocated_check),
      cost("memory_graph_launch_cpu", memory, f.memory_launch_cpu),
      cost("preallocated_graph_launch_cpu", pre, f.preallocated_launch_cpu),
      cost("memory_graph_instantiate", memory, f.memory_instantiate),
      cost("preallocated_graph_instantiate", pre, f.preallocated_instantiate),
  };
  const Footprint& fp = f.footprint;
  const double pre_ms = f.preallocated_replay.median_ms;
  result.bounds = {
      {"replay_memory_over_preallocated",
       pre_ms > 0.0 ? nlohmann::json(f.memory_replay.median_ms / pre_ms) : nlohmann::json(nullptr)},
      {"reserved_after_replays_bytes", fp[Moment::replays].reserved_current},
      {"reserved_two_graphs_bytes", fp[Moment::both_launched].reserved_current},
      {"preallocated_bytes", f.sizes.preallocated_bytes()},
      {"allocations_bytes", f.sizes.allocations_bytes()},
  };
  set_verdict(result, f.memory_check,
              {&f.first_launch_check, &f.memory_check, &f.preallocated_check, &f.second_check});
  return result;
}

nlohmann::json memory_nodes_json(const StageResult& result, const MemoryNodesFigures& f) {
  nlohmann::json doc = subcommand_json(result, "memory-nodes");
  const Footprint& fp = f.footprint;
  nlohmann::json points = nlohmann::json::array();
  for (int i = 0; i < kMomentCount; ++i) {
    const GraphMemory& g = fp.at[static_cast<std::size_t>(i)];
    points.push_back({{"moment", to_string(static_cast<Moment>(i))},
                      {"used_current", g.used_current},
                      {"used_high", g.used_high},
                      {"reserved_current", g.reserved_current},
                      {"reserved_high", g.reserved_high},
                      {"device_free", g.device_free}});
  }
  const std::uint64_t one = fp[Moment::replays].reserved_current;
  const std::uint64_t two = fp[Moment::both_launched].reserved_current;
  doc["memory_nodes"] = {
      {"batches", f.sizes.batches},
      {"slots", f.sizes.slots},
      {"pair_bytes", f.sizes.pair_bytes},
      {"allocations_bytes", f.sizes.allocations_bytes()},
      {"preallocated_bytes", f.sizes.preallocated_bytes()},
      {"memory_graph_nodes", f.memory_nodes},
      {"preallocated_graph_nodes", f.preallocated_nodes},
      {"replay_noise", replay_noise(f.memory_replay, f.preallocated_replay)},
      {"footprint", points},
      {"verdicts",
       {{"replay", verdict_name(replay_verdict(f.memory_replay, f.preallocated_replay))},
        {"footprint", verdict_name(footprint_verdict(one, f.sizes.preallocated_bytes()))},
        {"reuse", verdict_name(reuse_verdict(one, f.sizes.allocations_bytes()))},
        {"sharing", verdict_name(sharing_verdict(one, two))},
        {"trim", verdict_name(trim_verdict(fp[Moment::destroyed].reserved_current,
                                           fp[Moment::trimmed].reserved_current))}}},
  };
  return doc;
}

void print_memory_nodes(std::ostream& out, const StageResult& result, const CommonOptions& options,
                        const PoolConfig& pool, const MemoryNodesFigures& f) {
  print_title(out, result, "memory-nodes");
  out << pool_run_text(options, pool) << "\nthe memory graph: each batch's device A and C allocated inside it "
      << "(cudaMallocAsync before its H2D, cudaFreeAsync after its D2H; B preallocated), " << f.memory_nodes
      << " nodes against " << f.preallocated_nodes << "\n\nreplays, interleaved (GPU time; host time of the launch; "
      << "host time of the instantiate):\n";
  print_measurements(out, pick(result, {"memory_graph_replay", "preallocated_graph_replay", "memory_graph_launch_cpu",
                                        "preallocated_graph_launch_cpu", "memory_graph_instantiate",
                                        "preallocated_graph_instantiate"}));

  out << "\ngraph memory as the driver reports it (cudaDeviceGetGraphMemAttribute, MiB; free: cudaMemGetInfo "
         "against the baseline):\n";
  const Footprint& fp = f.footprint;
  Table table({"moment", "used", "used high", "reserved", "reserved high", "free"});
  for (int i = 0; i < kMomentCount; ++i) {
    const GraphMemory& g = fp.at[static_cast<std::size_t>(i)];
    auto m = [](std::uint64_t bytes) { return fixed(double(bytes) / double(kMiB), 1); };
    table.add_row({to_string(static_cast<Moment>(i)), m(g.used_current), m(g.used_high), m(g.reserved_current),
                   m(g.reserved_high), signed_mib(fp[Moment::baseline].device_free, g.device_free)});
  }
  table.print(out);

  const std::uint64_t one = fp[Moment::replays].reserved_current;
  out << '\n'
      << replay_text(f.memory_replay, f.preallocated_replay) << '\n'
      << footprint_text(one, f.sizes) << '\n'
      << reuse_text(one, f.sizes) << '\n'
      << sharing_text(one, fp[Moment::both_launched].reserved_current) << '\n'
      << destroy_text(fp[Moment::both_launched], fp[Moment::destroyed]) << '\n'
      << trim_text(fp[Moment::destroyed], fp[Moment::trimmed]) << '\n';
  print_verification(out, result);
}

}  // namespace csg::graphs
