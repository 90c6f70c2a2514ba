#include "03_stream_pool_gemm/lab/partition/partition.hpp"

#include <cuda.h>

#include "experiment/lab.hpp"

namespace csg::pool {
namespace {

constexpr const char* kAbout = R"(
partition: short kernels beside a flood: priority, or a green context of K SMs of their own

The short kernels of `priorities` beside its flood: on a stream of the default and of the greatest
priority, the flood on every SM, and on a green context of K SMs of their own (K from
--partition-sms), the flood on a green context of the rest; each round runs every way once. Needs
green contexts (a CUDA 12.4+ driver): exit 77 without them.
)";

constexpr const char* kRuns = R"(
# short kernels beside a flood: priority vs SM partitions; shared memory  appendix
qfc  -
t    tiny  ctest=whole_gpu --priority-samples 20 --partition-sms 8 --warmup 0 --repeats 1
s    -     --priority-samples 4 --flood-waves 1 --flood-depth 2 --partition-sms 8 --warmup 0 --repeats 1
)";

// Creating a split, two green contexts and their streams (measured order
// of magnitude: a few ms), for the estimate.
constexpr double kPartitionSetupSeconds = 0.02;

// The driver's green-context calls, reached through the runtime's entry
// points (the ABI of CUDA 12.5, where cuGreenCtxStreamCreate arrived).
constexpr unsigned kDriverAbi = 12050;

struct GreenDriver {
  decltype(&cuGetErrorName) error_name = nullptr;
  decltype(&cuDeviceGet) device_get = nullptr;
  decltype(&cuDeviceGetDevResource) get_resource = nullptr;
  decltype(&cuDevSmResourceSplitByCount) split = nullptr;
  decltype(&cuDevResourceGenerateDesc) generate_desc = nullptr;
  decltype(&cuGreenCtxCreate) create = nullptr;
  decltype(&cuGreenCtxDestroy) destroy = nullptr;
  decltype(&cuGreenCtxStreamCreate) stream_create = nullptr;
  decltype(&cuStreamDestroy) stream_destroy = nullptr;
};

template <class F>
void entry_point(const char* symbol, F& into) {
  void* function = nullptr;
  cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
  CUDA_CHECK(cudaGetDriverEntryPointByVersion(symbol, &function, kDriverAbi, cudaEnableDefault, &found));
  if (found != cudaDriverEntryPointSuccess || function == nullptr) {
    throw NoDeviceError(std::string("this driver offers no green contexts (no ") + symbol + "; they need a CUDA 12.5+ driver)");
  }
  into = reinterpret_cast<F>(function);
}

const GreenDriver& green_driver() {
  static const GreenDriver driver = [] {
    GreenDriver d;
    entry_point("cuGetErrorName", d.error_name);
    entry_point("cuDeviceGet", d.device_get);
    entry_point("cuDeviceGetDevResource", d.get_resource);
    entry_point("cuDevSmResourceSplitByCount", d.split);
    entry_point("cuDevResourceGenerateDesc", d.generate_desc);
    entry_point("cuGreenCtxCreate", d.create);
    entry_point("cuGreenCtxDestroy", d.destroy);
    entry_point("cuGreenCtxStreamCreate", d.stream_create);
    entry_point("cuStreamDestroy", d.stream_destroy);
    return d;
  }();
  return driver;
}

std::string result_name(CUresult result) {
  const char* name = nullptr;
  if (green_driver().error_name(result, &name) != CUDA_SUCCESS || name == nullptr) return std::to_string(int(result));
  return name;
}

// A failed driver call names the call, the file and the line, as CUDA_CHECK does.
void driver_check(CUresult result, const char* call, const char* file, int line) {
  if (result != CUDA_SUCCESS) {
    throw std::runtime_error(std::string(call) + " failed: " + result_name(result) + " at " + file + ":" +
                             std::to_string(line));
  }
}
#define GREEN_CHECK(call) driver_check((call), #call, __FILE__, __LINE__)

