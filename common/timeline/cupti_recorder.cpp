#include "timeline/cupti_recorder.hpp"

#include <cupti.h>

#include <cstdlib>
#include <iostream>
#include <mutex>
#include <new>
#include <stdexcept>
#include <utility>

#include "check.hpp"
#include "base/text.hpp"

namespace csg {
namespace {

// CUPTI asks for buffers and hands them back full. One record is ~200 bytes,
// so 1 MiB holds ~5000: the article's 300 operations fit in one buffer.
constexpr std::size_t kBufferBytes = std::size_t{1} << 20;
constexpr std::align_val_t kBufferAlignment{8};  // CUPTI requires 8-byte aligned buffers

std::string cupti_message(CUptiResult result, const char* call) {
  const char* text = nullptr;
  if (cuptiGetResultString(result, &text) != CUPTI_SUCCESS || text == nullptr) text = "unknown CUPTI error";
  std::string message = std::string(call) + " failed: " + text;
  if (result == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
    message += " (another profiler, e.g. nsys or ncu, is already using CUPTI)";
  } else if (result == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES) {
    message += " (no permission to profile: https://developer.nvidia.com/CUPTI_ERROR_INSUFFICIENT_PRIVILEGES)";
  }
  return message;
}

// The records CUPTI delivers from its own thread land here, under the lock.
// Only one recorder collects at a time, so one sink is enough.
struct Sink {
  std::mutex mutex;
  bool collecting = false;
  std::vector<ActivityRecord> records;
  std::uint64_t dropped = 0;
  bool callbacks_registered = false;
};

// Never destroyed on purpose: CUPTI may hand back its last (empty) buffers
// from its own exit handler, after static destructors have run.
Sink& sink() {
  static Sink* const instance = new Sink;
  return *instance;
}

// The fields of CUPTI's memcpy and kernel records that place an op on the
// timeline: when, on which stream, and as which graph node.
template <class CuptiRecord>
ActivityRecord when_and_where(const CuptiRecord& from, OpKind kind) {
  return {.kind = kind, .start_ns = from.start, .end_ns = from.end, .stream_id = from.streamId,
          .graph_node_id = from.graphNodeId};
}

ActivityRecord from_memcpy(const CUpti_ActivityMemcpy6& memcpy_record) {
  const OpKind kind = memcpy_record.copyKind == CUPTI_ACTIVITY_MEMCPY_KIND_HTOD   ? OpKind::h2d
                      : memcpy_record.copyKind == CUPTI_ACTIVITY_MEMCPY_KIND_DTOH ? OpKind::d2h
                                                                                  : OpKind::other;
  ActivityRecord record = when_and_where(memcpy_record, kind);
  record.bytes = memcpy_record.bytes;
  return record;
}

ActivityRecord from_kernel(const CUpti_ActivityKernel10& kernel_record) {
  ActivityRecord record = when_and_where(kernel_record, OpKind::kernel);
  if (kernel_record.name != nullptr) record.name = kernel_record.name;
  return record;
}

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  // CUPTI owns the buffer until buffer_completed hands it back, hence a raw
  // allocation; nullptr (out of memory) makes CUPTI drop records, which
  // dropped() then reports.
  *buffer = static_cast<uint8_t*>(::operator new(kBufferBytes, kBufferAlignment, std::nothrow));
  *size = *buffer != nullptr ? kBufferBytes : 0;
  *max_records = 0;  // as many as fit
}

void CUPTIAPI buffer_completed(CUcontext context, uint32_t stream_id, uint8_t* buffer, size_t /*size*/,
                               size_t valid_size) {
  std::vector<ActivityRecord> parsed;
  CUpti_Activity* activity = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid_size, &activity) == CUPTI_SUCCESS) {
    if (activity->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
      parsed.push_back(from_memcpy(*reinterpret_cast<const CUpti_ActivityMemcpy6*>(activity)));
    } else if (activity->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL ||
               activity->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
      parsed.push_back(from_kernel(*reinterpret_cast<const CUpti_ActivityKernel10*>(activity)));
    }
  }
  size_t dropped = 0;
  if (cuptiActivityGetNumDroppedRecords(context, stream_id, &dropped) != CUPTI_SUCCESS) dropped = 0;
  ::operator delete(buffer, kBufferAlignment);

  Sink& s = sink();
  const std::lock_guard lock(s.mutex);
  if (!s.collecting) return;
  s.dropped += dropped;
  s.records.insert(s.records.end(), std::make_move_iterator(parsed.begin()), std::make_move_iterator(parsed.end()));
}

