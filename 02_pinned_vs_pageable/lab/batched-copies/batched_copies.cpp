#include "02_pinned_vs_pageable/lab/batched-copies/batched_copies.hpp"

#include <cstring>

#include "02_pinned_vs_pageable/options.hpp"
#include "base/parallel.hpp"
#include "workload/spin.hpp"

namespace csg::copies::batched {
namespace {

constexpr const char* kAbout = R"(
batched-copies: the article's 200 copies in one cudaMemcpyBatchAsync call vs 200 cudaMemcpyAsync

The article's copies host to device, A_i and a B_i of each of its 100 batches, issued as one
cudaMemcpyAsync each and as one cudaMemcpyBatchAsync call (CUDA 12.8+), from pinned and from pageable
memory, the latter with each source access order: the host's time to issue them, the transfer, and
whether they still overlap a busy kernel on another stream. Every run is checked byte for byte.
)";

constexpr const char* kRuns = R"(
# 200 copies in one cudaMemcpyBatchAsync call: after the article, appendix
q    -     --k 256 --kernel-ms 5 --warmup 1 --repeats 3
fc   -
t    tiny  --batches 4 --m 64 --n 64 --k 64 --kernel-ms 1 --warmup 1 --repeats 2
m    -     ctest=api_errors_expected --batches 4 --m 64 --n 64 --k 64 --kernel-ms 1 --warmup 0 --repeats 1
)";

constexpr long long kDefaultKernelMs = 10;  // about the 400 MiB of pinned copies at ~55 GB/s (7.6 ms)
constexpr long long kMaxKernelMs = 10000;
// Two copies a batch, each a pointer and a size in the call's arrays: a
// million copies is far beyond any pipeline and still fits the host.
constexpr int kMaxBatches = 500000;
// The first version of the runtime and driver with cudaMemcpyBatchAsync.
constexpr int kBatchCopiesSince = 12080;
// For the estimate: the read-back compared by the host's cores, and the
// sources filled with the pattern on one (~2 ns per 8 bytes).
constexpr double kCompareBytesPerS = 10e9;
constexpr double kFillBytesPerS = 4e9;
// The check compares the read-back in pieces of this size, over the host's cores.
constexpr std::size_t kCompareChunkBytes = std::size_t{1} << 20;
constexpr std::size_t kProbeBytes = 64;

// ---- the copies ------------------------------------------------------------------------

// The copies' pointers and sizes, as both ways pass them: copy 2i is A_i,
// copy 2i + 1 is B_i. Host and device hold every A_i, then every B_i (the
// article's h_A layout, with one B per batch).
struct CopyList {
  std::vector<void*> dsts;
  std::vector<const void*> srcs;
  std::vector<std::size_t> sizes;
};

CopyList copy_list(const Workload& work, std::byte* device, const std::byte* host) {
  const std::size_t a = work.a_bytes();
  const std::size_t b = work.b_bytes();
  const std::size_t b_start = work.batch_count() * a;
  CopyList list;
  for (std::size_t i = 0; i < work.batch_count(); ++i) {
    list.dsts.push_back(device + i * a);
    list.srcs.push_back(host + i * a);
    list.sizes.push_back(a);
    list.dsts.push_back(device + b_start + i * b);
    list.srcs.push_back(host + b_start + i * b);
    list.sizes.push_back(b);
  }
  return list;
}

// "A_5" or "B_5": the copy that wrote byte `offset` of the destination.
std::string copy_at(const Workload& work, std::size_t offset) {
  const std::size_t b_start = work.batch_count() * work.a_bytes();
  if (offset < b_start) return "A_" + std::to_string(offset / work.a_bytes());
  return "B_" + std::to_string((offset - b_start) / work.b_bytes());
}

// Each SourceOrder's cudaMemcpySrcAccessOrder, in the enum's order.
constexpr cudaMemcpySrcAccessOrder kAccessOrders[] = {
    cudaMemcpySrcAccessOrderStream, cudaMemcpySrcAccessOrderAny, cudaMemcpySrcAccessOrderDuringApiCall};

// Every copy of a call has these: the source's access order, and where its
// operands live (hints the driver reads only for managed memory, or for
// pageable memory on a GPU that reads it itself).
cudaMemcpyAttributes attributes_of(SourceOrder order, int device) {
  cudaMemcpyAttributes attributes{};
  attributes.srcAccessOrder = kAccessOrders[static_cast<std::size_t>(order)];
  attributes.srcLocHint = {cudaMemLocationTypeHost, 0};
  attributes.dstLocHint = {cudaMemLocationTypeDevice, device};
  attributes.flags = cudaMemcpyFlagDefault;
  return attributes;
}

// One cudaMemcpyBatchAsync of copies [first, first + count) of `list`, all
// with `attributes` (the CUDA 13 signature: no failIdx). Its error, unchecked.
cudaError_t batch_call(const CopyList& list, std::size_t first, std::size_t count, cudaMemcpyAttributes attributes,
                       cudaStream_t stream) {
  std::size_t first_copy_of_attributes = 0;  // attributes[0] applies to every copy of the call
  return cudaMemcpyBatchAsync(list.dsts.data() + first, list.srcs.data() + first, list.sizes.data() + first, count,
                              &attributes, &first_copy_of_attributes, 1, stream);
}

