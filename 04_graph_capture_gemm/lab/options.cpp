#include "04_graph_capture_gemm/lab/options.hpp"

#include "base/errors.hpp"

namespace csg::graphs {

CommonDefaults pinned_defaults() {
  CommonDefaults defaults;
  defaults.host_memory = HostMemory::pinned;
  return defaults;
}

CommonDefaults own_workload_defaults(bool rounds) {
  CommonDefaults defaults = pinned_defaults();
  defaults.gemm_workload = false;
  defaults.rounds = rounds;
  return defaults;
}

CommonDefaults untimed_defaults() {
  CommonDefaults defaults = pinned_defaults();
  defaults.max_minutes = false;  // a capture or two and one launch
  defaults.rounds = false;       // nothing timed in rounds
  return defaults;
}

}  // namespace csg::graphs
