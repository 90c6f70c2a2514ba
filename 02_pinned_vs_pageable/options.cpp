#include "options.hpp"

#include <cctype>
#include <charconv>

#include "experiment/lab.hpp"

namespace csg::copies {

CommonDefaults copy_defaults(std::span<const HostMemory> kinds) {
  return {.host_memory_choices = {kinds.begin(), kinds.end()},
          .host_memory_list = true,
          .gemm_workload = false,
          .kernel_choice = false};
}

double seconds_at(double bytes, double bytes_per_s) { return bytes_per_s > 0.0 ? bytes / bytes_per_s : 0.0; }

namespace {

struct Suffix {
  std::string_view name;  // "KiB"; "K" is its first letter
  std::uint64_t bytes;
};

constexpr std::array<Suffix, 4> kSuffixes = {{
    {"KiB", std::uint64_t{1} << 10},
    {"MiB", std::uint64_t{1} << 20},
    {"GiB", std::uint64_t{1} << 30},
    {"TiB", std::uint64_t{1} << 40},
}};

bool same_letter(char a, char b) {
  return std::toupper(static_cast<unsigned char>(a)) == std::toupper(static_cast<unsigned char>(b));
}

// The multiplier a suffix stands for; 0 when `suffix` is not one.
std::uint64_t suffix_bytes(std::string_view suffix) {
  if (suffix.empty()) return 1;
  for (const Suffix& s : kSuffixes) {
    if (same_letter(suffix[0], s.name[0]) && (suffix.size() == 1 || suffix.substr(1) == "iB")) return s.bytes;
  }
  return 0;
}

std::string expected_text(const std::string& flag) {
  return "--" + flag + " takes sizes like 4K,64K,1M,1G (bytes, K/M/G/T = 2^10/2^20/2^30/2^40, at most 1T)";
}

}  // namespace

std::uint64_t parse_size(const std::string& flag, std::string_view text) {
  std::string got = "'";  // built by appending: g++ 12 warns (-Wrestrict) about "'" + std::string(...)
  got.append(text).append("'");
  if (text.empty()) throw UsageError(expected_text(flag) + ", got an empty item");
  std::uint64_t count = 0;
  const char* first = text.data();
  const char* last = text.data() + text.size();
  const auto [end, error] = std::from_chars(first, last, count);  // digits only: no sign, no space
  // No digits (end == first), or a suffix that is not one: 0.
  const std::uint64_t multiplier =
      end == first ? 0 : suffix_bytes(std::string_view(end, static_cast<std::size_t>(last - end)));
  if (multiplier == 0) throw UsageError(expected_text(flag) + ", got " + got);
  if (error == std::errc::result_out_of_range) throw UsageError("--" + flag + " " + got + " overflows 64 bits");
  if (count == 0) throw UsageError("--" + flag + " takes sizes of at least 1 byte, got " + got);
  const auto bytes = checked_mul(count, multiplier);
  if (!bytes) throw UsageError("--" + flag + " " + got + " overflows 64 bits");
  if (*bytes > kMaxTransferBytes) {
    throw UsageError("--" + flag + " " + got + " is larger than 1T, more memory than any machine here has");
  }
  return *bytes;
}

std::vector<std::uint64_t> parse_size_list(const std::string& flag, std::string_view text) {
  if (text.empty()) throw UsageError("--" + flag + " needs a list of sizes, e.g. 4K,64K,1M");
  std::vector<std::uint64_t> sizes;
  std::size_t begin = 0;
  while (true) {
    const std::size_t comma = text.find(',', begin);
    const std::string_view item = text.substr(begin, comma == std::string_view::npos ? text.npos : comma - begin);
    const std::uint64_t bytes = parse_size(flag, item);
    if (std::find(sizes.begin(), sizes.end(), bytes) != sizes.end()) {
      throw UsageError("--" + flag + " lists " + format_size(bytes) + " twice ('" + std::string(item) + "')");
    }
    sizes.push_back(bytes);
    if (comma == std::string_view::npos) break;
    begin = comma + 1;
  }
  std::sort(sizes.begin(), sizes.end());
  return sizes;
}

std::vector<std::uint64_t> powers_of_4(std::uint64_t first, std::uint64_t last) {
  std::vector<std::uint64_t> sizes;
  for (std::uint64_t bytes = std::max<std::uint64_t>(first, 1); bytes <= last;) {
    sizes.push_back(bytes);
    const auto next = checked_mul(bytes, 4);
    if (!next) break;
    bytes = *next;
  }
  return sizes;
}

std::string format_size(std::uint64_t bytes) {
  for (auto s = kSuffixes.rbegin(); s != kSuffixes.rend(); ++s) {
    if (bytes >= s->bytes && bytes % s->bytes == 0) {
      return std::to_string(bytes / s->bytes) + " " + std::string(s->name);
    }
  }
  return std::to_string(bytes) + " B";
}

}  // namespace csg::copies
