#include "report/stage_main.hpp"

#include <chrono>
#include <cstdio>

namespace csg {
namespace {

std::string& stage_name() {
  static std::string name;
  return name;
}

const std::chrono::steady_clock::time_point& start_time() {
  static const auto start = std::chrono::steady_clock::now();
  return start;
}

}  // namespace

void set_progress_stage(const std::string& stage) {
  stage_name() = stage;
  static_cast<void>(start_time());
}

void progress(const std::string& text) {
  const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start_time();
  std::fprintf(stderr, "[%s +%.1fs] %s\n", stage_name().c_str(), elapsed.count(), text.c_str());
}

}  // namespace csg
