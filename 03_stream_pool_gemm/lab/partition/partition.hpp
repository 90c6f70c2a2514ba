// partition: priorities or a partition of the SMs? The priorities experiment's short kernels beside its
// flood, on a default- and a greatest-priority stream (the flood on every SM), and on a green context of K
// SMs of their own, the flood on a green context of the rest (cuDevSmResourceSplitByCount, cuGreenCtxCreate,
// cuGreenCtxStreamCreate). A priority lets a short kernel take the first slot a flood block frees; a
// partition keeps slots free for it, at the price of the flood's share. The runtime offers green contexts
// from CUDA 13.1; with 13.0 they are the driver's, reached through cudaGetDriverEntryPointByVersion (no link
// to libcuda). A driver or GPU without them: exit 77.
#pragma once

#include "03_stream_pool_gemm/lab/competition.hpp"
#include "experiment/lab.hpp"

namespace csg::pool {

// --partition-sms: each K at most this (and below the GPU's SM count).
inline constexpr long long kMaxPartitionSms = 1024;

struct PartitionConfig {
  PriorityConfig beside;  // the short kernels and the flood, as `priorities` runs them
  std::vector<int> sms;   // SMs asked for the short kernels' green context, one way each
  // --partition-sms given: a K whose partition would leave the flood no SM
  // is refused (exit 2); at the default list it is left out, and said so.
  bool sms_given = false;
};

// The SMs a split gives for `asked`: rounded up to a multiple of
// `alignment`, at least `minimum` (as cuDevSmResourceSplitByCount does).
int partition_size(int asked, int minimum, int alignment);
// The Ks of `asked` whose partition leaves the flood at least one of
// `sm_count` SMs, in their order; the others go to `left_out`.
std::vector<int> usable_partitions(const std::vector<int>& asked, int sm_count, int minimum, int alignment,
                                   std::vector<int>& left_out);

// One way of running the short kernels.
struct PartitionWay {
  std::string id;             // "idle", "stream_default", "stream_greatest", "partition_8", ...
  int short_priority = 0;     // their stream's priority
  int sms_asked = 0;          // a partition's K; 0: every SM shared with the flood
  int short_sms = 0;          // the SMs their kernels could use (the green context's)
  int flood_sms = 0;          // the flood's (0: no flood)
  PriorityMode mode;
  bool partition() const { return sms_asked > 0; }
};

struct PartitionResult : FloodRun {
  PartitionConfig config;
  int min_partition_sms = 0;  // CUdevSmResource.minSmPartitionSize
  int sm_alignment = 0;       // CUdevSmResource.smCoscheduledAlignment
  std::vector<PartitionWay> ways;  // idle, stream_default, stream_greatest, then a partition per K
  std::vector<int> left_out_sms;   // default Ks whose partition would have left the flood no SM
  const PartitionWay& way(std::string_view id) const;  // throws std::out_of_range
};

// What a partition did against the greatest priority.
enum class PartitionVerdict {
  not_verified,  // the checks every flooded comparison passes first (no priority levels needed)
  flood_gaps,
  gpu_not_full,
  // Its median latency below priority's by more than kPriorityWithin, and
  // the share of the latency saved at least the share of the flood's
  // throughput lost (both against priority's figures).
  beats_priority,
  matches_priority,          // within kPriorityWithin, the flood losing no more than kEqualWithin
  // The flood lost a larger share of its throughput than the latency saved,
  // or more than kEqualWithin for no latency gained.
  costs_more_than_it_saves,
  worse,                    // slower than priority, the flood no worse off
};
std::string_view to_string(PartitionVerdict verdict);
// The flood's throughput lost beside `way` against beside the greatest
// priority: 1 - its blocks/ms over priority's (0.06: 6% fewer blocks).
double flood_cost(const PartitionResult& result, const PartitionWay& way);
PartitionVerdict judge_partition(const PartitionResult& result, const PartitionWay& way);
// "partition.sms_<K>": the partition of K SMs against the greatest priority.
Verdict partition_verdict(const PartitionResult& result, const PartitionWay& way);

// The table, a verdict per K, the checks and the JSON ("partition").
void report_partition(const PartitionConfig& config, const PartitionResult& result, Report& report);

}  // namespace csg::pool