// The device's SMs as a resource, or exit 77 where green contexts are not offered.
CUdevResource device_sms(int ordinal) {
  const GreenDriver& d = green_driver();
  CUdevice device = 0;
  GREEN_CHECK(d.device_get(&device, ordinal));
  CUdevResource sms{};
  const CUresult got = d.get_resource(device, &sms, CU_DEV_RESOURCE_TYPE_SM);
  if (got == CUDA_ERROR_NOT_SUPPORTED) {
    throw NoDeviceError("this GPU offers no green contexts (cuDeviceGetDevResource: " + result_name(got) + ")");
  }
  GREEN_CHECK(got);
  return sms;
}

// Why K is left out: "a partition of 16 SMs would leave the flood none of this GPU's 16".
std::string leaves_no_sms(int asked, int minimum, int alignment, int sm_count) {
  return "a partition of " + std::to_string(partition_size(asked, minimum, alignment)) +
         " SMs would leave the flood none of this GPU's " + std::to_string(sm_count);
}

// A split of the device's SMs: K for the short kernels, the rest for the
// flood, each a green context with its streams. Destroyed in reverse.
class Partition {
 public:
  Partition(int ordinal, int asked, int flood_streams) {
    const GreenDriver& d = green_driver();
    GREEN_CHECK(d.device_get(&device_, ordinal));
    const CUdevResource whole = device_sms(ordinal);
    CUdevResource group{};
    CUdevResource rest{};
    unsigned groups = 1;
    GREEN_CHECK(d.split(&group, &groups, &whole, &rest, 0, static_cast<unsigned>(asked)));
    if (groups != 1 || rest.sm.smCount == 0) {
      throw UsageError("--partition-sms " + std::to_string(asked) + ": this GPU's " +
                       plural(long(whole.sm.smCount), "SM") + " leave no SMs for the flood beside " +
                       std::to_string(group.sm.smCount));
    }
    short_sms_ = static_cast<int>(group.sm.smCount);
    flood_sms_ = static_cast<int>(rest.sm.smCount);
    short_ctx_ = context(group);
    flood_ctx_ = context(rest);
    GREEN_CHECK(d.stream_create(&short_stream_, short_ctx_, CU_STREAM_NON_BLOCKING, 0));
    for (int s = 0; s < flood_streams; ++s) {
      CUstream stream = nullptr;
      GREEN_CHECK(d.stream_create(&stream, flood_ctx_, CU_STREAM_NON_BLOCKING, 0));
      flood_streams_.push_back(stream);
    }
  }
  ~Partition() {
    const GreenDriver& d = green_driver();
    for (CUstream stream : flood_streams_) report_failure(d.stream_destroy(stream), "cuStreamDestroy");
    if (short_stream_) report_failure(d.stream_destroy(short_stream_), "cuStreamDestroy");
    for (CUgreenCtx ctx : {short_ctx_, flood_ctx_}) {
      if (ctx) report_failure(d.destroy(ctx), "cuGreenCtxDestroy");
    }
  }
  Partition(const Partition&) = delete;
  Partition& operator=(const Partition&) = delete;

  int short_sms() const { return short_sms_; }
  int flood_sms() const { return flood_sms_; }
  cudaStream_t short_stream() const { return short_stream_; }
  std::vector<cudaStream_t> flood_streams() const { return {flood_streams_.begin(), flood_streams_.end()}; }

 private:
  CUgreenCtx context(CUdevResource& sms) {
    const GreenDriver& d = green_driver();
    CUdevResourceDesc desc = nullptr;
    GREEN_CHECK(d.generate_desc(&desc, &sms, 1));
    CUgreenCtx ctx = nullptr;
    GREEN_CHECK(d.create(&ctx, desc, device_, CU_GREEN_CTX_DEFAULT_STREAM));
    return ctx;
  }
  static void report_failure(CUresult result, const char* call) noexcept {
    if (result != CUDA_SUCCESS) std::cerr << "warning: " << call << " failed: " << int(result) << "\n";
  }

  CUdevice device_ = 0;
  int short_sms_ = 0;
  int flood_sms_ = 0;
  CUgreenCtx short_ctx_ = nullptr;
  CUgreenCtx flood_ctx_ = nullptr;
  CUstream short_stream_ = nullptr;
  std::vector<CUstream> flood_streams_;
};

}  // namespace

