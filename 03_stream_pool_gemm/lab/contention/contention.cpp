#include "03_stream_pool_gemm/lab/competition.hpp"
#include "experiment/lab.hpp"

namespace csg::pool {
namespace {

constexpr const char* kAbout = R"(
contention: two streams' kernels with little and with much shared memory per block

Two streams, each launching one kernel of one block per SM that holds its SM for a fixed time: with
little shared memory per block both kernels' blocks fit on an SM together, with more than half an
SM's they queue. Each round times both alone and on two streams at once.
)";

constexpr const char* kRuns = R"(
qfc  -
t    tiny  ctest=whole_gpu --warmup 0 --repeats 2
s    -     --warmup 0 --repeats 1
)";

// Per timed or warm-up run of a contention variant: launch, events, the check.
constexpr double kContentionRunOverheadUs = 60.0;

}  // namespace

double concurrency(const ContentionVariant& variant) {
  if (variant.together.median_ms <= 0.0) return 0.0;
  return 2.0 * variant.alone.median_ms / variant.together.median_ms;
}

double contention_seconds(const ContentionConfig& c) {
  // Per round: each of the two variants alone (one kernel time) and on two
  // streams (up to two kernel times).
  return competition_seconds(c.plan, 2.0 * (3.0 * c.kernel_us + 2.0 * kContentionRunOverheadUs));
}

// ---- the verdict -------------------------------------------------------------------------

std::string_view to_string(ContentionVerdict verdict) {
  return name_of(verdict, {"not_verified", "not_exclusive", "no_concurrency", "holds", "partly", "not_seen"});
}

Overlap classify_concurrency(double c) {
  if (c >= kSideBySide) return Overlap::side_by_side;
  if (c <= kSerialised) return Overlap::serialised;
  return Overlap::partly;
}

ContentionVerdict judge_contention(const ContentionResult& r) {
  if (!r.verified) return ContentionVerdict::not_verified;
  if (r.large.blocks_per_sm >= 2) return ContentionVerdict::not_exclusive;
  if (classify_concurrency(concurrency(r.small)) != Overlap::side_by_side) return ContentionVerdict::no_concurrency;
  switch (classify_concurrency(concurrency(r.large))) {
    case Overlap::serialised: return ContentionVerdict::holds;
    case Overlap::partly: return ContentionVerdict::partly;
    case Overlap::side_by_side: break;
  }
  return ContentionVerdict::not_seen;
}

Verdict contention_verdict(const ContentionResult& r) {
  const double small = concurrency(r.small);
  const double large = concurrency(r.large);
  const std::string large_memory = format_bytes(std::uint64_t(r.large.shared_bytes)) + " of shared memory per block";
  const std::string small_text = "with no shared memory the two streams' kernels ran side by side (concurrency " +
                                 fixed(small, 2) + ", " + fixed(kSideBySide, 1) + " or more)";
  const ContentionVerdict judged = judge_contention(r);
  Verdict verdict{.id = "contention.shared_memory",
                  .outcome = std::string(to_string(judged)),
                  .figures = {{"small_concurrency", small},
                              {"large_concurrency", large},
                              {"large_shared_bytes", r.large.shared_bytes},
                              {"large_blocks_per_sm", r.large.blocks_per_sm},
                              {"shared_per_sm_bytes", r.shared_per_sm_bytes}},
                  .threshold = {{"side_by_side", kSideBySide}, {"serialised", kSerialised}}};
  switch (judged) {
    case ContentionVerdict::not_verified:
      verdict.sentence = "no conclusion about contention: a check failed (" +
             (r.failure.empty() ? std::string("verification failed") : r.failure) + ").";
      break;
    case ContentionVerdict::not_exclusive:
      verdict.sentence = "the large kernel still fits " + plural(r.large.blocks_per_sm, "block") + " per SM (" +
             large_memory + ", " + format_bytes(std::uint64_t(r.shared_per_sm_bytes)) +
             " per SM),\n  so nothing kept the two streams apart (concurrency " + fixed(small, 2) + " small, " +
             fixed(large, 2) + " large): no resource limit to show\n  on this GPU.";
      break;
    case ContentionVerdict::no_concurrency:
      verdict.sentence = "even with no shared memory the two streams' kernels did not run side by side (concurrency " +
             fixed(small, 2) + ", below " + fixed(kSideBySide, 1) +
             "):\n  something other than resources serialised them (streams sharing one hardware queue, "
             "CUDA_DEVICE_MAX_CONNECTIONS=1,\n  or a GPU running one kernel at a time), so the resource effect can't "
             "be read from this run.";
      break;
    case ContentionVerdict::holds:
      verdict.sentence = small_text + ";\n  with " + large_memory + " only one block fits per SM (" +
             format_bytes(std::uint64_t(r.shared_per_sm_bytes)) + " per SM), and the second\n  stream's kernel "
             "waited for the first (concurrency " + fixed(large, 2) + ", " + fixed(kSerialised, 1) +
             " or less): kernels of several streams that\n  together need more shared memory than the SMs have are "
             "queued. The article's claim holds here.";
      break;
    case ContentionVerdict::partly:
      verdict.sentence = small_text + ";\n  with " + large_memory + " the kernels partly overlapped (concurrency " +
             fixed(large, 2) + ", between " + fixed(kSerialised, 1) + "\n  and " + fixed(kSideBySide, 1) +
             "): the second kernel's blocks started as the first's finished on some SMs. The article's claim\n  "
             "holds only in part here.";
      break;
    case ContentionVerdict::not_seen:
      verdict.sentence = small_text + ";\n  with " + large_memory + " they still ran side by side (concurrency " +
             fixed(large, 2) + "):\n  the article's claim does not hold on this GPU at this size.";
      break;
  }
  return verdict;
}

