// What stage 02's lesson and its laboratory print and write alike: the
// sentences that interpret the copies' figures (each chosen by them, with a
// stated threshold), the bit-exact checks of every experiment that moves
// bytes, the words and units of the tables, and the results JSON's frame
// (schema cuda-streams-graphs/result/v1, with "subcommand").
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "copy_buffers.hpp"
#include "report/result.hpp"

namespace csg::copies {

// ---- the sentences -----------------------------------------------------------

// The overlap experiment's: a pageable H2D beside a busy kernel that held the
// host at least kBlockedShare of the copy's own time is not asynchronous for the host.
inline constexpr double kBlockedShare = 0.5;
std::string host_blocked_text(double host_blocked_ms, double copy_alone_ms);

// The lesson's: how long one cudaMemcpyAsync kept the host against the copy
// itself. At least kBlockedShare of it: the call returned only after (most
// of) the copy, synchronous for the host; at most kAtOnceShare: it
// returned at once; between: before the copy ended, but not at once.
inline constexpr double kAtOnceShare = 0.10;
std::string async_call_text(HostMemory kind, CopyDirection direction, double call_ms, double copy_ms);

// A pageable copy against a host memcpy plus the pinned copy, one after the
// other: within kStagingWithin of it, the staging copy is the whole difference.
inline constexpr double kStagingWithin = 0.10;
std::string staging_text(const std::string& size, double pageable_ms, double memcpy_ms, double pinned_ms);

// Pinned against pageable bandwidth `where` ("peaks", "at 256 MiB"): faster,
// the same within 3% (report/conclusions.hpp), or slower.
std::string bandwidth_ratio_text(CopyDirection direction, const std::string& where, double pinned_gbps,
                                 double pageable_gbps);
// The same at each kind's best size: "H2D peaks: pinned 55.3 GB/s, ...".
std::string peak_ratio_text(CopyDirection direction, double pinned_gbps, double pageable_gbps);

// ---- the checks --------------------------------------------------------------

// Every bit-exact check of a run: one per experiment, size and kind.
class ByteChecks {
 public:
  // Returns whether it passed.
  bool add(const std::string& experiment, std::uint64_t bytes, HostMemory kind,
           const std::optional<ByteMismatch>& mismatch);
  // Something was checked, and nothing differed.
  bool passed() const;
  // Every check of `experiment` at `bytes` and `kind` passed, and there was one.
  bool verified(const std::string& experiment, std::uint64_t bytes, HostMemory kind) const;
  std::size_t size() const { return checks_.size(); }
  int passed_count() const;
  // The first failure ("round trip not bit-exact (sweep, 4 KiB, pinned memory):
  // byte 12 expected 0x0b, got 0x00"), "nothing was checked", or "".
  std::string failure_message() const;
  // "all 18 round trips bit-exact" or "VERIFICATION FAILED: ..." (no newline).
  std::string summary() const;

 private:
  struct Check {
    std::string experiment;
    std::uint64_t bytes;
    HostMemory kind;
    std::optional<ByteMismatch> mismatch;
  };
  std::vector<Check> checks_;
};

// ---- words, units and the JSON's frame ----------------------------------------

std::string kind_name(HostMemory kind);  // "write-combined"
std::string key_name(HostMemory kind);   // "write_combined": for JSON keys
std::string direction_label(CopyDirection direction);  // "H2D", "D2H", "both ways"
// Milliseconds with enough digits for microsecond-scale values.
std::string ms_text(double ms);
std::string gbps_text(double bytes, double ms);
std::string byte_text(std::byte value);  // "0x0b"
nlohmann::json sizes_json(const std::vector<std::uint64_t>& sizes);
nlohmann::json kinds_json(const std::vector<HostMemory>& kinds);
std::string kinds_text(const std::vector<HostMemory>& kinds);  // "pageable, pinned"

// A stage-02 result being built: its measurements, each with whether it has
// anything to check ("verified" is null where not), and what failed, if anything.
struct CopyResult {
  // Stage 02's result on `device`, with the run's `config`.
  CopyResult(const DeviceInfo& device, nlohmann::json config);
  StageResult result;
  std::vector<bool> checkable;
  std::string failure;  // written as verification.failure when not empty
  void add(Measurement measurement, bool has_check);
  // verification from `checks`: method "round-trip bit-exact", one entry per check.
  void verify_with(const ByteChecks& checks);
};

// Its JSON, with "subcommand" (null for the lesson).
nlohmann::json to_json(const CopyResult& copy, const std::optional<std::string>& subcommand);

}  // namespace csg::copies
