// The options several of stage 04's subcommands share, all checked before
// any CUDA call: pinned host memory by default (as stage 03: the pool needs
// page-locked memory to overlap), and the refusal of an option a subcommand
// would not use. (The timeline's are timeline/stage_timeline.hpp's, as in
// stages 01 and 03; a subcommand's own are in its folder.)
#pragma once

#include <initializer_list>
#include <optional>
#include <string>

#include "cli/options.hpp"
#include "cli/pool_options.hpp"
#include "experiment/experiment.hpp"
#include "measure/estimate.hpp"

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

// Throws UsageError naming the first of `names` that was given: StageCli
// offers them to every run (--warmup, --repeats), but a subcommand that does
// not use them says so; `why` says what it does instead.
void refuse_given(const StageCli& cli, std::initializer_list<const char*> names, const std::string& why);

}  // namespace csg::graphs
