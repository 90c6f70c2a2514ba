// Stage 02's lesson: its options, the check of its size, the bytes its copies
// move, and the report of what main.cu measured, through the laboratory's
// verdicts (report.hpp), so that the lesson and the sweep say the same thing
// the same way, ending as every run ends (experiment/report.hpp).
#include "lesson.hpp"

#include <algorithm>
#include <iostream>

#include "lesson_report.hpp"

#include "base/units.hpp"
#include "cli/options.hpp"
#include "copy_buffers.hpp"
#include "experiment/report.hpp"
#include "measure/estimate.hpp"
#include "options.hpp"
#include "report.hpp"
#include "report/conclusions.hpp"
#include "report/device_info.hpp"
#include "report/table.hpp"

namespace csg::lesson02 {
namespace {

using copies::CopyDirection;
using copies::format_size;

// One size per regime of a PCIe copy: latency-bound, the ramp, near the
// peak, the peak (256 MiB: ~5 ms pinned, ~30 ms pageable on an H200).
constexpr const char* kDefaultSizes = "64K,1M,16M,256M";
// The article's figure: 64 MiB of pageable H2D held the host 8.3 ms on the H200.
constexpr long long kDefaultAsyncMiB = 64;
constexpr long long kMaxAsyncMiB = 16384;

constexpr CopyDirection kCopyDirections[kDirectionCount] = {CopyDirection::h2d, CopyDirection::d2h};

CommonDefaults copies_only() {
  CommonDefaults defaults = lesson_defaults(HostMemory::pageable);  // the article's two kinds, both measured
  defaults.gemm_workload = false;  // copies only: no --batches, --m, --n, --k
  return defaults;
}

// Each kind: a source and a destination on the host (the pinned half
// page-locked), one buffer on the device.
MemoryNeeds needs_of(const Options& options) {
  return {.device_bytes = options.buffer_bytes(),
          .host_bytes = checked_mul(options.buffer_bytes(), 2 * kKindCount).value_or(UINT64_MAX),
          .host_kind = HostMemory::pinned};
}

const char* kSmaller = "choose smaller --sizes or --async-mib";

std::string direction_key(int d) { return std::string(copies::to_string(kCopyDirections[d])); }

}  // namespace

std::size_t Options::buffer_bytes() const { return std::max(sizes.back(), async_bytes); }

std::optional<Options> parse_options(int argc, char** argv) {
  StageCli cli(kStage,
               "The article's Pinned Memory: one cudaMemcpyAsync at a time, each way, from pageable (malloc) and from "
               "pinned (cudaMallocHost) host memory: the bandwidth at a few sizes, and how long the call keeps the "
               "host.",
               copies_only());
  cli.add_text("sizes", "Sizes of the bandwidth copies, e.g. 64K,1M,16M,256M (bytes; K/M/G/T are 2^10..2^40)",
               kDefaultSizes, "LIST");
  cli.add_int("async-mib", "Size of the copy whose cudaMemcpyAsync call is timed on the host, MiB", kDefaultAsyncMiB,
              1, kMaxAsyncMiB);
  const std::optional<CommonOptions> common = cli.parse_or_help(argc, argv, laboratory_help(kStage, laboratory()));
  if (!common) return std::nullopt;
  Options options{lesson_options(*common), {}, static_cast<std::size_t>(cli.get_int("async-mib")) * kMiB};
  const std::vector<std::uint64_t> sizes = copies::parse_size_list("sizes", cli.get_string("sizes"));
  options.sizes.assign(sizes.begin(), sizes.end());
  check_host_fits(needs_of(options), kSmaller);  // needs no GPU: refused the same way everywhere
  return options;
}

void check_size(const Options& options) {
  check_fits(needs_of(options), kSmaller);
  // Every size and the async copy, each kind and direction, every round.
  const Rates rates = measure_copy_rates();
  double round = 0.0;
  std::vector<std::size_t> all = options.sizes;
  all.push_back(options.async_bytes);
  for (const std::size_t bytes : all) {
    round += 2.0 * double(bytes) / rates.pageable_bytes_per_s + 2.0 * double(bytes) / rates.pinned_bytes_per_s;
  }
  check_estimate(round * options.rounds(), options.max_minutes,
                 "the copies of " + std::to_string(all.size()) + " sizes up to " + format_size(options.buffer_bytes()));
}

void fill_pattern(std::span<std::byte> bytes, std::uint64_t seed) { copies::fill_pattern(bytes, seed); }

std::string pattern_mismatch(std::span<const std::byte> bytes, std::uint64_t seed) {
  const std::optional<copies::ByteMismatch> mismatch = copies::find_pattern_mismatch(bytes, seed);
  if (!mismatch) return "";
  return "byte " + std::to_string(mismatch->offset) + " of " + format_size(bytes.size()) + " is " +
         copies::byte_text(mismatch->got) + ", expected " + copies::byte_text(mismatch->expected);
}

namespace {

// The sweep's names for the same figures ("copy", <kind>_<direction>_peak_gbps,
// pinned_over_pageable_<direction>_at_largest), and the call's own:
// "async_copy" and "async_call" per kind and direction, bounds
// <kind>_<direction>_async_host_blocked_ms and _async_call_share.
void fill_result(StageResult& result, const Options& options, const Figures& f) {
  result.config = {{"sizes", options.sizes},
                   {"async_bytes", options.async_bytes},
                   {"host_memory", copies::kinds_json({kKinds[0], kKinds[1]})},
                   {"warmup", options.warmup},
                   {"repeats", options.repeats},
                   {"seed", options.seed}};
  std::vector<copies::CopyPoint> timed;
  for (const SizeFigures& size : f.sweep) {
    for (int k = 0; k < kKindCount; ++k) {
      for (int d = 0; d < kDirectionCount; ++d) {
        timed.push_back({size.bytes, kKinds[k], kCopyDirections[d], summarize(size.copies[k][d].copy)});
      }
    }
  }
  copies::add_copies(result, timed, {kKinds[0], kKinds[1]}, f.sweep.back().bytes, [&f](const copies::CopyPoint& p) {
    return f.checks[p.kind == kKinds[0] ? 0 : 1].empty();
  });
  for (int k = 0; k < kKindCount; ++k) {
    for (int d = 0; d < kDirectionCount; ++d) {
      const std::string key = copies::key_name(kKinds[k]) + "_" + direction_key(d);
      const nlohmann::json params = {
          {"host_memory", copies::kind_name(kKinds[k])}, {"direction", direction_key(d)}, {"bytes", f.async.bytes}};
      const Summary copied = summarize(f.async.copies[k][d].copy);
      const Summary call = summarize(f.async.copies[k][d].call);
      const bool ok = f.checks[k].empty();
      result.measurements.push_back({"async_copy", params, copied, Work{double(f.async.bytes), 0.0}, ok});
      result.measurements.push_back({"async_call", params, call, Work{}, ok});
      result.bounds[key + "_async_host_blocked_ms"] = call.median_ms;
      result.bounds[key + "_async_call_share"] = call.median_ms / copied.median_ms;
    }
  }
  VerifyResult& check = result.verification;
  check.batches_checked = kKindCount;
  check.checked = "host memory kind";
  check.method = "round-trip bit-exact";
  for (int k = 0; k < kKindCount; ++k) {
    result.variants_verified += f.checks[k].empty() ? 1 : 0;
    if (!f.checks[k].empty() && check.failure.empty()) check.failure = copies::kind_name(kKinds[k]) + " memory, " + f.checks[k];
  }
  check.passed = result.variants_verified == kKindCount;
}

// The bandwidth table, and the claim at the largest size, where the link is at its peak.
void bandwidth(Report& report, const Figures& f) {
  auto gbps_of = [](int k, int d) {
    return [k, d](const SizeFigures& size) {
      return copies::gbps_text(double(size.bytes), summarize(size.copies[k][d].copy).median_ms);
    };
  };
  auto ratio = [](int d) {
    return [d](const SizeFigures& size) {
      return fixed(summarize(size.copies[0][d].copy).median_ms / summarize(size.copies[1][d].copy).median_ms, 2) + "x";
    };
  };
  report.out() << "\nbandwidth, GB/s\n";
  report.table(table_of<SizeFigures>({{"size", [](const SizeFigures& size) { return format_size(size.bytes); }},
                                      {"H2D pageable", gbps_of(0, 0)},
                                      {"H2D pinned", gbps_of(1, 0)},
                                      {"pinned/pageable", ratio(0)},
                                      {"D2H pageable", gbps_of(0, 1)},
                                      {"D2H pinned", gbps_of(1, 1)},
                                      {"pinned/pageable", ratio(1)}},
                                     f.sweep));
  const SizeFigures& largest = f.sweep.back();
  const double bytes = double(largest.bytes);
  for (int d = 0; d < kDirectionCount; ++d) {
    report.verdict(copies::bandwidth_verdict("bandwidth." + direction_key(d), kCopyDirections[d],
                                             "at " + format_size(largest.bytes),
                                             gbps(bytes, summarize(largest.copies[1][d].copy).median_ms),
                                             gbps(bytes, summarize(largest.copies[0][d].copy).median_ms)));
  }
}

// How long each call kept the host, and what that means for each.
void calls(Report& report, const Figures& f) {
  struct Call {
    int kind, direction;
    double call_ms, copy_ms;
  };
  std::vector<Call> rows;
  for (int d = 0; d < kDirectionCount; ++d) {
    for (int k = 0; k < kKindCount; ++k) {
      rows.push_back({k, d, summarize(f.async.copies[k][d].call).median_ms, summarize(f.async.copies[k][d].copy).median_ms});
    }
  }
  report.out() << "\nhow long cudaMemcpyAsync of " << format_size(f.async.bytes)
               << " keeps the host: a host clock around the call, medians\n";
  report.table(table_of<Call>(
      {{"memory", [](const Call& c) { return copies::kind_name(kKinds[c.kind]); }},
       {"copy", [](const Call& c) { return copies::direction_label(kCopyDirections[c.direction]); }},
       {"call returned after ms", [](const Call& c) { return copies::ms_text(c.call_ms); }},
       {"copy took ms", [](const Call& c) { return copies::ms_text(c.copy_ms); }},
       {"of the copy", [](const Call& c) { return percent_text(c.call_ms / c.copy_ms); }}},
      rows));
  for (const Call& c : rows) {
    report.verdict(copies::async_call_verdict(kKinds[c.kind], kCopyDirections[c.direction], c.call_ms, c.copy_ms));
  }
}

}  // namespace

bool report(const Options& options, const Figures& figures) {
  const int device = 0;  // require_device chose it
  return report(std::cout, options, query_device_info(device), figures);  // after the copies: the link under load
}

bool report(std::ostream& out, const Options& options, const DeviceInfo& info, const Figures& f) {
  Report report(kStage, "", info);
  fill_result(report.result, options, f);
  if (report.result.verification.passed) {
    report.checked_runs("(every byte arrived: what the timed copies left, and a round trip of " +
                        format_size(options.buffer_bytes()) + " for each kind)");
  }
  report.out() << "pageable (malloc) against pinned (cudaMallocHost) host memory; one cudaMemcpyAsync per copy, timed "
                  "with events;\nmedian of "
               << options.repeats << " rounds after " << options.warmup << " warm-up; GB/s = 10^9 bytes/s\n";
  bandwidth(report, f);
  calls(report, f);
  report.out() << "beyond the article: " << kStage
               << " --help lists the laboratory (registered and write-combined memory,\n"
               << "  both ways at once, the staging copy, copies beside a busy kernel, what pinning costs, a timeline)\n";
  return report.finish(out, options.json_path) == kExitOk;
}

}  // namespace csg::lesson02
