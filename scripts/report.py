#!/usr/bin/env python3
"""The suite's one report command: report.md and PNG plots from a results
folder, the comparison table, or a comparison of two runs. It reads only the
JSON the stages write with --json (schema cuda-streams-graphs/result/v1) and
their --trace timelines, never their printed output.

A folder holds one result per run: a stage's lesson ("subcommand": null) or
one experiment of its laboratory ("subcommand": "kernels"); each table finds
its data by stage and subcommand (results_lib's "where each table and plot of
the report finds its data"). Folders of the first suite's combined results,
one per stage run and without "subcommand", read the same.

  report.py RESULTS_DIR [--out DIR] [--no-plots]
      writes into --out (default RESULTS_DIR; the repository's sample data is
      refused without --out; an --out that is there but not a folder is
      refused before anything is read):
        report.md         device, dates, driver and CUDA versions; one table
                          (stage, variant, median ms, speed-up vs the serial
                          baseline, % of the pipeline bound, verified) of the
                          runs of the article's workload; the verification
                          and output digests; the regimes (each GEMM kernel
                          alone vs the whole pipeline: 03's kernels runs, 04's
                          costs runs); copy bandwidths (02 sweep), the
                          pool-size sweep (03's lesson), graph costs (04);
                          stage 04's regime map where a run has one; after
                          the article: stage 04's runs of CUDA's newer graph
                          features (device launch, conditional nodes, PDL,
                          memory nodes, startup, launch anatomy), the old way
                          against the new, where any ran; every plot; every
                          measurement
        bandwidth.png, stages.png, sweep.png, graph_costs.png, regimes.png,
        after_article.png (where the after-the-article table has a row),
        timeline_<run>.png (one per trace), regime_map_<run>.png (one per
        04 regime-map result)
      and prints a short summary. Run by a python3 without matplotlib where
      scripts/setup.sh made .venv/, it runs again under .venv/bin/python3
      (one note on stderr says so).
  report.py --table RESULTS_DIR [--markdown]
      prints one row per measurement with the speed-up vs the pageable
      01_serial_baseline run, the regime table, stage 02's peaks and stage
      04's regime map.
  report.py --compare OLD NEW
      OLD and NEW are results folders (or single result files): per (run,
      variant, params) both medians, NEW/OLD, the speed-up and whether the
      output digests are equal; then the rows found in only one of them.

Exit status, every mode: 0 ok and everything verified; 1 something did not
verify (or, in --compare, the same config gave different outputs); 2 bad input
(no such folder, no result files, invalid JSON, wrong schema, a missing or
malformed field: one line on stderr naming the file and the field), bad usage,
or an output that can't be written; 3 report.md written without plots because
matplotlib is missing.
"""

from __future__ import annotations

import argparse
import json
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

from results_lib import (BOUND_RUNS, COPY_SWEEP_RUNS, KERNEL_ORDER, POOL_SWEEP_RUNS, REGIME_POOL_SUBCOMMAND,
                         SERIAL_RUNS, STAGE01, STAGE02, STAGE03, STAGE04, WORKLOAD_RUNS, AfterArticle, Regime, Result,
                         ResultError, Suite, after_article, after_article_figure, config_difference, copy_findings,
                         crossover_sentence, describe_device, describe_devices, digest_comparison, digest_lines,
                         failed_verifications, find_measurement, findings_sentence, format_ms, format_params,
                         gain_sentence, graph_findings, human_bytes, is_measured, is_number, is_unverified, kernel_of,
                         load_results_from, load_suite, map_cell, map_cell_label, map_cell_text, map_equal_within,
                         map_findings, map_ratio, map_results, map_rows, md_table, measured_dates, missing_kernels,
                         params_of, percent, plateau_of_rates_sentence, plural, rate, regime_map_of, regimes,
                         replay_sentence, run_name, run_name_for, run_name_for_kernel, runs_of, size_label,
                         sweep_sentence, text_table, variant_label, verified_text)

EXIT_OK, EXIT_UNVERIFIED, EXIT_USAGE, EXIT_NO_PLOTS = 0, 1, 2, 3

REPO = Path(__file__).resolve().parents[1]
SAMPLE_DATA = REPO / "tests" / "data"
# The interpreter scripts/setup.sh prepares where the shell's python3 can't get matplotlib (a pyenv or
# self-built Python): the project's own virtual environment.
VENV = REPO / ".venv"
# Set while report.py runs again under VENV's python3, so it does so at most once.
REEXEC_MARK = "CSG_REPORT_UNDER_VENV"

BASELINE_STAGE = STAGE01
BASELINE_FILE = f"{STAGE01}.json"
POOL_STAGE = STAGE03
GRAPH_STAGE = STAGE04
COPY_STAGE = STAGE02
# Variants that do the whole workload (every batch in, computed, out): only
# these get a speed-up and a % of the pipeline bound.
END_TO_END = {"serial", "stream_pool", "engine_streams", "graph_replay"}
# The 04 measurements of the same workload in the main table; the rest go to the graph-costs table.
GRAPH_MAIN = {"graph_replay", "stream_pool", "first_launch", "relaunch", "launch_after_upload"}
# Rows of --table that may carry a speed-up vs 01: the end-to-end runs and 04's
# graph launches of the same work. Not a kernel sum, a resource alone or one
# batch's first op: they have a GFLOP/s but leave out the copies.
WHOLE_WORKLOAD = END_TO_END | GRAPH_MAIN
WORKLOAD_KEYS = ("batches", "m", "n", "k")
CROSS_RUN = "†"


# --- baselines and bounds of report.md --------------------------------------------------

def same_workload(a: Result, b: Result) -> bool:
    return all(a.config.get(key) == b.config.get(key) for key in WORKLOAD_KEYS)


