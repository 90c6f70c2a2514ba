#include "timeline/timeline.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <tuple>
#include <utility>

#include "base/enum_names.hpp"
#include "base/output_file.hpp"
#include "base/text.hpp"
#include "report/table.hpp"  // fixed

namespace csg {

const char* to_string(OpKind kind) { return name_of(kind, {"h2d", "kernel", "d2h", "other"}).data(); }

char ascii_symbol(OpKind kind) { return name_of(kind, {"H", "K", "D", "o"}).front(); }

namespace {

constexpr double kNsPerUs = 1000.0;
constexpr double kUsPerMs = 1000.0;
constexpr int kMinColumns = 10;
// Ticks at least this many columns apart, so that labels like "12.5" fit between them.
constexpr int kMinTickSpacingColumns = 8;

bool is_pipeline_kind(OpKind kind) { return kind == OpKind::h2d || kind == OpKind::kernel || kind == OpKind::d2h; }

int row_count(const Timeline& timeline) {
  int rows = static_cast<int>(timeline.row_names.size());
  for (const auto& op : timeline.ops) rows = std::max(rows, op.row + 1);
  return rows;
}

std::string row_name(const Timeline& timeline, int row) {
  if (row < static_cast<int>(timeline.row_names.size())) return timeline.row_names[std::size_t(row)];
  return "stream " + std::to_string(row);
}

std::size_t label_width(const Timeline& timeline) {
  std::size_t width = 0;
  for (int row = 0; row < row_count(timeline); ++row) width = std::max(width, row_name(timeline, row).size());
  return width;
}

bool drawn(const TimelineOp& op, int max_batches) { return max_batches <= 0 || op.batch < max_batches; }

// The smallest of 1, 2, 5 × 10^k that is at least `raw` (raw > 0).
double nice_step(double raw) {
  const double decade = std::pow(10.0, std::floor(std::log10(raw)));
  for (const double factor : {1.0, 2.0, 5.0, 10.0}) {
    if (factor * decade >= raw) return factor * decade;
  }
  return 10.0 * decade;
}

std::string format_tick(double value_ms, double step_ms) {
  const int decimals = std::max(0, static_cast<int>(-std::floor(std::log10(step_ms) + 1e-9)));
  return fixed(value_ms, decimals);
}

using Interval = std::pair<double, double>;

// Sorted, disjoint intervals covering the same time as `intervals`.
std::vector<Interval> merged(std::vector<Interval> intervals) {
  std::sort(intervals.begin(), intervals.end());
  std::vector<Interval> out;
  for (const auto& interval : intervals) {
    if (interval.second <= interval.first) continue;
    if (!out.empty() && interval.first <= out.back().second) {
      out.back().second = std::max(out.back().second, interval.second);
    } else {
      out.push_back(interval);
    }
  }
  return out;
}

double total_length(const std::vector<Interval>& disjoint) {
  double sum = 0.0;
  for (const auto& [begin, end] : disjoint) sum += end - begin;
  return sum;
}

// Length of the time covered by both of two sorted, disjoint interval lists.
double intersection_length(const std::vector<Interval>& a, const std::vector<Interval>& b) {
  double sum = 0.0;
  std::size_t i = 0;
  std::size_t j = 0;
  while (i < a.size() && j < b.size()) {
    const double begin = std::max(a[i].first, b[j].first);
    const double end = std::min(a[i].second, b[j].second);
    if (end > begin) sum += end - begin;
    if (a[i].second < b[j].second) {
      ++i;
    } else {
      ++j;
    }
  }
  return sum;
}

struct Kept {
  const ActivityRecord* record;
  int row;
  int batch;
};

// The kept records as ops: µs from the earliest, sorted by (start, row), rows named.
Timeline to_timeline(const std::vector<Kept>& kept, const std::vector<std::string>& row_names,
                     double flops_per_kernel) {
  Timeline timeline;
  timeline.row_names = row_names;
  if (kept.empty()) return timeline;
  std::uint64_t origin_ns = std::numeric_limits<std::uint64_t>::max();
  for (const auto& k : kept) origin_ns = std::min(origin_ns, k.record->start_ns);
  for (const auto& k : kept) {
    const ActivityRecord& record = *k.record;
    const bool kernel = record.kind == OpKind::kernel;
    timeline.ops.push_back({
        .kind = record.kind,
        .row = k.row,
        .batch = k.batch,
        .start_us = static_cast<double>(record.start_ns - origin_ns) / kNsPerUs,
        // A record whose end is before its start (a broken timestamp) becomes a zero-length op.
        .end_us = static_cast<double>(std::max(record.end_ns, record.start_ns) - origin_ns) / kNsPerUs,
        .bytes = kernel ? 0.0 : static_cast<double>(record.bytes),
        .flops = kernel ? flops_per_kernel : 0.0,
        .name = kernel ? record.name : "",
    });
  }
  std::stable_sort(timeline.ops.begin(), timeline.ops.end(), [](const TimelineOp& a, const TimelineOp& b) {
    return std::tie(a.start_us, a.row) < std::tie(b.start_us, b.row);
  });
  const int rows = row_count(timeline);
  for (int row = static_cast<int>(timeline.row_names.size()); row < rows; ++row) {
    timeline.row_names.push_back(row_name(timeline, row));
  }
  return timeline;
}

}  // namespace

LabelResult label_in_issue_order(const std::vector<ActivityRecord>& records, const IssuePlan& plan) {
  LabelResult result;
  const int pool = std::max(plan.pool, 1);

  // Per (row, kind), the records in start order: the j-th is batch row + j*pool.
  std::map<std::pair<int, OpKind>, std::vector<const ActivityRecord*>> lanes;
  for (const auto& record : records) {
    const auto row = plan.stream_rows.find(record.stream_id);
    if (row == plan.stream_rows.end() || !is_pipeline_kind(record.kind)) {
      ++result.ignored;
      continue;
    }
    lanes[{row->second, record.kind}].push_back(&record);
  }

  std::vector<Kept> kept;
  for (auto& [lane, lane_records] : lanes) {
    std::stable_sort(lane_records.begin(), lane_records.end(), [](const ActivityRecord* a, const ActivityRecord* b) {
      return std::tie(a->start_ns, a->end_ns) < std::tie(b->start_ns, b->end_ns);
    });
    const int row = lane.first;
    for (std::size_t j = 0; j < lane_records.size(); ++j) {
      const long long batch = row + static_cast<long long>(j) * pool;
      if (plan.batches > 0 && batch >= plan.batches) {
        ++result.ignored;
        continue;
      }
      kept.push_back({lane_records[j], row, static_cast<int>(batch)});
    }
  }
  result.timeline = to_timeline(kept, plan.row_names, plan.flops_per_kernel);
  return result;
}

LabelResult label_by_graph_node(const std::vector<ActivityRecord>& records,
                                const std::map<std::uint64_t, NodeLabel>& nodes,
                                const std::vector<std::string>& row_names, double flops_per_kernel) {
  LabelResult result;
  std::vector<Kept> kept;
  for (const auto& record : records) {
    const auto node = record.graph_node_id != 0 ? nodes.find(record.graph_node_id) : nodes.end();
    if (node == nodes.end() || !is_pipeline_kind(record.kind)) {
      ++result.ignored;
      continue;
    }
    kept.push_back({&record, node->second.row, node->second.batch});
  }
  result.timeline = to_timeline(kept, row_names, flops_per_kernel);
  return result;
}

std::map<std::uint32_t, int> rows_by_first_appearance(const std::vector<ActivityRecord>& records) {
  std::map<std::uint32_t, std::uint64_t> first_start;
  for (const auto& record : records) {
    if (!is_pipeline_kind(record.kind)) continue;
    const auto [it, inserted] = first_start.emplace(record.stream_id, record.start_ns);
    if (!inserted) it->second = std::min(it->second, record.start_ns);
  }
  std::vector<std::pair<std::uint64_t, std::uint32_t>> order;
  for (const auto& [stream, start] : first_start) order.emplace_back(start, stream);
  std::sort(order.begin(), order.end());
  std::map<std::uint32_t, int> rows;
  for (std::size_t i = 0; i < order.size(); ++i) rows[order[i].second] = static_cast<int>(i);
  return rows;
}

std::string render_ascii(const Timeline& timeline, int columns, int max_batches) {
  columns = std::max(columns, kMinColumns);
  std::vector<std::size_t> selected;
  for (std::size_t i = 0; i < timeline.ops.size(); ++i) {
    if (drawn(timeline.ops[i], max_batches)) selected.push_back(i);
  }
  if (selected.empty()) return "timeline: nothing to draw (no copies or kernels were recorded)\n";

  double begin_us = std::numeric_limits<double>::infinity();
  double end_us = -std::numeric_limits<double>::infinity();
  int last_batch_drawn = -1;
  for (const std::size_t i : selected) {
    begin_us = std::min(begin_us, timeline.ops[i].start_us);
    end_us = std::max(end_us, std::max(timeline.ops[i].end_us, timeline.ops[i].start_us));
    last_batch_drawn = std::max(last_batch_drawn, timeline.ops[i].batch);
  }
  int all_batches = 0;
  for (const auto& op : timeline.ops) all_batches = std::max(all_batches, op.batch + 1);
  // All ops at one instant: give the axis a nominal 1 ns so every op lands in column 0.
  const double span_us = end_us > begin_us ? end_us - begin_us : 1e-3;
  const double us_per_column = span_us / columns;

  // Paint: per cell, the shortest op touching it wins, then the earlier start,
  // then the earlier in `ops` (see the header). Painted in the reverse of that
  // order, each cell ends with its winner.
  auto rank = [&](std::size_t i) {
    const TimelineOp& op = timeline.ops[i];
    const double start = op.start_us - begin_us;
    return std::tuple(std::max(op.end_us, op.start_us) - begin_us - start, start, i);
  };
  std::sort(selected.begin(), selected.end(), [&](std::size_t a, std::size_t b) { return rank(b) < rank(a); });
  const int rows = row_count(timeline);
  std::vector<std::string> cells(std::size_t(rows), std::string(std::size_t(columns), '.'));
  for (const std::size_t i : selected) {
    const TimelineOp& op = timeline.ops[i];
    if (op.row < 0) continue;
    const double start = op.start_us - begin_us;
    const double end = std::max(op.end_us, op.start_us) - begin_us;
    const int first = std::clamp(static_cast<int>(std::floor(start / us_per_column)), 0, columns - 1);
    const int last = std::clamp(static_cast<int>(std::ceil(end / us_per_column)) - 1, first, columns - 1);
    std::string& row_cells = cells[std::size_t(op.row)];
    std::fill(row_cells.begin() + first, row_cells.begin() + last + 1, ascii_symbol(op.kind));
  }

  std::ostringstream out;
  const double span_ms = span_us / kUsPerMs;
  out << "timeline of ";
  if (max_batches > 0 && last_batch_drawn + 1 < all_batches) {
    out << "the first " << last_batch_drawn + 1 << " of " << plural(all_batches, "batch");
  } else if (all_batches > 0) {
    out << "all " << plural(all_batches, "batch");
  } else {
    out << "the recorded operations";
  }
  out << ": " << fixed(span_ms, 3) << " ms, one column = " << fixed(us_per_column, 1) << " us\n";

  const std::size_t name_width = label_width(timeline);
  for (int row = 0; row < rows; ++row) {
    const std::string name = row_name(timeline, row);
    out << name << std::string(name_width - name.size(), ' ') << " |" << cells[std::size_t(row)] << "|\n";
  }

  // Axis: '+' at each tick, labels (ms since the first op drawn) left-aligned under their tick.
  const double step_ms = nice_step(span_ms * kMinTickSpacingColumns / columns);
  std::string axis(std::size_t(columns), '-');
  std::string labels(std::size_t(columns) + 16, ' ');
  std::size_t next_free = 0;
  for (int tick = 0;; ++tick) {
    const double at_ms = tick * step_ms;
    const int column = static_cast<int>(std::floor(at_ms / span_ms * columns + 1e-9));
    if (column >= columns) break;
    axis[std::size_t(column)] = '+';
    const std::string text = format_tick(at_ms, step_ms);
    if (std::size_t(column) >= next_free && std::size_t(column) + text.size() <= labels.size()) {
      labels.replace(std::size_t(column), text.size(), text);
      next_free = std::size_t(column) + text.size() + 1;
    }
  }
  while (!labels.empty() && labels.back() == ' ') labels.pop_back();
  const std::string indent(name_width + 2, ' ');
  out << indent << axis << '\n';
  out << indent << labels << " ms\n";

  bool has_other = false;
  for (const std::size_t i : selected) has_other = has_other || timeline.ops[i].kind == OpKind::other;
  out << "H copy host->device (H2D)   K kernel   D copy device->host (D2H)   ";
  if (has_other) out << "o other copy   ";
  out << ". idle\n";
  return out.str();
}

int ascii_columns_for(const Timeline& timeline, int terminal_width) {
  // name, " |", the cells, "|"
  return std::max(kMinColumns, terminal_width - static_cast<int>(label_width(timeline)) - 3);
}

OverlapFigures overlap_figures(const Timeline& timeline) {
  OverlapFigures figures;
  if (timeline.ops.empty()) return figures;
  double begin = std::numeric_limits<double>::infinity();
  double end = -std::numeric_limits<double>::infinity();
  std::map<OpKind, std::vector<Interval>> by_kind;
  for (const auto& op : timeline.ops) {
    begin = std::min(begin, op.start_us);
    end = std::max(end, op.end_us);
    by_kind[op.kind].emplace_back(op.start_us, op.end_us);
  }
  figures.wall_us = end - begin;
  if (figures.wall_us <= 0.0) return figures;
  const std::vector<Interval> h2d = by_kind[OpKind::h2d];
  const std::vector<Interval> d2h = by_kind[OpKind::d2h];
  std::vector<Interval> copies = h2d;
  copies.insert(copies.end(), d2h.begin(), d2h.end());
  const std::vector<Interval> kernel_union = merged(by_kind[OpKind::kernel]);
  figures.h2d_busy = total_length(merged(h2d)) / figures.wall_us;
  figures.d2h_busy = total_length(merged(d2h)) / figures.wall_us;
  figures.compute_busy = total_length(kernel_union) / figures.wall_us;
  figures.copy_and_compute = intersection_length(merged(copies), kernel_union) / figures.wall_us;
  return figures;
}

std::string format_overlap(const OverlapFigures& figures) {
  constexpr double kPercent = 100.0;
  std::ostringstream out;
  out << "busy, as a share of the " << fixed(figures.wall_us / kUsPerMs, 3)
      << " ms from the first op to the last: H2D copies " << fixed(figures.h2d_busy * kPercent, 1) << "%, kernels "
      << fixed(figures.compute_busy * kPercent, 1) << "%, D2H copies " << fixed(figures.d2h_busy * kPercent, 1)
      << "%\n"
      << "a copy and a kernel running at the same time: " << fixed(figures.copy_and_compute * kPercent, 1)
      << "% of it (0% is the article's serial picture; streams push it up)\n";
  return out.str();
}

nlohmann::json to_chrome_trace(const Timeline& timeline, const std::string& process_name) {
  nlohmann::json events = nlohmann::json::array();
  events.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", 0}, {"args", {{"name", process_name}}}});
  for (int row = 0; row < row_count(timeline); ++row) {
    events.push_back(
        {{"name", "thread_name"}, {"ph", "M"}, {"pid", 0}, {"tid", row}, {"args", {{"name", row_name(timeline, row)}}}});
    events.push_back(
        {{"name", "thread_sort_index"}, {"ph", "M"}, {"pid", 0}, {"tid", row}, {"args", {{"sort_index", row}}}});
  }
  for (const auto& op : timeline.ops) {
    nlohmann::json args = {{"batch", op.batch}, {"bytes", op.bytes}, {"flops", op.flops}};
    if (!op.name.empty()) args["kernel"] = op.name;
    const char* name = op.kind == OpKind::h2d ? "H2D" : op.kind == OpKind::d2h ? "D2H" : to_string(op.kind);
    events.push_back({{"name", name},
                      {"cat", to_string(op.kind)},
                      {"ph", "X"},
                      {"ts", op.start_us},
                      {"dur", std::max(op.end_us - op.start_us, 0.0)},
                      {"pid", 0},
                      {"tid", op.row},
                      {"args", std::move(args)}});
  }
  return {{"traceEvents", std::move(events)}, {"displayTimeUnit", "ms"}};
}

void write_chrome_trace(const std::string& path, const Timeline& timeline, const std::string& process_name) {
  write_text_file(path, to_chrome_trace(timeline, process_name).dump(2) + "\n");
}

}  // namespace csg
