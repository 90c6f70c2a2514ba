// What every subcommand of stage 04's laboratory reports the same way. Plain
// C++: the CPU tests build results from made-up figures through these.
#pragma once

#include <initializer_list>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/pool_options.hpp"
#include "experiment/report.hpp"
#include "report/result.hpp"

namespace csg::graphs {

inline constexpr const char* kStage = "04_graph_capture_gemm";

// A figure with no output to check (a host cost, an issue time): JSON "verified" null.
Measurement cost(const std::string& name, const nlohmann::json& params, const Summary& stats);
// A variant checked by verifying every batch: its verdict and its outputs' digest.
Measurement checked(const std::string& name, const nlohmann::json& params, const Summary& stats, Work work,
                    const VerifyResult& check);
// Checked, without a digest to compare (another set of data, or a counter).
Measurement checked_without_digest(const std::string& name, const nlohmann::json& params, const Summary& stats,
                                   Work work, bool passed);

// The measurement named `name`; std::logic_error when there is none.
const Measurement& find(const StageResult& result, const std::string& name);
std::vector<Measurement> pick(const StageResult& result, std::initializer_list<const char*> names);

// One run of the whole workload: every batch's A and C over PCIe, 2mnk FLOPs each.
Work work_of(const Workload& work);
// {"streams", "batches", "device_buffers"}: the params of a run on the pool.
nlohmann::json pool_params(const PoolConfig& pool, int batches);

// The common config (config_json) and the pool's "streams" and "device_buffers".
StageResult pool_result(const DeviceInfo& device, const CommonOptions& options, const PoolConfig& pool);

// The verdict: the first of `checks` that failed, else `whole` (the run whose
// batch count and digest the result reports); each check passed counts as verified.
void set_verdict(StageResult& result, const VerifyResult& whole, const std::vector<const VerifyResult*>& checks);
// A check that is no VerifyResult (a counter, a study's own checks): when it
// failed, the verdict fails naming `what`, unless a failure is named already.
void add_failure(StageResult& result, bool passed, const std::string& what);
// Folds one part's check (a request's, a bucket graph's) into the whole
// run's: the batches add up, the first failure stays, no digest (the parts'
// outputs overlap or differ).
void fold_check(VerifyResult& total, const VerifyResult& part);

// One branch of a verdict's decision: `verdict` with its outcome and sentence.
Verdict decided(Verdict verdict, std::string outcome, std::string sentence);

// After the verification's message at the end of `report`: "(6 runs checked,
// each after poisoning the outputs)", from result.variants_verified.
void count_checked_runs(Report& report);

// "pinned host memory, a pool of 8 streams, device buffers: slots"
std::string pool_text(HostMemory host_memory, const PoolConfig& pool);
// "<the workload>, <pool_text>; median of 10 runs after 2 warm-up"
std::string pool_run_text(const CommonOptions& options, const PoolConfig& pool);

}  // namespace csg::graphs
