"""The PNG plots of report.md, drawn with matplotlib from the result JSON.

Each plot function returns its figure and caption (what is drawn, from which
runs), or raises SkipPlot with the reason, which report.md shows instead.
Sized for slides: 16:9 at 150 dpi, fonts of 12 pt and more, units on every axis.
"""

from __future__ import annotations

import math
import multiprocessing
import os
from collections import namedtuple
from pathlib import Path
from typing import Any, Callable

import matplotlib

matplotlib.use("Agg")  # files only, no display needed (CI, GPU boxes over ssh)
import matplotlib.pyplot as plt  # noqa: E402  (after choosing the backend)
from matplotlib.colors import Normalize  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402
from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator  # noqa: E402

from .load import Result, Suite, Trace, params_of  # noqa: E402
from .render import (AFTER_TITLE, REGIME_TITLE, after_article, baseline, copy_run, copy_series,  # noqa: E402
                     figure_text, human_bytes, is_number, kernel_of, main_pool, map_cell, map_cell_text, plural,
                     regimes, sources, sweep_points, workload)

SLIDE = (10.0, 5.6)        # inches: 16:9, 1500x840 px at 150 dpi
SLIDE_WIDE = (13.3, 7.0)   # several panels side by side
DPI = 150
# One colour per host memory kind and per operation, the same in every plot.
KIND_COLOURS = {"pageable": "#d62728", "pinned": "#1f77b4", "registered": "#2ca02c", "write-combined": "#9467bd"}
# Pinned, registered and write-combined copies run at the same rate, so their lines lie on top of each other:
# markers and dash patterns keep each one visible.
KIND_STYLES = {"pageable": ("o", "-", 7), "pinned": ("o", "-", 9), "registered": ("s", "--", 7),
               "write-combined": ("^", ":", 7)}
OP_COLOURS = {"h2d": "#1f77b4", "kernel": "#ff7f0e", "d2h": "#2ca02c", "other": "#7f7f7f"}
OP_LABELS = {"h2d": "H2D copy", "kernel": "kernel", "d2h": "D2H copy", "other": "other"}
DIRECTION_TITLES = {"h2d": "H2D (host → device)", "d2h": "D2H (device → host)",
                    "bidirectional": "both directions at once"}
OLD_COLOUR, NEW_COLOUR = "#1f77b4", "#8c564b"  # streams or the old way: blue; the graph or the new way: brown


class SkipPlot(Exception):
    """This plot can't be drawn from these results; the message says why."""


Plot = namedtuple("Plot", "file title caption")


def device_line(result: Result) -> str:
    device = result.device
    runtime = device.get("runtime_version")
    version = f", CUDA runtime {int(runtime) // 1000}.{int(runtime) % 1000 // 10}" if is_number(runtime) else ""
    return str(device.get("name", "unknown device")) + version


def ms_label(ms: float) -> str:
    return f"{ms:.1f} ms" if ms >= 10 else f"{ms:.2f} ms" if ms >= 0.1 else f"{ms * 1000:.0f} µs"


def annotate_bars(ax: Any, xs: list[float], values: list[float], texts: list[str]) -> None:
    for x, value, text in zip(xs, values, texts):
        ax.annotate(text, (x, value), xytext=(0, 3), textcoords="offset points", ha="center", va="bottom", fontsize=11)


def bar_panel(ax: Any, bars: list[tuple[str, float]], colours: list[str], title: str, ylabel: str,
              texts: list[str] | None = None, headroom: float = 1.22) -> None:
    """A panel of (label, ms) bars, each with its time (or its text of `texts`)."""
    xs = list(range(len(bars)))
    ax.bar(xs, [b[1] for b in bars], color=colours, width=0.6)
    annotate_bars(ax, xs, [b[1] for b in bars], texts or [f"{b[1]:.2f} ms" for b in bars])
    ax.set_xticks(xs, [b[0] for b in bars])
    ax.set_ylim(0, max(b[1] for b in bars) * headroom)
    ax.grid(axis="x", visible=False)
    ax.set_title(title)
    ax.set_ylabel(ylabel)


