#include "04_graph_capture_gemm/lab/options.hpp"

#include "base/errors.hpp"

namespace csg::graphs {

CommonDefaults pinned_defaults() {
  CommonDefaults defaults;
  defaults.host_memory = HostMemory::pinned;
  return defaults;
}

std::optional<ArticleOptions> parse_article_options(StageCli& cli, int argc, char** argv) {
  add_pool_options(cli, /*with_sweep=*/false);
  const std::optional<CommonOptions> common = cli.parse_or_help(argc, argv);  // all checked before any CUDA call
  if (!common) return std::nullopt;
  return ArticleOptions{*common, read_pool_options(cli, *common, /*with_sweep=*/false)};
}

CommonDefaults own_workload_defaults() {
  CommonDefaults defaults = pinned_defaults();
  defaults.gemm_workload = false;
  return defaults;
}

CommonDefaults untimed_defaults() {
  CommonDefaults defaults = pinned_defaults();
  defaults.max_minutes = false;  // a capture or two and one launch
  return defaults;
}

void refuse_given(const StageCli& cli, std::initializer_list<const char*> names, const std::string& why) {
  for (const char* name : names) {
    if (cli.given(name)) throw UsageError(std::string("--") + name + " does not apply here: " + why);
  }
}

}  // namespace csg::graphs
