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
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "byte_pattern.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/host_buffer.hpp"

namespace csg {

enum class CopyDirection { h2d, d2h, bidirectional };

// "h2d", "d2h", "bidirectional": the names the JSON uses.
std::string_view to_string(CopyDirection direction);

// `kinds` less those this device can't use (registered memory where
// cudaDevAttrHostRegisterSupported is 0); each one dropped adds a line to `notes`.
std::vector<HostMemory> supported_kinds(const std::vector<HostMemory>& kinds, int device,
                                        std::vector<std::string>& notes);

class CopySet {
 public:
  // Allocates and fills everything; returns with device_out holding the pattern.
  CopySet(std::size_t bytes, std::span<const HostMemory> kinds, std::uint64_t seed);

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

  // What a CopySet of `bytes` allocates: on the host (all kinds), of that the
  // page-locked part, and on the device.
  static std::uint64_t host_bytes_needed(std::uint64_t bytes, std::span<const HostMemory> kinds);
  static std::uint64_t pinned_bytes_needed(std::uint64_t bytes, std::span<const HostMemory> kinds);
  static std::uint64_t device_bytes_needed(std::uint64_t bytes);

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

}  // namespace csg
