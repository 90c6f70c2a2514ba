// The suite's exit codes and the exceptions that map onto them.
//   0   ran and verified
//   1   a CUDA error or a failed verification
//   2   bad usage: a bad option, or a request that does not fit the machine
//   77  no CUDA device (ctest marks such a test as skipped)
//   130, 143  stopped by SIGINT (Ctrl-C), SIGTERM (base/interrupt.hpp)
#pragma once

#include <stdexcept>
#include <string>

namespace csg {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitNoDevice = 77;

// Bad command line: one line naming the flag and what it accepts. A value
// the user typed may hold a newline or an escape sequence: the message keeps
// every control character escaped (base/text.hpp's printable), so it stays
// one line whoever built it.
class UsageError : public std::runtime_error {
 public:
  explicit UsageError(const std::string& message);
};

// The request is valid but does not fit in free device or host memory.
class ResourceError : public std::runtime_error {
  using std::runtime_error::runtime_error;
};

// No CUDA device, or no usable driver.
class NoDeviceError : public std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace csg
