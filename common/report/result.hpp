// The results of one stage run: printed as one table and written as JSON in
// the schema "cuda-streams-graphs/result/v2" (docs/result.schema.json; v2 is
// v1 with "verdicts" and "subcommand" in every result). Scripts and tests
// read these names; add fields freely, never rename.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "report/device_info.hpp"
#include "report/verdict.hpp"
#include "cli/options.hpp"
#include "measure/pipeline_bound.hpp"
#include "measure/stats.hpp"
#include "batches.hpp"

namespace csg {

inline constexpr const char* kResultSchema = "cuda-streams-graphs/result/v2";

struct Measurement {
  std::string name;                                   // variant, e.g. "serial"
  nlohmann::json params = nlohmann::json::object();   // what distinguishes it, e.g. {"host_memory": "pinned"}
  Summary stats;
  Work work;              // bytes over PCIe and FLOPs of one run; 0 where it does not apply
  bool verified = false;  // every batch checked after this variant's runs
  // False for a measurement with no output to check (an allocation cost, a
  // CPU issue time): JSON "verified" is then null and tables print "n/a".
  bool verifiable = true;
  // A pipeline variant's bound (measure/pipeline_bound.hpp), from its own
  // resource runs, and the noise it is allowed; absent for the others.
  std::optional<PipelineBound> bound{};
  double bound_tolerance = 0.0;
  // The host's time to issue each timed run, read in the same runs.
  std::optional<Summary> host_issue{};
  // The hash of the outputs this variant's check saw (VerifyResult::digest).
  std::optional<std::uint64_t> digest{};
};

struct StageResult {
  std::string stage;
  DeviceInfo device;
  nlohmann::json config = nlohmann::json::object();
  std::vector<Measurement> measurements;
  nlohmann::json bounds = nlohmann::json::object();  // e.g. {"h2d_sum_ms": 4.08}
  VerifyResult verification;
  int variants_verified = 0;
  std::vector<Verdict> verdicts;  // what the run concluded from its figures, in the order printed
};

// Config fields common to every stage: batches, m, n, k, host_memory, kernel, warmup, repeats, seed.
nlohmann::json config_json(const CommonOptions& options);
nlohmann::json to_json(const DeviceInfo& device);
// A summary in ms, as the subcommands' own sections write one: median, min, max, p95, samples.
nlohmann::json summary_json(const Summary& summary);
// A measurement's JSON; with a bound, also
//   "bound": {"bound_ms", "limited_by", "regime", "percent_of_bound", "tolerance",
//             "paths": {"kernels_ms", "h2d_ms", "d2h_ms", "both_ways_ms", "host_issue_ms",
//                       "stream_order_ms", "busiest_stream_ms"}}
// with a host issue time, "host_issue_ms" (its median) and "host_issue_p95_ms";
// with a digest, "digest" (16 hex digits), else "digest": null.
nlohmann::json to_json(const Measurement& measurement);
nlohmann::json to_json(const PipelineBound& bound, double achieved_ms, double tolerance);
nlohmann::json to_json(const StageResult& result);

// Written whole or not at all (write_text_file).
void write_json_file(const std::string& path, const nlohmann::json& document);

// A measurement's params on one line, in key order: strings as they are, numbers
// as key=value, true flags by their key ({"streams": 8, "order": "depth_first"} -> "depth_first streams=8").
std::string compact_params(const nlohmann::json& params);

// One row per measurement: variant, params, median, min, p95, max (ms), GFLOP/s,
// GB/s, verified; and, where any has a bound, its % of the bound and its limiting path.
void print_measurements(std::ostream& out, const std::vector<Measurement>& measurements);

// "100 batches of C_i = A_i*B: A_i 1024x512, B 512x1024, C_i 1024x1024 (float), naive GEMM"
std::string describe_workload(const Workload& work, const GemmChoice& gemm);

}  // namespace csg
