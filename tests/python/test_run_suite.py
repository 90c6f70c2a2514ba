#!/usr/bin/env python3
"""CPU tests of scripts/run_suite.sh and scripts/gpu_box_check.sh with
stand-in stages and stand-in tools, and of their one run table (csg_runs in
scripts/results_dir.sh): the runs in order with their subcommands and
arguments, the exit codes, the report run_suite.sh writes by calling
python3 scripts/report.py RESULTS_DIR, and the summary gpu_box_check.sh prints.

    cd tests/python && python3 -m unittest -v test_run_suite
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import textwrap
import unittest
from dataclasses import dataclass
from pathlib import Path

from report_fixtures import (REGIME_HEADING, SCRIPTS, SUITE_PLOTS, markdown_table, new_shape_folder,
                             require_matplotlib, run)
from test_regime_map import MIXED, grid, map_result

STAGES = ("01_serial_baseline", "02_pinned_vs_pageable", "03_stream_pool_gemm", "04_graph_capture_gemm")
# The subcommands of each stage (the names the stages register; fixed).
SUBCOMMANDS = {
    "01_serial_baseline": {"kernels", "timeline"},
    "02_pinned_vs_pageable": {"sweep", "overlap", "pinning-cost", "timeline"},
    "03_stream_pool_gemm": {"kernels", "order", "engine-streams", "count-sweep", "priorities", "contention",
                            "timeline"},
    "04_graph_capture_gemm": {"costs", "node-updates", "changing-shapes", "tiny-work", "launch-chains",
                              "launch-anatomy", "regime-map", "graph", "skip-join", "timeline", "device-launch",
                              "conditional", "pdl", "memory-nodes", "startup"},
}


# --- the run table, as the scripts read it ------------------------------------------------

@dataclass
class Run:
    modes: str
    name: str
    binary: str
    subcommand: str  # "" for the lesson
    args: list[str]
    exit: int
    env: list[str]

    def argv(self, results: Path) -> list[str]:
        """The stage's arguments, the placeholders filled in for `results`, and --json."""
        fill = [a.replace("{trace}", f"{results}/{self.name}.trace.json").replace("{results}", str(results))
                for a in self.args]
        return [*([self.subcommand] if self.subcommand else []), *fill, "--json", f"{results}/{self.name}.json"]


def run_table() -> list[Run]:
    """Every row of csg_runs, read through the scripts' own csg_run_fields."""
    script = textwrap.dedent(f"""\
        source {SCRIPTS}/results_dir.sh
        for row in "${{csg_runs[@]}}"; do
          csg_run_fields "$row" "{{R}}"
          printf '%s\\x1f%s\\x1f%s\\x1f%s\\x1f%s\\x1f%s\\x1f%s\\n' "$run_modes" "$run_name" "$run_binary" \\
            "$run_subcommand" "${{run_args[*]}}" "$run_exit" "${{run_env[*]}}"
        done
        """)
    proc = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=60,
                          env=dict(os.environ, CSG_SETUP_DONE="1"))
    assert proc.returncode == 0, proc.stderr
    rows = []
    for line in proc.stdout.splitlines():
        modes, name, binary, subcommand, args, exit_status, env = line.split("\x1f")
        # csg_run_fields filled the placeholders with the folder "{R}": put them back as the table writes them.
        args = args.replace(f"{{R}}/{name}.trace.json", "{trace}").replace("{R}", "{results}")
        rows.append(Run(modes, name, binary, subcommand, args.split(), int(exit_status), env.split()))
    return rows


def runs_for(mode: str) -> list[Run]:
    return [r for r in run_table() if mode in r.modes]


