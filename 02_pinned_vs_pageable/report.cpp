#include "report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "base/enum_names.hpp"
#include "base/text.hpp"
#include "options.hpp"
#include "report/conclusions.hpp"
#include "report/table.hpp"

namespace csg::copies {

// ---- the sentences -------------------------------------------------------------

std::string host_blocked_text(double host_blocked_ms, double copy_alone_ms) {
  const std::string head = "Pageable H2D: cudaMemcpyAsync held the host " + ms_text(host_blocked_ms) + " ms of the " +
                           ms_text(copy_alone_ms) + " ms the copy takes alone";
  if (host_blocked_ms >= kBlockedShare * copy_alone_ms) {
    return head + ": for the host it is not asynchronous.";
  }
  return head + ", less than " + percent_text(kBlockedShare) +
         " of it: on this system the call returned before the copy was done.";
}

std::string async_call_text(HostMemory kind, CopyDirection direction, double call_ms, double copy_ms) {
  const double share = copy_ms > 0.0 ? call_ms / copy_ms : 0.0;
  const std::string head = kind_name(kind) + " " + direction_label(direction) + ": the call returned ";
  const std::string of_it = percent_text(share) + " of its " + ms_text(copy_ms) + " ms";
  if (share >= kBlockedShare) return head + "only after the copy (" + of_it + "): synchronous for the host";
  if (share <= kAtOnceShare) return head + "at once (" + of_it + "): the host is free while it copies";
  return head + "before the copy ended, but not at once (" + of_it + ", over " + percent_text(kAtOnceShare) + ")";
}

std::string staging_text(const std::string& size, double pageable_ms, double memcpy_ms, double pinned_ms) {
  const double staged = memcpy_ms + pinned_ms;
  const std::string head = "At " + size + ", pageable H2D took " + ms_text(pageable_ms) + " ms = " +
                           fixed(pageable_ms / staged, 2) + "x (host memcpy " + ms_text(memcpy_ms) + " + pinned DMA " +
                           ms_text(pinned_ms) + " ms)";
  switch (compare_times(pageable_ms, staged, kStagingWithin)) {
    case Comparison::same:
      return head + ": within " + percent_text(kStagingWithin) +
             " of the two one after the other, so the extra host copy is the whole difference.";
    case Comparison::faster:
      return head + ": less than the two one after the other, so the driver overlaps its memcpy of one chunk\n"
                    "with the DMA of the one before.";
    case Comparison::slower:
      break;
  }
  return head + ": more than the two one after the other, so staging costs more here than a plain memcpy and a copy.";
}

std::string bandwidth_ratio_text(CopyDirection direction, const std::string& where, double pinned_gbps,
                                 double pageable_gbps) {
  const std::string head = direction_label(direction) + " " + where + ": pinned " + fixed(pinned_gbps, 1) +
                           " GB/s, pageable " + fixed(pageable_gbps, 1) + " GB/s: ";
  // Faster transfers take less time: compare the times per byte.
  switch (compare_times(1.0 / pinned_gbps, 1.0 / pageable_gbps)) {
    case Comparison::faster:
      return head + "pinned memory moved " + fixed(pinned_gbps / pageable_gbps, 2) + "x faster.";
    case Comparison::same:
      return head + "about the same (within " + percent_text(kEqualWithin) +
             "): on this system pinned memory won no bandwidth here.";
    case Comparison::slower:
      break;
  }
  return head + "pageable memory moved faster: the article's claim does not hold here.";
}

std::string peak_ratio_text(CopyDirection direction, double pinned_gbps, double pageable_gbps) {
  return bandwidth_ratio_text(direction, "peaks", pinned_gbps, pageable_gbps);
}

// ---- the checks ----------------------------------------------------------------

bool ByteChecks::add(const std::string& experiment, std::uint64_t bytes, HostMemory kind,
                     const std::optional<ByteMismatch>& mismatch) {
  checks_.push_back({experiment, bytes, kind, mismatch});
  return !mismatch.has_value();
}

bool ByteChecks::passed() const {
  return !checks_.empty() &&
         std::none_of(checks_.begin(), checks_.end(), [](const Check& c) { return c.mismatch.has_value(); });
}

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

std::string ByteChecks::summary() const {
  if (!passed()) return "VERIFICATION FAILED: " + failure_message();
  return "all " + plural(static_cast<long long>(checks_.size()), "round trip") + " bit-exact";
}

// ---- words, units and the JSON's frame ------------------------------------------

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

nlohmann::json sizes_json(const std::vector<std::uint64_t>& sizes) {
  nlohmann::json list = nlohmann::json::array();
  for (std::uint64_t bytes : sizes) list.push_back(bytes);
  return list;
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

CopyResult::CopyResult(const DeviceInfo& device, nlohmann::json config) {
  result.stage = "02_pinned_vs_pageable";
  result.device = device;
  result.config = std::move(config);
}

void CopyResult::add(Measurement measurement, bool has_check) {
  result.measurements.push_back(std::move(measurement));
  checkable.push_back(has_check);
}

void CopyResult::verify_with(const ByteChecks& checks) {
  result.verification.passed = checks.passed();
  result.verification.batches_checked = static_cast<int>(checks.size());
  result.verification.method = "round-trip bit-exact";
  result.variants_verified = checks.passed_count();
  failure = checks.passed() ? "" : checks.failure_message();
}

nlohmann::json to_json(const CopyResult& copy, const std::optional<std::string>& subcommand) {
  nlohmann::json doc = csg::to_json(copy.result);
  for (std::size_t i = 0; i < copy.checkable.size(); ++i) {
    if (!copy.checkable[i]) doc["measurements"][i]["verified"] = nullptr;
  }
  if (!copy.failure.empty()) doc["verification"]["failure"] = copy.failure;
  doc["subcommand"] = subcommand ? nlohmann::json(*subcommand) : nlohmann::json(nullptr);
  return doc;
}

}  // namespace csg::copies
