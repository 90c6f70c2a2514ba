"""scripts/run_suite.sh and scripts/gpu_box_check.sh with stand-in stages and
tools: the stand-ins answer --list with a registry of their own (the sample
runs, and the checks' own runs: a demonstrated error, a refused request, an
environment), and copy the sample result named like each run. The scripts run
what the lists say, in their order, save them as registry.tsv, and end with the
report: its runs in that order, each with its verdicts."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import REPO, SAMPLES, SCRIPTS, SUITE_PLOTS, section, unquoted

STAGES = sorted(p.name for p in REPO.glob("[0-9][0-9]_*") if (p / "CMakeLists.txt").is_file())


@dataclass
class Run:
    stage: str
    subcommand: str  # "-" for the lesson
    name: str        # "-" for none
    modes: str
    exit: int = 0
    env: str = "-"
    args: str = ""

    @property
    def run(self) -> str:
        return "-".join(part for part in (self.stage, self.subcommand, self.name) if part != "-")

    def call(self, results: Path) -> str:
        """The stand-in's log line of this run: its arguments, {trace} filled, and --json."""
        args = self.args.replace("{trace}", f"{results}/{self.run}.trace.json").split()
        return " ".join([self.stage, *([self.subcommand] if self.subcommand != "-" else []), *args,
                         "--json", f"{results}/{self.run}.json"])


def made_up_registry() -> list[Run]:
    """The sample runs in their registry's order, run by every script; the regime map shorter by default than
    with --full; and the GPU-box check's own runs."""
    runs = []
    for line in (SAMPLES / "registry.tsv").read_text().splitlines()[1:]:
        run, stage, subcommand, exit_status, _ = line.split("\t")
        name = run.removeprefix(stage).removeprefix(f"-{subcommand}" if subcommand != "-" else "").lstrip("-") or "-"
        args = "--trace {trace}" if subcommand == "timeline" else ""
        if subcommand == "regime-map":
            runs += [Run(stage, subcommand, name, "q", args="--map-sizes 64,512"), Run(stage, subcommand, name, "fc")]
        else:
            runs.append(Run(stage, subcommand, name, "qfc", int(exit_status), args=args))
    runs += [Run("03_stream_pool_gemm", "-", "hours", "c", 2, args="--m 65536 --n 65536 --k 65536 --batches 1"),
             Run("03_stream_pool_gemm", "count-sweep", "connections32", "c", env="CUDA_DEVICE_MAX_CONNECTIONS=32")]
    return sorted(runs, key=lambda r: STAGES.index(r.stage))  # stable: each stage's runs in their order


def listing(stage: str, runs: list[Run]) -> str:
    lines, seen = [f"stage\t{stage}"], set()
    for r in (r for r in runs if r.stage == stage):
        if r.subcommand != "-" and r.subcommand not in seen:
            seen.add(r.subcommand)
            lines.append(f"subcommand\t{r.subcommand}\tthe summary of {r.subcommand}")
        lines.append("\t".join(["run", r.subcommand, r.name, r.modes, str(r.exit), r.env, "-", "-", r.args]))
    return "\n".join(lines) + "\n"


