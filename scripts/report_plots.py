"""The PNG plots of scripts/report.py, drawn with matplotlib from the result JSON.

Each plot function takes the loaded Suite and the folder to write into, and
returns a Plot (file name, title, caption), or raises SkipPlot with the reason
(a stage that did not run, a feature it does not have yet); the report notes
that reason instead of the picture. Plots are keyed on measurement params
(host_memory, direction, bytes, streams, sweep) rather than on exact variant
names wherever the stages allow it.

A caption, and any verdict drawn on a plot, comes from results_lib's
interpretation functions applied to the plotted figures, with their
thresholds: it says what the figures show, including when the article's
claim does not hold on this GPU.

Sized for slides: 16:9 figures at 150 dpi, fonts of 12 pt and more, units on
every axis.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import matplotlib

matplotlib.use("Agg")  # files only, no display needed (CI, GPU boxes over ssh)
import matplotlib.pyplot as plt  # noqa: E402  (after choosing the backend)
from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator  # noqa: E402

from results_lib import (speed_label, BOUND_RUNS, COPY_SWEEP_RUNS, GRAPH_COST_RUNS, POOL_BAR_RUNS,  # noqa: E402
                         POOL_SWEEP_RUNS, REPLAY_BAR_RUNS, SERIAL_RUNS, STAGE01, STAGE02, STAGE03, STAGE04, Result,
                         StageFigures, Suite, Trace, bound_verdict, copy_findings, find_in, find_measurement,
                         findings_sentence, gain_sentence, graph_findings, human_bytes, is_measured, is_number,
                         kernel_of, map_cell, map_cell_text, map_equal_within, map_findings, map_ratio, map_results,
                         map_rows, map_skip_kind, missing_kernels, overlap_fraction, overlap_sentence, overlap_short,
                         params_of, percent, plateau_of_rates_sentence, plural, regime_map_of, regimes, run_name,
                         runs_of, size_label, stages_sentences, sweep_plateau, sweep_sentence)

SLIDE = (10.0, 5.6)        # inches: 16:9, 1500x840 px at 150 dpi
SLIDE_WIDE = (13.3, 7.0)   # several panels side by side
DPI = 150

# One colour per host memory kind and per operation, the same in every plot.
KIND_COLOURS = {"pageable": "#d62728", "pinned": "#1f77b4", "registered": "#2ca02c", "write-combined": "#9467bd",
                "write_combined": "#9467bd"}
OP_COLOURS = {"h2d": "#1f77b4", "kernel": "#ff7f0e", "d2h": "#2ca02c", "other": "#7f7f7f"}
OP_LABELS = {"h2d": "H2D copy", "kernel": "kernel", "d2h": "D2H copy", "other": "other"}
DIRECTION_TITLES = {"h2d": "H2D (host → device)", "d2h": "D2H (device → host)",
                    "bidirectional": "both directions at once"}
# Lines of different runs in one plot (the stream-count sweep of several kernels).
RUN_COLOURS = ["#1f77b4", "#9467bd", "#2ca02c", "#d62728", "#8c564b"]
SWEEP_NAME = "copy"  # stage 02's bandwidth sweep; other measurements may carry the same params
KIND_ORDER = ["pageable", "pinned", "registered", "write-combined", "write_combined"]
# Pinned, registered and write-combined copies run at the same rate (all are
# page-locked: the DMA engine reads them directly), so their lines lie on top
# of each other; markers and dash patterns keep each one visible.
KIND_STYLES = {"pageable": ("o", "-", 7), "pinned": ("o", "-", 9), "registered": ("s", "--", 7),
               "write-combined": ("^", ":", 7), "write_combined": ("^", ":", 7)}


class SkipPlot(Exception):
    """This plot can't be drawn from these results; the message says why."""


@dataclass
class Plot:
    file: str
    title: str
    look_for: str  # the caption: what the plotted figures show, derived from them


def style() -> None:
    plt.rcParams.update({
        "font.size": 13, "axes.titlesize": 15, "axes.labelsize": 13, "xtick.labelsize": 12,
        "ytick.labelsize": 12, "legend.fontsize": 12, "figure.titlesize": 16, "axes.grid": True,
        "grid.alpha": 0.3, "axes.spines.top": False, "axes.spines.right": False,
    })


def save(fig: Any, out_dir: Path, name: str) -> None:
    fig.savefig(out_dir / name, dpi=DPI, bbox_inches="tight")
    plt.close(fig)


def device_line(results: list[Result]) -> str:
    if not results:
        return ""
    device = results[0].doc["device"]
    name = device.get("name", "unknown device")
    return f"{name}" + (f", CUDA {device_version(device)}" if device_version(device) else "")


def device_version(device: dict[str, Any]) -> str:
    runtime = device.get("runtime_version")
    if is_number(runtime) and runtime > 0:
        return f"runtime {int(runtime) // 1000}.{int(runtime) % 1000 // 10}"
    return ""


def ms_label(ms: float) -> str:
    return f"{ms:.1f} ms" if ms >= 10 else f"{ms:.2f} ms" if ms >= 0.1 else f"{ms * 1000:.0f} µs"


