// Made-up figures for the CPU tests of what the stages print and write.
#pragma once

#include "measure/stats.hpp"

namespace csg::testing {

// A Summary of three samples, in this order: `low` x, 1 x and `high` x
// `median` ms. Its median is `median`; its minimum is `low` x and its
// maximum and p95 `high` x the median.
inline Summary ms(double median, double low = 0.99, double high = 1.01) {
  return summarize({Millis(median * low), Millis(median), Millis(median * high)});
}

}  // namespace csg::testing
