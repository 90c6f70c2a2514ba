// What the priorities and contention reports share (competition.hpp).
#include "03_stream_pool_gemm/lab/competition.hpp"

namespace csg::pool {

CommonDefaults competition_defaults() {
  CommonDefaults defaults;
  defaults.gemm_workload = false;
  defaults.host_memory_choice = false;
  return defaults;
}

double competition_seconds(const RepeatPlan& plan, double round_us) {
  return kExperimentSetupSeconds + (plan.warmup + plan.repeats) * round_us * 1e-6;
}

std::string us(double ms) { return fixed(ms * 1e3, 1); }

nlohmann::json summary_json(const Summary& s) {
  return {{"median_ms", s.median_ms}, {"min_ms", s.min_ms}, {"max_ms", s.max_ms}, {"p95_ms", s.p95_ms},
          {"samples", s.samples}};
}

nlohmann::json failure_json(bool verified, const std::string& failure) {
  return verified ? nlohmann::json(nullptr) : nlohmann::json(failure.empty() ? "verification failed" : failure);
}

void verify_runs(StageResult& result, bool verified, const std::string& failure, int runs, const std::string& what) {
  result.verification.passed = verified;
  result.verification.batches_checked = runs;
  result.verification.checked = "run";
  result.verification.method = what;
  result.verification.failure = verified ? "" : failure.empty() ? "a check failed" : failure;
}

}  // namespace csg::pool
