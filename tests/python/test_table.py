#!/usr/bin/env python3
"""Tests of `report.py --table`: the comparison table (one row per measurement,
speed-up vs the pageable 01 serial baseline, verified), stage 02's peaks and
the regime table, on synthetic results and on the samples.

    cd tests/python && python3 -m unittest -v test_table
"""

from __future__ import annotations

import contextlib
import io
import json
import tempfile
import unittest
from pathlib import Path

from report_fixtures import (ARTICLE, DATA, SAMPLES, find, load, measurement, result, results_in, run_report, stage03,
                             write_folder)

import report  # noqa: E402  (scripts/ is on the path: report_fixtures)
import results_lib  # noqa: E402


class RegimeTable(unittest.TestCase):
    """One row per kernel of stage 03 at the article's workload with pinned memory, percentages of the bound
    computed from the JSON, stage 04's replay matched by kernel, other runs left out."""

    def rows(self, files: dict[str, dict]) -> list[list[str]]:
        with tempfile.TemporaryDirectory() as tmp:
            write_folder(Path(tmp), files)
            with contextlib.redirect_stderr(io.StringIO()):
                return report.regime_rows(results_lib.load_suite(Path(tmp)).results)

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

    def test_one_stream_per_engine_is_held_to_its_own_bound(self) -> None:
        # Its kernels run one at a time on one stream: its bound (the one-stream kernel sum, 17.3 ms) is not the
        # pool's (16.0 ms: kernels of several streams side by side). Without its own bound, the pool's is used.
        doc = stage03("naive", False, 16.1, 17.35, 16.0, 6200.0, "kernels")
        doc["measurements"].append(measurement("engine_streams", 17.35, bound={"bound_ms": 17.3}))
        old = stage03("naive", False, 16.1, 17.35, 16.0, 6200.0, "kernels")
        own, = self.rows({"03_stream_pool_gemm.json": doc})
        fallback, = self.rows({"03_stream_pool_gemm.json": old})
        self.assertEqual(own[6], f"{100 * 16.0 / 16.1:.1f}")
        self.assertEqual(own[7], f"{100 * 17.3 / 17.35:.1f}")
        self.assertEqual(fallback[7], f"{100 * 16.0 / 17.35:.1f}")

    def test_the_regime_is_the_runs_own_word_else_read_off_the_limiting_path(self) -> None:
        named = stage03("naive", False, 16.0, 17.5, 16.1, 6200.0, "host issue")
        named["bounds"]["regime"] = "launch-bound"
        older_copies = stage03("cublas", False, 8.8, 8.4, 8.36, 34000.0, "PCIe both ways")  # no bounds.regime
        older_kernels = stage03("tiled", False, 12.0, 12.5, 11.9, 9000.0, "kernels")
        with tempfile.TemporaryDirectory() as tmp:
            write_folder(Path(tmp), {"03_stream_pool_gemm.json": named, "03_stream_pool_gemm-cublas.json": older_copies,
                                     "03_stream_pool_gemm-tiled.json": older_kernels})
            with contextlib.redirect_stderr(io.StringIO()):
                rows = results_lib.regimes(results_lib.load_suite(Path(tmp)).results)
        self.assertEqual({r.kernel: r.regime for r in rows},
                         {"naive": "launch-bound", "cublas": "PCIe-bound", "tiled": "compute-bound"})

    def test_stage04_replay_is_matched_by_kernel(self) -> None:
        replay = result("04_graph_capture_gemm", {**ARTICLE, "host_memory": "pinned", "kernel": "cublas",
                                                  "tf32": False}, [measurement("graph_replay", 8.75)])
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
        del old["bounds"]["kernel_gflops"]  # written before the stages measured the kernel alone
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
                                                  "tf32": False}, [measurement("graph_replay", 16.02)])
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

    def test_the_table_prints_the_regimes(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            write_folder(Path(tmp), {
                "03_stream_pool_gemm-cublas.json": stage03("cublas", False, 8.8, 8.4, 8.36, 34000.0, "PCIe both ways"),
            })
            proc = run_report("--table", tmp)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("Regimes: stage 03 with each kernel at the article's workload", proc.stdout)
        self.assertIn("engines % of bound", proc.stdout)
        self.assertNotRegex(proc.stdout, r"(?i)\bissue \d")


class SpeedUpColumn(unittest.TestCase):
    """Only a row that does the whole workload gets a speed-up vs 01: a kernel sum, a resource alone or
    one batch's first op has a GFLOP/s too, yet leaves out the copies."""

    def test_only_whole_workload_rows_get_a_speed_up(self) -> None:
        base = result("01_serial_baseline", {**ARTICLE, "host_memory": "pageable"},
                      [measurement("serial", 80.0, gflops=1300.0), measurement("kernel_sum", 17.0, gflops=6300.0)])
        pool = result("03_stream_pool_gemm", {**ARTICLE, "host_memory": "pinned"}, [
            measurement("stream_pool", 16.0, gflops=6700.0),
            measurement("kernel_sum", 17.0, None, gflops=6300.0),
            measurement("kernel_first_op", 0.2, None, gflops=5400.0),
            measurement("resource_alone", 15.9, None, gflops=6750.0, params={"resource": "kernels"})])
        graph = result("04_graph_capture_gemm", ARTICLE, [measurement("first_launch", 16.1, gflops=6650.0),
                                                         measurement("tiny_gemm_graph", 0.6, gflops=860.0)])
        with tempfile.TemporaryDirectory() as tmp:
            write_folder(Path(tmp), {"01_serial_baseline.json": base, "03_stream_pool_gemm.json": pool,
                                     "04_graph_capture_gemm.json": graph})
            suite = results_lib.load_suite(Path(tmp))
        baseline = next(r for r in suite.results if r.stage == "01_serial_baseline")
        speedups = {(row[0], row[1]): row[4] for row in report.table_rows(suite.results, baseline)}
        self.assertEqual(speedups[("01_serial_baseline", "serial")], "1.00x")
        self.assertEqual(speedups[("03_stream_pool_gemm", "stream_pool")], "5.00x")
        self.assertEqual(speedups[("04_graph_capture_gemm", "first_launch")], f"{80.0 / 16.1:.2f}x")
        for stage, name in [("01_serial_baseline", "kernel_sum"), ("03_stream_pool_gemm", "kernel_sum"),
                            ("03_stream_pool_gemm", "kernel_first_op"), ("03_stream_pool_gemm", "resource_alone"),
                            ("04_graph_capture_gemm", "tiny_gemm_graph")]:
            self.assertEqual(speedups[(stage, name)], "-", (stage, name))


class TableNamesTheSubcommand(unittest.TestCase):
    """--table on today's samples: a subcommand's rows say which one wrote them, the lesson's only the stage."""

    def test_each_run_is_named_by_its_stage_and_subcommand(self) -> None:
        proc = run_report("--table", SAMPLES)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        first_cells = {tuple(line.split()[:2]) for line in proc.stdout.splitlines() if line.startswith("0")}
        self.assertIn(("03_stream_pool_gemm", "kernels"), first_cells)
        self.assertIn(("04_graph_capture_gemm", "costs"), first_cells)
        self.assertIn(("03_stream_pool_gemm", "stream_pool"), first_cells)  # the lesson's pool: no subcommand


class TableOnSamples(unittest.TestCase):
    """--table on the samples: the rows, the speed-ups and the verified column come from the JSON."""

    @classmethod
    def setUpClass(cls) -> None:
        cls.before = sorted(p.name for p in DATA.iterdir())
        cls.proc = run_report("--table", DATA)
        cls.markdown = run_report("--table", DATA, "--markdown")
        cls.docs = results_in(DATA)

    def rows(self) -> list[list[str]]:
        """Each table row as (stage, variant, ..., median, speed-up, verified): the params may hold spaces."""
        lines = self.proc.stdout.splitlines()
        start = next(i for i, line in enumerate(lines) if line.startswith("stage "))
        rows = []
        for line in lines[start + 2:]:
            if not line.strip():
                break
            cells = line.split()
            rows.append([cells[0], cells[1], *cells[-3:]])
        return rows

    def test_runs_and_writes_nothing(self) -> None:
        self.assertEqual(self.proc.returncode, 0, self.proc.stderr)
        self.assertEqual(self.proc.stderr, "")
        self.assertEqual(sorted(p.name for p in DATA.iterdir()), self.before)

    def test_one_row_per_measurement_with_the_largest_copies_of_stage_02(self) -> None:
        expected = 0
        for doc in self.docs.values():
            if doc["stage"] == "02_pinned_vs_pageable":
                sized = [m for m in doc["measurements"] if m["name"] in ("copy", "host_memcpy")]
                groups = {(m["name"], m["params"].get("host_memory"), m["params"].get("direction")) for m in sized}
                expected += len(doc["measurements"]) - len(sized) + len(groups)
            else:
                expected += len(doc["measurements"])
        self.assertEqual(len(self.rows()), expected)

    def test_speed_up_vs_the_pageable_01_run_and_verified(self) -> None:
        base = find(self.docs["01_serial_baseline"], "serial")["median_ms"]
        pool = next(m for m in self.docs["03_stream_pool_gemm"]["measurements"] if m["name"] == "stream_pool")
        rows = [r for r in self.rows() if r[:2] == ["03_stream_pool_gemm", "stream_pool"]]
        self.assertEqual(rows[0][3], f"{base / pool['median_ms']:.2f}x")
        self.assertEqual(rows[0][4], "yes")
        costs = [r for r in self.rows() if r[1] == "capture"]
        self.assertTrue(costs)
        self.assertTrue(all(r[3] == "-" and r[4] == "n/a" for r in costs), costs)

    def test_stage02_peaks_and_the_footnote(self) -> None:
        peak = load(DATA / "02_pinned_vs_pageable.json")["bounds"]["pinned_h2d_peak_gbps"]
        self.assertIn(f"02_pinned_vs_pageable.json: peak GB/s over the sweep: pinned H2D {peak:.1f}", self.proc.stdout)
        self.assertIn("* speed-up vs 01 = median of 'serial' in 01_serial_baseline.json", self.proc.stdout)

    def test_markdown(self) -> None:
        self.assertEqual(self.markdown.returncode, 0, self.markdown.stderr)
        self.assertIn("| stage | variant | params | median ms | speed-up vs 01 * | verified |", self.markdown.stdout)
        self.assertIn("|---|---|---|---:|---:|---|", self.markdown.stdout)
        self.assertTrue(self.markdown.stdout.startswith("- device: "))

    def test_a_measurement_that_did_not_verify_exits_1(self) -> None:
        doc = load(DATA / "01_serial_baseline.json")
        doc["measurements"][1]["verified"] = False
        with tempfile.TemporaryDirectory() as tmp:
            write_folder(Path(tmp), {"01_serial_baseline.json": doc})
            proc = run_report("--table", tmp)
        self.assertEqual(proc.returncode, 1, proc.stdout)
        self.assertIn("1 measurement not verified", proc.stdout)
        self.assertIn("not verified in 01_serial_baseline.json: h2d_sum (pageable)", proc.stdout)


if __name__ == "__main__":
    unittest.main()