constexpr CUpti_ActivityKind kRecordedKinds[] = {CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL};

// CUPTI calls this for each node the driver clones (into an exec, when a
// graph is instantiated); the data is valid only during the call, so the
// clone's id and the original's handle are copied out.
void CUPTIAPI on_resource_event(void* userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                const void* cbdata) {
  if (domain != CUPTI_CB_DOMAIN_RESOURCE || cbid != CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED || cbdata == nullptr) {
    return;
  }
  const auto* resource = static_cast<const CUpti_ResourceData*>(cbdata);
  const auto* graph_data = static_cast<const CUpti_GraphData*>(resource->resourceDescriptor);
  if (graph_data == nullptr || graph_data->node == nullptr || graph_data->originalNode == nullptr) return;
  std::uint64_t clone_id = 0;
  if (cuptiGetGraphNodeId(graph_data->node, &clone_id) != CUPTI_SUCCESS) return;
  static_cast<GraphNodeClones*>(userdata)->note_clone(clone_id, graph_data->originalNode);
}

}  // namespace

TimelineRecorder::~TimelineRecorder() {
  if (!recording_) return;
  for (const CUpti_ActivityKind kind : kRecordedKinds) {
    const CUptiResult result = cuptiActivityDisable(kind);
    if (result != CUPTI_SUCCESS) std::cerr << cupti_message(result, "cuptiActivityDisable") << '\n';
  }
  // Hand back CUPTI's buffers now, while the sink still accepts none of them.
  Sink& s = sink();
  {
    const std::lock_guard lock(s.mutex);
    s.collecting = false;
    s.records.clear();
  }
  const CUptiResult result = cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  if (result != CUPTI_SUCCESS) std::cerr << cupti_message(result, "cuptiActivityFlushAll") << '\n';
}

bool TimelineRecorder::start() {
  if (recording_) {
    reason_ = "this recorder is already recording";
    return false;
  }
  Sink& s = sink();
  {
    const std::lock_guard lock(s.mutex);
    if (s.collecting) {
      reason_ = "another TimelineRecorder is recording";
      return false;
    }
    if (!s.callbacks_registered) {
      const CUptiResult result = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
      if (result != CUPTI_SUCCESS) {
        reason_ = cupti_message(result, "cuptiActivityRegisterCallbacks");
        return false;
      }
      s.callbacks_registered = true;
    }
    s.collecting = true;
    s.records.clear();
    s.dropped = 0;
  }
  auto give_up = [&](CUptiResult result, const char* call, std::size_t enabled) {
    reason_ = cupti_message(result, call);
    for (std::size_t i = 0; i < enabled; ++i) static_cast<void>(cuptiActivityDisable(kRecordedKinds[i]));
    const std::lock_guard lock(s.mutex);
    s.collecting = false;
    return false;
  };
  std::size_t enabled = 0;
  for (const CUpti_ActivityKind kind : kRecordedKinds) {
    const CUptiResult result = cuptiActivityEnable(kind);
    if (result != CUPTI_SUCCESS) return give_up(result, "cuptiActivityEnable", enabled);
    ++enabled;
  }
  // CUPTI's clock, the one the records carry: records of work that started
  // before this moment are not part of the run.
  const CUptiResult result = cuptiGetTimestamp(&start_ns_);
  if (result != CUPTI_SUCCESS) return give_up(result, "cuptiGetTimestamp", enabled);
  recording_ = true;
  reason_.clear();
  return true;
}

