// An enumerator's name from a list in the enum's order, instead of a switch
// per enum: to_string(MapWinner w) { return name_of(w, {"graph", "streams", "tie"}); }
// A value past the list is named `otherwise`.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <string_view>

namespace csg {

template <class Enum>
constexpr std::string_view name_of(Enum value, std::initializer_list<std::string_view> names,
                                   std::string_view otherwise = "unknown") {
  const auto index = static_cast<std::size_t>(value);
  return index < names.size() ? names.begin()[index] : otherwise;
}

}  // namespace csg