class RunTable(unittest.TestCase):
    """The one table both scripts run: every lesson and subcommand, named by stage and subcommand, the
    variants the report needs, the shortened runs and their --full versions."""

    @classmethod
    def setUpClass(cls) -> None:
        cls.rows = run_table()

    def test_each_row_is_well_formed(self) -> None:
        self.assertGreater(len(self.rows), 30)
        for r in self.rows:
            with self.subTest(run=r.name):
                self.assertRegex(r.modes, r"^[qfc]+$")
                self.assertIn(r.binary, STAGES)
                # The name says stage and subcommand: <binary>[-<subcommand>][-<variant>].
                self.assertTrue(r.name == r.binary or r.name.startswith(r.binary + "-"), r.name)
                if r.subcommand:
                    self.assertIn(r.subcommand, SUBCOMMANDS[r.binary])
                    self.assertTrue(r.name.startswith(f"{r.binary}-{r.subcommand}"), r.name)
                self.assertFalse([a for a in r.args if a == "--json"], "--json is the script's to add")
                for word in r.env:
                    self.assertRegex(word, r"^[A-Z_][A-Z0-9_]*=\S+$")
                if "{trace}" in r.args:
                    self.assertEqual(r.subcommand, "timeline", "only the timelines write a trace")

    def test_names_are_unique_within_each_script(self) -> None:
        for mode in "qfc":
            names = [r.name for r in self.rows if mode in r.modes]
            with self.subTest(mode=mode):
                self.assertEqual(len(names), len(set(names)), sorted(n for n in names if names.count(n) > 1))

    def test_every_lesson_and_every_subcommand_runs(self) -> None:
        for modes, script in (("q", "run_suite.sh"), ("f", "run_suite.sh --full"), ("c", "gpu_box_check.sh")):
            rows = [r for r in self.rows if any(m in r.modes for m in modes)]
            for stage in STAGES:
                with self.subTest(script=script, stage=stage):
                    self.assertIn(stage, {r.name for r in rows if r.binary == stage and not r.subcommand and
                                          not r.args}, "the lesson at its defaults")
                    self.assertEqual({r.subcommand for r in rows if r.binary == stage and r.subcommand},
                                     SUBCOMMANDS[stage])

    def test_the_runs_the_report_compares(self) -> None:
        q = {r.name: r for r in runs_for("q")}
        self.assertEqual(q["01_serial_baseline-pinned"].args, ["--host-memory", "pinned"])
        for kernel, args in (("naive", ["--kernel", "naive"]), ("tiled", ["--kernel", "tiled"]),
                             ("cublas", ["--kernel", "cublas"]), ("cublas_tf32", ["--kernel", "cublas", "--tf32"])):
            with self.subTest(kernel=kernel):  # the regime table's rows
                run03 = q[f"03_stream_pool_gemm-kernels-{kernel}"]
                self.assertEqual((run03.subcommand, run03.args[:len(args)]), ("kernels", args))
        self.assertEqual(q["04_graph_capture_gemm-costs-cublas"].args[:2], ["--kernel", "cublas"])
        self.assertEqual(q["03_stream_pool_gemm-order-pageable"].args[:2], ["--host-memory", "pageable"])
        self.assertEqual(q["02_pinned_vs_pageable-sweep"].args, ["--quick"])
        for stage in ("01_serial_baseline", "03_stream_pool_gemm", "04_graph_capture_gemm"):
            self.assertEqual(q[f"{stage}-timeline"].args[-2:], ["--trace", "{trace}"])

    def test_the_default_shortens_only_what_full_runs_whole(self) -> None:
        q, f = {r.name: r for r in runs_for("q")}, {r.name: r for r in runs_for("f")}
        self.assertEqual(set(q) - set(f), set(), "--full runs everything the default does")
        shortened = {name for name in q if q[name].args != f[name].args}
        # What the default trims so that it takes about a minute and a half on an H200: the map's
        # grid, the sweep's sizes, the largest pinning and chain, and fewer rounds where many runs repeat.
        self.assertEqual(shortened, {"04_graph_capture_gemm-regime-map", "02_pinned_vs_pageable-sweep",
                                     "02_pinned_vs_pageable-pinning-cost", "04_graph_capture_gemm-launch-chains",
                                     "01_serial_baseline-timeline", "01_serial_baseline-kernels-cublas",
                                     "03_stream_pool_gemm-order-pageable",
                                     "03_stream_pool_gemm-count-sweep", "03_stream_pool_gemm-kernels-naive",
                                     "03_stream_pool_gemm-kernels-tiled", "03_stream_pool_gemm-kernels-cublas",
                                     "03_stream_pool_gemm-kernels-cublas_tf32", "04_graph_capture_gemm-costs",
                                     "04_graph_capture_gemm-costs-cublas", "04_graph_capture_gemm-launch-anatomy",
                                     "04_graph_capture_gemm-conditional", "04_graph_capture_gemm-pdl"})
        self.assertIn("--map-sizes", q["04_graph_capture_gemm-regime-map"].args)
        self.assertEqual(f["04_graph_capture_gemm-regime-map"].args, [], "--full: the whole map, at its defaults")
        self.assertEqual(f["02_pinned_vs_pageable-sweep"].args, [])

    def test_the_checks_own_runs(self) -> None:
        c = {r.name: r for r in runs_for("c")}
        self.assertEqual(c["04_graph_capture_gemm-skip-join"].exit, 1)
        self.assertEqual((c["03_stream_pool_gemm-hours"].exit, c["03_stream_pool_gemm-hours"].subcommand), (2, ""))
        self.assertEqual(c["03_stream_pool_gemm-count-sweep-connections32"].env, ["CUDA_DEVICE_MAX_CONNECTIONS=32"])
        self.assertEqual(c["04_graph_capture_gemm-launch-chains-eager"].env, ["CUDA_MODULE_LOADING=EAGER"])
        self.assertIn("--dot", c["04_graph_capture_gemm-graph"].args)
        self.assertEqual(c["02_pinned_vs_pageable-sweep"].args, ["--quick"])
        self.assertIn("--map-sizes", c["04_graph_capture_gemm-regime-map"].args, "the check maps the default's grid")
        for name, r in c.items():
            if r.exit:
                self.assertIn(name, ("04_graph_capture_gemm-skip-join", "03_stream_pool_gemm-hours"))


