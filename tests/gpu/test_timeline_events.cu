// The event-pair timeline (op_scope.hpp), the fallback for when CUPTI can't
// start: a small pool loop whose every copy and kernel sits in an OpScope
// gives exactly one timed op per scope, on the right stream and row, in each
// stream's order (H2D before the kernel before D2H); an inactive OpScope
// times nothing; a log too small says so after the run; the legacy default
// stream works (stage 01). End to end: stage 03 with --timeline-source events
// records 3 × batches ops labelled "event pairs", stage 01 too, and stage 04
// (a graph replay) refuses --timeline-source events. No timing is asserted,
// only order.
#include <algorithm>
#include <fstream>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "workload/batch_buffers.hpp"
#include "timeline/cupti_recorder.hpp"
#include "base/errors.hpp"
#include "workload/gemm_kernels.hpp"
#include "gpu_test.hpp"
#include "timeline/op_scope.hpp"
#include "run_process.hpp"
#include "timeline/stage_timeline.hpp"
#include "cuda/stream.hpp"
#include "usage_checks.hpp"

namespace csg {
namespace {

constexpr int kBatches = 12;
constexpr int kStreams = 3;
constexpr GemmShape kShape{64, 64, 32};
constexpr std::uint64_t kSeed = 7;
// cudaEventElapsedTime resolves ~0.5 µs: back-to-back ops on one stream may
// read up to that much "out of order"; allow 1 µs before calling it wrong.
constexpr double kEventSlackMs = 0.001;

Workload small_workload(int batches) {
  Workload work;
  work.batches = batches;
  work.shape = kShape;
  return work;
}

std::vector<Stream> make_streams(int count, unsigned flags) {
  std::vector<Stream> streams;
  streams.reserve(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) streams.emplace_back(flags);
  return streams;
}

// The article's pool loop, written here with an OpScope around each call
// (not through csg::enqueue_*, which get their own OpScope in the library).
void pool_loop(BatchBuffers& buffers, const std::vector<Stream>& streams) {
  const Workload& work = buffers.work();
  for (int batch = 0; batch < work.batches; ++batch) {
    const cudaStream_t stream = streams[static_cast<std::size_t>(batch) % streams.size()].get();
    {
      OpScope scope(OpKind::h2d, batch, stream, static_cast<double>(work.a_bytes()));
      CUDA_CHECK(cudaMemcpyAsync(buffers.device_a(batch), buffers.host_a(batch), work.a_bytes(),
                                 cudaMemcpyHostToDevice, stream));
    }
    {
      OpScope scope(OpKind::kernel, batch, stream);
      launch_gemm_naive(buffers.device_a(batch), buffers.device_b(), buffers.device_c(batch), work.shape, stream);
    }
    {
      OpScope scope(OpKind::d2h, batch, stream, static_cast<double>(work.c_bytes()));
      CUDA_CHECK(cudaMemcpyAsync(buffers.host_c(batch), buffers.device_c(batch), work.c_bytes(),
                                 cudaMemcpyDeviceToHost, stream));
    }
  }
  for (const Stream& stream : streams) stream.synchronize();
}

// Stage 01's loop: synchronous copies and the kernel on the legacy default stream.
void serial_loop(BatchBuffers& buffers) {
  const Workload& work = buffers.work();
  for (int batch = 0; batch < work.batches; ++batch) {
    {
      OpScope scope(OpKind::h2d, batch, nullptr, static_cast<double>(work.a_bytes()));
      CUDA_CHECK(cudaMemcpy(buffers.device_a(batch), buffers.host_a(batch), work.a_bytes(), cudaMemcpyHostToDevice));
    }
    {
      OpScope scope(OpKind::kernel, batch, nullptr);
      launch_gemm_naive(buffers.device_a(batch), buffers.device_b(), buffers.device_c(batch), work.shape, nullptr);
    }
    {
      OpScope scope(OpKind::d2h, batch, nullptr, static_cast<double>(work.c_bytes()));
      CUDA_CHECK(cudaMemcpy(buffers.host_c(batch), buffers.device_c(batch), work.c_bytes(), cudaMemcpyDeviceToHost));
    }
  }
}

using OpKey = std::pair<int, OpKind>;  // (batch, kind)

template <typename Op>
std::map<OpKey, const Op*> by_batch_and_kind(const std::vector<Op>& ops) {
  std::map<OpKey, const Op*> found;
  for (const Op& op : ops) {
    EXPECT_TRUE(found.emplace(OpKey{op.batch, op.kind}, &op).second)
        << "two " << to_string(op.kind) << " ops for batch " << op.batch;
  }
  return found;
}

class TimelineEventsTest : public testing::GpuTest {};

TEST_F(TimelineEventsTest, PoolLoopGivesOnePairPerOpInEachStreamsOrder) {
  const Workload work = small_workload(kBatches);
  BatchBuffers buffers(work, HostMemory::pinned, kStreams);  // batch b in slot b % 3, on stream b % 3
  buffers.fill_inputs(kSeed);
  // Non-blocking streams: they do not wait for the legacy default stream, so
  // this checks that the base event precedes their ops anyway.
  const std::vector<Stream> streams = make_streams(kStreams, cudaStreamNonBlocking);
  buffers.poison_outputs(streams[0].get());

  EventPairLog log(3 * kBatches);
  {
    const EventLogActivation active(log);
    EXPECT_EQ(EventPairLog::active(), &log);
    pool_loop(buffers, streams);
  }
  EXPECT_EQ(EventPairLog::active(), nullptr);
  EXPECT_EQ(log.issued(), 3 * kBatches);
  EXPECT_FALSE(log.overflowed());
  const std::vector<LoggedOp> ops = log.read();
  ASSERT_EQ(ops.size(), std::size_t(3 * kBatches));

  std::map<OpKind, int> per_kind;
  for (const LoggedOp& op : ops) {
    ++per_kind[op.kind];
    ASSERT_GE(op.batch, 0);
    ASSERT_LT(op.batch, kBatches);
    EXPECT_EQ(op.stream, streams[static_cast<std::size_t>(op.batch % kStreams)].get())
        << "batch " << op.batch << " " << to_string(op.kind);
    EXPECT_GE(op.end_ms, op.start_ms) << "batch " << op.batch << " " << to_string(op.kind);
    EXPECT_GE(op.start_ms, -kEventSlackMs) << "an op before the base event: batch " << op.batch;
    EXPECT_EQ(op.bytes, op.kind == OpKind::h2d   ? double(work.a_bytes())
                        : op.kind == OpKind::d2h ? double(work.c_bytes())
                                                 : 0.0);
  }
  EXPECT_EQ(per_kind, (std::map<OpKind, int>{{OpKind::h2d, kBatches}, {OpKind::kernel, kBatches},
                                             {OpKind::d2h, kBatches}}));

  const std::map<OpKey, const LoggedOp*> found = by_batch_and_kind(ops);
  for (int batch = 0; batch < kBatches; ++batch) {
    const auto h2d = found.find({batch, OpKind::h2d});
    const auto kernel = found.find({batch, OpKind::kernel});
    const auto d2h = found.find({batch, OpKind::d2h});
    ASSERT_TRUE(h2d != found.end() && kernel != found.end() && d2h != found.end()) << "batch " << batch;
    EXPECT_GE(kernel->second->start_ms, h2d->second->end_ms - kEventSlackMs) << "batch " << batch;
    EXPECT_GE(d2h->second->start_ms, kernel->second->end_ms - kEventSlackMs) << "batch " << batch;
    // The next batch on the same stream starts after this one's D2H.
    if (const auto next = found.find({batch + kStreams, OpKind::h2d}); next != found.end()) {
      EXPECT_GE(next->second->start_ms, d2h->second->end_ms - kEventSlackMs) << "batch " << batch;
    }
  }
  EXPECT_TRUE(buffers.verify(kSeed).passed) << buffers.verify(kSeed).message();
}

TEST_F(TimelineEventsTest, RecordTimelineWithEventsLabelsRowsAndBatchesExactly) {
  const Workload work = small_workload(kBatches);
  BatchBuffers buffers(work, HostMemory::pinned, kStreams);
  buffers.fill_inputs(kSeed);
  const std::vector<Stream> streams = make_streams(kStreams, cudaStreamDefault);  // as StreamPool makes them
  buffers.poison_outputs(streams[0].get());

  TimelineRun plan{.row_names = pool_row_names(kStreams), .batches = kBatches, .pool = kStreams,
                   .flops_per_kernel = work.flops_per_batch()};
  for (const Stream& stream : streams) plan.streams.push_back(stream.get());
  bool cupti_run_called = false;
  const RecordedTimeline recorded =
      record_timeline(plan, [&] { cupti_run_called = true; },
                      {.source = TimelineSource::events, .event_run = [&] { pool_loop(buffers, streams); }});
  EXPECT_FALSE(cupti_run_called) << "--timeline-source events must run the event run, not the CUPTI one";
  ASSERT_TRUE(recorded.available) << recorded.unavailable_reason;
  EXPECT_EQ(recorded.labelling, "event pairs");
  EXPECT_EQ(recorded.source, "event pairs");
  EXPECT_EQ(recorded.ignored, 0);
  EXPECT_EQ(recorded.timeline.row_names, pool_row_names(kStreams));
  ASSERT_EQ(recorded.timeline.ops.size(), std::size_t(3 * kBatches));
  std::map<OpKind, int> per_kind;
  for (const TimelineOp& op : recorded.timeline.ops) {
    ++per_kind[op.kind];
    EXPECT_EQ(op.row, op.batch % kStreams) << "batch " << op.batch << " " << to_string(op.kind);
    EXPECT_GE(op.end_us, op.start_us);
    EXPECT_GE(op.start_us, 0.0);
    if (op.kind == OpKind::kernel) EXPECT_EQ(op.flops, work.flops_per_batch());
  }
  EXPECT_EQ(per_kind, (std::map<OpKind, int>{{OpKind::h2d, kBatches}, {OpKind::kernel, kBatches},
                                             {OpKind::d2h, kBatches}}));
  const std::map<OpKey, const TimelineOp*> found = by_batch_and_kind(recorded.timeline.ops);
  constexpr double kEventSlackUs = kEventSlackMs * 1000.0;
  for (int batch = 0; batch < kBatches; ++batch) {
    const auto h2d = found.find({batch, OpKind::h2d});
    const auto kernel = found.find({batch, OpKind::kernel});
    const auto d2h = found.find({batch, OpKind::d2h});
    ASSERT_TRUE(h2d != found.end() && kernel != found.end() && d2h != found.end()) << "batch " << batch;
    EXPECT_GE(kernel->second->start_us, h2d->second->end_us - kEventSlackUs) << "batch " << batch;
    EXPECT_GE(d2h->second->start_us, kernel->second->end_us - kEventSlackUs) << "batch " << batch;
  }
  EXPECT_TRUE(buffers.verify(kSeed).passed) << buffers.verify(kSeed).message();
}

TEST_F(TimelineEventsTest, LegacyDefaultStreamWorksInSerialOrder) {
  constexpr int kSerialBatches = 3;
  const Workload work = small_workload(kSerialBatches);
  BatchBuffers buffers(work, HostMemory::pageable, kSerialBatches);
  buffers.fill_inputs(kSeed);
  buffers.poison_outputs(nullptr);
  const RecordedTimeline recorded = record_timeline(
      {.streams = {nullptr}, .row_names = {"default stream"}, .batches = kSerialBatches, .pool = 1,
       .flops_per_kernel = work.flops_per_batch()},
      [&] { serial_loop(buffers); }, {.source = TimelineSource::events});
  ASSERT_TRUE(recorded.available) << recorded.unavailable_reason;
  EXPECT_EQ(recorded.labelling, "event pairs");
  EXPECT_EQ(recorded.ignored, 0);
  ASSERT_EQ(recorded.timeline.ops.size(), std::size_t(3 * kSerialBatches));
  // One row, nothing overlapping: ops sorted by start are H K D H K D ...
  const OpKind order[] = {OpKind::h2d, OpKind::kernel, OpKind::d2h};
  for (std::size_t i = 0; i < recorded.timeline.ops.size(); ++i) {
    const TimelineOp& op = recorded.timeline.ops[i];
    EXPECT_EQ(op.row, 0);
    EXPECT_EQ(op.batch, static_cast<int>(i / 3)) << "op " << i;
    EXPECT_EQ(op.kind, order[i % 3]) << "op " << i;
    if (i > 0) EXPECT_GE(op.start_us, recorded.timeline.ops[i - 1].end_us - kEventSlackMs * 1000.0) << "op " << i;
  }
  EXPECT_TRUE(buffers.verify(kSeed).passed) << buffers.verify(kSeed).message();
}

TEST_F(TimelineEventsTest, InactiveScopesTimeNothing) {
  EventPairLog log(3);
  EXPECT_EQ(EventPairLog::active(), nullptr);
  { const OpScope scope(OpKind::h2d, 0, nullptr); }  // NVTX only
  EXPECT_EQ(log.issued(), 0);
  EXPECT_THROW(static_cast<void>(log.read()), std::logic_error) << "a log never activated has nothing to read";

  {
    const EventLogActivation active(log);
    const OpScope scope(OpKind::kernel, 4, nullptr);
  }
  { const OpScope scope(OpKind::d2h, 5, nullptr); }  // after the activation: NVTX only again
  EXPECT_EQ(log.issued(), 1);
  const std::vector<LoggedOp> ops = log.read();
  ASSERT_EQ(ops.size(), 1u);
  EXPECT_EQ(ops[0].kind, OpKind::kernel);
  EXPECT_EQ(ops[0].batch, 4);
  EXPECT_EQ(ops[0].stream, nullptr);
  EXPECT_GE(ops[0].end_ms, ops[0].start_ms);
}

TEST_F(TimelineEventsTest, MoreOpsThanTheLogHoldsIsAnErrorAfterTheRun) {
  EventPairLog log(2);
  {
    const EventLogActivation active(log);
    for (int batch = 0; batch < 3; ++batch) const OpScope scope(OpKind::kernel, batch, nullptr);
    EXPECT_THROW(EventLogActivation{log}, std::logic_error) << "two logs active at once";
  }
  EXPECT_EQ(log.issued(), 3);
  EXPECT_TRUE(log.overflowed());
  EXPECT_THROW(static_cast<void>(log.read()), std::logic_error);

  // Through record_timeline: one batch holds 3 ops; a run issuing 4 fails after it ran.
  bool ran = false;
  const auto four_ops = [&ran] {
    ran = true;
    for (int i = 0; i < 4; ++i) const OpScope scope(OpKind::kernel, 0, nullptr);
  };
  EXPECT_THROW(record_timeline({.streams = {nullptr}, .row_names = {"default stream"}, .batches = 1}, four_ops,
                               {.source = TimelineSource::events}),
               std::logic_error);
  EXPECT_TRUE(ran);
  EXPECT_EQ(EventPairLog::active(), nullptr) << "the failed run left a log active";
}

nlohmann::json stage_timeline_json(const std::string& json_path) {
  std::ifstream in(json_path);
  if (!in.good()) return {};
  const nlohmann::json result = nlohmann::json::parse(in);
  return result.contains("timeline") ? result.at("timeline") : nlohmann::json{};
}

#ifdef CSG_STAGE03_BINARY
// Needs csg::enqueue_h2d / enqueue_gemm / enqueue_d2h to hold an OpScope each.
TEST_F(TimelineEventsTest, Stage03RecordsWithEventPairs) {
  constexpr int kStageBatches = 6;
  testing::TempDir dir;
  const std::string json_path = dir.file("03.json");
  const testing::ProcessResult run = testing::run_process(
      {CSG_STAGE03_BINARY, "--batches", std::to_string(kStageBatches), "--m", "64", "--n", "64", "--k", "32",
       "--streams", std::to_string(kStreams), "--streams-sweep", "off", "--warmup", "0", "--repeats", "1",
       "--timeline-source", "events", "--json", json_path});
  ASSERT_EQ(run.exit_code, kExitOk) << run.out << run.err;
  const nlohmann::json timeline = stage_timeline_json(json_path);
  ASSERT_FALSE(timeline.is_null()) << "no timeline in " << json_path << "\n" << run.out;
  EXPECT_EQ(timeline.at("recorded"), true) << timeline.dump(1);
  EXPECT_EQ(timeline.value("labelling", ""), "event pairs") << timeline.dump(1);
  EXPECT_EQ(timeline.value("source", ""), "event pairs") << timeline.dump(1);
  EXPECT_EQ(timeline.value("requested_source", ""), "events") << timeline.dump(1);
  EXPECT_EQ(timeline.value("ops", -1), 3 * kStageBatches) << timeline.dump(1);
  EXPECT_EQ(timeline.value("ignored", -1), 0) << timeline.dump(1);
  EXPECT_EQ(timeline.value("verified", false), true) << timeline.dump(1);
  EXPECT_EQ(timeline.at("rows"), pool_row_names(kStreams));
  EXPECT_NE(run.out.find("pair of CUDA events"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("timeline run: all 6 batches verified"), std::string::npos) << run.out;
}
#endif

#ifdef CSG_STAGE01_BINARY
// Needs stage 01 to pass csg::run_serial_batches as TimelineJob::event_run,
// and run_serial_batches to hold an OpScope around each of its three calls.
TEST_F(TimelineEventsTest, Stage01RecordsWithEventPairs) {
  constexpr int kStageBatches = 4;
  testing::TempDir dir;
  const std::string json_path = dir.file("01.json");
  const testing::ProcessResult run = testing::run_process(
      {CSG_STAGE01_BINARY, "--batches", std::to_string(kStageBatches), "--m", "64", "--n", "64", "--k", "32",
       "--warmup", "0", "--repeats", "1", "--timeline-source", "events", "--json", json_path});
  ASSERT_EQ(run.exit_code, kExitOk) << run.out << run.err;
  const nlohmann::json timeline = stage_timeline_json(json_path);
  ASSERT_FALSE(timeline.is_null()) << "no timeline in " << json_path << "\n" << run.out;
  EXPECT_EQ(timeline.at("recorded"), true) << timeline.dump(1);
  EXPECT_EQ(timeline.value("labelling", ""), "event pairs") << timeline.dump(1);
  EXPECT_EQ(timeline.value("ops", -1), 3 * kStageBatches) << timeline.dump(1);
  EXPECT_EQ(timeline.value("ignored", -1), 0) << timeline.dump(1);
  EXPECT_EQ(timeline.value("verified", false), true) << timeline.dump(1);
  EXPECT_EQ(timeline.at("rows"), std::vector<std::string>{"default stream"});
}
#endif

#ifdef CSG_STAGE04_BINARY
// A usage error, so before any CUDA call: checked with every GPU hidden, and
// on a machine without one too (no GpuTest fixture).
TEST(TimelineEventsCli, Stage04RefusesEventPairs) {
  testing::TempDir dir;
  const testing::ProcessResult run =
      testing::run_process({CSG_STAGE04_BINARY, "--timeline-source", "events", "--json", dir.file("04.json")},
                           {"CUDA_VISIBLE_DEVICES="});
  EXPECT_TRUE(testing::refused_as_usage(run, "graph nodes can't be timed with CUDA events", dir));
}
#endif

}  // namespace
}  // namespace csg
