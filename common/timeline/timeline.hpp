// Measured timelines, drawn like the article's hand-drawn diagrams. Pure host
// code (no CUDA): the data model, the labelling of raw activity records
// (cupti_recorder.hpp) into batches, the ASCII picture, the overlap figures and
// the Chrome trace-event file.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace csg {

enum class OpKind { h2d, kernel, d2h, other };

const char* to_string(OpKind kind);  // "h2d", "kernel", "d2h", "other"
char ascii_symbol(OpKind kind);       // 'H', 'K', 'D', 'o'

// One copy or kernel as it ran.
struct TimelineOp {
  OpKind kind = OpKind::other;
  int row = 0;     // the stage's stream index (0..pool-1); the serial stage has one row
  int batch = -1;  // -1: unknown
  double start_us = 0.0;  // relative to the first op of the timeline
  double end_us = 0.0;
  double bytes = 0.0;  // copies: bytes moved
  double flops = 0.0;  // kernels: FLOPs computed
  std::string name;    // kernel name, or "" (the kind names it)
};

struct Timeline {
  std::vector<std::string> row_names;  // row r is named row_names[r]
  std::vector<TimelineOp> ops;
};

// One activity as the recorder delivers it, before anyone knows its batch;
// timestamps in ns on one clock for all streams.
struct ActivityRecord {
  OpKind kind = OpKind::other;  // memcpy HtoD -> h2d, DtoH -> d2h, other copies -> other; kernels -> kernel
  std::uint64_t start_ns = 0;
  std::uint64_t end_ns = 0;
  std::uint32_t stream_id = 0;       // CUPTI's id of the stream it ran on
  std::uint64_t graph_node_id = 0;   // 0 unless it ran as a node of a graph launch
  std::uint64_t bytes = 0;           // copies
  std::string name{};                // kernel name (mangled, as the driver reports it)
};

// How the ops of a run map onto the stage's rows and batches.
struct IssuePlan {
  std::map<std::uint32_t, int> stream_rows{};  // recorder stream id -> row; records on other streams are ignored
  std::vector<std::string> row_names{};      // one per row
  int pool = 1;                              // streams the batches are dealt over
  int batches = 0;                           // batches of the run
  double flops_per_kernel = 0.0;             // written into every kernel op
};

struct LabelResult {
  Timeline timeline;
  // Records left out: on a stream not in the plan, of kind `other`, or past
  // the last batch (the j-th op of a kind on row r is batch r + j*pool).
  int ignored = 0;
};

// The stage issued batch b on stream b % pool, each batch as H2D -> kernel ->
// D2H (depth- or breadth-first, or the serial stage's one row), so on every row
// the j-th op of each kind (in start order) belongs to batch row + j*pool.
// Times become µs from the earliest kept op; ops are sorted by (start, row).
LabelResult label_in_issue_order(const std::vector<ActivityRecord>& records, const IssuePlan& plan);

// Graph replays, where the stage knows each node's row and batch from the
// capture; `nodes` may hold both ids of a node, captured and cloned
// (GraphNodeClones). Records whose graph_node_id is not in `nodes` are ignored.
struct NodeLabel {
  int row = 0;
  int batch = -1;
};
LabelResult label_by_graph_node(const std::vector<ActivityRecord>& records,
                                const std::map<std::uint64_t, NodeLabel>& nodes,
                                const std::vector<std::string>& row_names, double flops_per_kernel);

// Stream ids (of streams with an h2d, kernel or d2h op) mapped to rows 0, 1, ...
// in the order of their first op: the pool order for a depth-first pool, where
// the stage can't ask for a stream's id itself (graph nodes).
std::map<std::uint32_t, int> rows_by_first_appearance(const std::vector<ActivityRecord>& records);

// The article's diagram from measured times: one row per stream, time left to
// right over `columns` (at least 10) characters, 'H' H2D, 'K' kernel, 'D' D2H,
// 'o' other, '.' idle; a ms axis and a legend under it. Only ops with batch <
// max_batches (<= 0: all) or of unknown batch are drawn, and the axis spans
// them. A column shows every op that touches it, the SHORTEST winning (then the
// earlier start, then the earlier in `ops`), so a short op stays visible.
std::string render_ascii(const Timeline& timeline, int columns, int max_batches);

// How many time columns fit a terminal `terminal_width` wide next to the row names.
int ascii_columns_for(const Timeline& timeline, int terminal_width);

// Each figure is a fraction of the wall time (first start to last end of all
// ops); busy = the union of that kind's intervals (two H2D copies at once count once).
struct OverlapFigures {
  double wall_us = 0.0;
  double h2d_busy = 0.0;
  double d2h_busy = 0.0;
  double compute_busy = 0.0;
  double copy_and_compute = 0.0;  // some copy (either way) and some kernel at the same moment
};

OverlapFigures overlap_figures(const Timeline& timeline);

// "over the 12.34 ms of the run: H2D copies busy 13%, kernels 58%, D2H copies
// 25%; a copy and a kernel at the same time 0% of it" and what that means.
std::string format_overlap(const OverlapFigures& figures);

// Chrome trace-event JSON (Perfetto): one complete event ("ph": "X", ts/dur in
// µs) per op on pid 0, tid = row, named tracks, args {batch, bytes, flops}.
nlohmann::json to_chrome_trace(const Timeline& timeline, const std::string& process_name);

// Written whole or not at all (write_json_file).
void write_chrome_trace(const std::string& path, const Timeline& timeline, const std::string& process_name);

}  // namespace csg
