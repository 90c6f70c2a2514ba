#include "04_graph_capture_gemm/lab/article_run.hpp"

#include "04_graph_capture_gemm/lab/graph_steps.hpp"
#include "experiment/lab.hpp"

namespace csg::graphs {

double pipeline_seconds(const CommonOptions& options, const Rates& rates) {
  const bool pageable = options.host_memory == HostMemory::pageable;
  const WorkSeconds t = work_seconds(options.work, rates, pageable);
  return pageable ? t.serial() : t.overlapped();
}

MemoryNeeds article_memory(const ArticleOptions& options, int sets, int extra_streams) {
  const CommonOptions& common = options.common;
  const MemoryNeeds one_set =
      memory_needs(common.work, common.host_memory, device_slots_for(options.pool, common.work.batches));
  MemoryNeeds needs = one_set;
  for (int set = 1; set < sets; ++set) needs = combined(needs, one_set);
  needs.device_bytes += gemm_device_bytes(common.gemm, options.pool.streams + extra_streams);
  return needs;
}

void add_article_options(StageCli& cli) { add_pool_options(cli, /*with_sweep=*/false); }

ArticleOptions read_article_options(const StageCli& cli, CommonOptions& common) {
  return {common, read_pool_options(cli, common, /*with_sweep=*/false)};
}

void add_kernel_article_options(StageCli& cli) {
  add_kernel_option(cli, GemmKernel::naive);
  add_article_options(cli);
}

ArticleOptions read_kernel_article_options(const StageCli& cli, CommonOptions& common) {
  read_kernel_option(cli, common);
  return read_article_options(cli, common);
}

Needs article_needs(const ArticleOptions& options, int sets, int extra_streams) {
  return {article_memory(options, sets, extra_streams), "try fewer --batches, or --device-buffers slots"};
}

Estimate article_estimate(const ArticleOptions& options, double (*seconds)(const CommonOptions&, const Rates&)) {
  const CommonOptions& common = options.common;
  for (const std::string& warning : options.pool.warnings) std::cerr << warning << '\n';
  const double estimate = seconds ? seconds(common, measure_rates(Gemm(common.gemm), common.work.shape)) : 0.0;
  return {estimate, describe_workload(common.work, common.gemm)};
}

ArticleWork::ArticleWork(const ArticleOptions& options, const Gemm& gemm)
    : pool(options.pool.streams),
      buffers(options.common.work, options.common.host_memory,
              device_slots_for(options.pool, options.common.work.batches)) {
  prepare_pool(gemm, pool);
  progress("filling " + plural(options.common.work.batches, "batch"));
  buffers.fill_inputs(options.common.seed);
}

}  // namespace csg::graphs
