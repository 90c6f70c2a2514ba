#include "report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "base/enum_names.hpp"
#include "report/conclusions.hpp"
#include "report/result.hpp"
#include "options.hpp"
#include "report/table.hpp"
#include "base/units.hpp"

namespace csg::copies {
namespace {



std::string kind_name(HostMemory kind) { return std::string(to_string(kind)); }

// "write-combined" -> "write_combined", for JSON keys.
std::string key_name(HostMemory kind) {
  std::string name = kind_name(kind);
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

std::string direction_label(CopyDirection direction) {
  return std::string(name_of(direction, {"H2D", "D2H", "both ways"}));
}

// Milliseconds with enough digits for microsecond-scale values.
std::string ms_text(double ms) {
  const double magnitude = std::abs(ms);
  return fixed(ms, magnitude < 0.1 ? 4 : magnitude < 10.0 ? 3 : 2);
}

std::string gbps_text(double bytes, double ms) { return fixed(gbps(bytes, ms), 1); }

// Median GB/s with the range of the repeats: the fastest run is the min time.
std::string gbps_range_text(double bytes, const Summary& s) {
  return gbps_text(bytes, s.median_ms) + " (" + gbps_text(bytes, s.max_ms) + "-" + gbps_text(bytes, s.min_ms) + ")";
}

std::string byte_text(std::byte value) {
  char text[8];
  std::snprintf(text, sizeof text, "0x%02x", static_cast<unsigned>(value));
  return text;
}

// An overlap ratio above this means the copy and the kernel really ran at the
// same time (1.0 is strictly one after the other; timing noise is ~1%).
constexpr double kOverlappedRatio = 1.05;

std::string order_label(bool kernel_first) { return kernel_first ? "kernel, then copy" : "copy, then kernel"; }

nlohmann::json sizes_json(const std::vector<std::uint64_t>& sizes) {
  nlohmann::json list = nlohmann::json::array();
  for (std::uint64_t bytes : sizes) list.push_back(bytes);
  return list;
}

}  // namespace

std::string host_blocked_text(double host_blocked_ms, double copy_alone_ms) {
  const std::string head = "Pageable H2D: cudaMemcpyAsync held the host " + ms_text(host_blocked_ms) + " ms of the " +
                           ms_text(copy_alone_ms) + " ms the copy takes alone";
  if (host_blocked_ms >= kBlockedShare * copy_alone_ms) {
    return head + ": for the host it is not asynchronous.";
  }
  return head + ", less than " + percent_text(kBlockedShare) +
         " of it: on this system the call returned before the copy was done.";
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

std::string peak_ratio_text(CopyDirection direction, double pinned_gbps, double pageable_gbps) {
  const std::string head = std::string(direction == CopyDirection::h2d ? "H2D" : "D2H") + " peaks: pinned " +
                           fixed(pinned_gbps, 1) + " GB/s, pageable " + fixed(pageable_gbps, 1) + " GB/s: ";
  // Faster transfers take less time: compare the times per byte.
  switch (compare_times(1.0 / pinned_gbps, 1.0 / pageable_gbps)) {
    case Comparison::faster:
      return head + "pinned memory moved " + fixed(pinned_gbps / pageable_gbps, 2) + "x faster.";
    case Comparison::same:
      return head + "about the same (within " + percent_text(kEqualWithin) +
             "): on this system pinned memory won no bandwidth at its best size.";
    case Comparison::slower:
      break;
  }
  return head + "pageable memory moved faster: the article's claim does not hold here at peak.";
}

CopyReport::CopyReport(const CopyOptions& options, DeviceInfo device, std::vector<HostMemory> kinds,
                       std::vector<std::string> notes)
    : options_(options), device_(std::move(device)), kinds_(std::move(kinds)), notes_(std::move(notes)) {}

bool CopyReport::measures(HostMemory kind) const {
  return std::find(kinds_.begin(), kinds_.end(), kind) != kinds_.end();
}

void CopyReport::add_sweep(std::uint64_t bytes, const SweepVariants& variants, const std::vector<Summary>& summaries) {
  for (std::size_t i = 0; i < variants.keys.size(); ++i) sweep_.push_back({bytes, variants.keys[i], summaries.at(i)});
}

bool CopyReport::add_check(const std::string& experiment, std::uint64_t bytes, HostMemory kind,
                           const std::optional<ByteMismatch>& mismatch) {
  checks_.push_back({experiment, bytes, kind, mismatch});
  return !mismatch.has_value();
}

void CopyReport::set_overlap(std::uint64_t bytes, OverlapMeasurements overlap) {
  overlap_bytes_ = bytes;
  overlap_ = std::move(overlap);
}

void CopyReport::set_pinning(PinningPlan plan, std::vector<PinningCost> costs) {
  pinning_plan_ = std::move(plan);
  pinning_ = std::move(costs);
}

const Summary* CopyReport::find(std::uint64_t bytes, SweepOp op, HostMemory kind, CopyDirection direction) const {
  for (const SweepPoint& p : sweep_) {
    if (p.bytes == bytes && p.key.op == op && (op == SweepOp::host_memcpy ||
                                               (p.key.kind == kind && p.key.direction == direction))) {
      return &p.stats;
    }
  }
  return nullptr;
}

bool CopyReport::verified(const std::string& experiment, std::uint64_t bytes, HostMemory kind) const {
  bool any = false;
  for (const Check& c : checks_) {
    if (c.experiment != experiment || c.bytes != bytes || c.kind != kind) continue;
    if (c.mismatch) return false;
    any = true;
  }
  return any;
}

bool CopyReport::passed() const {
  return !checks_.empty() && std::none_of(checks_.begin(), checks_.end(), [](const Check& c) { return c.mismatch; });
}

std::string CopyReport::failure_message() const {
  for (const Check& c : checks_) {
    if (!c.mismatch) continue;
    return "round trip not bit-exact (" + c.experiment + ", " + format_size(c.bytes) + ", " + kind_name(c.kind) +
           " memory): byte " + std::to_string(c.mismatch->offset) + " expected " + byte_text(c.mismatch->expected) +
           ", got " + byte_text(c.mismatch->got);
  }
  return checks_.empty() ? "nothing was checked" : "";
}

std::optional<double> CopyReport::peak_gbps(HostMemory kind, CopyDirection direction) const {
  std::optional<double> peak;
  const double copies = direction == CopyDirection::bidirectional ? 2.0 : 1.0;
  for (const SweepPoint& p : sweep_) {
    if (p.key.op != SweepOp::copy || p.key.kind != kind || p.key.direction != direction) continue;
    const double rate = gbps(copies * static_cast<double>(p.bytes), p.stats.median_ms);
    peak = std::max(peak.value_or(0.0), rate);
  }
  return peak;
}

std::uint64_t CopyReport::sweep_peak_pinned_bytes() const {
  return options_.sizes.empty() ? 0 : CopySet::pinned_bytes_needed(options_.sizes.back(), kinds_);
}

// ---- printing ---------------------------------------------------------------

void CopyReport::print_bandwidth(std::ostream& out, CopyDirection direction) const {
  const bool ratio = measures(HostMemory::pageable) && measures(HostMemory::pinned);
  std::vector<std::string> headers{"size"};
  for (HostMemory kind : kinds_) headers.push_back(kind_name(kind));
  if (ratio) headers.push_back("pinned/pageable");
  Table table(headers);
  for (std::uint64_t bytes : options_.sizes) {
    std::vector<std::string> row{format_size(bytes)};
    for (HostMemory kind : kinds_) {
      const Summary* s = find(bytes, SweepOp::copy, kind, direction);
      row.push_back(s ? gbps_range_text(static_cast<double>(bytes), *s) : "-");
    }
    if (ratio) {
      const Summary* pinned = find(bytes, SweepOp::copy, HostMemory::pinned, direction);
      const Summary* pageable = find(bytes, SweepOp::copy, HostMemory::pageable, direction);
      row.push_back(pinned && pageable ? fixed(pageable->median_ms / pinned->median_ms, 2) + "x" : "-");
    }
    table.add_row(row);
  }
  out << "\n" << (direction == CopyDirection::h2d ? "1a) host -> device (H2D)" : "1b) device -> host (D2H)")
      << ", GB/s: median (slowest-fastest run) of one cudaMemcpyAsync, timed with events\n";
  table.print(out);
}

void CopyReport::print_bidirectional(std::ostream& out) const {
  if (!measures(HostMemory::pinned)) return;
  Table table({"size", "H2D alone", "D2H alone", "both at once (total)", "of H2D + D2H alone"});
  for (std::uint64_t bytes : options_.sizes) {
    const Summary* h2d = find(bytes, SweepOp::copy, HostMemory::pinned, CopyDirection::h2d);
    const Summary* d2h = find(bytes, SweepOp::copy, HostMemory::pinned, CopyDirection::d2h);
    const Summary* both = find(bytes, SweepOp::copy, HostMemory::pinned, CopyDirection::bidirectional);
    if (!h2d || !d2h || !both) continue;
    const double b = static_cast<double>(bytes);
    const double sum = gbps(b, h2d->median_ms) + gbps(b, d2h->median_ms);
    table.add_row({format_size(bytes), gbps_text(b, h2d->median_ms), gbps_text(b, d2h->median_ms),
                   gbps_text(2.0 * b, both->median_ms), fixed(100.0 * gbps(2.0 * b, both->median_ms) / sum, 0) + "%"});
  }
  out << "\n1c) pinned, H2D and D2H at once on two streams (two copy engines; this device has "
      << device_.async_engines << "), GB/s\n";
  table.print(out);
}

void CopyReport::print_staging(std::ostream& out) const {
  if (!measures(HostMemory::pageable) || !measures(HostMemory::pinned)) {
    out << "\n2) staging cost: skipped (needs both pageable and pinned in --host-memory)\n";
    return;
  }
  Table table({"size", "host memcpy", "pageable H2D", "memcpy + pinned H2D", "pageable D2H", "memcpy + pinned D2H"});
  std::optional<std::uint64_t> largest;
  for (std::uint64_t bytes : options_.sizes) {
    const Summary* memcpy_time = find(bytes, SweepOp::host_memcpy, HostMemory::pageable, CopyDirection::h2d);
    if (!memcpy_time) continue;
    std::vector<std::string> row{format_size(bytes), ms_text(memcpy_time->median_ms)};
    for (CopyDirection direction : {CopyDirection::h2d, CopyDirection::d2h}) {
      const Summary* pageable = find(bytes, SweepOp::copy, HostMemory::pageable, direction);
      const Summary* pinned = find(bytes, SweepOp::copy, HostMemory::pinned, direction);
      row.push_back(pageable ? ms_text(pageable->median_ms) : "-");
      row.push_back(pinned ? ms_text(memcpy_time->median_ms + pinned->median_ms) : "-");
    }
    table.add_row(row);
    largest = bytes;
  }
  out << "\n2) the staging cost of pageable copies, ms (median): the driver copies pageable data through its own\n"
         "   pinned buffer, so a pageable copy costs about a host memcpy plus the pinned DMA\n";
  table.print(out);
  if (!largest) return;
  const Summary* memcpy_time = find(*largest, SweepOp::host_memcpy, HostMemory::pageable, CopyDirection::h2d);
  const Summary* pageable = find(*largest, SweepOp::copy, HostMemory::pageable, CopyDirection::h2d);
  const Summary* pinned = find(*largest, SweepOp::copy, HostMemory::pinned, CopyDirection::h2d);
  if (memcpy_time && pageable && pinned) {
    out << staging_text(format_size(*largest), pageable->median_ms, memcpy_time->median_ms, pinned->median_ms)
        << '\n';
  }
}

void CopyReport::print_overlap(std::ostream& out) const {
  if (!overlap_) {
    out << "\n3) async copies beside a kernel: skipped (needs pageable or pinned in --host-memory)\n";
    return;
  }
  const OverlapMeasurements& o = *overlap_;
  out << "\n3) cudaMemcpyAsync of " << format_size(overlap_bytes_) << " on one stream beside a busy kernel on another "
      << "(kernel alone: " << ms_text(o.kernel_alone.median_ms) << " ms)\n"
      << "   medians; overlap = (kernel alone + copy alone) / together; ideal = that sum / the longer of the two\n";
  Table table({"memory", "copy", "issue order", "host blocked ms", "copy alone ms", "together ms",
               "copy end - kernel end ms", "overlap", "ideal"});
  for (const OverlapResult& r : o.cases) {
    table.add_row({kind_name(r.c.kind), direction_label(r.c.direction), order_label(r.c.kernel_first),
                   ms_text(r.host_blocked.median_ms), ms_text(r.copy_alone.median_ms), ms_text(r.together.median_ms),
                   ms_text(r.copy_end_after_kernel_end.median_ms), fixed(r.overlap_ratio, 2) + "x",
                   fixed(r.ideal_ratio, 2) + "x"});
  }
  table.print(out);

  auto find_case = [&](HostMemory kind, bool kernel_first) -> const OverlapResult* {
    for (const OverlapResult& r : o.cases) {
      if (r.c.kind == kind && r.c.direction == CopyDirection::h2d && r.c.kernel_first == kernel_first) return &r;
    }
    return nullptr;
  };
  const OverlapResult* pageable_after = find_case(HostMemory::pageable, true);
  const OverlapResult* pageable_before = find_case(HostMemory::pageable, false);
  const OverlapResult* pinned_before = find_case(HostMemory::pinned, false);
  if (pageable_after && pageable_before) {
    const double early = -pageable_after->copy_end_after_kernel_end.median_ms;
    // Overlapped when together took clearly less than kernel + copy one after the other.
    const bool overlapped = pageable_after->overlap_ratio > kOverlappedRatio;
    out << host_blocked_text(pageable_after->host_blocked.median_ms, pageable_after->copy_alone.median_ms) << ' '
        << (overlapped ? "Yet with the kernel already queued, the copy ran beside it:\n"
                       : "Here the copy did not run beside the kernel either:\n")
        << "it ended " << ms_text(std::abs(early)) << " ms " << (early >= 0 ? "before" : "after")
        << " the kernel (overlap " << fixed(pageable_after->overlap_ratio, 2) << "x). ";
    if (overlapped) {
      out << "So the article's \"no overlap from pageable\n"
          << "memory\" is half true. What is lost is the host: while blocked it can't queue more work, so a\n";
    } else {
      out << "On this system the article's \"no overlap from\n"
          << "pageable memory\" holds for the copy too. And while blocked the host can't queue more work, so a\n";
    }
    out << "pipeline issued from one thread (copy, then kernel) gets " << fixed(pageable_before->overlap_ratio, 2) << "x";
    if (pinned_before) {
      out << "; pinned memory returns in " << ms_text(pinned_before->host_blocked.median_ms) << " ms and gets "
          << fixed(pinned_before->overlap_ratio, 2) << "x";
    }
    out << ".\n";
  }
}

void CopyReport::print_pinning(std::ostream& out) const {
  out << "\n4) what pinning costs, ms (median of " << options_.pin_repeats
      << " rounds; GB/s = bytes made usable per second)\n";
  if (!pinning_.empty()) {
    Table table({"size", "cudaMallocHost", "GB/s", "cudaFreeHost", "malloc + touch", "GB/s", "cudaHostRegister",
                 "GB/s", "cudaHostUnregister"});
    for (const PinningCost& c : pinning_) {
      const double b = static_cast<double>(c.bytes);
      table.add_row({format_size(c.bytes), ms_text(c.malloc_host.median_ms), gbps_text(b, c.malloc_host.median_ms),
                     ms_text(c.free_host.median_ms), ms_text(c.malloc_touch.median_ms),
                     gbps_text(b, c.malloc_touch.median_ms), ms_text(c.host_register.median_ms),
                     gbps_text(b, c.host_register.median_ms), ms_text(c.host_unregister.median_ms)});
    }
    table.print(out);
  }
  for (std::uint64_t bytes : pinning_plan_.skipped) {
    out << "skipped " << format_size(bytes) << ": more than half of the " << format_bytes(*pinning_plan_.available_bytes)
        << " of host memory available\n";
  }
  out << "Peak pinned memory: " << format_bytes(sweep_peak_pinned_bytes()) << " during the sweep (its page-locked buffers "
      << "at " << format_size(options_.sizes.back()) << ")";
  if (!pinning_.empty()) out << ", " << format_size(pinning_.back().bytes) << " in this experiment";
  if (pinning_plan_.available_bytes) out << "; " << format_bytes(*pinning_plan_.available_bytes) << " were available";
  out << ".\nPinned pages can't be swapped or moved: the rest of the system loses them until they are freed.\n";
}

void CopyReport::print(std::ostream& out) const {
  std::string kinds;
  for (HostMemory kind : kinds_) {
    if (!kinds.empty()) kinds += ", ";
    kinds += kind_name(kind);
  }
  out << "02_pinned_vs_pageable on " << device_.summary() << '\n'
      << options_.sizes.size() << " sizes from " << format_size(options_.sizes.front()) << " to "
      << format_size(options_.sizes.back()) << "; " << kinds << " host memory; median of "
      << options_.common.plan.repeats << " runs after " << options_.common.plan.warmup
      << " warm-up, in interleaved rounds; GB/s = 10^9 bytes/s\n";
  for (const std::string& note : notes_) out << "note: " << note << '\n';
  print_bandwidth(out, CopyDirection::h2d);
  print_bandwidth(out, CopyDirection::d2h);
  print_bidirectional(out);
  print_staging(out);
  print_overlap(out);
  print_pinning(out);

  out << "\nPeaks, GB/s (H2D / D2H):";
  for (HostMemory kind : kinds_) {
    const auto h2d = peak_gbps(kind, CopyDirection::h2d);
    const auto d2h = peak_gbps(kind, CopyDirection::d2h);
    if (h2d && d2h) out << ' ' << kind_name(kind) << ' ' << fixed(*h2d, 1) << " / " << fixed(*d2h, 1) << ';';
  }
  if (const auto both = peak_gbps(HostMemory::pinned, CopyDirection::bidirectional)) {
    out << " pinned both ways at once " << fixed(*both, 1);
  }
  out << '\n';
  for (CopyDirection direction : {CopyDirection::h2d, CopyDirection::d2h}) {
    const auto pinned = peak_gbps(HostMemory::pinned, direction);
    const auto pageable = peak_gbps(HostMemory::pageable, direction);
    if (pinned && pageable) out << peak_ratio_text(direction, *pinned, *pageable) << '\n';
  }
  if (passed()) {
    out << "all " << checks_.size() << " round trips bit-exact (every size and kind of the sweep"
        << (overlap_ ? ", and the overlap buffers" : "") << ")\n";
  } else {
    out << "VERIFICATION FAILED: " << failure_message() << '\n';
  }
}

// ---- JSON -------------------------------------------------------------------

nlohmann::json CopyReport::to_json() const {
  StageResult result;
  result.stage = "02_pinned_vs_pageable";
  result.device = device_;
  nlohmann::json kinds = nlohmann::json::array();
  for (HostMemory kind : kinds_) kinds.push_back(kind_name(kind));
  result.config = {
      {"sizes", sizes_json(options_.sizes)},
      {"host_memory", kinds},
      {"quick", options_.quick},
      {"warmup", options_.common.plan.warmup},
      {"repeats", options_.common.plan.repeats},
      {"seed", options_.common.seed},
      {"overlap_bytes", options_.overlap_bytes},
      {"kernel_ms", options_.kernel_ms},
      {"pin_sizes", sizes_json(options_.pin_sizes)},
      {"pin_repeats", options_.pin_repeats},
  };
  std::vector<bool> unchecked;  // verified is written as null: nothing to check
  auto add = [&](Measurement m, bool checkable) {
    result.measurements.push_back(std::move(m));
    unchecked.push_back(!checkable);
  };

  for (const SweepPoint& p : sweep_) {
    const double bytes = static_cast<double>(p.bytes);
    if (p.key.op == SweepOp::host_memcpy) {
      add({"host_memcpy", {{"bytes", p.bytes}}, p.stats, Work{bytes, 0.0}, false}, false);
      continue;
    }
    const double moved = p.key.direction == CopyDirection::bidirectional ? 2.0 * bytes : bytes;
    add({"copy",
         {{"host_memory", kind_name(p.key.kind)}, {"direction", std::string(to_string(p.key.direction))},
          {"bytes", p.bytes}},
         p.stats, Work{moved, 0.0}, verified("sweep", p.bytes, p.key.kind)},
        true);
  }

  nlohmann::json overlap = nlohmann::json::array();
  if (overlap_) {
    add({"busy_kernel", {{"requested_ms", options_.kernel_ms}}, overlap_->kernel_alone, Work{}, false}, false);
    for (const OverlapResult& r : overlap_->cases) {
      const bool ok = verified("overlap", overlap_bytes_, r.c.kind);
      const nlohmann::json copy = {{"host_memory", kind_name(r.c.kind)},
                                   {"direction", std::string(to_string(r.c.direction))},
                                   {"bytes", overlap_bytes_}};
      nlohmann::json params = copy;
      params["order"] = r.c.kernel_first ? "kernel_first" : "copy_first";
      const Work moved{static_cast<double>(overlap_bytes_), 0.0};
      if (r.c.kernel_first) add({"overlap_copy_alone", copy, r.copy_alone, moved, ok}, true);
      add({"overlap_together", params, r.together, Work{}, ok}, true);
      add({"overlap_host_blocked", params, r.host_blocked, Work{}, ok}, true);
      // When the copy ended relative to the kernel is a signed difference, not
      // a duration: it goes in the "overlap" rows below, not in measurements.
      nlohmann::json row = params;
      row["kernel_alone_ms"] = overlap_->kernel_alone.median_ms;
      row["copy_alone_ms"] = r.copy_alone.median_ms;
      row["together_ms"] = r.together.median_ms;
      row["host_blocked_ms"] = r.host_blocked.median_ms;
      row["copy_end_after_kernel_end_ms"] = r.copy_end_after_kernel_end.median_ms;
      row["overlap_ratio"] = r.overlap_ratio;
      row["ideal_ratio"] = r.ideal_ratio;
      overlap.push_back(row);
    }
  }

  for (const PinningCost& c : pinning_) {
    const Work made_usable{static_cast<double>(c.bytes), 0.0};
    const std::pair<const char*, const Summary*> calls[] = {
        {"cudaMallocHost", &c.malloc_host},       {"cudaFreeHost", &c.free_host},
        {"malloc_first_touch", &c.malloc_touch},  {"cudaHostRegister", &c.host_register},
        {"cudaHostUnregister", &c.host_unregister}};
    for (const auto& [call, stats] : calls) {
      add({"pin_cost", {{"call", call}, {"bytes", c.bytes}}, *stats, made_usable, false}, false);
    }
  }

  nlohmann::json staging = nlohmann::json::array();
  for (std::uint64_t bytes : options_.sizes) {
    const Summary* memcpy_time = find(bytes, SweepOp::host_memcpy, HostMemory::pageable, CopyDirection::h2d);
    for (CopyDirection direction : {CopyDirection::h2d, CopyDirection::d2h}) {
      const Summary* pageable = find(bytes, SweepOp::copy, HostMemory::pageable, direction);
      const Summary* pinned = find(bytes, SweepOp::copy, HostMemory::pinned, direction);
      if (!memcpy_time || !pageable || !pinned) continue;
      const double staged = memcpy_time->median_ms + pinned->median_ms;
      staging.push_back({{"bytes", bytes},
                         {"direction", std::string(to_string(direction))},
                         {"pageable_ms", pageable->median_ms},
                         {"host_memcpy_ms", memcpy_time->median_ms},
                         {"pinned_ms", pinned->median_ms},
                         {"memcpy_plus_pinned_ms", staged},
                         {"pageable_over_memcpy_plus_pinned", pageable->median_ms / staged}});
    }
  }

  for (HostMemory kind : kinds_) {
    for (CopyDirection direction : {CopyDirection::h2d, CopyDirection::d2h}) {
      if (const auto peak = peak_gbps(kind, direction)) {
        result.bounds[key_name(kind) + "_" + std::string(to_string(direction)) + "_peak_gbps"] = *peak;
      }
    }
  }
  if (const auto both = peak_gbps(HostMemory::pinned, CopyDirection::bidirectional)) {
    result.bounds["bidirectional_peak_gbps"] = *both;
  }
  const std::uint64_t largest = options_.sizes.back();
  for (CopyDirection direction : {CopyDirection::h2d, CopyDirection::d2h}) {
    const Summary* pinned = find(largest, SweepOp::copy, HostMemory::pinned, direction);
    const Summary* pageable = find(largest, SweepOp::copy, HostMemory::pageable, direction);
    if (pinned && pageable) {
      result.bounds["pinned_over_pageable_" + std::string(to_string(direction)) + "_at_largest"] =
          pageable->median_ms / pinned->median_ms;
    }
  }
  if (overlap_) {
    for (const OverlapResult& r : overlap_->cases) {
      if (r.c.direction != CopyDirection::h2d || !r.c.kernel_first) continue;
      result.bounds[key_name(r.c.kind) + "_h2d_async_host_blocked_ms"] = r.host_blocked.median_ms;
      result.bounds[key_name(r.c.kind) + "_h2d_overlap_ratio"] = r.overlap_ratio;
    }
  }
  result.bounds["sweep_peak_pinned_bytes"] = sweep_peak_pinned_bytes();
  if (!pinning_.empty()) result.bounds["pinning_peak_pinned_bytes"] = pinning_.back().bytes;

  int passed_checks = 0;
  for (const Check& c : checks_) passed_checks += c.mismatch ? 0 : 1;
  result.verification.passed = passed();
  result.verification.batches_checked = static_cast<int>(checks_.size());
  result.verification.method = "round-trip bit-exact";
  result.variants_verified = passed_checks;

  nlohmann::json doc = csg::to_json(result);
  for (std::size_t i = 0; i < unchecked.size(); ++i) {
    if (unchecked[i]) doc["measurements"][i]["verified"] = nullptr;
  }
  if (!passed()) doc["verification"]["failure"] = failure_message();
  doc["staging"] = staging;
  doc["overlap"] = overlap;
  nlohmann::json skipped = nlohmann::json::array();
  for (std::uint64_t bytes : pinning_plan_.skipped) skipped.push_back(bytes);
  doc["pinning"] = {{"sizes", sizes_json(pinning_plan_.sizes)},
                    {"skipped_sizes", skipped},
                    {"available_host_bytes", pinning_plan_.available_bytes
                                                 ? nlohmann::json(*pinning_plan_.available_bytes)
                                                 : nlohmann::json(nullptr)}};
  doc["notes"] = notes_;
  return doc;
}

}  // namespace csg::copies
