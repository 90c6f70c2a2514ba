#include "stream_count.hpp"

#include <algorithm>
#include <stdexcept>

#include "cli/pool_options.hpp"
#include "conclusions.hpp"
#include "measure/pipeline_bound.hpp"
#include "report/conclusions.hpp"
#include "report/table.hpp"

namespace csg::pool {
namespace {

constexpr int kMaxCountBatches = 100000;
constexpr int kMaxCountSize = 1024;
// The host's issue time is "most of the run" from this share on.
constexpr double kHostPaced = 0.9;
// Roughly what one call costs the host (a launch, an async copy, an event).
constexpr double kSecondsPerCall = 3e-6;

}  // namespace

void add_stream_count_options(StageCli& cli) {
  cli.add_text("count-sweep", "Pool sizes for the stream-count sweep (its own workload), or off",
               "1,2,4,8,16,32,64,128,256,512,1024", "LIST");
  cli.add_int("count-batches", "Batches of the stream-count sweep", 1000, 1, kMaxCountBatches);
  cli.add_int("count-size", "m = n = k of the stream-count sweep's GEMMs", 128, 1, kMaxCountSize);
}

StreamCountConfig read_stream_count_options(const StageCli& cli) {
  StreamCountConfig config;
  config.batches = static_cast<int>(cli.get_int("count-batches"));
  config.size = static_cast<int>(cli.get_int("count-size"));
  config.sizes.clear();
  const std::string text = cli.get_string("count-sweep");
  if (text == "off") return config;
  for (const long long streams : parse_int_list("count-sweep", text, 1, kMaxPoolStreams)) {
    config.sizes.push_back(static_cast<int>(streams));
  }
  std::sort(config.sizes.begin(), config.sizes.end());
  config.sizes.erase(std::unique(config.sizes.begin(), config.sizes.end()), config.sizes.end());
  return config;
}

double stream_count_seconds(const StreamCountConfig& config, const RepeatPlan& plan, const Rates& rates) {
  if (config.sizes.empty()) return 0.0;
  const WorkSeconds t = work_seconds(config.workload(), rates, false);
  const double calls = 3.0 * config.batches;
  double round = t.serial() + std::max(t.h2d, t.d2h);  // the one-stream sums and both ways
  for (const int streams : config.sizes) {
    const double issue = (calls + 2.0 * streams) * kSecondsPerCall;
    round += std::max(t.overlapped(), issue) + t.kernels + t.h2d + t.d2h + std::max(t.h2d, t.d2h);
  }
  return (plan.warmup + plan.repeats) * round;
}

std::string stream_count_mechanism(std::vector<CountPoint> points, int queues) {
  if (points.empty()) throw std::invalid_argument("stream_count_mechanism: no points");
  std::sort(points.begin(), points.end(), [](const CountPoint& a, const CountPoint& b) { return a.streams < b.streams; });
  const CountPoint best = *std::min_element(points.begin(), points.end(),
                                            [](const CountPoint& a, const CountPoint& b) { return a.ms < b.ms; });
  const CountPoint& largest = points.back();
  const double per_stream_us = largest.streams > best.streams
                                   ? 1000.0 * (largest.issue_ms - best.issue_ms) / (largest.streams - best.streams)
                                   : 0.0;
  const std::string issue_growth = "the host's time to issue a run went from " + fixed(best.issue_ms, 2) + " ms at " +
                                   std::to_string(best.streams) + " streams to " + fixed(largest.issue_ms, 2) +
                                   " ms at " + std::to_string(largest.streams) + " (" + fixed(per_stream_us, 2) +
                                   " us per added stream: its wait on the fork event and its join event)";
  const std::string sharing =
      largest.streams > queues ? "; " + std::to_string(largest.streams) + " streams share " + std::to_string(queues) +
                                     " hardware queues (CUDA_DEVICE_MAX_CONNECTIONS), so most of them only wait"
                               : "";
  if (largest.ms <= best.ms * (1.0 + kWorseBy)) {
    return "why: extra streams only waited: " + issue_growth + ", and the run's time stayed within " +
           percent_text(kWorseBy) + " of the best" + sharing + ".";
  }
  const double lost_ms = largest.ms - best.ms;
  const double issue_grew_ms = largest.issue_ms - best.issue_ms;
  const bool host_paced = largest.issue_ms >= kHostPaced * largest.ms || largest.limited_by == BoundPath::host_issue;
  if (host_paced && issue_grew_ms >= 0.5 * lost_ms) {
    return "why: the host sets the pace: " + issue_growth + "; at " + std::to_string(largest.streams) +
           " streams issuing alone takes " + percent_text(largest.issue_ms / largest.ms) +
           " of the run, so every added stream adds host time the GPU waits for" + sharing + ".";
  }
  return "why: the host's issue grew by only " + fixed(std::max(0.0, issue_grew_ms), 2) + " ms of the " +
         fixed(lost_ms, 2) + " ms the largest pool lost (" + issue_growth +
         "): the rest is lost on the GPU side, where many streams compete for the same queues and engines" + sharing +
         ".";
}

}  // namespace csg::pool
