#include "base/progress.hpp"

#include <chrono>
#include <cstdio>
#include <ctime>

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

const std::time_t& start_wall_time() {
  static const std::time_t start = std::time(nullptr);
  return start;
}

}  // namespace

void set_progress_stage(const std::string& stage) {
  stage_name() = stage;
  static_cast<void>(start_time());
  static_cast<void>(start_wall_time());
}

std::string started_at_utc() {
  std::tm utc{};
  gmtime_r(&start_wall_time(), &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

double seconds_since_start() {
  const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start_time();
  return elapsed.count();
}

void progress(const std::string& text) {
  std::fprintf(stderr, "[%s +%.1fs] %s\n", stage_name().c_str(), seconds_since_start(), text.c_str());
}

}  // namespace csg
