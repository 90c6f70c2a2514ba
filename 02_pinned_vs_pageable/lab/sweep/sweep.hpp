// 02_pinned_vs_pageable sweep: H2D and D2H bandwidth of every kind of host
// memory over a size sweep (tables 1a, 1b), pinned both ways at once (1c,
// "sweep.both_ways"), and the staging copy a pageable copy makes, done by hand
// beside it (2, "sweep.staging"); the peaks ("sweep.peak.<direction>"). Declared
// in sweep.cpp; its configuration, figures and report are here for the CPU tests.
// JSON measurements:
//   "copy"        one per (host_memory, direction, bytes); gbps from work.bytes
//                 (both directions' bytes for "bidirectional")
//   "host_memcpy" per bytes: the staging copy done by hand (verified: null)
// and beside them "staging" (per size and direction), "notes", and in
// "bounds": <kind>_<direction>_peak_gbps, bidirectional_peak_gbps,
// pinned_over_pageable_<direction>_at_largest, sweep_peak_pinned_bytes.
#pragma once

#include "02_pinned_vs_pageable/copy_buffers.hpp"
#include "02_pinned_vs_pageable/report.hpp"
#include "experiment/lab.hpp"

namespace csg::copies::sweep {

struct Config {
  CommonOptions common;              // warmup, repeats, seed, json path, max-minutes
  std::vector<std::uint64_t> sizes;  // ascending, bytes
  std::vector<HostMemory> kinds;     // in the order pageable, pinned, registered, write-combined
  bool quick = false;
};

struct Figures {
  std::vector<HostMemory> kinds;   // those this device could measure
  std::vector<std::string> notes;  // why a kind was left out
  std::vector<CopyPoint> copies;   // every kind each way at every size; pinned both ways at once
  std::map<std::uint64_t, Summary> host_memcpy;  // per size: the staging copy done by hand
  ByteChecks checks;  // every size and kind: what the timed copies left, then a fresh round trip

  bool measures(HostMemory kind) const { return std::find(kinds.begin(), kinds.end(), kind) != kinds.end(); }
  const Summary* copy(std::uint64_t bytes, HostMemory kind, CopyDirection direction) const {
    return find_copy(copies, bytes, kind, direction);
  }
  const Summary* memcpy_at(std::uint64_t bytes) const {
    const auto found = host_memcpy.find(bytes);
    return found == host_memcpy.end() ? nullptr : &found->second;
  }
};

// --sizes LIST and --quick (with copy_defaults' --host-memory LIST), and
// what they make: the sizes ascending (--sizes, else --quick's four, else
// powers of 4 from 4 KiB to 1 GiB); --quick's 1 + 5 rounds unless given.
void options(StageCli& cli);
Config read(const StageCli& cli, CommonOptions& common);

// The tables, the verdicts, the checks and the JSON.
void report(const Config& config, const Figures& figures, Report& report);

}  // namespace csg::copies::sweep
