// run_stage: the frame around every stage's main. It turns the suite's
// exceptions into its exit codes with a one-line message on stderr:
//   UsageError, ResourceError -> 2, NoDeviceError -> 77, anything else -> 1.
// progress() prints "[stage +1.2s] text" on stderr so long runs are never silent.
#pragma once

#include <exception>
#include <iostream>
#include <string>

#include "cuda/check.hpp"
#include "base/errors.hpp"

namespace csg {

void set_progress_stage(const std::string& stage);
void progress(const std::string& text);

template <class Body>
int run_stage(const std::string& stage, Body&& body) {
  set_progress_stage(stage);
  try {
    return body();
  } catch (const UsageError& error) {
    std::cerr << stage << ": " << error.what() << " (see --help)\n";
    return kExitUsage;
  } catch (const ResourceError& error) {
    std::cerr << stage << ": " << error.what() << '\n';
    return kExitUsage;
  } catch (const NoDeviceError& error) {
    std::cerr << stage << ": " << error.what() << '\n';
    return kExitNoDevice;
  } catch (const CudaError& error) {
    std::cerr << stage << ": CUDA error: " << error.what() << '\n';
    return kExitFailure;
  } catch (const std::exception& error) {
    std::cerr << stage << ": error: " << error.what() << '\n';
    return kExitFailure;
  }
}

}  // namespace csg