int partition_size(int asked, int minimum, int alignment) {
  const int step = std::max(alignment, 1);
  return std::max(minimum, (asked + step - 1) / step * step);
}

std::vector<int> usable_partitions(const std::vector<int>& asked, int sm_count, int minimum, int alignment,
                                   std::vector<int>& left_out) {
  std::vector<int> usable;
  for (const int k : asked) (partition_size(k, minimum, alignment) < sm_count ? usable : left_out).push_back(k);
  return usable;
}

const PartitionWay& PartitionResult::way(std::string_view id) const {
  for (const PartitionWay& w : ways) {
    if (w.id == id) return w;
  }
  throw std::out_of_range("no way " + std::string(id));
}

// ---- the verdicts ----------------------------------------------------------------------

std::string_view to_string(PartitionVerdict verdict) {
  return name_of(verdict, {"not_verified", "flood_gaps", "gpu_not_full", "beats_priority", "matches_priority",
                           "costs_more_than_it_saves", "worse"});
}

double flood_cost(const PartitionResult& r, const PartitionWay& way) {
  const double priority = r.way("stream_greatest").mode.flood_blocks_per_ms;
  return priority > 0.0 ? 1.0 - way.mode.flood_blocks_per_ms / priority : 0.0;
}

PartitionVerdict judge_partition(const PartitionResult& r, const PartitionWay& way) {
  const double partition_ms = way.mode.latency.median_ms;
  const double speedup = partition_ms > 0.0 ? r.way("stream_greatest").mode.latency.median_ms / partition_ms : 0.0;
  switch (judge_latency(r, r.way("stream_default").mode.flood_busy, speedup, false)) {
    case PriorityVerdict::not_verified: return PartitionVerdict::not_verified;
    case PriorityVerdict::flood_gaps: return PartitionVerdict::flood_gaps;
    case PriorityVerdict::gpu_not_full: return PartitionVerdict::gpu_not_full;
    case PriorityVerdict::helps:
      // Both as shares of priority's figures: the latency it saved against the throughput it cost.
      return flood_cost(r, way) > 1.0 - 1.0 / speedup ? PartitionVerdict::costs_more_than_it_saves
                                                       : PartitionVerdict::beats_priority;
    case PriorityVerdict::one_level:  // not asked for: a partition compares no priority levels
    case PriorityVerdict::no_difference:
    case PriorityVerdict::worse:
      if (flood_cost(r, way) > kEqualWithin) return PartitionVerdict::costs_more_than_it_saves;
      break;
  }
  return speedup * (1.0 + kPriorityWithin) <= 1.0 ? PartitionVerdict::worse : PartitionVerdict::matches_priority;
}

