#!/usr/bin/env python3
"""The suite's report: a markdown summary and PNG plots from one results folder,
or a comparison of two runs.

Usage:  python3 scripts/report.py RESULTS_DIR
        python3 scripts/report.py --compare OLD NEW

RESULTS_DIR is what scripts/run_suite.sh (or gpu_box_check.sh) wrote: one
<run>.json per stage run (schema cuda-streams-graphs/result/v1) and, where a
stage recorded its timeline, <run>.trace.json. The report reads only these
JSON files, never the printed output, and writes into RESULTS_DIR:
  report.md         device, date, driver and runtime; one table (stage,
                    variant, median ms, speed-up vs the serial baseline, % of
                    the pipeline bound, verified); the regimes (issue 9: each
                    GEMM kernel alone vs the whole pipeline, which resource
                    sets the bound); copy bandwidths (02), the stream-count
                    sweep (03), graph costs (04); every plot; an appendix
                    with every measurement
  bandwidth.png     copy bandwidth vs transfer size, per host memory kind and direction
  stages.png        the same work in 01, 03 and 04, with the pipeline bound
  sweep.png         time vs number of streams (03)
  graph_costs.png   capture, instantiate, upload, first launch, replay; CPU issue time
  regimes.png       per kernel: GFLOP/s of the kernel alone and of the whole pipeline
  timeline_<run>.png  one Gantt chart per trace file
A plot whose stage is missing is skipped with a note in report.md.

--compare OLD NEW: OLD and NEW are results folders (or single result files).
Prints, per (run, variant, params), the median of each, NEW/OLD and the
speed-up OLD/NEW, then the rows found in only one of them. Writes nothing.

Exit status: 0 report written (or comparison printed); 1 report written, but
a measurement or a stage did not verify; 2 bad input: no such folder, no
result files, a file that is not valid JSON, has another schema or misses a
required field (one line on stderr naming the file and the field); 3
report.md written, but no plots because matplotlib is not installed
(python3 -m pip install --user -r scripts/requirements.txt).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
from pathlib import Path
from typing import Any

from results_lib import (KERNEL_ORDER, STAGE03, STAGE04, Regime, Result, ResultError, Suite, human_bytes, is_number,
                         kernel_of, load_results_from, load_suite, missing_kernels, params_of, regimes, run_name,
                         run_name_for_kernel)
from summarize import describe_device, device_identity, format_ms, format_params

EXIT_OK, EXIT_UNVERIFIED, EXIT_USAGE, EXIT_NO_PLOTS = 0, 1, 2, 3

BASELINE_STAGE = "01_serial_baseline"
POOL_STAGE = "03_stream_pool_gemm"
GRAPH_STAGE = "04_graph_capture_gemm"
COPY_STAGE = "02_pinned_vs_pageable"
# Variants that do the whole workload (every batch in, computed, out): only
# these get a speed-up and a % of the pipeline bound.
END_TO_END = {"serial", "stream_pool", "engine_streams", "graph_replay"}
# The 04 measurements of the same workload in the main table; the rest go to the graph-costs table.
GRAPH_MAIN = {"graph_replay", "stream_pool", "first_launch", "relaunch", "launch_after_upload"}
WORKLOAD_KEYS = ("batches", "m", "n", "k")
CROSS_RUN = "†"


# --- formatting ---------------------------------------------------------------

# Params that read well as a bare value ("pinned", "depth_first", "h2d"), and
# counts that read well as "8 streams"; the order they are listed in.
BARE_PARAMS = ("host_memory", "direction", "call", "order", "device_buffers")
COUNT_PARAMS = ("streams", "batches", "kernels", "gemms")
PARAM_ORDER = ("streams", "order", "host_memory", "direction", "bytes", "call")


def describe_params(params: dict[str, Any]) -> str:
    """{"streams": 8, "order": "depth_first", "host_memory": "pinned", "sweep": false} -> "8 streams, depth_first, pinned"."""
    keys = sorted(params, key=lambda k: (PARAM_ORDER.index(k) if k in PARAM_ORDER else len(PARAM_ORDER), k))
    parts = []
    for key in keys:
        value = params[key]
        if isinstance(value, bool):
            if value:
                parts.append(key)
        elif key == "bytes" and is_number(value):
            parts.append(human_bytes(value))
        elif key in COUNT_PARAMS and is_number(value):
            parts.append(f"{value} {key}")
        elif key in BARE_PARAMS and isinstance(value, str):
            parts.append(value)
        elif isinstance(value, (dict, list)):
            parts.append(f"{key}={json.dumps(value, separators=(',', ':'))}")
        else:
            parts.append(f"{key}={value}")
    return ", ".join(parts)


def variant_label(m: dict[str, Any]) -> str:
    described = describe_params(params_of(m))
    return f"{m['name']} ({described})" if described else m["name"]


def verified_text(m: dict[str, Any]) -> str:
    value = m.get("verified", False)
    return "yes" if value is True else ("n/a" if value is None else "NO")


def rate(value: Any, digits: int = 1) -> str:
    return f"{value:.{digits}f}" if is_number(value) else "-"


def md_row(cells: list[str]) -> str:
    return "| " + " | ".join(str(c).replace("|", "\\|").replace("\n", " ") for c in cells) + " |"


def md_table(headers: list[str], rows: list[list[str]], right: set[int]) -> list[str]:
    lines = [md_row(headers), "|" + "|".join("---:" if i in right else "---" for i in range(len(headers))) + "|"]
    lines += [md_row(r) for r in rows]
    return lines


# --- baselines and bounds -----------------------------------------------------------

def same_workload(a: Result, b: Result) -> bool:
    return all(a.config.get(key) == b.config.get(key) for key in WORKLOAD_KEYS)


def find(result: Result, name: str, **params: Any) -> dict[str, Any] | None:
    for m in result.measurements:
        p = params_of(m)
        if m["name"] == name and all(p.get(k) == v for k, v in params.items()):
            return m
    return None


class Baselines:
    """Which serial time and which pipeline bound each run's rows are measured against.

    Speed-up: vs the run's own pageable serial where it has one (03 runs one
    in the same rounds as the pool); else vs the pageable serial of
    01_serial_baseline.json, a ratio across runs, flagged †. % of the pipeline
    bound: the run's own bounds.pipeline_bound_ms, else that of a 03 run with
    the same GEMM kernel (flagged †): a cuBLAS graph replay against the naive
    kernels' bound would say nothing. Across runs only when the workload
    (batches, m, n, k) is the same.
    """

    def __init__(self, suite: Suite) -> None:
        self.cross_serial: tuple[Result, float] | None = None
        candidates = [r for r in suite.by_stage(BASELINE_STAGE) if r.config.get("host_memory") == "pageable"]
        candidates.sort(key=lambda r: r.path.stem != BASELINE_STAGE)
        for r in candidates:
            m = find(r, "serial", host_memory="pageable") or find(r, "serial")
            if m and m["median_ms"] > 0:
                self.cross_serial = (r, m["median_ms"])
                break
        # One bound per GEMM kernel: pinned runs first, then the run named after the stage.
        self.cross_bounds: dict[str, tuple[Result, float]] = {}
        pools = suite.by_stage(POOL_STAGE)
        pools.sort(key=lambda r: (r.config.get("host_memory") != "pinned", r.path.stem != POOL_STAGE, r.path.name))
        for r in pools:
            bound = (r.doc.get("bounds") or {}).get("pipeline_bound_ms")
            if is_number(bound) and bound > 0:
                self.cross_bounds.setdefault(kernel_of(r), (r, bound))

    def serial_for(self, result: Result) -> tuple[float, bool] | None:
        """(baseline ms, across runs?) for the rows of `result`."""
        own = find(result, "serial", host_memory="pageable")
        if own is None and result.config.get("host_memory") == "pageable":
            own = find(result, "serial")
        if own and own["median_ms"] > 0:
            return own["median_ms"], False
        if self.cross_serial and same_workload(result, self.cross_serial[0]):
            return self.cross_serial[1], True
        return None

    def bound_for(self, result: Result, m: dict[str, Any]) -> tuple[float, bool] | None:
        """The pipeline bound for row `m` of `result`: one measured with the row's kind of host memory only
        (pageable copies are 4-7x slower, so a pinned bound says nothing about a pageable run)."""
        memory = params_of(m).get("host_memory", result.config.get("host_memory"))
        own = (result.doc.get("bounds") or {}).get("pipeline_bound_ms")
        if is_number(own) and own > 0:
            return (own, False) if memory == result.config.get("host_memory") else None
        cross = self.cross_bounds.get(kernel_of(result))
        if cross and same_workload(result, cross[0]) and memory == cross[0].config.get("host_memory"):
            return cross[1], True
        return None


# --- the report ---------------------------------------------------------------------

def in_main_table(result: Result, m: dict[str, Any]) -> bool:
    if result.stage == COPY_STAGE:
        return False  # its own table: bandwidth per size
    if params_of(m).get("sweep") is True:
        return False  # the sweep table
    if result.stage == GRAPH_STAGE:
        return m["name"] in GRAPH_MAIN
    return True


def main_rows(suite: Suite, baselines: Baselines) -> tuple[list[list[str]], bool]:
    rows, flagged = [], False
    for result in suite.results:
        serial = baselines.serial_for(result)
        for m in result.measurements:
            if not in_main_table(result, m):
                continue
            median = m["median_ms"]
            speedup = percent = "-"
            if m["name"] in END_TO_END and median > 0:
                if serial:
                    speedup = f"{serial[0] / median:.2f}x" + (f" {CROSS_RUN}" if serial[1] else "")
                    flagged |= serial[1]
                bound = baselines.bound_for(result, m)
                if bound:
                    percent = f"{100.0 * bound[0] / median:.0f}%" + (f" {CROSS_RUN}" if bound[1] else "")
                    flagged |= bound[1]
            rows.append([run_name(result), variant_label(m), format_ms(median), speedup, percent, verified_text(m)])
    return rows, flagged


def copy_section(suite: Suite) -> list[str]:
    lines = []
    for result in suite.by_stage(COPY_STAGE):
        table: dict[tuple[str, str], dict[float, float]] = {}
        sweep_named = any(m["name"] == "copy" for m in result.measurements)
        for m in result.measurements:
            p = params_of(m)
            if sweep_named and m["name"] != "copy":
                continue  # overlap_copy_alone has the same params at one size: not part of the sweep
            if isinstance(p.get("host_memory"), str) and isinstance(p.get("direction"), str) and \
                    is_number(p.get("bytes")) and is_number(m.get("gbps")):
                table.setdefault((p["host_memory"], p["direction"]), {})[float(p["bytes"])] = m["gbps"]
        if not table:
            continue
        sizes = sorted({s for row in table.values() for s in row})
        if len(sizes) > 7:  # a full sweep: keep the table narrow, the plot has every size
            step = (len(sizes) - 1) / 6
            sizes = [sizes[round(i * step)] for i in range(7)]
        lines += ["", f"### Copy bandwidth, GB/s ({run_name(result)})", ""]
        rows = [[kind, direction] + [rate(points.get(s)) for s in sizes]
                for (kind, direction), points in table.items()]
        lines += md_table(["host memory", "direction"] + [human_bytes(s) for s in sizes], rows,
                          set(range(2, 2 + len(sizes))))
    return lines


def sweep_section(suite: Suite) -> list[str]:
    lines = []
    for result in suite.by_stage(POOL_STAGE):
        points = [m for m in result.measurements if m["name"] == "stream_pool" and params_of(m).get("sweep") is True]
        if not points:
            continue
        points.sort(key=lambda m: params_of(m).get("streams", 0))
        pageable = find(result, "serial", host_memory="pageable")
        pinned = find(result, "serial", host_memory="pinned")
        bound = (result.doc.get("bounds") or {}).get("pipeline_bound_ms")
        rows = []
        for m in points:
            median = m["median_ms"]
            rows.append([str(params_of(m).get("streams", "?")), format_ms(median),
                         f"{pageable['median_ms'] / median:.2f}x" if pageable and median > 0 else "-",
                         f"{pinned['median_ms'] / median:.2f}x" if pinned and median > 0 else "-",
                         f"{100.0 * bound / median:.0f}%" if is_number(bound) and median > 0 else "-",
                         verified_text(m)])
        lines += ["", f"### Stream-count sweep ({run_name(result)}, {result.config.get('host_memory', '?')} host "
                  "memory; ratios within this run)", ""]
        lines += md_table(["streams", "median ms", "vs serial pageable", "vs serial pinned", "% of pipeline bound",
                           "verified"], rows, {1, 2, 3, 4})
    return lines


def graph_section(suite: Suite) -> list[str]:
    lines = []
    for result in suite.by_stage(GRAPH_STAGE):
        rows = [[variant_label(m), format_ms(m["median_ms"]), rate(m.get("p95_ms"), 3), verified_text(m)]
                for m in result.measurements if m["name"] not in GRAPH_MAIN]
        if not rows:
            continue
        lines += ["", f"### Graph costs ({run_name(result)})", ""]
        lines += md_table(["what", "median ms", "p95 ms", "verified"], rows, {1, 2})
    return lines


# --- issue 9: the regimes -------------------------------------------------------------

def gflops_text(value: float) -> str:
    return f"{value:,.0f}"


def times(value: float) -> str:
    return f"{value:.1f}×"


def regime_table(rows: list[Regime]) -> list[str]:
    table = []
    for r in rows:
        table.append([
            r.kernel, gflops_text(r.kernel_gflops), gflops_text(r.pipeline_gflops), f"{r.pool_ms:.2f}",
            f"{r.engines_ms:.2f}" if r.engines_ms is not None else "-", f"{r.bound_ms:.2f}",
            f"{r.limited_by} ({r.regime})", f"{r.pool_percent:.1f}%",
            f"{r.engines_percent:.1f}%" if r.engines_percent is not None else "-",
            f"{r.replay_ms:.2f}" if r.replay_ms is not None else "-",
        ])
    return md_table(["kernel", "kernel-only GFLOP/s", "pipeline GFLOP/s", "pool ms", "engine streams ms", "bound ms",
                     "limited by", "pool % of bound", "engine streams % of bound", "04 replay ms"],
                    table, set(range(1, 10)) - {6})


def regime_lesson(rows: list[Regime]) -> list[str]:
    """A few sentences read off the numbers: how much faster the kernel got, how much the pipeline did,
    and which resource sets the bound in each regime."""
    lines = []
    by_kernel = {r.kernel: r for r in rows}
    naive = by_kernel.get("naive")
    faster = [r for r in rows if r is not naive]
    if naive and faster:
        best = max(faster, key=lambda r: r.kernel_gflops)
        others = [r for r in faster if r is not best]
        text = (f"The {best.kernel} kernel alone does the GEMMs at {gflops_text(best.kernel_gflops)} GFLOP/s, "
                f"{times(best.kernel_gflops / naive.kernel_gflops)} the naive kernel's "
                f"{gflops_text(naive.kernel_gflops)}; the whole pipeline, copies included, went from "
                f"{gflops_text(naive.pipeline_gflops)} to {gflops_text(best.pipeline_gflops)} GFLOP/s: only "
                f"{times(best.pipeline_gflops / naive.pipeline_gflops)} faster.")
        if others:
            text += " " + "; ".join(
                f"{r.kernel}: kernel {times(r.kernel_gflops / naive.kernel_gflops)}, pipeline "
                f"{times(r.pipeline_gflops / naive.pipeline_gflops)}" for r in others) + " (vs naive)."
        lines += ["", text]
    elif rows:
        lines += ["", "_No naive-kernel run here, so nothing to measure the faster kernels against._"]

    for regime in dict.fromkeys(r.regime for r in rows):  # in kernel order: compute-bound first
        group = [r for r in rows if r.regime == regime]
        names = ", ".join(r.kernel for r in group)
        bounds = group[0].run.doc["bounds"]
        if regime == "compute-bound":
            copies = bounds.get("copies_both_ways_ms")
            copies_text = f" (the copies, {copies:.2f} ms both ways, hide behind them)" if is_number(copies) else ""
            lines += ["", f"**{names}: compute-bound.** The kernels set the bound, "
                      f"{group[0].bound_ms:.2f} ms{copies_text}: every millisecond taken off the kernel comes off "
                      "the pipeline, which is why a faster kernel pays at first."]
        else:
            limited = sorted({r.limited_by for r in group})
            low, high = min(r.bound_ms for r in group), max(r.bound_ms for r in group)
            span = f"{low:.2f} ms" if f"{low:.2f}" == f"{high:.2f}" else f"{low:.2f}-{high:.2f} ms"
            kernel_ms = [bounds_of(r).get("kernel_sum_ms") for r in group]
            kernel_text = ""
            if all(is_number(k) for k in kernel_ms):
                kernel_text = (f" The kernels alone take {min(kernel_ms):.2f}-{max(kernel_ms):.2f} ms, well under "
                               "it, so a still faster kernel buys nothing.")
            best = max(group, key=lambda r: max(r.pool_percent, r.engines_percent or 0.0))
            overlap = (f" What counts is keeping H2D, D2H and the kernels overlapped: with {best.kernel} the "
                       f"stream pool reaches {best.pool_percent:.0f}% of the bound")
            if best.engines_percent is not None:
                overlap += f", one stream per engine {best.engines_percent:.0f}%"
            lines += ["", f"**{names}: {regime}.** The copies set the bound ({', '.join(limited)}): {span}, about "
                      f"{gflops_text(max(r.bound_gflops for r in group))} GFLOP/s whatever the kernel."
                      f"{kernel_text}{overlap}."]
    replayed = [r for r in rows if r.replay_ms is not None]
    if replayed:
        lines += ["", "Stage 04 replays the same work as a graph in " + "; ".join(
            f"{r.replay_ms:.2f} ms with {r.kernel} ({100.0 * r.replay_ms / r.pool_ms:.0f}% of 03's pool time)"
            for r in replayed) + " (separate runs): a graph saves CPU issue time, not GPU time, in either regime."]
    return lines


def bounds_of(r: Regime) -> dict[str, Any]:
    bounds = r.run.doc.get("bounds")
    return bounds if isinstance(bounds, dict) else {}


def regime_section(suite: Suite) -> list[str]:
    rows = regimes(suite.results)
    lines = ["", "## Regimes (issue 9): the kernel alone vs the whole pipeline", ""]
    wanted = ", ".join(f"{run_name_for_kernel(STAGE03, k)}.json" for k in KERNEL_ORDER)
    if not rows:
        return lines + [f"_No {STAGE03} run here at the article's workload (100 batches of 1024×512 by 512×1024) "
                        f"with pinned host memory and the kernel's GFLOP/s in its bounds, so no comparison: "
                        f"scripts/run_suite.sh writes {wanted}._"]
    lines.append(f"Stage {STAGE03[:2]} with each GEMM kernel at the article's workload, pinned host memory. "
                 "kernel-only GFLOP/s: the isolated kernel sum; pipeline GFLOP/s: the whole workload, copies "
                 "included, the better of the stream pool and one stream per engine; % of bound = the pipeline "
                 "bound / the achieved time (above 100%: the overlapped run beat the isolated sums the bound is "
                 f"made of); 04 replay: {STAGE04}'s graph replay of the same kernel.")
    lines.append("")
    lines += regime_table(rows)
    sources = [f"{run_name(r.run)}.json" for r in rows] + [f"{run_name(r.replay)}.json" for r in rows if r.replay]
    lines += ["", "From " + ", ".join(sources) + "."]
    missing = missing_kernels(rows)
    if missing:
        lines += ["", "Missing: " + ", ".join(
            f"{k} ({run_name_for_kernel(STAGE03, k)}.json)" for k in missing) +
            " — no such run here; scripts/run_suite.sh runs every kernel."]
    if any(r.replay is None for r in rows):
        lines += ["", f"04 replay '-': no {STAGE04} run of that kernel at the article's workload here."]
    lines += regime_lesson(rows)
    return lines


def format_bound(value: Any) -> str:
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if is_number(value):
        return f"{value:.4g}"
    return str(value) if not isinstance(value, (dict, list)) else json.dumps(value, separators=(",", ":"))


def bounds_section(suite: Suite) -> list[str]:
    lines = []
    for result in suite.results:
        bounds = result.doc.get("bounds") or {}
        if bounds:
            lines.append(f"- **{run_name(result)}**: " + ", ".join(f"{k} {format_bound(v)}" for k, v in bounds.items()))
    return ["", "## Bounds and ratios measured by the stages themselves", "",
            "Each stage measures these within one process; they are the figures to quote.", "", *lines] if lines else []


def appendix(suite: Suite) -> list[str]:
    rows = []
    for result in suite.results:
        for m in result.measurements:
            rows.append([run_name(result), m["name"], format_params(m.get("params")), format_ms(m["median_ms"]),
                         rate(m.get("min_ms"), 3), rate(m.get("p95_ms"), 3), rate(m.get("max_ms"), 3),
                         rate(m.get("gbps")), rate(m.get("gflops"), 0), verified_text(m)])
    return ["", "<details><summary>Every measurement (all runs)</summary>", "",
            *md_table(["run", "variant", "params", "median ms", "min ms", "p95 ms", "max ms", "GB/s", "GFLOP/s",
                       "verified"], rows, set(range(3, 9))), "", "</details>"]


def run_date(suite: Suite) -> str:
    """The run's date: a date_utc field if the stages write one, else the result files' modification time."""
    stamps = [r.doc["date_utc"] for r in suite.results if isinstance(r.doc.get("date_utc"), str)]
    if stamps:
        return f"{min(stamps)} (UTC)"
    latest = max(r.path.stat().st_mtime for r in suite.results)
    when = dt.datetime.fromtimestamp(latest, tz=dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return f"{when} (time the result files were written)"


def header(suite: Suite) -> list[str]:
    lines = [f"# cuda-streams-graphs results: {suite.directory.name}", "", f"- date: {run_date(suite)}"]
    devices = {device_identity(r.doc["device"]) for r in suite.results}
    if len(devices) == 1:
        lines.append(f"- device: {describe_device(suite.results[0].doc['device'])}")
    else:
        lines += [f"- {r.path.name}: {describe_device(r.doc['device'])}" for r in suite.results]
    lines.append("- runs: " + ", ".join(f"{run_name(r)}" for r in suite.results))
    missing = [s for s in (BASELINE_STAGE, COPY_STAGE, POOL_STAGE, GRAPH_STAGE) if not suite.by_stage(s)]
    if missing:
        lines.append("- not in this folder: " + ", ".join(missing) + " (their table rows and plots are left out)")
    return lines


def verification_lines(suite: Suite) -> tuple[list[str], bool]:
    lines, failed = [], False
    for r in suite.results:
        if not r.passed:
            failed = True
            reason = r.doc["verification"].get("failure", "verification.passed is false")
            lines.append(f"- **VERIFICATION FAILED** in {r.path.name}: {reason}")
        bad = [variant_label(m) for m in r.measurements if m.get("verified", False) not in (True, None)]
        if bad:
            failed = True
            lines.append(f"- **not verified** in {r.path.name}: " + "; ".join(bad))
    if not failed:
        lines.append("- every stage verified every batch of every variant it checks "
                     "(n/a: nothing to check, e.g. an allocation cost or CPU issue time)")
    return lines, failed


def plot_lines(drawn: list[tuple[str, Any, str]]) -> list[str]:
    lines = ["", "## Plots"]
    for title, plot, why in drawn:
        lines += ["", f"### {title}", ""]
        if plot is None:
            lines.append(f"_Not drawn: {why}._")
        else:
            lines += [f"![{plot.title}]({plot.file})", "", plot.look_for]
    return lines


def write_report(directory: Path, plots: bool) -> int:
    suite = load_suite(directory)
    baselines = Baselines(suite)
    rows, flagged = main_rows(suite, baselines)

    lines = header(suite)
    lines += ["", "## The workload, every way", ""]
    lines += md_table(["stage", "variant", "median ms", "speed-up vs serial", "% of pipeline bound", "verified"],
                      rows, {2, 3, 4})
    lines += ["", "speed-up vs serial = the pageable serial time / the row's median, for rows that do the whole "
              "workload; within the same run where the stage times its own serial baseline (03), else vs "
              f"{BASELINE_STAGE}.json. % of pipeline bound = the bound / the row's median: 100% is as fast as the "
              "busiest resource allows; above 100% the run beat the one-stream isolated sums the bound is made of. "
              "Given only where the bound was measured with the row's kind of host memory."]
    if flagged:
        cross = [f"serial {format_ms(baselines.cross_serial[1])} ms from {baselines.cross_serial[0].path.name}"
                 if baselines.cross_serial else ""]
        cross += [f"the {kernel} pipeline bound {format_ms(bound)} ms from {run.path.name}"
                  for kernel, (run, bound) in baselines.cross_bounds.items()]
        lines += ["", f"{CROSS_RUN} across runs ({'; '.join(c for c in cross if c)}): for orientation only; "
                  "quote the ratios each stage measures within one process (below)."]
    summary = list(lines)  # header and the table: what the terminal shows
    verify, failed = verification_lines(suite)
    lines += ["", "## Verification", "", *verify]
    lines += regime_section(suite)
    lines += copy_section(suite) + sweep_section(suite) + graph_section(suite)
    lines += bounds_section(suite)

    status = EXIT_UNVERIFIED if failed else EXIT_OK
    plotted: list[Any] = []
    if plots:
        try:
            import report_plots  # matplotlib is only needed here
        except ImportError as error:
            print(f"report.py: warning: no plots: {error}; install with: "
                  "python3 -m pip install --user -r scripts/requirements.txt", file=sys.stderr)
            lines += ["", "## Plots", "", "_None: matplotlib is not installed "
                      "(python3 -m pip install --user -r scripts/requirements.txt)._"]
            status = status or EXIT_NO_PLOTS
        else:
            drawn = report_plots.draw_all(suite, directory)
            plotted = [plot for _, plot, _ in drawn if plot is not None]
            lines += plot_lines(drawn)
    lines += appendix(suite)

    target = directory / "report.md"
    temporary = directory / ".report.md.tmp"
    temporary.write_text("\n".join(lines) + "\n", encoding="utf-8")
    temporary.replace(target)  # whole or not at all
    print("\n".join(summary + ["", *verify]))
    print(f"\nwrote {target}" + (f" and {len(plotted)} plot(s)" if plotted else ""))
    return status


# --- comparing two runs -------------------------------------------------------------

def keyed(results: list[Result], by_file: bool) -> dict[tuple[str, str, str], tuple[Result, dict[str, Any]]]:
    rows: dict[tuple[str, str, str], tuple[Result, dict[str, Any]]] = {}
    for result in results:
        for m in result.measurements:
            run = run_name(result) if by_file else result.stage
            params = json.dumps(params_of(m), sort_keys=True, separators=(",", ":"))
            key = (run, m["name"], params)
            index = 2
            while key in rows:  # the same variant twice in one run: number the repeats
                key = (run, f"{m['name']} #{index}", params)
                index += 1
            rows[key] = (result, m)
    return rows


def compare(old_path: Path, new_path: Path) -> int:
    old_results, new_results = load_results_from(old_path), load_results_from(new_path)
    # Folders are matched run by run (file names); single files by stage.
    by_file = old_path.is_dir() and new_path.is_dir()
    old, new = keyed(old_results, by_file), keyed(new_results, by_file)
    for label, results, path in (("OLD", old_results, old_path), ("NEW", new_results, new_path)):
        devices = {describe_device(r.doc["device"]) for r in results}
        print(f"{label}: {path}: {'; '.join(sorted(devices))}")
    print()
    headers = ["run" if by_file else "stage", "variant", "params", "OLD ms", "NEW ms", "NEW/OLD", "speed-up"]
    rows = []
    for key in [k for k in old if k in new]:
        o, n = old[key][1]["median_ms"], new[key][1]["median_ms"]
        ratio = f"{n / o:.3f}" if o > 0 else "-"
        speedup = f"{o / n:.2f}x" if n > 0 else "-"
        rows.append([key[0], key[1], format_params(json.loads(key[2])), format_ms(o), format_ms(n), ratio, speedup])
    if rows:
        widths = [max(len(r[i]) for r in [headers, *rows]) for i in range(len(headers))]
        for r in [headers, ["-" * w for w in widths], *rows]:
            print("  ".join(c.rjust(widths[i]) if i >= 3 else c.ljust(widths[i]) for i, c in enumerate(r)).rstrip())
        print("\nNEW/OLD < 1: NEW is faster. speed-up = OLD / NEW.")
    else:
        print("no (run, variant, params) in common")
    for label, only in (("OLD", [k for k in old if k not in new]), ("NEW", [k for k in new if k not in old])):
        if only:
            print(f"\nonly in {label} ({len(only)}):")
            for run, name, params in only:
                print(f"  {run}  {name}  {format_params(json.loads(params))}")
    return EXIT_OK


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        description="Write report.md and PNG plots from a results folder, or compare two runs.",
        epilog="Exit status: 0 ok; 1 something did not verify; 2 bad input; 3 no plots (matplotlib missing).")
    parser.add_argument("results_dir", nargs="?", type=Path, help="folder with the stages' --json files")
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("OLD", "NEW"),
                        help="print NEW/OLD median ratios per variant of two results folders (or files)")
    parser.add_argument("--no-plots", action="store_true", help="write report.md only")
    args = parser.parse_args(argv)
    if (args.results_dir is None) == (args.compare is None):
        parser.error("give either RESULTS_DIR or --compare OLD NEW")
    try:
        if args.compare:
            return compare(*args.compare)
        return write_report(args.results_dir, plots=not args.no_plots)
    except ResultError as error:
        print(f"report.py: error: {error}", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