// ---- the report --------------------------------------------------------------------------

namespace {

// Every figure: config, device figures, both variants' summaries in ms, the concurrencies, the verdict's outcome.
nlohmann::json contention_json(const ContentionResult& r) {
  auto variant = [](const ContentionVariant& v) {
    return nlohmann::json{{"shared_bytes", v.shared_bytes},
                          {"blocks_per_sm", v.blocks_per_sm},
                          {"alone", summary_json(v.alone)},
                          {"together", summary_json(v.together)},
                          {"concurrency", concurrency(v)}};
  };
  return {
      {"name", "shared_memory_contention"},
      {"config",
       {{"kernel_us", r.config.kernel_us},
        {"threads", r.config.threads},
        {"warmup", r.config.plan.warmup},
        {"repeats", r.config.plan.repeats}}},
      {"sm_count", r.sm_count},
      {"blocks_per_kernel", r.blocks},
      {"shared_per_sm_bytes", r.shared_per_sm_bytes},
      {"shared_per_block_max_bytes", r.shared_per_block_max_bytes},
      {"variants", {{"small", variant(r.small)}, {"large", variant(r.large)}}},
      {"verified", r.verified},
      {"failure", failure_json(r.verified, r.failure)},
      {"verdict", std::string(to_string(judge_contention(r)))},
  };
}

}  // namespace

void report_contention(const ContentionConfig& /*config*/, const ContentionResult& r, Report& report) {
  const ContentionConfig& c = r.config;
  std::ostream& out = report.out();
  out << "\ntwo streams competing for shared memory: each kernel " << plural(r.blocks, "block") << " (one per SM, "
      << plural(r.sm_count, "SM") << ") of " << plural(c.threads, "thread") << "\n  holding its SM " << c.kernel_us
      << " us; " << format_bytes(std::uint64_t(r.shared_per_sm_bytes)) << " of shared memory per SM, at most "
      << format_bytes(std::uint64_t(r.shared_per_block_max_bytes)) << " per block;\n  median of "
      << plural(c.plan.repeats, "round") << " after " << c.plan.warmup << " warm-up\n";
  struct Row {
    const char* name;
    const ContentionVariant* variant;
  };
  const Row rows[] = {{"small", &r.small}, {"large", &r.large}};
  report.table(table_of<Row>(
      {{"kernel", [](const Row& w) { return std::string(w.name); }},
       {"shared memory per block", [](const Row& w) { return format_bytes(std::uint64_t(w.variant->shared_bytes)); }},
       {"blocks per SM", [](const Row& w) { return std::to_string(w.variant->blocks_per_sm); }},
       {"alone us", [](const Row& w) { return us(w.variant->alone.median_ms); }},
       {"on two streams us", [](const Row& w) { return us(w.variant->together.median_ms); }},
       {"concurrency", [](const Row& w) { return fixed(concurrency(*w.variant), 2); }}},
      rows));
  out << "concurrency = 2 x alone / on two streams: 2 when the streams' kernels run side by side, 1 when one waits\n";
  nlohmann::json figures = contention_json(r);
  figures["conclusion"] = report.verdict(contention_verdict(r)).sentence;
  report.result.config = figures.at("config");
  verify_runs(report.result, r.verified, r.failure, 4 * (c.plan.warmup + c.plan.repeats), "every block's marker");
  report.sections["shared_memory_contention"] = figures;
}

namespace {

ContentionConfig read(const StageCli& /*cli*/, CommonOptions& common) {
  return {.plan = common.plan};
}

// A few hundred bytes of markers: nothing to check for memory.
Estimate estimate(const ContentionConfig& config, int /*device*/) {
  return {contention_seconds(config),
          "two streams' kernels with small and with large shared memory per block, alone and together"};
}

const Experiment<ContentionConfig, ContentionResult> kExperiment{.about = kAbout, .runs = kRuns,
    .defaults = competition_defaults(), .read = read, .estimate = estimate, .measure = measure_contention,
    .report = report_contention};

}  // namespace

extern const Subcommand kContention = make_subcommand<kExperiment>();

}  // namespace csg::pool
