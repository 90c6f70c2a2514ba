// The data every copy in stage 02 moves: a deterministic byte pattern from a
// seed, so a copy that moved nothing, moved the wrong range or moved stale
// data can't pass.
//
// Byte i is byte (i mod 8) of splitmix64(seed, i / 8) with its lowest bit set:
// every byte is odd, so it is never zero ("never time on zeros") and never
// equals the poison value 0 that destinations are filled with before a check,
// so an unwritten byte always fails.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

namespace csg {

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

}  // namespace csg
