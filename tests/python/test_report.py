#!/usr/bin/env python3
"""CPU tests of scripts/report.py as a command (standard library unittest):
report.md and its plots, --out and the refusal to write into the sample data,
the short summary, measured_at and the driver, output digests, --compare, bad
input, the one loader, a closed pipe, the usage.

    cd tests/python && python3 -m unittest -v test_report

Runs on the frozen sample results in tests/data/suite/before_subcommands/ (one
scripts/run_suite.sh run on an H200, one combined result per stage run: the
format before the laboratory had subcommands, which the report still reads)
and on small synthetic results built here; test_new_shape.py covers folders in
today's shape. matplotlib must be installed: without it the plot tests FAIL
(CI installs it).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import re
import unittest
from pathlib import Path

from report_fixtures import (ARTICLE, DATA, MIN_PNG_BYTES, PNG_SIGNATURE, REGIME_HEADING, REPO, REPORT, SUITE_PLOTS,
                             assert_ran_cleanly, class_temporary_dir, find, load, markdown_table, measurement, png_size,
                             read_report, require_matplotlib, result, results_in, run_report, section, temporary_dir,
                             write_folder)


class ReportOnSamples(unittest.TestCase):
    """report.py on the full sample suite, written elsewhere with --out: every row and every plot."""

    @classmethod
    def setUpClass(cls) -> None:
        cls.dir = class_temporary_dir(cls) / "report"
        cls.before = sorted(p.name for p in DATA.iterdir())
        cls.proc = run_report(DATA, "--out", cls.dir)
        cls.report = read_report(cls.dir)
        cls.docs = results_in(DATA)

    def setUp(self) -> None:
        require_matplotlib(self)

    def test_runs_cleanly_and_leaves_the_samples_alone(self) -> None:
        assert_ran_cleanly(self, self.proc)
        self.assertTrue(self.report, "report.md was not written")
        self.assertEqual(sorted(p.name for p in DATA.iterdir()), self.before, "wrote into tests/data")

    def test_no_placeholder_is_left_unfilled(self) -> None:
        # A string literal that lost its f prefix prints its {NAME} as written.
        self.assertIsNone(re.search(r"\{[A-Za-z_][A-Za-z_0-9.\[\]:]*\}", self.report),
                          "report.md holds an unfilled {placeholder}")

    def test_header_names_device_and_versions(self) -> None:
        device = next(iter(self.docs.values()))["device"]
        self.assertIn(device["name"], self.report)
        runtime, driver_api = device["runtime_version"], device["driver_version"]
        self.assertIn(f"CUDA runtime {runtime // 1000}.{runtime % 1000 // 10}", self.report)
        self.assertIn(f"CUDA driver API {driver_api // 1000}.{driver_api % 1000 // 10}", self.report)
        # The samples predate measured_at and device.driver: said so, not guessed.
        self.assertIn("- measured (UTC): date not recorded", self.report)
        self.assertIn("driver version not recorded", self.report)

    def main_table(self) -> dict[tuple[str, str], list[str]]:
        rows = markdown_table(self.report, "## The workload, every way")
        return {(r[0], r[1]): r for r in rows}

    def test_main_table_has_a_row_per_workload_measurement(self) -> None:
        table = self.main_table()
        for run_name, doc in self.docs.items():
            names = {k[1].split(" (")[0] for k in table if k[0] == run_name}
            if doc["stage"].startswith("02_"):
                self.assertFalse(names, "02's copies have their own table")
                continue
            for m in doc["measurements"]:
                if m.get("params", {}).get("sweep") is True:
                    continue
                if doc["stage"].startswith("04_") and m["name"] not in (
                        "graph_replay", "stream_pool", "first_launch", "relaunch", "launch_after_upload"):
                    continue
                self.assertIn(m["name"], names, f"{run_name}: no row for {m['name']}")

    def row(self, run_name: str, variant_prefix: str) -> list[str]:
        matches = [r for (run, variant), r in self.main_table().items()
                   if run == run_name and variant.startswith(variant_prefix)]
        self.assertEqual(len(matches), 1, f"{run_name} {variant_prefix}: {matches}")
        return matches[0]

    def test_pool_speedup_and_bound_are_within_its_own_run(self) -> None:
        doc = self.docs["03_stream_pool_gemm"]
        pool = next(m for m in doc["measurements"] if m["name"] == "stream_pool"
                    and m["params"]["order"] == "depth_first" and not m["params"].get("sweep"))
        serial = find(doc, "serial", host_memory="pageable")
        row = self.row("03_stream_pool_gemm", f"stream_pool ({pool['params']['streams']} streams, depth_first")
        self.assertEqual(row[2], f"{pool['median_ms']:.2f}")
        self.assertEqual(row[3], f"{serial['median_ms'] / pool['median_ms']:.2f}x")  # no †: same run
        bound = doc["bounds"]["pipeline_bound_ms"]
        self.assertEqual(row[4], f"{100 * bound / pool['median_ms']:.0f}%")
        self.assertEqual(row[5], "yes" if pool["verified"] else "NO")

    def test_other_runs_are_flagged_as_cross_run(self) -> None:
        base = find(self.docs["01_serial_baseline"], "serial", host_memory="pageable")["median_ms"]
        pinned = find(self.docs["01_serial_baseline-pinned"], "serial", host_memory="pinned")["median_ms"]
        self.assertEqual(self.row("01_serial_baseline", "serial")[3], "1.00x")
        self.assertEqual(self.row("01_serial_baseline-pinned", "serial")[3], f"{base / pinned:.2f}x †")
        replay = find(self.docs["04_graph_capture_gemm"], "graph_replay")["median_ms"]
        bound = self.docs["03_stream_pool_gemm"]["bounds"]["pipeline_bound_ms"]
        row = self.row("04_graph_capture_gemm", "graph_replay")
        self.assertEqual(row[3], f"{base / replay:.2f}x †")
        self.assertEqual(row[4], f"{100 * bound / replay:.0f}% †")
        self.assertIn("† across runs", self.report)

    def test_sweep_table_has_every_pool_size(self) -> None:
        doc = self.docs["03_stream_pool_gemm"]
        sweep = sorted((m["params"]["streams"], m["median_ms"]) for m in doc["measurements"]
                       if m["params"].get("sweep") is True)
        rows = markdown_table(self.report, "### Stream-count sweep (03_stream_pool_gemm, "
                              f"{doc['config']['host_memory']} host memory; ratios within this run)")
        self.assertEqual([int(r[0]) for r in rows], [s for s, _ in sweep])
        pinned = find(doc, "serial", host_memory="pinned")["median_ms"]
        for r, (_, ms) in zip(rows, sweep):
            self.assertEqual(r[3], f"{pinned / ms:.2f}x")

    def test_sweep_table_percent_of_bound_is_the_bound_over_each_median(self) -> None:
        doc = self.docs["03_stream_pool_gemm"]
        sweep = sorted((m["params"]["streams"], m["median_ms"], (m.get("bound") or {}).get("bound_ms"))
                       for m in doc["measurements"] if m["params"].get("sweep") is True)
        rows = markdown_table(self.report, "### Stream-count sweep (03_stream_pool_gemm, "
                              f"{doc['config']['host_memory']} host memory; ratios within this run)")
        run_bound = doc["bounds"]["pipeline_bound_ms"]
        for r, (_, ms, own) in zip(rows, sweep):
            self.assertEqual(r[4], f"{100 * (own or run_bound) / ms:.0f}%")

    def test_copy_table_has_every_kind_and_direction(self) -> None:
        doc = self.docs["02_pinned_vs_pageable"]
        expected = {(m["params"]["host_memory"], m["params"]["direction"]) for m in doc["measurements"]
                    if m["name"] == "copy"}
        rows = markdown_table(self.report, "### Copy bandwidth, GB/s (02_pinned_vs_pageable)")
        self.assertEqual({(r[0], r[1]) for r in rows}, expected)
        sizes = {m["params"]["bytes"] for m in doc["measurements"] if m["name"] == "copy"}
        self.assertEqual(len(rows[0]), 2 + min(len(sizes), 7), "one column per sweep size, none from other experiments")
        largest = max(m["params"]["bytes"] for m in doc["measurements"] if m["name"] == "copy")
        pinned = find(doc, "copy", host_memory="pinned", direction="h2d", bytes=largest)
        row = next(r for r in rows if r[:2] == ["pinned", "h2d"])
        self.assertEqual(row[-1], f"{pinned['gbps']:.1f}")

    def test_every_plot_is_a_real_png_at_slide_size(self) -> None:
        traces = sorted(p.name.removesuffix(".trace.json") for p in DATA.glob("*.trace.json"))
        self.assertTrue(traces, "the samples should include a trace")
        for name in [*SUITE_PLOTS, *(f"timeline_{t}.png" for t in traces)]:
            path = self.dir / name
            with self.subTest(plot=name):
                self.assertTrue(path.is_file(), f"{name} not written")
                self.assertEqual(path.read_bytes()[:8], PNG_SIGNATURE)
                self.assertGreater(path.stat().st_size, MIN_PNG_BYTES)
                width, height = png_size(path)
                self.assertGreaterEqual(width, 1200, "too small for a slide")
                self.assertGreater(height, 300)
                self.assertIn(f"]({name})", self.report, "report.md does not show it")
        self.assertNotIn("Not drawn", self.report)

    def test_no_tracker_numbers_in_the_report(self) -> None:
        self.assertNotRegex(self.report, r"(?i)\bissue \d")


def kernel_name(doc: dict) -> str:
    return doc["config"].get("kernel", "naive") + ("+tf32" if doc["config"].get("tf32") else "")


def regime_runs(docs: dict[str, dict]) -> dict[str, dict]:
    """kernel -> the stage 03 document of that kernel (pinned, the article's workload), as the samples hold
    one run per kernel."""
    runs = {}
    for doc in docs.values():
        c = doc["config"]
        if doc["stage"] == "03_stream_pool_gemm" and c["host_memory"] == "pinned" and \
                (c["batches"], c["m"], c["n"], c["k"]) == (100, 1024, 1024, 512):
            runs[kernel_name(doc)] = doc
    return runs


def pipeline_gflops(doc: dict) -> float:
    c, b = doc["config"], doc["bounds"]
    return 2.0 * c["m"] * c["n"] * c["k"] * c["batches"] / (min(b["stream_pool_ms"], b["engine_streams_ms"]) * 1e6)


class ReportRegimes(unittest.TestCase):
    """report.md's regime section and regimes.png, on the samples and on copies with runs removed or added."""

    def report_on(self, drop: str = "", extra: dict[str, dict] | None = None) -> tuple[str, Path, str]:
        """report.md of a copy of the samples without the files whose names contain `drop`, with `extra`
        files added; (report text, folder, stderr). The folder lives until the test ends."""
        directory = temporary_dir(self) / "results"
        shutil.copytree(DATA, directory, ignore=lambda _d, names: [n for n in names if drop and drop in n])
        for name, doc in (extra or {}).items():
            (directory / name).write_text(json.dumps(doc))
        proc = run_report(directory)
        assert_ran_cleanly(self, proc)
        return (directory / "report.md").read_text(), directory, proc.stderr

    def setUp(self) -> None:
        require_matplotlib(self)
        self.docs = results_in(DATA)
        self.runs = regime_runs(self.docs)
        self.assertIn("naive", self.runs, "the samples should hold stage 03 with the naive kernel")
        self.assertIn("cublas", self.runs, "the samples should hold stage 03 with cuBLAS")

    def test_a_graph_replay_is_held_against_the_bound_of_its_own_kernel(self) -> None:
        # 04 measures no bound of its own; its % of bound comes from the 03 run with the same kernel.
        report, _, _ = self.report_on()
        rows = markdown_table(report, "## The workload, every way")
        replays = {r[0]: r for r in rows if r[1].startswith("graph_replay (") and "100 batches" in r[1]}
        checked = 0
        for name, doc in self.docs.items():
            if doc["stage"] != "04_graph_capture_gemm" or name not in replays:
                continue
            kernel = kernel_name(doc)
            if kernel not in self.runs:
                continue
            replay = next(m for m in doc["measurements"] if m["name"] == "graph_replay")
            bound = self.runs[kernel]["bounds"]["pipeline_bound_ms"]
            with self.subTest(run=name):
                self.assertEqual(replays[name][4], f"{100.0 * bound / replay['median_ms']:.0f}% †")
                checked += 1
        self.assertGreaterEqual(checked, 2, "the samples hold 04 with naive and with cuBLAS")

    def test_one_row_per_kernel_with_the_figures_of_its_run(self) -> None:
        report, directory, _ = self.report_on()
        rows = {r[0]: r for r in markdown_table(report, REGIME_HEADING)}
        order = ["naive", "tiled", "cublas", "cublas+tf32"]
        self.assertEqual(list(rows), [k for k in order if k in self.runs])
        for kernel, doc in self.runs.items():
            b = doc["bounds"]
            with self.subTest(kernel=kernel):
                row = rows[kernel]
                self.assertEqual(row[1], f"{b['kernel_gflops']:,.0f}")
                self.assertEqual(row[2], f"{pipeline_gflops(doc):,.0f}")
                self.assertEqual(row[3:6], [f"{b['stream_pool_ms']:.2f}", f"{b['engine_streams_ms']:.2f}",
                                            f"{b['pipeline_bound_ms']:.2f}"])
                self.assertEqual(row[6], f"{b['limited_by']} ({b['regime']})")
                self.assertEqual(row[7], f"{100 * b['pipeline_bound_ms'] / b['stream_pool_ms']:.1f}%")
                self.assertEqual(row[8], f"{100 * b['pipeline_bound_ms'] / b['engine_streams_ms']:.1f}%")
        replays = {kernel_name(d): find(d, "graph_replay")["median_ms"] for d in self.docs.values()
                   if d["stage"] == "04_graph_capture_gemm"}
        for kernel, row in rows.items():
            self.assertEqual(row[9], f"{replays[kernel]:.2f}" if kernel in replays else "-", kernel)
        self.assertNotIn("Missing:", report)
        self.assertTrue((directory / "regimes.png").is_file())
        self.assertIn("](regimes.png)", report)

    def test_the_lesson_is_read_off_the_numbers(self) -> None:
        report, _, _ = self.report_on()
        text = section(report, REGIME_HEADING)
        naive = self.runs["naive"]
        fastest_kernel, fastest = max(((k, d) for k, d in self.runs.items() if k != "naive"),
                                      key=lambda kd: kd[1]["bounds"]["kernel_gflops"])
        kernel_x = fastest["bounds"]["kernel_gflops"] / naive["bounds"]["kernel_gflops"]
        pipeline_x = pipeline_gflops(fastest) / pipeline_gflops(naive)
        self.assertIn(f"The {fastest_kernel} kernel alone", text)
        self.assertIn(f"{kernel_x:.1f}× the naive kernel's", text)
        # On the samples the pipeline kept under half of the kernel's gain: the "only" branch.
        self.assertLess((pipeline_x - 1) / (kernel_x - 1), 0.5, "the samples no longer show the 'only' branch")
        self.assertIn(f"only {pipeline_x:.1f}× faster", text)
        for regime in {d["bounds"]["regime"] for d in self.runs.values()}:
            kernels = ", ".join(k for k in ("naive", "tiled", "cublas", "cublas+tf32")
                                if k in self.runs and self.runs[k]["bounds"]["regime"] == regime)
            self.assertIn(f"**{kernels}: {regime}.**", text)
        # The graph sentence is a measured comparison, not a claim made whatever the figures.
        self.assertNotIn("a graph saves CPU issue time, not GPU time", text)
        self.assertRegex(text, r"04's graph replay \([\d.]+ ms\) was (faster than|slower than|about equal to) 03's")

    def test_without_the_cublas_runs_the_section_says_so_and_the_plot_shows_the_rest(self) -> None:
        report, directory, _ = self.report_on(drop="cublas")
        rows = markdown_table(report, REGIME_HEADING)
        self.assertEqual([r[0] for r in rows], [k for k in ("naive", "tiled") if k in self.runs])
        self.assertIn("Missing: cublas (03_stream_pool_gemm-cublas.json), cublas+tf32 "
                      "(03_stream_pool_gemm-cublas_tf32.json)", report)
        path = directory / "regimes.png"
        self.assertTrue(path.is_file())
        self.assertEqual(path.read_bytes()[:8], PNG_SIGNATURE)
        self.assertGreater(path.stat().st_size, MIN_PNG_BYTES)

    def test_without_any_stage_03_run_there_is_no_table_and_no_plot(self) -> None:
        report, directory, _ = self.report_on(drop="03_stream_pool_gemm")
        text = section(report, REGIME_HEADING)
        self.assertIn("_No 03_stream_pool_gemm `kernels` run here", text)
        self.assertNotIn("| kernel |", text)
        self.assertFalse((directory / "regimes.png").exists())
        self.assertIn("### Regimes: the kernel alone vs the whole pipeline\n\n_Not drawn:", report)

    def test_a_kernel_run_twice_gives_one_row_from_the_run_named_for_it(self) -> None:
        # A second cuBLAS run, as gpu_box_check.sh's -cublas_timeline: its file name sorts first, but the
        # row comes from 03_stream_pool_gemm-cublas.json.
        other = load(DATA / "03_stream_pool_gemm-cublas.json")
        for key in ("stream_pool_ms", "engine_streams_ms", "kernel_gflops"):
            other["bounds"][key] *= 3
        report, _, _ = self.report_on(extra={"03_stream_pool_gemm-a_cublas_timeline.json": other})
        rows = [r for r in markdown_table(report, REGIME_HEADING) if r[0] == "cublas"]
        self.assertEqual(len(rows), 1)
        b = self.runs["cublas"]["bounds"]
        self.assertEqual(rows[0][1], f"{b['kernel_gflops']:,.0f}")
        self.assertEqual(rows[0][3], f"{b['stream_pool_ms']:.2f}")
        self.assertIn("03_stream_pool_gemm-cublas.json", section(report, REGIME_HEADING))


class ReportWithMissingStages(unittest.TestCase):
    def test_only_stage_01_skips_the_other_plots_with_a_note(self) -> None:
        require_matplotlib(self)
        directory = temporary_dir(self)
        for name in ("01_serial_baseline.json", "01_serial_baseline-pinned.json"):
            shutil.copy(DATA / name, directory / name)
        proc = run_report(directory)
        assert_ran_cleanly(self, proc)
        report = (directory / "report.md").read_text()
        self.assertIn("not in this folder: 02_pinned_vs_pageable, 03_stream_pool_gemm, 04_graph_capture_gemm", report)
        self.assertEqual(report.count("_Not drawn:"), 5)  # bandwidth, sweep, graph costs, regimes, timelines
        self.assertIn("_No 03_stream_pool_gemm `kernels` run here", report)  # the regime section says why it is empty
        self.assertTrue((directory / "stages.png").is_file())  # serial pageable vs pinned
        for name in ("bandwidth.png", "sweep.png", "graph_costs.png", "regimes.png"):
            self.assertFalse((directory / name).exists(), name)

    def test_without_matplotlib_report_md_is_still_written_and_exit_is_3(self) -> None:
        tmp = temporary_dir(self)
        blocker = tmp / "block" / "matplotlib"
        blocker.mkdir(parents=True)
        (blocker / "__init__.py").write_text("raise ImportError('matplotlib blocked by the test')\n")
        out = tmp / "out"
        # Marked as switched already: this interpreter is the one to report without matplotlib (test_python_env
        # covers the switch to .venv/).
        env = dict(os.environ, PYTHONPATH=str(blocker.parent), CSG_REPORT_UNDER_VENV="1")
        proc = run_report(DATA, "--out", out, env=env)
        self.assertEqual(proc.returncode, 3, proc.stderr)
        notices = [line for line in proc.stderr.splitlines() if "matplotlib" in line]
        self.assertEqual(len(notices), 1, "the notice, with what to do, is given once: " + proc.stderr)
        self.assertIn("to get matplotlib: ", notices[0])  # says what to do
        self.assertNotIn("--user", proc.stderr)  # a PEP 668 system refuses pip --user: never suggested
        self.assertNotIn("Traceback", proc.stderr)
        self.assertIn("matplotlib is not installed", (out / "report.md").read_text())
        self.assertIn("without plots", proc.stdout)


class OwnBounds(unittest.TestCase):
    """A row that carries its own bound is measured against it; in such a result a row without one gets none."""

    def test_each_row_against_its_own_bound_and_the_serial_runs_against_none(self) -> None:
        require_matplotlib(self)
        directory = temporary_dir(self)
        config = {**ARTICLE, "host_memory": "pageable", "kernel": "naive", "tf32": False}
        pool = lambda order, ms, bound: measurement(  # noqa: E731
            "stream_pool", ms, params={"streams": 8, "order": order, "host_memory": "pageable"},
            bound={"bound_ms": bound, "percent_of_bound": 100.0 * bound / ms})
        doc = result("03_stream_pool_gemm", config, [
            measurement("serial", 87.4, params={"host_memory": "pageable"}),
            pool("depth_first", 89.4, 89.0), pool("breadth_first", 72.8, 71.9),
            measurement("engine_streams", 88.6, params={"streams": 3, "host_memory": "pageable"},
                        bound={"bound_ms": 88.0})],
            {"pipeline_bound_ms": 89.0, "stream_pool_ms": 89.4, "limited_by": "host issue"})
        write_folder(directory, {"03_stream_pool_gemm-pageable.json": doc})
        assert_ran_cleanly(self, run_report(directory))
        rows = {(r[0], r[1]): r for r in markdown_table((directory / "report.md").read_text(),
                                                       "## The workload, every way")}
        percent = {variant: row[4] for (_, variant), row in rows.items()}
        self.assertEqual(percent["serial (pageable)"], "-", "a serial run has no pipeline bound of its own")
        breadth = next(v for v in percent if v.startswith("stream_pool") and "breadth_first" in v)
        depth = next(v for v in percent if v.startswith("stream_pool") and "depth_first" in v)
        engines = next(v for v in percent if v.startswith("engine_streams"))
        self.assertEqual(percent[breadth], f"{100 * 71.9 / 72.8:.0f}%", "not the depth-first pool's 89.0 ms")
        self.assertEqual(percent[depth], f"{100 * 89.0 / 89.4:.0f}%")
        self.assertEqual(percent[engines], f"{100 * 88.0 / 88.6:.0f}%")


    def test_a_serial_run_gets_no_bound_from_another_run(self) -> None:
        require_matplotlib(self)
        directory = temporary_dir(self)
        serial = result("01_serial_baseline", {**ARTICLE, "host_memory": "pinned", "kernel": "naive"},
                        [measurement("serial", 31.0, params={"host_memory": "pinned"})])
        pool = result("03_stream_pool_gemm", {**ARTICLE, "host_memory": "pinned", "kernel": "naive", "tf32": False},
                      [measurement("stream_pool", 16.2, params={"streams": 8, "host_memory": "pinned"})],
                      {"pipeline_bound_ms": 16.0, "stream_pool_ms": 16.2, "limited_by": "kernels"})
        replay = result("04_graph_capture_gemm", {**ARTICLE, "host_memory": "pinned", "kernel": "naive"},
                        [measurement("graph_replay", 16.1)])
        write_folder(directory, {"01_serial_baseline-pinned.json": serial, "03_stream_pool_gemm.json": pool,
                                 "04_graph_capture_gemm.json": replay})
        assert_ran_cleanly(self, run_report(directory))
        rows = {(r[0], r[1]): r for r in markdown_table((directory / "report.md").read_text(),
                                                       "## The workload, every way")}
        self.assertEqual(rows[("01_serial_baseline-pinned", "serial (pinned)")][4], "-")
        self.assertEqual(rows[("04_graph_capture_gemm", "graph_replay")][4], f"{100 * 16.0 / 16.1:.0f}% †",
                         "a row without a bound of its own still gets the same workload's pool bound")


class ReportOutput(unittest.TestCase):
    """Where report.md goes, what the terminal shows, and the refusal to write into the sample data."""

    def test_out_gets_the_report_and_the_plots_and_the_results_folder_nothing(self) -> None:
        require_matplotlib(self)
        tmp = temporary_dir(self)
        results = tmp / "results"
        shutil.copytree(DATA, results)
        before = sorted(p.name for p in results.iterdir())
        out = tmp / "new" / "folder"  # created, parents too
        proc = run_report(results, "--out", out)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(sorted(p.name for p in results.iterdir()), before)
        self.assertTrue((out / "report.md").is_file())
        for name in SUITE_PLOTS:
            self.assertTrue((out / name).is_file(), name)

    def test_without_out_the_report_goes_into_the_results_folder(self) -> None:
        results = temporary_dir(self) / "results"
        shutil.copytree(DATA, results)
        proc = run_report(results, "--no-plots")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertTrue((results / "report.md").is_file())
        self.assertFalse(list(results.glob("*.png")), "--no-plots drew plots")

    def test_the_sample_data_is_refused_without_out(self) -> None:
        before = sorted(p.name for p in DATA.iterdir())
        # Without git too (a tarball of the sources): tests/data is the sample data whatever git says.
        no_git = dict(os.environ, PATH=str(Path(sys.executable).parent))
        for target, env in ((DATA, None), (DATA.parent, None), (REPO / "tests" / "data" / "suite" / ".." / "suite", None),
                            (DATA, no_git)):
            with self.subTest(target=str(target), git=env is None):
                proc = run_report(target, "--no-plots", env=env)
                self.assertEqual(proc.returncode, 2, proc.stdout + proc.stderr)
                lines = proc.stderr.strip().splitlines()
                self.assertEqual(len(lines), 1, proc.stderr)
                self.assertIn("--out", lines[0])
                self.assertNotIn("Traceback", proc.stderr)
        self.assertEqual(sorted(p.name for p in DATA.iterdir()), before)

    def test_a_folder_of_tracked_files_is_refused_without_out(self) -> None:
        # Where git can tell: a folder of the source tree (scripts/) is not a results folder to write into.
        if shutil.which("git") is None or not (REPO / ".git").exists():
            self.skipTest("no git checkout here: the tests/data rule is tested above")
        proc = run_report(REPO / "scripts", "--no-plots")
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn("--out", proc.stderr)
        self.assertFalse((REPO / "scripts" / "report.md").exists())

    def test_the_summary_is_short_and_says_where_the_report_went(self) -> None:
        out = temporary_dir(self) / "out"
        proc = run_report(DATA, "--out", out, "--no-plots")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        lines = proc.stdout.strip().splitlines()
        self.assertLessEqual(len(lines), 6, proc.stdout)
        docs = results_in(DATA)
        self.assertIn(next(iter(docs.values()))["device"]["name"], lines[0])
        self.assertIn(f"{len(docs)} results", proc.stdout)
        self.assertIn("verified: every variant", proc.stdout)
        self.assertIn(str(out / "report.md"), lines[-1])
        self.assertNotIn("|", proc.stdout, "the table belongs in report.md, not on the terminal")

    def test_a_failed_verification_exits_1_and_the_summary_says_so(self) -> None:
        directory = temporary_dir(self)
        doc = load(DATA / "01_serial_baseline.json")
        doc["measurements"][0]["verified"] = False
        write_folder(directory, {"01_serial_baseline.json": doc})
        proc = run_report(directory, "--no-plots")
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertIn("verified: NO", proc.stdout)
        self.assertIn("**not verified in 01_serial_baseline.json: serial (pageable)**",
                      (directory / "report.md").read_text())

    def test_an_output_folder_that_cannot_be_made_is_bad_input(self) -> None:
        tmp = temporary_dir(self)
        (tmp / "file").write_text("not a folder")
        proc = run_report(DATA, "--out", tmp / "file" / "out", "--no-plots")
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertEqual(len(proc.stderr.strip().splitlines()), 1, proc.stderr)
        self.assertIn("cannot create", proc.stderr)


def serial_result(**top) -> dict:
    return result("01_serial_baseline", {**ARTICLE, "host_memory": "pageable", "seed": 1},
                  [measurement("serial", 80.0, params={"host_memory": "pageable"}, gflops=1300.0)], **top)


def device(**fields) -> dict:
    return {"name": "test GPU", "driver_version": 13000, "runtime_version": 12080, **fields}


class Provenance(unittest.TestCase):
    """The date and the driver come from the results (measured_at, device.driver), never from file times."""

    def report(self, files: dict[str, dict], *args: str) -> tuple[str, subprocess.CompletedProcess]:
        directory = write_folder(temporary_dir(self) / "results", files)
        # A modification time no result records: it must appear nowhere.
        for path in directory.iterdir():
            os.utime(path, (981_158_400, 981_158_400))  # 2001-02-03
        proc = run_report(directory, "--no-plots", *args)
        text = (directory / "report.md").read_text() if (directory / "report.md").exists() else ""
        return text, proc

    def header(self, report: str) -> str:
        return report.split("\n## ", 1)[0]

    def test_measured_at_and_the_driver_when_recorded(self) -> None:
        doc = serial_result(measured_at="2026-12-01T10:22:33Z", device=device(driver="580.159.04"))
        report, proc = self.report({"01_serial_baseline.json": doc})
        self.assertEqual(proc.returncode, 0, proc.stderr)
        header = self.header(report)
        self.assertIn("- measured (UTC): 2026-12-01T10:22:33Z\n", header)
        self.assertIn("driver 580.159.04, CUDA driver API 13.0, CUDA runtime 12.8", header)
        self.assertNotIn("2001", report)
        self.assertIn("2026-12-01T10:22:33Z", proc.stdout)

    def test_several_dates_give_the_range_and_a_missing_one_is_named(self) -> None:
        first = serial_result(measured_at="2026-12-01T10:22:33Z")
        last = serial_result(measured_at="2026-12-01T11:05:00Z")
        undated = serial_result()
        report, proc = self.report({"01_serial_baseline.json": first, "01_serial_baseline-b.json": last,
                                    "01_serial_baseline-c.json": undated})
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("- measured (UTC): 2026-12-01T10:22:33Z to 2026-12-01T11:05:00Z; date not recorded in "
                      "01_serial_baseline-c.json", self.header(report))

    def test_without_measured_at_or_driver_the_report_says_not_recorded(self) -> None:
        for driver in ({}, {"driver": None}):
            with self.subTest(driver=driver):
                report, proc = self.report({"01_serial_baseline.json": serial_result(device=device(**driver))})
                self.assertEqual(proc.returncode, 0, proc.stderr)
                header = self.header(report)
                self.assertIn("- measured (UTC): date not recorded", header)
                self.assertIn("driver version not recorded, CUDA driver API 13.0", header)
                self.assertNotIn("2001", report)
                # driver_version is the CUDA version the driver supports, never "the driver".
                self.assertNotRegex(report, r"driver (CUDA )?13\.0")

    def test_the_table_names_date_and_driver_the_same_way(self) -> None:
        directory = write_folder(temporary_dir(self), {
            "01_serial_baseline.json": serial_result(measured_at="2026-12-01T10:22:33Z",
                                                     device=device(driver="580.159.04"))})
        proc = run_report("--table", directory)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("driver 580.159.04, CUDA driver API 13.0", proc.stdout)
        self.assertIn("measured (UTC): 2026-12-01T10:22:33Z", proc.stdout)

    def test_a_malformed_date_or_driver_is_bad_input(self) -> None:
        for doc, field in ((serial_result(measured_at="yesterday"), "'measured_at'"),
                           (serial_result(measured_at=1733048553), "'measured_at'"),
                           (serial_result(device=device(driver=580)), "'device.driver'")):
            with self.subTest(field=field, doc=doc.get("measured_at")):
                _, proc = self.report({"01_serial_baseline.json": doc})
                self.assertEqual(proc.returncode, 2, proc.stderr)
                self.assertEqual(len(proc.stderr.strip().splitlines()), 1, proc.stderr)
                self.assertIn("01_serial_baseline.json", proc.stderr)
                self.assertIn(field, proc.stderr)


A = "0123456789abcdef"
B = "fedcba9876543210"
C = "00000000deadbeef"


def pool_result(digests: list[str | None], seed: int = 1, **top) -> dict:
    """A stage-03 result whose serial, stream_pool and engine_streams rows carry `digests` (None: no field)."""
    names = [("serial", {"host_memory": "pinned"}), ("stream_pool", {"streams": 8, "order": "depth_first"}),
             ("engine_streams", {"streams": 3})]
    measurements = []
    for (name, params), digest in zip(names, digests):
        m = measurement(name, 16.0 + len(measurements), params=params, gflops=6000.0)
        if digest is not None:
            m["digest"] = digest
        measurements.append(m)
    return result("03_stream_pool_gemm", {**ARTICLE, "host_memory": "pinned", "seed": seed}, measurements, **top)


class DigestsInReportAndTable(unittest.TestCase):
    """Whether the variants of one result computed the same outputs, in report.md and in --table."""

    def both(self, doc: dict) -> tuple[str, subprocess.CompletedProcess, subprocess.CompletedProcess]:
        directory = write_folder(temporary_dir(self), {"03_stream_pool_gemm.json": doc})
        table = run_report("--table", directory)
        proc = run_report(directory, "--no-plots")
        text = (directory / "report.md").read_text() if (directory / "report.md").exists() else ""
        return (section(text, "## Verification") if text else ""), proc, table

    def test_digests_that_agree(self) -> None:
        verification, proc, table = self.both(pool_result([A, A, A]))
        expected = f"03_stream_pool_gemm.json (1024×1024×512, 100 batches): the 3 output digests agree ({A})"
        self.assertEqual((proc.returncode, table.returncode), (0, 0), proc.stderr + table.stderr)
        self.assertIn(expected, verification)
        self.assertIn(expected, table.stdout)

    def test_digests_that_differ_are_a_failure(self) -> None:
        verification, proc, table = self.both(pool_result([A, A, B]))
        self.assertEqual((proc.returncode, table.returncode), (1, 1), proc.stderr + table.stderr)
        for text in (verification, table.stdout):
            self.assertIn("OUTPUTS DIFFER in 03_stream_pool_gemm.json (1024×1024×512, 100 batches)", text)
            self.assertIn(f"{B}: engine_streams (3 streams)", text)
        self.assertIn("verified: NO", proc.stdout)

    def test_outputs_of_another_shape_are_compared_among_themselves(self) -> None:
        # Stage 04's 1000 tiny 64³ GEMMs compute other outputs than the workload: not a disagreement.
        doc = result("04_graph_capture_gemm", {**ARTICLE, "host_memory": "pinned", "seed": 1}, [
            measurement("graph_replay", 16.0, params={"batches": 100, "streams": 8}, digest=A),
            measurement("stream_pool", 16.1, params={"batches": 100, "streams": 8}, digest=A),
            measurement("tiny_gemm_streams", 4.2, params={"gemms": 1000, "size": 64, "streams": 8}, digest=C),
            measurement("tiny_gemm_graph", 0.6, params={"gemms": 1000, "size": 64, "streams": 8}, digest=C),
            measurement("capture", 0.6, verified=None, params={"batches": 100, "streams": 8}, digest=None),
        ])
        directory = write_folder(temporary_dir(self), {"04_graph_capture_gemm.json": doc})
        proc = run_report("--table", directory)
        self.assertEqual(proc.returncode, 0, proc.stdout)
        self.assertIn(f"(1024×1024×512, 100 batches): the 2 output digests agree ({A})", proc.stdout)
        self.assertIn(f"(64³, 1000 batches): the 2 output digests agree ({C})", proc.stdout)

    def test_one_digest_or_none(self) -> None:
        verification, proc, _ = self.both(pool_result([A, None, None]))
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn(f"one output digest ({A}), nothing to compare it with", verification)
        verification, proc, _ = self.both(pool_result([None, None, None]))
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("no output digests in 03_stream_pool_gemm.json", verification)

    def test_a_malformed_digest_is_bad_input(self) -> None:
        for digest in ("0123456789ABCDEF", "0123", 12345):
            with self.subTest(digest=digest):
                doc = pool_result([A, A, A])
                doc["measurements"][1]["digest"] = digest
                _, proc, table = self.both(doc)
                for p in (proc, table):
                    self.assertEqual(p.returncode, 2, p.stderr)
                    self.assertIn("'measurements[1].digest'", p.stderr)


def scaled(doc: dict, factor: float) -> dict:
    doc = json.loads(json.dumps(doc))
    for m in doc["measurements"]:
        for key in ("median_ms", "min_ms", "max_ms", "p95_ms"):
            if key in m:
                m[key] *= factor
    return doc


class Compare(unittest.TestCase):
    FACTORS = {"01_serial_baseline": 1.25, "03_stream_pool_gemm": 0.8}

    def test_ratios_and_unmatched_rows(self) -> None:
        tmp = temporary_dir(self)
        old, new = tmp / "old", tmp / "new"
        old.mkdir()
        new.mkdir()
        for run_name in self.FACTORS:
            shutil.copy(DATA / f"{run_name}.json", old)
            doc = scaled(load(DATA / f"{run_name}.json"), self.FACTORS[run_name])
            if run_name == "03_stream_pool_gemm":
                dropped = doc["measurements"].pop()  # only in OLD
            (new / f"{run_name}.json").write_text(json.dumps(doc))
        shutil.copy(DATA / "01_serial_baseline-pinned.json", new)  # only in NEW

        proc = run_report("--compare", old, new)
        assert_ran_cleanly(self, proc)
        out = proc.stdout
        table, _, rest = out.partition("\nNEW/OLD < 1")
        rows = [line.split() for line in table.splitlines() if line.startswith(tuple(self.FACTORS))]
        expected_rows = sum(len(load(DATA / f"{r}.json")["measurements"]) for r in self.FACTORS) - 1
        self.assertEqual(len(rows), expected_rows, out)
        for cells in rows:
            factor = self.FACTORS[cells[0]]
            self.assertEqual(cells[-3], f"{factor:.3f}", cells)      # NEW/OLD
            self.assertEqual(cells[-2], f"{1 / factor:.2f}x", cells)  # speed-up
            self.assertEqual(cells[-1], "-", cells)                   # the samples carry no digests
        only_old = rest.split("only in OLD")[1].split("only in NEW")[0]
        self.assertIn(dropped["name"], only_old)
        only_new = rest.split("only in NEW")[1]
        self.assertIn("01_serial_baseline-pinned  serial  host_memory=pinned", only_new)

    def test_two_single_files(self) -> None:
        proc = run_report("--compare", DATA / "01_serial_baseline.json", DATA / "01_serial_baseline-pinned.json")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        old = find(load(DATA / "01_serial_baseline.json"), "kernel_sum")["median_ms"]
        new = find(load(DATA / "01_serial_baseline-pinned.json"), "kernel_sum")["median_ms"]
        line = next(l for l in proc.stdout.splitlines() if l.split()[1:2] == ["kernel_sum"])
        self.assertEqual(line.split()[-3], f"{new / old:.3f}")
        self.assertIn("only in OLD", proc.stdout)  # serial pageable vs serial pinned: different params

    def test_a_run_that_did_not_verify_exits_1(self) -> None:
        tmp = temporary_dir(self)
        bad = load(DATA / "01_serial_baseline.json")
        bad["verification"] = {"passed": False, "failure": "batch 3: C[0][0] expected 12, got NaN"}
        write_folder(tmp / "new", {"01_serial_baseline.json": bad})
        proc = run_report("--compare", DATA / "01_serial_baseline.json", tmp / "new")
        self.assertEqual(proc.returncode, 1, proc.stdout + proc.stderr)
        self.assertIn("NEW: VERIFICATION FAILED in 01_serial_baseline.json: batch 3", proc.stdout)


class CompareDigests(unittest.TestCase):
    """--compare says, per row with a digest in both runs, whether the outputs are the same."""

    def compare(self, old: dict, new: dict) -> subprocess.CompletedProcess:
        tmp = temporary_dir(self)
        write_folder(tmp / "old", {"03_stream_pool_gemm.json": old})
        write_folder(tmp / "new", {"03_stream_pool_gemm.json": new})
        return run_report("--compare", tmp / "old", tmp / "new")

    def outputs(self, proc: subprocess.CompletedProcess) -> dict[str, str]:
        """variant -> the outputs column."""
        return {line.split()[1]: line.split()[-1] for line in proc.stdout.splitlines()
                if line.startswith("03_stream_pool_gemm ")}

    def test_equal_digests(self) -> None:
        proc = self.compare(pool_result([A, A, A]), pool_result([A, A, A]))
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertEqual(self.outputs(proc), {"serial": "equal", "stream_pool": "equal", "engine_streams": "equal"})
        self.assertIn("digests compared in 3 rows: 3 equal", proc.stdout)
        self.assertNotIn("OUTPUTS DIFFER", proc.stdout)

    def test_different_digests_from_the_same_config_are_a_finding(self) -> None:
        proc = self.compare(pool_result([A, A, A]), pool_result([A, B, A]))
        self.assertEqual(proc.returncode, 1, proc.stdout + proc.stderr)
        self.assertEqual(self.outputs(proc)["stream_pool"], "DIFFERENT")
        self.assertEqual(self.outputs(proc)["serial"], "equal")
        self.assertIn("OUTPUTS DIFFER in 1 row with the same config seed, m, n, k and batches", proc.stdout)
        self.assertIn(f"stream_pool  order=depth_first streams=8: OLD {A}, NEW {B}", proc.stdout)

    def test_different_digests_from_another_seed_are_expected(self) -> None:
        proc = self.compare(pool_result([A, A, A]), pool_result([B, B, B], seed=2))
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertEqual(set(self.outputs(proc).values()), {"different-config"})
        self.assertNotIn("OUTPUTS DIFFER", proc.stdout)

    def test_a_config_without_its_seed_is_not_the_same_config(self) -> None:
        old, new = pool_result([A, A, A]), pool_result([B, B, B])
        del old["config"]["seed"], new["config"]["seed"]
        proc = self.compare(old, new)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertEqual(set(self.outputs(proc).values()), {"different-config"})

    def test_a_row_without_a_digest_in_one_run(self) -> None:
        proc = self.compare(pool_result([A, A, A]), pool_result([A, None, None]))
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertEqual(self.outputs(proc), {"serial": "equal", "stream_pool": "-", "engine_streams": "-"})
        self.assertIn("digests compared in 1 row: 1 equal", proc.stdout)


MODES = (("report", lambda d: [d, "--no-plots"]), ("table", lambda d: ["--table", d]),
         ("compare", lambda d: ["--compare", d, DATA]))


class BadInput(unittest.TestCase):
    """Every mode refuses a bad result file the same way: exit 2, one line naming the file and the field."""

    def check_error(self, mutate, expected: str, raw_text: str | None = None) -> None:
        """`mutate` edits the real 01 result in place; `raw_text`, if given, is written instead."""
        directory = temporary_dir(self)
        doc = load(DATA / "01_serial_baseline.json")
        mutate(doc)
        (directory / "01_serial_baseline.json").write_text(raw_text if raw_text is not None else json.dumps(doc))
        for mode, args in MODES:
            proc = run_report(*args(directory))
            with self.subTest(mode=mode):
                self.assertEqual(proc.returncode, 2, proc.stdout + proc.stderr)
                self.assertNotIn("Traceback", proc.stderr)
                lines = proc.stderr.strip().splitlines()
                self.assertEqual(len(lines), 1, proc.stderr)
                self.assertIn("01_serial_baseline.json", lines[0])
                self.assertIn(expected, lines[0])
        self.assertFalse((directory / "report.md").exists())

    def test_wrong_schema(self) -> None:
        self.check_error(lambda d: d.update(schema="cuda-streams-graphs/result/v0"), "'schema'")

    def test_no_schema(self) -> None:
        self.check_error(lambda d: d.pop("schema"), "no 'schema' field")

    def test_missing_median(self) -> None:
        self.check_error(lambda d: d["measurements"][0].pop("median_ms"), "measurements[0].median_ms")

    def test_missing_measurements(self) -> None:
        self.check_error(lambda d: d.pop("measurements"), "'measurements'")

    def test_params_not_an_object(self) -> None:
        self.check_error(lambda d: d["measurements"][1].update(params=[1, 2]), "measurements[1].params")

    def test_verified_not_a_boolean(self) -> None:
        self.check_error(lambda d: d["measurements"][2].update(verified="yes"), "measurements[2].verified")

    def test_not_json(self) -> None:
        self.check_error(lambda d: None, "not valid JSON", raw_text="{ not json")

    def test_no_such_folder_and_empty_folder(self) -> None:
        tmp = temporary_dir(self)
        for target, expected in ((tmp / "missing", "no such directory"), (tmp, "no cuda-streams")):
            for mode, args in MODES[:2]:
                with self.subTest(target=target.name, mode=mode):
                    proc = run_report(*args(target))
                    self.assertEqual(proc.returncode, 2)
                    self.assertIn(expected, proc.stderr)
                    self.assertNotIn("Traceback", proc.stderr)
        proc = run_report("--compare", tmp / "missing", DATA)
        self.assertEqual(proc.returncode, 2)
        self.assertIn("no such file or directory", proc.stderr)


class OneLoader(unittest.TestCase):
    """Every mode reads a folder the same way: the same results, traces and skipped files, the same notes."""

    def setUp(self) -> None:
        self.directory = write_folder(temporary_dir(self) / "results", {
            "01_serial_baseline.json": load(DATA / "01_serial_baseline.json"),
            "01_serial_baseline.trace.json": load(DATA / "01_serial_baseline.trace.json"),
            "notes.json": {"tool": "something else", "version": 3},
            "list.json": [1, 2, 3],
        })
        self.expected = [
            "note: skipping list.json: not a cuda-streams-graphs/result/v2 result or a trace",
            "note: skipping notes.json: not a cuda-streams-graphs/result/v2 result or a trace",
        ]

    def test_the_same_notes_in_every_mode(self) -> None:
        for mode, args in MODES:
            with self.subTest(mode=mode):
                proc = run_report(*args(self.directory))
                self.assertEqual(proc.returncode, 0, proc.stderr)
                notes = [line for line in proc.stderr.splitlines() if line.startswith("note:")]
                self.assertEqual(notes, self.expected)  # compare: OLD is the folder, NEW the samples: no notes

    def test_the_trace_is_a_trace_in_every_mode(self) -> None:
        proc = run_report(self.directory, "--no-plots")
        self.assertIn("1 result, 1 timeline;", proc.stdout)
        for args in (["--table", self.directory], ["--compare", self.directory, self.directory]):
            with self.subTest(mode=args[0]):
                proc = run_report(*args)
                self.assertEqual(proc.returncode, 0, proc.stderr)
                self.assertNotIn("01_serial_baseline.trace.json", proc.stdout + proc.stderr)

    def test_a_single_file_that_is_not_a_result(self) -> None:
        for name, expected in (("notes.json", "not a cuda-streams-graphs/result/v2 result file"),
                               ("01_serial_baseline.trace.json", "a timeline trace")):
            with self.subTest(file=name):
                proc = run_report("--compare", self.directory / name, DATA / "01_serial_baseline.json")
                self.assertEqual(proc.returncode, 2, proc.stdout)
                self.assertIn(expected, proc.stderr)


class ClosedPipe(unittest.TestCase):
    """report.py ... | head -1: the reader goes away early; no traceback, the run's own exit status."""

    def closed_early(self, *args: str | Path) -> tuple[int, str]:
        """Runs report.py with stdout a pipe whose reading end is closed before it writes anything."""
        with tempfile.TemporaryFile("w+") as stderr:
            proc = subprocess.Popen([sys.executable, str(REPORT), *map(str, args)], stdout=subprocess.PIPE,
                                    stderr=stderr, text=True)
            proc.stdout.close()
            status = proc.wait(timeout=300)
            stderr.seek(0)
            return status, stderr.read()

    def assert_quiet(self, status: int, stderr: str, expected: int = 0) -> None:
        self.assertEqual(status, expected, stderr)
        for word in ("Traceback", "BrokenPipe", "Exception ignored"):
            self.assertNotIn(word, stderr)

    def test_every_mode_with_stdout_closed(self) -> None:
        out = temporary_dir(self) / "out"
        for args in ([DATA, "--out", out, "--no-plots"], ["--table", DATA], ["--table", DATA, "--markdown"],
                     ["--compare", DATA, DATA], ["--help"]):
            with self.subTest(args=args[0]):
                self.assert_quiet(*self.closed_early(*args))
        self.assertTrue((out / "report.md").is_file(), "the report is written before the summary is printed")

    def test_the_status_of_the_run_stands(self) -> None:
        directory = write_folder(temporary_dir(self), {"03_stream_pool_gemm.json": pool_result([A, B, A])})
        self.assert_quiet(*self.closed_early("--table", directory), expected=1)

    def test_head_reads_one_line_of_a_long_table(self) -> None:
        # More than any pipe buffer holds (64 KiB by default), so report.py is still writing when the
        # reader closes: the write itself meets the closed pipe.
        many = [measurement("variant_with_a_long_name", 1.0 + i / 1000, params={"index": i}) for i in range(20000)]
        directory = write_folder(temporary_dir(self), {
            "03_stream_pool_gemm.json": result("03_stream_pool_gemm", dict(ARTICLE), many)})
        with tempfile.TemporaryFile("w+") as stderr:
            proc = subprocess.Popen([sys.executable, str(REPORT), "--table", str(directory)], stdout=subprocess.PIPE,
                                    stderr=stderr, text=True)
            first = proc.stdout.readline()
            proc.stdout.close()
            status = proc.wait(timeout=300)
            stderr.seek(0)
            self.assertIn("device: test GPU", first)
            self.assert_quiet(status, stderr.read())


class Usage(unittest.TestCase):
    def test_help_names_every_mode_and_exit_status(self) -> None:
        for args in (["--help"], ["-h"], ["--table", "--help"], ["--compare", "a", "b", "--help"]):
            with self.subTest(args=args):
                proc = run_report(*args)
                self.assertEqual(proc.returncode, 0, proc.stderr)
                for text in ("RESULTS_DIR [--out DIR] [--no-plots]", "--table RESULTS_DIR [--markdown]",
                             "--compare OLD NEW", "exit status", "matplotlib is missing"):
                    self.assertIn(text, proc.stdout)

    def test_bad_usage_exits_2(self) -> None:
        for args in ([], ["--markdown", DATA], ["--table", DATA, "--out", "x"], ["--compare", DATA, DATA, DATA],
                     ["--compare", DATA, DATA, "--out", "x"], ["--table"], ["--bogus", DATA]):
            with self.subTest(args=args):
                proc = run_report(*args)
                self.assertEqual(proc.returncode, 2, proc.stdout + proc.stderr)
                self.assertIn("usage:", proc.stderr)
                self.assertNotIn("Traceback", proc.stderr)


if __name__ == "__main__":
    unittest.main()
