// The conditional subcommand in words, table and JSON (conditional.hpp
// measures), and its options. Pure C++: the CPU tests call these on made-up figures.
//   --cond-iterations LIST  loop lengths N (default 10,100,1000,10000)
//   --cond-size N           m = n = k of the loop body's GEMM (64)
//   --cond-unroll-max N     longest unrolled graph; 0: none (10000)
//   --cond-buckets LIST     the SWITCH part's GEMM sizes (32,64,128,256)
//   --cond-requests N       requests per SWITCH run; 0: no SWITCH part (200)
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/options.hpp"
#include "04_graph_capture_gemm/lab/conditional/conditional.hpp"
#include "04_graph_capture_gemm/lab/launch_costs.hpp"
#include "report/result.hpp"

namespace csg::graphs {

void add_conditional_options(StageCli& cli);
// After cli.parse(): lists sorted. Throws UsageError for an empty or repeated
// item, a value out of range, or more buckets than kMaxSwitchBuckets.
ConditionalConfig read_conditional_options(const StageCli& cli);
inline constexpr int kMaxSwitchBuckets = 16;

// A difference counts when one side is this many times the other (10%).
inline constexpr double kClearMargin = 1.10;

// How the WHILE node fares against one rival at one N: the rival's time
// over the node's; wins at kClearMargin and above, costs more at
// 1 / kClearMargin and below, even between.
enum class Outcome { wins, even, costs_more };
Outcome outcome_of(double rival_ms, double while_ms);

// The WHILE node against `rival` over every N where both were measured, in
// one phrase: "wins at every N (9.1x to 12x)", "costs more at every N (0.62x
// to 0.85x)", "within 10% at every N", "wins from N = 100 on (...)", "costs
// more from N = 100 on (...)", "mixed: wins at N = 10, costs more at N =
// 1000" or "not measured".
std::string versus_text(const LoopFigures& figures, LoopVariant rival);
// The same as one word for JSON: "wins", "costs_more", "even", "wins_from",
// "costs_more_from", "mixed", "not_measured".
std::string versus_word(const LoopFigures& figures, LoopVariant rival);

// Median total of a variant over N, in µs per iteration.
double per_iteration_us(const Summary& summary, int iterations);
// fixed + per-iteration x N through a variant's points (fit_line).
LineFit loop_fit(const LoopFigures& figures, LoopVariant variant);

// The SWITCH part in one sentence: "the SWITCH node wins: 9.8 µs per request
// against 31 µs when the host reads the size back and chooses (3.2x)", "...
// costs more than the host's choice ...", "within 10%: the SWITCH node does not
// pay off here ...", or "not run (--cond-requests 0)".
std::string switch_text(const SwitchFigures& figures);
std::string switch_word(const SwitchFigures& figures);  // "wins", "costs_more", "even", "not_run"

// Measurements cond_<body>_<variant> (params {"iterations"}) and, with the
// SWITCH part, switch_device_chosen and switch_host_chosen (params
// {"requests", "buckets"}); bounds <body>_<variant>_us_per_iteration (the
// fit's slope) and switch_{device,host}_us_per_request.
StageResult conditional_result(const DeviceInfo& device, const CommonOptions& options,
                               const ConditionalConfig& config, const ConditionalCosts& costs);
// subcommand_json(result, "conditional") and "conditional": its own section (docs/conditional.md).
nlohmann::json conditional_json(const StageResult& result, const ConditionalConfig& config,
                                const ConditionalCosts& costs);
void print_conditional(std::ostream& out, const StageResult& result, const CommonOptions& options,
                       const ConditionalConfig& config, const ConditionalCosts& costs);

}  // namespace csg::graphs
