// Reads a stage's --trace file (Chrome trace-event JSON, common/timeline.cpp)
// back for tests: every slice with its track, batch and work, and the name of
// every track.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "run_process.hpp"

namespace csg::testing {

struct TraceSlice {
  std::string kind;  // "h2d", "kernel", "d2h"
  int tid = -1;      // the track: the row of the timeline
  int batch = -1;
  double start_us = 0.0;
  double end_us = 0.0;
  double bytes = 0.0;
  double flops = 0.0;
};

struct Trace {
  nlohmann::json doc;
  std::vector<TraceSlice> slices;     // the "X" events, in file order
  std::map<int, std::string> tracks;  // tid -> thread_name
};

// Throws as read_json does: std::runtime_error if the file can't be opened
// (nlohmann's parse error if it is not JSON).
inline Trace read_trace(const std::string& path) {
  Trace trace;
  trace.doc = read_json(path);
  for (const auto& event : trace.doc.at("traceEvents")) {
    if (event.at("ph") == "M" && event.at("name") == "thread_name") {
      trace.tracks[event.at("tid").get<int>()] = event.at("args").at("name").get<std::string>();
    }
    if (event.at("ph") != "X") continue;
    TraceSlice s;
    s.kind = event.at("cat").get<std::string>();
    s.tid = event.at("tid").get<int>();
    s.batch = event.at("args").at("batch").get<int>();
    s.start_us = event.at("ts").get<double>();
    s.end_us = s.start_us + event.at("dur").get<double>();
    s.bytes = event.at("args").at("bytes").get<double>();
    s.flops = event.at("args").at("flops").get<double>();
    trace.slices.push_back(s);
  }
  return trace;
}

}  // namespace csg::testing
