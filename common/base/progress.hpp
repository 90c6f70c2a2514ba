// progress() prints "[stage +1.2s] text" on stderr, so that a long run is
// never silent; the stage frame names the stage once.
#pragma once

#include <string>

namespace csg {

void set_progress_stage(const std::string& stage);
void progress(const std::string& text);
// Seconds since the stage started (set_progress_stage).
double seconds_since_start();
// When the stage started, in UTC: "2026-12-01T10:22:33Z" (the results' "measured_at").
std::string started_at_utc();

}  // namespace csg
