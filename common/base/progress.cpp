#include "base/progress.hpp"

#include <chrono>
#include <cstdio>
#include <ctime>

namespace csg {
namespace {

constexpr double kProgressAfter = 5.0;  // seconds of the stage before the first line
constexpr double kProgressEvery = 5.0;  // seconds between lines

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

// Seconds since the stage started (set_progress_stage).
double seconds_since_start() {
  const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start_time();
  return elapsed.count();
}

}  // namespace

const std::string& progress_stage() { return stage_name(); }

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

RoundProgress::RoundProgress(int rounds) : rounds_(rounds), start_s_(seconds_since_start()) {}

void RoundProgress::done(int rounds_done) {
  const double now = seconds_since_start();
  if (rounds_done < 1 || rounds_done >= rounds_ || now < kProgressAfter ||
      (last_s_ >= 0.0 && now - last_s_ < kProgressEvery)) {
    return;
  }
  const double left = (now - start_s_) / rounds_done * (rounds_ - rounds_done);
  char text[128];
  std::snprintf(text, sizeof text, "round %d of %d done, about %.0f s left", rounds_done, rounds_, left);
  progress(text);
  last_s_ = now;
}

void progress(const std::string& text) {
  std::fprintf(stderr, "[%s +%.1fs] %s\n", stage_name().c_str(), seconds_since_start(), text.c_str());
}

}  // namespace csg