def verdict_box(ax: Any, text: str, y: float = 0.86) -> None:
    """A verdict on the plot itself, on the right under the legend, where the bars leave room."""
    ax.text(0.99, y, text, transform=ax.transAxes, ha="right", va="top", fontsize=11,
            bbox={"facecolor": "white", "edgecolor": "#cccccc", "alpha": 0.9})


# --- bandwidth vs transfer size (02) --------------------------------------------

def bandwidth(suite: Suite, out_dir: Path) -> Plot:
    # Every measurement that says how many bytes went which way from which
    # kind of host memory, and at what rate: stage 02's copy sweep.
    series: dict[tuple[str, str], dict[float, float]] = {}
    sources = []
    for result in copy_sweep_runs(suite.results):
        for m in result.measurements:
            p = params_of(m)
            if not (isinstance(p.get("host_memory"), str) and isinstance(p.get("direction"), str)
                    and is_number(p.get("bytes")) and is_number(m.get("gbps"))):
                continue
            if m["name"] != SWEEP_NAME and any(x["name"] == SWEEP_NAME for x in result.measurements):
                continue  # e.g. 02's overlap_copy_alone: the same params, but not a point of the sweep
            series.setdefault((p["host_memory"], p["direction"]), {})[float(p["bytes"])] = m["gbps"]
            if result not in sources:
                sources.append(result)
    # A line needs two sizes at least.
    series = {key: points for key, points in series.items() if len(points) >= 2}
    if not series:
        raise SkipPlot("no bandwidth sweep (measurements with params host_memory, direction, bytes and gbps): "
                       f"{STAGE02} sweep did not run")
    directions = [d for d in DIRECTION_TITLES if any(key[1] == d for key in series)]
    directions += sorted({key[1] for key in series} - set(directions))
    kinds = [k for k in KIND_ORDER if any(key[0] == k for key in series)]
    kinds += sorted({key[0] for key in series} - set(kinds))

    fig, axes = plt.subplots(1, len(directions), figsize=SLIDE_WIDE if len(directions) > 1 else SLIDE,
                             sharey=True, squeeze=False)
    sizes = sorted({size for points in series.values() for size in points})
    top = max(rate for points in series.values() for rate in points.values())
    for ax, direction in zip(axes[0], directions):
        for kind in kinds:
            points = series.get((kind, direction))
            if not points:
                continue
            xs = sorted(points)
            marker, line, size = KIND_STYLES.get(kind, ("o", "-", 7))
            ax.plot(xs, [points[x] for x in xs], marker=marker, linestyle=line, linewidth=2.4, markersize=size,
                    color=KIND_COLOURS.get(kind), label=kind)
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_locator(FixedLocator(thin_ticks(sizes, 5)))
        ax.xaxis.set_minor_locator(NullLocator())
        ax.xaxis.set_major_formatter(FuncFormatter(lambda value, _pos: human_bytes(value)))
        ax.set_title(DIRECTION_TITLES.get(direction, direction))
        ax.set_xlabel("transfer size (log scale)")
        ax.set_ylim(0, top * 1.1)
    axes[0][0].set_ylabel("bandwidth (GB/s)")
    axes[0][0].legend(title="host memory", loc="upper left")
    largest = max(sizes)
    for ax, direction in zip(axes[0], directions):
        # The rates at the largest size, where the link is saturated: the
        # figures to quote, pinned against pageable. Placed between the two
        # lines at the right-hand end, where neither runs.
        at_largest = {kind: points[largest] for (kind, d), points in series.items()
                      if d == direction and largest in points}
        if len(at_largest) < 2:
            continue
        high = "pinned" if "pinned" in at_largest else max(at_largest, key=at_largest.get)
        low = "pageable" if "pageable" in at_largest else min(at_largest, key=at_largest.get)
        if high == low:
            continue
        text = f"at {human_bytes(largest)}:\n{high} {at_largest[high]:.1f} GB/s\n{low} {at_largest[low]:.1f} GB/s"
        ax.text(0.98, (at_largest[high] + at_largest[low]) / 2, text, transform=ax.get_yaxis_transform(),
                ha="right", va="center", fontsize=12,
                bbox={"facecolor": "white", "edgecolor": "#cccccc", "alpha": 0.9})
    fig.suptitle(f"Copy bandwidth vs transfer size — {device_line(sources)}")
    fig.tight_layout()
    save(fig, out_dir, "bandwidth.png")
    caption = "One line per kind of host memory and direction; 'both directions at once' is the total of the two."
    findings = findings_sentence(copy_findings(series))
    if findings:
        caption += " " + findings
    return Plot("bandwidth.png", "Copy bandwidth vs transfer size (02)", caption)


def copy_sweep_runs(results: list[Result]) -> list[Result]:
    """Stage 02's runs with the copy sweep: its `sweep` runs, else (none ran) its lesson's; the same choice as
    report.md's bandwidth table."""
    for subcommand in COPY_SWEEP_RUNS:
        runs = runs_of(results, STAGE02, [subcommand])
        if runs:
            return runs
    return []


def thin_ticks(values: list[float], most: int) -> list[float]:
    """At most `most` of the sorted `values`, evenly spread, always the first and the last."""
    if len(values) <= most:
        return values
    step = (len(values) - 1) / (most - 1)
    return [values[round(i * step)] for i in range(most)]


# --- the same work, stage by stage ------------------------------------------------

