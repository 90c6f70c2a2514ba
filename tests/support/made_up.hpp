// Made-up figures for the CPU tests of what the stages print and write.
#pragma once

#include <type_traits>

#include <string>

#include "experiment/report.hpp"
#include "matchers.hpp"
#include "measure/stats.hpp"
#include "report/device_info.hpp"

namespace csg::testing {

// A Summary of three samples, in this order: `low` x, 1 x and `high` x
// `median` ms. Its median is `median`; its minimum is `low` x and its
// maximum and p95 `high` x the median.
inline Summary ms(double median, double low = 0.99, double high = 1.01) {
  return summarize({Millis(median * low), Millis(median), Millis(median * high)});
}

// A Summary whose every statistic is `median` ms, as if over `samples` runs.
inline Summary flat(double median, int samples = 10) {
  Summary s;
  s.median_ms = s.min_ms = s.max_ms = s.p95_ms = median;
  s.samples = samples;
  return s;
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

// A run whose check failed: the report does not pass, its verification
// names the failure, and so does the console where `console_says` is given.
inline void expect_failed(const Report& report, const std::string& method_says, const std::string& console_says = "") {
  EXPECT_FALSE(report.passed());
  EXPECT_THAT(report.result.verification.method, HasSubstr(method_says));
  EXPECT_THAT(report.console(), HasSubstr(console_says));
}

}  // namespace csg::testing