std::vector<ActivityRecord> TimelineRecorder::stop() {
  if (!recording_) throw std::logic_error("TimelineRecorder::stop() without a successful start()");
  recording_ = false;
  // Records are complete only once their work is: wait for the device first
  // (cuptiActivityFlushAll does not synchronise).
  // Flush while the kinds are still enabled (as NVIDIA's samples do), then disable.
  const cudaError_t synchronized = cudaDeviceSynchronize();
  const CUptiResult flushed = cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  CUptiResult disabled = CUPTI_SUCCESS;
  for (const CUpti_ActivityKind kind : kRecordedKinds) {
    const CUptiResult result = cuptiActivityDisable(kind);
    if (result != CUPTI_SUCCESS) disabled = result;
  }

  std::vector<ActivityRecord> records;
  Sink& s = sink();
  {
    const std::lock_guard lock(s.mutex);
    s.collecting = false;
    records = std::move(s.records);
    s.records.clear();
    dropped_ = s.dropped;
  }
  CUDA_CHECK(synchronized);
  if (disabled != CUPTI_SUCCESS) throw std::runtime_error(cupti_message(disabled, "cuptiActivityDisable"));
  if (flushed != CUPTI_SUCCESS) throw std::runtime_error(cupti_message(flushed, "cuptiActivityFlushAll"));
  std::erase_if(records, [&](const ActivityRecord& record) { return record.start_ns < start_ns_; });
  return records;
}

std::optional<std::uint32_t> TimelineRecorder::stream_id(cudaStream_t stream) {
  std::uint32_t id = 0;
  // perThreadStream 0: the suite builds with the legacy default stream.
  if (cuptiGetStreamIdEx(nullptr, stream, 0, &id) != CUPTI_SUCCESS) return std::nullopt;
  return id;
}

std::optional<std::uint64_t> TimelineRecorder::graph_node_id(cudaGraphNode_t node) {
  std::uint64_t id = 0;
  if (cuptiGetGraphNodeId(node, &id) != CUPTI_SUCCESS) return std::nullopt;
  return id;
}

GraphNodeClones::GraphNodeClones() {
  CUpti_SubscriberHandle subscriber = nullptr;
  // _v2 names us, and names the tool already subscribed if CUPTI refuses.
  char other_tool[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN] = {};
  CUpti_SubscriberParams params{};
  params.structSize = CUpti_SubscriberParams_STRUCT_SIZE;
  params.subscriberName = "cuda-streams-graphs timeline";
  params.oldSubscriberName = other_tool;
  params.oldSubscriberSize = sizeof(other_tool);
  CUptiResult result = cuptiSubscribe_v2(&subscriber, on_resource_event, this, &params);
  if (result != CUPTI_SUCCESS) {
    reason_ = cupti_message(result, "cuptiSubscribe_v2");
    other_tool[sizeof(other_tool) - 1] = '\0';
    if (other_tool[0] != '\0') reason_ += std::string(" (subscribed already: ") + other_tool + ")";
    return;
  }
  result = cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED);
  if (result != CUPTI_SUCCESS) {
    reason_ = cupti_message(result, "cuptiEnableCallback(GRAPHNODE_CLONED)");
    static_cast<void>(cuptiUnsubscribe(subscriber));
    return;
  }
  subscriber_ = subscriber;
}

GraphNodeClones::~GraphNodeClones() {
  if (subscriber_ == nullptr) return;
  const CUptiResult result = cuptiUnsubscribe(subscriber_);
  if (result != CUPTI_SUCCESS) std::cerr << cupti_message(result, "cuptiUnsubscribe") << '\n';
}

std::map<std::uint64_t, cudaGraphNode_t> GraphNodeClones::clone_to_original() const {
  const std::lock_guard lock(mutex_);
  return clones_;
}

void GraphNodeClones::note_clone(std::uint64_t clone_id, cudaGraphNode_t original) {
  const std::lock_guard lock(mutex_);
  clones_[clone_id] = original;
}

