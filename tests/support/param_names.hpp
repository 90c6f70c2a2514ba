// Readable names for parameterised tests: gtest names each instance
// "<prefix>/<suite>.<test>/<name>", and ctest's name is that; without a name
// generator it is an index, or (through CMake's pretty values) a dump of the
// parameter's bytes. These give a short name made of the parameter's words.
#pragma once

#include <gtest/gtest.h>

#include <cctype>
#include <string>
#include <vector>

namespace csg::testing {

// "2_m_12x" for the third case {"--m", "12x"}: the index (names must be
// distinct), then the words with everything but letters and digits as one
// '_', cut to `max_length` characters in all.
inline std::string words_name(std::size_t index, const std::vector<std::string>& words,
                              std::size_t max_length = 22) {
  std::string name = std::to_string(index);
  bool gap = true;
  for (const std::string& word : words) {
    for (const char c : word) {
      if (std::isalnum(static_cast<unsigned char>(c)) != 0) {
        if (gap) name += '_';
        name += c;
        gap = false;
      } else {
        gap = true;
      }
    }
    gap = true;
  }
  if (name.size() > max_length) name.resize(max_length);
  while (!name.empty() && name.back() == '_') name.pop_back();
  return name;
}

// A stage binary's short name from its path: "/build/bin/03_stream_pool_gemm" -> "stage03".
inline std::string stage_name(const std::string& path) {
  return "stage" + path.substr(path.find_last_of('/') + 1, 2);
}

}  // namespace csg::testing
