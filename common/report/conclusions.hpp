// The words that compare two measured times, chosen by the figures with a
// stated threshold, so that every sentence a stage prints about "faster",
// "slower" or "the same" follows from its own numbers. Plain arithmetic.
#pragma once

#include <string>

#include "measure/pipeline_bound.hpp"
#include "report/verdict.hpp"

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

// The verdict of one such comparison: `id`, outcome "faster", "same" or
// "slower" (compare_times), figures {"ms", "reference_ms", "ratio" (ms /
// reference_ms)}, threshold `equal_within`, and `sentence` (the caller's
// words, usually built with compare_phrase).
Verdict comparison_verdict(std::string id, double ms, double reference_ms, std::string sentence,
                           double equal_within = kEqualWithin);
const char* to_string(Comparison comparison);  // "faster", "same", "slower"

// A run well under its bound (below kLooseBound of it): every path of the
// bound is one resource alone or the busiest stream alone, so the time the
// run took beyond the longest of them went to its streams waiting on each
// other (a copy engine or the SMs busy with another stream's work), which no
// single path measures. Says how much, naming the two longest paths; empty
// when the run reached kLooseBound of its bound or more.
inline constexpr double kLooseBound = 0.90;
std::string bound_gap_text(const std::string& variant, double achieved_ms, const PipelineBound& bound);

// "3%": a fraction as a whole percentage.
std::string percent_text(double fraction);

}  // namespace csg
