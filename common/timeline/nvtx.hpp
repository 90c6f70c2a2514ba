// Named NVTX ranges around the phases of a stage (allocate, warm-up and timing,
// verify, the timeline run), so that `nsys profile` shows them above the CUDA
// rows. Header-only NVTX v3; without a tool attached a push or pop costs a few ns.
#pragma once

#include <nvtx3/nvToolsExt.h>

namespace csg {

class ScopedRange {
 public:
  // `name` must outlive the call only (NVTX copies it).
  explicit ScopedRange(const char* name) { nvtxRangePushA(name); }
  ~ScopedRange() { end(); }
  // Ends the range before the scope does, e.g. after constructing objects
  // that must outlive it:  ScopedRange r("allocate"); Buffers b(...); r.end();
  void end() {
    if (open_) nvtxRangePop();
    open_ = false;
  }
  ScopedRange(const ScopedRange&) = delete;
  ScopedRange& operator=(const ScopedRange&) = delete;

 private:
  bool open_ = true;
};

}  // namespace csg
