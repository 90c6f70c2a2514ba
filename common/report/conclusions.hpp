// The words that compare two measured times, chosen by the figures with a
// stated threshold, so that every sentence a stage prints about "faster",
// "slower" or "the same" follows from its own numbers. Plain arithmetic.
#pragma once

#include <string>

namespace csg {

// Times within this fraction of each other are called equal (3%: above the
// run-to-run spread of the suite's GPU medians on an H200, well under the
// effects the stages show).
inline constexpr double kEqualWithin = 0.03;

enum class Comparison { faster, same, slower };

// How `ms` compares with `reference_ms`: faster when it took less than
// reference × (1 - equal_within), slower when more than reference × (1 + equal_within).
Comparison compare_times(double ms, double reference_ms, double equal_within = kEqualWithin);

// "1.93x faster than", "about as fast as (within 3%)", "1.25x slower than":
// for "<A> took X ms, <phrase> <B>".
std::string compare_phrase(double ms, double reference_ms, double equal_within = kEqualWithin);

// "3%": a fraction as a whole percentage.
std::string percent_text(double fraction);

}  // namespace csg