class Baselines:
    """Which serial time and which pipeline bound each run's rows are measured against.

    Speed-up: vs the run's own pageable serial where it has one (03 runs one
    in the same rounds as the pool); else vs the pageable serial of stage 01's
    lesson with the article's kernel (SERIAL_RUNS), a ratio across runs,
    flagged †. % of the pipeline bound: the run's own bounds.pipeline_bound_ms,
    else that of a 03 run with the same GEMM kernel (BOUND_RUNS: its kernels
    run, else its lesson; flagged †): a cuBLAS graph replay against the naive
    kernels' bound would say nothing. Across runs only when the workload
    (batches, m, n, k) is the same.
    """

    def __init__(self, suite: Suite) -> None:
        self.cross_serial: tuple[Result, float] | None = None
        candidates = [r for r in runs_of(suite.results, BASELINE_STAGE, SERIAL_RUNS, kernel="naive")
                      if r.config.get("host_memory") == "pageable"]
        for r in candidates:
            m = find_measurement(r, "serial", host_memory="pageable") or find_measurement(r, "serial")
            if m and m["median_ms"] > 0:
                self.cross_serial = (r, m["median_ms"])
                break
        # One bound per GEMM kernel: pinned runs first, then the run named after the stage.
        self.cross_bounds: dict[str, tuple[Result, float]] = {}
        pools = runs_of(suite.results, POOL_STAGE, BOUND_RUNS)
        pools.sort(key=lambda r: r.config.get("host_memory") != "pinned")  # stable: runs_of's order within
        for r in pools:
            bound = r.bounds.get("pipeline_bound_ms")
            if is_number(bound) and bound > 0:
                self.cross_bounds.setdefault(kernel_of(r), (r, bound))

    def serial_for(self, result: Result) -> tuple[float, bool] | None:
        """(baseline ms, across runs?) for the rows of `result`."""
        own = find_measurement(result, "serial", host_memory="pageable")
        if own is None and result.config.get("host_memory") == "pageable":
            own = find_measurement(result, "serial")
        if own and own["median_ms"] > 0:
            return own["median_ms"], False
        if self.cross_serial and same_workload(result, self.cross_serial[0]):
            return self.cross_serial[1], True
        return None

    def bound_for(self, result: Result, m: dict[str, Any]) -> tuple[float, bool] | None:
        """The pipeline bound for row `m` of `result`. A row that carries its own bound (each pool size, issue
        order, engine streams, graph replay: measured on its own streams) gets that one; in a result whose rows
        carry their own bounds, a row without one (the serial runs) gets none. Older results have one bound per
        run: then one measured with the row's kind of host memory only (pageable copies are 4-7x slower, so a
        pinned bound says nothing about a pageable run). A serial run gets none anywhere: it overlaps nothing,
        so its bound is the stages' sum, which stage 01 prints, not the pipeline bound of a pool."""
        if m["name"] == "serial":
            return None
        own_bound = own_bound_ms(m)
        if own_bound is not None:
            return own_bound, False
        if any(own_bound_ms(other) is not None for other in result.measurements):
            return None
        memory = params_of(m).get("host_memory", result.config.get("host_memory"))
        own = result.bounds.get("pipeline_bound_ms")
        if is_number(own) and own > 0:
            return (own, False) if memory == result.config.get("host_memory") else None
        cross = self.cross_bounds.get(kernel_of(result))
        if cross and same_workload(result, cross[0]) and memory == cross[0].config.get("host_memory"):
            return cross[1], True
        return None


def own_bound_ms(m: dict[str, Any]) -> float | None:
    """The bound a measurement carries for itself (its "bound" object), if any."""
    bound = m.get("bound")
    if isinstance(bound, dict) and is_number(bound.get("bound_ms")) and bound["bound_ms"] > 0:
        return float(bound["bound_ms"])
    return None


# --- report.md ---------------------------------------------------------------------

def in_main_table(result: Result, m: dict[str, Any]) -> bool:
    if result.stage not in WORKLOAD_RUNS or not result.holds(WORKLOAD_RUNS[result.stage]):
        return False  # 02's copies, and the experiments of other workloads: their own sections, and the appendix
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
            speedup = bound_percent = "-"
            if m["name"] in END_TO_END and median > 0:
                if serial:
                    speedup = f"{serial[0] / median:.2f}x" + (f" {CROSS_RUN}" if serial[1] else "")
                    flagged |= serial[1]
                bound = baselines.bound_for(result, m)
                if bound:
                    bound_percent = f"{100.0 * bound[0] / median:.0f}%" + (f" {CROSS_RUN}" if bound[1] else "")
                    flagged |= bound[1]
            rows.append([run_name(result), variant_label(m), format_ms(median), speedup, bound_percent,
                         verified_text(m)])
    return rows, flagged


def copy_sweep(result: Result) -> dict[tuple[str, str], dict[float, float]]:
    """(host memory, direction) -> {bytes: GB/s} of stage 02's copy sweep."""
    table: dict[tuple[str, str], dict[float, float]] = {}
    sweep_named = any(m["name"] == "copy" for m in result.measurements)
    for m in result.measurements:
        p = params_of(m)
        if sweep_named and m["name"] != "copy":
            continue  # overlap_copy_alone has the same params at one size: not part of the sweep
        if isinstance(p.get("host_memory"), str) and isinstance(p.get("direction"), str) and \
                is_number(p.get("bytes")) and is_number(m.get("gbps")):
            table.setdefault((p["host_memory"], p["direction"]), {})[float(p["bytes"])] = m["gbps"]
    return table


def copy_sweep_runs(results: list[Result]) -> list[Result]:
    """Stage 02's runs whose copy measurements make the bandwidth table and plot: its sweep runs, else (no sweep
    ran) its lesson's."""
    for subcommand in COPY_SWEEP_RUNS:
        runs = runs_of(results, COPY_STAGE, [subcommand])
        if runs:
            return runs
    return []


def copy_section(suite: Suite) -> list[str]:
    lines = []
    for result in copy_sweep_runs(suite.results):
        table = copy_sweep(result)
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
        findings = copy_findings(table)
        if findings:
            lines += ["", "; ".join(findings) + "."]
    return lines


def sweep_points(result: Result) -> list[tuple[Any, float]]:
    return sorted((params_of(m)["streams"], m["median_ms"]) for m in result.measurements
                  if m["name"] == "stream_pool" and params_of(m).get("sweep") is True
                  and is_number(params_of(m).get("streams")))


def sweep_section(suite: Suite) -> list[str]:
    lines = []
    for result in runs_of(suite.results, POOL_STAGE, POOL_SWEEP_RUNS):
        points = [m for m in result.measurements if m["name"] == "stream_pool" and params_of(m).get("sweep") is True]
        if not points:
            continue
        points.sort(key=lambda m: params_of(m).get("streams", 0))
        pageable = find_measurement(result, "serial", host_memory="pageable")
        pinned = find_measurement(result, "serial", host_memory="pinned")
        bound = result.bounds.get("pipeline_bound_ms")
        rows = []
        for m in points:
            median = m["median_ms"]
            point_bound = own_bound_ms(m) or (bound if is_number(bound) else None)  # each pool size's own, if any
            rows.append([str(params_of(m).get("streams", "?")), format_ms(median),
                         f"{pageable['median_ms'] / median:.2f}x" if pageable and median > 0 else "-",
                         f"{pinned['median_ms'] / median:.2f}x" if pinned and median > 0 else "-",
                         f"{100.0 * point_bound / median:.0f}%" if point_bound and median > 0 else "-",
                         verified_text(m)])
        lines += ["", f"### Stream-count sweep ({run_name(result)}, {result.config.get('host_memory', '?')} host "
                  "memory; ratios within this run)", ""]
        lines += md_table(["streams", "median ms", "vs serial pageable", "vs serial pinned", "% of pipeline bound",
                           "verified"], rows, {1, 2, 3, 4})
        lines += ["", sweep_sentence(sweep_points(result), bound if is_number(bound) else None)]
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
        findings = graph_findings(result)
        if findings:
            lines += ["", "Within this run: " + "; ".join(findings) + "."]
    return lines


