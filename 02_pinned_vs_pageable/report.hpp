// Stage 02's results: what each of its four experiments measured, printed as
// one table per experiment, and written as JSON (schema
// cuda-streams-graphs/result/v1). JSON measurements:
//   "copy"        one per (host_memory, direction, bytes); gbps from work.bytes
//                 (both directions' bytes for "bidirectional")
//   "host_memcpy" per bytes: the staging copy done by hand (verified: null)
//   "busy_kernel", "overlap_copy_alone", "overlap_together",
//   "overlap_host_blocked", "overlap_copy_end_after_kernel_end"
//   "pin_cost"    one per (call, bytes); gbps = bytes made usable per second (verified: null)
// and, beside the shared fields: "staging", "overlap" (ratios per case),
// "pinning" (skipped sizes, peak pinned bytes), "notes". "bounds" holds the
// headline figures: <kind>_<direction>_peak_gbps, bidirectional_peak_gbps, ...
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "options.hpp"
#include "copy_buffers.hpp"
#include "report/device_info.hpp"
#include "async_overlap.hpp"
#include "pinning_cost.hpp"
#include "measure/stats.hpp"

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

// The sentences stage 02 prints about its figures, each chosen by them with a
// stated threshold (report/conclusions.hpp: within 3% is equal).
// Held the host for at least kBlockedShare of the copy's own time: not asynchronous for the host.
inline constexpr double kBlockedShare = 0.5;
std::string host_blocked_text(double host_blocked_ms, double copy_alone_ms);
// A pageable copy against a host memcpy plus the pinned copy, one after the
// other: within kStagingWithin of it, the staging copy is the whole difference.
inline constexpr double kStagingWithin = 0.10;
std::string staging_text(const std::string& size, double pageable_ms, double memcpy_ms, double pinned_ms);
// Pinned against pageable bandwidth, each at its best size.
std::string peak_ratio_text(CopyDirection direction, double pinned_gbps, double pageable_gbps);

class CopyReport {
 public:
  CopyReport(const CopyOptions& options, DeviceInfo device, std::vector<HostMemory> kinds,
             std::vector<std::string> notes);

  const DeviceInfo& device() const { return device_; }
  // The PCIe link can train down while the GPU idles: re-read it after the run.
  void set_device(DeviceInfo device) { device_ = std::move(device); }
  const std::vector<HostMemory>& kinds() const { return kinds_; }
  bool measures(HostMemory kind) const;

  void add_sweep(std::uint64_t bytes, const SweepVariants& variants, const std::vector<Summary>& summaries);
  // One bit-exact check of `experiment` ("sweep", "overlap") at one size and
  // kind; returns whether it passed.
  bool add_check(const std::string& experiment, std::uint64_t bytes, HostMemory kind,
                 const std::optional<ByteMismatch>& mismatch);
  void set_overlap(std::uint64_t bytes, OverlapMeasurements overlap);
  void set_pinning(PinningPlan plan, std::vector<PinningCost> costs);

  bool passed() const;
  void print(std::ostream& out) const;
  nlohmann::json to_json() const;

 private:
  struct SweepPoint {
    std::uint64_t bytes;
    SweepKey key;
    Summary stats;
  };
  struct Check {
    std::string experiment;
    std::uint64_t bytes;
    HostMemory kind;
    std::optional<ByteMismatch> mismatch;
  };

  const Summary* find(std::uint64_t bytes, SweepOp op, HostMemory kind, CopyDirection direction) const;
  bool verified(const std::string& experiment, std::uint64_t bytes, HostMemory kind) const;
  std::optional<double> peak_gbps(HostMemory kind, CopyDirection direction) const;
  std::uint64_t sweep_peak_pinned_bytes() const;
  std::string failure_message() const;

  void print_bandwidth(std::ostream& out, CopyDirection direction) const;
  void print_bidirectional(std::ostream& out) const;
  void print_staging(std::ostream& out) const;
  void print_overlap(std::ostream& out) const;
  void print_pinning(std::ostream& out) const;

  CopyOptions options_;
  DeviceInfo device_;
  std::vector<HostMemory> kinds_;
  std::vector<std::string> notes_;
  std::vector<SweepPoint> sweep_;
  std::vector<Check> checks_;
  std::uint64_t overlap_bytes_ = 0;
  std::optional<OverlapMeasurements> overlap_;
  PinningPlan pinning_plan_;
  std::vector<PinningCost> pinning_;
};

}  // namespace csg::copies
