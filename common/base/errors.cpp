#include "base/errors.hpp"

#include "base/text.hpp"

namespace csg {

UsageError::UsageError(const std::string& message) : std::runtime_error(shorten_long_words(printable(message))) {}

}  // namespace csg
