#include "copy_buffers.hpp"

#include <cstring>

#include "experiment/lab.hpp"

namespace csg::copies {
namespace {

bool has_write_combined(std::span<const HostMemory> kinds) {
  return std::find(kinds.begin(), kinds.end(), HostMemory::write_combined) != kinds.end();
}

constexpr int kPoisonValue = static_cast<int>(kPoisonByte);

// Host `from` -> `device` -> host `to`, `bytes` each way on `stream`; both
// hops start from poison, so that a hop that moved nothing fails.
void through_device(std::byte* device, const std::byte* from, std::byte* to, std::size_t bytes, cudaStream_t stream) {
  CUDA_CHECK(cudaMemsetAsync(device, kPoisonValue, bytes, stream));
  CUDA_CHECK(cudaMemcpyAsync(device, from, bytes, cudaMemcpyHostToDevice, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));  // the host may now overwrite `to` without racing a copy
  std::memset(to, kPoisonValue, bytes);
  CUDA_CHECK(cudaMemcpyAsync(to, device, bytes, cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
}

}  // namespace

std::string_view to_string(CopyDirection direction) {
  return name_of(direction, {"h2d", "d2h", "bidirectional"});
}

HostBuffer<std::byte> allocate_host(HostMemory kind, std::size_t bytes) {
  void* ptr = nullptr;
  switch (kind) {
    case HostMemory::pageable:  // the article's malloc (page-aligned, so that it can be registered too)
      ptr = page_aligned_alloc(bytes);
      break;
    case HostMemory::pinned:  // the article's cudaMallocHost: page-locked, the DMA engines read it directly
      CUDA_CHECK(cudaMallocHost(&ptr, bytes));
      break;
    case HostMemory::registered: {  // malloc'd memory, page-locked afterwards
      HostBuffer<std::byte> plain = allocate_host(HostMemory::pageable, bytes);
      CUDA_CHECK(cudaHostRegister(plain.data(), bytes, cudaHostRegisterDefault));
      ptr = plain.data();
      static_cast<void>(plain.release());  // now owned as registered memory
      break;
    }
    case HostMemory::write_combined:  // page-locked and not cached by the CPU: for buffers the GPU only reads
      CUDA_CHECK(cudaHostAlloc(&ptr, bytes, cudaHostAllocWriteCombined));
      break;
  }
  return HostBuffer<std::byte>(static_cast<std::byte*>(ptr), bytes, kind);
}

void check_kind(const HostBuffer<std::byte>& buffer, HostMemory kind, std::size_t bytes) {
  if (buffer.kind() != kind || buffer.bytes() != bytes || buffer.data() == nullptr) {
    throw std::logic_error("the host allocator returned another kind or size than " + format_bytes(bytes) + " of " +
                           std::string(to_string(kind)) + " memory");
  }
  // What the driver says the memory is must be what the kind claims: a
  // "pinned" buffer the DMA engines can't read directly would time a pageable copy.
  cudaPointerAttributes attributes{};
  CUDA_CHECK(cudaPointerGetAttributes(&attributes, buffer.data()));
  const cudaMemoryType expected = is_page_locked(kind) ? cudaMemoryTypeHost : cudaMemoryTypeUnregistered;
  if (attributes.type != expected) {
    throw std::logic_error(std::string(to_string(kind)) + " memory is not what the driver reports (" +
                           (attributes.type == cudaMemoryTypeHost ? "page-locked" : "not page-locked") + ")");
  }
}

CopySet::CopySet(std::size_t bytes, std::span<const HostMemory> kinds, std::uint64_t seed,
                 const HostAllocator& allocate)
    : bytes_(bytes), seed_(seed), device_in_(bytes), device_out_(bytes) {
  if (kinds.empty()) throw std::invalid_argument("CopySet: no host memory kinds");
  for (HostMemory kind : kinds) {
    KindBuffers& set = kinds_.emplace_back(KindBuffers{kind, allocate(kind, bytes), allocate(kind, bytes)});
    check_kind(set.src, kind, bytes);
    check_kind(set.dst, kind, bytes);
    fill_pattern(set.src.span(), seed_);  // host writes only: fine for write-combined too
    std::memset(set.dst.data(), kPoisonValue, bytes);
  }
  if (has_write_combined(kinds)) readback_ = HostBuffer<std::byte>(bytes, HostMemory::pinned);
  // device_out holds the pattern for every timed D2H copy; device_in starts poisoned.
  CUDA_CHECK(cudaMemcpy(device_out_.data(), kinds_.front().src.data(), bytes, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(device_in_.data(), kPoisonValue, bytes));
}

std::size_t CopySet::index_of(HostMemory kind) const {
  for (std::size_t i = 0; i < kinds_.size(); ++i) {
    if (kinds_[i].kind == kind) return i;
  }
  throw std::invalid_argument("CopySet: " + std::string(to_string(kind)) + " memory was not allocated");
}

CopySet::KindBuffers& CopySet::buffers(HostMemory kind) { return kinds_[index_of(kind)]; }
const CopySet::KindBuffers& CopySet::buffers(HostMemory kind) const { return kinds_[index_of(kind)]; }

const std::byte* CopySet::host_src(HostMemory kind) const { return buffers(kind).src.data(); }
std::byte* CopySet::host_dst(HostMemory kind) { return buffers(kind).dst.data(); }

std::span<const std::byte> CopySet::readable_dst(HostMemory kind, cudaStream_t stream) {
  KindBuffers& set = buffers(kind);
  if (kind != HostMemory::write_combined) return set.dst.span();
  // Through the GPU, which reads write-combined memory at full speed.
  through_device(device_in_.data(), set.dst.data(), readback_.data(), bytes_, stream);
  return readback_.span();
}

std::optional<ByteMismatch> CopySet::round_trip(HostMemory kind, cudaStream_t stream) {
  KindBuffers& set = buffers(kind);
  through_device(device_in_.data(), set.src.data(), set.dst.data(), bytes_, stream);
  return find_pattern_mismatch(readable_dst(kind, stream), seed_);
}

std::optional<ByteMismatch> CopySet::check_destination(HostMemory kind, cudaStream_t stream) {
  CUDA_CHECK(cudaStreamSynchronize(stream));
  return find_pattern_mismatch(readable_dst(kind, stream), seed_);
}

std::optional<ByteMismatch> CopySet::verify(HostMemory kind, cudaStream_t stream) {
  if (auto mismatch = check_destination(kind, stream)) return mismatch;
  return round_trip(kind, stream);
}

std::uint64_t CopySet::pinned_bytes_needed(std::uint64_t bytes, std::span<const HostMemory> kinds) {
  const auto locked = static_cast<std::uint64_t>(std::count_if(kinds.begin(), kinds.end(), is_page_locked));
  return checked_mul(bytes, 2 * locked + (has_write_combined(kinds) ? 1 : 0)).value_or(UINT64_MAX);
}

MemoryNeeds CopySet::needs(std::uint64_t bytes, std::span<const HostMemory> kinds) {
  const std::uint64_t host_buffers = 2 * kinds.size() + (has_write_combined(kinds) ? 1 : 0);
  return {.device_bytes = checked_mul(bytes, 2).value_or(UINT64_MAX),
          .host_bytes = checked_mul(bytes, host_buffers).value_or(UINT64_MAX),
          .host_kind = HostMemory::pinned};
}

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

}  // namespace csg::copies