// The copies as `way` issues them on `stream`: the article's loop of
// cudaMemcpyAsync, or the whole list in one call (or one per kCopiesPerSplitCall).
void issue(const Way& way, const CopyList& list, const cudaMemcpyAttributes& attributes, cudaStream_t stream) {
  const std::size_t copies = list.sizes.size();
  if (way.issue == Issue::memcpy_async) {
    for (std::size_t i = 0; i < copies; ++i) {
      CUDA_CHECK(cudaMemcpyAsync(list.dsts[i], list.srcs[i], list.sizes[i], cudaMemcpyHostToDevice, stream));
    }
    return;
  }
  const std::size_t per_call = way.split ? std::size_t(kCopiesPerSplitCall) : copies;
  for (std::size_t first = 0; first < copies; first += per_call) {
    CUDA_CHECK(batch_call(list, first, std::min(per_call, copies - first), attributes, stream));
  }
}

// "cudaErrorInvalidValue: invalid argument"
std::string error_text(cudaError_t status) {
  return std::string(cudaGetErrorName(status)) + ": " + cudaGetErrorString(status);
}

// One cudaMemcpyBatchAsync of a few bytes from pinned memory, in stream
// order, on a stream of its own, captured into a graph when `capture` (the
// capture then ended and its graph dropped). Returns the call's status, or,
// where the call passed but the capture's end did not, the end's. Waits for
// the copy; leaves no error behind.
cudaError_t probe_batch(int device, bool capture) {
  HostBuffer<std::byte> host(kProbeBytes, HostMemory::pinned);
  std::memset(host.data(), 1, kProbeBytes);
  DeviceBuffer<std::byte> target(kProbeBytes);
  const Stream stream(cudaStreamNonBlocking);
  const CopyList probe{{target.data()}, {host.data()}, {kProbeBytes}};
  if (capture) CUDA_CHECK(cudaStreamBeginCapture(stream.get(), cudaStreamCaptureModeThreadLocal));
  cudaError_t status = batch_call(probe, 0, 1, attributes_of(SourceOrder::stream, device), stream.get());
  if (capture) {
    cudaGraph_t graph = nullptr;
    const cudaError_t ended = cudaStreamEndCapture(stream.get(), &graph);
    if (graph != nullptr) CUDA_CHECK(cudaGraphDestroy(graph));
    if (status == cudaSuccess) status = ended;
  }
  static_cast<void>(cudaGetLastError());  // a refusal is the caller's finding, not the next call's error
  if (status == cudaSuccess) CUDA_CHECK(cudaStreamSynchronize(stream.get()));
  return status;
}

// Where the runtime or the driver has no cudaMemcpyBatchAsync: NoDeviceError
// (exit 77). One copy of a few bytes from pinned memory, in stream order, decides.
void require_batch_copies(int device) {
  int runtime = 0;
  int driver = 0;
  CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
  CUDA_CHECK(cudaDriverGetVersion(&driver));
  if (std::min(runtime, driver) < kBatchCopiesSince) {
    throw NoDeviceError("batched-copies needs cudaMemcpyBatchAsync, CUDA 12.8 or newer; this runtime is " +
                        std::to_string(runtime) + " and the driver " + std::to_string(driver));
  }
  const cudaError_t status = probe_batch(device, false);
  if (status == cudaErrorNotSupported || status == cudaErrorCallRequiresNewerDriver) {
    throw NoDeviceError("batched-copies: this GPU or driver does not support cudaMemcpyBatchAsync (" +
                        error_text(status) + ")");
  }
  CUDA_CHECK(status);
}

// Whether a batch can be captured into a graph: the name of what one on a
// capturing stream returned ("cudaSuccess": captured).
std::string capture_status(int device) { return cudaGetErrorName(probe_batch(device, true)); }

// Every run's check: the destination filled with the poison byte before it
// (no byte of the pattern is 0x00), copied back after it and compared with
// the source, every byte.
class Checker {
 public:
  Checker(const Workload& work, std::size_t bytes)
      : work_(work), readback_(allocate_host(HostMemory::pinned, bytes)) {}

