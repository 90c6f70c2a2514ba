#include "02_pinned_vs_pageable/lab/sweep/sweep.hpp"

#include <cstring>

#include "02_pinned_vs_pageable/options.hpp"

namespace csg::copies::sweep {

namespace {

constexpr const char* kAbout = R"(
sweep: bandwidth of four host memory kinds by size; both ways at once; the staging copy

H2D and D2H bandwidth over a size sweep for pageable, pinned, registered and write-combined host
memory, one cudaMemcpyAsync each, timed with events; pinned H2D and D2H at once on two streams; and
where pageable copies lose their time: the driver's staging copy, done by hand beside them.
)";

constexpr const char* kRuns = R"(
# bandwidth per host memory kind: 4 sizes: copy table, bandwidth.png, --table peaks
# ... every size up to 1 GiB (--full)
c   -             --quick
q   -             --sizes 64K,1M,16M,64M --warmup 1 --repeats 3
f   -
t   tiny          --sizes 4K,1000,256K --warmup 1 --repeats 2
t   quick_pinned  --quick --sizes 64K --host-memory pinned
m   -             --sizes 4K,1000 --warmup 0 --repeats 1
)";

constexpr HostMemory kAllKinds[] = {HostMemory::pageable, HostMemory::pinned, HostMemory::registered,
                                    HostMemory::write_combined};
constexpr CopyDirection kOneWay[] = {CopyDirection::h2d, CopyDirection::d2h};
// Default sweep: 4 KiB (latency-bound, ~10 us per copy) to 1 GiB (~20 ms pinned
// at 55 GB/s), powers of 4: 10 sizes.
constexpr std::uint64_t kFirstDefaultBytes = 4 * kKiB;
constexpr std::uint64_t kLastDefaultBytes = kGiB;
// --quick: one size per regime (latency, ramp, near peak, peak), 5 repeats.
constexpr std::uint64_t kQuickSizes[] = {64 * kKiB, kMiB, 16 * kMiB, 256 * kMiB};
constexpr int kQuickWarmup = 1;
constexpr int kQuickRepeats = 5;
// The one check a sweep makes per size and kind.
constexpr const char* kCheck = "sweep";

}  // namespace

void options(StageCli& cli) {
  cli.add_text("sizes",
               "Transfer sizes, e.g. 4K,64K,1M,1G (bytes; K/M/G/T are 2^10..2^40; at most 1T). Default: powers of "
               "4 from 4K to 1G; with --quick 64K,1M,16M,256M. --sizes wins over --quick",
               "", "LIST");
  cli.add_flag("quick", "Short run: sizes 64K,1M,16M,256M, 1 warm-up + 5 repeats (unless --warmup/--repeats are given)");
}

Config read(const StageCli& cli, CommonOptions& common) {
  const bool quick = cli.get_flag("quick");
  if (quick && !cli.given("warmup")) common.plan.warmup = kQuickWarmup;
  if (quick && !cli.given("repeats")) common.plan.repeats = kQuickRepeats;
  std::vector<std::uint64_t> sizes = cli.given("sizes") ? parse_size_list("sizes", cli.get_string("sizes"))
                                     : quick            ? std::vector<std::uint64_t>(std::begin(kQuickSizes),
                                                                                     std::end(kQuickSizes))
                                                        : powers_of_4(kFirstDefaultBytes, kLastDefaultBytes);
  return {.common = common, .sizes = std::move(sizes), .kinds = common.host_memories, .quick = quick};
}

namespace {

// `kinds` less those this device can't use (registered memory where
// cudaDevAttrHostRegisterSupported is 0); each one dropped adds a line to `notes`.
std::vector<HostMemory> supported_kinds(const std::vector<HostMemory>& kinds, int device,
                                        std::vector<std::string>& notes) {
  int can_register = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&can_register, cudaDevAttrHostRegisterSupported, device));
  std::vector<HostMemory> usable;
  for (HostMemory kind : kinds) {
    if (kind == HostMemory::registered && can_register == 0) {
      notes.push_back("registered memory skipped: this device reports cudaDevAttrHostRegisterSupported = 0");
      continue;
    }
    usable.push_back(kind);
  }
  if (usable.empty()) throw ResourceError("nothing left to measure: " + notes.back());
  return usable;
}

