#!/usr/bin/env python3
"""CPU tests of scripts/report.py on folders in the shape of today's suite: a
lesson's run and one run per subcommand, each result with its "subcommand"
field (report_fixtures.new_shape_files, cut from the frozen samples). Each
table and plot must find its data by stage and subcommand: the regime table in
03's `kernels` and 04's `costs` runs, the sweep in the lesson (never in
count-sweep's other workload), the bandwidths in 02's `sweep`, the graph costs
in 04's `costs` and `tiny-work`. Also the lookup itself (runs_of), and the one
plural rule of every output.

    cd tests/python && python3 -m unittest -v test_new_shape
"""

from __future__ import annotations

import json
import re
import unittest
from pathlib import Path

from report_fixtures import (DATA, LESSON_FACTOR, MIN_PNG_BYTES, PNG_SIGNATURE, REGIME_HEADING, SUITE_PLOTS,
                             assert_ran_cleanly, class_temporary_dir, find, markdown_table, measurement,
                             new_shape_files, new_shape_folder, read_report, require_matplotlib, result, run_report,
                             section, stage03, temporary_dir, write_folder)
from test_regime_map import MIXED, grid, map_result

import results_lib as lib  # noqa: E402  (scripts/ is on the path: report_fixtures)
from results_lib import LESSON, Result, first_run, plural, run_name_for, runs_of, with_key  # noqa: E402

S01, S02, S03, S04 = "01_serial_baseline", "02_pinned_vs_pageable", "03_stream_pool_gemm", "04_graph_capture_gemm"


def loaded(files: dict[str, dict]) -> list[Result]:
    return [Result(Path(name), doc) for name, doc in files.items()]


class RunsOf(unittest.TestCase):
    """The one lookup: a run by stage and subcommand, best first; a combined result answers for every one."""

    def setUp(self) -> None:
        pool = stage03("naive", False, 16.0, 17.5, 17.3, 6200.0, "kernels")
        cublas = stage03("cublas", False, 8.8, 8.4, 8.36, 34000.0, "PCIe both ways")
        self.results = loaded({
            f"{S03}-kernels-cublas.json": {**cublas, "subcommand": "kernels"},
            f"{S03}-kernels-naive.json": {**pool, "subcommand": "kernels"},
            f"{S03}-a-kernels-naive.json": {**pool, "subcommand": "kernels"},
            f"{S03}.json": {**pool, "subcommand": None},
            f"{S03}-count-sweep.json": {**pool, "subcommand": "count-sweep", "stream_count": {"sizes": [1]}},
            f"{S03}-timeline.json": {**pool, "subcommand": "timeline", "timeline": None},
            f"{S04}-costs.json": {**pool, "stage": S04, "subcommand": "costs"},
        })

    def names(self, runs: list[Result]) -> list[str]:
        return [r.path.stem for r in runs]

    def test_by_subcommand_in_the_order_asked_then_the_plain_name_then_by_name(self) -> None:
        self.assertEqual(self.names(runs_of(self.results, S03, [LESSON, "kernels"])),
                         [S03, f"{S03}-a-kernels-naive", f"{S03}-kernels-cublas", f"{S03}-kernels-naive"])
        self.assertEqual(self.names(runs_of(self.results, S03, ["kernels", LESSON], kernel="naive")),
                         [f"{S03}-kernels-naive", f"{S03}-a-kernels-naive", S03])
        self.assertEqual(self.names(runs_of(self.results, S03, ["count-sweep"])), [f"{S03}-count-sweep"])
        self.assertEqual(runs_of(self.results, S03, ["regime-map"]), [])
        self.assertEqual(len(runs_of(self.results, S03)), 6, "None: every run of the stage")
        self.assertEqual(first_run(self.results, S04, ["costs"]).path.stem, f"{S04}-costs")
        self.assertIsNone(first_run(self.results, S04, [LESSON]))

    def test_a_top_level_object_finds_its_experiment_and_null_is_none(self) -> None:
        self.assertEqual(self.names(with_key(self.results, "stream_count")), [f"{S03}-count-sweep"])
        self.assertEqual(with_key(self.results, "timeline"), [], "a null object is no experiment")
        unmapped = {**stage03("naive", False, 16.0, 17.5, 17.3, 6200.0, "kernels"), "regime_map": None}
        lib.validate(unmapped, Path("a.json"))  # null: not measured in that run, not a malformed map
        self.assertEqual(lib.map_results(loaded({"a.json": unmapped})), [])

    def test_a_combined_result_holds_every_subcommand(self) -> None:
        combined = loaded({f"{S03}.json": stage03("naive", False, 16.0, 17.5, 17.3, 6200.0, "kernels")})[0]
        self.assertTrue(combined.combined)
        self.assertIsNone(combined.subcommand)
        for subcommand in (LESSON, "kernels", "count-sweep"):
            self.assertTrue(combined.holds([subcommand]), subcommand)
        lesson = next(r for r in self.results if r.path.stem == S03)
        self.assertFalse(lesson.combined)
        self.assertTrue(lesson.holds([LESSON]))
        self.assertFalse(lesson.holds(["kernels"]), "a lesson's run is not the kernels experiment")

    def test_run_names(self) -> None:
        self.assertEqual(run_name_for(S03), S03)
        self.assertEqual(run_name_for(S03, "kernels", "cublas+tf32"), f"{S03}-kernels-cublas_tf32")
        self.assertEqual(lib.run_name_for_kernel(S03, "cublas+tf32", "kernels"), f"{S03}-kernels-cublas_tf32")
        self.assertEqual(lib.run_name_for_kernel(S03, "naive"), S03, "a combined result's name")
        self.assertEqual(lib.run_name_for_kernel(S03, "tiled"), f"{S03}-tiled")

    def test_a_subcommand_that_is_not_a_name_is_bad_input(self) -> None:
        directory = temporary_dir(self)
        doc = stage03("naive", False, 16.0, 17.5, 17.3, 6200.0, "kernels")
        for value in (3, "", ["kernels"]):
            with self.subTest(value=value):
                write_folder(directory, {f"{S03}.json": {**doc, "subcommand": value}})
                proc = run_report("--table", directory)
                self.assertEqual(proc.returncode, 2, proc.stdout + proc.stderr)
                self.assertIn("'subcommand'", proc.stderr)
                self.assertEqual(len(proc.stderr.strip().splitlines()), 1, proc.stderr)