# --- bandwidth vs transfer size ------------------------------------------------------------

def bandwidth(suite: Suite) -> tuple[Any, str]:
    result = copy_run(suite.results)
    series = {key: points for key, points in (copy_series(result) if result else {}).items() if len(points) >= 2}
    if not series:
        raise SkipPlot("no run here measured copies at two sizes or more (02's sweep writes them)")
    directions = sorted({d for _, d in series}, key=lambda d: list(DIRECTION_TITLES).index(d)
                        if d in DIRECTION_TITLES else len(DIRECTION_TITLES))
    fig, axes = plt.subplots(1, len(directions), figsize=SLIDE_WIDE if len(directions) > 1 else SLIDE, sharey=True,
                             squeeze=False)
    sizes = sorted({s for points in series.values() for s in points})
    top = max(v for points in series.values() for v in points.values())
    for ax, direction in zip(axes[0], directions):
        for (kind, d), points in series.items():
            if d == direction:
                marker, line, size = KIND_STYLES.get(kind, ("o", "-", 7))
                xs = sorted(points)
                ax.plot(xs, [points[x] for x in xs], marker=marker, linestyle=line, linewidth=2.4, markersize=size,
                        color=KIND_COLOURS.get(kind), label=kind)
        ax.set_xscale("log", base=2)
        step = max(1, math.ceil((len(sizes) - 1) / 4))
        ax.xaxis.set_major_locator(FixedLocator(sizes[::step] + ([sizes[-1]] if (len(sizes) - 1) % step else [])))
        ax.xaxis.set_minor_locator(NullLocator())
        ax.xaxis.set_major_formatter(FuncFormatter(lambda value, _pos: human_bytes(value)))
        ax.set_title(DIRECTION_TITLES.get(direction, direction))
        ax.set_xlabel("transfer size (log scale)")
        ax.set_ylim(0, top * 1.1)
    axes[0][0].set_ylabel("bandwidth (GB/s)")
    axes[0][0].legend(title="host memory", loc="upper left")
    fig.suptitle(f"Copy bandwidth vs transfer size — {device_line(result)}")
    return fig, ("One line per kind of host memory and direction ('both directions at once': the total of the two), "
                 f"from {result.path.name}.")


# --- the same work, stage by stage -------------------------------------------------------

