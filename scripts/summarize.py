#!/usr/bin/env python3
"""Print one comparison table from the JSON results of the stages.

Usage:  python3 scripts/summarize.py RESULTS_DIR [--markdown]

Reads every *.json in RESULTS_DIR whose "schema" is
"cuda-streams-graphs/result/v1" (the file each stage writes with --json) and
skips any other file. It reads only the JSON, never the printed output.

One row per measurement: stage, variant, params, median ms, speed-up vs 01,
verified ("n/a" where the measurement has nothing to check: "verified": null). "speed-up vs 01" is the median of the "serial" measurement of the
pageable 01_serial_baseline run (01_serial_baseline.json) divided by the row's
median: a ratio across runs, for orientation only. Ratios the article's claims
rest on are measured within one process by the stages themselves.

Exit status: 0 every measurement and every file verified; 1 something did not
verify; 2 no such directory, no result files, a file that is not valid JSON,
or a result file missing a required field.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

# The schema, the field checks and the regime selection are shared with report.py.
from results_lib import SCHEMA, Result, ResultError, is_number, regimes, validate

BASELINE_STAGE = "01_serial_baseline"
BASELINE_FILE = "01_serial_baseline.json"
BASELINE_MEASUREMENT = "serial"
# The workload a speed-up compares: a ratio of total times only means
# something when both runs did the same work.
WORKLOAD_KEYS = ("batches", "m", "n", "k")


def load_results(directory: Path) -> list[Result]:
    results = []
    for path in sorted(directory.glob("*.json")):
        if not path.is_file():
            continue
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as error:
            raise ResultError(f"{path}: cannot read: {error}") from None
        except json.JSONDecodeError as error:
            raise ResultError(f"{path}: not valid JSON: {error}") from None
        if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
            print(f"note: skipping {path.name}: not a {SCHEMA} file", file=sys.stderr)
            continue
        validate(doc, path)
        results.append(Result(path, doc))
    # Stage order; within a stage the run at defaults (file named after the stage) first.
    results.sort(key=lambda r: (r.stage, r.path.stem != r.stage, r.path.name))
    return results


def find_baseline(results: list[Result]) -> Result | None:
    """The pageable 01 run; the file 01_serial_baseline.json if there are several."""
    candidates = [
        r for r in results
        if r.stage == BASELINE_STAGE and r.config.get("host_memory") == "pageable"
        and any(m["name"] == BASELINE_MEASUREMENT for m in r.measurements)
    ]
    candidates.sort(key=lambda r: r.path.name != BASELINE_FILE)
    return candidates[0] if candidates else None


def same_workload(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return all(a.get(key) == b.get(key) for key in WORKLOAD_KEYS)


def format_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dict, list)):
        return json.dumps(value, separators=(",", ":"))
    return str(value)


def format_params(params: Any) -> str:
    if isinstance(params, dict):
        return " ".join(f"{key}={format_value(value)}" for key, value in params.items()) or "-"
    return "-" if params is None else format_value(params)


def format_ms(ms: float) -> str:
    return f"{ms:.2f}" if ms >= 1.0 else f"{ms:.3g}"


def format_pcie(device: dict[str, Any]) -> str | None:
    def link(gen: Any, width: Any) -> str | None:
        parts = [f"Gen{gen}" if gen is not None else None, f"x{width}" if width is not None else None]
        parts = [p for p in parts if p]
        return " ".join(parts) if parts else None

    now = link(device.get("pcie_gen"), device.get("pcie_width"))
    best = link(device.get("pcie_gen_max"), device.get("pcie_width_max"))
    if now is None:
        return None
    # Links train down when idle, so the current generation can read below the maximum.
    return f"PCIe {now}" + (f" (max {best})" if best and best != now else "")


def format_cuda_version(version: Any) -> str:
    # cudaDriverGetVersion/cudaRuntimeGetVersion: 1000 * major + 10 * minor (13000 = 13.0).
    if is_number(version) and version > 0:
        return f"{int(version) // 1000}.{int(version) % 1000 // 10}"
    return str(version)


def describe_device(device: dict[str, Any]) -> str:
    parts = [str(device.get("name", "unknown device"))]
    if device.get("compute_capability") is not None:
        parts.append(f"compute capability {device['compute_capability']}")
    pcie = format_pcie(device)
    if pcie:
        parts.append(pcie)
    if device.get("driver_version") is not None:
        parts.append(f"driver CUDA {format_cuda_version(device['driver_version'])}")
    if device.get("runtime_version") is not None:
        parts.append(f"runtime CUDA {format_cuda_version(device['runtime_version'])}")
    return ", ".join(parts)


def device_identity(device: dict[str, Any]) -> str:
    keys = ("name", "compute_capability", "pci_bus_id", "driver_version", "runtime_version")
    return json.dumps([device.get(key) for key in keys])


HEADERS = ["stage", "variant", "params", "median ms", "speed-up vs 01 *", "verified"]
RIGHT_ALIGNED = {3, 4}


# Stage 02 writes one "copy" measurement per size, kind and direction; the
# summary keeps the largest size of each (kind, direction) and the other
# experiments, and prints the peak bandwidths from its bounds.
STAGE02 = "02_pinned_vs_pageable"
STAGE02_PEAKS = (("pinned H2D", "pinned_h2d_peak_gbps"), ("pinned D2H", "pinned_d2h_peak_gbps"),
                 ("pinned both ways", "bidirectional_peak_gbps"), ("pageable H2D", "pageable_h2d_peak_gbps"),
                 ("pageable D2H", "pageable_d2h_peak_gbps"))


def shown_measurements(result: Result) -> list[dict[str, Any]]:
    if result.stage != STAGE02:
        return result.measurements
    largest: dict[tuple[Any, Any], float] = {}
    for m in result.measurements:
        params = m.get("params") if isinstance(m.get("params"), dict) else {}
        if m["name"] in ("copy", "host_memcpy") and is_number(params.get("bytes")):
            key = (m["name"], params.get("host_memory"), params.get("direction"))
            largest[key] = max(largest.get(key, 0), params["bytes"])
    shown = []
    for m in result.measurements:
        params = m.get("params") if isinstance(m.get("params"), dict) else {}
        if m["name"] in ("copy", "host_memcpy") and is_number(params.get("bytes")):
            if params["bytes"] != largest[(m["name"], params.get("host_memory"), params.get("direction"))]:
                continue
        shown.append(m)
    return shown


def print_stage02_peaks(results: list[Result]) -> None:
    for r in results:
        if r.stage != STAGE02:
            continue
        bounds = r.doc.get("bounds", {})
        bounds = bounds if isinstance(bounds, dict) else {}
        parts = [f"{label} {bounds[key]:.1f}" for label, key in STAGE02_PEAKS if is_number(bounds.get(key))]
        if parts:
            print(f"{r.path.name}: peak GB/s over the sweep: " + ", ".join(parts))
        hidden = len(r.measurements) - len(shown_measurements(r))
        if hidden:
            print(f"{r.path.name}: {hidden} smaller-size copy rows not shown (all are in the JSON)")


REGIME_HEADERS = ["kernel", "kernel GFLOP/s", "pool ms", "engine streams ms", "bound ms", "limited by",
                  "pool % of bound", "engines % of bound", "04 replay ms"]


def regime_rows(results: list[Result]) -> list[list[str]]:
    """Issue 9's table: one row per kernel from stage 03's pinned runs at the
    article's workload (one run per kernel, results_lib.regimes picks which),
    with stage 04's replay of the same kernel where there is one."""
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


