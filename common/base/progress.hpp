// progress() prints "[stage +1.2s] text" on stderr, so that a long run is
// never silent; the stage frame names the stage once.
#pragma once

#include <string>

namespace csg {

void set_progress_stage(const std::string& stage);
const std::string& progress_stage();  // "" before set_progress_stage
void progress(const std::string& text);
// When the stage started, in UTC: "2026-12-01T10:22:33Z" (the results' "measured_at").
std::string started_at_utc();

// Progress of a loop of rounds: quiet while the stage is young (a short run
// says nothing), then a line at most every few seconds with the rounds done
// and about how long is left. done(r): rounds 0..r-1 are done.
class RoundProgress {
 public:
  explicit RoundProgress(int rounds);
  void done(int rounds_done);

 private:
  int rounds_;
  double start_s_;
  double last_s_ = -1.0;
};

}  // namespace csg