def is_main_pool(m: dict[str, Any]) -> bool:
    p = params_of(m)
    return m["name"] == "stream_pool" and p.get("sweep") is not True and p.get("order", "depth_first") == "depth_first"


def stage_bars(suite: Suite, out_dir: Path) -> Plot:
    # The story left to right: serial on pageable memory; streams alone
    # (pageable: no gain); pinned memory alone; pinned + streams; the same
    # work as a graph. Each bar from its own run, all with the article's kernel.
    ranked: list[tuple[int, str, float, str]] = []  # rank, label, ms, colour
    sources: list[Result] = []
    serial_source = runs_of(suite.results, STAGE01, SERIAL_RUNS, kernel="naive") or \
        runs_of(suite.results, STAGE03, POOL_BAR_RUNS, kernel="naive")
    for rank, kind in ((0, "pageable"), (2, "pinned")):
        found = find_in(serial_source, "serial", host_memory=kind)
        if found:
            result, m = found
            ranked.append((rank, f"{result.stage[:2]} serial\n{kind}", m["median_ms"], KIND_COLOURS[kind]))
            sources.append(result)
    pools = runs_of(suite.results, STAGE03, POOL_BAR_RUNS, kernel="naive")
    for rank, kind in ((1, "pageable"), (3, "pinned")):
        for result in pools:
            m = next((m for m in result.measurements if is_main_pool(m) and params_of(m).get("host_memory") == kind),
                     None)
            if m:
                streams = params_of(m).get("streams", "?")
                ranked.append((rank, f"03 stream pool\n{plural(streams, 'stream')}, {kind}", m["median_ms"],
                               KIND_COLOURS[kind]))
                sources.append(result)
                break
    found = find_in([r for r in runs_of(suite.results, STAGE04, REPLAY_BAR_RUNS, kernel="naive")
                     if regime_map_of(r) is None], "graph_replay")
    if found:
        graph, replay = found
        ranked.append((4, "04 graph replay\n" + str(graph.config.get("host_memory", "")), replay["median_ms"],
                       "#8c564b"))
        sources.append(graph)
    bars = [(label, ms, colour) for _, label, ms, colour in sorted(ranked)]
    figures = StageFigures(**{key: ms for rank, _, ms, _ in ranked for r, key in STAGE_RANKS if r == rank})
    if len(bars) < 2:
        raise SkipPlot("fewer than two of: 01 serial, 03 stream pool, 04 graph replay in these results")

    fig, ax = plt.subplots(figsize=SLIDE)
    xs = range(len(bars))
    ax.bar(xs, [b[1] for b in bars], color=[b[2] for b in bars], width=0.6)
    first = bars[0][1]
    for x, (_, ms, _) in zip(xs, bars):
        text = ms_label(ms) + ("" if x == 0 else f"\n{speed_label(first, ms)}")
        ax.annotate(text, (x, ms), xytext=(0, 4), textcoords="offset points", ha="center", va="bottom", fontsize=12)
    pool = next((r for r in runs_of(suite.results, STAGE03, BOUND_RUNS, kernel="naive")
                 if r.config.get("host_memory") == "pinned" and is_number(r.bounds.get("pipeline_bound_ms"))), None)
    bound = pool.bounds.get("pipeline_bound_ms") if pool else None
    if is_number(bound) and bound > 0:
        figures.bound = bound
        limited = pool.bounds.get("limited_by")
        ax.axhline(bound, color="black", linestyle="--", linewidth=1.5,
                   label=f"pipeline bound {ms_label(bound)}" + (f" (limited by {limited})" if limited else ""))
        ax.legend(loc="upper right")
        against = [(what, ms) for what, ms in (("stream pool", figures.pool_pinned), ("graph replay", figures.replay))
                   if ms]
        if against:
            verdict_box(ax, "\n".join(f"{what}: {ms / bound:.2f}× the bound, {BOUND_WORDS[bound_verdict(ms, bound)]}"
                                      for what, ms in against))
    ax.set_xticks(list(xs), [b[0] for b in bars])
    ax.set_xlabel(f"separate runs; each against the first bar ({bars[0][0].replace(chr(10), ' ')})")
    batches = batches_of(sources)
    ax.set_ylabel(f"time for all {plural(batches, 'batch')} (ms)" if batches else "time for all batches (ms)")
    ax.set_ylim(0, max(b[1] for b in bars) * 1.45)  # room above the bars for the verdict and the legend
    ax.grid(axis="x", visible=False)
    ax.set_title(f"The same GEMMs, stage by stage — {device_line(suite.results)}")
    fig.tight_layout()
    save(fig, out_dir, "stages.png")
    return Plot("stages.png", "The same work, stage by stage",
                "Each bar is a separate run, so these ratios are for orientation; the ratios measured within one "
                "run are in the tables. " + ". ".join(stages_sentences(figures)) + ".")


# The bars of stages.png by rank, and the StageFigures field each one fills.
STAGE_RANKS = ((0, "serial_pageable"), (1, "pool_pageable"), (2, "serial_pinned"), (3, "pool_pinned"),
               (4, "replay"))
# bound_verdict's words, short enough for the plot.
BOUND_WORDS = {"below": "BELOW it (beat it)", "at": "at it", "above": "above it"}