def print_regime_table(results: list[Result], markdown: bool) -> None:
    rows = regime_rows(results)
    if not rows:
        return
    print()
    print("Regimes (issue 9): stage 03 with each kernel at the article's workload, pinned host memory")
    if markdown:
        print("| " + " | ".join(REGIME_HEADERS) + " |")
        print("|" + "|".join(["---"] + ["---:"] * (len(REGIME_HEADERS) - 1)) + "|")
        for row in rows:
            print("| " + " | ".join(row) + " |")
        return
    widths = [max(len(row[i]) for row in [REGIME_HEADERS, *rows]) for i in range(len(REGIME_HEADERS))]
    for row in [REGIME_HEADERS, *rows]:
        print("  ".join(cell.ljust(widths[i]) if i in (0, 5) else cell.rjust(widths[i])
                        for i, cell in enumerate(row)).rstrip())


def build_rows(results: list[Result], baseline: Result | None) -> tuple[list[list[str]], int]:
    baseline_ms = None
    if baseline is not None:
        baseline_ms = next(m["median_ms"] for m in baseline.measurements if m["name"] == BASELINE_MEASUREMENT)
    rows, unverified = [], 0
    for result in results:
        for m in result.measurements:
            if m not in shown_measurements(result):
                # Not shown, but still counted if it did not verify.
                verified = m.get("verified", False)
                if verified is not True and verified is not None:
                    unverified += 1
                continue
            median = m["median_ms"]
            # Only rows that run the stage's whole GEMM workload compare with
            # the baseline: not a copy sum, a cost, or 04's tiny kernels.
            whole_workload = is_number(m.get("gflops")) and m["gflops"] > 0 and not m["name"].startswith("tiny_")
            comparable = (baseline is not None and whole_workload and same_workload(result.config, baseline.config))
            if comparable and baseline_ms and baseline_ms > 0 and median > 0:
                speedup = f"{baseline_ms / median:.2f}x"
            else:
                speedup = "-"
            # null: nothing to check (an allocation cost, a CPU issue time);
            # a missing field or false counts as not verified.
            verified = m.get("verified", False)
            if verified is not True and verified is not None:
                unverified += 1
            rows.append([
                result.stage,
                m["name"],
                format_params(m.get("params")),
                format_ms(median),
                speedup,
                "yes" if verified is True else ("n/a" if verified is None else "NO"),
            ])
    return rows, unverified


