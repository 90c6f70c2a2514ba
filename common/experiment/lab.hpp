// What a subcommand's files use, in one include: the experiment frame and the
// layers below it that declarations call (options, estimates, timers, the
// pool and graph owners, the GEMMs and their checks, tables, verdicts), with
// the standard headers they use. A subcommand's .cpp includes its own header
// and this; the build precompiles it once per stage library. The lessons do
// not include it: their includes stay the few files the lesson reads.
#pragma once

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <span>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <cuda_runtime.h>
#include <nlohmann/json.hpp>

#include "base/enum_names.hpp"
#include "base/errors.hpp"
#include "base/interrupt.hpp"
#include "base/progress.hpp"
#include "base/text.hpp"
#include "base/units.hpp"
#include "batches.hpp"
#include "check.hpp"
#include "cli/options.hpp"
#include "cli/pool_options.hpp"
#include "cuda/graph.hpp"
#include "cuda/stream_pool.hpp"
#include "experiment/experiment.hpp"
#include "experiment/report.hpp"
#include "measure/estimate.hpp"
#include "measure/pipeline_bound.hpp"
#include "measure/stats.hpp"
#include "measure/timers.hpp"
#include "owners.hpp"
#include "report/conclusions.hpp"
#include "report/device_info.hpp"
#include "report/result.hpp"
#include "report/table.hpp"
#include "report/verdict.hpp"
#include "stage.hpp"
#include "workload/gemm.hpp"