Needs needs(const Config& config) {
  return {CopySet::needs(config.sizes.back(), config.kinds),
          "choose smaller --sizes (the largest is " + format_size(config.sizes.back()) +
              ") or fewer --host-memory kinds"};
}

Estimate estimate(const Config& config, int /*device*/) {
  const Rates rates = measure_copy_rates();
  // Registered and write-combined memory copy about as fast as pinned; a
  // host memcpy runs at roughly the pageable copy's rate.
  double round = 0.0;
  for (const std::uint64_t bytes : config.sizes) {
    for (const HostMemory kind : config.kinds) {
      const double rate = kind == HostMemory::pageable ? rates.pageable_bytes_per_s : rates.pinned_bytes_per_s;
      round += 2.0 * seconds_at(double(bytes), rate);
    }
    round += seconds_at(2.0 * double(bytes), rates.pinned_bytes_per_s) +
             seconds_at(double(bytes), rates.pageable_bytes_per_s);
  }
  return {(config.common.plan.warmup + config.common.plan.repeats) * round,
          "the copies of " + plural(std::ssize(config.sizes), "size") + " up to " + format_size(config.sizes.back())};
}

Figures measure(const Config& config) {
  const RepeatPlan& plan = config.common.plan;
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  Figures figures;
  figures.kinds = supported_kinds(config.kinds, device, figures.notes);
  Stream h2d_stream(cudaStreamNonBlocking);  // non-blocking: no implicit sync with stream 0
  Stream d2h_stream(cudaStreamNonBlocking);
  EventTimer timer;
  for (const std::uint64_t bytes : config.sizes) {
    progress("sweep " + format_size(bytes) + ": allocating and filling every kind");
    CopySet set(bytes, figures.kinds, config.common.seed, allocate_host);
    // One cudaMemcpyAsync each way, timed with events on its stream.
    auto h2d = [&](HostMemory kind) {
      timer.start(h2d_stream.get());
      CUDA_CHECK(cudaMemcpyAsync(set.device_in(), set.host_src(kind), bytes, cudaMemcpyHostToDevice,
                                 h2d_stream.get()));
      return timer.stop();
    };
    auto d2h = [&](HostMemory kind) {
      timer.start(d2h_stream.get());
      CUDA_CHECK(cudaMemcpyAsync(set.host_dst(kind), set.device_out(), bytes, cudaMemcpyDeviceToHost,
                                 d2h_stream.get()));
      return timer.stop();
    };
    // Pinned both ways at once: two streams, so two copy engines work together.
    auto bidirectional = [&] {
      timer.start(h2d_stream.get(), {d2h_stream.get()});
      CUDA_CHECK(cudaMemcpyAsync(set.device_in(), set.host_src(HostMemory::pinned), bytes, cudaMemcpyHostToDevice,
                                 h2d_stream.get()));
      CUDA_CHECK(cudaMemcpyAsync(set.host_dst(HostMemory::pinned), set.device_out(), bytes, cudaMemcpyDeviceToHost,
                                 d2h_stream.get()));
      return timer.stop();
    };
    // The extra copy the driver makes for pageable memory, done by hand.
    auto host_memcpy = [&] {
      const HostTimer host;
      std::memcpy(set.host_dst(HostMemory::pageable), set.host_src(HostMemory::pageable), bytes);
      return host.elapsed();
    };

    std::vector<CopyPoint> keys;
    std::vector<TimedVariant> variants;
    auto add = [&](CopyPoint key, std::function<Millis()> run) {
      key.bytes = bytes;
      keys.push_back(key);
      variants.push_back({.prepare = nullptr, .run = std::move(run), .after_last = nullptr});
    };
    for (const HostMemory kind : figures.kinds) {
      add({.kind = kind, .direction = CopyDirection::h2d}, [&h2d, kind] { return h2d(kind); });
      add({.kind = kind, .direction = CopyDirection::d2h}, [&d2h, kind] { return d2h(kind); });
    }
    if (figures.measures(HostMemory::pinned)) {
      add({.kind = HostMemory::pinned, .direction = CopyDirection::bidirectional}, bidirectional);
    }
    const std::size_t copies = keys.size();  // then the host memcpy, with pageable memory
    if (figures.measures(HostMemory::pageable)) {
      variants.push_back({.prepare = nullptr, .run = host_memcpy, .after_last = nullptr});
    }
    progress("sweep " + format_size(bytes) + ": " + plural(std::ssize(variants), "variant") + ", " +
             std::to_string(plan.warmup) + " warm-up + " + plural(plan.repeats, "interleaved round"));
    const std::vector<Summary> summaries = measure_interleaved(plan, variants);
    for (std::size_t i = 0; i < copies; ++i) {
      keys[i].stats = summaries.at(i);
      figures.copies.push_back(keys[i]);
    }
    if (variants.size() > copies) figures.host_memcpy[bytes] = summaries.back();
    // What the timed D2H copies left, then a fresh round trip, bit-exact, for every kind.
    for (const HostMemory kind : figures.kinds) {
      figures.checks.add(kCheck, bytes, kind, set.verify(kind, h2d_stream.get()));
    }
  }
  return figures;
}