class NewShapeReport(unittest.TestCase):
    """report.md and the plots of a folder of lesson and subcommand runs: every table and plot of the combined
    results' report, each from the runs that hold its experiment."""

    @classmethod
    def setUpClass(cls) -> None:
        cls.dir = new_shape_folder(class_temporary_dir(cls) / "results", regime_map=map_result(grid(MIXED)))
        cls.proc = run_report(cls.dir)
        cls.report = read_report(cls.dir)
        cls.files = new_shape_files()
        # The same figures as combined results: the report the samples were made from.
        cls.old_dir = class_temporary_dir(cls) / "old"
        cls.old_proc = run_report(DATA, "--out", cls.old_dir, "--no-plots")
        cls.old_report = read_report(cls.old_dir)

    def setUp(self) -> None:
        require_matplotlib(self)

    def test_every_table_and_plot(self) -> None:
        assert_ran_cleanly(self, self.proc)
        for heading in ("## The workload, every way", "## Verification", REGIME_HEADING,
                        f"### Copy bandwidth, GB/s ({S02}-sweep)",
                        f"### Stream-count sweep ({S03}, pinned host memory; ratios within this run)",
                        f"### Graph costs ({S04}-costs)", f"### Graph costs ({S04}-tiny-work)",
                        f"## Regime map: where the graph wins ({S04}-regime-map)",
                        "## Bounds and ratios measured by the stages themselves", "## Plots"):
            self.assertIn(heading + "\n", self.report)
        plots = [*SUITE_PLOTS, f"regime_map_{S04}-regime-map.png",
                 *(f"timeline_{stage}-timeline.png" for stage in (S01, S02, S03, S04))]
        for name in plots:
            with self.subTest(plot=name):
                path = self.dir / name
                self.assertEqual(path.read_bytes()[:8], PNG_SIGNATURE)
                self.assertGreater(path.stat().st_size, MIN_PNG_BYTES)
                self.assertIn(f"]({name})", self.report)
        self.assertNotIn("_Not drawn", self.report)
        self.assertNotIn("not in this folder", self.report)

    def test_the_regime_table_is_the_kernels_and_costs_runs_and_the_same_as_before(self) -> None:
        rows = markdown_table(self.report, REGIME_HEADING)
        self.assertEqual([r[0] for r in rows], ["naive", "tiled", "cublas", "cublas+tf32"])
        # The lesson (naive, pinned, with the same bounds keys but other figures) is not a row.
        self.assertEqual(rows, markdown_table(self.old_report, REGIME_HEADING))
        text = section(self.report, REGIME_HEADING)
        self.assertIn(f"From {S03}-kernels-naive.json, {S03}-kernels-tiled.json, {S03}-kernels-cublas.json, "
                      f"{S03}-kernels-cublas_tf32.json, {S04}-costs.json, {S04}-costs-cublas.json.", text)
        self.assertNotIn(f"{S03}.json", text)

    def test_the_sweep_is_the_lessons_never_the_count_sweeps(self) -> None:
        headings = [line for line in self.report.splitlines() if line.startswith(f"### Stream-count sweep ({S03}")]
        self.assertEqual(headings, [f"### Stream-count sweep ({S03}, pinned host memory; ratios within this run)",
                                    f"### Stream-count sweep ({S03}-kernels-cublas, pinned host memory; ratios "
                                    "within this run)"])
        lesson = self.files[f"{S03}.json"]
        sweep = sorted((m["params"]["streams"], m["median_ms"]) for m in lesson["measurements"]
                       if m["params"].get("sweep") is True)
        rows = markdown_table(self.report, headings[0])
        self.assertEqual([(int(r[0]), r[1]) for r in rows], [(s, f"{ms:.2f}") for s, ms in sweep])
        self.assertNotIn("1024", "".join(r[0] for r in rows))
        caption = section(self.report, "### Stream-count sweep (03)")
        self.assertNotIn("count-sweep", caption)

    def test_the_bandwidths_are_the_sweeps_not_the_lessons(self) -> None:
        headings = [line for line in self.report.splitlines() if line.startswith("### Copy bandwidth, GB/s")]
        self.assertEqual(headings, [f"### Copy bandwidth, GB/s ({S02}-sweep)"])
        rows = markdown_table(self.report, headings[0])
        self.assertEqual(rows, markdown_table(self.old_report, f"### Copy bandwidth, GB/s ({S02})"))
        self.assertNotIn("64 MiB", self.report.split(headings[0])[1].split("\n\n", 2)[1])

    def test_the_graph_costs_plot_takes_the_costs_and_the_tiny_work(self) -> None:
        caption = section(self.report, "### Graph costs (04)")
        self.assertIn("Graph replay is about equal to the stream pool", caption)       # costs
        self.assertIn("issuing the work as one graph launch", caption)               # costs
        self.assertIn("1000 empty kernels as a graph", caption)                      # tiny-work
        self.assertIn("the stage puts the break-even at", caption)                   # costs' bounds
        # The same sentences as the combined run's.
        self.assertEqual(caption.strip().splitlines()[-1],
                         section(self.old_report, f"### Graph costs ({S04})").strip().splitlines()[-1]
                         .replace("Within this run: graph", "Capture, instantiate and upload are paid once per "
                                  "graph, a replay every time. Graph"))

    def test_the_main_table_holds_the_workload_runs_only(self) -> None:
        runs = {r[0] for r in markdown_table(self.report, "## The workload, every way")}
        self.assertEqual(runs, {S01, f"{S01}-pinned", f"{S01}-kernels-tiled", f"{S01}-kernels-cublas", S03,
                                f"{S03}-kernels-naive", f"{S03}-kernels-tiled", f"{S03}-kernels-cublas",
                                f"{S03}-kernels-cublas_tf32", f"{S03}-order-pageable", f"{S03}-engine-streams", S04,
                                f"{S04}-costs", f"{S04}-costs-cublas"})
        appendix = {r[0] for r in markdown_table(self.report, "<details><summary>Every measurement (all runs)"
                                                              "</summary>")}
        self.assertIn(f"{S03}-count-sweep", appendix, "every measurement stays in the appendix")
        self.assertIn(f"{S04}-tiny-work", appendix)

    def test_the_stage_bars_find_each_run(self) -> None:
        caption = section(self.report, "### The same work, stage by stage")
        self.assertIn("The stream pool on pageable memory", caption)  # 03 order --host-memory pageable
        self.assertIn("The stream pool on pinned memory", caption)    # the lesson
        self.assertIn("The graph replay takes", caption)              # 04's lesson, against 03's bound
        self.assertIn("Serial with pinned memory", caption)           # 01's lesson, pinned

    def test_the_speed_up_across_runs_is_against_the_lesson_of_01(self) -> None:
        lesson = find(self.files[f"{S01}.json"], "serial", host_memory="pageable")["median_ms"]
        self.assertIn(f"serial {lesson:.2f} ms from {S01}.json", self.report)
        self.assertNotEqual(f"{lesson:.2f}", f"{lesson / LESSON_FACTOR:.2f}")


