"""report.py --table: one row per measurement (of those over several sizes, the largest) with its speed-up
over the serial time, the peak bandwidths, the regime table and the regime map, as text or markdown; it
writes nothing, and a measurement that did not verify exits 1."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import SAMPLES, clean, measurement, result, results_in, run_report, write_folder


@pytest.fixture(scope="module")
def table() -> str:
    return clean(run_report("--table", SAMPLES)).stdout


def test_a_row_per_measurement_and_the_largest_copies_only(table: str) -> None:
    docs = results_in(SAMPLES)
    lesson = docs["01_serial_baseline"]
    rows = [line.split() for line in table.splitlines() if line.startswith("01_serial_baseline ")
            and not line.startswith(("01_serial_baseline kernels", "01_serial_baseline timeline"))]
    assert len(rows) == len(lesson["measurements"]) + len(docs["01_serial_baseline-pinned"]["measurements"])
    serial = rows[0]
    assert serial[1:5] == ["serial", "host_memory=pageable", f"{lesson['measurements'][0]['median_ms']:.2f}", "1.00×"]
    sweep = [line for line in table.splitlines() if line.startswith("02_pinned_vs_pageable sweep ") and " copy " in line]
    largest = max(m["params"]["bytes"] for m in docs["02_pinned_vs_pageable-sweep"]["measurements"]
                  if m["name"] == "copy")
    assert sweep and all(f"bytes={largest} " in line for line in sweep)
    assert "02_pinned_vs_pageable-sweep.json: peak GB/s: " in table
    assert "smaller-size rows not shown (all are in the JSON)" in table


def test_the_regimes_and_the_regime_map(table: str) -> None:
    assert "Regimes: the kernel alone vs the whole pipeline (100 batches of 1024×1024×512)" in table
    rm = results_in(SAMPLES)["04_graph_capture_gemm-regime-map"]["regime_map"]
    assert "Regime map (04_graph_capture_gemm-regime-map.json)" in table
    assert all(f"  {c['text']}" in table for c in rm["crossover"])


def test_markdown_and_nothing_written(table: str) -> None:
    markdown = clean(run_report("--table", SAMPLES, "--markdown")).stdout
    assert markdown.startswith("- device: ")
    assert "| stage | variant | params | median ms | speed-up vs serial * | verified |" in markdown
    assert not (SAMPLES / "report.md").exists()


def test_a_measurement_that_did_not_verify_exits_1(tmp_path: Path) -> None:
    folder = write_folder(tmp_path / "r", {"03_stream_pool_gemm": result(measurements=[
        measurement("serial", 30.0), measurement("stream_pool", 16.0, verified=False)])})
    proc = clean(run_report("--table", folder), 1)
    assert "not verified in 03_stream_pool_gemm.json: stream_pool" in proc.stdout
    assert list(folder.iterdir()) == [folder / "03_stream_pool_gemm.json"]
