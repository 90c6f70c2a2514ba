// Every stage binary, for the CPU suite's command-line tests: CMake passes
// their paths, ';'-separated, as CSG_STAGE_BINARIES.
#pragma once

#include <sstream>
#include <string>
#include <vector>

#ifdef CSG_STAGE_BINARIES

namespace csg::testing {

inline std::vector<std::string> stage_binaries() {
  std::vector<std::string> paths;
  std::stringstream list(CSG_STAGE_BINARIES);
  for (std::string path; std::getline(list, path, ';');) {
    if (!path.empty()) paths.push_back(path);
  }
  return paths;
}

}  // namespace csg::testing

#endif  // CSG_STAGE_BINARIES