def batches_of(results: list[Result]) -> Any:
    """The batch count of the runs behind a plot, where they agree on one."""
    counts = {r.config.get("batches") for r in results}
    return counts.pop() if len(counts) == 1 else None


# --- stream-count sweep (03) --------------------------------------------------------

def sweep(suite: Suite, out_dir: Path) -> Plot:
    runs = []
    for result in runs_of(suite.results, STAGE03, POOL_SWEEP_RUNS):
        points = sorted((params_of(m)["streams"], m["median_ms"]) for m in result.measurements
                        if m["name"] == "stream_pool" and params_of(m).get("sweep") is True
                        and is_number(params_of(m).get("streams")))
        if len(points) >= 2:
            runs.append((result, points))
    if not runs:
        raise SkipPlot(f"no stream-count sweep: {STAGE03} (the lesson) did not run, or ran with --streams-sweep off")
    fig, ax = plt.subplots(figsize=SLIDE_WIDE if len(runs) > 1 else SLIDE)  # wide: room for the legend
    all_streams: set[int] = set()
    top = 0.0
    several = len(runs) > 1
    for index, (result, points) in enumerate(runs):
        kind = result.config.get("host_memory", "?")
        xs, ys = [p[0] for p in points], [p[1] for p in points]
        all_streams.update(xs)
        top = max(top, *ys)
        # Several runs (e.g. the naive kernel and cuBLAS): one colour per run for its line, its bound and
        # its serial time, so each bound sits with its own line.
        colour = RUN_COLOURS[index % len(RUN_COLOURS)] if several else KIND_COLOURS.get(kind)
        who = f"{kernel_of(result)}, {kind}" if several else kind
        if several and sum(f"{kernel_of(r)}, {r.config.get('host_memory', '?')}" == who for r, _ in runs) > 1:
            who += f" ({result.path.stem})"  # two runs of one kernel and memory kind: tell them apart by name
        ax.plot(xs, ys, marker="o", linewidth=2.2, markersize=7, color=colour, label=f"stream pool, {who}")
        plateau = sweep_plateau(points)
        if plateau is not None and plateau.kind != "still improving":
            # Where the time stops improving, marked on the line it belongs to.
            ax.annotate(f"stops improving: {plateau.streams}", (plateau.streams, plateau.ms), xytext=(8, 14),
                        textcoords="offset points", fontsize=11, color=colour,
                        arrowprops={"arrowstyle": "->", "color": colour})
        bound = result.bounds.get("pipeline_bound_ms")
        if is_number(bound):
            ax.axhline(bound, color=colour if several else "black", linestyle="--", linewidth=1.5,
                       label=f"pipeline bound {ms_label(bound)}")
        serial = find_measurement(result, "serial", host_memory=kind)
        if serial:
            top = max(top, serial["median_ms"])
            ax.axhline(serial["median_ms"], color=colour, linestyle=":", linewidth=1.8,
                       label=f"serial, {kind} (same run) {ms_label(serial['median_ms'])}")
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_locator(FixedLocator(sorted(all_streams)))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_major_formatter(FuncFormatter(lambda value, _pos: f"{value:g}"))
    ax.set_xlabel("streams in the pool (log scale)")
    ax.set_ylabel("time for all batches (ms)")
    ax.set_ylim(0, top * 1.15)
    if several:
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=11)  # too many lines for the free space
    else:
        ax.legend(loc="lower left")  # every time is well above 0: the bottom is free
    ax.set_title(f"Time vs number of streams — {device_line([r for r, _ in runs])}")
    fig.tight_layout()
    save(fig, out_dir, "sweep.png")
    captions = []
    for result, points in runs:
        bound = result.bounds.get("pipeline_bound_ms")
        text = sweep_sentence(points, bound if is_number(bound) and bound > 0 else None)
        captions.append(f"{result.path.stem}: {text}" if several else text)
    return Plot("sweep.png", "Stream-count sweep (03)", " ".join(captions))


# --- graph costs (04) ---------------------------------------------------------------

GRAPH_COSTS = [("capture", "capture"), ("instantiate", "instantiate"), ("upload", "upload"),
               ("first_launch", "first\nlaunch"), ("graph_replay", "replay")]


