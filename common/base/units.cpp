#include "base/units.hpp"

#include <cstdio>

namespace csg {

std::string format_bytes(std::uint64_t bytes) {
  char text[32];
  const double value = static_cast<double>(bytes);
  if (bytes >= kGiB) {
    std::snprintf(text, sizeof text, "%.2f GiB", value / static_cast<double>(kGiB));
  } else if (bytes >= kMiB) {
    std::snprintf(text, sizeof text, "%.1f MiB", value / static_cast<double>(kMiB));
  } else if (bytes >= kKiB) {
    std::snprintf(text, sizeof text, "%.1f KiB", value / static_cast<double>(kKiB));
  } else {
    std::snprintf(text, sizeof text, "%llu B", static_cast<unsigned long long>(bytes));
  }
  return text;
}

}  // namespace csg