class NewShapeTable(unittest.TestCase):
    def test_the_table_of_a_new_shape_folder(self) -> None:
        directory = new_shape_folder(temporary_dir(self) / "results", regime_map=map_result(grid(MIXED)))
        proc = run_report("--table", directory)
        assert_ran_cleanly(self, proc)
        self.assertIn("* speed-up vs 01 = median of 'serial' in 01_serial_baseline.json", proc.stdout)
        self.assertIn(f"{S02}-sweep.json: peak GB/s over the sweep: pinned H2D", proc.stdout)
        regimes = proc.stdout.split("Regimes: stage 03 with each kernel")[1].split("\n\n")[0]
        self.assertEqual([line.split()[0] for line in regimes.splitlines()[2:]],
                         ["naive", "tiled", "cublas", "cublas+tf32"])
        self.assertIn(f"Regime map ({S04}-regime-map.json)", proc.stdout)


class NewShapeMissingRuns(unittest.TestCase):
    """What the report says when a folder of today's shape lacks the runs a table needs."""

    def report_without(self, *names: str) -> str:
        files = {name: doc for name, doc in new_shape_files().items() if name.removesuffix(".json") not in names}
        directory = write_folder(temporary_dir(self) / "results", files)
        proc = run_report(directory, "--no-plots")
        assert_ran_cleanly(self, proc)
        return read_report(directory)

    def test_without_the_kernels_runs_the_lesson_is_no_regime_row(self) -> None:
        report = self.report_without(*(f"{S03}-kernels-{k}" for k in ("naive", "tiled", "cublas", "cublas_tf32")))
        text = section(report, REGIME_HEADING)
        self.assertIn(f"_No {S03} `kernels` run here", text)
        self.assertIn(f"scripts/run_suite.sh writes {S03}-kernels-naive.json, {S03}-kernels-tiled.json, "
                      f"{S03}-kernels-cublas.json, {S03}-kernels-cublas_tf32.json._", text)

    def test_a_missing_kernel_is_named_by_its_run(self) -> None:
        report = self.report_without(f"{S03}-kernels-cublas", f"{S03}-kernels-cublas_tf32")
        self.assertIn(f"Missing: cublas ({S03}-kernels-cublas.json), cublas+tf32 ({S03}-kernels-cublas_tf32.json)",
                      report)

    def test_without_the_sweep_run_the_lessons_copies_make_the_table(self) -> None:
        report = self.report_without(f"{S02}-sweep")
        headings = [line for line in report.splitlines() if line.startswith("### Copy bandwidth, GB/s")]
        self.assertEqual(headings, [f"### Copy bandwidth, GB/s ({S02})"])
        self.assertIn("| 64 MiB |", report)


