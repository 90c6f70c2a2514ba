// CopySet: every buffer stage 02 needs for one transfer size, owned in one place.
//   host:   for each host memory kind measured, a source holding the byte
//           pattern and a destination (poisoned with 0 until a copy fills it)
//   device: device_in (where H2D copies land) and device_out (where D2H copies
//           come from; it holds the pattern, so no copy ever moves zeros)
//   plus, when write-combined memory is measured, a pinned read-back buffer:
//   the host must not read write-combined memory (uncached, ~100x slower), so
//   its contents are checked by copying them through the GPU instead.
// The round trip (source -> device -> destination, checked bit-exactly) uses
// the same cudaMemcpyAsync calls as the timed copies.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "owners.hpp"
#include "stage.hpp"

// ---- the bytes every copy moves -------------------------------------------
// A byte pattern from a seed, so a copy that moved nothing, the wrong range or
// stale data can't pass: byte i is byte (i mod 8) of splitmix64(seed, i / 8)
// with its lowest bit set, never zero, so never the poison an unwritten byte keeps.
namespace csg::copies {

// What every destination is filled with before a checked copy.
inline constexpr std::byte kPoisonByte{0x00};

void fill_pattern(std::span<std::byte> out, std::uint64_t seed);

// The expected value of byte `index` of the pattern.
std::byte pattern_byte(std::uint64_t seed, std::size_t index);

struct ByteMismatch {
  std::size_t offset = 0;
  std::byte expected{};
  std::byte got{};
};

// The first byte of `data` that differs from the pattern, or nothing.
std::optional<ByteMismatch> find_pattern_mismatch(std::span<const std::byte> data, std::uint64_t seed);

enum class CopyDirection { h2d, d2h, bidirectional };

// "h2d", "d2h", "bidirectional": the names the JSON uses.
std::string_view to_string(CopyDirection direction);

// Allocates `bytes` of host memory of `kind` and hands it to an owner.
using HostAllocator = std::function<HostBuffer<std::byte>(HostMemory kind, std::size_t bytes)>;

// The four kinds, each allocated the way the CUDA runtime offers it (the
// calls written out in copy_buffers.cpp): malloc, cudaMallocHost,
// cudaHostRegister on malloc'd pages, cudaHostAlloc(cudaHostAllocWriteCombined).
HostBuffer<std::byte> allocate_host(HostMemory kind, std::size_t bytes);

class CopySet {
 public:
  // Allocates and fills everything, the host buffers through `allocate`
  // (allocate_host, or a test's own); throws std::logic_error where one is not the
  // kind it claims (cudaPointerGetAttributes). Returns with device_out holding the pattern.
  CopySet(std::size_t bytes, std::span<const HostMemory> kinds, std::uint64_t seed, const HostAllocator& allocate);

  std::size_t bytes() const noexcept { return bytes_; }
  const std::byte* host_src(HostMemory kind) const;
  std::byte* host_dst(HostMemory kind);
  std::byte* device_in() noexcept { return device_in_.data(); }
  const std::byte* device_out() const noexcept { return device_out_.data(); }

  // The bit-exact round trip for one kind, on `stream`: poison device_in,
  // copy host_src(kind) into it, poison host_dst(kind), copy device_in back
  // into it, check every byte. Leaves host_dst(kind) holding the pattern.
  std::optional<ByteMismatch> round_trip(HostMemory kind, cudaStream_t stream);

  // Checks what the timed D2H copies left in host_dst(kind): every byte of
  // device_out. Overwrites device_in when it has to read through the GPU.
  std::optional<ByteMismatch> check_destination(HostMemory kind, cudaStream_t stream);

  // Both, in that order: what the timed copies left, then a fresh round trip.
  std::optional<ByteMismatch> verify(HostMemory kind, cudaStream_t stream);

  // What a CopySet of `bytes` allocates page-locked; and all it allocates, on
  // the host (all kinds) and on the device, as the run's needs, checked before
  // anything is allocated.
  static std::uint64_t pinned_bytes_needed(std::uint64_t bytes, std::span<const HostMemory> kinds);
  static MemoryNeeds needs(std::uint64_t bytes, std::span<const HostMemory> kinds);

 private:
  struct KindBuffers {
    HostMemory kind;
    HostBuffer<std::byte> src;
    HostBuffer<std::byte> dst;
  };
  std::size_t index_of(HostMemory kind) const;
  KindBuffers& buffers(HostMemory kind);
  const KindBuffers& buffers(HostMemory kind) const;
  // The host-readable copy of host_dst(kind): itself, or (write-combined) the
  // read-back buffer after a trip through device_in.
  std::span<const std::byte> readable_dst(HostMemory kind, cudaStream_t stream);

  std::size_t bytes_;
  std::uint64_t seed_;
  std::vector<KindBuffers> kinds_;
  DeviceBuffer<std::byte> device_in_;
  DeviceBuffer<std::byte> device_out_;
  HostBuffer<std::byte> readback_;  // pinned; empty unless write-combined is measured
};

}  // namespace csg::copies
