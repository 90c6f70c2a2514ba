// parallel_for: split [0, count) into contiguous chunks over the host's cores,
// each of at least `grain` items (fewer items than two grains run on the
// calling thread: starting a thread costs more than filling a small matrix).
// Used for filling inputs and verifying batches; results never depend on the
// number of threads.
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>

namespace csg {

// Floats worth a thread of their own (256 KiB): filling, hashing or checking
// them takes longer than starting the thread (tens of µs). A 64x64 matrix
// stays on the calling thread, the article's 1024x512 A goes to eight.
inline constexpr std::size_t kFloatsPerThread = std::size_t(1) << 16;

// The grain for items of `floats` floats each: enough of them to be worth a
// thread, at least one. Many small outputs are checked a run of them per
// thread instead of a thread each.
constexpr std::size_t grain_for(std::size_t floats) {
  return std::max<std::size_t>(1, kFloatsPerThread / std::max<std::size_t>(1, floats));
}

void parallel_for(std::size_t count, const std::function<void(std::size_t begin, std::size_t end)>& body,
                  std::size_t grain = 1);

}  // namespace csg