def stage_bars(suite: Suite) -> tuple[Any, str]:
    """Serial on pageable memory, the pool on pageable, serial on pinned, the pool on pinned, the graph replay:
    each the first run (in the report's order) with that measurement, the article's kernel, one workload."""
    base = baseline(suite.results)
    naive = [r for r in suite.results if kernel_of(r) == "naive" and not r.section("regime_map")
             and (base is None or workload(r) == workload(base))]
    def pool_on(kind: str) -> Callable[[Result], dict[str, Any] | None]:
        return lambda r: m if (m := main_pool(r)) and params_of(m).get("host_memory") == kind \
            and params_of(m).get("order", "depth_first") == "depth_first" else None
    wanted = [("serial\npageable", lambda r: r.find("serial", host_memory="pageable")),
              ("stream pool\npageable", pool_on("pageable")),
              ("serial\npinned", lambda r: r.find("serial", host_memory="pinned")),
              ("stream pool\npinned", pool_on("pinned")), ("graph replay", lambda r: r.find("graph_replay"))]
    bars = []
    for label, find in wanted:
        found = next(((r, m) for r in naive if (m := find(r))), None)
        if found:
            bars.append((f"{found[0].stage[:2]} {label}", found[1]["median_ms"], found[0]))
    if len(bars) < 2:
        raise SkipPlot("fewer than two of: a serial run, a stream pool, a graph replay of the article's work here")
    fig, ax = plt.subplots(figsize=SLIDE)
    colours = [KIND_COLOURS["pinned"] if "pinned" in label else KIND_COLOURS["pageable"] if "pageable" in label
               else NEW_COLOUR for label, _, _ in bars]
    first = bars[0][1]
    bar_panel(ax, [bar[:2] for bar in bars], colours,
              f"The same GEMMs, stage by stage — {device_line(suite.results[0])}",
              f"time for all {plural(bars[0][2].config.get('batches'), 'batch')} (ms)",
              [ms_label(ms) + ("" if x == 0 else f"\n{ms / first:.2f}× the first") for x, (_, ms, _) in
               enumerate(bars)], headroom=1.3)
    if pinned := next((m for r in naive if (m := pool_on("pinned")(r)) and "bound" in m), None):
        bound = pinned["bound"]
        ax.axhline(bound["bound_ms"], color="black", linestyle="--", linewidth=1.5,
                   label=f"the pinned pool's bound {ms_label(bound['bound_ms'])} (limited by "
                         f"{bound.get('limited_by', '?')})")
        ax.legend(loc="upper right")
    ax.set_xlabel(f"separate runs; each against the first bar ({bars[0][0].replace(chr(10), ' ')})")
    return fig, ("Each bar is a separate run (" + sources([b[2] for b in bars]) + "), so its ratio to the first is "
                 "for orientation; the ratios measured within one run are in the tables.")


# --- stream-count sweep --------------------------------------------------------------------

def sweep(suite: Suite) -> tuple[Any, str]:
    runs = [(r, points) for r in suite.results if len(points := sweep_points(r)) >= 2]
    if not runs:
        raise SkipPlot("no run here tried several pool sizes (03's lesson does, with --streams-sweep)")
    fig, axes = plt.subplots(1, len(runs), figsize=SLIDE_WIDE if len(runs) > 1 else SLIDE, squeeze=False)
    for ax, (result, points) in zip(axes[0], runs):
        kind = result.config.get("host_memory", "?")
        xs, ys = [params_of(m)["streams"] for m in points], [m["median_ms"] for m in points]
        colour = KIND_COLOURS.get(kind, OLD_COLOUR)
        ax.plot(xs, ys, marker="o", linewidth=2.2, markersize=7, color=colour, label=f"stream pool, {kind}")
        bounds = [(m.get("bound") or {}).get("bound_ms") for m in points]
        if all(is_number(b) for b in bounds):
            ax.plot(xs, bounds, color="black", linestyle="--", linewidth=1.5, label="each pool size's bound")
        top = max(ys + [b for b in bounds if is_number(b)])
        if serial := result.find("serial", host_memory=kind):
            top = max(top, serial["median_ms"])
            ax.axhline(serial["median_ms"], color=colour, linestyle=":", linewidth=1.8,
                       label=f"serial, {kind} (same run) {ms_label(serial['median_ms'])}")
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_locator(FixedLocator(xs))
        ax.xaxis.set_minor_locator(NullLocator())
        ax.xaxis.set_major_formatter(FuncFormatter(lambda value, _pos: f"{value:g}"))
        ax.set_xlabel("streams in the pool (log scale)")
        ax.set_ylabel("time for all batches (ms)")
        ax.set_ylim(0, top * 1.15)
        ax.legend(loc="lower left", fontsize=11)
        ax.set_title(f"{result.name}: {plural(result.config.get('batches'), 'batch')}", fontsize=13)
    fig.suptitle(f"Time vs number of streams — {device_line(runs[0][0])}")
    return fig, ("The pool's time at each size tried, with each size's own bound (dashed) and the run's serial "
                 "time (dotted), one panel per run: " + sources([r for r, _ in runs]) + ".")


# --- graph costs -------------------------------------------------------------------------------

