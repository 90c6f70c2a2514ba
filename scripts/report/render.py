"""report.md and the --table summary, from the loaded results.

Tables hold figures as the JSON gives them: medians, the % of its own bound
each measurement carries, ratios as plain numbers ("0.63×", † where the two
figures come from separate runs); nothing here compares a figure with a threshold.
"""

from __future__ import annotations

import json
import math
from collections import namedtuple
from typing import Any, Callable

from .load import Result, Suite, params_of

# The measurements that do a run's whole workload (every batch in, computed, out): the rows of the main table,
# with a speed-up over the serial time and their % of bound.
END_TO_END = ("serial", "stream_pool", "engine_streams", "graph_replay")
WORKLOAD = ("batches", "m", "n", "k")
CROSS_RUN = "†"
# Params that read as a count of their noun: {"streams": 8} -> "8 streams".
COUNTED = {"streams": "stream", "batches": "batch", "kernels": "kernel"}


# --- figures and words ----------------------------------------------------------------------

def is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def plural(count: Any, noun: str, many: str | None = None) -> str:
    """"1 batch", "2 batches", "1 copy", "3 copies"; `many` where the plural is irregular."""
    if many is None:
        many = noun[:-1] + "ies" if noun.endswith("y") and noun[-2:-1] not in "aeiou" else \
            noun + "es" if noun.endswith(("s", "x", "ch", "sh")) else noun + "s"
    text = str(int(count)) if is_number(count) and float(count).is_integer() else str(count)
    return f"{text} {noun if is_number(count) and count == 1 else many}"


def human_bytes(count: float) -> str:
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if count >= size:
            return f"{count / size:.0f} {unit}" if count % size == 0 else f"{count / size:.1f} {unit}"
    return f"{count:.0f} B"


def format_ms(ms: float) -> str:
    return f"{ms:.2f}" if ms >= 1.0 else f"{ms:.3g}"


def rate(value: Any, digits: int = 1) -> str:
    return f"{value:.{digits}f}" if is_number(value) else "-"


def percent(value: Any) -> str:
    return f"{value:.0f}%" if is_number(value) else "-"


def ratio(numerator: Any, denominator: Any, cross_run: bool = False) -> str:
    """numerator / denominator as "0.63×" ("-" without two figures above 0), † when they come from two runs."""
    if not (is_number(numerator) and is_number(denominator) and numerator > 0 and denominator > 0):
        return "-"
    return f"{numerator / denominator:.2f}×" + (f" {CROSS_RUN}" if cross_run else "")


def sources(results: list[Result]) -> str:
    return ", ".join(dict.fromkeys(r.path.name for r in results))


def format_value(value: Any) -> str:
    return json.dumps(value, separators=(",", ":")) if isinstance(value, (dict, list, bool)) else str(value)


def format_params(params: Any) -> str:
    return " ".join(f"{key}={format_value(value)}" for key, value in (params or {}).items()) or "-"


def variant_label(m: dict[str, Any]) -> str:
    """"stream_pool (8 streams, depth_first, pinned)": counts first, with their noun; then the rest in the stage's
    order, words bare, true flags by name."""
    parts = []
    for key, value in sorted(params_of(m).items(), key=lambda item: item[0] not in COUNTED):
        if key == "sweep" or value is False:
            continue
        if value is True:
            parts.append(key)
        elif key == "bytes" and is_number(value):
            parts.append(human_bytes(value))
        elif key in COUNTED and is_number(value):
            parts.append(plural(value, COUNTED[key], key))
        elif isinstance(value, str):
            parts.append(value)
        else:
            parts.append(f"{key}={format_value(value)}")
    return f"{m['name']} ({', '.join(parts)})" if parts else m["name"]


def verified_text(m: dict[str, Any]) -> str:
    value = m.get("verified")
    return "yes" if value is True else "n/a" if value is None else "NO"


def md_table(headers: list[str], rows: list[list[str]], right: set[int]) -> list[str]:
    def row(cells: list[str]) -> str:
        return "| " + " | ".join(str(c).replace("|", "\\|").replace("\n", " ") for c in cells) + " |"
    return [row(headers), "|" + "|".join("---:" if i in right else "---" for i in range(len(headers))) + "|",
            *map(row, rows)]


def text_table(headers: list[str], rows: list[list[str]], right: set[int]) -> list[str]:
    widths = [max(len(str(row[i])) for row in [headers, *rows]) for i in range(len(headers))]

    def line(cells: list[str]) -> str:
        return "  ".join(str(c).rjust(w) if i in right else str(c).ljust(w)
                         for i, (c, w) in enumerate(zip(cells, widths))).rstrip()
    return [line(headers), "  ".join("-" * w for w in widths), *map(line, rows)]


def cuda_version(version: Any) -> str:
    """cudaDriverGetVersion/cudaRuntimeGetVersion: 1000 * major + 10 * minor (13000 = 13.0)."""
    return f"{int(version) // 1000}.{int(version) % 1000 // 10}" if is_number(version) and version > 0 else str(version)