// ---- the report ---------------------------------------------------------------------

// Median GB/s with the range of the repeats: the fastest run is the min time.
std::string gbps_range_text(double bytes, const Summary& s) {
  return gbps_text(bytes, s.median_ms) + " (" + gbps_text(bytes, s.max_ms) + "-" + gbps_text(bytes, s.min_ms) + ")";
}

using SizeColumns = std::vector<Column<std::uint64_t>>;

void bandwidth_table(Report& report, const Config& config, const Figures& f, CopyDirection direction) {
  SizeColumns columns = {{"size", [](std::uint64_t bytes) { return format_size(bytes); }}};
  for (const HostMemory kind : f.kinds) {
    columns.push_back({kind_name(kind), [&f, kind, direction](std::uint64_t bytes) {
                         const Summary* s = f.copy(bytes, kind, direction);
                         return s ? gbps_range_text(double(bytes), *s) : std::string("-");
                       }});
  }
  if (f.measures(HostMemory::pageable) && f.measures(HostMemory::pinned)) {
    columns.push_back({"pinned/pageable", [&f, direction](std::uint64_t bytes) {
                         const Summary* pinned = f.copy(bytes, HostMemory::pinned, direction);
                         const Summary* pageable = f.copy(bytes, HostMemory::pageable, direction);
                         return pinned && pageable ? fixed(pageable->median_ms / pinned->median_ms, 2) + "x" : "-";
                       }});
  }
  report.out() << "\n" << (direction == CopyDirection::h2d ? "1a) host -> device (H2D)" : "1b) device -> host (D2H)")
               << ", GB/s: median (slowest-fastest run) of one cudaMemcpyAsync, timed with events\n";
  report.table(table_of(columns, config.sizes));
}

void both_ways(Report& report, const Config& config, const Figures& f) {
  if (!f.measures(HostMemory::pinned)) return;
  std::vector<std::uint64_t> sizes;  // those with all three copies
  for (const std::uint64_t bytes : config.sizes) {
    if (f.copy(bytes, HostMemory::pinned, CopyDirection::h2d) && f.copy(bytes, HostMemory::pinned, CopyDirection::d2h) &&
        f.copy(bytes, HostMemory::pinned, CopyDirection::bidirectional)) {
      sizes.push_back(bytes);
    }
  }
  auto rate = [&f](CopyDirection direction, std::uint64_t bytes) {
    const double moved = (direction == CopyDirection::bidirectional ? 2.0 : 1.0) * double(bytes);
    const Summary* s = f.copy(bytes, HostMemory::pinned, direction);
    return s ? gbps(moved, s->median_ms) : 0.0;
  };
  report.out() << "\n1c) pinned, H2D and D2H at once on two streams (two copy engines; this device has "
               << report.result.device.async_engines << "), GB/s\n";
  report.table(table_of<std::uint64_t>(
      {{"size", [](std::uint64_t bytes) { return format_size(bytes); }},
       {"H2D alone", [&](std::uint64_t bytes) { return fixed(rate(CopyDirection::h2d, bytes), 1); }},
       {"D2H alone", [&](std::uint64_t bytes) { return fixed(rate(CopyDirection::d2h, bytes), 1); }},
       {"both at once (total)", [&](std::uint64_t bytes) { return fixed(rate(CopyDirection::bidirectional, bytes), 1); }},
       {"of H2D + D2H alone",
        [&](std::uint64_t bytes) {
          const double sum = rate(CopyDirection::h2d, bytes) + rate(CopyDirection::d2h, bytes);
          return fixed(100.0 * rate(CopyDirection::bidirectional, bytes) / sum, 0) + "%";
        }}},
      sizes));
  if (sizes.empty()) return;
  const std::uint64_t largest = sizes.back();
  report.verdict(both_ways_verdict(largest, rate(CopyDirection::bidirectional, largest),
                                   std::max(rate(CopyDirection::h2d, largest), rate(CopyDirection::d2h, largest))));
}