def tiny_per_op(result: Result) -> list[tuple[str, dict[str, float]]]:
    """[(group, {"streams": µs per op, "graph": µs per op})] for the empty kernels and the tiny GEMMs."""
    groups = []
    for prefix, label, count_key in (("tiny_empty", "empty kernels", "kernels"), ("tiny_gemm", "GEMMs", "gemms")):
        values, counts = {}, []
        for way in ("streams", "graph"):
            m = result.find(f"{prefix}_{way}")
            count = params_of(m).get(count_key) if m else None
            if is_number(count) and count > 0:
                values[way], counts = m["median_ms"] * 1000.0 / count, [*counts, count]
        if values:
            groups.append((f"{plural(counts[0], 'op')}: {label}", values))
    return groups


def graph_costs(suite: Suite) -> tuple[Any, str]:
    naive = [r for r in suite.results if kernel_of(r) == "naive"]
    result = next((r for r in naive if r.find("capture")), None)
    if result is None:
        raise SkipPlot("no run here with the article's kernel timed a capture (04's lesson and costs do)")
    costs = [(label, m["median_ms"]) for name, label in (("capture", "capture"), ("instantiate", "instantiate"),
                                                         ("upload", "upload"), ("first_launch", "first\nlaunch"),
                                                         ("graph_replay", "replay")) if (m := result.find(name))]
    issuer = next((r for r in naive if r.find("issue_graph_cpu") and r.find("issue_streams_cpu")), None)
    issue = [(label, issuer.find(name)["median_ms"]) for name, label in
             (("issue_streams_cpu", "streams\n(3 calls per batch)"), ("issue_graph_cpu", "graph\n(1 launch)"))] \
        if issuer else []
    tiny_run = next((r for r in suite.results if tiny_per_op(r)), None)
    tiny = tiny_per_op(tiny_run) if tiny_run else []
    panels = [p for p in (costs, issue, tiny) if p]
    fig, axes = plt.subplots(1, len(panels), figsize=SLIDE_WIDE, squeeze=False,
                             gridspec_kw={"width_ratios": [len(p) + 1 for p in panels]})
    axes = list(axes[0])
    colours = ["#9467bd"] * (len(costs) - 1) + [NEW_COLOUR if costs[-1][0] == "replay" else "#9467bd"]
    bar_panel(axes.pop(0), costs, colours, "One-time costs vs one replay", "time (ms)")
    if issue:
        ax = axes.pop(0)
        bar_panel(ax, issue, [OLD_COLOUR, NEW_COLOUR], "CPU time to issue the work", "CPU time (ms)")
        if is_number(issuer.bounds.get("break_even_replays")):
            ax.text(0.5, 0.97, f"break-even after {issuer.bounds['break_even_replays']:.1f} replays",
                    transform=ax.transAxes, ha="center", va="top", fontsize=12)
    if tiny:
        ax = axes.pop(0)
        for offset, way, colour in ((-0.19, "streams", OLD_COLOUR), (0.19, "graph", NEW_COLOUR)):
            xs = [i + offset for i, (_, values) in enumerate(tiny) if way in values]
            ys = [values[way] for _, values in tiny if way in values]
            ax.bar(xs, ys, width=0.38, color=colour, label=way)
            annotate_bars(ax, xs, ys, [f"{y:.2f}" for y in ys])
        ax.set_xticks(range(len(tiny)), [label.replace(": ", "\n") for label, _ in tiny])
        ax.set_ylim(0, max(v for _, values in tiny for v in values.values()) * 1.22)
        ax.grid(axis="x", visible=False)
        ax.legend(loc="upper left")
        ax.set_title("Many tiny operations")
        ax.set_ylabel("time per operation (µs)")
    fig.suptitle(f"What a CUDA Graph costs and saves ({plural(result.config.get('batches'), 'batch')}) — "
                 f"{device_line(result)}")
    return fig, ("Capture, instantiate and upload are paid once per graph, a replay every time; the CPU's time to "
                 "issue the same work as stream calls and as one graph launch; many tiny operations on streams and "
                 "as a graph. From " + sources([r for r in (result, issuer, tiny_run) if r]) + ".")


