#include "02_pinned_vs_pageable/lab/sweep/sweep_report.hpp"

#include <algorithm>

#include "base/text.hpp"
#include "report/conclusions.hpp"
#include "report/result.hpp"
#include "report/table.hpp"

namespace csg::copies {
namespace {

// The one check a sweep makes per size and kind.
constexpr const char* kExperiment = "sweep";

// Median GB/s with the range of the repeats: the fastest run is the min time.
std::string gbps_range_text(double bytes, const Summary& s) {
  return gbps_text(bytes, s.median_ms) + " (" + gbps_text(bytes, s.max_ms) + "-" + gbps_text(bytes, s.min_ms) + ")";
}

}  // namespace

SweepReport::SweepReport(SweepOptions options, DeviceInfo device, std::vector<HostMemory> kinds,
                         std::vector<std::string> notes)
    : options_(std::move(options)), device_(std::move(device)), kinds_(std::move(kinds)), notes_(std::move(notes)) {}

bool SweepReport::measures(HostMemory kind) const {
  return std::find(kinds_.begin(), kinds_.end(), kind) != kinds_.end();
}

void SweepReport::add_sweep(std::uint64_t bytes, const SweepVariants& variants, const std::vector<Summary>& summaries) {
  for (std::size_t i = 0; i < variants.keys.size(); ++i) sweep_.push_back({bytes, variants.keys[i], summaries.at(i)});
}

bool SweepReport::add_check(std::uint64_t bytes, HostMemory kind, const std::optional<ByteMismatch>& mismatch) {
  return checks_.add(kExperiment, bytes, kind, mismatch);
}

const Summary* SweepReport::find(std::uint64_t bytes, SweepOp op, HostMemory kind, CopyDirection direction) const {
  for (const SweepPoint& p : sweep_) {
    if (p.bytes == bytes && p.key.op == op &&
        (op == SweepOp::host_memcpy || (p.key.kind == kind && p.key.direction == direction))) {
      return &p.stats;
    }
  }
  return nullptr;
}

std::optional<double> SweepReport::peak_gbps(HostMemory kind, CopyDirection direction) const {
  std::optional<double> peak;
  const double copies = direction == CopyDirection::bidirectional ? 2.0 : 1.0;
  for (const SweepPoint& p : sweep_) {
    if (p.key.op != SweepOp::copy || p.key.kind != kind || p.key.direction != direction) continue;
    const double rate = gbps(copies * static_cast<double>(p.bytes), p.stats.median_ms);
    peak = std::max(peak.value_or(0.0), rate);
  }
  return peak;
}

std::uint64_t SweepReport::peak_pinned_bytes() const {
  return options_.sizes.empty() ? 0 : CopySet::pinned_bytes_needed(options_.sizes.back(), kinds_);
}

// ---- printing ---------------------------------------------------------------

void SweepReport::print_bandwidth(std::ostream& out, CopyDirection direction) const {
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

void SweepReport::print_bidirectional(std::ostream& out) const {
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

void SweepReport::print_staging(std::ostream& out) const {
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

void SweepReport::print_peaks(std::ostream& out) const {
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
  out << "Peak pinned memory: " << format_bytes(peak_pinned_bytes()) << " (the page-locked buffers at "
      << format_size(options_.sizes.back()) << ")\n";
}

void SweepReport::print(std::ostream& out) const {
  out << "02_pinned_vs_pageable sweep on " << device_.summary() << '\n'
      << plural(std::ssize(options_.sizes), "size") << (options_.sizes.size() == 1 ? ", " : " from ")
      << format_size(options_.sizes.front());
  if (options_.sizes.size() > 1) out << " to " << format_size(options_.sizes.back());
  out << "; " << kinds_text(kinds_) << " host memory; median of " << plural(options_.common.plan.repeats, "run")
      << " after " << options_.common.plan.warmup << " warm-up, in interleaved rounds; GB/s = 10^9 bytes/s\n";
  for (const std::string& note : notes_) out << "note: " << note << '\n';
  print_bandwidth(out, CopyDirection::h2d);
  print_bandwidth(out, CopyDirection::d2h);
  print_bidirectional(out);
  print_staging(out);
  print_peaks(out);
  out << checks_.summary();
  if (passed()) out << " (every size and kind: what the timed copies left, then a fresh round trip)";
  out << '\n';
}

// ---- JSON -------------------------------------------------------------------

nlohmann::json SweepReport::to_json() const {
  CopyResult copy(device_, {
                                {"sizes", sizes_json(options_.sizes)},
                                {"host_memory", kinds_json(kinds_)},
                                {"quick", options_.quick},
                                {"warmup", options_.common.plan.warmup},
                                {"repeats", options_.common.plan.repeats},
                                {"seed", options_.common.seed},
                            });
  StageResult& result = copy.result;
  for (const SweepPoint& p : sweep_) {
    const double bytes = static_cast<double>(p.bytes);
    if (p.key.op == SweepOp::host_memcpy) {
      copy.add({"host_memcpy", {{"bytes", p.bytes}}, p.stats, Work{bytes, 0.0}, false}, false);
      continue;
    }
    const double moved = p.key.direction == CopyDirection::bidirectional ? 2.0 * bytes : bytes;
    copy.add({"copy",
              {{"host_memory", kind_name(p.key.kind)},
               {"direction", std::string(to_string(p.key.direction))},
               {"bytes", p.bytes}},
              p.stats, Work{moved, 0.0}, checks_.verified(kExperiment, p.bytes, p.key.kind)},
             true);
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
  result.bounds["sweep_peak_pinned_bytes"] = peak_pinned_bytes();
  copy.verify_with(checks_);

  nlohmann::json doc = copies::to_json(copy, "sweep");
  doc["staging"] = staging;
  doc["notes"] = notes_;
  return doc;
}

}  // namespace csg::copies
