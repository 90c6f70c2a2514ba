#!/usr/bin/env python3
"""CPU tests of scripts/report.py and scripts/run_suite.sh (standard library unittest).

    python3 -m unittest discover -s tests/python -v     (or: python3 tests/python/test_report.py)

The report runs on the sample results in tests/data/suite/: the JSON and
trace files of one scripts/run_suite.sh run on an H200 (CUDA 13.0, driver
580). Every expected figure is computed here from those files, never
hard-coded, so the files of another run drop in unchanged.
matplotlib must be installed: without it the plot tests FAIL (CI installs it).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import struct
import subprocess
import sys
import tempfile
import textwrap
import unittest
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SCRIPTS = REPO / "scripts"
REPORT = SCRIPTS / "report.py"
DATA = REPO / "tests" / "data" / "suite"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
MIN_PNG_BYTES = 10_000  # a blank or tiny image is a failed plot
SUITE_PLOTS = ("bandwidth.png", "stages.png", "sweep.png", "graph_costs.png", "regimes.png")


def require_matplotlib(test: unittest.TestCase) -> None:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        test.fail("matplotlib is not installed, so report.py can draw no plots: install it "
                  "(apt-get install python3-matplotlib, or python3 -m pip install -r scripts/requirements.txt)")


def run(args: list[str], env: dict[str, str] | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(args, capture_output=True, text=True, timeout=300, env=env, cwd=cwd)


def run_report(*args: str | Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return run([sys.executable, str(REPORT), *map(str, args)], env=env)


def load(path: Path) -> dict:
    return json.loads(path.read_text())


def results_in(directory: Path) -> dict[str, dict]:
    """run name -> document, for the result files (not traces) of a folder."""
    return {p.stem: load(p) for p in sorted(directory.glob("*.json"))
            if not p.name.endswith(".trace.json") and "schema" in load(p)}


def find(doc: dict, name: str, **params) -> dict:
    for m in doc["measurements"]:
        if m["name"] == name and all(m.get("params", {}).get(k) == v for k, v in params.items()):
            return m
    raise AssertionError(f"{doc['stage']}: no measurement {name} {params}")


def markdown_table(text: str, heading: str) -> list[list[str]]:
    """The rows (cells) of the first table after the line `heading`."""
    lines = text.splitlines()
    start = lines.index(heading)
    rows, in_table = [], False
    for line in lines[start + 1:]:
        if line.startswith("|"):
            in_table = True
            rows.append([c.strip() for c in line.strip().strip("|").split(" | ")])
        elif in_table:
            break
    return [r for r in rows[2:]]  # without the header and the |---| line


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()[:24]
    return struct.unpack(">II", data[16:24])


class ReportOnSamples(unittest.TestCase):
    """report.py on the full sample suite: every row and every plot."""

    @classmethod
    def setUpClass(cls) -> None:
        cls.tmp = tempfile.TemporaryDirectory()
        cls.dir = Path(cls.tmp.name) / "results"
        shutil.copytree(DATA, cls.dir)
        cls.proc = run_report(cls.dir)
        cls.report = (cls.dir / "report.md").read_text() if (cls.dir / "report.md").exists() else ""
        cls.docs = results_in(DATA)

    @classmethod
    def tearDownClass(cls) -> None:
        cls.tmp.cleanup()

    def setUp(self) -> None:
        require_matplotlib(self)

    def test_runs_cleanly(self) -> None:
        self.assertEqual(self.proc.returncode, 0, self.proc.stderr)
        self.assertNotIn("Traceback", self.proc.stderr)
        self.assertTrue(self.report, "report.md was not written")

    def test_header_names_device_and_versions(self) -> None:
        device = next(iter(self.docs.values()))["device"]
        self.assertIn(device["name"], self.report)
        runtime = device["runtime_version"]
        self.assertIn(f"runtime CUDA {runtime // 1000}.{runtime % 1000 // 10}", self.report)
        self.assertRegex(self.report, r"- date: \d{4}-\d\d-\d\d")

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


REGIME_HEADING = "## Regimes (issue 9): the kernel alone vs the whole pipeline"


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
    """report.md's regime section (issue 9) and regimes.png, on the samples and on copies with runs removed
    or added."""

    def report_on(self, drop: str = "", extra: dict[str, dict] | None = None) -> tuple[str, Path, str]:
        """report.md of a copy of the samples without the files whose names contain `drop`, with `extra`
        files added; (report text, folder, stderr). The folder lives until the test ends."""
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        directory = Path(tmp.name) / "results"
        shutil.copytree(DATA, directory, ignore=lambda _d, names: [n for n in names if drop and drop in n])
        for name, doc in (extra or {}).items():
            (directory / name).write_text(json.dumps(doc))
        proc = run_report(directory)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertNotIn("Traceback", proc.stderr)
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
            kernel = doc["config"].get("kernel", "naive") + ("+tf32" if doc["config"].get("tf32") else "")
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
        section = report.split(REGIME_HEADING)[1].split("\n## ")[0]
        naive = self.runs["naive"]
        fastest_kernel, fastest = max(((k, d) for k, d in self.runs.items() if k != "naive"),
                                      key=lambda kd: kd[1]["bounds"]["kernel_gflops"])
        kernel_x = fastest["bounds"]["kernel_gflops"] / naive["bounds"]["kernel_gflops"]
        pipeline_x = pipeline_gflops(fastest) / pipeline_gflops(naive)
        self.assertIn(f"The {fastest_kernel} kernel alone", section)
        self.assertIn(f"{kernel_x:.1f}× the naive kernel's", section)
        self.assertIn(f"only {pipeline_x:.1f}× faster", section)
        for regime in {d["bounds"]["regime"] for d in self.runs.values()}:
            kernels = ", ".join(k for k in ("naive", "tiled", "cublas", "cublas+tf32")
                                if k in self.runs and self.runs[k]["bounds"]["regime"] == regime)
            self.assertIn(f"**{kernels}: {regime}.**", section)

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
        section = report.split(REGIME_HEADING)[1].split("\n## ")[0]
        self.assertIn("_No 03_stream_pool_gemm run here", section)
        self.assertNotIn("| kernel |", section)
        self.assertFalse((directory / "regimes.png").exists())
        self.assertIn("### Regimes: the kernel alone vs the whole pipeline (issue 9)\n\n_Not drawn:", report)

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
        self.assertIn("03_stream_pool_gemm-cublas.json", report.split(REGIME_HEADING)[1].split("\n## ")[0])


class ReportWithMissingStages(unittest.TestCase):
    def test_only_stage_01_skips_the_other_plots_with_a_note(self) -> None:
        require_matplotlib(self)
        with tempfile.TemporaryDirectory() as tmp:
            directory = Path(tmp)
            for name in ("01_serial_baseline.json", "01_serial_baseline-pinned.json"):
                shutil.copy(DATA / name, directory / name)
            proc = run_report(directory)
            self.assertEqual(proc.returncode, 0, proc.stderr)
            self.assertNotIn("Traceback", proc.stderr)
            report = (directory / "report.md").read_text()
            self.assertIn("not in this folder: 02_pinned_vs_pageable, 03_stream_pool_gemm, 04_graph_capture_gemm",
                          report)
            self.assertEqual(report.count("_Not drawn:"), 5)  # bandwidth, sweep, graph costs, regimes, timelines
            self.assertIn("_No 03_stream_pool_gemm run here", report)  # the regime section says why it is empty
            self.assertTrue((directory / "stages.png").is_file())  # serial pageable vs pinned
            for name in ("bandwidth.png", "sweep.png", "graph_costs.png", "regimes.png"):
                self.assertFalse((directory / name).exists(), name)

    def test_without_matplotlib_report_md_is_still_written_and_exit_is_3(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            blocker = Path(tmp) / "block" / "matplotlib"
            blocker.mkdir(parents=True)
            (blocker / "__init__.py").write_text("raise ImportError('matplotlib blocked by the test')\n")
            directory = Path(tmp) / "results"
            shutil.copytree(DATA, directory)
            env = dict(os.environ, PYTHONPATH=str(blocker.parent))
            proc = run_report(directory, env=env)
            self.assertEqual(proc.returncode, 3, proc.stderr)
            self.assertIn("matplotlib", proc.stderr)
            self.assertNotIn("Traceback", proc.stderr)
            self.assertIn("matplotlib is not installed", (directory / "report.md").read_text())


class Compare(unittest.TestCase):
    FACTORS = {"01_serial_baseline": 1.25, "03_stream_pool_gemm": 0.8}

    def test_ratios_and_unmatched_rows(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            old, new = Path(tmp) / "old", Path(tmp) / "new"
            old.mkdir()
            new.mkdir()
            for run_name in self.FACTORS:
                shutil.copy(DATA / f"{run_name}.json", old)
                doc = load(DATA / f"{run_name}.json")
                for m in doc["measurements"]:
                    for key in ("median_ms", "min_ms", "max_ms", "p95_ms"):
                        m[key] *= self.FACTORS[run_name]
                if run_name == "03_stream_pool_gemm":
                    dropped = doc["measurements"].pop()  # only in OLD
                (new / f"{run_name}.json").write_text(json.dumps(doc))
            shutil.copy(DATA / "01_serial_baseline-pinned.json", new)  # only in NEW

            proc = run_report("--compare", old, new)
            self.assertEqual(proc.returncode, 0, proc.stderr)
            self.assertNotIn("Traceback", proc.stderr)
            out = proc.stdout
            table, _, rest = out.partition("\nNEW/OLD < 1")
            rows = [line.split() for line in table.splitlines() if line.startswith(tuple(self.FACTORS))]
            expected_rows = sum(len(load(DATA / f"{r}.json")["measurements"]) for r in self.FACTORS) - 1
            self.assertEqual(len(rows), expected_rows, out)
            for cells in rows:
                factor = self.FACTORS[cells[0]]
                self.assertEqual(cells[-2], f"{factor:.3f}", cells)      # NEW/OLD
                self.assertEqual(cells[-1], f"{1 / factor:.2f}x", cells)  # speed-up
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
        self.assertEqual(line.split()[-2], f"{new / old:.3f}")
        self.assertIn("only in OLD", proc.stdout)  # serial pageable vs serial pinned: different params


class BadInput(unittest.TestCase):
    def check_error(self, mutate, expected: str, raw_text: str | None = None) -> None:
        """`mutate` edits the real 01 result in place; `raw_text`, if given, is written instead."""
        with tempfile.TemporaryDirectory() as tmp:
            directory = Path(tmp)
            doc = load(DATA / "01_serial_baseline.json")
            mutate(doc)
            (directory / "01_serial_baseline.json").write_text(raw_text if raw_text is not None else json.dumps(doc))
            for args in ([directory], ["--compare", directory, DATA]):
                proc = run_report(*args)
                with self.subTest(args=args[0]):
                    self.assertEqual(proc.returncode, 2, proc.stdout + proc.stderr)
                    self.assertNotIn("Traceback", proc.stderr)
                    lines = proc.stderr.strip().splitlines()
                    self.assertEqual(len(lines), 1, proc.stderr)
                    self.assertIn("01_serial_baseline.json", lines[0])
                    self.assertIn(expected, lines[0])
            self.assertFalse((directory / "report.md").exists())

    def test_wrong_schema(self) -> None:
        self.check_error(lambda d: d.update(schema="cuda-streams-graphs/result/v0"), "schema")

    def test_no_schema(self) -> None:
        self.check_error(lambda d: d.pop("schema"), "no 'schema' field")

    def test_missing_median(self) -> None:
        self.check_error(lambda d: d["measurements"][0].pop("median_ms"), "measurements[0].median_ms")

    def test_missing_measurements(self) -> None:
        self.check_error(lambda d: d.pop("measurements"), "'measurements'")

    def test_params_not_an_object(self) -> None:
        self.check_error(lambda d: d["measurements"][1].update(params=[1, 2]), "measurements[1].params")

    def test_not_json(self) -> None:
        self.check_error(lambda d: None, "not valid JSON", raw_text="{ not json")

    def test_no_such_folder_and_empty_folder(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            for target, expected in ((Path(tmp) / "missing", "no such directory"), (Path(tmp), "no cuda-streams")):
                proc = run_report(target)
                self.assertEqual(proc.returncode, 2)
                self.assertIn(expected, proc.stderr)
                self.assertNotIn("Traceback", proc.stderr)


# --- scripts/run_suite.sh with fake stages and a fake cmake ------------------------

FAKE_STAGE = textwrap.dedent("""\
    #!/usr/bin/env bash
    # A stand-in for a stage binary: copies a sample result to --json.
    name=$(basename "$0")
    echo "$name $*" >>"$FAKE_LOG"
    if [[ $1 == --help ]]; then
      echo "usage: $name [--json FILE]"
      [[ $name == 01_* || $name == 03_* ]] && echo "  --trace FILE  write the timeline"
      exit 0
    fi
    if [[ -n ${FAKE_NO_DEVICE:-} ]]; then
      echo "$name: no CUDA device found (cudaGetDeviceCount: no CUDA-capable device is detected)" >&2
      exit 77
    fi
    json= trace= memory= kernel= tf32=
    while [[ $# -gt 0 ]]; do
      case $1 in
        --json) json=$2; shift ;;
        --trace) trace=$2; shift ;;
        --host-memory) memory=$2; shift ;;
        --kernel) kernel=$2; shift ;;
        --tf32) tf32=_tf32 ;;
      esac
      shift
    done
    echo "[$name +0.1s] timing" >&2
    echo "the table of $name"
    # The sample of the same run: 01_serial_baseline-pinned, 03_stream_pool_gemm-cublas_tf32, ...
    variant=${memory:-${kernel:+$kernel$tf32}}
    sample="$FAKE_DATA/$name${variant:+-$variant}.json"
    [[ -f $sample ]] || sample="$FAKE_DATA/$name.json"
    cp "$sample" "$json"
    if [[ -n $trace ]]; then cp "$FAKE_DATA/$name.trace.json" "$trace" 2>/dev/null || true; fi
    exit 0
