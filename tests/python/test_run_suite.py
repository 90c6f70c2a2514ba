#!/usr/bin/env python3
"""CPU tests of scripts/run_suite.sh with stand-in stages and a stand-in cmake:
the runs in order, their arguments, the exit codes, and the report it writes
by calling python3 scripts/report.py RESULTS_DIR.

    cd tests/python && python3 -m unittest -v test_run_suite
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
import tempfile
import textwrap
import unittest
from pathlib import Path

from report_fixtures import DATA, REGIME_HEADING, SCRIPTS, SUITE_PLOTS, markdown_table, require_matplotlib, run


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
ONLY03 = "--count-sweep off --priorities off --contention off"
ONLY04 = "--launch-chains off --shape-requests 0 --node-updates off"
RUNS = {
    "01_serial_baseline": "",
    "01_serial_baseline-pinned": "--host-memory pinned",
    "02_pinned_vs_pageable": "--quick",
    "03_stream_pool_gemm": "",
    "03_stream_pool_gemm-pageable": f"--host-memory pageable --streams-sweep off {ONLY03}",
    "04_graph_capture_gemm": "",
    "04_graph_capture_gemm-map": "--regime-map",
    "01_serial_baseline-tiled": "--kernel tiled",
    "01_serial_baseline-cublas": "--kernel cublas",
    "03_stream_pool_gemm-tiled": f"--kernel tiled --streams-sweep off {ONLY03}",
    "03_stream_pool_gemm-cublas": f"--kernel cublas --streams-sweep off {ONLY03}",
    "03_stream_pool_gemm-cublas_tf32": f"--kernel cublas --tf32 --streams-sweep off {ONLY03}",
    "04_graph_capture_gemm-cublas": f"--kernel cublas {ONLY04}",
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
        kernels = [r[0] for r in markdown_table(report, REGIME_HEADING)]
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