def describe_device(device: dict[str, Any]) -> str:
    parts = [str(device.get("name", "unknown device"))]
    if device.get("compute_capability") is not None:
        parts.append(f"compute capability {device['compute_capability']}")
    link, best = (" ".join(f"{prefix}{device[key + end]}" for key, prefix in (("pcie_gen", "Gen"), ("pcie_width", "x"))
                           if device.get(key + end) is not None) for end in ("", "_max"))
    if link:  # idle links train down, so the current generation can read below the maximum
        parts.append(f"PCIe {link}" + (f" (max {best})" if best and best != link else ""))
    parts.append(f"driver {device['driver']}" if device.get("driver") else "driver version not recorded")
    # cudaDriverGetVersion: the newest CUDA the installed driver supports, not the driver's own version.
    for key, label in (("driver_version", "CUDA driver API"), ("runtime_version", "CUDA runtime")):
        if device.get(key) is not None:
            parts.append(f"{label} {cuda_version(device[key])}")
    return ", ".join(parts)


def describe_devices(results: list[Result]) -> list[str]:
    """One line for the device every result ran on, else one line per file."""
    keys = ("name", "compute_capability", "pci_bus_id", "driver", "driver_version", "runtime_version")
    if len({json.dumps([r.device.get(k) for k in keys]) for r in results}) == 1:
        return [f"device: {describe_device(results[0].device)}"]
    return [f"{r.path.name}: {describe_device(r.device)}" for r in results]


def measured_dates(results: list[Result]) -> str:
    """From each result's measured_at; never guessed from file times."""
    stamps = sorted(r.measured_at for r in results if r.measured_at)
    missing = [r.path.name for r in results if not r.measured_at]
    if not stamps:
        return "date not recorded (no result has measured_at)"
    text = stamps[0] if stamps[0] == stamps[-1] else f"{stamps[0]} to {stamps[-1]}"
    return text + (f"; date not recorded in {', '.join(missing)}" if missing else "")


def kernel_of(result: Result) -> str:
    """"naive", "cublas+tf32": as the stages name the GEMM in bounds.kernel."""
    name = str(result.config.get("kernel") or "naive")
    return name + "+tf32" if result.config.get("tf32") is True else name


def workload(result: Result) -> tuple[Any, ...]:
    return tuple(result.config.get(key) for key in WORKLOAD)


# --- verification and output digests -----------------------------------------------------

def failed_verifications(results: list[Result]) -> list[str]:
    """One line per result whose verification or other checks failed, and per result with measurements or
    regime-map cells not verified (null: nothing to check)."""
    lines = []
    for r in results:
        if not r.doc["verification"]["passed"]:
            lines.append(f"VERIFICATION FAILED in {r.path.name}: "
                         f"{r.doc['verification'].get('failure', 'verification.passed is false')}")
        lines += [f"FAILED in {r.path.name}: {failure}" for failure in r.failures]
        cells = (r.section("regime_map") or {}).get("cells", [])
        bad = [variant_label(m) for m in r.measurements if m.get("verified") is False or "verified" not in m]
        bad += [f"regime map cell {c['m']}³ × {plural(c['batches'], 'batch')}" for c in cells
                if c.get("verified") is False]
        if bad:
            lines.append(f"not verified in {r.path.name}: " + "; ".join(bad))
    return lines


def digest_lines(results: list[Result]) -> tuple[list[str], bool]:
    """Whether the variants of each result that computed the same outputs (the same shape and count of GEMMs,
    or bytes) produced the same digest: (lines, whether any differ)."""
    lines, differ = [], False
    for r in results:
        groups: dict[tuple[Any, ...], dict[str, list[str]]] = {}
        for m in r.measurements:
            if isinstance(m.get("digest"), str):
                p = params_of(m)
                dims = (p["size"],) * 3 if is_number(p.get("size")) else tuple(p.get(k, r.config.get(k)) for k in "mnk")
                shape = (*dims, p.get("gemms", p.get("batches", r.config.get("batches"))), p.get("bytes"))
                groups.setdefault(shape, {}).setdefault(m["digest"], []).append(variant_label(m))
        for (m, n, k, count, size), digests in groups.items():
            what = ", ".join(part for part in (
                (f"{m}³" if m == n == k else f"{m}×{n}×{k}") if m is not None else "",
                plural(count, "batch") if count is not None else "",
                human_bytes(size) if is_number(size) else "") if part) or "the run's workload"
            where, total, first = f"{r.path.name} ({what})", sum(map(len, digests.values())), next(iter(digests))
            differ |= len(digests) > 1
            lines.append(f"OUTPUTS DIFFER in {where}: " + "; ".join(f"{d}: {', '.join(v)}" for d, v in digests.items())
                         if len(digests) > 1 else f"{where}: the {total} output digests agree ({first})" if total > 1
                         else f"{where}: one output digest ({first}), nothing to compare it with")
    if without := [r.path.name for r in results if not any(isinstance(m.get("digest"), str) for m in r.measurements)]:
        lines.append("no output digests in " + ", ".join(without))
    return lines, differ


