// Startup: the figures and what they say. startup_graphs.hpp measures, for
// each bucket count K and each way of holding the buffers, what building the
// K graphs costs; this file turns those figures into the table, the
// conclusion (chosen by the figures with stated thresholds), the JSON
// section and the measurements. Plain arithmetic and text: the CPU tests
// feed every branch made-up figures.
//
// The two ways of holding the buffers:
//   shared    one pool of buffers sized for the top bucket (max batches),
//             allocated once; every graph captures batches 0..b-1 of it (the
//             graphs run one at a time, as a serving engine's do)
//   separate  each bucket its own buffers of b batches: what a graph costs
//             when nothing is shared
// Both use the article's layout, one device A and C per batch.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "measure/stats.hpp"
#include "report/result.hpp"
#include "04_graph_capture_gemm/lab/startup/startup_plan.hpp"

namespace csg::graphs {

enum class BufferLayout { shared, separate };
inline constexpr BufferLayout kAllBufferLayouts[] = {BufferLayout::shared, BufferLayout::separate};
// "shared", "separate": the JSON's names.
const char* to_string(BufferLayout layout);

// The startup budget is judged on this layout: the one a serving engine uses.
inline constexpr BufferLayout kBudgetLayout = BufferLayout::shared;
// Separate buffers are called dearer than the shared pool past this ratio of
// device memory (buffers + graphs); within it, about the same.
inline constexpr double kMemoryRatioThreshold = 1.1;

// One bucket count, one layout. Each Summary is over the rounds, each sample
// the sum over the K graphs of host time (steady_clock).
struct StartupCell {
  Summary capture;       // cudaStreamBeginCapture ... cudaStreamEndCapture
  Summary instantiate;   // cudaGraphInstantiateWithParams
  Summary upload;        // cudaGraphUpload + stream synchronise
  Summary total;         // the three together: what startup costs
  Summary launches;      // every graph launched once + synchronise (the verified run; not startup)
  // The buffers' device bytes, counted (shared: the one pool, allocated once
  // before everything). The execs' memory is the first build's (FirstBuild).
  std::int64_t buffer_bytes = 0;
  VerifyResult check;  // every graph's outputs, every round: passed, or the first failure
};

// The process's first build of the most buckets on the shared pool, before
// the rows: host ms of its parts summed over its graphs, and the device
// memory its execs took (cudaMemGetInfo: free memory before its first
// instantiate minus after its last upload). The driver keeps that memory for
// the graphs built later, so the rows read none of their own.
struct FirstBuild {
  int buckets = 0;
  long long batches_captured = 0;
  double capture_ms = 0.0;
  double instantiate_ms = 0.0;
  double upload_ms = 0.0;
  std::int64_t graph_bytes = 0;
  VerifyResult check;
  double total_ms() const { return capture_ms + instantiate_ms + upload_ms; }
};
// The first build is called dearer (or cheaper) than the same graphs built
// again past this ratio either way; within it, about the same.
inline constexpr double kFirstBuildRatioThreshold = 1.1;

struct StartupRow {
  int buckets = 0;
  std::vector<int> sizes;           // even_buckets(buckets, max_batches)
  long long batches_captured = 0;   // captured_batches(sizes)
  double waste_uniform = 0.0;       // padding_waste of the uniform mix
  double waste_skewed = 0.0;        // and of the skewed one
  StartupCell shared;
  StartupCell separate;
  const StartupCell& cell(BufferLayout layout) const { return layout == BufferLayout::shared ? shared : separate; }
  StartupCell& cell(BufferLayout layout) { return layout == BufferLayout::shared ? shared : separate; }
};

struct StartupFigures {
  StartupConfig config;
  FirstBuild first;              // of config.bucket_counts.back() buckets
  std::vector<StartupRow> rows;  // ascending bucket counts
  double mean_uniform = 0.0;     // the mixes' mean request, in batches
  double mean_skewed = 0.0;
};

// The rows' padding waste (and the mixes' means) from config's request mixes:
// pure, so made-up rows can be filled too.
void fill_padding(StartupFigures& figures);

// Where the budget falls, on one layout's total (median) startup: the first
// (smallest) bucket count over it, and the most buckets within it below that
// one (the row before it; the last row when none is over).
struct BudgetVerdict {
  std::optional<std::size_t> first_over;
  std::optional<std::size_t> most_within;
};
BudgetVerdict budget_verdict(const StartupFigures& figures, BufferLayout layout);

// The conclusion, one sentence each:
// budget_text: "no bucket count exceeded the budget ...", "256 buckets are the
// first over the 500 ms budget ...; the most buckets within it, 128, ..." or
// "even 8 buckets exceed the budget ...", with the padding waste of the layout
// chosen and the separate buffers' verdict in brackets.
std::string budget_text(const StartupFigures& figures);
// parts_text: which of capture, instantiate, upload takes the largest share
// of the largest bucket count's startup (shared pool), with all three shares.
std::string parts_text(const StartupFigures& figures);
// first_build_text: the process's first build against the same graphs built
// again (the last row's shared pool), in total and in its largest part:
// dearer or cheaper past kFirstBuildRatioThreshold, else about the same.
std::string first_build_text(const StartupFigures& figures);
// memory_text: per graph, the device memory of an exec from the first build
// (or "below what cudaMemGetInfo resolves" when the delta is 0 or less), and
// separate buffers against the shared pool at the largest bucket count, the
// same graphs' memory added to both: dearer past kMemoryRatioThreshold, else
// about the same.
std::string memory_text(const StartupFigures& figures);

void print_startup(std::ostream& out, const StartupFigures& figures);

// The measurements, per row and layout: startup_capture, startup_instantiate,
// startup_upload, startup_total (costs) and startup_launches (checked), params
// {"buckets", "layout", "batches_captured"}; and startup_first_build (a cost
// of one sample), params {"buckets", "layout": "shared", "batches_captured"}.
std::vector<Measurement> startup_measurements(const StartupFigures& figures);
// The first build's check, then every cell's, in row order, shared before separate.
std::vector<const VerifyResult*> startup_checks(const StartupFigures& figures);
// "startup_<layout>_ms_per_graph_k<K>" and "startup_<layout>_us_per_batch_k<K>".
nlohmann::json startup_bounds(const StartupFigures& figures);
// The "startup" section: the config (layout "even", the mixes as text, the
// budget and its layout), the first build (its parts, graph bytes, verified),
// each row (sizes, padding waste, each layout's medians, per graph and per
// batch, buffer bytes, verified), the budget verdict per layout (bucket
// counts or null) and the conclusion's sentences.
nlohmann::json startup_json(const StartupFigures& figures);

}  // namespace csg::graphs
