// What stage 02's lesson and its laboratory print and write alike: the
// verdicts that interpret the copies' figures (each chosen by them, with a
// stated threshold, carried in the result's "verdicts"), the bit-exact checks
// of every experiment that moves bytes, and the words and units of the tables.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "copy_buffers.hpp"
#include "measure/stats.hpp"
#include "report/conclusions.hpp"
#include "report/result.hpp"
#include "report/verdict.hpp"

namespace csg::copies {

// ---- the verdicts ----------------------------------------------------------------

// One cudaMemcpyAsync's call against its copy: at least kBlockedShare of the
// copy's time, the call returned only after (most of) the copy, synchronous
// for the host ("synchronous"); at most kAtOnceShare, it returned at once
// ("at_once"); between, before the copy ended but not at once ("partly").
// Id "async_call.<kind>.<direction>" (the lesson's four calls).
inline constexpr double kBlockedShare = 0.5;
inline constexpr double kAtOnceShare = 0.10;
Verdict async_call_verdict(HostMemory kind, CopyDirection direction, double call_ms, double copy_ms);

// A pageable H2D beside a busy kernel ("overlap.host_blocked"): a call that
// held the host at least kBlockedShare of the copy's own time is not
// asynchronous for the host ("blocked"), else "returned_early".
Verdict host_blocked_verdict(double host_blocked_ms, double copy_alone_ms);

// A pageable copy against a host memcpy plus the pinned copy, one after the
// other ("sweep.staging"): within kStagingWithin of it ("same"), the staging
// copy is the whole difference; under it ("faster") the driver overlaps its
// memcpy with the DMA; over it ("slower") staging costs more.
inline constexpr double kStagingWithin = 0.10;
Verdict staging_verdict(std::uint64_t bytes, double pageable_ms, double memcpy_ms, double pinned_ms);

// Pinned against pageable bandwidth `where` ("peaks", "at 256 MiB"), as the
// time per byte compared within kEqualWithin (report/conclusions.hpp):
// "faster" (pinned moved faster), "same", or "slower" (the article's claim
// does not hold). Id `id` ("bandwidth.h2d", "sweep.peak.d2h").
Verdict bandwidth_verdict(std::string id, CopyDirection direction, const std::string& where, double pinned_gbps,
                          double pageable_gbps);

// Both directions at once against the faster direction alone, at one size
// ("sweep.both_ways"): more than kDuplexGain above it the link carried both
// ways at the same time ("gain"), else "no_gain".
inline constexpr double kDuplexGain = 0.25;
Verdict both_ways_verdict(std::uint64_t bytes, double both_gbps, double one_way_gbps);

// ---- a copy beside a busy kernel, as overlap and batched-copies time it --------------
// (kernel alone + copy alone) / together, 0 where together is 0; with the longer alone as together, the ideal.
double overlap_ratio(double kernel_ms, double copy_ms, double together_ms);
// A ratio above this: the copy and the kernel really ran at the same time (timing noise is ~1%).
inline constexpr double kOverlappedRatio = 1.05;

// ---- the copies, as the lesson and the sweep time them -----------------------------

// One copy as timed: `bytes` from or to `kind` memory (each way at once for bidirectional).
struct CopyPoint {
  std::uint64_t bytes = 0;
  HostMemory kind = HostMemory::pageable;
  CopyDirection direction = CopyDirection::h2d;
  Summary stats{};
};

// The copy of `kind` and `direction` at `bytes`; nothing where not measured.
const Summary* find_copy(const std::vector<CopyPoint>& copies, std::uint64_t bytes, HostMemory kind,
                         CopyDirection direction);
// The best GB/s of `kind` and `direction` over the sizes (both copies' bytes for bidirectional).
std::optional<double> peak_gbps(const std::vector<CopyPoint>& copies, HostMemory kind, CopyDirection direction);
// Each copy as a "copy" measurement (gbps from both copies' bytes for
// bidirectional), verified as `verified` says; in "bounds" each of `kinds`'
// <kind>_<direction>_peak_gbps, and pinned_over_pageable_<direction>_at_largest
// where both kinds were timed at `largest`.
void add_copies(StageResult& result, const std::vector<CopyPoint>& copies, const std::vector<HostMemory>& kinds,
                std::uint64_t largest, const std::function<bool(const CopyPoint&)>& verified);

// ---- the checks ----------------------------------------------------------------

// Every bit-exact check of a run: one per experiment, size and kind.
class ByteChecks {
 public:
  void add(const std::string& experiment, std::uint64_t bytes, HostMemory kind,
           const std::optional<ByteMismatch>& mismatch) { checks_.push_back({experiment, bytes, kind, mismatch}); }
  // Something was checked, and nothing differed.
  bool passed() const;
  // Every check of `experiment` at `bytes` and `kind` passed, and there was one.
  bool verified(const std::string& experiment, std::uint64_t bytes, HostMemory kind) const;
  std::size_t size() const { return checks_.size(); }
  int passed_count() const;
  // The first failure ("round trip not bit-exact (sweep, 4 KiB, pinned memory):
  // byte 12 expected 0x0b, got 0x00"), "nothing was checked", or "".
  std::string failure_message() const;

 private:
  struct Check {
    std::string experiment;
    std::uint64_t bytes;
    HostMemory kind;
    std::optional<ByteMismatch> mismatch;
  };
  std::vector<Check> checks_;
};

// The result's verification from `checks`: one "round trip" per check,
// method "round-trip bit-exact", the first failure in words.
void verify_with(StageResult& result, const ByteChecks& checks);

// ---- words and units --------------------------------------------------------------

std::string kind_name(HostMemory kind);  // "write-combined"
std::string key_name(HostMemory kind);   // "write_combined": for JSON keys
std::string direction_label(CopyDirection direction);  // "H2D", "D2H", "both ways"
// Milliseconds with enough digits for microsecond-scale values.
std::string ms_text(double ms);
std::string gbps_text(double bytes, double ms);
std::string byte_text(std::byte value);  // "0x0b"
nlohmann::json kinds_json(const std::vector<HostMemory>& kinds);
std::string kinds_text(const std::vector<HostMemory>& kinds);  // "pageable, pinned"

}  // namespace csg::copies