# --- where each table finds its data: by what the results hold ---------------------------

def own_serial(result: Result) -> float | None:
    """The run's own serial time on pageable memory."""
    m = result.find("serial", host_memory="pageable")
    if m is None and result.config.get("host_memory") == "pageable":
        m = result.find("serial")
    return m["median_ms"] if m and m["median_ms"] > 0 else None


def baseline(results: list[Result]) -> Result | None:
    """The first run with its own pageable serial time and the article's kernel: the serial time of the rows
    whose run has none, across runs (†)."""
    return next((r for r in results if own_serial(r) and kernel_of(r) == "naive"), None)


def serial_for(result: Result, base: Result | None) -> tuple[float, bool] | None:
    """(the serial time a row of `result` is held against, whether it comes from another run)."""
    if own_serial(result):
        return own_serial(result), False
    if base is not None and workload(base) == workload(result):
        return own_serial(base), True
    return None


def main_pool(result: Result) -> dict[str, Any] | None:
    return next((m for m in result.measurements if m["name"] == "stream_pool" and not params_of(m).get("sweep")), None)


# One GEMM kernel's row: its run, the pool and one stream per engine (measurements with their bounds) from that
# run, and the graph replay of the same kernel and workload from another, (run, measurement), where there is one.
Regime = namedtuple("Regime", "kernel run pool engines replay")


def regimes(results: list[Result]) -> list[Regime]:
    """One row per kernel: the first run (in the report's order) that measured the pool and one stream per
    engine, each with its bound, and the kernel alone (bounds.kernel_gflops), at the workload of the first."""
    rows: dict[str, Regime] = {}
    for r in results:
        pool, engines = main_pool(r), r.find("engine_streams")
        if pool and engines and "bound" in pool and is_number(r.bounds.get("kernel_gflops")) and \
                (not rows or workload(r) == workload(next(iter(rows.values())).run)):
            replay = next(((o, m) for o in results for m in o.measurements if m["name"] == "graph_replay"
                           and kernel_of(o) == kernel_of(r) and workload(o) == workload(r)
                           and not o.section("regime_map")), None)
            rows.setdefault(kernel_of(r), Regime(kernel_of(r), r, pool, engines, replay))
    return list(rows.values())


def regime_table(rows: list[Regime], layout: Callable[..., list[str]]) -> list[str]:
    naive = next((r for r in rows if r.kernel == "naive"), None)
    table = []
    for r in rows:
        bound = r.pool["bound"]
        table.append([
            r.kernel, rate(r.run.bounds["kernel_gflops"], 0),
            ratio(r.run.bounds["kernel_gflops"], naive.run.bounds["kernel_gflops"]) if naive else "-",
            format_ms(r.pool["median_ms"]), rate(r.pool.get("gflops"), 0),
            ratio(naive.pool["median_ms"], r.pool["median_ms"]) if naive else "-",
            format_ms(r.engines["median_ms"]), format_ms(bound["bound_ms"]),
            f"{bound.get('limited_by', '-')} ({bound.get('regime', '-')})", rate(bound.get("percent_of_bound")),
            rate((r.engines.get("bound") or {}).get("percent_of_bound")),
            format_ms(r.replay[1]["median_ms"]) if r.replay else "-"])
    return layout(["kernel", "kernel alone GFLOP/s", "vs naive", "pool ms", "pool GFLOP/s", "vs naive",
                   "engine streams ms", "bound ms", "limited by", "pool % of bound", "engine streams % of bound",
                   f"graph replay ms {CROSS_RUN}"], table, {1, 2, 3, 4, 5, 6, 7, 9, 10, 11})


def copy_series(result: Result) -> dict[tuple[str, str], dict[float, float]]:
    """(host memory, direction) -> {bytes: GB/s} of a run's "copy" measurements."""
    series: dict[tuple[str, str], dict[float, float]] = {}
    for m in result.measurements:
        p = params_of(m)
        if m["name"] == "copy" and is_number(p.get("bytes")) and is_number(m.get("gbps")):
            series.setdefault((str(p.get("host_memory")), str(p.get("direction"))), {})[float(p["bytes"])] = m["gbps"]
    return series


def copy_run(results: list[Result]) -> Result | None:
    """The run with the most copy sizes measured (02's sweep over its lesson)."""
    runs = [r for r in results if copy_series(r)]
    return max(runs, key=lambda r: sum(map(len, copy_series(r).values())), default=None)


def sweep_points(result: Result) -> list[dict[str, Any]]:
    """A run's pool sizes tried ("sweep": true), fewest streams first."""
    return sorted((m for m in result.measurements if m["name"] == "stream_pool" and params_of(m).get("sweep") is True
                   and is_number(params_of(m).get("streams"))), key=lambda m: params_of(m)["streams"])


def describe_workload(result: Result) -> str:
    batches, m, n, k = workload(result)
    return f"{plural(batches, 'batch')} of {m}×{n}×{k}" if None not in (batches, m, n, k) else "its own workload"


# --- report.md ----------------------------------------------------------------------------

