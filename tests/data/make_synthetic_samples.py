#!/usr/bin/env python3
"""Writes the SYNTHETIC sample results in tests/data/suite/ that no GPU run has produced yet.

    python3 tests/data/make_synthetic_samples.py

The report tests (tests/python/test_report.py) need one result file per stage.
01_serial_baseline.json and 01_serial_baseline-pinned.json are real output
from an H200. Stages 02, 03 and 04 had not run on a GPU when the report was
written, so this script builds their files, and two timeline traces, from the
reference figures in DESIGN.md ("Reference figures", one H200, PCIe Gen5 x16,
CUDA 13.0). Every file it writes carries "synthetic_sample": true and a note.

Replace them with real output as soon as there is some: run
scripts/run_suite.sh on the GPU box and copy its *.json files here. The tests
assert on structure and on ratios computed from the files, never on these
figures, so real files drop in without touching the tests.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

HERE = Path(__file__).resolve().parent / "suite"
SCHEMA = "cuda-streams-graphs/result/v1"
NOTE = ("synthetic sample written by tests/data/make_synthetic_samples.py from the DESIGN.md reference figures; "
        "replace with real output of the stage")
MIB = 1024 * 1024

# The article's workload: 100 batches, A_i 1024x512, B 512x1024, C_i 1024x1024, float.
BATCHES, M, N, K = 100, 1024, 1024, 512
A_BYTES, C_BYTES = M * K * 4, M * N * 4
FLOPS_PER_BATCH = 2.0 * M * N * K

rng = random.Random(20240601)  # fixed: the samples are the same on every run


def device() -> dict:
    # The real 01 run's device block, so that every sample names one machine.
    return json.loads((HERE / "01_serial_baseline.json").read_text())["device"]


def config(host_memory: str, **extra) -> dict:
    base = {"batches": BATCHES, "m": M, "n": N, "k": K, "host_memory": host_memory, "kernel": "naive",
            "warmup": 2, "repeats": 10, "seed": 1}
    base.update(extra)
    return base


def measurement(name: str, params: dict, median_ms: float, *, bytes_moved: float = 0.0, flops: float = 0.0,
                verified: bool | None = True, samples: int = 10) -> dict:
    """One measurement with a plausible spread around `median_ms` (+-1.5 %)."""
    spread = [median_ms * (1.0 + rng.uniform(-0.015, 0.015)) for _ in range(samples)]
    spread.sort()
    spread[samples // 2] = median_ms  # keep the stated median exact (even count: upper middle)
    ordered = sorted(spread)
    return {
        "name": name,
        "params": params,
        "median_ms": median_ms,
        "min_ms": ordered[0],
        "max_ms": ordered[-1],
        "p95_ms": ordered[-1],
        "samples": samples,
        "samples_ms": rng.sample(spread, len(spread)),
        "gbps": bytes_moved / (median_ms * 1e6) if bytes_moved > 0 else None,
        "gflops": flops / (median_ms * 1e6) if flops > 0 else None,
        "verified": verified,
    }


def document(stage: str, cfg: dict, measurements: list, bounds: dict, **extra) -> dict:
    doc = {
        "schema": SCHEMA,
        "stage": stage,
        "synthetic_sample": True,
        "sample_note": NOTE,
        "device": device(),
        "config": cfg,
        "measurements": measurements,
        "bounds": bounds,
        "verification": {"passed": True, "batches_checked": BATCHES, "variants_checked": 0,
                         "method": "freivalds+sampled"},
    }
    doc["verification"]["variants_checked"] = sum(1 for m in measurements if m["verified"] is True)
    doc.update(extra)
    return doc


# --- 02: bandwidth sweep (--quick sizes), staging, overlap, pinning cost -----

# GB/s per (kind, direction) at 64K, 1M, 16M, 256M: DESIGN.md gives pinned
# 55.3/55.2 at 256 MiB, 43-45 at 2 MiB, pageable 8/14 at 256 MiB, both ways 99.
QUICK_SIZES = [64 * 1024, 1 * MIB, 16 * MIB, 256 * MIB]
BANDWIDTH = {
    ("pageable", "h2d"): [5.1, 8.9, 10.2, 8.0],
    ("pageable", "d2h"): [4.6, 9.7, 13.1, 14.0],
    ("pageable", "bidirectional"): [7.9, 13.8, 17.5, 17.9],
    ("pinned", "h2d"): [18.5, 41.0, 53.6, 55.3],
    ("pinned", "d2h"): [19.0, 42.2, 53.9, 55.2],
    ("pinned", "bidirectional"): [30.1, 71.5, 95.2, 99.0],
    ("registered", "h2d"): [18.2, 40.7, 53.5, 55.2],
    ("registered", "d2h"): [18.9, 42.0, 53.8, 55.1],
    ("registered", "bidirectional"): [29.8, 71.0, 95.0, 98.8],
    ("write-combined", "h2d"): [18.4, 40.9, 53.6, 55.3],
    ("write-combined", "d2h"): [18.8, 41.9, 53.7, 55.1],
    ("write-combined", "bidirectional"): [29.9, 71.2, 95.1, 98.9],
}


def stage02() -> dict:
    ms = []
    for (kind, direction), rates in BANDWIDTH.items():
        for size, gbps in zip(QUICK_SIZES, rates):
            moved = size * (2 if direction == "bidirectional" else 1)
            ms.append(measurement("copy", {"host_memory": kind, "direction": direction, "bytes": size},
                                  moved / (gbps * 1e6), bytes_moved=moved, samples=5))
    for size in QUICK_SIZES:  # the driver's staging copy done by hand: memcpy at ~10 GB/s
        ms.append(measurement("host_memcpy", {"bytes": size}, size / (10.0e6), bytes_moved=size, verified=None,
                              samples=5))
    # Overlap: a 10 ms busy kernel and a 64 MiB copy (pinned 1.2 ms, pageable 8.3 ms H2D host-blocked).
    ms.append(measurement("busy_kernel", {"requested_ms": 10}, 10.0, verified=None, samples=5))
    for kind, copy_ms, blocked_ms in (("pageable", 8.3, 8.3), ("pinned", 1.21, 0.002)):
        for direction in ("h2d", "d2h"):
            copy = {"host_memory": kind, "direction": direction, "bytes": 64 * MIB}
            for order in ("kernel_first", "copy_first"):
                params = {**copy, "order": order}
                together = 10.05 if kind == "pinned" or order == "kernel_first" else 18.3
                if order == "kernel_first":  # same params as a sweep point: the report must not take it for one
                    ms.append(measurement("overlap_copy_alone", copy, copy_ms, bytes_moved=64 * MIB, samples=5))
                ms.append(measurement("overlap_together", params, together, samples=5))
                ms.append(measurement("overlap_host_blocked", params, blocked_ms, samples=5))
                ms.append(measurement("overlap_copy_end_after_kernel_end", params, together - 10.0, samples=5))
    # Pinning cost (cudaMallocHost 1 GiB 0.38-0.48 s, cudaHostRegister 64 MiB 3 ms).
    for size in (16 * MIB, 64 * MIB, 256 * MIB, 1024 * MIB):
        scale = size / (1024 * MIB)
        for call, full_ms in (("cudaMallocHost", 430.0), ("cudaFreeHost", 95.0), ("malloc_first_touch", 160.0),
                              ("cudaHostRegister", 48.0), ("cudaHostUnregister", 20.0)):
            ms.append(measurement("pin_cost", {"call": call, "bytes": size}, full_ms * scale, bytes_moved=size,
                                  verified=None, samples=3))
    bounds = {}
    for (kind, direction), rates in BANDWIDTH.items():
        if direction != "bidirectional":
            bounds[f"{kind.replace('-', '_')}_{direction}_peak_gbps"] = max(rates)
    bounds["bidirectional_peak_gbps"] = max(BANDWIDTH[("pinned", "bidirectional")])
    cfg = config("pageable", quick=True, sizes=QUICK_SIZES, kinds=["pageable", "pinned", "registered", "write-combined"],
                 overlap_bytes=64 * MIB, kernel_ms=10, warmup=1, repeats=5)
    return document("02_pinned_vs_pageable", cfg, ms, bounds)


# --- 03: the stream pool ------------------------------------------------------

def pipeline_bound(h2d: float, kernel: float, d2h: float, both: float) -> dict:
    paths = {
        "kernels": h2d / BATCHES + kernel + d2h / BATCHES,
        "H2D copies": h2d + kernel / BATCHES + d2h / BATCHES,
        "D2H copies": h2d / BATCHES + kernel / BATCHES + d2h,
        "PCIe both ways": both,
    }
    limited_by = max(paths, key=paths.get)
    return {"kernel_path_ms": paths["kernels"], "h2d_path_ms": paths["H2D copies"],
            "d2h_path_ms": paths["D2H copies"], "pipeline_bound_ms": paths[limited_by], "limited_by": limited_by}


def stage03(host_memory: str, sweep: list[int], pool_ms: float, sums: tuple[float, float, float, float]) -> dict:
    pair = BATCHES * (A_BYTES + C_BYTES)
    flops = BATCHES * FLOPS_PER_BATCH
    h2d, kernel, d2h, both = sums
    serial = {"pageable": 85.2, "pinned": 31.3}
    ms = [measurement("serial", {"host_memory": kind}, serial[kind], bytes_moved=pair, flops=flops)
          for kind in ("pageable", "pinned")]
    streams = 8
    for order, factor in (("depth_first", 1.0), ("breadth_first", 1.004)):
        ms.append(measurement("stream_pool", {"streams": streams, "order": order, "host_memory": host_memory,
                                              "sweep": False}, pool_ms * factor, bytes_moved=pair, flops=flops))
    # Pool size: 1 stream is serial-on-one-stream; 2 already reach the plateau (DESIGN.md: "2 streams already 17.0").
    for size in sweep:
        t = {1: serial["pinned"] * 0.985, 2: pool_ms * 1.003}.get(size, pool_ms * (1.0 + 0.001 * size / 8))
        ms.append(measurement("stream_pool", {"streams": size, "order": "depth_first", "host_memory": host_memory,
                                              "sweep": True}, t, bytes_moved=pair, flops=flops))
    memory = {"host_memory": host_memory}
    ms.append(measurement("h2d_sum", memory, h2d, bytes_moved=BATCHES * A_BYTES))
    ms.append(measurement("kernel_sum", {}, kernel, flops=flops))
    ms.append(measurement("d2h_sum", memory, d2h, bytes_moved=BATCHES * C_BYTES))
    ms.append(measurement("copies_both_ways", memory, both, bytes_moved=pair))
    bound = pipeline_bound(h2d, kernel, d2h, both)
    bounds = {"h2d_sum_ms": h2d, "kernel_sum_ms": kernel, "d2h_sum_ms": d2h, "copies_both_ways_ms": both, **bound,
              "stream_pool_ms": pool_ms, "bound_over_achieved": bound["pipeline_bound_ms"] / pool_ms,
              "speedup_vs_serial_pageable": serial["pageable"] / pool_ms,
              "speedup_vs_serial_pinned": serial["pinned"] / pool_ms}
    slots = streams
    cfg = config(host_memory, streams=streams, streams_sweep=sweep, device_buffers="slots", device_slots=slots,
                 device_bytes={"allocated_per_host_kind": slots * (A_BYTES + C_BYTES) + K * N * 4,
                               "slots_layout": slots * (A_BYTES + C_BYTES) + K * N * 4,
                               "per_batch_layout": BATCHES * (A_BYTES + C_BYTES) + K * N * 4},
                 cuda_device_max_connections="unset (driver default 8)")
    return document("03_stream_pool_gemm", cfg, ms, bounds)


# --- 04: the graph --------------------------------------------------------------

def stage04() -> dict:
    pair = BATCHES * (A_BYTES + C_BYTES)
    flops = BATCHES * FLOPS_PER_BATCH
    pool = {"streams": 8, "batches": BATCHES, "device_buffers": "slots"}
    tiny_count, tiny_size = 1000, 64
    empty = {"kernels": tiny_count}
    gemm = {"gemms": tiny_count, "size": tiny_size, "streams": 8}
    tiny_flops = tiny_count * 2.0 * tiny_size ** 3
    ms = [
        measurement("capture", pool, 0.60, verified=None),
        measurement("instantiate", pool, 1.50, verified=None),
        measurement("upload", pool, 0.31, verified=None),
        measurement("first_launch", pool, 17.62, bytes_moved=pair, flops=flops),
        measurement("relaunch", pool, 17.05, bytes_moved=pair, flops=flops),
        measurement("launch_after_upload", pool, 17.02, bytes_moved=pair, flops=flops),
        measurement("graph_replay", pool, 16.99, bytes_moved=pair, flops=flops),
        measurement("stream_pool", pool, 17.01, bytes_moved=pair, flops=flops),
        measurement("issue_streams_cpu", pool, 1.10, verified=None),
        measurement("issue_graph_cpu", pool, 0.46, verified=None),
        measurement("update_exec", pool, 0.21),
        measurement("update_call", pool, 0.05, verified=None),
        measurement("recapture_instantiate", pool, 2.15),
        measurement("tiny_empty_streams", empty, 3.85),
        measurement("tiny_empty_graph", empty, 0.68),
        measurement("tiny_gemm_streams", gemm, 5.0, flops=tiny_flops),
        measurement("tiny_gemm_graph", gemm, 4.2, flops=tiny_flops),
    ]
    bounds = {"break_even_replays": (0.60 + 1.50) / (1.10 - 0.46), "replay_over_stream_pool": 16.99 / 17.01,
              "issue_graph_over_streams": 0.46 / 1.10, "tiny_empty_stream_us_per_launch": 3.85,
              "tiny_empty_graph_us_per_node": 0.68, "tiny_gemm_stream_us_per_gemm": 5.0,
              "tiny_gemm_graph_us_per_gemm": 4.2}
    cfg = config("pinned", streams=8, device_buffers="slots", tiny_count=tiny_count, tiny_size=tiny_size)
    graph = {"nodes": 300, "kernel_nodes": 100, "memcpy_nodes": 200, "event_nodes": 0, "edges": 292, "roots": 8,
             "leaves": 8, "chains": 8}
    return document("04_graph_capture_gemm", cfg, ms, bounds, graph=graph,
                    tiny={"count": tiny_count, "size": tiny_size, "empty_graph_nodes": tiny_count,
                          "gemm_graph_nodes": tiny_count})


# --- timelines (Chrome trace events, as common/timeline.cpp writes them) ------

def trace(process: str, rows: list[str], ops: list[tuple[str, int, int, float, float]]) -> dict:
    events = [{"name": "process_name", "ph": "M", "pid": 0, "args": {"name": process}}]
    for row, name in enumerate(rows):
        events.append({"name": "thread_name", "ph": "M", "pid": 0, "tid": row, "args": {"name": name}})
        events.append({"name": "thread_sort_index", "ph": "M", "pid": 0, "tid": row, "args": {"sort_index": row}})
    labels = {"h2d": "H2D", "kernel": "kernel", "d2h": "D2H"}
    for kind, row, batch, start, end in ops:
        events.append({"name": labels[kind], "cat": kind, "ph": "X", "ts": start, "dur": end - start, "pid": 0,
                       "tid": row, "args": {"batch": batch, "bytes": A_BYTES if kind == "h2d" else
                                            C_BYTES if kind == "d2h" else 0,
                                            "flops": FLOPS_PER_BATCH if kind == "kernel" else 0}})
    return {"traceEvents": events, "displayTimeUnit": "ms", "synthetic_sample": True, "sample_note": NOTE}


def serial_trace() -> dict:
    # Pageable, default stream: H K D per batch, one after the other (µs).
    ops, t = [], 0.0
    for batch in range(BATCHES):
        for kind, us in (("h2d", 334.0), ("kernel", 171.5), ("d2h", 354.0)):
            ops.append((kind, 0, batch, t, t + us))
            t += us + 1.5
    return trace("01_serial_baseline", ["default stream"], ops)


def pool_trace(streams: int = 8) -> dict:
    # One H2D engine, one D2H engine, kernels one at a time; batch b on stream b % streams.
    h2d_free = kernel_free = d2h_free = 0.0
    stream_free = [0.0] * streams
    ops = []
    for batch in range(BATCHES):
        row = batch % streams
        start = max(h2d_free, stream_free[row])
        h2d_free = start + 41.0
        ops.append(("h2d", row, batch, start, h2d_free))
        k_start = max(kernel_free, h2d_free)
        kernel_free = k_start + 171.5
        ops.append(("kernel", row, batch, k_start, kernel_free))
        d_start = max(d2h_free, kernel_free)
        d2h_free = d_start + 78.0
        ops.append(("d2h", row, batch, d_start, d2h_free))
        stream_free[row] = d2h_free
    return trace("03_stream_pool_gemm", [f"stream {i}" for i in range(streams)], ops)


def write(name: str, doc: dict) -> None:
    (HERE / name).write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n")
    print(f"wrote {HERE / name}")


def main() -> None:
    write("02_pinned_vs_pageable.json", stage02())
    write("03_stream_pool_gemm.json", stage03("pinned", [1, 2, 4, 8, 16, 32], 17.0, (4.08, 17.15, 7.80, 8.05)))
    write("03_stream_pool_gemm-pageable.json", stage03("pageable", [], 81.3, (33.4, 17.15, 35.4, 38.2)))
    write("04_graph_capture_gemm.json", stage04())
    write("01_serial_baseline.trace.json", serial_trace())
    write("03_stream_pool_gemm.trace.json", pool_trace())


if __name__ == "__main__":
    main()
