#include "report/result.hpp"

#include <algorithm>
#include <cmath>

#include "base/enum_names.hpp"
#include "base/output_file.hpp"
#include "base/progress.hpp"
#include "base/text.hpp"
#include "report/table.hpp"

namespace csg {
namespace {

template <class T>
nlohmann::json or_null(const std::optional<T>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

// JSON has no NaN; a throughput that does not apply is written as null.
nlohmann::json rate(double value) { return value > 0.0 && std::isfinite(value) ? nlohmann::json(value) : nullptr; }

// A throughput in the console's table; "-" where it does not apply.
std::string rate_text(double rate, int decimals) { return rate > 0 ? figure(rate, decimals, 2) : "-"; }

// A path's key in the bound's "paths".
std::string_view path_key(BoundPath path) {
  return name_of(path, {"kernels_ms", "h2d_ms", "d2h_ms", "both_ways_ms", "host_issue_ms", "stream_order_ms",
                        "busiest_stream_ms"});
}

}  // namespace

nlohmann::json config_json(const CommonOptions& options) {
  return {
      {"batches", options.work.batches},
      {"m", options.work.shape.m},
      {"n", options.work.shape.n},
      {"k", options.work.shape.k},
      {"host_memory", std::string(to_string(options.host_memory))},
      {"kernel", std::string(to_string(options.gemm.kernel))},
      {"tf32", options.gemm.tf32},
      {"warmup", options.plan.warmup},
      {"repeats", options.plan.repeats},
      {"seed", options.seed},
  };
}

nlohmann::json to_json(const DeviceInfo& device) {
  return {
      {"name", device.name},
      {"compute_capability", device.compute_capability()},
      {"sm_count", device.sm_count},
      {"async_engines", device.async_engines},
      {"total_memory_bytes", device.total_memory_bytes},
      {"pci_bus_id", device.pci_bus_id},
      {"pcie_gen", or_null(device.pcie_gen)},
      {"pcie_width", or_null(device.pcie_width)},
      {"pcie_gen_max", or_null(device.pcie_gen_max)},
      {"pcie_width_max", or_null(device.pcie_width_max)},
      {"driver", or_null(device.driver)},
      {"driver_version", device.driver_version},
      {"runtime_version", device.runtime_version},
  };
}

nlohmann::json summary_json(const Summary& s) {
  return {{"median_ms", s.median_ms}, {"min_ms", s.min_ms}, {"max_ms", s.max_ms}, {"p95_ms", s.p95_ms},
          {"samples", s.samples}};
}

nlohmann::json to_json(const PipelineBound& bound, double achieved_ms, double tolerance) {
  nlohmann::json paths = nlohmann::json::object();
  for (const BoundPath path : kBoundPaths) paths[std::string(path_key(path))] = path_ms(bound, path);
  return {{"bound_ms", bound.bound_ms},
          {"limited_by", to_string(bound.limited_by)},
          {"regime", to_string(regime_of(bound))},
          {"percent_of_bound", percent_of_bound(bound, achieved_ms)},
          {"tolerance", tolerance},
          {"paths", paths}};
}

nlohmann::json to_json(const Measurement& m) {
  nlohmann::json doc = summary_json(m.stats);  // an object: its keys sorted, whatever order they are set in
  doc["name"] = m.name;
  doc["params"] = m.params;
  doc["samples_ms"] = m.stats.samples_ms;
  doc["gflops"] = rate(gflops(m.work.flops, m.stats.median_ms));
  doc["gbps"] = rate(gbps(m.work.bytes, m.stats.median_ms));
  doc["verified"] = m.verifiable ? nlohmann::json(m.verified) : nlohmann::json(nullptr);
  if (m.bound) doc["bound"] = to_json(*m.bound, m.stats.median_ms, m.bound_tolerance);
  doc["digest"] = m.digest ? nlohmann::json(digest_text(*m.digest)) : nlohmann::json(nullptr);
  if (m.host_issue) {
    doc["host_issue_ms"] = m.host_issue->median_ms;
    doc["host_issue_p95_ms"] = m.host_issue->p95_ms;
  }
  return doc;
}

nlohmann::json to_json(const StageResult& result) {
  nlohmann::json measurements = nlohmann::json::array();
  for (const auto& m : result.measurements) measurements.push_back(to_json(m));
  nlohmann::json verification = {
      {"passed", result.verification.passed},
      {"batches_checked", result.verification.batches_checked},
      {"variants_checked", result.variants_verified},
      {"method", result.verification.method},
  };
  if (!result.verification.passed) verification["failure"] = result.verification.message();
  verification["digest"] =
      result.verification.digest ? nlohmann::json(digest_text(*result.verification.digest)) : nlohmann::json(nullptr);
  nlohmann::json verdicts = nlohmann::json::array();
  for (const Verdict& verdict : result.verdicts) verdicts.push_back(to_json(verdict));
  return {
      {"schema", kResultSchema},   {"stage", result.stage},   {"verdicts", verdicts},
      {"device", to_json(result.device)}, {"config", result.config},
      {"measurements", measurements}, {"bounds", result.bounds},
      {"verification", verification}, {"measured_at", started_at_utc()},
  };
}

void write_json_file(const std::string& path, const nlohmann::json& document) {
  write_text_file(path, document.dump(2) + "\n");
}

std::string compact_params(const nlohmann::json& params) {
  std::vector<std::string> items;
  for (const auto& [key, value] : params.items()) {
    if (value.is_boolean()) {
      if (value.get<bool>()) items.push_back(key);  // a false flag says nothing
    } else {
      items.push_back(value.is_string() ? value.get<std::string>() : key + "=" + value.dump());
    }
  }
  const std::string text = join(items, " ");
  return text.empty() ? "-" : text;
}

void print_measurements(std::ostream& out, const std::vector<Measurement>& measurements) {
  using M = Measurement;
  std::vector<Column<M>> columns = {
      {"variant", [](const M& m) { return m.name; }},
      {"params", [](const M& m) { return compact_params(m.params); }},
      {"median ms", [](const M& m) { return figure(m.stats.median_ms, 2); }},
      {"min ms", [](const M& m) { return figure(m.stats.min_ms, 2); }},
      {"p95 ms", [](const M& m) { return figure(m.stats.p95_ms, 2); }},
      {"max ms", [](const M& m) { return figure(m.stats.max_ms, 2); }},
      {"GFLOP/s", [](const M& m) { return rate_text(gflops(m.work.flops, m.stats.median_ms), 0); }},
      {"GB/s", [](const M& m) { return rate_text(gbps(m.work.bytes, m.stats.median_ms), 1); }},
      {"verified", [](const M& m) { return !m.verifiable ? "n/a" : m.verified ? "yes" : "NO"; }},
  };
  if (std::any_of(measurements.begin(), measurements.end(), [](const M& m) { return m.bound.has_value(); })) {
    columns.push_back({"% of bound", [](const M& m) {
                         return m.bound ? fixed(percent_of_bound(*m.bound, m.stats.median_ms), 1) : "-";
                       }});
    columns.push_back(
        {"limited by", [](const M& m) { return m.bound ? std::string(to_string(m.bound->limited_by)) : "-"; }});
  }
  table_of(columns, measurements).print(out);
}

std::string describe_workload(const Workload& work, const GemmChoice& gemm) {
  const auto& s = work.shape;
  auto dims = [](int rows, int cols) { return std::to_string(rows) + "x" + std::to_string(cols); };
  return plural(work.batches, "batch") + " of C_i = A_i*B: A_i " + dims(s.m, s.k) + ", B " + dims(s.k, s.n) +
         ", C_i " + dims(s.m, s.n) + " (float), " + gemm_name(gemm) + " GEMM";
}

}  // namespace csg