def header(suite: Suite) -> list[str]:
    lines = [f"# cuda-streams-graphs results: {suite.directory.resolve().name}", "",
             f"- measured (UTC): {measured_dates(suite.results)}",
             *(f"- {line}" for line in describe_devices(suite.results)),
             "- runs: " + ", ".join(r.name for r in suite.results)]
    if suite.missing:
        lines.append(f"- expected by {suite.directory.name}/registry.tsv but not here (not run, or they failed: "
                     "see their logs): " + ", ".join(e.run for e in suite.missing))
    elif not suite.registry:
        lines.append("- no registry.tsv here (scripts/run_suite.sh writes it): the runs in the order of their stages, "
                     "and no list of what was expected")
    return lines


def main_table(suite: Suite) -> list[str]:
    base = baseline(suite.results)
    rows = []
    for r in suite.results:
        serial = serial_for(r, base)
        for m in r.measurements:
            if m["name"] not in END_TO_END or params_of(m).get("sweep") or r.section("regime_map"):
                continue
            rows.append([r.name, variant_label(m), format_ms(m["median_ms"]),
                         ratio(serial[0], m["median_ms"], serial[1]) if serial else "-",
                         percent((m.get("bound") or {}).get("percent_of_bound")),
                         verified_text(m)])
    lines = ["", "## The workload, every way", ""]
    lines += md_table(["run", "variant", "median ms", "speed-up vs serial", "% of pipeline bound", "verified"],
                      rows, {2, 3, 4})
    lines += ["", "speed-up vs serial = the pageable serial time / the row's median: the run's own where it times "
              "one, else that of " + (base.path.name if base else "the first run with one") + f" ({CROSS_RUN}: "
              "across runs, for orientation only; quote the ratios each stage measures within one process). % of "
              "pipeline bound = the row's own bound / its median, as the stage wrote it (100%: as fast as the busiest "
              "resource allows); '-' where the variant has no bound of its own."]
    return lines if rows else []


def verdict_line(verdict: dict[str, Any]) -> str:
    """A verdict as report.md states it: its id, then its sentence exactly as the console printed it (a sentence
    of several lines continues the list item: the stages indent its later lines)."""
    return f"- `{verdict['id']}`: {verdict['sentence']}"


def verdict_section(suite: Suite) -> list[str]:
    """Each run's conclusions in the stage's own words (its verdicts' sentences as they are), in the registry's
    order, with the runs it expected and that left no result."""
    lines = ["", "## What each run concluded", "",
             "Each run's verdicts as its console printed them, each with its id; the figures and thresholds they "
             "rest on are in the run's JSON (\"verdicts\")."]
    results = {r.name: r for r in suite.results}
    listed = [(e.run, e) for e in suite.registry]
    listed += [(r.name, None) for r in suite.results if r.name not in {e.run for e in suite.registry}]
    for name, expected in listed:
        r = results.get(name)
        lines += ["", f"### {name}", ""]
        if expected is not None:
            lines += [f"_{expected.summary}_", ""]
        if r is None and expected is not None and expected.exit:
            lines.append(f"_No result by design: it demonstrates an error and must exit {expected.exit} (its log "
                         "holds what CUDA said)._")
        elif r is None:
            lines.append(f"_No result here: not run, or it failed (see {name}.log)._")
        elif r.verdicts is None:
            lines.append(f"_A {r.doc['schema']} result: it carries no verdicts (its conclusions are in {name}.log)._")
        elif not r.verdicts and not r.failures:
            lines.append("_No verdict: this run reports figures only._")
        if r is not None:
            lines += [verdict_line(v) for v in r.verdicts or []]
            lines += [f"- **FAILED:** {failure}" for failure in r.failures]
    return lines


def verification_section(suite: Suite) -> tuple[list[str], bool]:
    failures = failed_verifications(suite.results)
    digests, differ = digest_lines(suite.results)
    lines = ["", "## Verification", "", *(f"- **{line}**" for line in failures)]
    if not failures:
        lines.append("- every stage verified every batch of every variant it checks (n/a: nothing to check, e.g. an "
                     "allocation cost or CPU issue time)")
    lines += [f"- **{line}**" if line.startswith("OUTPUTS DIFFER") else f"- {line}" for line in digests]
    if differ:
        lines.append("- the same seed and shape give the same C, so variants of one run whose digests differ did not "
                     "compute the same outputs")
    return lines, bool(failures) or differ


REGIME_TITLE = "Regimes: the kernel alone vs the whole pipeline"


def regime_section(suite: Suite) -> list[str]:
    rows = regimes(suite.results)
    if not rows:
        return []
    lines = ["", f"## {REGIME_TITLE}", "",
             f"Each GEMM kernel at {describe_workload(rows[0].run)}: kernel alone = the isolated kernel sum's rate; "
             "pool and one stream per engine end to end, copies included, each against its own bound (as the stage "
             "wrote it: the bound / the achieved time); vs naive = the naive kernel's figure over this one's, "
             f"within the runs; graph replay: another run's replay of the same kernel and work ({CROSS_RUN}).", ""]
    lines += regime_table(rows, md_table)
    return lines + ["", f"From {sources([r.run for r in rows] + [r.replay[0] for r in rows if r.replay])}."]


