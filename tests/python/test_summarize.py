"""Tests of scripts/summarize.py's regime table (issue 9) on synthetic results:
one row per kernel of stage 03 at the article's workload with pinned memory,
percentages of the bound computed from the JSON, stage 04's replay matched by
kernel, and other runs left out."""
from __future__ import annotations

import contextlib
import io
import json
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
import summarize  # noqa: E402

ARTICLE = {"batches": 100, "m": 1024, "n": 1024, "k": 512}


def result(stage: str, config: dict, measurements: list, bounds: dict) -> dict:
    return {"schema": summarize.SCHEMA, "stage": stage, "device": {"name": "test GPU"},
            "config": config, "measurements": measurements, "bounds": bounds,
            "verification": {"passed": True}}


def stage03(kernel: str, tf32: bool, pool: float, engines: float, bound: float, gflops: float,
            limited_by: str, **workload) -> dict:
    config = {**ARTICLE, **workload, "host_memory": "pinned", "kernel": kernel, "tf32": tf32}
    bounds = {"kernel_gflops": gflops, "stream_pool_ms": pool, "engine_streams_ms": engines,
              "pipeline_bound_ms": bound, "limited_by": limited_by}
    return result("03_stream_pool_gemm", config, [{"name": "stream_pool", "median_ms": pool, "verified": True}],
                  bounds)


class RegimeTable(unittest.TestCase):
    def write(self, directory: Path, files: dict[str, dict]) -> None:
        for name, doc in files.items():
            (directory / name).write_text(json.dumps(doc), encoding="utf-8")

    def rows(self, files: dict[str, dict]) -> list[list[str]]:
        with tempfile.TemporaryDirectory() as tmp:
            self.write(Path(tmp), files)
            with contextlib.redirect_stderr(io.StringIO()):
                return summarize.regime_rows(summarize.load_results(Path(tmp)))

    def test_one_row_per_kernel_in_kernel_order_with_percent_of_bound(self) -> None:
        rows = self.rows({
            "03_stream_pool_gemm-cublas.json": stage03("cublas", False, 8.8, 8.4, 8.36, 34000.0, "PCIe both ways"),
            "03_stream_pool_gemm.json": stage03("naive", False, 16.0, 17.5, 17.3, 6200.0, "kernels"),
            "03_stream_pool_gemm-tf32.json": stage03("cublas", True, 8.8, 8.36, 8.36, 65000.0, "PCIe both ways"),
        })
        self.assertEqual([row[0] for row in rows], ["naive", "cublas", "cublas+tf32"])
        naive, cublas, tf32 = rows
        self.assertEqual(naive[1], "6200")
        self.assertEqual(naive[6], f"{100 * 17.3 / 16.0:.1f}")  # the pool beats the one-stream kernel sum
        self.assertEqual(cublas[6], f"{100 * 8.36 / 8.8:.1f}")
        self.assertEqual(cublas[7], f"{100 * 8.36 / 8.4:.1f}")
        self.assertEqual(tf32[7], "100.0")
        self.assertEqual(cublas[5], "PCIe both ways")
        self.assertEqual(cublas[8], "-")  # no stage 04 run here

    def test_stage04_replay_is_matched_by_kernel(self) -> None:
        replay = result("04_graph_capture_gemm", {**ARTICLE, "host_memory": "pinned", "kernel": "cublas",
                                                  "tf32": False},
                        [{"name": "graph_replay", "median_ms": 8.75, "verified": True}], {})
        rows = self.rows({
            "03_stream_pool_gemm-cublas.json": stage03("cublas", False, 8.8, 8.4, 8.36, 34000.0, "PCIe both ways"),
            "03_stream_pool_gemm.json": stage03("naive", False, 16.0, 17.5, 17.3, 6200.0, "kernels"),
            "04_graph_capture_gemm-cublas.json": replay,
        })
        self.assertEqual({row[0]: row[8] for row in rows}, {"naive": "-", "cublas": "8.75"})

    def test_other_workloads_pageable_runs_and_old_results_are_left_out(self) -> None:
        pageable = stage03("naive", False, 90.0, 90.0, 17.3, 6200.0, "kernels")
        pageable["config"]["host_memory"] = "pageable"
        old = stage03("naive", False, 16.0, 17.5, 17.3, 6200.0, "kernels")
        del old["bounds"]["kernel_gflops"]  # written before issue 9
        rows = self.rows({
            "03_stream_pool_gemm-small.json": stage03("naive", False, 1.0, 1.1, 1.0, 900.0, "kernels", m=128),
            "03_stream_pool_gemm-pageable.json": pageable,
            "03_stream_pool_gemm-old.json": old,
        })
        self.assertEqual(rows, [])

    def test_one_row_per_kernel_where_a_kernel_ran_several_times(self) -> None:
        # A -timeline and an -events run of the naive kernel next to the default run, a cuBLAS run
        # named after its kernel next to another cuBLAS run: the named file wins, whatever the
        # order of the names, and the other runs' figures appear nowhere.
        replay = result("04_graph_capture_gemm", {**ARTICLE, "host_memory": "pinned", "kernel": "naive",
                                                  "tf32": False},
                        [{"name": "graph_replay", "median_ms": 16.02, "verified": True}], {})
        replay_timeline = json.loads(json.dumps(replay))
        replay_timeline["measurements"][0]["median_ms"] = 99.0
        files = {
            "03_stream_pool_gemm-a_events.json": stage03("naive", False, 90.0, 91.0, 92.0, 1.0, "kernels"),
            "03_stream_pool_gemm-timeline.json": stage03("naive", False, 80.0, 81.0, 82.0, 2.0, "kernels"),
            "03_stream_pool_gemm.json": stage03("naive", False, 16.0, 17.5, 17.3, 6200.0, "kernels"),
            "03_stream_pool_gemm-cublas.json": stage03("cublas", False, 8.8, 8.4, 8.36, 34000.0, "PCIe both ways"),
            "03_stream_pool_gemm-a_cublas_timeline.json": stage03("cublas", False, 70.0, 71.0, 72.0, 3.0,
                                                                  "PCIe both ways"),
            "04_graph_capture_gemm-a_timeline.json": replay_timeline,
            "04_graph_capture_gemm.json": replay,
        }
        rows = self.rows(files)
        self.assertEqual([row[0] for row in rows], ["naive", "cublas"])
        self.assertEqual(rows[0][1:3], ["6200", "16.00"])
        self.assertEqual(rows[0][8], "16.02")
        self.assertEqual(rows[1][1:3], ["34000", "8.80"])
        # Without a file named for the kernel, the first by name is used: the same one on every run.
        del files["03_stream_pool_gemm.json"]
        self.assertEqual(self.rows(files)[0][1], "1")

    def test_the_summary_prints_the_table(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            self.write(Path(tmp), {
                "03_stream_pool_gemm-cublas.json": stage03("cublas", False, 8.8, 8.4, 8.36, 34000.0, "PCIe both ways"),
            })
            out = io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
                status = summarize.summarize(Path(tmp), markdown=False)
        self.assertEqual(status, 0)
        self.assertIn("Regimes (issue 9)", out.getvalue())
        self.assertIn("engines % of bound", out.getvalue())


if __name__ == "__main__":
    unittest.main()