def graph_costs(suite: Suite, out_dir: Path) -> Plot:
    # The article's kernel: its costs run (or a combined result) for the one-time costs and the CPU issue
    # time, its tiny-work run for the many tiny operations. A regime map run has its own heatmap.
    runs = [r for r in runs_of(suite.results, STAGE04, GRAPH_COST_RUNS, kernel="naive") if regime_map_of(r) is None]
    if not runs:
        raise SkipPlot(f"no {STAGE04} costs or tiny-work run with the naive kernel (other than a regime map)")
    result = next((r for r in runs if find_measurement(r, "capture")), runs[0])
    costs = [(label, m["median_ms"]) for name, label in GRAPH_COSTS if (m := find_measurement(result, name))]
    issuer = next((r for r in runs if find_measurement(r, "issue_graph_cpu")), result)
    issue = [(label, m["median_ms"]) for name, label in (("issue_streams_cpu", "streams\n(3 calls per batch)"),
                                                          ("issue_graph_cpu", "graph\n(1 launch)"))
             if (m := find_measurement(issuer, name))]
    tiny = next((groups for r in runs if (groups := tiny_per_op(r))), [])
    panels = [p for p in (costs, issue, tiny) if p]
    widths = [len(costs) + 1, len(issue) + 1, 2 * len(tiny) + 1]
    widths = [w for w, p in zip(widths, (costs, issue, tiny)) if p]
    if not costs:
        raise SkipPlot(f"{STAGE04} has none of the measurements capture, instantiate, upload, first_launch, "
                       "graph_replay")
    fig, axes = plt.subplots(1, len(panels), figsize=SLIDE_WIDE, squeeze=False,
                             gridspec_kw={"width_ratios": widths})
    axes = list(axes[0])

    ax = axes.pop(0)
    colours = ["#9467bd"] * (len(costs) - 1) + ["#8c564b"] if costs[-1][0] == "replay" else ["#9467bd"] * len(costs)
    bar_panel(ax, costs, colours, "ms")
    ax.set_title("One-time costs vs one replay")
    ax.set_ylabel("time (ms)")

    if issue:
        ax = axes.pop(0)
        bar_panel(ax, issue, ["#1f77b4", "#8c564b"][:len(issue)], "ms")
        ax.set_title("CPU time to issue the work")
        ax.set_ylabel("CPU time (ms)")
        even = issuer.bounds.get("break_even_replays")
        if is_number(even):
            ax.text(0.5, 0.97, f"break-even after {even:.1f} replays", transform=ax.transAxes, ha="center",
                    va="top", fontsize=12)
    if tiny:
        ax = axes.pop(0)
        grouped_panel(ax, tiny, "µs")
        ax.set_title("Many tiny operations")
        ax.set_ylabel("time per operation (µs)")
    batches = result.config.get("batches")
    fig.suptitle(f"What a CUDA Graph costs and saves ({plural(batches, 'batch')}) — {device_line([result])}")
    fig.tight_layout()
    save(fig, out_dir, "graph_costs.png")
    caption = "Capture, instantiate and upload are paid once per graph, a replay every time. "
    return Plot("graph_costs.png", "Graph costs (04)", caption + findings_sentence(graph_findings(runs)))


WAY_COLOURS = {"streams": "#1f77b4", "graph": "#8c564b"}


def tiny_per_op(result: Result) -> list[tuple[str, dict[str, float]]]:
    """[(group label, {"streams": µs per op, "graph": µs per op})] for the empty kernels and the tiny GEMMs."""
    groups = []
    for prefix, label, count_key in (("tiny_empty", "empty kernels", "kernels"), ("tiny_gemm", "GEMMs", "gemms")):
        values = {}
        for way in WAY_COLOURS:
            m = find_measurement(result, f"{prefix}_{way}")
            count = params_of(m).get(count_key) if m else None
            if m and is_number(count) and count > 0:
                values[way] = m["median_ms"] * 1000.0 / count
                size = params_of(m).get("size")
                if is_number(size) and label == "GEMMs":
                    label = f"{size}³ GEMMs"
                if is_number(count):
                    group_count = int(count)
        if values:
            groups.append((plural(group_count, label[:-1], label), values))
    return groups


def grouped_panel(ax: Any, groups: list[tuple[str, dict[str, float]]], unit: str) -> None:
    width = 0.38
    top = 0.0
    for offset, way in zip((-width / 2, width / 2), WAY_COLOURS):
        xs = [i + offset for i, (_, values) in enumerate(groups) if way in values]
        ys = [values[way] for _, values in groups if way in values]
        ax.bar(xs, ys, width=width, color=WAY_COLOURS[way], label=way)
        for x, y in zip(xs, ys):
            ax.annotate(f"{y:.2f}", (x, y), xytext=(0, 3), textcoords="offset points", ha="center", va="bottom",
                        fontsize=12)
        top = max([top, *ys])
    ax.set_xticks(range(len(groups)), [label for label, _ in groups])
    ax.set_ylim(0, top * 1.22)
    ax.grid(axis="x", visible=False)
    ax.legend(loc="upper left")


def bar_panel(ax: Any, bars: list[tuple[str, float]], colours: list[str], unit: str) -> None:
    xs = list(range(len(bars)))
    ax.bar(xs, [b[1] for b in bars], color=colours, width=0.6)
    for x, (_, value) in zip(xs, bars):
        text = f"{value:.2f} {unit}" if value < 10 else f"{value:.1f} {unit}"
        ax.annotate(text, (x, value), xytext=(0, 3), textcoords="offset points", ha="center", va="bottom",
                    fontsize=12)
    ax.set_xticks(xs, [b[0] for b in bars])
    ax.set_ylim(0, max(b[1] for b in bars) * 1.22)
    ax.grid(axis="x", visible=False)


# --- the regimes -------------------------------------------------------------------

REGIME_COLOURS = {"kernel": OP_COLOURS["kernel"], "pipeline": "#1f77b4"}


def gflops_label(value: float) -> str:
    return f"{value / 1000:.1f} TFLOP/s" if value >= 1000 else f"{value:.0f} GFLOP/s"