Verdict partition_verdict(const PartitionResult& r, const PartitionWay& way) {
  const PartitionWay& priority = r.way("stream_greatest");
  const PartitionVerdict judged = judge_partition(r, way);
  const double cost = flood_cost(r, way);
  const Summary& mine = way.mode.latency;
  const Summary& theirs = priority.mode.latency;
  // The share of priority's median latency the partition saved (negative: it added).
  const double saved = theirs.median_ms > 0.0 ? 1.0 - mine.median_ms / theirs.median_ms : 0.0;
  Verdict verdict{.id = "partition.sms_" + std::to_string(way.sms_asked),
                  .outcome = std::string(to_string(judged)),
                  .figures = {{"short_sms", way.short_sms},
                              {"flood_sms", way.flood_sms},
                              {"partition_median_ms", mine.median_ms},
                              {"partition_p99_ms", p99_ms(mine)},
                              {"priority_median_ms", theirs.median_ms},
                              {"priority_p99_ms", p99_ms(theirs)},
                              {"flood_cost", cost},
                              {"latency_saved", saved},
                              {"flood_busy", way.mode.flood_busy}},
                  .threshold = {{"priority_within", kPriorityWithin},
                                {"flood_within", kEqualWithin},
                                {"flood_full", kFloodFull}}};
  const std::string head = plural(way.short_sms, "SM") + " of their own (the flood on " +
                           std::to_string(way.flood_sms) + "): median " + us(mine.median_ms) + " us, p99 " +
                           us(p99_ms(mine)) + " us, against " + us(theirs.median_ms) + " us, p99 " +
                           us(p99_ms(theirs)) + " us at the greatest priority;\n  ";
  const std::string flood = cost >= 0.0 ? "the flood lost " + percent_text(cost) + " of its throughput against priority's"
                                        : "the flood ran " + percent_text(-cost) + " faster than beside priority";
  const std::string share = " (it gave up " + percent_text(double(way.short_sms) / r.device.sm_count) + " of the SMs)";
  switch (judged) {
    case PartitionVerdict::beats_priority:
      verdict.sentence = head + "the partition beat priority " + fixed(theirs.median_ms / mine.median_ms, 1) +
                         "x (" + percent_text(saved) + " less latency); " + flood + share + ".";
      break;
    case PartitionVerdict::matches_priority:
      verdict.sentence = head + "no better than priority (within " + percent_text(kPriorityWithin) + "), and " +
                         flood + share + ":\n  as good as priority at no cost worth naming.";
      break;
    case PartitionVerdict::costs_more_than_it_saves:
      verdict.sentence = head +
                         (theirs.median_ms >= mine.median_ms * (1.0 + kPriorityWithin) ? "the partition cut the latency " + percent_text(saved) +
                                                         " below priority's, but " + flood + share
                                                   : "no better than priority, yet " + flood + share) +
                         ":\n  the partition costs the flood more than it saves the short kernels.";
      break;
    case PartitionVerdict::worse:
      verdict.sentence = head + "the partition was " + fixed(mine.median_ms / theirs.median_ms, 2) +
                         "x slower than priority; " + flood + share + ".";
      break;
    default:
      // The failed check itself, as the shared judge names it.
      const double busy = r.way("stream_default").mode.flood_busy;
      verdict.sentence = failed_check_sentence(judge_latency(r, busy, 1.0, false), r, busy, "partitions");
      break;
  }
  return verdict;
}

// ---- the report --------------------------------------------------------------------------

namespace {

std::string way_label(const PartitionWay& w) {
  if (w.partition()) return "green context of " + plural(w.short_sms, "SM") + " (asked " + std::to_string(w.sms_asked) + ")";
  if (w.id == "idle") return "alone, idle GPU";
  return w.id == "stream_greatest" ? "greatest priority, every SM" : "default priority, every SM";
}

nlohmann::json partition_json(const PartitionResult& r) {
  nlohmann::json ways = nlohmann::json::array();
  for (const PartitionWay& w : r.ways) {
    nlohmann::json way = flood_way_json(w.mode, w.flood_sms > 0, latency_json(w.mode.latency));
    way["id"] = w.id;
    way["short_priority"] = w.short_priority;
    way["sms_asked"] = w.sms_asked > 0 ? nlohmann::json(w.sms_asked) : nlohmann::json(nullptr);
    way["short_sms"] = w.short_sms;
    way["flood_sms"] = w.flood_sms;
    way["flood_cost_vs_priority"] = w.partition() ? nlohmann::json(flood_cost(r, w)) : nlohmann::json(nullptr);
    ways.push_back(std::move(way));
  }
  nlohmann::json doc = flood_run_json("partition", r.config.beside, r);
  doc["config"]["partition_sms"] = r.config.sms;
  doc["min_partition_sms"] = r.min_partition_sms;
  doc["sm_alignment"] = r.sm_alignment;
  doc["left_out_sms"] = r.left_out_sms;
  doc["ways"] = ways;
  // The first partition against the greatest priority: the after-the-article row.
  for (const PartitionWay& w : r.ways) {
    if (!w.partition()) continue;
    doc["first_partition"] = {{"short_sms", w.short_sms},
                              {"median_us", w.mode.latency.median_ms * 1e3},
                              {"priority_median_us", r.way("stream_greatest").mode.latency.median_ms * 1e3}};
    break;
  }
  return doc;
}

}  // namespace