def copy_section(suite: Suite) -> list[str]:
    result = copy_run(suite.results)
    if result is None:
        return []
    series = copy_series(result)
    sizes = sorted({s for points in series.values() for s in points})
    if len(sizes) > 7:  # a full sweep: a narrow table, the plot has every size
        sizes = [sizes[round(i * (len(sizes) - 1) / 6)] for i in range(7)]
    rows = [[kind, direction] + [rate(points.get(s)) for s in sizes] for (kind, direction), points in series.items()]
    return ["", f"### Copy bandwidth, GB/s ({result.name})", "",
            *md_table(["host memory", "direction"] + [human_bytes(s) for s in sizes], rows,
                      set(range(2, 2 + len(sizes))))]


def sweep_section(suite: Suite) -> list[str]:
    lines = []
    for r in suite.results:
        points = sweep_points(r)
        if len(points) < 2:
            continue
        pageable, pinned = r.find("serial", host_memory="pageable"), r.find("serial", host_memory="pinned")
        rows = [[str(params_of(m)["streams"]), format_ms(m["median_ms"]),
                 ratio(pageable["median_ms"], m["median_ms"]) if pageable else "-",
                 ratio(pinned["median_ms"], m["median_ms"]) if pinned else "-",
                 percent((m.get("bound") or {}).get("percent_of_bound")), verified_text(m)] for m in points]
        lines += ["", f"### Stream-count sweep ({r.name}: {describe_workload(r)}, "
                  f"{r.config.get('host_memory', '?')} host memory; ratios within this run)", ""]
        lines += md_table(["streams", "median ms", "vs serial pageable", "vs serial pinned", "% of pipeline bound",
                           "verified"], rows, {1, 2, 3, 4})
    return lines


def graph_section(suite: Suite) -> list[str]:
    lines = []
    for r in suite.results:
        if r.find("capture") is None:
            continue
        rows = [[variant_label(m), format_ms(m["median_ms"]), rate(m.get("p95_ms"), 3), verified_text(m)]
                for m in r.measurements if m["name"] not in END_TO_END]
        lines += ["", f"### Graph costs ({r.name})", "", *md_table(["what", "median ms", "p95 ms", "verified"],
                                                                   rows, {1, 2})]
        if is_number(r.bounds.get("break_even_replays")):
            lines += ["", f"Break-even (bounds.break_even_replays): {r.bounds['break_even_replays']:.1f} replays."]
    return lines


def map_cell(rm: dict[str, Any], m: int, batches: int) -> dict[str, Any] | None:
    return next((c for c in rm["cells"] if c["m"] == m and c["batches"] == batches), None)


def map_cell_text(cell: dict[str, Any] | None) -> str:
    """The cell in the stage's words ("graph -27%", "tie"), or why it was skipped."""
    if cell is None:
        return "-"
    if cell.get("skipped_reason") is not None:
        return f"skipped ({cell.get('skipped_because') or 'see below'})"
    if isinstance(cell.get("text"), str):
        return cell["text"]  # the stage's words, "(noisy)" included where it marked the cell
    text = f"{cell['winner']} {100.0 * (cell['graph_ms'] / cell['stream_ms'] - 1.0):+.0f}%"
    return text + (" (noisy)" if cell.get("noisy") is True else "")


def regime_map_grid(rm: dict[str, Any], markdown: bool) -> list[str]:
    headers = ["m = n = k"] + [plural(b, "batch") for b in rm["batches"]]
    rows = [[f"{m}³"] + [map_cell_text(map_cell(rm, m, b)) for b in rm["batches"]] for m in rm["sizes"]]
    return (md_table if markdown else text_table)(headers, rows, set(range(1, len(headers))))


def regime_map_section(suite: Suite) -> list[str]:
    lines = []
    for r in suite.results:
        rm = r.section("regime_map")
        if not rm:
            continue
        tie = f"±{100.0 * rm['equal_within']:.0f}%" if is_number(rm.get("equal_within")) else "the stage's margin"
        lines += ["", f"## Regime map: graph replay vs stream pool ({r.name})", "",
                  f"The stream pool ({plural(rm.get('streams', '?'), 'stream')}, fork/join) against one graph replay "
                  "of the same work per GEMM size and batch count, GPU time; each cell as the stage named it: the "
                  f"winner and the replay's time against the pool's; tie: within {tie}.", ""]
        lines += regime_map_grid(rm, markdown=True)
        if skipped := [c for c in rm["cells"] if c.get("skipped_reason") is not None]:
            lines += ["", "Skipped, with the stage's reasons:", "",
                      *(f"- {c['m']}³ × {plural(c['batches'], 'batch')}: {c['skipped_reason']}" for c in skipped)]
        if crossover := [c["text"] for c in rm.get("crossover", []) if isinstance(c.get("text"), str)]:
            lines += ["", "Where the graph starts to win, row by row (the stage's words):", "",
                      *(f"- {text}" for text in crossover)]
        cells = [[f"{c['m']}³", str(c["batches"]), format_ms(c["stream_ms"]), format_ms(c["graph_ms"]),
                  ratio(c["graph_ms"], c["stream_ms"]), rate(c.get("stream_issue_ms"), 3),
                  rate(c.get("graph_issue_ms"), 3), rate(c.get("pool_percent_of_bound"), 1),
                  str(c.get("limited_by", "-")), "yes" if c.get("verified") else "NO"]
                 for c in rm["cells"] if c.get("skipped_reason") is None]
        if cells:
            bound = rm.get("bound") if isinstance(rm.get("bound"), str) else "as the stage took it"
            lines += ["", "Every measured cell (issue: the host's time to issue the pool's calls, or the one "
                      f"cudaGraphLaunch; the pool's % of its bound and the path that sets it, the bound in the "
                      f"stage's words: {bound}):", ""]
            lines += md_table(["size", "batches", "pool ms", "graph ms", "graph / pool", "pool issue ms",
                               "graph issue ms", "pool % of bound", "bound set by", "verified"], cells,
                              set(range(1, 8)))
    return lines