def regime_bars(suite: Suite, out_dir: Path) -> Plot:
    rows = regimes(suite.results)
    if not rows:
        raise SkipPlot(f"no {STAGE03} kernels run at the article's workload with pinned host memory and the "
                       "kernel's GFLOP/s in its bounds (scripts/run_suite.sh runs one per kernel)")
    naive = next((r for r in rows if r.kernel == "naive"), None)
    fig, ax = plt.subplots(figsize=SLIDE)
    width = 0.38
    xs = list(range(len(rows)))
    series = (("kernel", "the kernel alone (isolated kernel sum)", [r.kernel_gflops for r in rows], -width / 2),
              ("pipeline", "the whole pipeline, copies included (best of pool and engine streams)",
               [r.pipeline_gflops for r in rows], width / 2))
    for key, label, values, offset in series:
        ax.bar([x + offset for x in xs], values, width=width, color=REGIME_COLOURS[key], label=label)
        base = (naive.kernel_gflops if key == "kernel" else naive.pipeline_gflops) if naive else None
        for x, row, value in zip(xs, rows, values):
            # Narrow enough for the bar: the number over its unit, then the ratio. Above the bar, and above
            # the bound's dash where the dash is higher (the pipeline bars of the PCIe-bound kernels).
            text = gflops_label(value).replace(" ", "\n")
            if base and row is not naive:
                text += f"\n{value / base:.1f}× naive"
            top = max(value, row.bound_gflops) if key == "pipeline" else value
            ax.annotate(text, (x + offset, top), xytext=(0, 3), textcoords="offset points", ha="center",
                        va="bottom", fontsize=11)
    # The pipeline bound as a rate: the most the pipeline can do with its busiest resource.
    for i, (x, row) in enumerate(zip(xs, rows)):
        ax.hlines(row.bound_gflops, x + width / 2 - width * 0.6, x + width / 2 + width * 0.6, colors="black",
                  linestyles="--", linewidth=1.8, label="pipeline bound (busiest resource)" if i == 0 else None)
    ax.set_yscale("log")
    every = [r.kernel_gflops for r in rows] + [r.pipeline_gflops for r in rows] + [r.bound_gflops for r in rows]
    ax.set_ylim(min(every) / 2.5, max(every) * 4)  # room below for the bars' feet, above for the labels
    ax.yaxis.set_major_formatter(FuncFormatter(lambda value, _pos: f"{value:,.0f}"))
    ax.set_ylabel("GFLOP/s (log scale)")
    ax.set_xticks(xs, [f"{r.kernel}\n{r.regime}" for r in rows])
    ax.set_xlabel("GEMM kernel, and which resource sets the pipeline bound")
    ax.grid(axis="x", visible=False)
    ax.legend(loc="upper left", fontsize=11)
    missing = missing_kernels(rows)
    if missing:
        ax.text(0.99, 0.02, "not run: " + ", ".join(missing), transform=ax.transAxes, ha="right", va="bottom",
                fontsize=11, color="#555555")
    batches = rows[0].run.config.get("batches")
    ax.set_title(f"The kernel alone vs the whole pipeline ({plural(batches, 'batch')}) — "
                 f"{device_line([rows[0].run])}")
    fig.tight_layout()
    save(fig, out_dir, "regimes.png")
    return Plot("regimes.png", REGIMES_TITLE, regimes_caption(rows))


REGIMES_TITLE = "Regimes: the kernel alone vs the whole pipeline"


def regimes_caption(rows: list[Any]) -> str:
    naive = next((r for r in rows if r.kernel == "naive"), None)
    by_regime = {regime: [r for r in rows if r.regime == regime] for regime in dict.fromkeys(r.regime for r in rows)}
    regimes_text = "; ".join(f"{', '.join(r.kernel for r in group)}: {regime}" for regime, group in by_regime.items())
    text = ("Orange: how fast each GEMM kernel is on its own; blue: the same work end to end, copies included; "
            f"dashed: the pipeline bound, set by the busiest resource ({regimes_text}).")
    for group in by_regime.values():
        if len(group) > 1:
            text += " " + plateau_of_rates_sentence([r.kernel for r in group], [r.pipeline_gflops for r in group],
                                                    [r.kernel_gflops for r in group]) + "."
    fastest = max(rows, key=lambda r: r.kernel_gflops)
    if naive and fastest is not naive:
        text += (f" The fastest kernel alone, {fastest.kernel}, is {fastest.kernel_gflops / naive.kernel_gflops:.1f}× "
                 "the naive one; end to end its pipeline is "
                 + gain_sentence(fastest.kernel_gflops / naive.kernel_gflops,
                                 fastest.pipeline_gflops / naive.pipeline_gflops) + ".")
    return text


# --- the regime map (04 --regime-map) --------------------------------------------------

SKIPPED_COLOUR = "#d9d9d9"
MAP_COLOURMAP = "BrBG"  # brown where the graph wins (ratio < 1), blue-green where the pool does
MAP_RATIO_TICKS = (0.5, 0.67, 0.8, 0.9, 1.0, 1.1, 1.25, 1.5, 2.0)


def regime_map_file(result: Result) -> str:
    return f"regime_map_{run_name(result)}.png"