# --- one plural rule -------------------------------------------------------------------------

class Plural(unittest.TestCase):
    def test_the_rule(self) -> None:
        cases = [((1, "batch"), "1 batch"), ((2, "batch"), "2 batches"), ((0, "stream"), "0 streams"),
                 ((1.0, "stream"), "1 stream"), ((1.5, "replay"), "1.5 replays"), ((1024, "stream"), "1024 streams"),
                 ((3, "copy"), "3 copies"), ((2, "day"), "2 days"), ((2, "box"), "2 boxes"),
                 ((1, "empty kernel"), "1 empty kernel"), ((2, "empty kernel"), "2 empty kernels"),
                 ((1, "gemm", "gemms"), "1 gemm"), ((5, "GEMM", "GEMMs"), "5 GEMMs")]
        for args, expected in cases:
            with self.subTest(args=args):
                self.assertEqual(plural(*args), expected)

    def test_no_output_says_1_batches_or_guesses_with_s_in_brackets(self) -> None:
        require_matplotlib(self)
        directory = temporary_dir(self) / "results"
        one = {"batches": 1, "m": 64, "n": 64, "k": 64, "host_memory": "pinned", "kernel": "naive", "tf32": False,
               "seed": 1}
        serial = result(S01, {**one, "host_memory": "pageable"}, [
            measurement("serial", 0.4, params={"host_memory": "pageable", "batches": 1, "streams": 1}),
            measurement("h2d_sum", 0.1, False, params={"host_memory": "pageable", "kernels": 1, "gemms": 1})],
            subcommand=None)
        pool = result(S03, one, [
            measurement("serial", 0.4, params={"host_memory": "pageable"}),
            measurement("serial", 0.3, params={"host_memory": "pinned"}),
            measurement("stream_pool", 0.3, params={"streams": 1, "order": "depth_first", "sweep": True},
                        digest="0123456789abcdef"),
            measurement("stream_pool", 0.3, params={"streams": 2, "order": "depth_first", "sweep": True},
                        digest="fedcba9876543210")],
            {"pipeline_bound_ms": 0.3}, subcommand=None)
        tiny = result(S04, one, [
            measurement("tiny_empty_streams", 0.01, params={"kernels": 1}),
            measurement("tiny_empty_graph", 0.01, params={"kernels": 1}),
            measurement("tiny_gemm_streams", 0.01, params={"gemms": 1, "size": 64, "streams": 1}),
            measurement("tiny_gemm_graph", 0.01, params={"gemms": 1, "size": 64, "streams": 1})],
            subcommand="tiny-work")
        cell = {"m": 32, "n": 32, "k": 32, "batches": 1, "stream_ms": 1.0, "graph_ms": 0.5, "winner": "graph",
                "skipped_reason": None, "verified": True}
        skipped = {"m": 64, "n": 64, "k": 64, "batches": 1, "stream_ms": None, "graph_ms": None, "winner": None,
                   "skipped_reason": "estimated 14.7 s", "skipped_because": "time", "verified": None}
        the_map = result(S04, {"host_memory": "pinned", "kernel": "naive"}, [], subcommand="regime-map",
                         regime_map={"sizes": [32, 64], "batches": [1], "streams": 1, "repeats": 1,
                                     "equal_within": 0.03, "cells": [cell, skipped]})
        trace = {"traceEvents": [{"ph": "X", "name": "h2d", "ts": 0, "dur": 5, "tid": 1}]}
        write_folder(directory, {f"{S01}.json": serial, f"{S03}.json": pool, f"{S04}-tiny-work.json": tiny,
                                 f"{S04}-regime-map.json": the_map, f"{S01}-timeline.trace.json": trace})
        other = write_folder(temporary_dir(self) / "other", {f"{S03}.json": json.loads(json.dumps(pool))})
        json_path = other / f"{S03}.json"
        changed = json.loads(json_path.read_text())
        changed["measurements"][2]["digest"] = "00000000deadbeef"
        json_path.write_text(json.dumps(changed))
        outputs = {}
        for label, args in (("report", [directory]), ("table", ["--table", directory]),
                            ("compare", ["--compare", directory, other])):
            proc = run_report(*args)
            self.assertNotIn("Traceback", proc.stderr)
            outputs[label] = proc.stdout + proc.stderr
        outputs["report.md"] = read_report(directory)
        words = ("batches", "streams", "results", "timelines", "cells", "plots", "problems", "rows", "kernels",
                 "gemms", "GEMMs", "measurements", "ties", "runs", "operations", "empty kernels")
        for label, text in outputs.items():
            with self.subTest(output=label):
                self.assertIsNone(re.search(rf"(?<![\d.,=])1 ({'|'.join(words)})\b", text),
                                  re.search(rf"(?<![\d.,=]).{{40}}1 ({'|'.join(words)})\b.{{20}}", text))
                self.assertNotIn("(s)", text)
        # The singulars are there: the outputs did say these counts.
        self.assertIn("1 cell skipped", outputs["report.md"])
        self.assertIn("More streams do not help here: 1 stream,", outputs["report.md"])
        self.assertIn("1 empty kernel as a graph", outputs["report.md"])
        self.assertIn("1 measurement not verified", outputs["table"])
        self.assertIn("OUTPUTS DIFFER in 1 row ", outputs["compare"])
        self.assertIn("| 1 batch |", outputs["report.md"])


if __name__ == "__main__":
    unittest.main()
