#include "base/interrupt.hpp"

#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstring>

namespace csg {
namespace {

volatile std::sig_atomic_t g_signal = 0;
// A copy of the pending temporary file's name that a signal handler may read
// (no allocation, no locks): empty when none is being written.
char g_pending[4096] = {};
std::atomic<bool> g_pending_set{false};

extern "C" void on_interrupt(int signal) {
  if (g_signal != 0) {  // the second one: stop now, leaving no half-written file behind
    if (g_pending_set.load()) ::unlink(g_pending);
    ::_exit(128 + signal);
  }
  g_signal = signal;
}

}  // namespace

void catch_interrupts() {
  static const bool installed = [] {
    struct sigaction action {};
    action.sa_handler = on_interrupt;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
    return true;
  }();
  static_cast<void>(installed);
}

std::string signal_name(int signal) {
  if (signal == SIGINT) return "SIGINT";
  if (signal == SIGTERM) return "SIGTERM";
  return "signal " + std::to_string(signal);
}

void throw_if_interrupted(const std::string& unfinished) {
  const int signal = static_cast<int>(g_signal);  // received since catch_interrupts(), or 0
  if (signal != 0) throw Interrupted(signal, unfinished + " was not finished");
}

void set_pending_temporary(const char* path) noexcept {
  g_pending_set.store(false);
  if (path == nullptr) return;
  std::strncpy(g_pending, path, sizeof g_pending - 1);
  g_pending[sizeof g_pending - 1] = '\0';
  g_pending_set.store(true);
}

}  // namespace csg