# --- after the article: the runs of CUDA's newer controls over streams and graphs ---------

def item(items: list[dict[str, Any]], **fields: Any) -> dict[str, Any]:
    """The first object of `items` with `fields`; KeyError where there is none."""
    found = next((i for i in items if isinstance(i, dict) and all(i.get(k) == v for k, v in fields.items())), None)
    if found is None:
        raise KeyError(", ".join(f"{k}={v}" for k, v in fields.items()))
    return found


def largest(sizes: list[dict[str, Any]]) -> dict[str, Any]:
    """The size of the most input bytes: the sizes stand in the order they were given."""
    return max(sizes, key=lambda size: size["input_bytes"])


# One row of the table: a figure of the old way and of the new, each a getter of the run's section `key`; each way
# words, or a getter of them.
AfterRow = namedtuple("AfterRow", "key figure old_way old new_way new unit", defaults=("µs",))
MIB = 1 << 20
AFTER_ROWS = (
    *(AfterRow("device_launch", figure, "the host's cudaGraphLaunch", lambda s, w=work: s["per_launch_us"][w]["host"],
               "a tail launch from the GPU", lambda s, w=work: s["per_launch_us"][w]["tail"])
      for work, figure in (("empty", "an empty graph, per launch"), ("work", "the article's work, per run"))),
    AfterRow("device_launch", "a decision, per request", "the host's round trip",
             lambda s: s["per_decision_us"]["host"], "a scheduler kernel on the GPU",
             lambda s: s["per_decision_us"]["device"]),
    *(AfterRow("conditional", f"{body} body, per iteration (fitted over N)", "the host decides each iteration",
               lambda s, b=body: s["loops"][b]["fits"]["host_decided"]["per_iteration_us"],
               "a WHILE node decides on the GPU",
               lambda s, b=body: s["loops"][b]["fits"]["while_node"]["per_iteration_us"])
      for body in ("empty", "gemm")),
    AfterRow("conditional", "empty body, per iteration, N known on the host", "a one-body graph launched N times",
             lambda s: s["loops"]["empty"]["fits"]["graph_loop"]["per_iteration_us"], "a WHILE node",
             lambda s: s["loops"]["empty"]["fits"]["while_node"]["per_iteration_us"]),
    *(AfterRow("pdl", f"{chain} chain, per kernel, on streams", "plain launches",
               lambda s, c=chain: s[c]["ways"]["stream_plain"]["per_kernel_us"], "programmatic dependent launch",
               lambda s, c=chain: s[c]["ways"]["stream_pdl"]["per_kernel_us"]) for chain in ("gemm", "empty")),
    AfterRow("memory_nodes", "a replay", "buffers preallocated",
             lambda d: item(d["measurements"], name="preallocated_graph_replay")["median_ms"],
             "allocated inside the graph", lambda d: item(d["measurements"], name="memory_graph_replay")["median_ms"],
             "ms"),
    AfterRow("memory_nodes", "device memory held after the replays", "preallocated A and C",
             lambda d: d["memory_nodes"]["preallocated_bytes"] / MIB, "reserved by the graph allocator",
             lambda d: item(d["memory_nodes"]["footprint"], moment="replays")["reserved_current"] / MIB, "MiB"),
    AfterRow("startup", "capture + instantiate + upload of every bucket's graph",
             lambda s: f"{plural(s['rows'][0]['buckets'], 'bucket')} ({s['budget_layout']} buffers)",
             lambda s: s["rows"][0][s["budget_layout"]]["total_ms"],
             lambda s: plural(s["rows"][-1]["buckets"], "bucket"),
             lambda s: s["rows"][-1][s["budget_layout"]]["total_ms"], "ms"),
    AfterRow("launch_anatomy", "the article's graph, the host's cudaGraphLaunch", "as the article builds it",
             lambda s: item(s["article"], variant="article")["launch_us"], "with the device-launch flag",
             lambda s: item(s["article"], variant="device_launch_flag")["launch_us"]),
    AfterRow("launch_anatomy", "a line of kernel nodes, host time per node", "NVIDIA's published figure",
             lambda s: s["nvidia"]["per_node_us"], "measured here (fitted)",
             lambda s: item(s["fits"], kind="kernel", shape="line")["host_per_node_us"]),
    AfterRow("rebind", "a request's new inputs at the largest size, per request", "copied in and out",
             lambda s: largest(s["sizes"])["ways"]["copy_in"]["wall"]["median_ms"], "device-updated nodes",
             lambda s: largest(s["sizes"])["ways"]["device_update"]["wall"]["median_ms"], "ms"),
    AfterRow("batched_copies", "a pinned copy's issue, per copy", "a cudaMemcpyAsync call per copy",
             lambda s: s["per_copy_issue_us"]["pinned"]["memcpy_async"], "one cudaMemcpyBatchAsync call",
             lambda s: s["per_copy_issue_us"]["pinned"]["batch"]),
    AfterRow("graph_priorities", "a short kernel's graph beside a flood (median)", "instantiated without the flag",
             lambda s: s["median_us"]["graph_plain"], "with cudaGraphInstantiateFlagUseNodePriority",
             lambda s: s["median_us"]["graph_node_priority"]),
    AfterRow("partition", "a short kernel beside a flood (median)", "the greatest stream priority",
             lambda s: s["first_partition"]["priority_median_us"],
             lambda s: f"a green context of {plural(s['first_partition']['short_sms'], 'SM')}",
             lambda s: s["first_partition"]["median_us"]),
)
# The rows that read the whole document (a measurement beside the section) rather than the section alone.
WHOLE_DOCUMENT = ("memory_nodes",)
# A row as the runs hold it: feature (the run's subcommand), figure, old_way, old, new_way, new, unit, run.
AfterFigures = namedtuple("AfterFigures", "feature figure old_way old new_way new unit run")