  void poison(std::byte* device, cudaStream_t stream) {
    CUDA_CHECK(cudaMemsetAsync(device, static_cast<int>(kPoisonByte), readback_.bytes(), stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
  }

  // Empty when the destination holds `expected`; else the first byte that differs, and in which copy.
  std::string check(const std::byte* device, const std::byte* expected, cudaStream_t stream) {
    const std::size_t bytes = readback_.bytes();
    CUDA_CHECK(cudaMemcpyAsync(readback_.data(), device, bytes, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    const std::size_t chunks = (bytes + kCompareChunkBytes - 1) / kCompareChunkBytes;
    std::vector<unsigned char> differs(chunks, 0);
    parallel_for(chunks, [&](std::size_t begin, std::size_t end) {
      for (std::size_t c = begin; c < end; ++c) {
        const std::size_t offset = c * kCompareChunkBytes;
        const std::size_t length = std::min(kCompareChunkBytes, bytes - offset);
        differs[c] = std::memcmp(readback_.data() + offset, expected + offset, length) != 0 ? 1 : 0;
      }
    }, 16);
    const auto bad = std::find(differs.begin(), differs.end(), 1);
    if (bad == differs.end()) return "";
    std::size_t offset = static_cast<std::size_t>(bad - differs.begin()) * kCompareChunkBytes;
    while (readback_.data()[offset] == expected[offset]) ++offset;
    return "byte " + std::to_string(offset) + " (" + copy_at(work_, offset) + ") expected " + byte_text(expected[offset]) +
           ", got " + byte_text(readback_.data()[offset]);
  }

 private:
  Workload work_;
  HostBuffer<std::byte> readback_;
};

}  // namespace

// ---- the ways ----------------------------------------------------------------------------

const Way& way_of(WayId id) {
  const Way* way = std::find_if(std::begin(kWays), std::end(kWays), [id](const Way& w) { return w.id == id; });
  if (way == std::end(kWays)) throw std::invalid_argument("no such way");
  return *way;
}

std::string_view to_string(WayId id) {
  return name_of(id, {"pinned_memcpy_async", "pinned_batch", "pinned_batch_split", "pageable_memcpy_async",
                      "pageable_batch", "pageable_batch_any", "pageable_batch_during_api_call"});
}
std::string_view to_string(Issue issue) { return name_of(issue, {"memcpy_async", "batch"}); }
std::string_view to_string(SourceOrder order) { return name_of(order, {"stream", "any", "during_api_call"}); }

int calls_of(const Way& way, int copies) {
  if (way.issue == Issue::memcpy_async) return copies;
  return way.split ? (copies + kCopiesPerSplitCall - 1) / kCopiesPerSplitCall : 1;
}

std::string describe(const Way& way, int copies) {
  if (way.issue == Issue::memcpy_async) return std::to_string(copies) + " cudaMemcpyAsync";
  const std::string order(name_of(way.order, {"stream order", "order any", "during the call"}));
  if (!way.split) return "1 cudaMemcpyBatchAsync, " + order;
  return std::to_string(calls_of(way, copies)) + " cudaMemcpyBatchAsync of " +
         std::to_string(std::min(copies, kCopiesPerSplitCall)) + ", " + order;
}

const WayFigures* find(const Figures& figures, WayId id) {
  const auto way = std::find_if(figures.ways.begin(), figures.ways.end(), [id](const auto& w) { return w.id == id; });
  return way == figures.ways.end() ? nullptr : &*way;
}

double per_copy_issue_us(const WayFigures& way, int copies) {
  return copies > 0 ? way.issue.median_ms * 1000.0 / copies : 0.0;
}

// ---- the verdicts ------------------------------------------------------------------------

namespace {

std::string us_text(double us) { return fixed(us, 2); }

// "1 cudaMemcpyBatchAsync, stream order from pinned memory"
std::string way_text(const WayFigures& w, int copies) {
  return describe(way_of(w.id), copies) + " from " + kind_name(way_of(w.id).kind) + " memory";
}

std::string failure_text(const WayFigures& w) { return w.failure.empty() ? "nothing checked" : w.failure; }

// Why `ways` can't be compared (not measured, refused, a failed check); empty when they can.
std::string unusable(std::initializer_list<const WayFigures*> ways, int copies) {
  for (const WayFigures* way : ways) {
    if (way == nullptr) return "a way was not measured";
    if (!way->refused.empty()) return "the driver refused " + way_text(*way, copies) + " (" + way->refused + ")";
    if (!way->verified) return "a check of " + way_text(*way, copies) + " failed (" + failure_text(*way) + ")";
  }
  return "";
}

Verdict no_conclusion(std::string id, const std::string& about, const std::string& why, nlohmann::json threshold) {
  return Verdict{.id = std::move(id),
                 .outcome = "no_conclusion",
                 .threshold = std::move(threshold),
                 .sentence = about + ": no conclusion, " + why + "."};
}

}  // namespace

Verdict issue_verdict(const Figures& f) {
  const WayFigures* async = find(f, WayId::pinned_async);
  const WayFigures* batch = find(f, WayId::pinned_batch);
  if (const std::string why = unusable({async, batch}, f.copies); !why.empty()) {
    return no_conclusion("batched_copies.issue", "Issue", why, kIssueWithin);
  }
  const double async_us = per_copy_issue_us(*async, f.copies);
  const double batch_us = per_copy_issue_us(*batch, f.copies);
  if (async_us <= 0.0 || batch_us <= 0.0) {
    return no_conclusion("batched_copies.issue", "Issue", "an issue time of 0 was measured", kIssueWithin);
  }
  Verdict v{.id = "batched_copies.issue",
            .figures = {{"copies", f.copies},
                        {"memcpy_async_issue_ms", async->issue.median_ms},
                        {"batch_issue_ms", batch->issue.median_ms},
                        {"memcpy_async_per_copy_us", async_us},
                        {"batch_per_copy_us", batch_us},
                        {"ratio", batch_us / async_us}},
            .threshold = kIssueWithin};
  std::string split_text;
  const WayFigures* split = find(f, WayId::pinned_batch_split);
  if (unusable({split}, f.copies).empty()) {
    v.figures["split_per_copy_us"] = per_copy_issue_us(*split, f.copies);
    v.figures["split_calls"] = split->calls;
    split_text = " (in " + plural(split->calls, "call") + " of " +
                 std::to_string(std::min(f.copies, kCopiesPerSplitCall)) + ", " +
                 us_text(per_copy_issue_us(*split, f.copies)) + " us)";
  }
  const std::string figures = "one cudaMemcpyBatchAsync call issued the " + std::to_string(f.copies) +
                              " pinned copies in " + ms_text(batch->issue.median_ms) + " ms of host time,\n  " +
                              us_text(batch_us) + " us a copy" + split_text + "; " + std::to_string(f.copies) +
                              " cudaMemcpyAsync calls took " + ms_text(async->issue.median_ms) + " ms, " +
                              us_text(async_us) + " us a copy:\n  ";
  const Comparison comparison = compare_times(batch_us, async_us, kIssueWithin);
  v.outcome = by_comparison(comparison, "cuts", "same", "worse");
  v.sentence = "Issue: " + figures +
               by_comparison(comparison, "the batch cut the host's time per copy " + fixed(async_us / batch_us, 2) +
                                             "x.",
                             "no difference (within " + percent_text(kIssueWithin) +
                                 "), so here batching the copies does not pay for the host.",
                             "the batch cost the host " + fixed(batch_us / async_us, 2) +
                                 "x more per copy, so here it does not pay.");
  return v;
}

Verdict transfer_verdict(const Figures& f) {
  const WayFigures* async = find(f, WayId::pinned_async);
  const WayFigures* batch = find(f, WayId::pinned_batch);
  if (const std::string why = unusable({async, batch}, f.copies); !why.empty()) {
    return no_conclusion("batched_copies.transfer", "Transfer", why, kTransferWithin);
  }
  const double batch_ms = batch->transfer.median_ms;
  const double async_ms = async->transfer.median_ms;
  const std::string figures = "Transfer: the batch moved the " + format_size(f.bytes) + " of pinned copies in " +
                              ms_text(batch_ms) + " ms (" + gbps_text(double(f.bytes), batch_ms) + " GB/s), " +
                              compare_phrase(batch_ms, async_ms, kTransferWithin) + "\n  the " +
                              std::to_string(f.copies) + " cudaMemcpyAsync calls (" + ms_text(async_ms) + " ms, " +
                              gbps_text(double(f.bytes), async_ms) + " GB/s)";
  Verdict v = comparison_verdict("batched_copies.transfer", batch_ms, async_ms, "", kTransferWithin);
  v.figures["memcpy_async_gbps"] = gbps(double(f.bytes), async_ms);
  v.figures["batch_gbps"] = gbps(double(f.bytes), batch_ms);
  v.sentence = figures + by_comparison(compare_times(batch_ms, async_ms, kTransferWithin),
                                       ": the batch kept the copy engine busier.",
                                       ": the same bytes over the same copy engine;\n  the batch changes the host's "
                                       "work, not the transfer.",
                                       ": the batch moved the bytes more slowly here.");
  return v;
}

Verdict overlap_verdict(const Figures& f) {
  const nlohmann::json threshold = {{"overlapped_ratio", kOverlappedRatio}, {"overlap_within", kOverlapWithin}};
  const WayFigures* async = find(f, WayId::pinned_async);
  const WayFigures* batch = find(f, WayId::pinned_batch);
  if (const std::string why = unusable({async, batch}, f.copies); !why.empty()) {
    return no_conclusion("batched_copies.overlap", "Overlap", why, threshold);
  }
  Verdict v{.id = "batched_copies.overlap",
            .figures = {{"kernel_alone_ms", f.kernel_alone.median_ms},
                        {"memcpy_async_together_ms", async->together.median_ms},
                        {"batch_together_ms", batch->together.median_ms},
                        {"memcpy_async_overlap_ratio", async->overlap_ratio},
                        {"batch_overlap_ratio", batch->overlap_ratio},
                        {"memcpy_async_ideal_ratio", async->ideal_ratio},
                        {"batch_ideal_ratio", batch->ideal_ratio}},
            .threshold = threshold};
  const bool async_overlapped = async->overlap_ratio > kOverlappedRatio;
  const bool batch_overlapped = batch->overlap_ratio > kOverlappedRatio;
  const std::string figures = "Overlap: beside a " + ms_text(f.kernel_alone.median_ms) +
                              " ms kernel on another stream, the batch got " + fixed(batch->overlap_ratio, 2) +
                              "x (ideal " + fixed(batch->ideal_ratio, 2) + "x),\n  the separate cudaMemcpyAsync copies " +
                              fixed(async->overlap_ratio, 2) + "x (ideal " + fixed(async->ideal_ratio, 2) + "x)";
  if (async_overlapped && batch_overlapped) {
    // Each against its own ideal: a way whose copies take longer has more to
    // hide behind the kernel, so a higher ratio, without overlapping better.
    const double batch_share = batch->overlap_ratio / batch->ideal_ratio;
    const double async_share = async->overlap_ratio / async->ideal_ratio;
    v.figures["batch_share_of_ideal"] = batch_share;
    v.figures["memcpy_async_share_of_ideal"] = async_share;
    const bool as_much = batch_share >= async_share * (1.0 - kOverlapWithin);
    v.outcome = as_much ? "overlaps_as_async" : "overlaps_less";
    v.sentence = figures + ", " + percent_text(batch_share) + " and " + percent_text(async_share) +
                 " of their ideals" +
                 (as_much ? ": the batch overlaps the kernel as the separate copies do."
                          : ": the batch still overlaps the kernel, but less than the separate copies (more than " +
                                percent_text(kOverlapWithin) + " below, against each one's ideal).");
  } else if (async_overlapped) {
    v.outcome = "not_overlapped";
    v.sentence = figures + ": the separate copies overlapped the kernel, the batch did not (" +
                 fixed(kOverlappedRatio, 2) + "x or less).";
  } else if (batch_overlapped) {
    v.outcome = "only_batch";
    v.sentence = figures + ": only the batch overlapped the kernel.";
  } else {
    v.outcome = "neither_overlapped";
    v.sentence = figures + ": neither overlapped the kernel (" + fixed(kOverlappedRatio, 2) +
                 "x or less), so there is nothing to compare here.";
  }
  return v;
}

Verdict pageable_order_verdict(const Figures& f) {
  const char* id = "batched_copies.pageable_order";
  const WayFigures* stream = find(f, WayId::pageable_batch);
  if (stream == nullptr) return no_conclusion(id, "Pageable", "the batch was not measured", kOrderWithin);
  auto name = [](const WayFigures& w) { return std::string(to_string(way_of(w.id).order)); };
  if (!stream->refused.empty()) {
    std::string others;
    for (const WayId other : {WayId::pageable_batch_any, WayId::pageable_batch_during_call}) {
      if (const WayFigures* w = find(f, other)) {
        others += "; order " + name(*w) + ": " + (w->refused.empty() ? "accepted" : "refused");
      }
    }
    return Verdict{.id = id,
                   .outcome = "refused",
                   .figures = {{"stream_refused", stream->refused}},
                   .threshold = kOrderWithin,
                   .sentence = "Pageable: the driver refused cudaMemcpyBatchAsync of pageable memory in stream order\n  (" +
                               stream->refused + ")" + others + "."};
  }
  if (const std::string why = unusable({stream}, f.copies); !why.empty()) {
    return no_conclusion(id, "Pageable", why, kOrderWithin);
  }
  Verdict v{.id = id,
            .figures = {{"stream_issue_ms", stream->issue.median_ms}, {"stream_transfer_ms", stream->transfer.median_ms}},
            .threshold = kOrderWithin};
  std::string text = "Pageable: one batch in stream order held the host " + ms_text(stream->issue.median_ms) + " ms";
  if (const WayFigures* async = find(f, WayId::pageable_async); unusable({async}, f.copies).empty()) {
    v.figures["memcpy_async_issue_ms"] = async->issue.median_ms;
    text += " (" + std::to_string(f.copies) + " cudaMemcpyAsync: " + ms_text(async->issue.median_ms) + " ms)";
  }
  const WayFigures* best = nullptr;
  std::vector<std::string> refused;
  for (const WayId other : {WayId::pageable_batch_any, WayId::pageable_batch_during_call}) {
    const WayFigures* w = find(f, other);
    if (w == nullptr) continue;
    if (!w->refused.empty()) {
      v.figures[name(*w) + "_refused"] = w->refused;
      refused.push_back("order " + name(*w) + " refused (" + w->refused + ")");
      continue;
    }
    if (const std::string why = unusable({w}, f.copies); !why.empty()) return no_conclusion(id, "Pageable", why, kOrderWithin);
    v.figures[name(*w) + "_issue_ms"] = w->issue.median_ms;
    v.figures[name(*w) + "_transfer_ms"] = w->transfer.median_ms;
    text += ",\n  order " + name(*w) + " " + ms_text(w->issue.median_ms) + " ms (its copies done after " +
            ms_text(w->transfer.median_ms) + " ms)";
    if (best == nullptr || w->issue.median_ms < best->issue.median_ms) best = w;
  }
  if (!refused.empty()) text += ";\n  " + join(refused, "; ");
  if (best == nullptr) {
    v.outcome = "refused";
    v.sentence = text + ": the driver took no other source access order here.";
    return v;
  }
  v.figures["best_order"] = name(*best);
  const Comparison comparison = compare_times(best->issue.median_ms, stream->issue.median_ms, kOrderWithin);
  v.outcome = by_comparison(comparison, "frees_host", "no_change", "holds_host_longer");
  v.sentence = text + by_comparison(comparison,
                                    ": order " + name(*best) + " gave the host back " +
                                        fixed(stream->issue.median_ms / best->issue.median_ms, 2) +
                                        "x sooner than stream order.",
                                    ": the source access order changed nothing for the host (within " +
                                        percent_text(kOrderWithin) + ").",
                                    ": every other source access order held the host longer than stream order.");
  return v;
}

// ---- the experiment ----------------------------------------------------------------------

CommonDefaults defaults() {
  CommonDefaults d;  // gemm_workload: --batches, --m, --n, --k at the article's sizes
  d.kernel_choice = false;       // no GEMM runs: no --kernel, --tf32
  d.host_memory_choice = false;  // both kinds (the default choices), always: the comparison is between them
  return d;
}

void add_options(StageCli& cli) {
  cli.add_int("kernel-ms", "How long the busy kernel beside the copies runs, ms", kDefaultKernelMs, 1, kMaxKernelMs);
}

Config read(const StageCli& cli, CommonOptions& common) {
  if (common.work.batches > kMaxBatches) {
    throw UsageError("--batches takes at most " + std::to_string(kMaxBatches) + " here (two copies each), got " +
                     std::to_string(common.work.batches));
  }
  return {.common = common, .kernel_ms = static_cast<int>(cli.get_int("kernel-ms"))};
}

std::uint64_t bytes_of(const Workload& work) {
  const auto per_batch = checked_add(work.a_bytes(), work.b_bytes());
  const auto all = per_batch ? checked_mul(*per_batch, work.batch_count()) : std::nullopt;
  return all.value_or(UINT64_MAX);
}

Needs needs(const Config& config) {
  const std::uint64_t bytes = bytes_of(config.common.work);
  // The host: a pinned and a pageable source and a pinned read-back; the device: the destination.
  return {{.device_bytes = bytes,
           .host_bytes = checked_mul(bytes, 3).value_or(UINT64_MAX),
           .host_kind = HostMemory::pinned},
          "try fewer --batches or smaller --m, --n, --k"};
}

double estimate_seconds(const Config& config, const Rates& rates) {
  const double bytes = double(bytes_of(config.common.work));
  const double kernel = config.kernel_ms * 1e-3;
  const double check = seconds_at(bytes, rates.pinned_bytes_per_s) + bytes / kCompareBytesPerS;
  double round = kernel;
  for (const Way& way : kWays) {
    const double copies =
        seconds_at(bytes, way.kind == HostMemory::pinned ? rates.pinned_bytes_per_s : rates.pageable_bytes_per_s);
    round += copies + (kernel + copies) + 2.0 * check;  // alone, then beside the kernel at worst one after the other
  }
  const int rounds = config.common.plan.warmup + config.common.plan.repeats;
  return rounds * round + 2.0 * bytes / kFillBytesPerS;
}

Estimate estimate(const Config& config, int device) {
  require_batch_copies(device);
  return {estimate_seconds(config, measure_copy_rates()),
          plural(2 * config.common.work.batches, "copy", "copies") + " of " +
              format_size(bytes_of(config.common.work)) + " issued 7 ways"};
}

Figures measure(const Config& config) {
  const Workload& work = config.common.work;
  Figures figures;
  figures.copies = 2 * work.batches;
  figures.bytes = bytes_of(work);
  const std::size_t bytes = figures.bytes;
  progress("batched copies: " + plural(figures.copies, "copy", "copies") + " of " + format_size(bytes) + ", 7 ways");
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  int pageable_access = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&pageable_access, cudaDevAttrPageableMemoryAccess, device));
  figures.pageable_memory_access = pageable_access != 0;
  figures.capture_status = capture_status(device);
  int blocks = 0;  // one block per SM: the whole GPU busy, as the pool's other batches keep it
  CUDA_CHECK(cudaDeviceGetAttribute(&blocks, cudaDevAttrMultiProcessorCount, device));

  HostBuffer<std::byte> pinned = allocate_host(HostMemory::pinned, bytes);
  HostBuffer<std::byte> pageable = allocate_host(HostMemory::pageable, bytes);
  fill_pattern(pinned.span(), config.common.seed);
  fill_pattern(pageable.span(), config.common.seed);
  DeviceBuffer<std::byte> destination(bytes);
  Checker checker(work, bytes);
  const Stream copy_stream(cudaStreamNonBlocking);  // the batch may not use the legacy default stream
  const Stream kernel_stream(cudaStreamNonBlocking);
  EventTimer timer;
  const std::chrono::milliseconds kernel_time(config.kernel_ms);
  const CopyList pinned_list = copy_list(work, destination.data(), pinned.data());
  const CopyList pageable_list = copy_list(work, destination.data(), pageable.data());

  struct WayRun {
    const Way* way;
    const CopyList* list;
    const std::byte* source;
    cudaMemcpyAttributes attributes;
    Millis last_issue{0};
    WayFigures figures;
  };
  std::vector<WayRun> runs;
  for (const Way& way : kWays) {
    const bool is_pinned = way.kind == HostMemory::pinned;
    WayRun run{&way, is_pinned ? &pinned_list : &pageable_list, is_pinned ? pinned.data() : pageable.data(),
               attributes_of(way.order, device), Millis{0},
               WayFigures{.id = way.id, .calls = calls_of(way, figures.copies), .verified = true}};
    if (way.issue == Issue::batch) {  // does the driver take this way's call? One copy tells.
      const cudaError_t status = batch_call(*run.list, 0, 1, run.attributes, copy_stream.get());
      if (status != cudaSuccess) {
        static_cast<void>(cudaGetLastError());
        run.figures.refused = error_text(status);
        run.figures.verified = false;
      }
      CUDA_CHECK(cudaStreamSynchronize(copy_stream.get()));
    }
    runs.push_back(std::move(run));
  }

  auto check = [&](WayRun& run) {
    const std::string failure = checker.check(destination.data(), run.source, copy_stream.get());
    ++run.figures.runs_checked;
    if (failure.empty()) return;
    if (run.figures.failure.empty()) run.figures.failure = failure;
    run.figures.verified = false;
  };
  auto poison = [&] { checker.poison(destination.data(), copy_stream.get()); };

  std::vector<TimedVariant> variants;
  variants.push_back({.prepare = nullptr,
                      .run =
                          [&] {
                            timer.start(kernel_stream.get());
                            launch_spin(kernel_time, blocks, kernel_stream.get());
                            return timer.stop();
                          },
                      .after_last = nullptr});
  std::vector<std::size_t> measured;  // the runs measured, in the order of their two variants each
  for (std::size_t r = 0; r < runs.size(); ++r) {
    if (!runs[r].figures.refused.empty()) continue;
    measured.push_back(r);
    WayRun* run = &runs[r];  // `runs` keeps its size from here on
    // Alone: the host's clock around the issuing calls, events around the copies.
    variants.push_back({.prepare = poison,
                        .run =
                            [&, run] {
                              timer.start(copy_stream.get());
                              const HostTimer call;
                              issue(*run->way, *run->list, run->attributes, copy_stream.get());
                              run->last_issue = call.elapsed();
                              const Millis transfer = timer.stop();
                              check(*run);
                              return transfer;
                            },
                        .after_last = nullptr,
                        .side = [run] { return run->last_issue; }});
    // Beside the busy kernel, queued first as the pool's other batches would be.
    variants.push_back({.prepare = poison,
                        .run =
                            [&, run] {
                              timer.start(kernel_stream.get(), {copy_stream.get()});
                              launch_spin(kernel_time, blocks, kernel_stream.get());
                              issue(*run->way, *run->list, run->attributes, copy_stream.get());
                              const Millis together = timer.stop();
                              check(*run);
                              return together;
                            },
                        .after_last = nullptr});
  }
  const std::vector<Measured> results = measure_rounds(config.common.plan, variants);

  figures.kernel_alone = results[0].primary;
  for (std::size_t i = 0; i < measured.size(); ++i) {
    WayFigures& w = runs[measured[i]].figures;
    const Measured& alone = results[1 + 2 * i];
    w.transfer = alone.primary;
    w.issue = alone.side.value_or(Summary{});
    w.together = results[2 + 2 * i].primary;
    const double kernel = figures.kernel_alone.median_ms;
    w.overlap_ratio = overlap_ratio(kernel, w.transfer.median_ms, w.together.median_ms);
    w.ideal_ratio = overlap_ratio(kernel, w.transfer.median_ms, std::max(kernel, w.transfer.median_ms));
  }
  for (WayRun& run : runs) figures.ways.push_back(std::move(run.figures));
  return figures;
}

// ---- the report --------------------------------------------------------------------------

namespace {

nlohmann::json per_copy_json(const Figures& f, WayId id) {
  const WayFigures* w = find(f, id);
  if (w == nullptr || !w->refused.empty()) return nullptr;
  return per_copy_issue_us(*w, f.copies);
}

nlohmann::json params_of(const WayFigures& w, int copies) {
  const Way& way = way_of(w.id);
  return {{"way", std::string(to_string(w.id))},
          {"host_memory", kind_name(way.kind)},
          {"issue", std::string(to_string(way.issue))},
          {"source_order", std::string(to_string(way.order))},
          {"calls", w.calls},
          {"copies", copies}};
}

std::string cell(const WayFigures& w, const std::string& text) { return w.refused.empty() ? text : "-"; }

// What the result's config and the section's share.
nlohmann::json config_json(const Config& config, const Figures& f) {
  const Workload& work = config.common.work;
  return {{"batches", work.batches},
          {"m", work.shape.m},
          {"n", work.shape.n},
          {"k", work.shape.k},
          {"copies", f.copies},
          {"bytes", f.bytes},
          {"kernel_ms", config.kernel_ms},
          {"warmup", config.common.plan.warmup},
          {"repeats", config.common.plan.repeats},
          {"seed", config.common.seed}};
}

void fill_result(Report& report, const Config& config, const Figures& f) {
  StageResult& result = report.result;
  result.config = config_json(config, f);
  result.config["host_memory"] = kinds_json({HostMemory::pageable, HostMemory::pinned});
  result.measurements.push_back({.name = "busy_kernel", .params = {{"requested_ms", config.kernel_ms}},
                                 .stats = f.kernel_alone, .work = {}, .verifiable = false});
  int runs = 0;
  int verified_ways = 0;
  std::string failure;  // the first way that failed its check; empty: none did
  for (const WayFigures& w : f.ways) {
    if (!w.refused.empty()) {
      if (way_of(w.id).kind == HostMemory::pinned) {
        report.fail("the driver refused " + way_text(w, f.copies) + ": " + w.refused);
      }
      continue;
    }
    Measurement alone{"batched_copies", params_of(w, f.copies), w.transfer, Work{double(f.bytes), 0.0}, w.verified};
    alone.host_issue = w.issue;
    result.measurements.push_back(std::move(alone));
    result.measurements.push_back({"batched_copies_with_kernel", params_of(w, f.copies), w.together, Work{}, w.verified});
    runs += w.runs_checked;
    verified_ways += w.verified ? 1 : 0;
    if (!w.verified && failure.empty()) failure = way_text(w, f.copies) + ": " + failure_text(w);
  }
  VerifyResult& check = result.verification;
  check.passed = failure.empty() && runs > 0;
  check.batches_checked = runs;
  check.checked = "run";
  check.method = "bit-exact: destination poisoned before each run, copied back and compared after";
  check.failure = check.passed ? "" : failure.empty() ? "nothing was checked" : failure;
  result.variants_verified = verified_ways;
}

// The "batched_copies" section (the config, per_copy_issue_us, the ways).
nlohmann::json section_json(const Config& config, const Figures& f) {
  nlohmann::json ways = nlohmann::json::array();
  for (const WayFigures& w : f.ways) {
    nlohmann::json row = params_of(w, f.copies);
    const bool ran = w.refused.empty();
    auto figure = [ran](double value) { return ran ? nlohmann::json(value) : nlohmann::json(nullptr); };
    row.update({{"refused", ran ? nlohmann::json(nullptr) : nlohmann::json(w.refused)},
                {"issue_ms", figure(w.issue.median_ms)},
                {"per_copy_issue_us", figure(per_copy_issue_us(w, f.copies))},
                {"transfer_ms", figure(w.transfer.median_ms)},
                {"gbps", figure(gbps(double(f.bytes), w.transfer.median_ms))},
                {"with_kernel_ms", figure(w.together.median_ms)},
                {"overlap_ratio", figure(w.overlap_ratio)},
                {"ideal_ratio", figure(w.ideal_ratio)},
                {"runs_checked", w.runs_checked},
                {"verified", ran && w.verified},
                {"failure", w.failure.empty() ? nlohmann::json(nullptr) : nlohmann::json(w.failure)}});
    ways.push_back(row);
  }
  nlohmann::json section_config = config_json(config, f);
  section_config.update({{"a_bytes", config.common.work.a_bytes()},
                         {"b_bytes", config.common.work.b_bytes()},
                         {"copies_per_split_call", kCopiesPerSplitCall}});
  return {{"config", section_config},
          {"per_copy_issue_us",
           {{"pinned",
             {{"memcpy_async", per_copy_json(f, WayId::pinned_async)}, {"batch", per_copy_json(f, WayId::pinned_batch)}}},
            {"pageable",
             {{"memcpy_async", per_copy_json(f, WayId::pageable_async)},
              {"batch", per_copy_json(f, WayId::pageable_batch)}}}}},
          {"pageable_memory_access", f.pageable_memory_access},
          {"capture_status", f.capture_status.empty() ? nlohmann::json(nullptr) : nlohmann::json(f.capture_status)},
          {"kernel_alone_ms", f.kernel_alone.median_ms},
          {"ways", ways}};
}

}  // namespace

void report(const Config& config, const Figures& f, Report& report) {
  fill_result(report, config, f);
  report.checked_runs("(every run of every way, warm-up included)");
  const Workload& work = config.common.work;
  std::ostream& out = report.out();
  out << f.copies << " copies host to device, A_i (" << format_size(work.a_bytes()) << ") and B_i ("
      << format_size(work.b_bytes()) << ") of " << plural(work.batches, "batch", "batches") << ": "
      << format_size(f.bytes) << " on one non-blocking stream;\n"
      << "with kernel: a " << config.kernel_ms << " ms kernel on every SM, queued first on another stream; medians of "
      << plural(config.common.plan.repeats, "run") << " after " << config.common.plan.warmup
      << " warm-up, in interleaved rounds\n"
      << "   issue = host clock around the calls; transfer = events around them; overlap = (kernel alone + transfer) / "
         "with kernel\n";
  report.table(table_of<WayFigures>(
      {{"copies issued as",
        [&f](const WayFigures& w) { return kind_name(way_of(w.id).kind) + ": " + describe(way_of(w.id), f.copies); }},
       {"issue ms",
        [](const WayFigures& w) { return w.refused.empty() ? ms_text(w.issue.median_ms) : "refused: " + w.refused; }},
       {"per copy us", [&f](const WayFigures& w) { return cell(w, us_text(per_copy_issue_us(w, f.copies))); }},
       {"transfer ms", [](const WayFigures& w) { return cell(w, ms_text(w.transfer.median_ms)); }},
       {"GB/s", [&f](const WayFigures& w) { return cell(w, gbps_text(double(f.bytes), w.transfer.median_ms)); }},
       {"with kernel ms", [](const WayFigures& w) { return cell(w, ms_text(w.together.median_ms)); }},
       {"overlap", [](const WayFigures& w) { return cell(w, fixed(w.overlap_ratio, 2) + "x"); }},
       {"ideal", [](const WayFigures& w) { return cell(w, fixed(w.ideal_ratio, 2) + "x"); }}},
      f.ways));
  out << "kernel alone: " << ms_text(f.kernel_alone.median_ms) << " ms; this GPU "
      << (f.pageable_memory_access ? "reads" : "does not read") << " pageable memory itself "
      << "(cudaDevAttrPageableMemoryAccess " << int(f.pageable_memory_access) << ")\n";
  if (!f.capture_status.empty()) {
    out << "on a capturing stream, one cudaMemcpyBatchAsync returned " << f.capture_status << ": the batch "
        << (f.capture_status == "cudaSuccess" ? "can" : "can't") << " be captured into a graph\n";
  }
  for (Verdict v : {issue_verdict(f), transfer_verdict(f), overlap_verdict(f), pageable_order_verdict(f)}) {
    report.verdict(std::move(v));
  }
  report.sections["batched_copies"] = section_json(config, f);
}

namespace {

const Experiment<Config, Figures> kExperiment{.about = kAbout, .runs = kRuns, .defaults = defaults(),
    .options = add_options, .read = read, .needs = needs, .estimate = estimate, .measure = measure, .report = report};

}  // namespace
}  // namespace csg::copies::batched

namespace csg::copies {
extern const Subcommand kBatchedCopies = make_subcommand<batched::kExperiment>();
}
