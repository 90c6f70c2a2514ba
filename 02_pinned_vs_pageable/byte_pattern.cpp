#include "byte_pattern.hpp"

#include <cstring>

#include "workload/workload.hpp"  // splitmix64

namespace csg {
namespace {

// Sets the lowest bit of every byte: all bytes odd, none zero.
constexpr std::uint64_t kOddBytes = 0x0101010101010101ull;

std::uint64_t pattern_word(std::uint64_t seed, std::size_t word) {
  return splitmix64(splitmix64(seed) ^ std::uint64_t(word)) | kOddBytes;
}

}  // namespace

// Single-threaded on purpose: the first touch places pageable pages on the
// NUMA node of the thread that writes them, and the copies then read them from
// the main thread's node, as a normal program's would be. At ~2 ns per 8 bytes
// a 1 GiB buffer takes ~0.3 s.
void fill_pattern(std::span<std::byte> out, std::uint64_t seed) {
  const std::size_t words = out.size() / sizeof(std::uint64_t);
  for (std::size_t w = 0; w < words; ++w) {
    const std::uint64_t value = pattern_word(seed, w);
    std::memcpy(out.data() + w * sizeof value, &value, sizeof value);  // any alignment, no aliasing issue
  }
  for (std::size_t i = words * sizeof(std::uint64_t); i < out.size(); ++i) out[i] = pattern_byte(seed, i);
}

std::byte pattern_byte(std::uint64_t seed, std::size_t index) {
  const std::uint64_t word = pattern_word(seed, index / sizeof(std::uint64_t));
  return static_cast<std::byte>((word >> (8 * (index % sizeof(std::uint64_t)))) & 0xffu);
}

std::optional<ByteMismatch> find_pattern_mismatch(std::span<const std::byte> data, std::uint64_t seed) {
  const std::size_t words = data.size() / sizeof(std::uint64_t);
  std::size_t first_bad_word = words;
  for (std::size_t w = 0; w < words; ++w) {
    std::uint64_t got = 0;
    std::memcpy(&got, data.data() + w * sizeof got, sizeof got);
    if (got != pattern_word(seed, w)) {
      first_bad_word = w;
      break;
    }
  }
  // Name the exact byte: scan the first bad word, or the tail past the last whole word.
  const std::size_t begin = first_bad_word * sizeof(std::uint64_t);
  const std::size_t end = first_bad_word < words ? begin + sizeof(std::uint64_t) : data.size();
  for (std::size_t i = begin; i < end; ++i) {
    if (data[i] != pattern_byte(seed, i)) return ByteMismatch{i, pattern_byte(seed, i), data[i]};
  }
  return std::nullopt;
}

}  // namespace csg