def after_article(results: list[Result]) -> tuple[list[AfterFigures], list[str]]:
    """The rows whose figures the runs hold (from the first run with each section), and a note per row left out."""
    rows, left_out = [], []
    for spec in AFTER_ROWS:
        run = next((r for r in results if isinstance(r.section(spec.key), dict)), None)
        if run is None:
            continue
        source = run.doc if spec.key in WHOLE_DOCUMENT else run.section(spec.key)
        try:
            old, new = spec.old(source), spec.new(source)
            if not (is_number(old) and is_number(new)):
                raise TypeError("not a number")
            old_way, new_way = (way if isinstance(way, str) else way(source) for way in (spec.old_way, spec.new_way))
            rows.append(AfterFigures(run.subcommand or spec.key, spec.figure, old_way, old, new_way, new, spec.unit,
                                     run))
        except (KeyError, IndexError, TypeError) as error:
            left_out.append(f"{run.path.name}, {spec.figure}: a field is missing or malformed ({error})")
    return rows, left_out


def figure_text(value: float, unit: str) -> str:
    """1.36 µs, 163 µs, 0.001 µs, 16.02 ms: three figures or so, whatever the size."""
    if abs(value) < 0.1:
        return f"{value:.3g} {unit}"
    return f"{value:,.{2 if abs(value) < 10 or unit == 'ms' else 1 if abs(value) < 100 else 0}f} {unit}"


AFTER_TITLE = "After the article: CUDA's newer controls over streams and graphs"


def after_article_section(suite: Suite) -> list[str]:
    rows, left_out = after_article(suite.results)
    if not rows and not left_out:
        return []
    lines = ["", f"## {AFTER_TITLE}", "",
             "The runs of what CUDA added after the article, one figure per row, per operation: the old way "
             "against the new (startup: the fewest buckets against the most), from one run each. new / old: the "
             "new way's figure over the old's (below 1×: the new way takes less). What each run concluded from "
             "these figures is its verdicts, above.", ""]
    lines += md_table(["run", "figure", "old way", "old", "new way", "new", "new / old"],
                      [[r.feature, r.figure, r.old_way, figure_text(r.old, r.unit), r.new_way,
                        figure_text(r.new, r.unit), ratio(r.new, r.old)] for r in rows], {3, 5, 6})
    lines += ["", f"From {sources([r.run for r in rows])}."]
    return lines + (["", "Left out:", "", *(f"- {note}" for note in left_out)] if left_out else [])


def bounds_section(suite: Suite) -> list[str]:
    def shown(value: Any) -> str:
        return f"{value:.4g}" if is_number(value) else format_value(value)
    lines = [f"- **{r.name}**: " + ", ".join(f"{k} {shown(v)}" for k, v in r.bounds.items())
             for r in suite.results if r.bounds]
    return ["", "## Bounds and ratios measured by the stages themselves", "",
            "Each stage measures these within one process; they are the figures to quote.", "", *lines] if lines else []