# --- the regimes ---------------------------------------------------------------------------------

def regime_bars(suite: Suite) -> tuple[Any, str]:
    rows = regimes(suite.results)
    if not rows:
        raise SkipPlot("no run here measured the pool and one stream per engine with its kernel alone "
                       "(03's kernels runs do, one per kernel)")
    naive = next((r for r in rows if r.kernel == "naive"), None)
    fig, ax = plt.subplots(figsize=SLIDE)
    xs = list(range(len(rows)))
    # The pool's bound as a rate: the most its busiest resource allows (GFLOP/s x ms = the work).
    bounds = [(r.pool.get("gflops") or 0.0) * r.pool["median_ms"] / r.pool["bound"]["bound_ms"] for r in rows]
    for i, rate in enumerate(bounds):
        ax.hlines(rate, i + 0.05, i + 0.33, colors="black", linestyles="--", linewidth=1.8,
                  label="the pool's bound (busiest resource)" if i == 0 else None)
    for offset, label, values, base, colour, tops in (
            (-0.19, "the kernel alone (isolated kernel sum)", [r.run.bounds["kernel_gflops"] for r in rows],
             naive.run.bounds["kernel_gflops"] if naive else None, OP_COLOURS["kernel"], [0.0] * len(rows)),
            (0.19, "the stream pool, copies included", [r.pool.get("gflops") or 0.0 for r in rows],
             naive.pool.get("gflops") if naive else None, OLD_COLOUR, bounds)):
        ax.bar([x + offset for x in xs], values, width=0.38, color=colour, label=label)
        annotate_bars(ax, [x + offset for x in xs], [max(v, top) for v, top in zip(values, tops)],
                      [f"{v:,.0f}" + (f"\n{v / base:.1f}× naive" if base and r is not naive else "")
                       for r, v in zip(rows, values)])
    ax.set_yscale("log")
    ax.yaxis.set_major_formatter(FuncFormatter(lambda value, _pos: f"{value:,.0f}"))
    ax.set_ylabel("GFLOP/s (log scale)")
    ax.set_xticks(xs, [f"{r.kernel}\n{r.pool['bound'].get('regime', '')}" for r in rows])
    ax.set_xlabel("GEMM kernel, and the regime its run named")
    ax.grid(axis="x", visible=False)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=3, fontsize=11, frameon=False)
    top = max([r.run.bounds["kernel_gflops"] for r in rows] + [r.pool["gflops"] or 1.0 for r in rows])
    ax.set_ylim(top / 60, top * 3)
    ax.set_title(f"The kernel alone vs the whole pipeline ({plural(rows[0].run.config.get('batches'), 'batch')}) — "
                 f"{device_line(rows[0].run)}")
    return fig, ("Orange: how fast each GEMM kernel is on its own; blue: the same work end to end on the stream "
                 "pool, copies included; dashed: the pool's bound as a rate; each label with its ratio to the naive "
                 "kernel's. From " + sources([r.run for r in rows]) + ".")


# --- the regime map ----------------------------------------------------------------------------