void staging(Report& report, const Config& config, const Figures& f) {
  if (!f.measures(HostMemory::pageable) || !f.measures(HostMemory::pinned)) {
    report.out() << "\n2) staging cost: skipped (needs both pageable and pinned in --host-memory)\n";
    return;
  }
  std::vector<std::uint64_t> sizes;
  for (const std::uint64_t bytes : config.sizes) {
    if (f.memcpy_at(bytes)) sizes.push_back(bytes);
  }
  // Every size here has its host memcpy: those without were left out above.
  auto ms = [&f](std::uint64_t bytes, HostMemory kind, CopyDirection direction, bool plus_memcpy) {
    const Summary* copy = f.copy(bytes, kind, direction);
    return copy ? ms_text(copy->median_ms + (plus_memcpy ? f.host_memcpy.at(bytes).median_ms : 0.0)) : std::string("-");
  };
  SizeColumns columns = {{"size", [](std::uint64_t bytes) { return format_size(bytes); }},
                         {"host memcpy", [&f](std::uint64_t bytes) { return ms_text(f.host_memcpy.at(bytes).median_ms); }}};
  for (const CopyDirection direction : kOneWay) {
    const std::string name = direction_label(direction);
    columns.push_back({"pageable " + name, [=](std::uint64_t b) { return ms(b, HostMemory::pageable, direction, false); }});
    columns.push_back({"memcpy + pinned " + name, [=](std::uint64_t b) { return ms(b, HostMemory::pinned, direction, true); }});
  }
  report.out() << "\n2) the staging cost of pageable copies, ms (median): the driver copies pageable data through its "
                  "own\n   pinned buffer, so a pageable copy costs about a host memcpy plus the pinned DMA\n";
  report.table(table_of(columns, sizes));
  if (sizes.empty()) return;
  const std::uint64_t largest = sizes.back();
  const Summary* pageable = f.copy(largest, HostMemory::pageable, CopyDirection::h2d);
  const Summary* pinned = f.copy(largest, HostMemory::pinned, CopyDirection::h2d);
  const Summary* memcpy_time = f.memcpy_at(largest);
  if (pageable && pinned && memcpy_time) {
    report.verdict(staging_verdict(largest, pageable->median_ms, memcpy_time->median_ms, pinned->median_ms));
  }
}

void peaks(Report& report, const Config& config, const Figures& f) {
  std::ostream& out = report.out();
  out << "\nPeaks, GB/s (H2D / D2H):";
  for (const HostMemory kind : f.kinds) {
    const auto h2d = peak_gbps(f.copies, kind, CopyDirection::h2d);
    const auto d2h = peak_gbps(f.copies, kind, CopyDirection::d2h);
    if (h2d && d2h) out << ' ' << kind_name(kind) << ' ' << fixed(*h2d, 1) << " / " << fixed(*d2h, 1) << ';';
  }
  if (const auto both = peak_gbps(f.copies, HostMemory::pinned, CopyDirection::bidirectional)) {
    out << " pinned both ways at once " << fixed(*both, 1);
  }
  out << '\n';
  for (const CopyDirection direction : kOneWay) {
    const auto pinned = peak_gbps(f.copies, HostMemory::pinned, direction);
    const auto pageable = peak_gbps(f.copies, HostMemory::pageable, direction);
    if (pinned && pageable) {
      report.verdict(bandwidth_verdict("sweep.peak." + std::string(to_string(direction)), direction, "peaks",
                                       *pinned, *pageable));
    }
  }
  out << "Peak pinned memory: " << format_bytes(CopySet::pinned_bytes_needed(config.sizes.back(), f.kinds))
      << " (the page-locked buffers at " << format_size(config.sizes.back()) << ")\n";
}