void report_partition(const PartitionConfig& config, const PartitionResult& r, Report& report) {
  const PriorityConfig& c = r.config.beside;
  std::ostream& out = report.out();
  out << "\nshort kernels beside a full GPU: priority or SMs of their own; " << plural(c.flood_streams, "flood stream")
      << " of " << c.flood_block_us << "-us blocks;\n  " << plural(c.samples, "short kernel") << " of "
      << c.short_blocks << "x" << c.short_threads << " threads per way, one at a time; "
      << plural(c.plan.repeats, "round") << " after " << c.plan.warmup << " warm-up; " << plural(r.device.sm_count, "SM")
      << ",\n  split into green contexts of at least " << r.min_partition_sms << " SMs in steps of "
      << r.sm_alignment << " (cuDevSmResourceSplitByCount)\n";
  const double default_blocks = r.way("stream_default").mode.flood_blocks_per_ms;
  report.table(table_of<PartitionWay>(
      {{"short kernels", [](const PartitionWay& w) { return way_label(w); }},
       {"prio", [](const PartitionWay& w) { return std::to_string(w.short_priority); }},
       {"flood SMs", [](const PartitionWay& w) { return w.flood_sms > 0 ? std::to_string(w.flood_sms) : "-"; }},
       {"median us", [](const PartitionWay& w) { return us(w.mode.latency.median_ms); }},
       {"p95 us", [](const PartitionWay& w) { return us(w.mode.latency.p95_ms); }},
       {"p99 us", [](const PartitionWay& w) { return us(p99_ms(w.mode.latency)); }},
       {"flood busy", [](const PartitionWay& w) { return w.flood_sms > 0 ? percent_text(w.mode.flood_busy) : "-"; }},
       {"flood blocks/ms",
        [default_blocks](const PartitionWay& w) {
          return w.flood_sms == 0 ? "-" : flood_blocks_text(w.mode.flood_blocks_per_ms, default_blocks);
        }}},
      r.ways));
  for (const int k : r.left_out_sms) {
    out << "left out: --partition-sms " << k << " ("
        << leaves_no_sms(k, r.min_partition_sms, r.sm_alignment, r.device.sm_count) << ")\n";
  }
  out << "latency: events on the short kernels' stream just before and after each kernel; flood busy: its share of\n"
      << "its own SMs' block slots; flood blocks/ms: its throughput (x: against beside the default priority)\n";
  std::string conclusion;
  for (const PartitionWay& w : r.ways) {
    if (!w.partition()) continue;
    if (!conclusion.empty()) conclusion += "\n  ";
    conclusion += report.verdict(partition_verdict(r, w)).sentence;
  }
  finish_flood_report(report, c, r, int(r.ways.size()), "partition", partition_json(r), conclusion);
  report.result.config["partition_sms"] = config.sms;
}

// ---- the measurement -----------------------------------------------------------------------

