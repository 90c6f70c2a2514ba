#include "report.hpp"

#include "base/text.hpp"
#include "report/conclusions.hpp"
#include "report/table.hpp"

namespace csg::serial {

Verdict overlap_verdict(double total_ms, double sum_ms) {
  Verdict verdict{.id = "serial.overlap",
                  .figures = {{"total_ms", total_ms}, {"stage_sum_ms", sum_ms}, {"total_over_sum", total_ms / sum_ms}},
                  .threshold = kOverlapWithin};
  const std::string head = "serial total " + fixed(total_ms, 2) + " ms = " + fixed(total_ms / sum_ms, 2) +
                           "x the sum of the stages: ";
  if (total_ms >= (1.0 - kOverlapWithin) * sum_ms) {
    verdict.outcome = "nothing_overlapped";
    verdict.sentence = head + "nothing overlapped (within " + percent_text(kOverlapWithin) +
                       " of the sum).\n  While the SMs compute, the PCIe link idles, and vice versa.";
  } else {
    verdict.outcome = "some_overlapped";
    verdict.sentence = head + "more than " + percent_text(kOverlapWithin) +
                       " under the sum, so some work overlapped even here:\n  the stages sum runs each kind alone, "
                       "and one of them is slower alone than inside the serial loop.";
  }
  return verdict;
}

double estimate_seconds(const CommonOptions& options, const Rates& rates, bool timeline) {
  const WorkSeconds t = work_seconds(options.work, rates, options.host_memory == HostMemory::pageable);
  const int rounds = (options.plan.warmup + options.plan.repeats) * (timeline ? 2 : 1);
  return rounds * 2.0 * t.serial();  // the serial run, then the three sums
}

StageResult serial_result(const std::string& stage, const DeviceInfo& device, const CommonOptions& options,
                          const Summary& total, const StageSums& sums, const VerifyResult& serial_check,
                          const VerifyResult& sums_check) {
  const Workload& work = options.work;
  const double batches = double(work.batches);
  const double h2d_bytes = batches * double(work.a_bytes());
  const double d2h_bytes = batches * double(work.c_bytes());
  const double flops = batches * work.flops_per_batch();
  const nlohmann::json memory = {{"host_memory", std::string(to_string(options.host_memory))}};

  StageResult result;
  result.stage = stage;
  result.device = device;
  result.config = config_json(options);
  result.measurements = {
      {"serial", memory, total, Work{h2d_bytes + d2h_bytes, flops}, serial_check.passed},
      {"h2d_sum", memory, sums.h2d, Work{h2d_bytes, 0.0}, sums_check.passed},
      {"kernel_sum", nlohmann::json::object(), sums.kernel, Work{0.0, flops}, sums_check.passed},
      {"d2h_sum", memory, sums.d2h, Work{d2h_bytes, 0.0}, sums_check.passed},
  };
  result.measurements[0].digest = serial_check.digest;
  for (std::size_t i = 1; i < result.measurements.size(); ++i) result.measurements[i].digest = sums_check.digest;
  result.bounds = {
      {"h2d_sum_ms", sums.h2d.median_ms},
      {"kernel_sum_ms", sums.kernel.median_ms},
      {"d2h_sum_ms", sums.d2h.median_ms},
      {"stage_sum_ms", sums.sum_ms()},
      {"total_over_stage_sum", total.median_ms / sums.sum_ms()},
      {"kernel", gemm_name(options.gemm)},
      {"kernel_gflops", gflops(flops, sums.kernel.median_ms)},
  };
  result.verification = serial_check.passed ? sums_check : serial_check;
  result.variants_verified = int(serial_check.passed) + int(sums_check.passed);
  return result;
}

void report_serial(Report& report, const CommonOptions& options, const Summary& total, const StageSums& sums,
                   const VerifyResult& serial_check, const VerifyResult& sums_check) {
  report.result = serial_result(report.result.stage, report.result.device, options, total, sums, serial_check,
                                sums_check);
  report.checked_runs(report.result.variants_verified == 2 ? "in both passes" : "");
  std::ostream& out = report.out();
  out << describe_workload(options.work, options.gemm) << ", " << to_string(options.host_memory)
      << " host memory; median of " << plural(options.plan.repeats, "run") << " after " << options.plan.warmup
      << " warm-up\n\n";
  report.measurements();

  const double total_ms = total.median_ms;
  const double sum_ms = sums.sum_ms();
  out << "\nstage sums: H2D " << figure(sums.h2d.median_ms, 2) << " + kernels " << figure(sums.kernel.median_ms, 2)
      << " + D2H " << figure(sums.d2h.median_ms, 2) << " = " << figure(sum_ms, 2) << " ms\n";
  report.verdict(overlap_verdict(total_ms, sum_ms));
  const double flops = options.work.batches * options.work.flops_per_batch();
  out << "the " << gemm_name(options.gemm) << " kernels alone: " << figure(gflops(flops, sums.kernel.median_ms), 0, 2)
      << " GFLOP/s; the serial run end to end: " << figure(gflops(flops, total_ms), 0, 2) << " GFLOP/s\n";
  const double longest = std::max({sums.h2d.median_ms, sums.kernel.median_ms, sums.d2h.median_ms});
  out << "an overlapped pipeline could approach the longest stage, " << figure(longest, 2) << " ms ("
      << fixed(total_ms / longest, 1) << "x less).\n";
}

}  // namespace csg::serial
