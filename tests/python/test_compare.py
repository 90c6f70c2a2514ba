"""report.py --compare OLD NEW: both medians, NEW/OLD and the speed-up per (run, variant, params), the rows
found in one run only, and whether the outputs are the same; it reads results of either schema (today's v1
samples against the same runs as v2, the first suite's combined results)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import COMBINED, SAMPLES_V1, as_v2, clean, load, measurement, result, results_in, run_report, write_folder

A, B = "3164306a8801d276", "0123456789abcdef"


def rows_of(stdout: str, run: str) -> dict[str, list[str]]:
    """variant -> the cells of its row, for the rows of `run`."""
    return {line.split()[1]: line.split() for line in stdout.splitlines() if line.startswith(run + " ")}


def test_v1_samples_against_the_same_runs_as_v2_with_ratios_and_rows_in_one_run_only(tmp_path: Path) -> None:
    v2 = as_v2(SAMPLES_V1, tmp_path / "v2")  # the v1 samples' own runs, as schema v2
    new = tmp_path / "new"
    new.mkdir()
    for name, factor in (("01_serial_baseline", 1.25), ("03_stream_pool_gemm", 0.8)):
        doc = load(v2 / f"{name}.json")
        for m in doc["measurements"]:
            m["median_ms"] *= factor
        dropped = doc["measurements"].pop() if factor < 1 else None
        (new / f"{name}.json").write_text(json.dumps(doc))
    proc = clean(run_report("--compare", SAMPLES_V1, new))
    serial = rows_of(proc.stdout, "01_serial_baseline")["serial"]
    assert serial[-3:] == ["1.250", "0.80x", "equal"]  # NEW/OLD, speed-up, the digests
    assert rows_of(proc.stdout, "03_stream_pool_gemm")["stream_pool"][-3] == "0.800"
    assert f"03_stream_pool_gemm  {dropped['name']}" in proc.stdout.split("only in OLD")[1]
    others = sum(len(doc["measurements"]) for name, doc in results_in(SAMPLES_V1).items()
                 if name not in ("01_serial_baseline", "03_stream_pool_gemm"))
    assert f"only in OLD ({others + 1}):" in proc.stdout


def test_two_single_files_are_matched_by_stage(tmp_path: Path) -> None:
    old = SAMPLES_V1 / "01_serial_baseline.json"
    pinned = SAMPLES_V1 / "01_serial_baseline-pinned.json"
    proc = clean(run_report("--compare", old, pinned))
    kernel = [next(m for m in load(p)["measurements"] if m["name"] == "kernel_sum")["median_ms"] for p in (old, pinned)]
    assert rows_of(proc.stdout, "01_serial_baseline")["kernel_sum"][-3] == f"{kernel[1] / kernel[0]:.3f}"
    assert "only in OLD" in proc.stdout  # serial on pageable against serial on pinned: other params


def test_the_first_suites_combined_results_are_read_too() -> None:
    proc = clean(run_report("--compare", COMBINED, COMBINED))
    assert "no (run, variant, params) in common" not in proc.stdout


def pool(digests: list[str | None], seed: int = 1) -> dict:
    names = ("serial", "stream_pool", "engine_streams")
    doc = result(measurements=[measurement(n, 10.0 + i, digest=d) for i, (n, d) in enumerate(zip(names, digests))])
    doc["config"]["seed"] = seed
    return doc


@pytest.mark.parametrize("old, new, outputs, status", [
    (pool([A, A, A]), pool([A, A, A]), {"serial": "equal", "stream_pool": "equal", "engine_streams": "equal"}, 0),
    (pool([A, A, A]), pool([A, B, A]), {"serial": "equal", "stream_pool": "DIFFERENT", "engine_streams": "equal"}, 1),
    (pool([A, A, A]), pool([B, B, B], seed=2), {n: "different-config" for n in ("serial", "stream_pool",
                                                                                "engine_streams")}, 0),
    (pool([A, A, A]), pool([A, None, None]), {"serial": "equal", "stream_pool": "-", "engine_streams": "-"}, 0),
], ids=["equal", "different outputs, same config", "another seed", "no digest in one run"])
def test_the_outputs_column(old: dict, new: dict, outputs: dict[str, str], status: int, tmp_path: Path) -> None:
    write_folder(tmp_path / "old", {"03_stream_pool_gemm": old})
    write_folder(tmp_path / "new", {"03_stream_pool_gemm": new})
    proc = clean(run_report("--compare", tmp_path / "old", tmp_path / "new"), status)
    assert {v: cells[-1] for v, cells in rows_of(proc.stdout, "03_stream_pool_gemm").items()} == outputs
    assert ("OUTPUTS DIFFER in 1 row with the same config seed, m, n, k and batches" in proc.stdout) == bool(status)


def test_a_run_that_did_not_verify_exits_1(tmp_path: Path) -> None:
    bad = result(verification={"passed": False, "failure": "batch 3: C[0][0] expected 12, got NaN"})
    write_folder(tmp_path / "new", {"03_stream_pool_gemm": bad})
    proc = clean(run_report("--compare", SAMPLES_V1, tmp_path / "new"), 1)
    assert "NEW: VERIFICATION FAILED in 03_stream_pool_gemm.json: batch 3" in proc.stdout
