// Records when every copy and kernel of one run started and ended, on which
// stream, with CUPTI's Activity API (CUDA::cupti, shipped with the toolkit).
// CUPTI timestamps graph nodes too, where CUDA events can't: an event recorded
// during capture becomes no node and can't be timed.
//
// Recording is for one extra, untimed run after the timed ones: the timed
// medians never run with CUPTI enabled.
//
//   csg::TimelineRun plan{.streams = {stream_0, stream_1}, .row_names = {"stream 0", "stream 1"},
//                         .batches = 100, .pool = 2, .flops_per_kernel = work.flops_per_batch()};
//   const csg::RecordedTimeline recorded = csg::record_timeline(plan, [&] { pool_run(); });
//   csg::report_timeline(std::cout, recorded, 16, trace_path, "03_stream_pool_gemm");
//
// CUPTI needs no code in the stages' loops: it timestamps what the driver
// runs. If CUPTI can't be used (another profiler such as nsys or ncu already
// holds it, or no permission), nothing is recorded and the stage says why; the
// timed figures never depend on it.
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

  // Enables memcpy and concurrent-kernel activity records. Call it after the
  // CUDA context exists (after the first allocation). Returns false, with
  // unavailable_reason() set, when CUPTI refuses; never throws for that.
  bool start();

  // Waits for the device, flushes CUPTI's buffers, disables the activities and
  // returns every copy and kernel that STARTED after start(), in the order
  // CUPTI delivered them. Anything else the program did in between (a memset
  // is not recorded; a copy of another buffer is) is the caller's to filter,
  // e.g. by kind, stream or bytes. Throws std::runtime_error if CUPTI fails.
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
// carry the COPIES' node ids, not those of the captured nodes. A stage that
// knows what each captured node is (stage 04: its pool stream and batch) can
// then label the replay's records through clone_to_original(). Create it
// right before cudaGraphInstantiate*, read it after. Stage 04 instantiates a
// second exec under it for the recorded replay and keeps timing its first
// exec, instantiated before CUPTI was ever loaded.
//
// Uses CUPTI's callback API (resource domain, CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED),
// which allows one subscriber per process: under nsys or ncu it can't
// subscribe, watching() is false and the reason says why; never throws for that.
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
  // the order each stream's first op started (rows_by_first_appearance), for
  // work whose streams the stage can't name, such as a graph replay.
  std::vector<cudaStream_t> streams{};
  // Graph replays: the row and batch of each captured node, by CUPTI node id
  // (TimelineRecorder::graph_node_id). Tried first when not empty; if no record
  // matches, labelling falls back to issue order by first appearance.
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
  // How ops were given rows and batches: "stream ids" (each stream's CUPTI
  // id, asked before the run), "graph node ids" (each captured node's row and
  // batch, TimelineRun::graph_nodes) or "first appearance" (the fallback: rows
  // in the order the streams started work, batches in issue order).
  std::string labelling;
  std::string source;              // "cupti"; "" when not recorded
  int ignored = 0;                 // records not part of the run (see LabelResult)
  std::uint64_t dropped = 0;       // records CUPTI lost
  std::vector<std::string> notes;  // anything the reader should know about how it was labelled
};

// Records one run of `plan` with CUPTI: `run` once with the recorder on.
// Nothing runs when CUPTI can't start (the result says why). The caller
// poisons before and verifies after, as for any run.
RecordedTimeline record_timeline(const TimelineRun& plan, const std::function<void()>& run);

// Under a blank line: the picture of the first `max_batches` batches (width
// from $COLUMNS, else 100 characters), the overlap figures of the whole run
// and any notes, or one line saying why there is no timeline. With a
// `trace_path`, also writes the Chrome trace there (named `process_name`) and
// says so, or says that none was written.
void report_timeline(std::ostream& out, const RecordedTimeline& recorded, int max_batches,
                     const std::string& trace_path, const std::string& process_name);

}  // namespace csg