def regime_map_heatmap(result: Result, out_dir: Path) -> Plot:
    """x: batch count, y: GEMM size; colour: graph time / stream time on a log scale centred on 1; skipped
    cells grey and hatched; a bar at the left edge of the cell where the graph first wins, row by row."""
    import math

    from matplotlib.colors import Normalize
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch, Rectangle

    rm = regime_map_of(result)
    if rm is None:
        raise SkipPlot(f"{result.path.name} has no regime_map")
    sizes, batches = rm["sizes"], rm["batches"]
    measured = [c for c in rm["cells"] if is_measured(c)]
    # Symmetric around a ratio of 1 in log2, at least ±25%, so a map of ties stays pale.
    reach = max([abs(math.log2(map_ratio(c))) for c in measured] + [math.log2(1.25)])
    norm = Normalize(vmin=-reach, vmax=reach)
    cmap = plt.get_cmap(MAP_COLOURMAP)

    fig, ax = plt.subplots(figsize=SLIDE)
    for row, m in enumerate(sizes):
        for col, b in enumerate(batches):
            cell = map_cell(rm, m, b)
            if is_measured(cell):
                shade = norm(math.log2(map_ratio(cell)))
                ax.add_patch(Rectangle((col, row), 1, 1, facecolor=cmap(shade), edgecolor="white", linewidth=2))
                dark = abs(shade - 0.5) > 0.32
                ax.text(col + 0.5, row + 0.5, map_cell_text(cell).replace(" ", "\n"), ha="center", va="center",
                        fontsize=12, color="white" if dark else "black")
            else:
                ax.add_patch(Rectangle((col, row), 1, 1, facecolor=SKIPPED_COLOUR, edgecolor="#8c8c8c", hatch="//",
                                       linewidth=1))
                why = f"skipped\n({map_skip_kind(cell)})" if cell is not None else "not in\nthe map"
                ax.text(col + 0.5, row + 0.5, why, ha="center", va="center", fontsize=11, color="#444444",
                        bbox={"facecolor": SKIPPED_COLOUR, "edgecolor": "none", "pad": 1})
    for row, crossing in enumerate(map_rows(rm)):
        if crossing.first_win is not None:
            col = batches.index(crossing.first_win)
            ax.plot([col, col], [row + 0.06, row + 0.94], color="black", linewidth=5, solid_capstyle="butt")
    ax.set_xlim(0, len(batches))
    ax.set_ylim(0, len(sizes))
    ax.set_xticks([i + 0.5 for i in range(len(batches))], [str(b) for b in batches])
    ax.set_yticks([i + 0.5 for i in range(len(sizes))], [size_label(m) for m in sizes])
    ax.set_xlabel("batches (GEMMs in one run)")
    ax.set_ylabel("GEMM size (m = n = k)")
    ax.grid(False)
    for spine in ax.spines.values():
        spine.set_visible(False)

    mappable = plt.cm.ScalarMappable(norm=norm, cmap=cmap)
    bar = fig.colorbar(mappable, ax=ax, pad=0.02)
    ticks = [t for t in MAP_RATIO_TICKS if abs(math.log2(t)) <= reach + 1e-9]
    bar.set_ticks([math.log2(t) for t in ticks], labels=[f"{t:g}×" for t in ticks])
    bar.set_label("graph time / stream-pool time (GPU, log scale)")
    ax.legend(handles=[Line2D([], [], color="black", linewidth=5, label="the graph wins first here (per size)"),
                       Patch(facecolor=SKIPPED_COLOUR, edgecolor="#8c8c8c", hatch="//", label="skipped (see report)")],
              loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=2, fontsize=11, frameon=False)
    streams = plural(rm["streams"], "stream") if is_number(rm.get("streams")) else "the pool"
    ax.set_title(f"Graph replay vs stream pool ({streams}), GPU time — {device_line([result])}")
    fig.tight_layout()
    name = regime_map_file(result)
    save(fig, out_dir, name)

    caption = (f"Each cell: a GEMM size (row) at a batch count (column); brown where one graph replay took less "
               f"GPU time than the stream pool, blue-green where it took more, pale within ±"
               f"{percent(map_equal_within(rm))} (a tie); grey hatched: skipped. "
               + findings_sentence(map_findings(rm)))
    crossings = [r for r in map_rows(rm) if r.first_win is not None]
    if crossings:
        caption += " The black bar marks, per size, the smallest batch count where the graph wins: " + ", ".join(
            f"{size_label(r.m)} at {r.first_win}" for r in crossings) + "."
    return Plot(name, f"Regime map ({run_name(result)})", caption)


# --- timelines ----------------------------------------------------------------------

ZOOM_OPS = 30  # a run of more operations than this gets a second panel: its start, close up


