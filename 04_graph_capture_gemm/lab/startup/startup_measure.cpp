// The startup subcommand's GPU work: the bucket graphs of every layout
// captured, instantiated, uploaded, launched once and verified, each part
// timed on the host (startup.hpp says in what order, and why).
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "base/interrupt.hpp"
#include "base/progress.hpp"
#include "base/text.hpp"
#include "04_graph_capture_gemm/lab/graph_steps.hpp"
#include "04_graph_capture_gemm/lab/report.hpp"
#include "04_graph_capture_gemm/lab/startup/startup.hpp"
#include "cuda/stream_pool.hpp"
#include "measure/timers.hpp"
#include "workload/gemm.hpp"

namespace csg::graphs {
namespace {

// Free device memory (cudaMemGetInfo) after a device synchronise.
std::int64_t free_device_bytes() {
  CUDA_CHECK(cudaDeviceSynchronize());
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  return static_cast<std::int64_t>(free_bytes);
}

// One round of one layout at one bucket count.
struct BuildFigures {
  Millis capture{0};
  Millis instantiate{0};
  Millis upload{0};
  Millis launches{0};
  std::int64_t graph_bytes = 0;
  std::int64_t buffer_bytes = 0;
  VerifyResult check;
};

struct Builder {
  const StartupConfig& config;
  const StreamPool& pool;
  const Gemm& gemm;
  BatchBuffers& shared;

  // Builds the graphs of `sizes` on `layout`'s buffers, then launches and verifies each once.
  BuildFigures build(const std::vector<int>& sizes, BufferLayout layout) const {
    BuildFigures out;
    const cudaStream_t stream = pool[0];
    std::vector<std::unique_ptr<BatchBuffers>> own;  // separate: one set per bucket
    if (layout == BufferLayout::separate) {
      for (int size : sizes) {
        const Workload work = startup_workload(config, size);
        own.push_back(std::make_unique<BatchBuffers>(work, shared.host_kind(), 0));
        own.back()->fill_inputs(config.common.seed);
        // Counted, not read from cudaMemGetInfo, which sees every process on the GPU.
        out.buffer_bytes += static_cast<std::int64_t>(memory_needs(work, shared.host_kind(), 0).device_bytes);
      }
    }
    auto buffers_of = [&](std::size_t i) -> BatchBuffers& {
      return layout == BufferLayout::separate ? *own[i] : shared;
    };
    const std::int64_t before_graphs = free_device_bytes();
    std::vector<GraphExec> execs;
    execs.reserve(sizes.size());
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      const BatchOps ops = batch_ops(buffers_of(i), gemm);
      const HostTimer capture_timer;
      const Graph graph = capture_batches(ops, pool, sizes[i]);
      out.capture += capture_timer.elapsed();
      const HostTimer instantiate_timer;
      execs.push_back(instantiate(graph));
      out.instantiate += instantiate_timer.elapsed();
      out.upload += host_synchronised(stream, [&] { CUDA_CHECK(cudaGraphUpload(execs.back().get(), stream)); });
    }
    const std::int64_t after_graphs = free_device_bytes();
    out.graph_bytes = before_graphs - after_graphs;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      buffers_of(i).poison_first(sizes[i], stream);
      out.launches += host_synchronised(stream, [&] { launch(execs[i], pool); });
      fold_check(out.check, buffers_of(i).verify_first(config.common.seed, sizes[i]));
    }
    return out;
  }
};

void summarise(StartupCell& cell, const std::vector<BuildFigures>& rounds) {
  std::vector<Millis> capture, instantiate, upload, total, launches;
  for (const BuildFigures& r : rounds) {
    capture.push_back(r.capture);
    instantiate.push_back(r.instantiate);
    upload.push_back(r.upload);
    total.push_back(r.capture + r.instantiate + r.upload);
    launches.push_back(r.launches);
    fold_check(cell.check, r.check);
  }
  cell.capture = summarize(capture);
  cell.instantiate = summarize(instantiate);
  cell.upload = summarize(upload);
  cell.total = summarize(total);
  cell.launches = summarize(launches);
  cell.buffer_bytes = rounds.back().buffer_bytes;
}

}  // namespace

StartupFigures measure_startup(const StartupConfig& config) {
  const Gemm gemm;  // the article's kernel: the graphs' node count is what startup pays for
  const StreamPool pool(config.pool.streams);
  prepare_pool(gemm, pool);
  const CommonOptions& common = config.common;
  BatchBuffers shared(common.work, common.host_memory, 0);  // the top bucket's batches, one device slot each
  // What the pool allocated, counted (cudaMemGetInfo sees every process on the GPU).
  const auto shared_bytes = static_cast<std::int64_t>(memory_needs(common.work, common.host_memory, 0).device_bytes);
  progress("filling " + plural(config.max_batches, "batch"));
  shared.fill_inputs(common.seed);
  const Builder builder{config, pool, gemm, shared};
  StartupFigures figures;
  figures.config = config;

  // The process's first capture, instantiate, upload and launch, untimed (and verified).
  const BuildFigures one = builder.build({1}, BufferLayout::shared);
  if (!one.check.passed) throw std::runtime_error("the first graph of 1 batch: " + one.check.message());

  // The process's first build of the most buckets: what a fresh engine pays,
  // and the device memory its execs take, which the driver keeps for the
  // graphs built after them (so the rows below all start from the same state).
  FirstBuild& first = figures.first;
  first.buckets = config.bucket_counts.back();
  const std::vector<int> most = even_buckets(first.buckets, config.max_batches);
  first.batches_captured = captured_batches(most);
  progress("startup: the first build, " + plural(first.buckets, "bucket") + " on the shared pool");
  const BuildFigures cold = builder.build(most, BufferLayout::shared);
  first.capture_ms = cold.capture.count();
  first.instantiate_ms = cold.instantiate.count();
  first.upload_ms = cold.upload.count();
  first.graph_bytes = cold.graph_bytes;
  first.check = cold.check;

  std::vector<StartupRow> rows;
  std::vector<std::vector<BuildFigures>> shared_rounds(config.bucket_counts.size());
  std::vector<std::vector<BuildFigures>> separate_rounds(config.bucket_counts.size());
  for (int k : config.bucket_counts) {
    StartupRow row;
    row.buckets = k;
    row.sizes = even_buckets(k, config.max_batches);
    row.batches_captured = captured_batches(row.sizes);
    rows.push_back(row);
  }
  for (int round = 0; round < config.rounds; ++round) {
    for (std::size_t i = 0; i < rows.size(); ++i) {
      throw_if_interrupted("the startup experiment");
      progress("startup: " + plural(rows[i].buckets, "bucket") + ", " + plural(rows[i].batches_captured, "batch") +
               " captured per layout" + (config.rounds > 1 ? ", round " + std::to_string(round + 1) : ""));
      shared_rounds[i].push_back(builder.build(rows[i].sizes, BufferLayout::shared));
      separate_rounds[i].push_back(builder.build(rows[i].sizes, BufferLayout::separate));
    }
  }
  for (std::size_t i = 0; i < rows.size(); ++i) {
    summarise(rows[i].shared, shared_rounds[i]);
    rows[i].shared.buffer_bytes = shared_bytes;  // allocated once, before everything
    summarise(rows[i].separate, separate_rounds[i]);
  }
  figures.rows = std::move(rows);
  fill_padding(figures);
  return figures;
}

}  // namespace csg::graphs
