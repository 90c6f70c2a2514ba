// run_stage: the frame around a main written as one body: start_stage, then
// the body, with the suite's exceptions turned into its exit codes
// (exit_code_of_current_exception, stage.hpp).
#pragma once

#include <string>

#include "stage.hpp"

namespace csg {

template <class Body>
int run_stage(const std::string& stage, Body&& body) {
  start_stage(stage.c_str());
  try {
    return body();
  } catch (...) {
    return exit_code_of_current_exception(stage.c_str());
  }
}

}  // namespace csg