def gantt(trace: Trace, runs: list[Result], out_dir: Path) -> Plot:
    """`runs`: the result of the run that wrote the trace (same file stem), if any: its device names the GPU."""
    events = trace.doc["traceEvents"]
    names: dict[int, str] = {}
    for e in events:
        if e.get("ph") == "M" and e.get("name") == "thread_name" and isinstance(e.get("tid"), int):
            names[e["tid"]] = str(e.get("args", {}).get("name", e["tid"]))
    ops = sorted((e for e in events if e.get("ph") == "X"), key=lambda e: e["ts"])
    if not ops:
        raise SkipPlot(f"{trace.path.name} holds no operations")
    origin = ops[0]["ts"]
    rows = sorted({e.get("tid", 0) for e in ops} | set(names))
    row_index = {tid: i for i, tid in enumerate(rows)}
    by_kind: dict[str, dict[int, list[tuple[float, float]]]] = {}
    for e in ops:
        kind = e.get("cat") if e.get("cat") in OP_COLOURS else kind_from_name(str(e.get("name", "")))
        spans = by_kind.setdefault(kind, {}).setdefault(row_index[e.get("tid", 0)], [])
        spans.append(((e["ts"] - origin) / 1000.0, max(e["dur"], 0.0) / 1000.0))
    end = max((e["ts"] - origin + e["dur"]) / 1000.0 for e in ops)
    # With 100 batches the whole run is a barcode; the close-up of the first
    # operations shows the pattern (H K D in turn, or copies under kernels).
    zoom_end = max((e["ts"] - origin + e["dur"]) / 1000.0 for e in ops[:ZOOM_OPS]) if len(ops) > ZOOM_OPS else None

    panel_height = min(max(1.6, 0.5 + 0.38 * len(rows)), 4.2)
    panels = 2 if zoom_end else 1
    fig, axes = plt.subplots(panels, 1, figsize=(SLIDE[0], 1.6 + panels * panel_height), squeeze=False)
    overlapped, busy = overlap_fraction([(e["ts"], e["dur"]) for e in ops])
    verdict = overlap_sentence(overlapped, busy)
    views = [(axes[0][0], end, f"the whole run: {plural(len(ops), 'operation')}, {ms_label(end)}; "
                               f"{overlap_short(overlapped, busy)}")]
    if zoom_end:
        views.append((axes[1][0], zoom_end, f"close-up: the first {ZOOM_OPS} operations ({ms_label(zoom_end)})"))
    for ax, limit, title in views:
        for kind in [k for k in OP_COLOURS if k in by_kind]:
            first = True
            for row, spans in by_kind[kind].items():
                # Thin white edges separate neighbours in the close-up; in the
                # whole-run view they would eat the bars.
                ax.broken_barh(spans, (row - 0.38, 0.76), facecolors=OP_COLOURS[kind],
                               edgecolor="white" if limit is not end else "none", linewidth=0.6,
                               label=OP_LABELS[kind] if first else None)
                first = False
        ax.set_yticks(range(len(rows)), [names.get(tid, f"row {tid}") for tid in rows])
        ax.set_ylim(len(rows) - 0.5, -0.5)  # row 0 on top, as in the article's drawings
        ax.set_xlim(0, limit * 1.01)
        ax.set_xlabel("time since the first operation (ms)")
        ax.grid(axis="y", visible=False)
        ax.set_title(title, fontsize=13)
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=len(labels), frameon=False)
    fig.suptitle(f"Timeline of {trace.process_name()}, one row per stream — "
                 f"{device_line(runs) or 'GPU activity (CUPTI)'}")
    fig.tight_layout(rect=(0, 0.05 if panels == 2 else 0.1, 1, 1))
    name = f"timeline_{trace.run}.png"
    save(fig, out_dir, name)
    return Plot(name, f"Timeline: {trace.run}",
                "Each bar is one copy or kernel as the GPU ran it, one row per stream. " + verdict + ".")


def kind_from_name(name: str) -> str:
    lowered = name.lower()
    if "h2d" in lowered or "htod" in lowered:
        return "h2d"
    if "d2h" in lowered or "dtoh" in lowered:
        return "d2h"
    return "kernel" if lowered else "other"


SUITE_PLOTS: list[tuple[str, Callable[[Suite, Path], Plot], str]] = [
    ("Copy bandwidth vs transfer size (02)", bandwidth, "bandwidth.png"),
    ("The same work, stage by stage", stage_bars, "stages.png"),
    ("Stream-count sweep (03)", sweep, "sweep.png"),
    ("Graph costs (04)", graph_costs, "graph_costs.png"),
    (REGIMES_TITLE, regime_bars, "regimes.png"),
]


def draw_all(suite: Suite, out_dir: Path) -> list[tuple[str, Plot | None, str]]:
    """Every plot: (title, Plot or None, why skipped). Never raises for missing data."""
    style()
    drawn: list[tuple[str, Plot | None, str]] = []
    for title, function, file in SUITE_PLOTS:
        try:
            drawn.append((title, function(suite, out_dir), ""))
        except SkipPlot as reason:
            drawn.append((title, None, str(reason)))
            # A picture left over from an earlier report of this folder would contradict the note.
            (out_dir / file).unlink(missing_ok=True)
    for result in map_results(suite.results):
        title = f"Regime map: where the graph wins ({run_name(result)})"
        try:
            drawn.append((title, regime_map_heatmap(result, out_dir), ""))
        except SkipPlot as reason:
            drawn.append((title, None, str(reason)))
    for trace in suite.traces:
        runs = [r for r in suite.results if r.path.stem == trace.run]
        try:
            drawn.append((f"Timeline: {trace.run}", gantt(trace, runs, out_dir), ""))
        except SkipPlot as reason:
            drawn.append((f"Timeline: {trace.run}", None, str(reason)))
    if not suite.traces:
        drawn.append(("Timelines", None, "no *.trace.json files (the stages write them with --trace FILE)"))
    return drawn
