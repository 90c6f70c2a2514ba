#include "04_graph_capture_gemm/lab/report.hpp"

#include "experiment/lab.hpp"

namespace csg::graphs {

Measurement cost(const std::string& name, const nlohmann::json& params, const Summary& stats) {
  Measurement m{name, params, stats, Work{}, false};
  m.verifiable = false;
  return m;
}

Measurement checked(const std::string& name, const nlohmann::json& params, const Summary& stats, Work work,
                    const VerifyResult& check) {
  Measurement m{name, params, stats, work, check.passed};
  m.digest = check.digest;
  return m;
}

Measurement checked_without_digest(const std::string& name, const nlohmann::json& params, const Summary& stats,
                                   Work work, bool passed) {
  return Measurement{name, params, stats, work, passed};
}

const Measurement& find(const StageResult& result, const std::string& name) {
  for (const Measurement& m : result.measurements) {
    if (m.name == name) return m;
  }
  throw std::logic_error("no measurement named " + name);
}

std::vector<Measurement> pick(const StageResult& result, std::initializer_list<const char*> names) {
  std::vector<Measurement> out;
  for (const char* name : names) out.push_back(find(result, name));
  return out;
}

Work work_of(const Workload& work) {
  const double batches = double(work.batches);
  return Work{batches * double(work.a_bytes() + work.c_bytes()), batches * work.flops_per_batch()};
}

nlohmann::json pool_params(const PoolConfig& pool, int batches) {
  return {{"streams", pool.streams}, {"batches", batches}, {"device_buffers", to_string(pool.device_buffers)}};
}

StageResult pool_result(const DeviceInfo& device, const CommonOptions& options, const PoolConfig& pool) {
  StageResult result;
  result.stage = kStage;
  result.device = device;
  result.config = config_json(options);
  result.config["streams"] = pool.streams;
  result.config["device_buffers"] = to_string(pool.device_buffers);
  return result;
}

void set_verdict(StageResult& result, const VerifyResult& whole, const std::vector<const VerifyResult*>& checks) {
  result.verification = whole;
  for (const VerifyResult* check : checks) {
    if (check->passed) {
      ++result.variants_verified;
    } else if (result.verification.passed) {
      result.verification = *check;
    }
  }
}

void fold_check(VerifyResult& total, const VerifyResult& part) {
  const bool passed_so_far = total.passed || total.batches_checked == 0;
  if (passed_so_far && !part.passed) {
    total.first_failure = part.first_failure;
    total.method = part.method;
  }
  total.passed = passed_so_far && part.passed;
  total.batches_checked += part.batches_checked;
  total.digest.reset();
}

void add_failure(StageResult& result, bool passed, const std::string& what) {
  if (passed || !result.verification.passed) return;
  result.verification.passed = false;
  result.verification.first_failure.reset();
  result.verification.method = what;
}

Verdict decided(Verdict verdict, std::string outcome, std::string sentence) {
  verdict.outcome = std::move(outcome);
  verdict.sentence = std::move(sentence);
  return verdict;
}

void count_checked_runs(Report& report) {
  const std::string runs = plural(report.result.variants_verified, "run");
  report.checked_runs("(" + runs + " checked, each after poisoning the outputs)");
}

std::string pool_text(HostMemory host_memory, const PoolConfig& pool) {
  return std::string(to_string(host_memory)) + " host memory, a pool of " + plural(pool.streams, "stream") +
         ", device buffers: " + std::string(to_string(pool.device_buffers));
}

std::string pool_run_text(const CommonOptions& options, const PoolConfig& pool) {
  return describe_workload(options.work, options.gemm) + ", " + pool_text(options.host_memory, pool) +
         "; median of " + plural(options.plan.repeats, "run") + " after " + std::to_string(options.plan.warmup) +
         " warm-up";
}

}  // namespace csg::graphs