def print_text_table(rows: list[list[str]]) -> None:
    widths = [max(len(row[i]) for row in [HEADERS, *rows]) for i in range(len(HEADERS))]

    def line(cells: list[str]) -> str:
        return "  ".join(
            cell.rjust(widths[i]) if i in RIGHT_ALIGNED else cell.ljust(widths[i]) for i, cell in enumerate(cells)
        ).rstrip()

    print(line(HEADERS))
    print("  ".join("-" * w for w in widths))
    for row in rows:
        print(line(row))


def print_markdown_table(rows: list[list[str]]) -> None:
    def line(cells: list[str]) -> str:
        return "| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |"

    print(line(HEADERS))
    print("|" + "|".join("---:" if i in RIGHT_ALIGNED else "---" for i in range(len(HEADERS))) + "|")
    for row in rows:
        print(line(row))


def summarize(directory: Path, markdown: bool) -> int:
    if not directory.is_dir():
        raise ResultError(f"{directory}: no such directory")
    results = load_results(directory)
    if not results:
        raise ResultError(f"{directory}: no {SCHEMA} JSON files to summarise")

    devices = {device_identity(r.doc["device"]) for r in results}
    bullet = "- " if markdown else ""
    if len(devices) == 1:
        print(f"{bullet}device: {describe_device(results[0].doc['device'])}")
    else:
        for r in results:
            print(f"{bullet}{r.path.name}: {describe_device(r.doc['device'])}")
    print()

    baseline = find_baseline(results)
    rows, unverified = build_rows(results, baseline)
    (print_markdown_table if markdown else print_text_table)(rows)
    print()
    print_stage02_peaks(results)
    print_regime_table(results, markdown)

    print()
    if baseline is not None:
        print(f"* speed-up vs 01 = median of '{BASELINE_MEASUREMENT}' in {baseline.path.name} (pageable host memory) "
              "/ the row's median.")
        print("  A ratio across separate runs, for orientation only; each stage measures its own ratios in one "
              "process.")
        print("  '-': a different workload (batches, m, n, k) than the baseline's, or a row that is not the whole workload.")
    else:
        print(f"* speed-up vs 01: '-' throughout, no pageable {BASELINE_STAGE} result ({BASELINE_FILE}) here.")

    failed_files = [r for r in results if not r.passed]
    for r in failed_files:
        reason = r.doc["verification"].get("failure", "verification.passed is false")
        print(f"VERIFICATION FAILED in {r.path.name}: {reason}")
    if unverified:
        print(f"{unverified} measurement(s) not verified (verified is not true).")
    return 1 if failed_files or unverified else 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        description="Summarise the cuda-streams-graphs result JSON files of one results directory.")
    parser.add_argument("results_dir", type=Path, help="directory holding the stages' --json files")
    parser.add_argument("--markdown", action="store_true", help="print a markdown table instead of plain text")
    args = parser.parse_args(argv)
    try:
        return summarize(args.results_dir, args.markdown)
    except ResultError as error:
        print(f"summarize.py: error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
