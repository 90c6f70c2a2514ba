// The article's copies host to device issued two ways: one cudaMemcpyAsync
// per copy, as the article's loop does, against one cudaMemcpyBatchAsync
// (CUDA 12.8+) for the whole list, from pinned and from pageable memory, on
// one non-blocking stream (the batch may not use the legacy default stream),
// alone and beside a busy kernel, every run checked byte for byte. The ways,
// the table's figures, the checks, the refusals and the four verdicts are
// the stage README's "batched-copies: the 200 copies in one call".
//
// JSON: "batched_copies" {"config", "per_copy_issue_us" {"pinned",
// "pageable"} {"memcpy_async", "batch"}, "pageable_memory_access",
// "kernel_alone_ms", "ways" [...]}; measurements "batched_copies" (alone:
// transfer, with host_issue_ms) and "batched_copies_with_kernel" per way,
// "busy_kernel"; verdicts batched_copies.issue, .transfer, .overlap,
// .pageable_order.
#pragma once

#include "02_pinned_vs_pageable/copy_buffers.hpp"
#include "02_pinned_vs_pageable/report.hpp"
#include "experiment/lab.hpp"

namespace csg::copies::batched {

// ---- the ways ---------------------------------------------------------------------

enum class WayId { pinned_async, pinned_batch, pinned_batch_split, pageable_async, pageable_batch, pageable_batch_any,
                   pageable_batch_during_call };
enum class Issue { memcpy_async, batch };
// cudaMemcpySrcAccessOrderStream, ...Any, ...DuringApiCall.
enum class SourceOrder { stream, any, during_api_call };

struct Way {
  WayId id;
  HostMemory kind;
  Issue issue;
  SourceOrder order;  // the batch's; cudaMemcpyAsync reads in stream order
  bool split;         // one call per kCopiesPerSplitCall copies instead of one call
};

// What each stream of the article's 8-stream pool issues of its 200 copies.
inline constexpr int kCopiesPerSplitCall = 25;

inline constexpr Way kWays[] = {
    {WayId::pinned_async, HostMemory::pinned, Issue::memcpy_async, SourceOrder::stream, false},
    {WayId::pinned_batch, HostMemory::pinned, Issue::batch, SourceOrder::stream, false},
    {WayId::pinned_batch_split, HostMemory::pinned, Issue::batch, SourceOrder::stream, true},
    {WayId::pageable_async, HostMemory::pageable, Issue::memcpy_async, SourceOrder::stream, false},
    {WayId::pageable_batch, HostMemory::pageable, Issue::batch, SourceOrder::stream, false},
    {WayId::pageable_batch_any, HostMemory::pageable, Issue::batch, SourceOrder::any, false},
    {WayId::pageable_batch_during_call, HostMemory::pageable, Issue::batch, SourceOrder::during_api_call, false},
};

const Way& way_of(WayId id);
std::string_view to_string(WayId id);         // "pinned_batch_split": the JSON's names
std::string_view to_string(Issue issue);      // "memcpy_async", "batch"
std::string_view to_string(SourceOrder order);  // "stream", "any", "during_api_call"
// The calls a way makes for `copies` copies: `copies`, 1, or one per kCopiesPerSplitCall.
int calls_of(const Way& way, int copies);
// "200 cudaMemcpyAsync", "1 cudaMemcpyBatchAsync, stream order", "8 cudaMemcpyBatchAsync of 25, stream order"
std::string describe(const Way& way, int copies);

// ---- the figures ---------------------------------------------------------------------

struct WayFigures {
  WayId id = WayId::pinned_async;
  std::string refused{};  // the driver's error for this way's call; then nothing below was measured
  int calls = 0;
  Summary issue{};     // host clock around the issuing calls (copies alone)
  Summary transfer{};  // events on the copy stream around the copies (alone)
  Summary together{};  // beside the busy kernel: its start to the later of both ends
  double overlap_ratio = 0.0;  // (kernel alone + transfer) / together, medians
  double ideal_ratio = 0.0;    // (kernel alone + transfer) / the longer of the two
  int runs_checked = 0;        // every run, warm-up included, alone and with the kernel
  bool verified = false;       // every one of them bit-exact
  std::string failure{};       // the first check that failed
};

struct Figures {
  int copies = 0;           // 2 x batches
  std::uint64_t bytes = 0;  // all copies together
  bool pageable_memory_access = false;  // cudaDevAttrPageableMemoryAccess: the GPU reads pageable memory itself
  // What one cudaMemcpyBatchAsync on a capturing stream returned
  // ("cudaSuccess": it was captured into the graph); empty: not tried.
  std::string capture_status{};
  Summary kernel_alone{};
  std::vector<WayFigures> ways;  // in kWays' order
};

// The way's figures; nullptr where not measured.
const WayFigures* find(const Figures& figures, WayId id);
// A way's issue time per copy, in us (its median over the copies).
double per_copy_issue_us(const WayFigures& way, int copies);

// ---- the verdicts ----------------------------------------------------------------------

// Host clocks jitter more than events: per-copy issue times within 10% are the same.
inline constexpr double kIssueWithin = 0.10;
// Transfer times: the suite's equal-within (report/conclusions.hpp, 3%).
inline constexpr double kTransferWithin = kEqualWithin;
// The batch's overlap ratio at least (1 - this) x the separate copies': it overlaps as they do.
inline constexpr double kOverlapWithin = 0.05;
// Pageable: another source access order holding the host within 10% of stream order changed nothing.
inline constexpr double kOrderWithin = 0.10;

// Each "no_conclusion" where a way it compares was refused or failed its check.
// "batched_copies.issue" (pinned, per copy): "cuts", "same", "worse".
Verdict issue_verdict(const Figures& figures);
// "batched_copies.transfer" (pinned): "faster", "same", "slower".
Verdict transfer_verdict(const Figures& figures);
// "batched_copies.overlap" (pinned): "overlaps_as_async", "overlaps_less",
// "not_overlapped" (the separate copies did, the batch not), "only_batch", "neither_overlapped".
Verdict overlap_verdict(const Figures& figures);
// "batched_copies.pageable_order": the host time of the best of any/during_api_call
// against stream order: "frees_host", "no_change", "holds_host_longer"; "refused"
// (the driver refused the stream-order batch, or every other order).
Verdict pageable_order_verdict(const Figures& figures);

// ---- the experiment ----------------------------------------------------------------------

struct Config {
  CommonOptions common;  // --batches, --m, --n, --k, --warmup, --repeats, --seed
  int kernel_ms = 10;    // --kernel-ms
};

// --batches, --m, --n, --k (the article's sizes), --warmup, --repeats; both
// kinds always (no --host-memory), the article's kernel (no --kernel).
CommonDefaults defaults();
void add_options(StageCli& cli);  // --kernel-ms
Config read(const StageCli& cli, CommonOptions& common);
// A_i and B_i of every batch: their bytes, and all of them.
std::uint64_t bytes_of(const Workload& work);
Needs needs(const Config& config);
// Seconds at these copy rates: every round runs the kernel alone and each way
// alone and with the kernel, each run followed by its check.
double estimate_seconds(const Config& config, const Rates& rates);
// Exit 77 (NoDeviceError) where the runtime or driver has no cudaMemcpyBatchAsync.
Estimate estimate(const Config& config, int device);
Figures measure(const Config& config);

// What ran, the table, the verdicts, the measurements, the checks and the JSON.
void report(const Config& config, const Figures& figures, Report& report);

}  // namespace csg::copies::batched
