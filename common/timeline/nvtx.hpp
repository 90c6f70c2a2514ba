// Named NVTX ranges around the phases of a stage (allocate, warm-up and timing,
// verify, the timeline run), so that `nsys profile ./01_serial_baseline`
// shows them above the CUDA rows.
//
//   { csg::ScopedRange range("verify"); ... }   // the range ends with the scope
//
// Header-only NVTX v3 from the toolkit (CUDA::nvtx3). Without a tool attached
// the first call finds no injection library and every later push/pop is a
// call through a null-checked function pointer: a few ns, nothing next to a
// 0.2 ms kernel.
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
