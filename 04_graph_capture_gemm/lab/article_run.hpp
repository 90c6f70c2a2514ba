// Around the article's steps, what every subcommand on its workload does the
// same way before the first capture: check that its buffers fit and that it
// would not run longer than --max-minutes (exit 2 with the figures, before
// anything large is allocated), then create the pool and fill the buffers.
#pragma once

#include "batches.hpp"
#include "cuda/stream_pool.hpp"
#include "measure/estimate.hpp"
#include "04_graph_capture_gemm/lab/options.hpp"
#include "stage.hpp"
#include "workload/gemm.hpp"

namespace csg::graphs {

// One run of the workload through the pool at `rates`: the longest of its
// three kinds of work from pinned memory (they overlap), their sum from
// pageable memory (they don't).
double pipeline_seconds(const CommonOptions& options, const Rates& rates);

// `sets` sets of the workload's buffers (device slots as the pool lays them
// out), and cuBLAS's workspaces for the pool's streams and `extra_streams` more.
MemoryNeeds article_memory(const ArticleOptions& options, int sets = 1, int extra_streams = 0);

// A subcommand's estimate of its whole run at this GPU's rates.
using Estimate = double (*)(const CommonOptions& options, const Rates& rates);

// Refuses (ResourceError or UsageError: exit 2) a run whose `needs` don't fit
// or whose `estimate` (nullptr: none) is over --max-minutes at the rates of
// `gemm` on this GPU; then prints the pool's warnings on stderr.
void check_size(const ArticleOptions& options, const Gemm& gemm, const MemoryNeeds& needs, Estimate estimate);

// The article's work, ready for the steps: the pool (blocking streams, as
// the article's cudaStreamCreate gives), each stream prepared for `gemm`, and
// one set of buffers filled from --seed.
struct ArticleWork {
  ArticleWork(const ArticleOptions& options, const Gemm& gemm);
  const StreamPool pool;
  BatchBuffers buffers;
};

}  // namespace csg::graphs