FAKE_STAGE = """#!/usr/bin/env bash
# A stand-in for a stage binary: its registry from $FAKE_DATA/<stage>.list; a run copies the sample result named
# like its --json file (and its trace), or writes a small result of its own ($FAKE_SMALL, or no sample).
name=$(basename "$0")
if [[ ${1:-} == --list ]]; then cat "$FAKE_DATA/$name.list"; exit 0; fi
echo "$name $*" >>"$FAKE_LOG"
echo "CUDA_DEVICE_MAX_CONNECTIONS=${CUDA_DEVICE_MAX_CONNECTIONS:-}" >>"$FAKE_LOG.env"
if [[ -n ${FAKE_NO_DEVICE:-} ]]; then echo "$name: no CUDA device found" >&2; exit 77; fi
if [[ " $* " == *" --m 65536 "* ]]; then echo "$name: estimated 9 hours, over --max-minutes 10" >&2; exit 2; fi
subcommand=null
if [[ $# -gt 0 && $1 != -* ]]; then subcommand="\\"$1\\""; sub=$1; shift; fi
json= trace=
while [[ $# -gt 0 ]]; do
  case $1 in --json) json=$2; shift ;; --trace) trace=$2; shift ;; esac
  shift
done
echo "[$name +0.1s] timing" >&2
echo "the table of $name ${sub:-}"
if [[ ${sub:-} == skip-join && -z ${FAKE_SKIP_JOIN_PASSES:-} ]]; then echo "cudaErrorStreamCaptureUnjoined" >&2; exit 1; fi
run=$(basename "$json" .json)
if [[ -n ${FAKE_FAILS:-} && $run == "$FAKE_FAILS" ]]; then echo "batch 3 wrong" >&2; exit 1; fi
if [[ -f $FAKE_DATA/$run.json && -z ${FAKE_SMALL:-} ]]; then
  cp "$FAKE_DATA/$run.json" "$json"
else
  printf '{"schema": "cuda-streams-graphs/result/v2", "stage": "%s", "subcommand": %s, "verdicts": [], "device": {"name": "test GPU"}, "config": {}, "measurements": [], "verification": {"passed": true}}\\n' "$name" "$subcommand" >"$json"
fi
if [[ -n $trace ]]; then cp "$FAKE_DATA/$run.trace.json" "$trace" 2>/dev/null || true; fi
"""

TOOLS = {
    "cmake": 'echo "cmake $*" >>"$FAKE_LOG"\n[[ $1 == --preset ]] && mkdir -p build/default && '
             'touch build/default/CMakeCache.txt\nexit 0\n',
    # Every test passed, none skipped: the JUnit file the check reads.
    "ctest": 'echo "ctest $*" >>"$FAKE_LOG"\nwhile [[ $# -gt 0 ]]; do [[ $1 == --output-junit ]] && echo '
             '\'<testsuite tests="1"><testcase name="one" status="run"/></testsuite>\' >"$2"; shift; done\nexit 0\n',
    "nvidia-smi": "echo 'GPU 0: Test GPU (UUID: GPU-0)'\n",
    "compute-sanitizer": "exit 0\n",
    # A wrapper, not a link: a virtual environment's python3 knows it is one only where it lies.
    "python3": f'exec "{sys.executable}" "$@"\n',
}


