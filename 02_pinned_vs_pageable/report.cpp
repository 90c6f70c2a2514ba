#include "report.hpp"

#include "experiment/lab.hpp"
#include "options.hpp"

namespace csg::copies {

// ---- the verdicts ------------------------------------------------------------------

Verdict async_call_verdict(HostMemory kind, CopyDirection direction, double call_ms, double copy_ms) {
  const double share = copy_ms > 0.0 ? call_ms / copy_ms : 0.0;
  Verdict verdict{.id = "async_call." + key_name(kind) + "." + std::string(to_string(direction)),
                  .figures = {{"call_ms", call_ms}, {"copy_ms", copy_ms}, {"call_share", share}},
                  .threshold = {{"blocked_share", kBlockedShare}, {"at_once_share", kAtOnceShare}}};
  const std::string head = kind_name(kind) + " " + direction_label(direction) + ": the call returned ";
  const std::string of_it = percent_text(share) + " of its " + ms_text(copy_ms) + " ms";
  if (share >= kBlockedShare) {
    verdict.outcome = "synchronous";
    verdict.sentence = head + "only after the copy (" + of_it + "): synchronous for the host";
  } else if (share <= kAtOnceShare) {
    verdict.outcome = "at_once";
    verdict.sentence = head + "at once (" + of_it + "): the host is free while it copies";
  } else {
    verdict.outcome = "partly";
    verdict.sentence =
        head + "before the copy ended, but not at once (" + of_it + ", over " + percent_text(kAtOnceShare) + ")";
  }
  return verdict;
}

Verdict host_blocked_verdict(double host_blocked_ms, double copy_alone_ms) {
  const bool blocked = host_blocked_ms >= kBlockedShare * copy_alone_ms;
  const std::string head = "Pageable H2D: cudaMemcpyAsync held the host " + ms_text(host_blocked_ms) + " ms of the " +
                           ms_text(copy_alone_ms) + " ms the copy takes alone";
  return {.id = "overlap.host_blocked",
          .outcome = blocked ? "blocked" : "returned_early",
          .figures = {{"host_blocked_ms", host_blocked_ms}, {"copy_alone_ms", copy_alone_ms}},
          .threshold = kBlockedShare,
          .sentence = blocked ? head + ": for the host it is not asynchronous."
                              : head + ", less than " + percent_text(kBlockedShare) +
                                    " of it: on this system the call returned before the copy was done."};
}

Verdict staging_verdict(std::uint64_t bytes, double pageable_ms, double memcpy_ms, double pinned_ms) {
  const double staged = memcpy_ms + pinned_ms;
  const std::string head = "At " + format_size(bytes) + ", pageable H2D took " + ms_text(pageable_ms) + " ms = " +
                           fixed(pageable_ms / staged, 2) + "x (host memcpy " + ms_text(memcpy_ms) + " + pinned DMA " +
                           ms_text(pinned_ms) + " ms)";
  Verdict verdict = comparison_verdict("sweep.staging", pageable_ms, staged, "", kStagingWithin);
  verdict.figures.update({{"bytes", bytes}, {"pageable_ms", pageable_ms}, {"host_memcpy_ms", memcpy_ms},
                          {"pinned_ms", pinned_ms}});
  verdict.sentence = head + by_comparison(compare_times(pageable_ms, staged, kStagingWithin),
                                          ": less than the two one after the other, so the driver overlaps its "
                                          "memcpy of one chunk\nwith the DMA of the one before.",
                                          ": within " + percent_text(kStagingWithin) +
                                              " of the two one after the other, so the extra host copy is the whole "
                                              "difference.",
                                          ": more than the two one after the other, so staging costs more here "
                                          "than a plain memcpy and a copy.");
  return verdict;
}

Verdict bandwidth_verdict(std::string id, CopyDirection direction, const std::string& where, double pinned_gbps,
                          double pageable_gbps) {
  const std::string head = direction_label(direction) + " " + where + ": pinned " + fixed(pinned_gbps, 1) +
                           " GB/s, pageable " + fixed(pageable_gbps, 1) + " GB/s: ";
  // Faster transfers take less time: compare the times per byte.
  Verdict verdict = comparison_verdict(std::move(id), 1.0 / pinned_gbps, 1.0 / pageable_gbps, "");
  verdict.figures = {{"pinned_gbps", pinned_gbps},
                     {"pageable_gbps", pageable_gbps},
                     {"pinned_over_pageable", pinned_gbps / pageable_gbps}};
  verdict.sentence = head + by_comparison(compare_times(1.0 / pinned_gbps, 1.0 / pageable_gbps),
                                          "pinned memory moved " + fixed(pinned_gbps / pageable_gbps, 2) + "x faster.",
                                          "about the same (within " + percent_text(kEqualWithin) +
                                              "): on this system pinned memory won no bandwidth here.",
                                          "pageable memory moved faster: the article's claim does not hold here.");
  return verdict;
}

Verdict both_ways_verdict(std::uint64_t bytes, double both_gbps, double one_way_gbps) {
  const double ratio = one_way_gbps > 0.0 ? both_gbps / one_way_gbps : 0.0;
  const bool gain = ratio > 1.0 + kDuplexGain;
  const std::string head = "At " + format_size(bytes) + ", both directions at once moved " + fixed(both_gbps, 1) +
                           " GB/s in total, ";
  return {.id = "sweep.both_ways",
          .outcome = gain ? "gain" : "no_gain",
          .figures = {{"bytes", bytes}, {"both_gbps", both_gbps}, {"one_way_gbps", one_way_gbps}, {"ratio", ratio}},
          .threshold = kDuplexGain,
          .sentence = gain ? head + fixed(ratio, 2) + "x one direction alone: the link carries both ways at the "
                                                      "same time."
                           : head + "only " + fixed(ratio, 2) + "x one direction alone (not more than " +
                                 percent_text(kDuplexGain) + " above it): no gain from copying both ways at once here."};
}

// ---- a copy beside a busy kernel -------------------------------------------------------

double overlap_ratio(double kernel_ms, double copy_ms, double together_ms) {
  return together_ms > 0.0 ? (kernel_ms + copy_ms) / together_ms : 0.0;
}

// ---- the copies ----------------------------------------------------------------------

namespace {

constexpr CopyDirection kOneWay[] = {CopyDirection::h2d, CopyDirection::d2h};

double moved_bytes(const CopyPoint& p) {
  return (p.direction == CopyDirection::bidirectional ? 2.0 : 1.0) * static_cast<double>(p.bytes);
}

}  // namespace

const Summary* find_copy(const std::vector<CopyPoint>& copies, std::uint64_t bytes, HostMemory kind,
                         CopyDirection direction) {
  for (const CopyPoint& p : copies) {
    if (p.bytes == bytes && p.kind == kind && p.direction == direction) return &p.stats;
  }
  return nullptr;
}

std::optional<double> peak_gbps(const std::vector<CopyPoint>& copies, HostMemory kind, CopyDirection direction) {
  std::optional<double> peak;
  for (const CopyPoint& p : copies) {
    if (p.kind == kind && p.direction == direction) peak = std::max(peak.value_or(0.0), gbps(moved_bytes(p), p.stats.median_ms));
  }
  return peak;
}

void add_copies(StageResult& result, const std::vector<CopyPoint>& copies, const std::vector<HostMemory>& kinds,
                std::uint64_t largest, const std::function<bool(const CopyPoint&)>& verified) {
  for (const CopyPoint& p : copies) {
    result.measurements.push_back(
        {"copy",
         {{"host_memory", kind_name(p.kind)}, {"direction", std::string(to_string(p.direction))}, {"bytes", p.bytes}},
         p.stats,
         Work{moved_bytes(p), 0.0},
         verified(p)});
  }
  for (const HostMemory kind : kinds) {
    for (const CopyDirection direction : kOneWay) {
      if (const auto peak = peak_gbps(copies, kind, direction)) {
        result.bounds[key_name(kind) + "_" + std::string(to_string(direction)) + "_peak_gbps"] = *peak;
      }
    }
  }
  for (const CopyDirection direction : kOneWay) {
    const Summary* pinned = find_copy(copies, largest, HostMemory::pinned, direction);
    const Summary* pageable = find_copy(copies, largest, HostMemory::pageable, direction);
    if (pinned && pageable) {
      result.bounds["pinned_over_pageable_" + std::string(to_string(direction)) + "_at_largest"] =
          pageable->median_ms / pinned->median_ms;
    }
  }
}

// ---- the checks --------------------------------------------------------------------

bool ByteChecks::passed() const { return !checks_.empty() && passed_count() == std::ssize(checks_); }

bool ByteChecks::verified(const std::string& experiment, std::uint64_t bytes, HostMemory kind) const {
  bool any = false;
  for (const Check& c : checks_) {
    if (c.experiment != experiment || c.bytes != bytes || c.kind != kind) continue;
    if (c.mismatch) return false;
    any = true;
  }
  return any;
}

int ByteChecks::passed_count() const {
  return static_cast<int>(
      std::count_if(checks_.begin(), checks_.end(), [](const Check& c) { return !c.mismatch.has_value(); }));
}

std::string ByteChecks::failure_message() const {
  for (const Check& c : checks_) {
    if (!c.mismatch) continue;
    return "round trip not bit-exact (" + c.experiment + ", " + format_size(c.bytes) + ", " + kind_name(c.kind) +
           " memory): byte " + std::to_string(c.mismatch->offset) + " expected " + byte_text(c.mismatch->expected) +
           ", got " + byte_text(c.mismatch->got);
  }
  return checks_.empty() ? "nothing was checked" : "";
}

void verify_with(StageResult& result, const ByteChecks& checks) {
  result.verification.passed = checks.passed();
  result.verification.batches_checked = static_cast<int>(checks.size());
  result.verification.method = "round-trip bit-exact";
  result.verification.checked = "round trip";
  result.verification.failure = checks.failure_message();
  result.variants_verified = checks.passed_count();
}

// ---- words and units ----------------------------------------------------------------

std::string kind_name(HostMemory kind) { return std::string(to_string(kind)); }

std::string key_name(HostMemory kind) {
  std::string name = kind_name(kind);
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

std::string direction_label(CopyDirection direction) {
  return std::string(name_of(direction, {"H2D", "D2H", "both ways"}));
}

std::string ms_text(double ms) {
  const double magnitude = std::abs(ms);
  return fixed(ms, magnitude < 0.1 ? 4 : magnitude < 10.0 ? 3 : 2);
}

std::string gbps_text(double bytes, double ms) { return fixed(gbps(bytes, ms), 1); }

std::string byte_text(std::byte value) {
  char text[8];
  std::snprintf(text, sizeof text, "0x%02x", static_cast<unsigned>(value));
  return text;
}

nlohmann::json kinds_json(const std::vector<HostMemory>& kinds) {
  nlohmann::json list = nlohmann::json::array();
  for (HostMemory kind : kinds) list.push_back(kind_name(kind));
  return list;
}

std::string kinds_text(const std::vector<HostMemory>& kinds) {
  std::string text;
  for (HostMemory kind : kinds) text += (text.empty() ? "" : ", ") + kind_name(kind);
  return text;
}

}  // namespace csg::copies