def appendix(suite: Suite) -> list[str]:
    rows = [[r.name, m["name"], format_params(m.get("params")), format_ms(m["median_ms"]), rate(m.get("min_ms"), 3),
             rate(m.get("p95_ms"), 3), rate(m.get("max_ms"), 3), rate(m.get("gbps")), rate(m.get("gflops"), 0),
             verified_text(m), m.get("digest") or "-"] for r in suite.results for m in r.measurements]
    return ["", "<details><summary>Every measurement (all runs)</summary>", "",
            *md_table(["run", "variant", "params", "median ms", "min ms", "p95 ms", "max ms", "GB/s", "GFLOP/s",
                       "verified", "digest"], rows, set(range(3, 9))), "", "</details>"]


def plot_lines(drawn: list[tuple[str, Any, str]] | str | None) -> list[str]:
    """The Plots section: each plot with its caption, or why it is not drawn; `drawn` a note where none is
    drawn, None where none was asked for (--no-plots)."""
    if drawn is None:
        return []
    lines = ["", "## Plots"]
    if isinstance(drawn, str):
        return lines + ["", f"_None: {drawn}._"]
    for title, plot, why in drawn:
        lines += ["", f"### {title}", ""]
        lines += [f"_Not drawn: {why}._"] if plot is None else [f"![{plot.title}]({plot.file})", "", plot.caption]
    return lines


def report_markdown(suite: Suite, drawn: list[tuple[str, Any, str]] | str | None) -> tuple[str, bool]:
    """report.md's text, and whether something did not verify."""
    verification, failed = verification_section(suite)
    lines = header(suite) + main_table(suite) + verdict_section(suite) + verification
    lines += regime_section(suite) + copy_section(suite) + sweep_section(suite) + graph_section(suite)
    lines += regime_map_section(suite) + after_article_section(suite) + bounds_section(suite)
    lines += plot_lines(drawn) + appendix(suite)
    return "\n".join(lines) + "\n", failed


# --- --table: one row per measurement ------------------------------------------------------

def shown_measurements(result: Result) -> list[dict[str, Any]]:
    """A run's measurements, of those over several sizes ("bytes") only the largest of each kind."""
    def kind(m: dict[str, Any]) -> str:
        return json.dumps([m["name"], {k: v for k, v in params_of(m).items() if k != "bytes"}], sort_keys=True)
    largest: dict[str, float] = {}
    for m in result.measurements:
        if is_number(params_of(m).get("bytes")):
            largest[kind(m)] = max(largest.get(kind(m), 0), params_of(m)["bytes"])
    return [m for m in result.measurements if not is_number(params_of(m).get("bytes"))
            or params_of(m)["bytes"] == largest[kind(m)]]


def table(results: list[Result], markdown: bool) -> tuple[list[str], bool]:
    """--table: (the lines, whether something did not verify)."""
    bullet = "- " if markdown else ""
    lines = [f"{bullet}{line}" for line in describe_devices(results)]
    lines += [f"{bullet}measured (UTC): {measured_dates(results)}", ""]
    base = baseline(results)
    rows = []
    for r in results:
        serial = serial_for(r, base) if base else None
        for m in shown_measurements(r):
            comparable = m["name"] in END_TO_END and serial and not r.section("regime_map")
            rows.append([r.stage + (f" {r.subcommand}" if r.subcommand else ""), m["name"],
                         format_params(m.get("params")), format_ms(m["median_ms"]),
                         ratio(serial[0], m["median_ms"]) if comparable else "-", verified_text(m)])
    layout = md_table if markdown else text_table
    lines += layout(["stage", "variant", "params", "median ms", "speed-up vs serial *", "verified"], rows, {3, 4})
    lines.append("")
    for r in results:
        peaks = [f"{key.removesuffix('_peak_gbps').replace('_', ' ')} {value:.1f}" for key, value in r.bounds.items()
                 if key.endswith("_peak_gbps") and is_number(value)]
        hidden = len(r.measurements) - len(shown_measurements(r))
        lines += [f"{r.path.name}: peak GB/s: " + ", ".join(peaks)] if peaks else []
        lines += [f"{r.path.name}: {hidden} smaller-size rows not shown (all are in the JSON)"] if hidden else []
    if rows_of_regimes := regimes(results):
        lines += ["", f"{REGIME_TITLE} ({describe_workload(rows_of_regimes[0].run)})"]
        lines += regime_table(rows_of_regimes, layout)
    for r in results:
        if rm := r.section("regime_map"):
            lines += ["", f"Regime map ({r.path.name}): graph replay vs stream pool, GPU time, as the stage named "
                      "each cell", *regime_map_grid(rm, markdown)]
            lines += [f"  {c['text']}" for c in rm.get("crossover", []) if isinstance(c.get("text"), str)]
    lines += ["", f"* speed-up vs serial = the pageable serial time of the row's own run, else of {base.path.name} / "
              "the row's median, for rows that do the whole workload; '-' for the others and for another "
              "workload." if base else "* speed-up vs serial: '-' throughout, no run with a pageable serial time."]
    digests, differ = digest_lines(results)
    failures = failed_verifications(results)
    lines += ["", "output digests:", *(f"  {line}" for line in digests), *failures]
    return lines, bool(failures) or differ
