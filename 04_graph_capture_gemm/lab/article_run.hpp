// Around the article's steps, what every subcommand on its workload does the
// same way before the first capture: its pool's flags, what its buffers need
// and how long it takes (the runner refuses, exit 2, before anything large
// is allocated), then the pool created and the buffers filled.
#pragma once

#include "04_graph_capture_gemm/lab/options.hpp"
#include "experiment/lab.hpp"

namespace csg::graphs {

// One run of the workload through the pool at `rates`: the longest of its
// three kinds of work from pinned memory (they overlap), their sum from
// pageable memory (they don't).
double pipeline_seconds(const CommonOptions& options, const Rates& rates);

// `sets` sets of the workload's buffers (device slots as the pool lays them
// out), and cuBLAS's workspaces for the pool's streams and `extra_streams` more.
MemoryNeeds article_memory(const ArticleOptions& options, int sets = 1, int extra_streams = 0);

// ---- a declaration on the article's workload (experiment/experiment.hpp) ----
// Its options: the pool's flags (--streams, --device-buffers; no sweep).
void add_article_options(StageCli& cli);
ArticleOptions read_article_options(const StageCli& cli, CommonOptions& common);
// A subcommand that sets its own workload: --kernel (naive by default) and the
// pool's flags; read after common.work is set, so the kernel is checked against it.
void add_kernel_article_options(StageCli& cli);
ArticleOptions read_kernel_article_options(const StageCli& cli, CommonOptions& common);
// What `sets` sets of buffers and cuBLAS's workspaces need (article_memory).
Needs article_needs(const ArticleOptions& options, int sets = 1, int extra_streams = 0);
// `seconds` at this GPU's rates of the run's kernel (nullptr: a run that
// times nothing, estimated 0), named by the workload; and the pool's
// warnings on stderr, once, before anything is measured.
Estimate article_estimate(const ArticleOptions& options, double (*seconds)(const CommonOptions&, const Rates&));

// The article's work, ready for the steps: the pool (blocking streams, as
// the article's cudaStreamCreate gives), each stream prepared for `gemm`, and
// one set of buffers filled from --seed.
struct ArticleWork {
  ArticleWork(const ArticleOptions& options, const Gemm& gemm);
  const StreamPool pool;
  BatchBuffers buffers;
};

}  // namespace csg::graphs