def regime_map_grid(rm: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """The map as a table: a row per size, a column per batch count, each cell's winner and the replay's time
    against the pool's."""
    headers = ["m = n = k"] + [plural(b, "batch") for b in rm["batches"]]
    rows = [[size_label(m)] + [map_cell_text(map_cell(rm, m, b)) for b in rm["batches"]] for m in rm["sizes"]]
    return headers, rows


def regime_map_skipped(rm: dict[str, Any]) -> list[str]:
    return [f"{map_cell_label(c)}: {c['skipped_reason']}" for c in rm["cells"] if not is_measured(c)]


def regime_map_intro(rm: dict[str, Any]) -> str:
    runs = f"median of {plural(rm['repeats'], 'run')} per cell" if is_number(rm.get("repeats")) else \
        "median per cell"
    streams = f"{plural(rm['streams'], 'stream')}, " if is_number(rm.get("streams")) else ""
    return (f"The stream pool ({streams}fork/join) against one graph replay of the same work (H2D, GEMM, D2H per "
            f"batch, pinned host memory), GPU time, {runs}. Each cell names the winner and the replay's time "
            f"against the pool's (graph −12%: 12% less); tie: within ±{percent(map_equal_within(rm))}.")


def regime_map_section(suite: Suite) -> list[str]:
    lines = []
    for result in map_results(suite.results):
        rm = regime_map_of(result)
        headers, rows = regime_map_grid(rm)
        lines += ["", f"## Regime map: where the graph wins ({run_name(result)})", "", regime_map_intro(rm), ""]
        lines += md_table(headers, rows, set(range(1, len(headers))))
        skipped = regime_map_skipped(rm)
        if skipped:
            lines += ["", "Skipped, with the stage's reasons:", "", *(f"- {s}" for s in skipped)]
        lines += ["", "Where the graph starts to win (the smallest batch count where it does, row by row):", ""]
        lines += [f"- {crossover_sentence(row)}" for row in map_rows(rm)]
        lines += ["", findings_sentence(map_findings(rm))]
        figures = [[size_label(c["m"]), str(c["batches"]), format_ms(c["stream_ms"]), format_ms(c["graph_ms"]),
                    f"{map_ratio(c):.3f}", rate(c.get("stream_issue_ms"), 3), rate(c.get("graph_issue_ms"), 3),
                    rate(c.get("pool_percent_of_bound"), 1), "yes" if c["verified"] else "NO"]
                   for c in rm["cells"] if is_measured(c)]
        if figures:
            lines += ["", "Every measured cell (issue: the host's time to issue the pool's calls, or the one "
                      "cudaGraphLaunch; vs 1-stream sums: the longest one-stream sum plus fill and drain as % of "
                      "the pool's time, not a bound of the pool: above 100% where kernels of several streams "
                      "ran side by side):", ""]
            lines += md_table(["size", "batches", "pool ms", "graph ms", "graph/pool", "pool issue ms",
                               "graph issue ms", "vs 1-stream sums %", "verified"], figures, set(range(1, 8)))
    return lines


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
    """Sentences read off the numbers: how much faster the kernel got, how much of that the pipeline kept,
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
                f"{gflops_text(naive.pipeline_gflops)} to {gflops_text(best.pipeline_gflops)} GFLOP/s: "
                + gain_sentence(best.kernel_gflops / naive.kernel_gflops, best.pipeline_gflops / naive.pipeline_gflops)
                + ".")
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
        limited = sorted({r.limited_by for r in group})
        span = span_of([r.bound_ms for r in group], "{:.2f}") + " ms"
        text = f"**{names}: {regime}.** The bound is set by {', '.join(limited)}: {span}."
        if limited == ["kernels"]:
            copies = [bounds_of(r).get("copies_both_ways_ms") for r in group]
            if all(is_number(c) for c in copies):
                share = [100.0 * c / r.bound_ms for c, r in zip(copies, group)]
                text += (f" The copies both ways take {span_of(copies, '{:.2f}')} ms, {span_of(share, '{:.0f}')}% "
                         "of it: while the kernels set the bound, a faster kernel lowers it, down to the copies' "
                         "time.")
        else:
            kernel_ms = [bounds_of(r).get("kernel_sum_ms") for r in group]
            if all(is_number(k) for k in kernel_ms):
                share = [100.0 * k / r.bound_ms for k, r in zip(kernel_ms, group)]
                text += (f" The kernels alone take {span_of(kernel_ms, '{:.2f}')} ms, {span_of(share, '{:.0f}')}% "
                         "of it: a faster kernel cannot lower a bound it does not set.")
            if len(group) > 1:
                text += " " + plateau_of_rates_sentence([r.kernel for r in group],
                                                        [r.pipeline_gflops for r in group],
                                                        [r.kernel_gflops for r in group]) + "."
        best = max(group, key=lambda r: max(r.pool_percent, r.engines_percent or 0.0))
        text += (f" The highest % of the bound (bound / achieved; above 100%: the run beat it)"
                 f"{' in this group' if len(group) > 1 else ''}: {best.kernel}, the stream pool "
                 f"{best.pool_percent:.0f}%")
        if best.engines_percent is not None:
            text += f", one stream per engine {best.engines_percent:.0f}%"
        lines += ["", text + "."]
    replayed = [r for r in rows if r.replay_ms is not None]
    if replayed:
        lines += ["", "Stage 04 replays the same work as a graph (separate runs): " + "; ".join(
            replay_sentence(r.kernel, r.replay_ms, r.pool_ms) for r in replayed) + "."]
    return lines


def span_of(values: list[float], form: str) -> str:
    """"8.24-8.27", or one figure where they print the same."""
    low, high = form.format(min(values)), form.format(max(values))
    return low if low == high else f"{low}-{high}"


def bounds_of(r: Regime) -> dict[str, Any]:
    return r.run.bounds


REGIME_TITLE = "Regimes: the kernel alone vs the whole pipeline"


def regime_section(suite: Suite) -> list[str]:
    rows = regimes(suite.results)
    lines = ["", f"## {REGIME_TITLE}", ""]
    # A folder of combined results (written before the laboratory had subcommands) names its runs the old way.
    subcommand = None if suite.combined else REGIME_POOL_SUBCOMMAND
    wanted = ", ".join(f"{run_name_for_kernel(STAGE03, k, subcommand)}.json" for k in KERNEL_ORDER)
    if not rows:
        return lines + [f"_No {STAGE03} `{REGIME_POOL_SUBCOMMAND}` run here at the article's workload (100 "
                        "batches of 1024×512 by 512×1024) with pinned host memory and the kernel's GFLOP/s in its "
                        f"bounds, so no comparison: scripts/run_suite.sh writes {wanted}._"]
    lines.append(f"Stage {STAGE03[:2]} with each GEMM kernel at the article's workload, pinned host memory. "
                 "kernel-only GFLOP/s: the isolated kernel sum; pipeline GFLOP/s: the whole workload, copies "
                 "included, the better of the stream pool and one stream per engine; % of bound = the pipeline "
                 "bound / the achieved time, each variant against its own bound (each resource's work alone, issued "
                 "as that variant issues it; above 100% by more than the noise: a bug in the bound); 04 replay: "
                 f"{STAGE04}'s graph replay of the same kernel.")
    lines.append("")
    lines += regime_table(rows)
    sources = [f"{run_name(r.run)}.json" for r in rows] + [f"{run_name(r.replay)}.json" for r in rows if r.replay]
    lines += ["", "From " + ", ".join(sources) + "."]
    missing = missing_kernels(rows)
    if missing:
        lines += ["", "Missing: " + ", ".join(
            f"{k} ({run_name_for_kernel(STAGE03, k, subcommand)}.json)" for k in missing) +
            " — no such run here; scripts/run_suite.sh runs every kernel."]
    if any(r.replay is None for r in rows):
        lines += ["", f"04 replay '-': no {STAGE04} run of that kernel at the article's workload here."]
    lines += regime_lesson(rows)
    return lines


AFTER_TITLE = "After the article: CUDA's newer graph features"
AFTER_PLOT = "after_article.png"
AFTER_HEADERS = ["feature", "figure", "old way", "old", "new way", "new", "new vs old", "the run's conclusion"]
AFTER_OLD_COLOUR = "#1f77b4"   # the old way: blue
AFTER_NEW_COLOUR = "#8c564b"   # the new way: brown, as the graph in graph_costs.png


def after_article_rows(after: AfterArticle) -> list[list[str]]:
    return [[r.feature, r.figure, r.old_way, after_article_figure(r.old, r.unit), r.new_way,
             after_article_figure(r.new, r.unit), r.ratio_text, r.conclusion] for r in after.rows]


def after_article_section(suite: Suite) -> list[str]:
    """Stage 04's runs of CUDA's newer graph features: one row per figure compared, the old way against the new;
    nothing where none of them ran (a folder of an older suite)."""
    after = after_article(suite.results)
    if not after.rows and not after.skipped:
        return []
    lines = ["", f"## {AFTER_TITLE}", ""]
    files = [f"{run_name_for(GRAPH_STAGE, subcommand)}.json" for subcommand in after.missing]
    if after.rows:
        lines.append("Stage 04's laboratory runs of what CUDA added after the article: graphs launched from the GPU, "
                     "conditional (WHILE) nodes, programmatic dependent launch, memory nodes; and what a serving "
                     "engine's startup and one graph launch cost. Each row: one figure, per operation, the old way "
                     "against the new (startup: the fewest buckets against the most), from one run. new vs old: the old way's time / the new way's (2.0× faster: "
                     "the new way takes half the time), or the memory the new way holds against the old's. The "
                     "conclusion is the run's own verdict, its id in backticks, with the stage's thresholds; "
                     "launch-anatomy writes figures only, so its rows apply the stage's rules to them.")
        lines.append("")
        lines += md_table(AFTER_HEADERS, after_article_rows(after), {3, 5, 6})
        lines += ["", "From " + ", ".join(r.path.name for r in after.runs) + "."]
    else:
        lines.append("_No row: no run here that the table can read (below, why)._")
    if after.missing:
        lines += ["", f"Not run here: {', '.join(after.missing)} (no {', '.join(files)}; scripts/run_suite.sh "
                  "runs them)."]
    if after.skipped:
        lines += ["", "Left out, malformed or incomplete:", "", *(f"- {s}" for s in after.skipped)]
    return lines


def after_article_caption(after: AfterArticle) -> str:
    drawn = [r for r in after.rows if r.is_time and r.comparable]
    text = ("Blue: the old way, brown: the new way, each row's time per operation (µs, log scale), from the "
            "runs' JSON. " + "; ".join(f"{r.feature}, {r.figure}: {r.new_way} {r.ratio_text} than {r.old_way}"
                                       for r in drawn) + ".")
    left = [r for r in after.rows if r not in drawn]
    if left:
        text += " In the table only: " + "; ".join(
            f"{r.feature}, {r.figure}" + (" (not a time)" if not r.is_time else " (a figure not above 0)")
            for r in left) + "."
    return text


def draw_after_article(plots: Any, after: AfterArticle, out_dir: Path) -> Any:
    """after_article.png: a pair of horizontal bars per row of the table that compares two times, the old way
    above the new, on a log axis of µs, each labelled with its figure and the new one with the ratio."""
    rows = [r for r in after.rows if r.is_time and r.comparable]
    if not rows:
        raise plots.SkipPlot("no row of the table compares two times above 0 (a memory figure is in the table only)")
    plt = plots.plt
    fig, ax = plt.subplots(figsize=(plots.SLIDE_WIDE[0], max(plots.SLIDE[1], 1.6 + 0.75 * len(rows))))
    height = 0.38
    ys = list(range(len(rows)))
    values = []
    for offset, side, colour, label in ((-height / 2, "old", AFTER_OLD_COLOUR, "the old way"),
                                        (height / 2, "new", AFTER_NEW_COLOUR, "the new way")):
        us = [r.us(getattr(r, side)) for r in rows]
        values += us
        ax.barh([y + offset for y in ys], us, height=height, color=colour, label=label)
        for y, r, value in zip(ys, rows, us):
            way = r.old_way if side == "old" else r.new_way
            text = f"{after_article_figure(value, 'µs')}  {way}"
            if side == "new":
                text += f"  ({r.ratio_text})"
            ax.annotate(text, (value, y + offset), xytext=(4, 0), textcoords="offset points", va="center",
                        fontsize=10)
    ax.set_xscale("log")
    # The labels run on past the longest bar, beyond the axes: the saved picture is cut to fit them.
    ax.set_xlim(min(values) / 3, max(values) * 3)
    ax.set_yticks(ys, [f"{r.feature}\n{r.figure}" for r in rows], fontsize=10)
    ax.invert_yaxis()  # the table's order, top to bottom
    ax.set_xlabel("time per operation (µs, log scale)")
    ax.grid(axis="y", visible=False)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.1), ncol=2, fontsize=11, frameon=False)
    fig.suptitle(f"{AFTER_TITLE} — {plots.device_line(after.runs)}")
    ax.set_title("The old way (blue) against the new (brown), per operation: launches, loop iterations, kernels, "
                 "replays, startups", fontsize=12)
    fig.tight_layout()
    plots.save(fig, out_dir, AFTER_PLOT)
    return plots.Plot(AFTER_PLOT, AFTER_TITLE, after_article_caption(after))


def after_article_plots(plots: Any, suite: Suite, out_dir: Path) -> list[tuple[str, Any, str]]:
    """The plot's entry in the Plots section: none where the table has no row (the section says why)."""
    after = after_article(suite.results)
    if not after.rows:
        (out_dir / AFTER_PLOT).unlink(missing_ok=True)  # a picture of an earlier report of this folder
        return []
    try:
        return [(AFTER_TITLE, draw_after_article(plots, after, out_dir), "")]
    except plots.SkipPlot as reason:
        (out_dir / AFTER_PLOT).unlink(missing_ok=True)
        return [(AFTER_TITLE, None, str(reason))]


def format_bound(value: Any) -> str:
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if is_number(value):
        return f"{value:.4g}"
    return str(value) if not isinstance(value, (dict, list)) else json.dumps(value, separators=(",", ":"))


def bounds_section(suite: Suite) -> list[str]:
    lines = [f"- **{run_name(r)}**: " + ", ".join(f"{k} {format_bound(v)}" for k, v in r.bounds.items())
             for r in suite.results if r.bounds]
    return ["", "## Bounds and ratios measured by the stages themselves", "",
            "Each stage measures these within one process; they are the figures to quote.", "", *lines] if lines else []


def appendix(suite: Suite) -> list[str]:
    rows = []
    for result in suite.results:
        for m in result.measurements:
            rows.append([run_name(result), m["name"], format_params(m.get("params")), format_ms(m["median_ms"]),
                         rate(m.get("min_ms"), 3), rate(m.get("p95_ms"), 3), rate(m.get("max_ms"), 3),
                         rate(m.get("gbps")), rate(m.get("gflops"), 0), verified_text(m),
                         m["digest"] if isinstance(m.get("digest"), str) else "-"])
    return ["", "<details><summary>Every measurement (all runs)</summary>", "",
            *md_table(["run", "variant", "params", "median ms", "min ms", "p95 ms", "max ms", "GB/s", "GFLOP/s",
                       "verified", "digest"], rows, set(range(3, 9))), "", "</details>"]


def header(suite: Suite) -> list[str]:
    lines = [f"# cuda-streams-graphs results: {suite.directory.resolve().name}", "",
             f"- measured (UTC): {measured_dates(suite.results)}"]
    lines += [f"- {line}" for line in describe_devices(suite.results)]
    lines.append("- runs: " + ", ".join(f"{run_name(r)}" for r in suite.results))
    missing = [s for s in (BASELINE_STAGE, COPY_STAGE, POOL_STAGE, GRAPH_STAGE) if not suite.by_stage(s)]
    if missing:
        lines.append("- not in this folder: " + ", ".join(missing) + " (their table rows and plots are left out)")
    return lines


def verification_lines(suite: Suite) -> tuple[list[str], bool]:
    """The Verification section: failed stages and measurements, then whether the output digests agree."""
    failures = failed_verifications(suite.results)
    digests, differ = digest_lines(suite.results)
    lines = [f"- **{line}**" for line in failures]
    if not failures:
        lines.append("- every stage verified every batch of every variant it checks "
                     "(n/a: nothing to check, e.g. an allocation cost or CPU issue time)")
    lines += [f"- **{line}**" if line.startswith("OUTPUTS DIFFER") else f"- {line}" for line in digests]
    if differ:
        lines.append("- the same seed and shape give the same C, so variants of one run whose digests differ did "
                     "not compute the same outputs")
    return lines, bool(failures) or differ


def plot_lines(drawn: list[tuple[str, Any, str]]) -> list[str]:
    lines = ["", "## Plots"]
    for title, plot, why in drawn:
        lines += ["", f"### {title}", ""]
        if plot is None:
            lines.append(f"_Not drawn: {why}._")
        else:
            lines += [f"![{plot.title}]({plot.file})", "", plot.look_for]
    return lines


def in_sample_data(directory: Path) -> bool:
    """Whether `directory` is the repository's own data: under tests/data, or holding files git tracks."""
    resolved = directory.resolve()
    if resolved == SAMPLE_DATA or SAMPLE_DATA in resolved.parents:
        return True
    if resolved != REPO and REPO not in resolved.parents:
        return False
    try:
        listed = subprocess.run(["git", "-C", str(REPO), "ls-files", "--", str(resolved)], capture_output=True,
                                text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return False  # no git (a tarball of the sources): the tests/data rule above still holds
    return listed.returncode == 0 and bool(listed.stdout.strip())


# --- matplotlib: which interpreter has it ------------------------------------------------

def install_hint() -> str:
    """How to get matplotlib for this interpreter, in a way its system accepts: pip only into a virtual
    environment; an externally managed Python (Debian's, PEP 668) refuses pip outside one, so there the
    distribution's package, or scripts/setup.sh, which installs it or makes .venv/ with it."""
    if sys.prefix != sys.base_prefix:
        return f"{sys.executable} -m pip install -r scripts/requirements.txt"
    if sys.prefix == "/usr":
        return "apt-get install python3-matplotlib, or run scripts/setup.sh, which does"
    return "run scripts/setup.sh: it makes .venv/ with matplotlib, and report.py then draws with it"


def has_matplotlib() -> bool:
    try:
        import matplotlib  # noqa: F401  (imported for the plots anyway)
    except ImportError:
        return False
    return True


def venv_python() -> Path | None:
    """VENV's python3 where that is not this interpreter and report.py has not switched to it already."""
    python = VENV / "bin" / "python3"
    if os.environ.get(REEXEC_MARK) or not os.access(python, os.X_OK):
        return None
    try:
        if Path(sys.prefix).resolve() == VENV.resolve():
            return None
    except OSError:
        return None
    return python


def rerun_with_matplotlib(argv: list[str]) -> None:
    """`python3 scripts/report.py ...` as the README writes it runs the shell's python3; where that has no
    matplotlib and scripts/setup.sh made .venv/ (it does where the shell's python3 can't get it), runs this
    command again under .venv/bin/python3, with one note saying so. Returns only where it does not."""
    python = venv_python()
    if python is None or has_matplotlib():
        return
    print(f"report.py: note: {sys.executable} has no matplotlib; drawing the plots with "
          f"{python.relative_to(REPO)}, which scripts/setup.sh prepared", file=sys.stderr)
    sys.stderr.flush()
    os.environ[REEXEC_MARK] = "1"
    try:
        os.execv(python, [str(python), str(Path(__file__).resolve()), *argv])
    except OSError:
        del os.environ[REEXEC_MARK]  # it can't run: report.md without plots, with the hint, as without .venv/


# --- where report.md goes -----------------------------------------------------------------

def file_kind(path: Path) -> str:
    """What is at `path`, in words, for a refusal: "a file", "a character device", ..."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return "not a folder"
    for test, words in ((stat.S_ISREG, "a file"), (stat.S_ISCHR, "a character device"),
                        (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a pipe"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return words
    return "not a folder"


def check_output_folder(out_dir: Path, given: str) -> None:
    """Refuses, before anything is read or written, an output that is there but not a folder: `given` names
    the option and its value as the user wrote them ("--out /dev/full")."""
    if out_dir.exists() and not out_dir.is_dir():
        raise ResultError(f"{given} is {file_kind(out_dir)}, not a folder: give the folder report.md and the "
                          "plots go into")


def make_output_folder(out_dir: Path, given: str) -> None:
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise ResultError(f"{given}: cannot create the folder: {error.strerror}") from None
    if not os.access(out_dir, os.W_OK | os.X_OK):
        raise ResultError(f"{given}: cannot write into this folder (permission denied)")


def report_target(directory: Path, out_dir: Path | None) -> tuple[Path, str]:
    """Where report.md goes, and how a message names it (the option and its value as given); refuses, before
    anything is read or written, a results folder that is not there, the repository's sample data without
    --out, and an output that is there but not a folder."""
    if not directory.is_dir():
        raise ResultError(f"{directory}: no such directory")
    if out_dir is None:
        if in_sample_data(directory):
            raise ResultError(f"{directory}: the repository's sample data, not a place to write a report into; "
                              "pass --out DIR")
        out_dir, given = directory, f"RESULTS_DIR {directory}"
    else:
        given = f"--out {out_dir}"
    check_output_folder(out_dir, given)
    return out_dir, given


def write_report(directory: Path, out_dir: Path | None, plots: bool) -> tuple[list[str], int]:
    out_dir, given = report_target(directory, out_dir)
    suite = load_suite(directory)
    make_output_folder(out_dir, given)
    baselines = Baselines(suite)
    rows, flagged = main_rows(suite, baselines)

    lines = header(suite)
    lines += ["", "## The workload, every way", ""]
    lines += md_table(["stage", "variant", "median ms", "speed-up vs serial", "% of pipeline bound", "verified"],
                      rows, {2, 3, 4})
    lines += ["", "speed-up vs serial = the pageable serial time / the row's median, for rows that do the whole "
              "workload; within the same run where the stage times its own serial baseline (03), else vs "
              f"{BASELINE_FILE}. % of pipeline bound = the row's own bound / its median: 100% is as fast as the "
              "busiest resource allows (each resource's work alone, issued as that row's variant issues it, plus "
              "one batch of fill and drain); above 100% by more than the noise would be a bug in the bound. "
              "Given only where the bound was measured with the row's kind of host memory; none for a serial "
              "run, which overlaps nothing (its bound is the stages' sum, printed by stage 01)."]
    if flagged:
        cross = [f"serial {format_ms(baselines.cross_serial[1])} ms from {baselines.cross_serial[0].path.name}"
                 if baselines.cross_serial else ""]
        cross += [f"the {kernel} pipeline bound {format_ms(bound)} ms from {run.path.name}"
                  for kernel, (run, bound) in baselines.cross_bounds.items()]
        lines += ["", f"{CROSS_RUN} across runs ({'; '.join(c for c in cross if c)}): for orientation only; "
                  "quote the ratios each stage measures within one process (below)."]
    verify, failed = verification_lines(suite)
    lines += ["", "## Verification", "", *verify]
    lines += regime_section(suite)
    lines += copy_section(suite) + sweep_section(suite) + graph_section(suite) + regime_map_section(suite)
    lines += after_article_section(suite)
    lines += bounds_section(suite)

    status = EXIT_UNVERIFIED if failed else EXIT_OK
    plotted = 0
    plots_note = ""
    if plots:
        try:
            import report_plots  # matplotlib is only needed here
        except ImportError as error:
            # Said once on the terminal, with what to do; report.md and the summary say only that plots are missing.
            print(f"report.py: warning: no plots: {error}; to get matplotlib: {install_hint()}", file=sys.stderr)
            lines += ["", "## Plots", "", f"_None: matplotlib is not installed ({install_hint()})._"]
            plots_note = " without plots: matplotlib is not installed (see the warning above)"
            status = status or EXIT_NO_PLOTS
        else:
            try:
                drawn = report_plots.draw_all(suite, out_dir)
                drawn += after_article_plots(report_plots, suite, out_dir)
            except OSError as error:
                raise ResultError(f"{given}: cannot write a plot into it: {error.strerror}") from None
            plotted = sum(plot is not None for _, plot, _ in drawn)
            lines += plot_lines(drawn)
    lines += appendix(suite)

    target = out_dir / "report.md"
    temporary = out_dir / ".report.md.tmp"
    try:
        temporary.write_text("\n".join(lines) + "\n", encoding="utf-8")
        temporary.replace(target)  # whole or not at all
    except OSError as error:
        temporary.unlink(missing_ok=True)
        raise ResultError(f"{given}: cannot write report.md into it: {error.strerror}") from None

    summary = describe_devices(suite.results)
    if len(summary) > 1:
        summary = [f"devices: {plural(len(summary), 'result')} on different devices or drivers (listed in "
                   "report.md)"]
    summary.append(f"runs: {plural(len(suite.results), 'result')}, {plural(len(suite.traces), 'timeline')}; "
                   f"measured (UTC): {measured_dates(suite.results)}")
    problems = len(failed_verifications(suite.results)) + sum(l.startswith("OUTPUTS DIFFER")
                                                                for l in digest_lines(suite.results)[0])
    summary.append("verified: every variant that has an output to check" if not failed else
                   f"verified: NO, {plural(problems, 'problem')}: see Verification in {target}")
    summary.append(f"wrote {target}" + (f" and {plural(plotted, 'plot')}" if plotted else plots_note))
    return summary, status


# --- --table: one row per measurement -------------------------------------------------

TABLE_HEADERS = ["stage", "variant", "params", "median ms", "speed-up vs 01 *", "verified"]
TABLE_RIGHT = {3, 4}
BASELINE_MEASUREMENT = "serial"
# Stage 02 writes one "copy" measurement per size, kind and direction; the
# table keeps the largest size of each (kind, direction) and the other
# experiments, and prints the peak bandwidths from its bounds.
STAGE02_PEAKS = (("pinned H2D", "pinned_h2d_peak_gbps"), ("pinned D2H", "pinned_d2h_peak_gbps"),
                 ("pinned both ways", "bidirectional_peak_gbps"), ("pageable H2D", "pageable_h2d_peak_gbps"),
                 ("pageable D2H", "pageable_d2h_peak_gbps"))
REGIME_HEADERS = ["kernel", "kernel GFLOP/s", "pool ms", "engine streams ms", "bound ms", "limited by",
                  "pool % of bound", "engines % of bound", "04 replay ms"]


def find_baseline(results: list[Result]) -> Result | None:
    """The pageable 01 run; the file 01_serial_baseline.json if there are several."""
    candidates = [
        r for r in results
        if r.stage == BASELINE_STAGE and r.config.get("host_memory") == "pageable"
        and any(m["name"] == BASELINE_MEASUREMENT for m in r.measurements)
    ]
    candidates.sort(key=lambda r: r.path.name != BASELINE_FILE)
    return candidates[0] if candidates else None


def shown_measurements(result: Result) -> list[dict[str, Any]]:
    if result.stage != COPY_STAGE:
        return result.measurements
    largest: dict[tuple[Any, Any, Any], float] = {}
    for m in result.measurements:
        params = params_of(m)
        if m["name"] in ("copy", "host_memcpy") and is_number(params.get("bytes")):
            key = (m["name"], params.get("host_memory"), params.get("direction"))
            largest[key] = max(largest.get(key, 0), params["bytes"])
    shown = []
    for m in result.measurements:
        params = params_of(m)
        if m["name"] in ("copy", "host_memcpy") and is_number(params.get("bytes")):
            if params["bytes"] != largest[(m["name"], params.get("host_memory"), params.get("direction"))]:
                continue
        shown.append(m)
    return shown


def table_rows(results: list[Result], baseline: Result | None) -> list[list[str]]:
    baseline_ms = None
    if baseline is not None:
        baseline_ms = next(m["median_ms"] for m in baseline.measurements if m["name"] == BASELINE_MEASUREMENT)
    rows = []
    for result in results:
        for m in shown_measurements(result):
            median = m["median_ms"]
            # Only rows that run the stage's whole GEMM workload compare with
            # the baseline: not a sum of one resource, a cost, or 04's tiny kernels.
            comparable = baseline is not None and m["name"] in WHOLE_WORKLOAD and same_workload(result, baseline)
            speedup = f"{baseline_ms / median:.2f}x" if comparable and baseline_ms and median > 0 else "-"
            # "03_stream_pool_gemm kernels": the lesson's rows and each subcommand's apart.
            run = result.stage + (f" {result.subcommand}" if result.subcommand else "")
            rows.append([run, m["name"], format_params(m.get("params")), format_ms(median), speedup,
                         verified_text(m)])
    return rows


def stage02_peaks(results: list[Result]) -> list[str]:
    lines = []
    for r in results:
        if r.stage != COPY_STAGE:
            continue
        parts = [f"{label} {r.bounds[key]:.1f}" for label, key in STAGE02_PEAKS if is_number(r.bounds.get(key))]
        if parts:
            lines.append(f"{r.path.name}: peak GB/s over the sweep: " + ", ".join(parts))
        hidden = len(r.measurements) - len(shown_measurements(r))
        if hidden:
            lines.append(f"{r.path.name}: {hidden} smaller-size copy rows not shown (all are in the JSON)")
    return lines


def regime_rows(results: list[Result]) -> list[list[str]]:
    """One row per kernel from stage 03's pinned runs at the article's workload (one run per kernel,
    results_lib.regimes picks which), with stage 04's replay of the same kernel where there is one."""
    rows = []
    for r in regimes(results):
        rows.append([
            r.kernel,
            f"{r.kernel_gflops:.0f}",
            f"{r.pool_ms:.2f}",
            f"{r.engines_ms:.2f}" if r.engines_ms is not None else "-",
            f"{r.bound_ms:.2f}",
            r.limited_by,
            f"{r.pool_percent:.1f}",
            f"{r.engines_percent:.1f}" if r.engines_percent is not None else "-",
            f"{r.replay_ms:.2f}" if r.replay_ms is not None else "-",
        ])
    return rows


def regime_table_lines(results: list[Result], markdown: bool) -> list[str]:
    rows = regime_rows(results)
    if not rows:
        return []
    lines = ["", "Regimes: stage 03 with each kernel at the article's workload, pinned host memory"]
    if markdown:
        return lines + md_table(REGIME_HEADERS, rows, set(range(1, len(REGIME_HEADERS))))
    return lines + text_table(REGIME_HEADERS, rows, set(range(1, len(REGIME_HEADERS))) - {5}, rule=False)


def regime_map_table_lines(results: list[Result], markdown: bool) -> list[str]:
    lines = []
    for result in map_results(results):
        rm = regime_map_of(result)
        headers, rows = regime_map_grid(rm)
        lines += ["", f"Regime map ({result.path.name}): graph replay vs stream pool, GPU time; tie within "
                  f"±{percent(map_equal_within(rm))}"]
        right = set(range(1, len(headers)))
        lines += md_table(headers, rows, right) if markdown else text_table(headers, rows, right)
        lines += [f"  skipped: {s}" for s in regime_map_skipped(rm)]
        lines += [f"  {crossover_sentence(row)}" for row in map_rows(rm)]
    return lines


def table(directory: Path, markdown: bool) -> tuple[list[str], int]:
    if not directory.is_dir():
        raise ResultError(f"{directory}: no such directory")
    results = load_suite(directory).results
    bullet = "- " if markdown else ""
    lines = [f"{bullet}{line}" for line in describe_devices(results)]
    lines.append(f"{bullet}measured (UTC): {measured_dates(results)}")
    lines.append("")
    baseline = find_baseline(results)
    rows = table_rows(results, baseline)
    if rows:
        lines += (md_table if markdown else text_table)(TABLE_HEADERS, rows, TABLE_RIGHT)
    else:  # only a regime map here: its table below is all there is
        lines.append("no stage measurements here beyond the regime map")
    lines.append("")
    lines += stage02_peaks(results)
    lines += regime_table_lines(results, markdown)
    lines += regime_map_table_lines(results, markdown)
    lines.append("")
    if baseline is not None:
        lines += [f"* speed-up vs 01 = median of '{BASELINE_MEASUREMENT}' in {baseline.path.name} (pageable host "
                  "memory) / the row's median.",
                  "  A ratio across separate runs, for orientation only; each stage measures its own ratios in one "
                  "process.",
                  "  '-': a different workload (batches, m, n, k) than the baseline's, or a row that is not the "
                  "whole workload."]
    else:
        lines.append(f"* speed-up vs 01: '-' throughout, no pageable {BASELINE_STAGE} result ({BASELINE_FILE}) here.")
    digests, differ = digest_lines(results)
    lines += ["", "output digests:", *(f"  {line}" for line in digests)]
    failures = failed_verifications(results)
    unverified = sum(is_unverified(m) for r in results for m in r.measurements)
    lines += failures
    if unverified:
        lines.append(f"{plural(unverified, 'measurement')} not verified (verified is not true).")
    return lines, EXIT_UNVERIFIED if failures or differ else EXIT_OK


# --- --compare ------------------------------------------------------------------------

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


def compare(old_path: Path, new_path: Path) -> tuple[list[str], int]:
    old_results, new_results = load_results_from(old_path), load_results_from(new_path)
    # Folders are matched run by run (file names); single files by stage.
    by_file = old_path.is_dir() and new_path.is_dir()
    old, new = keyed(old_results, by_file), keyed(new_results, by_file)
    lines = []
    for label, results, path in (("OLD", old_results, old_path), ("NEW", new_results, new_path)):
        devices = sorted({describe_device(r.device) for r in results})
        lines.append(f"{label}: {path}: {'; '.join(devices)}; measured (UTC) {measured_dates(results)}")
    lines.append("")
    headers = ["run" if by_file else "stage", "variant", "params", "OLD ms", "NEW ms", "NEW/OLD", "speed-up",
               "outputs"]
    rows, differing, verdicts = [], [], []
    for key in [k for k in old if k in new]:
        (old_result, om), (new_result, nm) = old[key], new[key]
        o, n = om["median_ms"], nm["median_ms"]
        ratio = f"{n / o:.3f}" if o > 0 else "-"
        speedup = f"{o / n:.2f}x" if n > 0 else "-"
        config_differs = config_difference(old_result.config, new_result.config)
        verdict = digest_comparison(om.get("digest"), nm.get("digest"), config_differs)
        if verdict is not None:
            verdicts.append(verdict)
        if verdict == "DIFFERENT":
            differing.append(f"  {key[0]}  {key[1]}  {format_params(json.loads(key[2]))}: OLD {om['digest']}, "
                             f"NEW {nm['digest']}")
        rows.append([key[0], key[1], format_params(json.loads(key[2])), format_ms(o), format_ms(n), ratio, speedup,
                     verdict or "-"])
    if rows:
        lines += text_table(headers, rows, {3, 4, 5, 6})
        lines += ["", "NEW/OLD < 1: NEW is faster. speed-up = OLD / NEW. outputs: the rows' digests; equal; "
                  "DIFFERENT: other outputs from the same seed, m, n, k and batches; different-config: the runs' "
                  "seed or shape differ, so other outputs are expected; -: a run recorded no digest."]
    else:
        lines.append("no (run, variant, params) in common")
    if verdicts:
        counts = {v: verdicts.count(v) for v in dict.fromkeys(verdicts)}
        lines.append(f"digests compared in {plural(len(verdicts), 'row')}: " +
                     ", ".join(f"{count} {verdict}" for verdict, count in counts.items()))
    else:
        lines.append("digests: no row has an output digest in both runs")
    if differing:
        lines += ["", f"OUTPUTS DIFFER in {plural(len(differing), 'row')} with the same config seed, m, n, k and "
                  "batches in both runs:", *differing]
    for label, only in (("OLD", [k for k in old if k not in new]), ("NEW", [k for k in new if k not in old])):
        if only:
            lines += ["", f"only in {label} ({len(only)}):"]
            lines += [f"  {run}  {name}  {format_params(json.loads(params))}" for run, name, params in only]
    failures = [f"{label}: {line}" for label, results in (("OLD", old_results), ("NEW", new_results))
                for line in failed_verifications(results)]
    if failures:
        lines += ["", *failures]
    return lines, EXIT_UNVERIFIED if differing or failures else EXIT_OK


# --- the command line ---------------------------------------------------------------

USAGE = """report.py RESULTS_DIR [--out DIR] [--no-plots]
       report.py --table RESULTS_DIR [--markdown]
       report.py --compare OLD NEW"""

EPILOG = """modes:
  RESULTS_DIR        write report.md and the plots into --out (default: RESULTS_DIR;
                     the repository's sample data needs --out) and print a short summary
  --table DIR        print one row per measurement, the regime table, stage 02's peaks and
                     stage 04's regime map; writes nothing
  --compare OLD NEW  print both medians, NEW/OLD, the speed-up and whether the output
                     digests are equal, per variant of two results folders (or files);
                     writes nothing

exit status:
  0  ok, and everything verified
  1  something did not verify, the variants of a run computed different outputs, or
     (--compare) the same config gave different outputs in OLD and NEW
  2  bad input (no such folder, no result files, invalid JSON, wrong schema, a missing
     or malformed field: one line on stderr naming the file and the field), bad usage,
     or an output that cannot be written
  3  report.md written without plots: matplotlib is missing"""


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="report.py", usage=USAGE, add_help=False, epilog=EPILOG,
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                description="The report of the cuda-streams-graphs results: report.md and plots, "
                                            "the comparison table, or a comparison of two runs.")
    p.add_argument("results_dir", nargs="?", type=Path, metavar="RESULTS_DIR",
                   help="folder with the stages' --json files (and --trace timelines)")
    p.add_argument("--out", type=Path, metavar="DIR", help="where report.md and the plots go (default RESULTS_DIR)")
    p.add_argument("--no-plots", action="store_true", help="write report.md only")
    p.add_argument("--table", action="store_true", help="print the comparison table of RESULTS_DIR instead")
    p.add_argument("--markdown", action="store_true", help="with --table: as a markdown table")
    p.add_argument("--compare", nargs=2, type=Path, metavar=("OLD", "NEW"), help="compare two runs")
    p.add_argument("-h", "--help", action="store_true", help="show this help and exit")
    return p


def run(argv: list[str]) -> tuple[list[str], int]:
    """Parses `argv` and runs its mode: (what to print on stdout, exit status). Usage errors exit 2 here."""
    p = parser()
    args = p.parse_args(argv)
    if args.help:
        return p.format_help().rstrip("\n").splitlines(), EXIT_OK
    if args.compare:
        if args.results_dir or args.table or args.markdown or args.out or args.no_plots:
            p.error("--compare OLD NEW takes no RESULTS_DIR, --table, --markdown, --out or --no-plots")
        return compare(*args.compare)
    if args.results_dir is None:
        p.error("give RESULTS_DIR, --table RESULTS_DIR or --compare OLD NEW")
    if args.table:
        if args.out or args.no_plots:
            p.error("--table prints and writes nothing: no --out or --no-plots")
        return table(args.results_dir, args.markdown)
    if args.markdown:
        p.error("--markdown goes with --table")
    if not args.no_plots:
        report_target(args.results_dir, args.out)  # bad arguments are refused by this interpreter, not another
        rerun_with_matplotlib(argv)
    return write_report(args.results_dir, args.out, plots=not args.no_plots)


def stdout_to_devnull() -> None:
    """Nothing more reaches stdout: the interpreter's last flush at exit then has nowhere to fail."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


def main(argv: list[str]) -> int:
    status = EXIT_USAGE
    try:
        try:
            lines, status = run(argv)
        except ResultError as error:
            print(f"report.py: error: {error}", file=sys.stderr)
            return EXIT_USAGE
        # Line by line, as any filter writes: a reader that goes away shows as an error on the next write
        # (one large write can end in a short write that nothing reports).
        for line in lines:
            sys.stdout.write(line + "\n")
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader went away (report.py ... | head -1). Everything was decided before printing, so the
        # status stands.
        stdout_to_devnull()
    except OSError as error:
        # Standard output that can't be written (a full disk, > /dev/full): what was to be printed is lost,
        # so the command failed; one line says why.
        stdout_to_devnull()
        print(f"report.py: error: cannot write to standard output: {error.strerror or error}", file=sys.stderr)
        return EXIT_USAGE
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