def executable(path: Path, text: str) -> None:
    path.write_text(text if text.startswith("#!") else "#!/usr/bin/env bash\n" + text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


class FakeRepo:
    """A copy of scripts/ and docs/ beside stand-in stages (build/default/bin) and tools."""

    def __init__(self, root: Path, data: Path, runs: list[Run]) -> None:
        self.repo, self.runs, self.log, self.results = root / "repo", runs, root / "calls.log", root / "results"
        shutil.copytree(SCRIPTS, self.repo / "scripts", ignore=shutil.ignore_patterns("__pycache__"))
        shutil.copytree(REPO / "docs", self.repo / "docs", ignore=shutil.ignore_patterns("*.png"))
        self.bin = self.repo / "build" / "default" / "bin"
        self.bin.mkdir(parents=True)
        self.data = root / "data"
        shutil.copytree(data, self.data)
        for stage in STAGES:
            (self.repo / stage).mkdir()
            (self.repo / stage / "CMakeLists.txt").touch()
            executable(self.bin / stage, FAKE_STAGE)
            (self.data / f"{stage}.list").write_text(listing(stage, runs))
        tools = root / "tools"
        tools.mkdir()
        for name, text in TOOLS.items():
            executable(tools / name, text)
        self.env = {**{k: v for k, v in os.environ.items() if k not in ("CSG_RESULTS_DIR", "CSG_PYTHON",
                                                                         "CSG_REQUIRE_GPU")},
                    "PATH": f"{tools}:{os.environ['PATH']}", "FAKE_LOG": str(self.log), "FAKE_DATA": str(self.data),
                    "CSG_SETUP_DONE": "1", "COMPUTE_SANITIZER": str(tools / "compute-sanitizer")}

    def script(self, name: str, *args: str, **env: str) -> subprocess.CompletedProcess:
        return subprocess.run(["bash", self.repo / "scripts" / name, *args, self.results], capture_output=True,
                              text=True, timeout=600, env={**self.env, **env}, cwd=self.repo)

    def calls(self) -> list[str]:
        return self.log.read_text().splitlines() if self.log.exists() else []

    def stage_calls(self) -> list[str]:
        return [c for c in self.calls() if c.split(" ")[0] in STAGES]

    def expected(self, mode: str) -> list[Run]:
        return [r for r in self.runs if mode in r.modes]


@pytest.fixture
def fake(tmp_path: Path, v2_folder: Path) -> FakeRepo:
    return FakeRepo(tmp_path, v2_folder, made_up_registry())


def test_the_default_runs_its_list_in_order_saves_it_and_reports_each_run(fake: FakeRepo) -> None:
    proc = fake.script("run_suite.sh")
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    expected = fake.expected("q")
    assert fake.stage_calls() == [r.call(fake.results) for r in expected]
    assert "cmake --preset default" in fake.calls()  # no cache yet: configured once
    registry = (fake.results / "registry.tsv").read_text().splitlines()
    assert registry[0] == "run\tstage\tsubcommand\texit\tsummary"
    assert [line.split("\t")[0] for line in registry[1:]] == [r.run for r in expected]
    for r in expected:
        assert (fake.results / f"{r.run}.json").is_file() != bool(r.exit), r.run  # a demonstrated error: none
        assert (fake.results / f"{r.run}.log").is_file()
    report = (fake.results / "report.md").read_text()
    concluded = section(report, "## What each run concluded")
    assert [line[4:] for line in concluded.splitlines() if line.startswith("### ")] == [r.run for r in expected]
    assert unquoted(fake.results, report) == []
    assert all((fake.results / name).is_file() for name in SUITE_PLOTS)
    assert f"(1/{len(expected)}) 01_serial_baseline: " in proc.stderr
    assert "04_graph_capture_gemm-skip-join exited with 1 as expected" in proc.stderr
    assert "[01_serial_baseline +0.1s] timing" in proc.stderr  # the stage's progress, on the terminal
    assert "the table of 01_serial_baseline" in (fake.results / "01_serial_baseline.log").read_text()
    times = (fake.results / "run_times.tsv").read_text().splitlines()
    assert [line.split("\t")[0] for line in times[1:]] == [r.run for r in expected]


def test_full_runs_its_own_list_and_a_second_run_configures_nothing(fake: FakeRepo) -> None:
    (fake.repo / "build" / "default" / "CMakeCache.txt").touch()
    proc = fake.script("run_suite.sh", "--full", FAKE_SMALL="1")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert fake.stage_calls() == [r.call(fake.results) for r in fake.expected("f")]
    assert "(--full)" in proc.stderr and "cmake --preset default" not in fake.calls()


def test_a_failing_run_is_named_missing_in_the_report_and_exits_1(fake: FakeRepo) -> None:
    (fake.repo / "build" / "default" / "CMakeCache.txt").touch()
    proc = fake.script("run_suite.sh", FAKE_SMALL="1", FAKE_FAILS="03_stream_pool_gemm-priorities")
    assert proc.returncode == 1, proc.stderr[-3000:]
    assert "!!! 03_stream_pool_gemm-priorities exited with 1" in proc.stderr
    report = (fake.results / "report.md").read_text()
    assert "not here (not run, or they failed: see their logs): 03_stream_pool_gemm-priorities" in report
    assert "_No result here: not run, or it failed" in section(report, "### 03_stream_pool_gemm-priorities")


def test_a_demonstrated_error_that_does_not_happen_is_a_failure(fake: FakeRepo) -> None:
    (fake.repo / "build" / "default" / "CMakeCache.txt").touch()
    proc = fake.script("run_suite.sh", FAKE_SMALL="1", FAKE_SKIP_JOIN_PASSES="1")
    assert proc.returncode == 1
    assert "04_graph_capture_gemm-skip-join exited with 0, expected 1" in proc.stderr
    assert not (fake.results / "04_graph_capture_gemm-skip-join.json").exists()


def test_no_device_stops_at_the_first_run_and_leaves_no_folder(fake: FakeRepo) -> None:
    (fake.repo / "build" / "default" / "CMakeCache.txt").touch()
    proc = fake.script("run_suite.sh", FAKE_NO_DEVICE="1")
    assert proc.returncode == 77, proc.stderr
    assert len(fake.stage_calls()) == 1 and "01_serial_baseline: no CUDA device found" in proc.stderr
    assert not fake.results.exists()


@pytest.mark.parametrize("args, words", [(["--bogus"], "unknown option --bogus"),
                                         (["a"], "one results folder at most")])
def test_usage(fake: FakeRepo, args: list[str], words: str) -> None:
    assert "Usage:  scripts/run_suite.sh [--full] [results-dir]" in fake.script("run_suite.sh", "--help").stdout
    proc = fake.script("run_suite.sh", *args)
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1
    assert words in proc.stderr and "usage: scripts/run_suite.sh [--full] [results-dir]" in proc.stderr
    assert fake.stage_calls() == []


def test_the_gpu_box_check_runs_its_list_with_each_runs_environment(fake: FakeRepo) -> None:
    proc = fake.script("gpu_box_check.sh")
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    expected = fake.expected("c")
    assert fake.stage_calls() == [r.call(fake.results) for r in expected]
    environments = (fake.log.parent / "calls.log.env").read_text().splitlines()
    assert [e.split("=", 1)[1] for e in environments] == [r.env.split("=", 1)[1] if r.env != "-" else ""
                                                          for r in expected]
    assert [line.split("\t")[0] for line in (fake.results / "registry.tsv").read_text().splitlines()[1:]] == \
        [r.run for r in expected]
    for stage in ("01_serial_baseline", "03_stream_pool_gemm", "04_graph_capture_gemm"):
        assert f"{stage}-timeline.trace.json: 300 slices, expected 300" in proc.stderr
    assert not (fake.results / "04_graph_capture_gemm-skip-join.json").exists()
    assert "Regimes: the kernel alone vs the whole pipeline" in proc.stdout  # the summary table
    assert "done: everything passed" in proc.stderr


def test_a_timeline_missing_operations_fails_the_check(fake: FakeRepo) -> None:
    trace = fake.data / "03_stream_pool_gemm-timeline.trace.json"
    doc = json.loads(trace.read_text())
    doc["traceEvents"].remove(next(e for e in reversed(doc["traceEvents"]) if e.get("ph") == "X"))
    trace.write_text(json.dumps(doc))
    proc = fake.script("gpu_box_check.sh")
    assert proc.returncode == 1
    assert "03_stream_pool_gemm-timeline.trace.json: 299 slices, expected 300" in proc.stderr


def test_no_gpu_stops_the_check_before_building(fake: FakeRepo) -> None:
    executable(Path(fake.env["PATH"].split(":")[0]) / "nvidia-smi", "echo 'No devices were found'\nexit 0\n")
    proc = fake.script("gpu_box_check.sh")
    assert proc.returncode == 77 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert fake.calls() == [] and not fake.results.exists()


def test_the_samples_registry_is_what_the_scripts_write() -> None:
    """tests/data/suite/registry.tsv names a run for every sample result (and only the runs a script makes)."""
    names = [line.split("\t")[0] for line in (SAMPLES / "registry.tsv").read_text().splitlines()[1:]]
    assert {p.stem for p in SAMPLES.glob("*.json") if not p.name.endswith(".trace.json")} <= set(names)


@pytest.mark.parametrize("name", ["test.sh", "sanitize.sh", "run_suite.sh", "gpu_box_check.sh"])
def test_help_wins_over_any_argument_from_any_folder(fake: FakeRepo, name: str) -> None:
    header = (fake.repo / "scripts" / name).read_text().splitlines()[1].lstrip("# ")
    caller = fake.repo.parent  # called as repo/scripts/NAME from the folder above the repository
    for args in (["--help"], ["bogus", "--help"], ["-L", "cpu", "-h"]):
        proc = subprocess.run(["bash", f"repo/scripts/{name}", *args], capture_output=True, text=True, timeout=60,
                              env=fake.env, cwd=caller)
        assert proc.returncode == 0, (args, proc.stderr)
        assert proc.stdout.splitlines()[0] == header, (args, proc.stdout[:300])
    assert fake.calls() == []