// The result document: every point, the staging rows, the peaks and the checks.
void fill_result(Report& report, const Config& config, const Figures& f) {
  StageResult& result = report.result;
  result.config = {{"sizes", config.sizes},
                   {"host_memory", kinds_json(f.kinds)},
                   {"quick", config.quick},
                   {"warmup", config.common.plan.warmup},
                   {"repeats", config.common.plan.repeats},
                   {"seed", config.common.seed}};
  add_copies(result, f.copies, f.kinds, config.sizes.back(),
             [&f](const CopyPoint& p) { return f.checks.verified(kCheck, p.bytes, p.kind); });
  for (const auto& [bytes, stats] : f.host_memcpy) {
    result.measurements.push_back({.name = "host_memcpy", .params = {{"bytes", bytes}}, .stats = stats,
                                   .work = {static_cast<double>(bytes), 0.0}, .verifiable = false});
  }
  nlohmann::json staging = nlohmann::json::array();
  for (const std::uint64_t bytes : config.sizes) {
    const Summary* memcpy_time = f.memcpy_at(bytes);
    for (const CopyDirection direction : kOneWay) {
      const Summary* pageable = f.copy(bytes, HostMemory::pageable, direction);
      const Summary* pinned = f.copy(bytes, HostMemory::pinned, direction);
      if (!memcpy_time || !pageable || !pinned) continue;
      const double staged = memcpy_time->median_ms + pinned->median_ms;
      staging.push_back({{"bytes", bytes},
                         {"direction", std::string(to_string(direction))},
                         {"pageable_ms", pageable->median_ms},
                         {"host_memcpy_ms", memcpy_time->median_ms},
                         {"pinned_ms", pinned->median_ms},
                         {"memcpy_plus_pinned_ms", staged},
                         {"pageable_over_memcpy_plus_pinned", pageable->median_ms / staged}});
    }
  }
  if (const auto both = peak_gbps(f.copies, HostMemory::pinned, CopyDirection::bidirectional)) {
    result.bounds["bidirectional_peak_gbps"] = *both;
  }
  result.bounds["sweep_peak_pinned_bytes"] = CopySet::pinned_bytes_needed(config.sizes.back(), f.kinds);
  verify_with(result, f.checks);
  report.sections["staging"] = staging;
  report.sections["notes"] = f.notes;
}

const Experiment<Config, Figures> kExperiment{.about = kAbout, .runs = kRuns, .defaults = copy_defaults(kAllKinds),
    .options = options, .read = read, .needs = needs, .estimate = estimate, .measure = measure, .report = report};

}  // namespace

void report(const Config& config, const Figures& figures, Report& report) {
  fill_result(report, config, figures);
  report.checked_runs("(every size and kind: what the timed copies left, then a fresh round trip)");
  std::ostream& out = report.out();
  out << plural(std::ssize(config.sizes), "size") << (config.sizes.size() == 1 ? ", " : " from ")
      << format_size(config.sizes.front());
  if (config.sizes.size() > 1) out << " to " << format_size(config.sizes.back());
  out << "; " << kinds_text(figures.kinds) << " host memory; median of " << plural(config.common.plan.repeats, "run")
      << " after " << config.common.plan.warmup << " warm-up, in interleaved rounds; GB/s = 10^9 bytes/s\n";
  for (const std::string& note : figures.notes) out << "note: " << note << '\n';
  bandwidth_table(report, config, figures, CopyDirection::h2d);
  bandwidth_table(report, config, figures, CopyDirection::d2h);
  both_ways(report, config, figures);
  staging(report, config, figures);
  peaks(report, config, figures);
}

}  // namespace csg::copies::sweep

namespace csg::copies {
extern const Subcommand kSweep = make_subcommand<sweep::kExperiment>();
}