""")

FAKE_CMAKE = textwrap.dedent("""\
    #!/usr/bin/env bash
    echo "cmake $*" >>"$FAKE_LOG"
    if [[ $1 == --preset ]]; then mkdir -p build/default && touch build/default/CMakeCache.txt; fi
    exit 0
""")

STAGES = ("01_serial_baseline", "02_pinned_vs_pageable", "03_stream_pool_gemm", "04_graph_capture_gemm")
# Every run of run_suite.sh, in order: name -> the stage's arguments before --json (and --trace).
RUNS = {
    "01_serial_baseline": "",
    "01_serial_baseline-pinned": "--host-memory pinned",
    "02_pinned_vs_pageable": "--quick",
    "03_stream_pool_gemm": "",
    "03_stream_pool_gemm-pageable": "--host-memory pageable --streams-sweep off",
    "04_graph_capture_gemm": "",
    "01_serial_baseline-tiled": "--kernel tiled",
    "01_serial_baseline-cublas": "--kernel cublas",
    "03_stream_pool_gemm-tiled": "--kernel tiled --streams-sweep off",
    "03_stream_pool_gemm-cublas": "--kernel cublas --streams-sweep off",
    "03_stream_pool_gemm-cublas_tf32": "--kernel cublas --tf32 --streams-sweep off",
    "04_graph_capture_gemm-cublas": "--kernel cublas",
}


def executable(path: Path, text: str) -> None:
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


class RunSuite(unittest.TestCase):
    def setUp(self) -> None:
        self.tmp = tempfile.TemporaryDirectory()
        root = Path(self.tmp.name)
        self.repo = root / "repo"
        shutil.copytree(SCRIPTS, self.repo / "scripts", ignore=shutil.ignore_patterns("__pycache__"))
        bin_dir = self.repo / "build" / "default" / "bin"
        bin_dir.mkdir(parents=True)
        for stage in STAGES:
            executable(bin_dir / stage, FAKE_STAGE)
        tools = root / "tools"
        tools.mkdir()
        executable(tools / "cmake", FAKE_CMAKE)
        self.log = root / "calls.log"
        self.env = dict(os.environ, PATH=f"{tools}:{os.environ['PATH']}", FAKE_LOG=str(self.log),
                        FAKE_DATA=str(DATA))
        self.env.pop("CSG_RESULTS_DIR", None)
        self.results = root / "results"

    def tearDown(self) -> None:
        self.tmp.cleanup()

    def suite(self, **env: str) -> subprocess.CompletedProcess:
        return run(["bash", str(self.repo / "scripts" / "run_suite.sh"), str(self.results)],
                   env={**self.env, **env}, cwd=self.repo)

    def calls(self) -> list[str]:
        return self.log.read_text().splitlines()

    def test_no_device_stops_at_the_first_stage_with_77(self) -> None:
        (self.repo / "build" / "default" / "CMakeCache.txt").touch()
        proc = self.suite(FAKE_NO_DEVICE="1")
        self.assertEqual(proc.returncode, 77, proc.stderr)
        self.assertIn("01_serial_baseline: no CUDA device found", proc.stderr)
        runs = [c for c in self.calls() if not c.startswith("cmake") and "--help" not in c]
        self.assertEqual(len(runs), 1, runs)  # stopped at once
        self.assertFalse((self.results / "report.md").exists())

    def test_full_run_builds_runs_every_stage_and_reports(self) -> None:
        require_matplotlib(self)
        proc = self.suite()
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        calls = self.calls()
        self.assertIn("cmake --preset default", calls)  # no cache yet: configured once
        self.assertTrue(any(c.startswith("cmake --build --preset default") for c in calls))
        # One call per run, in order, named by the file it writes.
        runs = [c for c in calls if not c.startswith("cmake") and "--help" not in c]
        self.assertEqual([re.search(r"--json \S+/([^/ ]+)\.json", c).group(1) for c in runs], list(RUNS))
        for call, (name, args) in zip(runs, RUNS.items()):
            with self.subTest(run=name):
                binary = name.split("-")[0]
                # --trace only for the run at defaults, and only where --help lists it (the fakes: 01 and 03)
                trace = f"--trace {self.results}/{name}.trace.json" \
                    if "-" not in name and binary.startswith(("01_", "03_")) else ""
                expected = " ".join(filter(None, [binary, args, trace, f"--json {self.results}/{name}.json"]))
                self.assertEqual(call, expected)
                self.assertTrue((self.results / f"{name}.json").is_file())
        self.assertTrue((self.results / "report.md").is_file())
        for name in SUITE_PLOTS:
            self.assertTrue((self.results / name).is_file(), name)
        # The kernel runs give the report one regime row per kernel.
        report = (self.results / "report.md").read_text()
        kernels = [r[0] for r in markdown_table(report, "## Regimes (issue 9): the kernel alone vs the whole pipeline")]
        self.assertEqual(kernels, ["naive", "tiled", "cublas", "cublas+tf32"])
        # progress on stderr: which run, elapsed seconds; the stage's own progress lines too
        self.assertRegex(proc.stderr, rf"\[\s*\d+s\] 2\) \(1/{len(RUNS)}\) 01_serial_baseline")
        self.assertIn("[01_serial_baseline +0.1s] timing", proc.stderr)
        self.assertIn("the table of 01_serial_baseline", (self.results / "01_serial_baseline.log").read_text())

        # A second run with the build in place: no configure step again.
        self.log.unlink()
        proc = self.suite()
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertNotIn("cmake --preset default", self.calls())

    def test_a_failing_stage_still_gets_a_report_and_exit_1(self) -> None:
        require_matplotlib(self)
        (self.repo / "build" / "default" / "CMakeCache.txt").touch()
        executable(self.repo / "build" / "default" / "bin" / "04_graph_capture_gemm",
                   "#!/usr/bin/env bash\n[[ $1 == --help ]] && exit 0\necho 'batch 3 wrong' >&2\nexit 1\n")
        proc = self.suite()
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertIn("04_graph_capture_gemm exited with 1", proc.stderr)
        self.assertTrue((self.results / "report.md").is_file())


if __name__ == "__main__":
    unittest.main()