RecordedTimeline record_timeline(const TimelineRun& plan, const std::function<void()>& run) {
  TimelineRecorder recorder;
  RecordedTimeline recorded;
  if (!recorder.start()) {
    recorded.unavailable_reason = "CUPTI could not start (" + recorder.unavailable_reason() +
                                  "); run without the other profiler, or as a user allowed to profile";
    return recorded;
  }
  recorded.source = "cupti";
  // Ask for the stream ids before the run, so the run itself is all that is recorded.
  IssuePlan issue{.stream_rows = {}, .row_names = plan.row_names, .pool = plan.pool, .batches = plan.batches,
                  .flops_per_kernel = plan.flops_per_kernel};
  bool ids_known = !plan.streams.empty();
  for (std::size_t row = 0; row < plan.streams.size(); ++row) {
    const std::optional<std::uint32_t> id = TimelineRecorder::stream_id(plan.streams[row]);
    if (!id) {
      ids_known = false;
      // The legacy default stream (stage 01) has no id without its context;
      // with one stream there is no order to get wrong, so no note.
      if (plan.streams.size() > 1) {
        recorded.notes.push_back("CUPTI could not name stream " + std::to_string(row) +
                                 "; rows follow the order in which the streams started work");
      }
      break;
    }
    issue.stream_rows[*id] = static_cast<int>(row);
  }
  run();
  const std::vector<ActivityRecord> records = recorder.stop();
  recorded.available = true;
  recorded.dropped = recorder.dropped();

  LabelResult labelled;
  recorded.labelling = "graph node ids";
  if (!plan.graph_nodes.empty()) {
    labelled = label_by_graph_node(records, plan.graph_nodes, plan.row_names, plan.flops_per_kernel);
    if (labelled.timeline.ops.empty()) {
      recorded.notes.push_back("no record carried a captured node's id; rows follow the order in which the "
                               "streams CUPTI reported started work");
    }
  }
  if (plan.graph_nodes.empty() || labelled.timeline.ops.empty()) {
    recorded.labelling = ids_known ? "stream ids" : "first appearance";
    if (!ids_known) issue.stream_rows = rows_by_first_appearance(records);
    labelled = label_in_issue_order(records, issue);
    if (ids_known && labelled.timeline.ops.empty() && !records.empty()) {
      // The ids CUPTI gave for the streams match no record: fall back rather than draw nothing.
      recorded.notes.push_back("no record carried the stream ids CUPTI reported; rows follow the order in which "
                               "the streams started work");
      recorded.labelling = "first appearance";
      issue.stream_rows = rows_by_first_appearance(records);
      labelled = label_in_issue_order(records, issue);
    }
  }
  recorded.timeline = std::move(labelled.timeline);
  recorded.ignored = labelled.ignored;
  if (recorded.ignored > 0) {
    const int n = recorded.ignored;
    recorded.notes.push_back(plural(n, "recorded operation") + " " + noun(n, "was", "were") +
                             " not part of the run (another stream, another kind of copy, or past the last batch) "
                             "and " + noun(n, "is", "are") + " left out");
  }
  if (recorded.dropped > 0) {
    recorded.notes.push_back("CUPTI dropped " + plural(static_cast<long long>(recorded.dropped), "record") +
                             ": the picture is incomplete");
  }
  return recorded;
}

void report_timeline(std::ostream& out, const RecordedTimeline& recorded, int max_batches,
                     const std::string& trace_path, const std::string& process_name) {
  out << '\n';
  if (!recorded.available) {
    out << "timeline: not recorded: " << recorded.unavailable_reason << '\n';
    if (!trace_path.empty()) out << "no trace written to " << trace_path << '\n';
    return;
  }
  constexpr int kDefaultTerminalWidth = 100;
  constexpr long kMaxTerminalWidth = 1000;
  int terminal_width = kDefaultTerminalWidth;
  if (const char* columns = std::getenv("COLUMNS"); columns != nullptr) {
    char* end = nullptr;
    const long parsed = std::strtol(columns, &end, 10);
    if (end != columns && *end == '\0' && parsed > 0 && parsed <= kMaxTerminalWidth) {
      terminal_width = static_cast<int>(parsed);
    }
  }
  out << render_ascii(recorded.timeline, ascii_columns_for(recorded.timeline, terminal_width), max_batches);
  if (!recorded.timeline.ops.empty()) out << format_overlap(overlap_figures(recorded.timeline));
  for (const auto& note : recorded.notes) out << "note: " << note << '\n';
  if (!trace_path.empty()) {
    write_chrome_trace(trace_path, recorded.timeline, process_name);
    out << "trace (" << plural(static_cast<long long>(recorded.timeline.ops.size()), "operation") << ") written to "
        << trace_path << ": open it in https://ui.perfetto.dev\n";
  }
}

}  // namespace csg
