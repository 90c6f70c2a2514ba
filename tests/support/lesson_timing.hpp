// The lesson tests' check that a figure a lesson prints times what it says:
// the lesson's own timed function and an independent timing of the same
// calls, taken here, in alternate rounds; the medians must agree within a
// factor. A timer started after the call returned, stopped before the work,
// or around other work reads far outside it.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "measure/stats.hpp"

namespace csg::testing {

struct SameTiming {
  double low = 0.25;           // the lesson's median at least low x the independent one
  double high = 4.0;           // and at most high x it
  double slack_ms = 0.05;      // plus this, above (a call of a few microseconds)
};

inline void expect_same_timing(const std::string& figure, std::function<Millis()> lesson,
                               std::function<Millis()> independent, int rounds = 9, SameTiming band = {}) {
  std::vector<Millis> by_lesson, by_test;
  for (int round = 0; round < rounds; ++round) {
    by_lesson.push_back(lesson());
    by_test.push_back(independent());
  }
  const double lesson_ms = summarize(by_lesson).median_ms;
  const double test_ms = summarize(by_test).median_ms;
  ASSERT_GT(test_ms, 0.0) << figure << ": the independent timing read nothing";
  EXPECT_GE(lesson_ms, band.low * test_ms)
      << figure << " misses most of what it times: " << lesson_ms << " ms against " << test_ms << " ms timed here";
  EXPECT_LE(lesson_ms, band.high * test_ms + band.slack_ms)
      << figure << " holds more than it times: " << lesson_ms << " ms against " << test_ms << " ms timed here";
}

}  // namespace csg::testing
