// Stage 01's lesson: its options, the check of its size, and the report of
// what main.cu measured. The figures go through the stage's serial report
// (report.hpp), so that the lesson and the laboratory's kernels share one
// table, one verdict and one results schema, and end as every run ends
// (experiment/report.hpp).
#include "lesson.hpp"

#include <iostream>

#include "lesson_report.hpp"

#include "cli/options.hpp"
#include "measure/estimate.hpp"
#include "report.hpp"
#include "report/device_info.hpp"
#include "workload/gemm.hpp"

namespace csg::lesson01 {
namespace {

// The lesson's options as the laboratory's report reads them.
CommonOptions common_options(const Options& options) {
  return csg::common_options(options, options.work, options.host_memory);
}

}  // namespace

std::optional<Options> parse_options(int argc, char** argv) {
  StageCli cli(kStage,
               "The article's first timeline: per batch cudaMemcpy H2D, gemm_naive and cudaMemcpy D2H on the legacy "
               "default stream, one after the other; the serial total against the sum of the three stages alone.",
               lesson_defaults(HostMemory::pageable, /*host_memory_choice=*/true));  // the article's malloc
  const std::optional<CommonOptions> common = cli.parse_or_help(argc, argv, laboratory_help(kStage, laboratory()));
  if (!common) return std::nullopt;
  return Options{lesson_options(*common), common->work, common->host_memory};
}

void check_size(const Options& options) {
  const Workload& w = options.work;
  check_fits(memory_needs(w, options.host_memory), "try fewer --batches or smaller --m, --n, --k");
  const Gemm naive;
  check_estimate(serial::estimate_seconds(common_options(options), measure_rates(naive, w.shape), false),
                 options.max_minutes, describe_workload(w, GemmChoice{}));
}

bool report(const Options& options, const Figures& figures) {
  return report(std::cout, options, query_device_info(/*device=*/0), figures);  // require_device chose it
}

bool report(std::ostream& out, const Options& options, const DeviceInfo& device, const Figures& figures) {
  const StageSums sums(summarize(figures.h2d_sum), summarize(figures.kernel_sum), summarize(figures.d2h_sum));
  Report report(kStage, "", device);
  serial::report_serial(report, common_options(options), summarize(figures.serial), sums, figures.serial_check,
                        figures.sums_check);
  if (options.host_memory == HostMemory::pageable) {
    report.out() << "the article's next step: " << kStage << " --host-memory pinned (cudaMallocHost, not malloc)\n";
  }
  report.out() << "beyond the article: " << kStage << " --help lists the laboratory (faster kernels, a timeline)\n";
  return report.finish(out, options.json_path) == kExitOk;
}

}  // namespace csg::lesson01