def regime_map_heatmap(result: Result) -> tuple[Any, str]:
    """x: batch count, y: GEMM size; colour: graph time / pool time on a log scale centred on 1; each cell with
    the stage's own words; skipped cells grey and hatched."""
    rm = result.section("regime_map")
    measured = [c for c in rm["cells"] if c.get("skipped_reason") is None]
    reach = max([abs(math.log2(c["graph_ms"] / c["stream_ms"])) for c in measured] + [math.log2(1.25)])
    norm, cmap = Normalize(vmin=-reach, vmax=reach), plt.get_cmap("BrBG")
    fig, ax = plt.subplots(figsize=SLIDE)
    for row, m in enumerate(rm["sizes"]):
        for col, b in enumerate(rm["batches"]):
            cell = map_cell(rm, m, b)
            if cell is not None and cell.get("skipped_reason") is None:
                shade = norm(math.log2(cell["graph_ms"] / cell["stream_ms"]))
                ax.add_patch(Rectangle((col, row), 1, 1, facecolor=cmap(shade), edgecolor="white", linewidth=2))
                size, colour = 12, "white" if abs(shade - 0.5) > 0.32 else "black"
            else:
                ax.add_patch(Rectangle((col, row), 1, 1, facecolor="#d9d9d9", edgecolor="#8c8c8c", hatch="//"))
                size, colour = 11, "#444444"
            ax.text(col + 0.5, row + 0.5, map_cell_text(cell).replace(" ", "\n", 1), ha="center", va="center",
                    fontsize=size, color=colour)
    ax.set_xlim(0, len(rm["batches"]))
    ax.set_ylim(0, len(rm["sizes"]))
    ax.set_xticks([i + 0.5 for i in range(len(rm["batches"]))], [str(b) for b in rm["batches"]])
    ax.set_yticks([i + 0.5 for i in range(len(rm["sizes"]))], [f"{m}³" for m in rm["sizes"]])
    ax.set_xlabel("batches (GEMMs in one run)")
    ax.set_ylabel("GEMM size (m = n = k)")
    ax.grid(False)
    bar = fig.colorbar(plt.cm.ScalarMappable(norm=norm, cmap=cmap), ax=ax, pad=0.02)
    ticks = [t for t in (0.5, 0.67, 0.8, 0.9, 1.0, 1.1, 1.25, 1.5, 2.0) if abs(math.log2(t)) <= reach + 1e-9]
    bar.set_ticks([math.log2(t) for t in ticks], labels=[f"{t:g}×" for t in ticks])
    bar.set_label("graph time / stream-pool time (GPU, log scale)")
    ax.set_title(f"Graph replay vs stream pool ({plural(rm.get('streams', '?'), 'stream')}), GPU time — "
                 f"{device_line(result)}")
    return fig, ("Each cell: a GEMM size (row) at a batch count (column), in the stage's words; brown where one graph "
                 "replay took less GPU time than the stream pool, blue-green where it took more; grey hatched: "
                 "skipped (reasons in the regime map's section).")


# --- timelines ------------------------------------------------------------------------------------

ZOOM_OPS = 30  # a run of more operations than this gets a second panel: its start, close up


def op_kind(event: dict[str, Any]) -> str:
    if event.get("cat") in OP_COLOURS:
        return event["cat"]
    name = str(event.get("name", "")).lower()
    return "h2d" if "h2d" in name or "htod" in name else "d2h" if "d2h" in name or "dtoh" in name else \
        "kernel" if name else "other"


