// The options several of stage 04's subcommands share, all checked before
// any CUDA call: pinned host memory by default (as stage 03: the pool needs
// page-locked memory to overlap), the tiny work's, the launch chains', and
// the refusal of an option a subcommand would not use. (The timeline's are
// timeline/stage_timeline.hpp's, as in stages 01 and 03.)
//   --tiny-count N        empty kernels and tiny GEMMs (tiny-work)
//   --tiny-size N         m = n = k of the tiny GEMMs (tiny-work)
//   --launch-chains LIST  chain lengths of empty kernels (launch-chains)
//   --launch-repeats N    timed repeats per chain length and figure (launch-chains)
#pragma once

#include <initializer_list>
#include <optional>
#include <string>

#include "cli/options.hpp"
#include "cli/pool_options.hpp"
#include "04_graph_capture_gemm/lab/launch_costs.hpp"
#include "04_graph_capture_gemm/lab/tiny-work/launch_overhead.hpp"

namespace csg::graphs {

// The defaults of a subcommand on the article's workload: pinned host memory.
CommonDefaults pinned_defaults();
// The defaults of a subcommand that sets its own workload with its own
// options: pinned host memory, no --batches, --m, --n, --k (nor --kernel,
// --tf32: it adds --kernel itself where it offers one).
CommonDefaults own_workload_defaults();

// A subcommand's common options and its pool's.
struct ArticleOptions {
  CommonOptions common;
  PoolConfig pool;
};

// The start of a subcommand on the article's pool: adds the pool's options
// (add_pool_options, without a sweep) to `cli`, which has its own, and
// parses; after --help, prints it and returns nothing. Throws UsageError.
std::optional<ArticleOptions> parse_article_options(StageCli& cli, int argc, char** argv);

// A subcommand that times nothing (it captures, launches once and reports):
// pinned host memory, no --max-minutes. It refuses --warmup and --repeats
// (StageCli offers them to every run) with refuse_given, saying what it does instead.
CommonDefaults untimed_defaults();

// --tiny-count N (default 1000), --tiny-size N (64), and the pool's --streams
// N (8) alone: the tiny GEMMs have one device slot each.
void add_tiny_options(StageCli& cli);
TinyConfig read_tiny_options(const StageCli& cli, const CommonOptions& options);

// --launch-chains LIST (default 10,100,1000,10000), --launch-repeats N (31).
void add_launch_options(StageCli& cli);
// After cli.parse(): the chain lengths sorted. Throws UsageError for an item
// out of [1, 100000], an empty item or a length given twice.
LaunchCostConfig read_launch_options(const StageCli& cli);

// Throws UsageError naming the first of `names` that was given: StageCli
// offers them to every run (--warmup, --repeats), but a subcommand that does
// not use them says so; `why` says what it does instead.
void refuse_given(const StageCli& cli, std::initializer_list<const char*> names, const std::string& why);

}  // namespace csg::graphs
