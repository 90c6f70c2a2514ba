// Records when every copy and kernel of one run started and ended, on which
// stream, with CUPTI's Activity API (CUDA::cupti, shipped with the toolkit).
// CUPTI timestamps graph nodes too, where CUDA events can't: an event recorded
// during capture becomes no node and can't be timed. It needs no code in the
// stages' loops, and records one extra, untimed run after the timed ones. If
// CUPTI can't be used (nsys or ncu already holds it, or no permission), nothing
// is recorded and the stage says why; the timed figures never depend on it.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "timeline/timeline.hpp"

struct CUpti_Subscriber_st;  // CUPTI's subscriber (cupti_callbacks.h), named here without the header

namespace csg {

// The raw recorder: one at a time per process (CUPTI's buffers are global).
class TimelineRecorder {
 public:
  TimelineRecorder() = default;
  // Disables what start() enabled and drops what was not collected.
  ~TimelineRecorder();
  TimelineRecorder(const TimelineRecorder&) = delete;
  TimelineRecorder& operator=(const TimelineRecorder&) = delete;

  // Enables memcpy and concurrent-kernel activity records, once the CUDA
  // context exists. False, with unavailable_reason() set, when CUPTI refuses.
  bool start();

  // Waits for the device, flushes CUPTI's buffers, disables the activities and
  // returns every copy and kernel that STARTED after start(), in the order
  // CUPTI delivered them (the caller filters out what is not its run). Throws
  // std::runtime_error if CUPTI fails.
  std::vector<ActivityRecord> stop();

  const std::string& unavailable_reason() const { return reason_; }
  // Records CUPTI dropped because it had no buffer for them (expected 0).
  std::uint64_t dropped() const { return dropped_; }

  // CUPTI's id of `stream` (nullptr: the legacy default stream), the value
  // ActivityRecord::stream_id carries for work issued to it. Nothing if CUPTI
  // can't tell; call after start().
  static std::optional<std::uint32_t> stream_id(cudaStream_t stream);
  // CUPTI's id of a graph node, for matching ActivityRecord::graph_node_id.
  static std::optional<std::uint64_t> graph_node_id(cudaGraphNode_t node);

 private:
  bool recording_ = false;
  std::uint64_t start_ns_ = 0;
  std::uint64_t dropped_ = 0;
  std::string reason_;
};

// While alive, notes every graph node that CUDA clones. Instantiating a graph
// copies each of its nodes into the exec, and CUPTI's records of a replay
// carry the COPIES' node ids; clone_to_original() maps them back to the
// captured nodes, whose pool stream and batch the stage knows. Create it right
// before cudaGraphInstantiate*, read it after. CUPTI's callback API allows one
// subscriber per process: under nsys or ncu watching() is false and the reason
// says why.
class GraphNodeClones {
 public:
  GraphNodeClones();
  ~GraphNodeClones();  // unsubscribes
  GraphNodeClones(const GraphNodeClones&) = delete;
  GraphNodeClones& operator=(const GraphNodeClones&) = delete;

  bool watching() const { return subscriber_ != nullptr; }
  const std::string& unavailable_reason() const { return reason_; }
  // CUPTI id of each clone seen so far -> the node it was cloned from (the
  // handle, so nothing depends on CUPTI's ids of nodes created before CUPTI was loaded).
  std::map<std::uint64_t, cudaGraphNode_t> clone_to_original() const;

  // Called from CUPTI's callback (under a lock: CUPTI may call from any thread).
  void note_clone(std::uint64_t clone_id, cudaGraphNode_t original);

 private:
  ::CUpti_Subscriber_st* subscriber_ = nullptr;
  std::string reason_;
  mutable std::mutex mutex_;
  std::map<std::uint64_t, cudaGraphNode_t> clones_;
};

// What to record and how to label it: batch b was issued to streams[b % pool]
// as H2D -> kernel -> D2H (see label_in_issue_order).
struct TimelineRun {
  // Row r is streams[r] (nullptr: the legacy default stream). Empty: rows in
  // the order each stream's first op started (rows_by_first_appearance).
  std::vector<cudaStream_t> streams{};
  // Graph replays: the row and batch of each captured node, by CUPTI node id.
  // Tried first when not empty; if no record matches, rows by first appearance.
  std::map<std::uint64_t, NodeLabel> graph_nodes{};  // {}: may be left out of a designated initializer
  std::vector<std::string> row_names{};
  int batches = 0;
  int pool = 1;
  double flops_per_kernel = 0.0;
};

struct RecordedTimeline {
  bool available = false;
  std::string unavailable_reason;  // set when !available
  Timeline timeline;
  // How ops were given rows and batches: "stream ids", "graph node ids" or
  // "first appearance" (the fallback: rows in the order the streams started work).
  std::string labelling;
  std::string source;              // "cupti"; "" when not recorded
  int ignored = 0;                 // records not part of the run (see LabelResult)
  std::uint64_t dropped = 0;       // records CUPTI lost
  std::vector<std::string> notes;  // anything the reader should know about how it was labelled
};

// Records one run of `plan` with CUPTI: `run` once with the recorder on, or
// nothing when CUPTI can't start (the result says why).
RecordedTimeline record_timeline(const TimelineRun& plan, const std::function<void()>& run);

// Under a blank line: the picture of the first `max_batches` batches (width
// from $COLUMNS, else 100), the overlap figures and any notes, or why there is
// no timeline; with a `trace_path`, the Chrome trace written there.
void report_timeline(std::ostream& out, const RecordedTimeline& recorded, int max_batches,
                     const std::string& trace_path, const std::string& process_name);

}  // namespace csg