def gantt(trace: Trace, result: Result | None) -> tuple[Any, str, tuple[float, ...]]:
    """`result`: the run that wrote the trace, if it is here: its device and its overlap figures."""
    events = trace.doc["traceEvents"]
    names = {e["tid"]: str(e.get("args", {}).get("name", e["tid"])) for e in events
             if e.get("ph") == "M" and e.get("name") == "thread_name" and isinstance(e.get("tid"), int)}
    ops = sorted((e for e in events if e.get("ph") == "X"), key=lambda e: e["ts"])
    if not ops:
        raise SkipPlot(f"{trace.path.name} holds no operations")
    origin = ops[0]["ts"]
    rows = sorted({e.get("tid", 0) for e in ops} | set(names))
    spans: dict[str, dict[int, list[tuple[float, float]]]] = {}
    for e in ops:
        spans.setdefault(op_kind(e), {}).setdefault(rows.index(e.get("tid", 0)), []).append(
            ((e["ts"] - origin) / 1000.0, max(e["dur"], 0.0) / 1000.0))
    end = max((e["ts"] - origin + e["dur"]) / 1000.0 for e in ops)
    zoom = max((e["ts"] - origin + e["dur"]) / 1000.0 for e in ops[:ZOOM_OPS]) if len(ops) > ZOOM_OPS else None
    overlap = ((result.section("timeline") or {}).get("overlap") or {}) if result else {}
    together = overlap.get("copy_and_compute")
    views = [(end, f"the whole run: {plural(len(ops), 'operation')}, {ms_label(end)}" +
              (f"; a copy beside a kernel {100 * together:.0f}% of the time" if is_number(together) else ""))]
    if zoom:
        views.append((zoom, f"close-up: the first {ZOOM_OPS} operations ({ms_label(zoom)})"))
    height = min(max(1.6, 0.5 + 0.38 * len(rows)), 4.2)
    fig, axes = plt.subplots(len(views), 1, figsize=(SLIDE[0], 1.6 + len(views) * height), squeeze=False)
    for ax, (limit, title) in zip(axes[:, 0], views):
        for kind in [k for k in OP_COLOURS if k in spans]:
            for index, (row, bars) in enumerate(spans[kind].items()):
                # Thin white edges separate neighbours in the close-up; in the whole run they would eat the bars.
                ax.broken_barh(bars, (row - 0.38, 0.76), facecolors=OP_COLOURS[kind], linewidth=0.6,
                               edgecolor="white" if limit is not end else "none",
                               label=OP_LABELS[kind] if index == 0 else None)
        ax.set_yticks(range(len(rows)), [names.get(tid, f"row {tid}") for tid in rows])
        ax.set_ylim(len(rows) - 0.5, -0.5)  # row 0 on top, as in the article's drawings
        ax.set_xlim(0, limit * 1.01)
        ax.set_xlabel("time since the first operation (ms)")
        ax.grid(axis="y", visible=False)
        ax.set_title(title, fontsize=13)
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=len(labels), frameon=False)
    process = next((str(e.get("args", {}).get("name")) for e in events if e.get("name") == "process_name"), trace.run)
    fig.suptitle(f"Timeline of {process}, one row per stream — "
                 f"{device_line(result) if result else 'GPU activity (CUPTI)'}")
    return fig, f"Each bar is one copy or kernel as the GPU ran it, one row per stream, from {trace.path.name}.", \
        (0, 0.05 if zoom else 0.1, 1, 1)


# --- after the article -----------------------------------------------------------------------------

def after_article_plot(suite: Suite) -> tuple[Any, str]:
    """A pair of bars per row of the table that compares two times, the old way above the new, on a log axis."""
    rows = [r for r in after_article(suite.results)[0] if r.unit in ("µs", "ms") and r.old > 0 and r.new > 0]
    if not rows:
        raise SkipPlot("no row of the after-the-article table compares two times above 0")
    fig, ax = plt.subplots(figsize=(SLIDE_WIDE[0], max(SLIDE[1], 1.6 + 0.75 * len(rows))))
    values = []
    for offset, side, colour, label in ((-0.19, "old", OLD_COLOUR, "the old way"), (0.19, "new", NEW_COLOUR,
                                                                                    "the new way")):
        us = [getattr(r, side) * (1000.0 if r.unit == "ms" else 1.0) for r in rows]
        values += us
        ax.barh([y + offset for y in range(len(rows))], us, height=0.38, color=colour, label=label)
        for y, r, value in zip(range(len(rows)), rows, us):
            way = r.old_way if side == "old" else f"{r.new_way}  ({r.new / r.old:.2f}× the old)"
            ax.annotate(f"{figure_text(value, 'µs')}  {way}", (value, y + offset), xytext=(4, 0),
                        textcoords="offset points", va="center", fontsize=10)
    ax.set_xscale("log")
    ax.set_xlim(min(values) / 3, max(values) * 3)  # the labels run on past the bars: the saved picture fits them
    ax.set_yticks(range(len(rows)), [f"{r.feature}\n{r.figure}" for r in rows], fontsize=10)
    ax.invert_yaxis()  # the table's order, top to bottom
    ax.set_xlabel("time per operation (µs, log scale)")
    ax.grid(axis="y", visible=False)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.1), ncol=2, fontsize=11, frameon=False)
    fig.suptitle(f"{AFTER_TITLE} — {device_line(rows[0].run)}")
    return fig, ("Blue: the old way, brown: the new way, each row's time per operation (µs, log scale), with the "
                 "new way's over the old's; the table's rows that are no times are in the table only.")


