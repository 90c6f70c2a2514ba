// What stage 03 times, all in the same interleaved rounds so that every ratio
// is a same-run ratio, each variant verified after its last timed run. The
// runs themselves are the laboratory's (pool_experiment.hpp); the lesson's
// figures come in through `measured`. This file only registers them, times
// them and finds them again.
#pragma once

#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cuda/stream_pool.hpp"
#include "cli/pool_options.hpp"
#include "measure/pipeline_bound.hpp"
#include "measure/stage_sums.hpp"
#include "measure/stats.hpp"
#include "batches.hpp"
#include "workload/gemm.hpp"

namespace csg::pool {

class PoolMeasurements {
 public:
  enum class Kind { serial, pool, pool_sweep, engines, bound, resource };
  struct Entry {
    Kind kind = Kind::serial;
    std::string name{};
    nlohmann::json params = nlohmann::json::object();
    Work work{};
    TimedVariant variant{};
    Summary stats{};
    VerifyResult check{};
    bool verifiable = true;
    int streams = 0;
    IssueOrder order = IssueOrder::depth_first;
    const StreamPool* pool = nullptr;       // pool variants: their pool, for their resource runs
    std::optional<Summary> host_issue{};    // the host's time to issue each timed run, where read
    // resource runs: "kernels", "h2d", "d2h", "both_ways" or "busiest_stream"
    std::string resource{};
  };

  // Every GEMM of every variant runs on `gemm` (which must outlive this); each
  // add_* prepares the streams it will use (cuBLAS handles), so no timed run
  // creates one.
  PoolMeasurements(const Workload& work, std::uint64_t seed, const Gemm& gemm)
      : PoolMeasurements(work, seed, &gemm) {}
  // Measured figures to report, without runs (the lesson, the report's CPU tests).
  static PoolMeasurements measured(const Workload& work, std::vector<Entry> entries);
  // These figures without their runs, which borrow buffers and streams that
  // go when the measurement ends: what the report reads.
  PoolMeasurements measured_only() const;

  // Stage 01's serial loop on `buffers` (their host memory kind), legacy stream;
  // `run` issues every batch and returns its time.
  void add_serial(BatchBuffers& buffers, std::function<Millis()> run);
  // A pool run: `run` issues every batch on `pool` and returns its time;
  // `issued` then reads the host's time to issue that run.
  void add_pool(BatchBuffers& buffers, const StreamPool& pool, IssueOrder order, std::function<Millis()> run,
                std::function<Millis()> issued, bool sweep = false);
  // One stream per engine (EngineStreams, lab/pool_experiment.cpp) on `streams` (H2D, compute,
  // D2H, in that order): `run` issues every batch and returns its time.
  void add_engine_streams(BatchBuffers& buffers, const StreamPool& streams, std::function<Millis()> run,
                          std::function<Millis()> issued);
  // What each resource needs alone (resource_variants) on every pool size
  // added so far, through `ops`, each run by `pool_run` (the stage's own
  // depth-first run of a pool: fork, loop over the first `batches` batches,
  // join): the bound of each pool variant. Per pool size of S streams also
  // the busiest stream's ceil(B / S) batches, each H2D -> kernel -> D2H,
  // alone on the pool's stream 0 (the batches of the other streams left
  // out): the bound's measured busiest-stream path.
  using PoolRun = std::function<Millis(const StreamPool& pool, const BatchOps& ops, int batches)>;
  void add_resource_runs(const BatchOps& ops, const PoolRun& pool_run);
  // H2D, kernel and D2H sums through `ops` on `one`, then all copies both ways
  // at once on `one` and `two`. Verifiable only with a device slot per batch.
  void add_bounds(BatchBuffers& buffers, const BatchOps& ops, cudaStream_t one, cudaStream_t two, EventTimer& timer);

  void measure(const RepeatPlan& plan);

  const std::vector<Entry>& entries() const { return entries_; }
  const Entry& serial(HostMemory kind) const;
  const Entry& pool(IssueOrder order) const;  // the main pool (not a sweep entry)
  // The same, or nothing where that variant was not measured.
  const Entry* find_serial(HostMemory kind) const;
  const Entry* find_pool(IssueOrder order) const;
  const Entry* engine_streams() const;         // nothing if not measured
  StageSums sums() const;
  // The bound of a pool or engine-streams variant from its own resource runs;
  // nothing for the others.
  std::optional<PipelineBound> bound_of(const Entry& entry) const;
  // The noise the bound is allowed on that variant (bound_tolerance).
  double tolerance_of(const Entry& entry) const;
  // The resource run of `resource` on pools of `streams` streams, if measured.
  const Entry* resource(int streams, const std::string& resource) const;

 private:
  PoolMeasurements(const Workload& work, std::uint64_t seed, const Gemm* gemm)
      : work_(work), seed_(seed), gemm_(gemm) {}
  // A variant that runs every batch: whole-workload bytes and FLOPs, outputs
  // poisoned on `poison_stream` before each run, every batch verified after the last.
  void add_whole_workload(Entry entry, BatchBuffers& buffers, cudaStream_t poison_stream,
                          std::function<Millis()> run);
  const Entry& find(Kind kind, const std::string& name) const;
  // The first entry `pick` accepts, or nothing.
  template <class Pick>
  const Entry* first(Pick pick) const {
    const auto it = std::find_if(entries_.begin(), entries_.end(), pick);
    return it == entries_.end() ? nullptr : &*it;
  }
  Workload work_;
  std::uint64_t seed_;
  const Gemm* gemm_;
  std::vector<Entry> entries_;
};

}  // namespace csg::pool
