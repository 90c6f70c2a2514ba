// Made-up figures for the CPU tests of what the stages print and write.
#pragma once

#include <type_traits>

#include "experiment/report.hpp"
#include "measure/stats.hpp"
#include "report/device_info.hpp"

namespace csg::testing {

// A Summary of three samples, in this order: `low` x, 1 x and `high` x
// `median` ms. Its median is `median`; its minimum is `low` x and its
// maximum and p95 `high` x the median.
inline Summary ms(double median, double low = 0.99, double high = 1.01) {
  return summarize({Millis(median * low), Millis(median), Millis(median * high)});
}

// The report a subcommand's `write` makes of made-up figures, in a Report
// as the runner starts it.
template <class Config, class Figures>
Report report_of(const char* stage, const char* subcommand, void (*write)(const Config&, const Figures&, Report&),
                 const std::type_identity_t<Config>& config, const std::type_identity_t<Figures>& figures,
                 const DeviceInfo& device = DeviceInfo{}) {
  Report report(stage, subcommand, device);
  write(config, figures, report);
  return report;
}

}  // namespace csg::testing