# --- the scripts with fake stages and fake tools ---------------------------------------------

FAKE_STAGE = textwrap.dedent("""\
    #!/usr/bin/env bash
    # A stand-in for a stage binary: copies the sample result named like the run (the --json file's name)
    # to --json, and its trace to --trace; a run without a sample gets a minimal result of its stage and
    # subcommand. skip-join exits 1 as the real one does.
    name=$(basename "$0")
    echo "$name $*" >>"$FAKE_LOG"
    echo "$name ${1:-} CUDA_DEVICE_MAX_CONNECTIONS=${CUDA_DEVICE_MAX_CONNECTIONS:-} CUDA_MODULE_LOADING=${CUDA_MODULE_LOADING:-}" >>"$FAKE_LOG.env"
    if [[ ${1:-} == --help ]]; then
      echo "usage: $name [SUBCOMMAND] [--json FILE]"
      exit 0
    fi
    if [[ -n ${FAKE_NO_DEVICE:-} ]]; then
      echo "$name: no CUDA device found (cudaGetDeviceCount: no CUDA-capable device is detected)" >&2
      exit 77
    fi
    if [[ " $* " == *" --m 65536 "* ]]; then
      echo "$name: --m 65536 --n 65536 --k 65536: estimated 9 hours, over --max-minutes 10" >&2
      exit 2
    fi
    subcommand=null
    if [[ $# -gt 0 && $1 != -* ]]; then subcommand="\\"$1\\""; sub=$1; shift; fi
    json= trace=
    while [[ $# -gt 0 ]]; do
      case $1 in
        --json) json=$2; shift ;;
        --trace) trace=$2; shift ;;
      esac
      shift
    done
    echo "[$name +0.1s] timing" >&2
    echo "the table of $name ${sub:-}"
    if [[ ${sub:-} == skip-join && -z ${FAKE_SKIP_JOIN_PASSES:-} ]]; then
      echo "cudaStreamEndCapture: cudaErrorStreamCaptureUnjoined" >&2
      exit 1
    fi
    run=$(basename "$json" .json)
    if [[ -f $FAKE_DATA/$run.json ]]; then
      cp "$FAKE_DATA/$run.json" "$json"
    else
      printf '{"schema": "cuda-streams-graphs/result/v1", "stage": "%s", "subcommand": %s, "device": {"name": "test GPU"}, "config": {}, "measurements": [], "bounds": {}, "verification": {"passed": true}}\\n' "$name" "$subcommand" >"$json"
    fi
    if [[ -n $trace ]]; then cp "$FAKE_DATA/$run.trace.json" "$trace" 2>/dev/null || true; fi
    exit 0
""")

FAKE_CMAKE = textwrap.dedent("""\
    #!/usr/bin/env bash
    echo "cmake $*" >>"$FAKE_LOG"
    if [[ $1 == --preset ]]; then mkdir -p build/default && touch build/default/CMakeCache.txt; fi
    exit 0
""")