# The plots of the whole suite: (title, file, function); a file left from an earlier report of this folder is
# removed where the plot is not drawn, as it would contradict the note.
SUITE_PLOTS: list[tuple[str, str, Callable[[Suite], tuple[Any, str]]]] = [
    ("Copy bandwidth vs transfer size", "bandwidth.png", bandwidth),
    ("The same work, stage by stage", "stages.png", stage_bars),
    ("Stream-count sweep", "sweep.png", sweep),
    ("Graph costs", "graph_costs.png", graph_costs),
    (REGIME_TITLE, "regimes.png", regime_bars),
    (AFTER_TITLE, "after_article.png", after_article_plot),
]


# The plots to draw, (title, file, draw, stale), for the processes that draw them (forked: they inherit it).
_JOBS: list[tuple[str, str, Callable[[], tuple[Any, ...]], bool]] = []


def _draw(index: int, out_dir: Path) -> tuple[str, Plot | None, str]:
    title, file, draw, stale = _JOBS[index]
    try:
        fig, caption, *rect = draw()
    except SkipPlot as reason:
        if stale:
            (out_dir / file).unlink(missing_ok=True)
        return title, None, str(reason)
    fig.tight_layout(rect=rect[0] if rect else (0, 0, 1, 1))
    fig.savefig(out_dir / file, dpi=DPI, bbox_inches="tight")
    plt.close(fig)
    return title, Plot(file, title, caption), ""


def draw_all(suite: Suite, out_dir: Path) -> list[tuple[str, Plot | None, str]]:
    """Every plot: (title, Plot or None, why not drawn). Never raises for missing data. The plots are drawn side
    by side, one process each up to the machine's cores (forked where the system can; one after another else)."""
    plt.rcParams.update({
        "font.size": 13, "axes.titlesize": 15, "axes.labelsize": 13, "xtick.labelsize": 12, "ytick.labelsize": 12,
        "legend.fontsize": 12, "figure.titlesize": 16, "axes.grid": True, "grid.alpha": 0.3,
        "axes.spines.top": False, "axes.spines.right": False})
    jobs = [(title, file, lambda f=function: f(suite), True) for title, file, function in SUITE_PLOTS]
    jobs += [(f"Regime map ({r.name})", f"regime_map_{r.name}.png", lambda r=r: regime_map_heatmap(r), False)
             for r in suite.results if r.section("regime_map")]
    jobs += [(f"Timeline: {t.run}", f"timeline_{t.run}.png",
              lambda t=t: gantt(t, next((r for r in suite.results if r.name == t.run), None)), False)
             for t in suite.traces]
    _JOBS[:] = jobs
    processes = min(len(jobs), os.cpu_count() or 1)
    if processes > 1 and "fork" in multiprocessing.get_all_start_methods():
        with multiprocessing.get_context("fork").Pool(processes) as pool:
            drawn = pool.starmap(_draw, [(i, out_dir) for i in range(len(jobs))])
    else:
        drawn = [_draw(i, out_dir) for i in range(len(jobs))]
    _JOBS.clear()
    if not suite.traces:
        drawn.append(("Timelines", None, "no *.trace.json files (the timeline subcommands write them with --trace)"))
    return drawn
