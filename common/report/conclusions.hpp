// The words that compare two measured times, chosen by the figures with a
// stated threshold, so that every sentence a stage prints about "faster",
// "slower" or "the same" follows from its own numbers. Plain arithmetic.
#pragma once

#include <string>
#include <type_traits>

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

// The verdict of one such comparison: outcome "faster", "same" or "slower",
// figures {"ms", "reference_ms", "ratio"}, threshold `equal_within`, and the
// caller's `sentence` (usually built with compare_phrase).
Verdict comparison_verdict(std::string id, double ms, double reference_ms, std::string sentence,
                           double equal_within = kEqualWithin);
const char* to_string(Comparison comparison);  // "faster", "same", "slower"

// Of three, the words for the case `comparison` names: faster, the same, slower.
std::string by_comparison(Comparison comparison, const std::string& faster, const std::string& same,
                          const std::string& slower);
// The same for a verdict's own enum (the regime map's winner, a claim's verdict).
template <class Enum>
  requires std::is_enum_v<Enum>
constexpr Enum by_comparison(Comparison comparison, Enum faster, Enum same, Enum slower) {
  return comparison == Comparison::faster ? faster : comparison == Comparison::same ? same : slower;
}

// A run below kLooseBound of its bound: the time beyond its longest path went
// to its streams waiting on each other, which no single path measures. Says
// how much, naming the two longest paths; empty for a run closer to its bound.
inline constexpr double kLooseBound = 0.90;
std::string bound_gap_text(const std::string& variant, double achieved_ms, const PipelineBound& bound);

// "3%": a fraction as a whole percentage.
std::string percent_text(double fraction);

}  // namespace csg