FAKE_CTEST = textwrap.dedent("""\
    #!/usr/bin/env bash
    # Every test passed, none skipped: the JUnit file the check reads.
    echo "ctest $*" >>"$FAKE_LOG"
    while [[ $# -gt 0 ]]; do
      if [[ $1 == --output-junit ]]; then
        echo '<testsuite tests="1"><testcase name="one" status="run"/></testsuite>' >"$2"
      fi
      shift
    done
    exit 0
""")

FAKE_NVIDIA_SMI = "#!/usr/bin/env bash\necho 'GPU 0: Test GPU (UUID: GPU-0)'\n"


def executable(path: Path, text: str) -> None:
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


class FakeRepo:
    """A copy of scripts/ beside fake stages (build/default/bin) and fake tools (cmake, ctest, nvidia-smi,
    compute-sanitizer, and python3: the interpreter running the tests, which has matplotlib)."""

    def __init__(self, test: unittest.TestCase) -> None:
        tmp = tempfile.TemporaryDirectory()
        test.addCleanup(tmp.cleanup)
        root = Path(tmp.name)
        self.repo = root / "repo"
        shutil.copytree(SCRIPTS, self.repo / "scripts", ignore=shutil.ignore_patterns("__pycache__"))
        self.bin = self.repo / "build" / "default" / "bin"
        self.bin.mkdir(parents=True)
        for stage in STAGES:
            executable(self.bin / stage, FAKE_STAGE)
        tools = root / "tools"
        tools.mkdir()
        executable(tools / "cmake", FAKE_CMAKE)
        executable(tools / "ctest", FAKE_CTEST)
        executable(tools / "nvidia-smi", FAKE_NVIDIA_SMI)
        executable(tools / "compute-sanitizer", "#!/usr/bin/env bash\nexit 0\n")
        # A wrapper, not a link: a virtual environment's python3 knows it is one only where it lies.
        executable(tools / "python3", f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
        self.data = new_shape_folder(root / "data", regime_map=map_result(grid(MIXED)))
        for suffix in (".json", ".trace.json"):  # the check's cuBLAS timeline: the naive one will do
            shutil.copy(self.data / f"03_stream_pool_gemm-timeline{suffix}",
                        self.data / f"03_stream_pool_gemm-timeline-cublas{suffix}")
        self.log = root / "calls.log"
        self.results = root / "results"
        self.env = dict(os.environ, PATH=f"{tools}:{os.environ['PATH']}", FAKE_LOG=str(self.log),
                        FAKE_DATA=str(self.data), CSG_SETUP_DONE="1",
                        COMPUTE_SANITIZER=str(tools / "compute-sanitizer"))
        for name in ("CSG_RESULTS_DIR", "CSG_PYTHON", "CSG_REQUIRE_GPU"):
            self.env.pop(name, None)

    def script(self, name: str, *args: str, **env: str) -> subprocess.CompletedProcess:
        return run(["bash", str(self.repo / "scripts" / name), *args], env={**self.env, **env}, cwd=self.repo)

    def calls(self) -> list[str]:
        return self.log.read_text().splitlines() if self.log.exists() else []

    def stage_calls(self) -> list[str]:
        return [c for c in self.calls() if c.split(" ")[0] in STAGES and "--help" not in c]

    def environments(self) -> dict[str, str]:
        """run name -> the CUDA variables the fake stage saw."""
        lines = Path(f"{self.log}.env").read_text().splitlines()
        return {call: line for call, line in zip(self.stage_calls(), lines)}


def expected_call(r: Run, results: Path) -> str:
    return " ".join([r.binary, *r.argv(results)])


class RunSuite(unittest.TestCase):
    def setUp(self) -> None:
        self.fake = FakeRepo(self)
        self.results = self.fake.results

    def suite(self, *args: str, **env: str) -> subprocess.CompletedProcess:
        return self.fake.script("run_suite.sh", *args, str(self.results), **env)

    def test_no_device_stops_at_the_first_run_with_77(self) -> None:
        (self.fake.repo / "build" / "default" / "CMakeCache.txt").touch()
        proc = self.suite(FAKE_NO_DEVICE="1")
        self.assertEqual(proc.returncode, 77, proc.stderr)
        self.assertIn("01_serial_baseline: no CUDA device found", proc.stderr)
        self.assertEqual(len(self.fake.stage_calls()), 1, self.fake.stage_calls())  # stopped at once
        self.assertFalse(self.results.exists(), "a run that measured nothing leaves no folder")

    def test_the_default_runs_its_table_in_order_and_reports_every_table_and_plot(self) -> None:
        require_matplotlib(self)
        proc = self.suite()
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        calls = self.fake.calls()
        self.assertIn("cmake --preset default", calls)  # no cache yet: configured once
        self.assertTrue(any(c.startswith("cmake --build --preset default") for c in calls))
        expected = runs_for("q")
        self.assertEqual(self.fake.stage_calls(), [expected_call(r, self.results) for r in expected])
        for r in expected:
            with self.subTest(run=r.name):
                if r.exit:
                    self.assertFalse((self.results / f"{r.name}.json").exists(), "a demonstrated error: no result")
                else:
                    self.assertTrue((self.results / f"{r.name}.json").is_file())
                self.assertTrue((self.results / f"{r.name}.log").is_file())
        report = (self.results / "report.md").read_text()
        for name in SUITE_PLOTS:
            self.assertTrue((self.results / name).is_file(), name)
            self.assertIn(f"]({name})", report)
        self.assertNotIn("_Not drawn", report)
        for stage in STAGES:  # a timeline per stage, from its timeline subcommand
            self.assertTrue((self.results / f"timeline_{stage}-timeline.png").is_file(), stage)
        self.assertTrue((self.results / "regime_map_04_graph_capture_gemm-regime-map.png").is_file())
        kernels = [r[0] for r in markdown_table(report, REGIME_HEADING)]
        self.assertEqual(kernels, ["naive", "tiled", "cublas", "cublas+tf32"])
        for heading in ("### Copy bandwidth, GB/s (02_pinned_vs_pageable-sweep)",
                        "### Stream-count sweep (03_stream_pool_gemm, ",
                        "### Graph costs (04_graph_capture_gemm-costs)",
                        "## Regime map: where the graph wins (04_graph_capture_gemm-regime-map)"):
            self.assertIn(heading, report)
        # progress on stderr: which run, elapsed seconds; the stage's own progress lines too
        self.assertRegex(proc.stderr, rf"\[\s*\d+s\] 2\) \(1/{len(expected)}\) 01_serial_baseline: ")
        self.assertIn("04_graph_capture_gemm-skip-join exited with 1 as expected", proc.stderr)
        self.assertIn("[01_serial_baseline +0.1s] timing", proc.stderr)
        self.assertIn("the table of 01_serial_baseline", (self.results / "01_serial_baseline.log").read_text())
        # each run's seconds, for trimming the table
        times = (self.results / "run_times.tsv").read_text().splitlines()
        self.assertEqual([line.split("\t")[0] for line in times[1:]], [r.name for r in expected])
        self.assertIn("seconds per run, slowest first", proc.stderr)

        # A second run with the build in place: no configure step again.
        self.fake.log.unlink()
        proc = self.suite()
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertNotIn("cmake --preset default", self.fake.calls())

    def test_full_runs_the_whole_map_and_sweep(self) -> None:
        require_matplotlib(self)
        (self.fake.repo / "build" / "default" / "CMakeCache.txt").touch()
        proc = self.suite("--full")
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertEqual(self.fake.stage_calls(), [expected_call(r, self.results) for r in runs_for("f")])
        self.assertIn(f"04_graph_capture_gemm regime-map --json {self.results}/04_graph_capture_gemm-regime-map.json",
                      self.fake.stage_calls())
        self.assertIn("(--full)", proc.stderr)

    def test_a_failing_stage_still_gets_a_report_and_exit_1(self) -> None:
        require_matplotlib(self)
        (self.fake.repo / "build" / "default" / "CMakeCache.txt").touch()
        executable(self.fake.bin / "04_graph_capture_gemm",
                   "#!/usr/bin/env bash\n[[ $1 == --help ]] && exit 0\necho 'batch 3 wrong' >&2\nexit 1\n")
        proc = self.suite()
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertIn("04_graph_capture_gemm exited with 1", proc.stderr)
        self.assertTrue((self.results / "report.md").is_file())

    def test_a_demonstrated_error_that_does_not_happen_is_a_failure(self) -> None:
        require_matplotlib(self)
        (self.fake.repo / "build" / "default" / "CMakeCache.txt").touch()
        proc = self.suite(FAKE_SKIP_JOIN_PASSES="1")
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertIn("04_graph_capture_gemm-skip-join exited with 0, expected 1", proc.stderr)
        self.assertFalse((self.results / "04_graph_capture_gemm-skip-join.json").exists())

    def test_usage(self) -> None:
        proc = self.fake.script("run_suite.sh", "--help")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("Usage:  scripts/run_suite.sh [--full] [results-dir]", proc.stdout)
        for args, expected in ((["--bogus"], "unknown option --bogus"), (["a", "b"], "one results folder at most")):
            with self.subTest(args=args):
                proc = self.fake.script("run_suite.sh", *args)
                self.assertEqual(proc.returncode, 2, proc.stderr)
                self.assertEqual(len(proc.stderr.strip().splitlines()), 1, proc.stderr)
                self.assertIn(expected, proc.stderr)
                self.assertIn("usage: scripts/run_suite.sh [--full] [results-dir]", proc.stderr)
        self.assertEqual(self.fake.stage_calls(), [])


class GpuBoxCheck(unittest.TestCase):
    """gpu_box_check.sh with a fake GPU, fake tools and fake stages: its runs, their environments, the
    timelines' operations, the summary table."""

    def setUp(self) -> None:
        self.fake = FakeRepo(self)
        self.results = self.fake.results

    def check(self, **env: str) -> subprocess.CompletedProcess:
        return self.fake.script("gpu_box_check.sh", str(self.results), **env)

    def test_every_run_of_the_check_then_the_table(self) -> None:
        proc = self.check()
        self.assertEqual(proc.returncode, 0, proc.stdout[-3000:] + proc.stderr[-3000:])
        expected = runs_for("c")
        self.assertEqual(self.fake.stage_calls(), [expected_call(r, self.results) for r in expected])
        seen = self.fake.environments()
        for r in expected:
            call = expected_call(r, self.results)
            for word in ("CUDA_DEVICE_MAX_CONNECTIONS", "CUDA_MODULE_LOADING"):
                value = next((w.split("=", 1)[1] for w in r.env if w.startswith(word + "=")), "")
                with self.subTest(run=r.name, variable=word):
                    self.assertIn(f"{word}={value} ", seen[call] + " ")
        for stage in ("01_serial_baseline", "03_stream_pool_gemm", "04_graph_capture_gemm"):
            self.assertIn(f"{stage}-timeline.trace.json: 300 slices, expected 300", proc.stderr)
        self.assertIn("04_graph_capture_gemm-skip-join", (self.results / "run_times.tsv").read_text())
        self.assertFalse((self.results / "04_graph_capture_gemm-skip-join.json").exists())
        self.assertIn("Regimes: stage 03 with each kernel at the article's workload", proc.stdout)
        self.assertIn("done: everything passed", proc.stderr)

    def test_a_timeline_missing_operations_fails_the_check(self) -> None:
        trace = self.fake.data / "03_stream_pool_gemm-timeline.trace.json"
        doc = json.loads(trace.read_text())
        slices = [e for e in doc["traceEvents"] if e.get("ph") == "X"]
        doc["traceEvents"].remove(slices[-1])
        trace.write_text(json.dumps(doc))
        proc = self.check()
        self.assertEqual(proc.returncode, 1, proc.stderr[-3000:])
        self.assertIn("03_stream_pool_gemm-timeline.trace.json: 299 slices, expected 300", proc.stderr)
        self.assertIn("03_stream_pool_gemm-timeline.trace.json does not hold every operation", proc.stderr)

    def test_no_gpu_stops_before_building(self) -> None:
        executable(Path(self.fake.env["PATH"].split(":")[0]) / "nvidia-smi",
                   "#!/usr/bin/env bash\necho 'No devices were found'\nexit 0\n")
        proc = self.check()
        self.assertEqual(proc.returncode, 77, proc.stderr)
        self.assertEqual(len(proc.stderr.strip().splitlines()), 1, proc.stderr)
        self.assertEqual(self.fake.calls(), [])
        self.assertFalse(self.results.exists())


if __name__ == "__main__":
    unittest.main()
