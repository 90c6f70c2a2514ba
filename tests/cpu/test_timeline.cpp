// Measured timelines, host side: the ASCII picture, the overlap figures, the
// Chrome trace and the labelling of raw records into batches, all on
// synthetic intervals whose right answers are known exactly.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "run_process.hpp"
#include "timeline/timeline.hpp"

namespace csg {
namespace cpu_timeline {

TimelineOp op(OpKind kind, int row, int batch, double start_us, double end_us) {
  return {.kind = kind, .row = row, .batch = batch, .start_us = start_us, .end_us = end_us, .name = ""};
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The cells of the row called `name`: what lies between "name |" and the closing '|'.
std::string cells_of(const std::string& picture, const std::string& name) {
  for (const auto& line : lines_of(picture)) {
    const std::size_t bar = line.find(" |");
    if (bar == std::string::npos || line.back() != '|') continue;
    std::string label = line.substr(0, bar);
    while (!label.empty() && label.back() == ' ') label.pop_back();
    if (label == name) return line.substr(bar + 2, line.size() - bar - 3);
  }
  return "<no row " + name + ">";
}

// The article's first timeline: one stream, H K D per batch, nothing overlaps.
Timeline serial_two_batches() {
  Timeline t;
  t.row_names = {"default stream"};
  t.ops = {op(OpKind::h2d, 0, 0, 0, 10),   op(OpKind::kernel, 0, 0, 10, 40), op(OpKind::d2h, 0, 0, 40, 60),
           op(OpKind::h2d, 0, 1, 60, 70),  op(OpKind::kernel, 0, 1, 70, 100), op(OpKind::d2h, 0, 1, 100, 120)};
  return t;
}

// Two streams, the second one a step behind: its H2D runs beside the first kernel.
Timeline overlapped_two_streams() {
  Timeline t;
  t.row_names = {"stream 0", "stream 1"};
  t.ops = {op(OpKind::h2d, 0, 0, 0, 10),   op(OpKind::kernel, 0, 0, 10, 30), op(OpKind::d2h, 0, 0, 30, 40),
           op(OpKind::h2d, 1, 1, 10, 20),  op(OpKind::kernel, 1, 1, 30, 50), op(OpKind::d2h, 1, 1, 50, 60)};
  return t;
}

TEST(TimelineAscii, SerialIsOneRowWithEveryStageInTurn) {
  // 120 µs over 12 columns: 10 µs per column.
  const std::string picture = render_ascii(serial_two_batches(), 12, 16);
  EXPECT_EQ(cells_of(picture, "default stream"), "HKKKDDHKKKDD") << picture;
  EXPECT_NE(picture.find("all 2 batches"), std::string::npos) << picture;
  EXPECT_NE(picture.find("H copy host->device (H2D)"), std::string::npos) << picture;
  EXPECT_NE(picture.find(" ms"), std::string::npos) << picture;
  EXPECT_EQ(picture.find("o other"), std::string::npos) << picture;  // no other kind, no legend for it
}

TEST(TimelineAscii, OverlappedStreamsAreStaggeredRows) {
  // 60 µs over 12 columns: 5 µs per column.
  const std::string picture = render_ascii(overlapped_two_streams(), 12, 16);
  EXPECT_EQ(cells_of(picture, "stream 0"), "HHKKKKDD....") << picture;
  EXPECT_EQ(cells_of(picture, "stream 1"), "..HH..KKKKDD") << picture;
}

TEST(TimelineAscii, AxisHasTicksAndLabelsUnderTheCells) {
  const std::string picture = render_ascii(serial_two_batches(), 12, 16);
  const std::vector<std::string> lines = lines_of(picture);
  // header, one row, axis, labels, legend
  ASSERT_EQ(lines.size(), 5u) << picture;
  const std::string indent(std::string("default stream").size() + 2, ' ');
  ASSERT_EQ(lines[2].substr(0, indent.size()), indent);
  const std::string axis = lines[2].substr(indent.size());
  EXPECT_EQ(axis.size(), 12u);
  EXPECT_EQ(axis.front(), '+');  // a tick at 0
  EXPECT_EQ(axis.find_first_not_of("+-"), std::string::npos) << axis;
  EXPECT_EQ(lines[3].substr(indent.size(), 1), "0");
}

TEST(TimelineAscii, EmptyTimelineSaysSoInsteadOfDrawing) {
  const std::string picture = render_ascii(Timeline{}, 80, 16);
  EXPECT_NE(picture.find("nothing to draw"), std::string::npos) << picture;
  Timeline only_later_batches;
  only_later_batches.row_names = {"stream 0"};
  only_later_batches.ops = {op(OpKind::kernel, 0, 20, 0, 10)};
  EXPECT_NE(render_ascii(only_later_batches, 80, 16).find("nothing to draw"), std::string::npos);
}

TEST(TimelineAscii, OneVeryLongOpFillsTheRow) {
  Timeline t;
  t.row_names = {"stream 0"};
  t.ops = {op(OpKind::kernel, 0, 0, 0, 5.0e6)};  // 5 s
  const std::string picture = render_ascii(t, 20, 16);
  EXPECT_EQ(cells_of(picture, "stream 0"), std::string(20, 'K')) << picture;
  EXPECT_NE(picture.find("5000.000 ms"), std::string::npos) << picture;
}

TEST(TimelineAscii, AnOpShorterThanAColumnStillShows) {
  // 1 µs of H2D before a 1 s kernel: far less than one 50 ms column.
  Timeline t;
  t.row_names = {"stream 0"};
  t.ops = {op(OpKind::h2d, 0, 0, 0, 1), op(OpKind::kernel, 0, 0, 1, 1.0e6 + 1), op(OpKind::d2h, 0, 0, 1.0e6 + 1, 1.0e6 + 2)};
  const std::string cells = cells_of(render_ascii(t, 20, 16), "stream 0");
  EXPECT_EQ(cells, "H" + std::string(18, 'K') + "D") << cells;
}

TEST(TimelineAscii, SharedColumnGoesToTheShortestThenTheEarliest) {
  // 100 µs over 10 columns. Column 0 holds a 1 µs H2D and a 2 µs kernel: the H2D wins.
  // Column 5 holds two 1 µs copies: the earlier (D2H at 50) wins over the later H2D at 52.
  Timeline t;
  t.row_names = {"stream 0"};
  t.ops = {op(OpKind::kernel, 0, 0, 1, 3), op(OpKind::h2d, 0, 0, 0, 1), op(OpKind::h2d, 0, 1, 52, 53),
           op(OpKind::d2h, 0, 0, 50, 51), op(OpKind::kernel, 0, 1, 90, 100)};
  EXPECT_EQ(cells_of(render_ascii(t, 10, 16), "stream 0"), "H....D...K");
}

TEST(TimelineAscii, ManyStreamsGetOneRowEach) {
  constexpr int kStreams = 12;
  Timeline t;
  for (int s = 0; s < kStreams; ++s) {
    t.row_names.push_back("stream " + std::to_string(s));
    t.ops.push_back(op(OpKind::kernel, s, s, s * 10.0, s * 10.0 + 10.0));
  }
  // 120 µs over 120 columns: stream s computes in columns 10s..10s+9.
  const std::string picture = render_ascii(t, 120, 0);
  for (int s = 0; s < kStreams; ++s) {
    const std::string expected = std::string(std::size_t(s) * 10, '.') + std::string(10, 'K') +
                                 std::string(std::size_t(kStreams - 1 - s) * 10, '.');
    EXPECT_EQ(cells_of(picture, "stream " + std::to_string(s)), expected) << picture;
  }
}

TEST(TimelineAscii, OnlyTheFirstBatchesAreDrawnAndTheAxisSpansThem) {
  Timeline t = serial_two_batches();
  const std::string picture = render_ascii(t, 12, 1);
  // Batch 0 alone: 60 µs over 12 columns, 5 µs each.
  EXPECT_EQ(cells_of(picture, "default stream"), "HHKKKKKKDDDD") << picture;
  EXPECT_NE(picture.find("the first 1 of 2 batches"), std::string::npos) << picture;
}

TEST(TimelineAscii, ColumnsForATerminalLeaveRoomForTheNames) {
  EXPECT_EQ(ascii_columns_for(serial_two_batches(), 100), 100 - 14 - 3);
  EXPECT_EQ(ascii_columns_for(serial_two_batches(), 5), 10);  // never fewer than 10
}

TEST(TimelineOverlap, SerialHasNoCopyBesideAKernel) {
  const OverlapFigures f = overlap_figures(serial_two_batches());
  EXPECT_DOUBLE_EQ(f.wall_us, 120.0);
  EXPECT_DOUBLE_EQ(f.h2d_busy, 20.0 / 120.0);
  EXPECT_DOUBLE_EQ(f.compute_busy, 60.0 / 120.0);
  EXPECT_DOUBLE_EQ(f.d2h_busy, 40.0 / 120.0);
  EXPECT_EQ(f.copy_and_compute, 0.0);
}

TEST(TimelineOverlap, OverlappedStreamsCountUnionsAndIntersections) {
  const OverlapFigures f = overlap_figures(overlapped_two_streams());
  EXPECT_DOUBLE_EQ(f.wall_us, 60.0);
  EXPECT_DOUBLE_EQ(f.h2d_busy, 20.0 / 60.0);       // [0,20)
  EXPECT_DOUBLE_EQ(f.compute_busy, 40.0 / 60.0);   // [10,50): two kernels back to back count once
  EXPECT_DOUBLE_EQ(f.d2h_busy, 20.0 / 60.0);       // [30,40) and [50,60)
  EXPECT_DOUBLE_EQ(f.copy_and_compute, 20.0 / 60.0);  // [10,20) H2D of 1, [30,40) D2H of 0
}

TEST(TimelineOverlap, CopiesAtOnceCountOnce) {
  Timeline t;
  t.row_names = {"a", "b"};
  t.ops = {op(OpKind::h2d, 0, 0, 0, 10), op(OpKind::h2d, 1, 1, 5, 15), op(OpKind::kernel, 0, 0, 0, 20),
           op(OpKind::d2h, 1, 1, 12, 16)};
  const OverlapFigures f = overlap_figures(t);
  EXPECT_DOUBLE_EQ(f.wall_us, 20.0);
  EXPECT_DOUBLE_EQ(f.h2d_busy, 15.0 / 20.0);
  EXPECT_DOUBLE_EQ(f.d2h_busy, 4.0 / 20.0);
  EXPECT_DOUBLE_EQ(f.copy_and_compute, 16.0 / 20.0);  // copies cover [0,16), the kernel all of it
}

TEST(TimelineOverlap, EmptyTimelineIsAllZero) {
  const OverlapFigures f = overlap_figures(Timeline{});
  EXPECT_EQ(f.wall_us, 0.0);
  EXPECT_EQ(f.h2d_busy, 0.0);
  EXPECT_EQ(f.copy_and_compute, 0.0);
  EXPECT_NE(format_overlap(overlap_figures(overlapped_two_streams())).find("33.3%"), std::string::npos);
}

TEST(TimelineTrace, OneCompleteEventPerOpOnItsRowsTrack) {
  Timeline t = overlapped_two_streams();
  t.ops[1].flops = 2.0e9;
  t.ops[1].name = "gemm_naive";
  t.ops[0].bytes = 4096;
  const nlohmann::json trace = nlohmann::json::parse(to_chrome_trace(t, "03_stream_pool_gemm").dump());

  std::vector<nlohmann::json> slices;
  std::map<int, std::string> track_names;
  for (const auto& event : trace.at("traceEvents")) {
    if (event.at("ph") == "X") slices.push_back(event);
    if (event.at("ph") == "M" && event.at("name") == "thread_name") {
      track_names[event.at("tid").get<int>()] = event.at("args").at("name").get<std::string>();
    }
  }
  ASSERT_EQ(slices.size(), t.ops.size());
  EXPECT_EQ(track_names, (std::map<int, std::string>{{0, "stream 0"}, {1, "stream 1"}}));
  for (std::size_t i = 0; i < t.ops.size(); ++i) {
    EXPECT_EQ(slices[i].at("tid"), t.ops[i].row);
    EXPECT_EQ(slices[i].at("pid"), 0);
    EXPECT_DOUBLE_EQ(slices[i].at("ts").get<double>(), t.ops[i].start_us);
    EXPECT_DOUBLE_EQ(slices[i].at("dur").get<double>(), t.ops[i].end_us - t.ops[i].start_us);
    EXPECT_EQ(slices[i].at("args").at("batch"), t.ops[i].batch);
    EXPECT_EQ(slices[i].at("cat"), to_string(t.ops[i].kind));
  }
  EXPECT_EQ(slices[0].at("name"), "H2D");
  EXPECT_EQ(slices[0].at("args").at("bytes"), 4096.0);
  EXPECT_EQ(slices[1].at("args").at("flops"), 2.0e9);
  EXPECT_EQ(slices[1].at("args").at("kernel"), "gemm_naive");
}

TEST(TimelineTrace, FileIsWrittenWholeAndParses) {
  testing::TempDir dir;
  const std::string path = dir.file("trace.json");
  write_chrome_trace(path, serial_two_batches(), "01_serial_baseline");
  const nlohmann::json trace = testing::read_json(path);
  int slices = 0;
  for (const auto& event : trace.at("traceEvents")) slices += event.at("ph") == "X" ? 1 : 0;
  EXPECT_EQ(slices, 6);
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"trace.json"});  // no temporary left behind
}

TEST(TimelineTrace, EmptyTimelineHasNoSlices) {
  const nlohmann::json trace = to_chrome_trace(Timeline{}, "x");
  for (const auto& event : trace.at("traceEvents")) EXPECT_NE(event.at("ph"), "X");
}

ActivityRecord record(OpKind kind, std::uint32_t stream, std::uint64_t start_ns, std::uint64_t end_ns,
                      std::uint64_t bytes = 0) {
  return {.kind = kind, .start_ns = start_ns, .end_ns = end_ns, .stream_id = stream, .bytes = bytes, .name = ""};
}

TEST(TimelineLabel, IssueOrderDealsBatchesOverThePool) {
  // Pool of 2 (CUPTI stream ids 7 and 13), 4 batches, delivered out of order,
  // plus three records that are not part of the run.
  constexpr std::uint32_t kStream0 = 7;
  constexpr std::uint32_t kStream1 = 13;
  std::vector<ActivityRecord> records = {
      record(OpKind::kernel, kStream1, 5'000, 9'000),        // batch 1
      record(OpKind::h2d, kStream0, 1'000, 2'000, 64),       // batch 0
      record(OpKind::h2d, kStream1, 2'000, 3'000, 64),       // batch 1
      record(OpKind::kernel, kStream0, 2'000, 5'000),        // batch 0
      record(OpKind::d2h, kStream0, 5'000, 6'000, 128),      // batch 0
      record(OpKind::h2d, kStream0, 6'000, 7'000, 64),       // batch 2
      record(OpKind::kernel, kStream0, 9'000, 12'000),       // batch 2
      record(OpKind::d2h, kStream1, 9'000, 10'000, 128),     // batch 1
      record(OpKind::d2h, kStream0, 12'000, 13'000, 128),    // batch 2
      record(OpKind::h2d, kStream1, 7'000, 8'000, 64),       // batch 3
      record(OpKind::kernel, kStream1, 12'000, 15'000),      // batch 3
      record(OpKind::d2h, kStream1, 15'000, 16'000, 128),    // batch 3
      record(OpKind::h2d, 99, 0, 500, 64),                   // another stream
      record(OpKind::other, kStream0, 100, 200, 8),          // a device-to-device copy
      record(OpKind::h2d, kStream0, 20'000, 21'000, 64),     // past the last batch
  };
  IssuePlan plan;
  plan.stream_rows = {{kStream0, 0}, {kStream1, 1}};
  plan.row_names = {"stream 0", "stream 1"};
  plan.pool = 2;
  plan.batches = 4;
  plan.flops_per_kernel = 1.0e6;
  const LabelResult result = label_in_issue_order(records, plan);
  EXPECT_EQ(result.ignored, 3);
  const Timeline& t = result.timeline;
  ASSERT_EQ(t.ops.size(), 12u);
  EXPECT_EQ(t.row_names, plan.row_names);
  int per_batch_kind[4][3] = {};
  for (const auto& o : t.ops) {
    ASSERT_GE(o.batch, 0);
    ASSERT_LT(o.batch, 4);
    EXPECT_EQ(o.row, o.batch % 2) << "batch " << o.batch;
    ++per_batch_kind[o.batch][static_cast<int>(o.kind)];
    if (o.kind == OpKind::kernel) {
      EXPECT_EQ(o.flops, 1.0e6);
    } else {
      EXPECT_EQ(o.bytes, o.kind == OpKind::h2d ? 64.0 : 128.0);
    }
  }
  for (const auto& kinds : per_batch_kind) {
    EXPECT_EQ(kinds[0], 1);
    EXPECT_EQ(kinds[1], 1);
    EXPECT_EQ(kinds[2], 1);
  }
  // Times in µs from the earliest kept op (1000 ns), sorted by start.
  EXPECT_EQ(t.ops.front().start_us, 0.0);
  EXPECT_EQ(t.ops.front().kind, OpKind::h2d);
  EXPECT_EQ(t.ops.front().batch, 0);
  EXPECT_DOUBLE_EQ(t.ops.back().end_us, 15.0);
  for (std::size_t i = 1; i < t.ops.size(); ++i) EXPECT_LE(t.ops[i - 1].start_us, t.ops[i].start_us);
  // Batch 3's kernel: the second kernel on stream 1 in start order.
  for (const auto& o : t.ops) {
    if (o.batch == 3 && o.kind == OpKind::kernel) {
      EXPECT_DOUBLE_EQ(o.start_us, 11.0);
    }
  }
}

TEST(TimelineLabel, SerialStageIsPoolOfOne) {
  std::vector<ActivityRecord> records;
  // Whole µs, so that the picture's column edges fall exactly: 90 µs over 18 columns.
  for (std::uint64_t b = 0; b < 3; ++b) {
    const std::uint64_t t0 = 100'000 + b * 30'000;
    records.push_back(record(OpKind::d2h, 7, t0 + 20'000, t0 + 30'000, 4));
    records.push_back(record(OpKind::kernel, 7, t0 + 10'000, t0 + 20'000));
    records.push_back(record(OpKind::h2d, 7, t0, t0 + 10'000, 4));
  }
  IssuePlan plan;
  plan.stream_rows = {{7, 0}};
  plan.row_names = {"default stream"};
  plan.batches = 3;
  const LabelResult result = label_in_issue_order(records, plan);
  EXPECT_EQ(result.ignored, 0);
  ASSERT_EQ(result.timeline.ops.size(), 9u);
  const char* kinds = "HKD";
  for (std::size_t i = 0; i < 9; ++i) {
    EXPECT_EQ(result.timeline.ops[i].batch, static_cast<int>(i / 3));
    EXPECT_EQ(ascii_symbol(result.timeline.ops[i].kind), kinds[i % 3]);
  }
  EXPECT_EQ(cells_of(render_ascii(result.timeline, 18, 0), "default stream"), "HHKKDDHHKKDDHHKKDD");
}

TEST(TimelineLabel, RowsByFirstAppearanceFollowTheStartOfEachStream) {
  const std::vector<ActivityRecord> records = {record(OpKind::kernel, 30, 500, 600), record(OpKind::h2d, 20, 100, 200),
                                               record(OpKind::other, 40, 0, 50),  // not a pipeline op
                                               record(OpKind::d2h, 30, 50, 60)};
  EXPECT_EQ(rows_by_first_appearance(records), (std::map<std::uint32_t, int>{{30, 0}, {20, 1}}));
}

TEST(TimelineLabel, GraphNodesTakeTheRowAndBatchOfTheirCapture) {
  std::vector<ActivityRecord> records = {record(OpKind::h2d, 3, 1'000, 2'000, 64), record(OpKind::kernel, 3, 2'000, 11'000),
                                         record(OpKind::h2d, 3, 2'000, 3'000, 64), record(OpKind::kernel, 3, 6'000, 8'000)};
  records[0].graph_node_id = 101;  // batch 0 on stream 0
  records[1].graph_node_id = 102;
  records[2].graph_node_id = 201;  // batch 1 on stream 1, though CUPTI put it on the same stream id
  records[3].graph_node_id = 0;    // not a graph node
  const std::map<std::uint64_t, NodeLabel> nodes = {{101, {0, 0}}, {102, {0, 0}}, {201, {1, 1}}, {202, {1, 1}}};
  const LabelResult result = label_by_graph_node(records, nodes, {"stream 0", "stream 1"}, 7.0);
  EXPECT_EQ(result.ignored, 1);
  ASSERT_EQ(result.timeline.ops.size(), 3u);
  EXPECT_EQ(result.timeline.ops[0].batch, 0);
  EXPECT_EQ(result.timeline.ops[0].row, 0);
  EXPECT_EQ(result.timeline.ops[1].kind, OpKind::kernel);  // starts at 2000 like the H2D, row 0 first
  EXPECT_EQ(result.timeline.ops[1].flops, 7.0);
  EXPECT_EQ(result.timeline.ops[2].row, 1);
  EXPECT_EQ(result.timeline.ops[2].batch, 1);
  // 10 µs over 10 columns: batch 1's H2D [1, 2) µs is column 1.
  EXPECT_EQ(cells_of(render_ascii(result.timeline, 10, 0), "stream 1"), ".H........");
}

TEST(TimelineLabel, NoRecordsGiveAnEmptyTimelineWithItsRows) {
  IssuePlan plan;
  plan.stream_rows = {{7, 0}};
  plan.row_names = {"default stream"};
  plan.batches = 4;
  const LabelResult result = label_in_issue_order({}, plan);
  EXPECT_TRUE(result.timeline.ops.empty());
  EXPECT_EQ(result.timeline.row_names, plan.row_names);
  EXPECT_EQ(result.ignored, 0);
}

}  // namespace cpu_timeline
}  // namespace csg
