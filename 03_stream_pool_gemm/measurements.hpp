// What the stream-pool stage measures and how it reports it: the serial
// baselines, the pool in each issue order and at each swept size, and the
// isolated sums behind the pipeline bound, all timed in the same rounds
// (measure_interleaved) and each verified after its last run.
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "workload/batch_buffers.hpp"
#include "engine_streams.hpp"
#include "measure/pipeline_bound.hpp"
#include "cli/pool_options.hpp"
#include "report/result.hpp"
#include "workload/stream_pool.hpp"
#include "measure/timers.hpp"

namespace csg {

class PoolMeasurements {
 public:
  enum class Kind { serial, pool, pool_sweep, engines, bound };
  struct Entry {
    Kind kind = Kind::serial;
    std::string name;
    nlohmann::json params = nlohmann::json::object();
    Work work;
    TimedVariant variant;
    Summary stats;
    VerifyResult check;
    bool verifiable = true;
    int streams = 0;
    IssueOrder order = IssueOrder::depth_first;
  };

  // Every GEMM of every variant runs on `gemm` (which must outlive this); each
  // add_* prepares the streams it will use (cuBLAS handles), so no timed run
  // creates one.
  PoolMeasurements(const Workload& work, std::uint64_t seed, const Gemm& gemm)
      : work_(work), seed_(seed), gemm_(&gemm) {}

  // Stage 01's serial loop on `buffers` (their host memory kind), legacy stream.
  void add_serial(BatchBuffers& buffers, EventTimer& timer);
  // A pool run: `run` issues every batch on `pool` and returns its time.
  void add_pool(BatchBuffers& buffers, const StreamPool& pool, IssueOrder order, std::function<Millis()> run,
                bool sweep = false);
  // One stream per engine (engine_streams.cuh): `run` issues every batch on
  // `engines` and returns its time.
  void add_engine_streams(BatchBuffers& buffers, const EngineStreams& engines, std::function<Millis()> run);
  // H2D, kernel and D2H sums on the first of `two_streams`, then all copies
  // both ways at once on both. Verifiable only with a device slot per batch.
  void add_bounds(BatchBuffers& buffers, const StreamPool& two_streams, EventTimer& timer);

  std::size_t size() const { return entries_.size(); }
  void measure(const RepeatPlan& plan);

  const std::vector<Entry>& entries() const { return entries_; }
  const Entry& serial(HostMemory kind) const;
  const Entry& pool(IssueOrder order) const;  // the main pool (not a sweep entry)
  const Entry* engine_streams() const;         // nothing if not measured
  StageSums sums() const;
  double both_ways_ms() const;
  PipelineBound bound() const { return pipeline_bound(sums(), both_ways_ms(), work_.batches); }

 private:
  // A variant that runs every batch: whole-workload bytes and FLOPs, outputs
  // poisoned on `poison_stream` before each run, every batch verified after the last.
  void add_whole_workload(Entry entry, BatchBuffers& buffers, cudaStream_t poison_stream,
                          std::function<Millis()> run);
  const Entry& find(Kind kind, const std::string& name) const;
  Workload work_;
  std::uint64_t seed_;
  const Gemm* gemm_;
  std::vector<Entry> entries_;
};

StageResult pool_result(const std::string& stage, const DeviceInfo& device, const CommonOptions& options,
                        const PoolConfig& config, int device_slots, const PoolMeasurements& runs);

void print_pool_result(std::ostream& out, const StageResult& result, const CommonOptions& options,
                       const PoolConfig& config, const PoolMeasurements& runs);

}  // namespace csg