namespace {

PartitionResult measure_partition(const PartitionConfig& config) {
  const PriorityConfig& beside = config.beside;
  require_valid(beside);
  PartitionResult r;
  r.config = config;
  r.device = query_flood_device();
  int ordinal = 0;
  CUDA_CHECK(cudaGetDevice(&ordinal));
  const CUdevResource whole = device_sms(ordinal);
  r.min_partition_sms = static_cast<int>(whole.sm.minSmPartitionSize);
  r.sm_alignment = static_cast<int>(whole.sm.smCoscheduledAlignment);

  Flood everywhere(beside, r.device.sm_count, r.device.flood_blocks_per_sm);
  ShortKernels shorts(beside);
  const Stream same_stream(cudaStreamNonBlocking, r.device.least_priority);
  const Stream high_stream(cudaStreamNonBlocking, r.device.greatest_priority);
  const std::vector<int> usable = usable_partitions(config.sms, r.device.sm_count, r.min_partition_sms,
                                                    r.sm_alignment, r.left_out_sms);
  std::vector<std::unique_ptr<Partition>> partitions;
  std::vector<std::unique_ptr<Flood>> floods;
  for (const int asked : usable) {
    partitions.push_back(std::make_unique<Partition>(ordinal, asked, beside.flood_streams));
    const Partition& p = *partitions.back();
    floods.push_back(std::make_unique<Flood>(beside, p.flood_sms(), r.device.flood_blocks_per_sm, p.flood_streams()));
  }
  const int all = r.device.sm_count;
  const int least = r.device.least_priority;
  r.ways = {{.id = "idle", .short_priority = least, .sms_asked = 0, .short_sms = all, .flood_sms = 0, .mode = {}},
            {.id = "stream_default", .short_priority = least, .sms_asked = 0, .short_sms = all, .flood_sms = all,
             .mode = {}},
            {.id = "stream_greatest", .short_priority = r.device.greatest_priority, .sms_asked = 0, .short_sms = all,
             .flood_sms = all, .mode = {}}};
  std::vector<ShortWay> ways = {{.stream = same_stream.get(), .flood = nullptr, .launch = {}},
                                {.stream = same_stream.get(), .flood = &everywhere, .launch = {}},
                                {.stream = high_stream.get(), .flood = &everywhere, .launch = {}}};
  for (std::size_t k = 0; k < partitions.size(); ++k) {
    const Partition& p = *partitions[k];
    r.ways.push_back({.id = "partition_" + std::to_string(usable[k]), .short_priority = 0, .sms_asked = usable[k],
                      .short_sms = p.short_sms(), .flood_sms = p.flood_sms(), .mode = {}});
    ways.push_back({.stream = p.short_stream(), .flood = floods[k].get(), .launch = {}});
  }
  std::vector<PriorityMode> modes = shorts.run(ways, r);
  for (std::size_t w = 0; w < r.ways.size(); ++w) r.ways[w].mode = std::move(modes[w]);
  return r;
}

void options(StageCli& cli) {
  add_priority_options(cli);
  cli.add_text("partition-sms", "SMs of the short kernels' green context, one way each (rounded up to the GPU's "
               "partition granularity)", "8,32", "LIST");
}

PartitionConfig read(const StageCli& cli, CommonOptions& common) {
  const PriorityConfig beside = read_priority_options(cli, common);
  const std::vector<long long> sms =
      parse_distinct_int_list("partition-sms", cli.get_string("partition-sms"), 1, kMaxPartitionSms);
  return {.beside = beside, .sms = {sms.begin(), sms.end()}, .sms_given = cli.given("partition-sms")};
}

Needs needs(const PartitionConfig& config) { return short_kernel_needs(config.beside); }

Estimate estimate(const PartitionConfig& config, int device) {
  // Green contexts or exit 77, and every K given leaving the flood an SM or exit 2, before anything runs.
  const CUdevResource whole = device_sms(device);
  const int sm_count = static_cast<int>(whole.sm.smCount);
  const int minimum = static_cast<int>(whole.sm.minSmPartitionSize);
  const int alignment = static_cast<int>(whole.sm.smCoscheduledAlignment);
  std::vector<int> left_out;
  const std::vector<int> usable = usable_partitions(config.sms, sm_count, minimum, alignment, left_out);
  if (config.sms_given && !left_out.empty()) {
    throw UsageError("--partition-sms " + std::to_string(left_out.front()) + ": " +
                     leaves_no_sms(left_out.front(), minimum, alignment, sm_count));
  }
  const int ways = static_cast<int>(usable.size());
  return {beside_flood_seconds(config.beside, 1, 1, 1 + ways) + ways * kPartitionSetupSeconds,
          std::to_string(config.beside.samples) + " short kernels per way and round, " +
              plural(3 + ways, "way") + ", beside a flood, with priority and on SMs of their own"};
}

const Experiment<PartitionConfig, PartitionResult> kExperiment{.about = kAbout, .runs = kRuns,
    .defaults = competition_defaults(), .options = options, .read = read, .needs = needs,
    .estimate = estimate, .measure = measure_partition, .report = report_partition};

}  // namespace

extern const Subcommand kPartition = make_subcommand<kExperiment>();

}  // namespace csg::pool
