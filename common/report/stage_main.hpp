// run_stage: the frame around every stage's main. It turns the suite's
// exceptions into its exit codes with one line on stderr:
//   UsageError, ResourceError -> 2, NoDeviceError -> 77, Interrupted -> 130
//   (SIGINT) or 143 (SIGTERM), anything else -> 1.
#pragma once

#include <exception>
#include <iostream>
#include <string>

#include "base/errors.hpp"
#include "base/interrupt.hpp"
#include "base/progress.hpp"
#include "check.hpp"

namespace csg {

template <class Body>
int run_stage(const std::string& stage, Body&& body) {
  set_progress_stage(stage);
  catch_interrupts();
  auto fail = [&stage](int code, const std::string& text) {
    std::cerr << stage << ": " << text << '\n';
    return code;
  };
  try {
    return body();
  } catch (const UsageError& error) {
    return fail(kExitUsage, std::string(error.what()) + " (see --help)");
  } catch (const ResourceError& error) {
    return fail(kExitUsage, error.what());
  } catch (const NoDeviceError& error) {
    return fail(kExitNoDevice, error.what());
  } catch (const Interrupted& error) {
    return fail(error.exit_code(), "interrupted by " + signal_name(error.signal()) + ": " + error.what() +
                                       "; no results were written");
  } catch (const CudaError& error) {
    return fail(kExitFailure, std::string("CUDA error: ") + error.what());
  } catch (const std::exception& error) {
    return fail(kExitFailure, std::string("error: ") + error.what());
  }
}

}  // namespace csg
