// What the sweep measured, printed as its tables and written as JSON:
//   1a/1b  H2D and D2H GB/s of every kind at every size, pinned/pageable
//   1c     pinned H2D and D2H at once, against the two alone
//   2      the staging cost: a pageable copy against a host memcpy plus the pinned copy
//   the peaks of each kind, pinned against pageable at them, and the checks.
// JSON measurements:
//   "copy"        one per (host_memory, direction, bytes); gbps from work.bytes
//                 (both directions' bytes for "bidirectional")
//   "host_memcpy" per bytes: the staging copy done by hand (verified: null)
// and beside them "staging" (per size and direction), "notes", and in
// "bounds": <kind>_<direction>_peak_gbps, bidirectional_peak_gbps,
// pinned_over_pageable_<direction>_at_largest, sweep_peak_pinned_bytes.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "02_pinned_vs_pageable/copy_buffers.hpp"
#include "measure/stats.hpp"
#include "02_pinned_vs_pageable/options.hpp"
#include "02_pinned_vs_pageable/report.hpp"
#include "report/device_info.hpp"

namespace csg::copies {

enum class SweepOp { copy, host_memcpy };

struct SweepKey {
  SweepOp op = SweepOp::copy;
  HostMemory kind = HostMemory::pageable;
  CopyDirection direction = CopyDirection::h2d;
};

// The variants of one size of the sweep, in the order they are timed.
struct SweepVariants {
  std::vector<SweepKey> keys;
  std::vector<TimedVariant> timed;
  void add(SweepKey key, std::function<Millis()> run) {
    keys.push_back(key);
    timed.push_back({.prepare = nullptr, .run = std::move(run), .after_last = nullptr});
  }
};

class SweepReport {
 public:
  SweepReport(SweepOptions options, DeviceInfo device, std::vector<HostMemory> kinds, std::vector<std::string> notes);

  // The PCIe link can train down while the GPU idles: re-read it after the run.
  void set_device(DeviceInfo device) { device_ = std::move(device); }
  const std::vector<HostMemory>& kinds() const { return kinds_; }
  bool measures(HostMemory kind) const;

  void add_sweep(std::uint64_t bytes, const SweepVariants& variants, const std::vector<Summary>& summaries);
  // One bit-exact check of a size and kind; returns whether it passed.
  bool add_check(std::uint64_t bytes, HostMemory kind, const std::optional<ByteMismatch>& mismatch);

  bool passed() const { return checks_.passed(); }
  void print(std::ostream& out) const;
  nlohmann::json to_json() const;

 private:
  struct SweepPoint {
    std::uint64_t bytes;
    SweepKey key;
    Summary stats;
  };

  const Summary* find(std::uint64_t bytes, SweepOp op, HostMemory kind, CopyDirection direction) const;
  std::optional<double> peak_gbps(HostMemory kind, CopyDirection direction) const;
  std::uint64_t peak_pinned_bytes() const;

  void print_bandwidth(std::ostream& out, CopyDirection direction) const;
  void print_bidirectional(std::ostream& out) const;
  void print_staging(std::ostream& out) const;
  void print_peaks(std::ostream& out) const;

  SweepOptions options_;
  DeviceInfo device_;
  std::vector<HostMemory> kinds_;
  std::vector<std::string> notes_;
  std::vector<SweepPoint> sweep_;
  ByteChecks checks_;
};

}  // namespace csg::copies
