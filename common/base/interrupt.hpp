// Clean interrupts: SIGINT (Ctrl-C) and SIGTERM end a run at the next safe
// point (throw_if_interrupted between runs and rounds), with exit code 128 +
// the signal. A second signal ends the process at once, first removing a
// half-written temporary output file if one is open.
#pragma once

#include <stdexcept>
#include <string>

namespace csg {

class Interrupted : public std::runtime_error {
 public:
  Interrupted(int signal, const std::string& what) : std::runtime_error(what), signal_(signal) {}
  int signal() const noexcept { return signal_; }
  int exit_code() const noexcept { return 128 + signal_; }

 private:
  int signal_;
};

// Installs the SIGINT and SIGTERM handlers (once; later calls do nothing).
void catch_interrupts();

// Throws Interrupted("<unfinished> was not finished") once a signal has come.
void throw_if_interrupted(const std::string& unfinished);

// "SIGINT", "SIGTERM", or "signal N".
std::string signal_name(int signal);

// The temporary file being written now (nullptr: none), for a second signal
// to remove before the process ends. Only write_file_whole sets it.
void set_pending_temporary(const char* path) noexcept;

}  // namespace csg
