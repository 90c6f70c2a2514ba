"""scripts/sanitize_run.sh with a stand-in compute-sanitizer and nvidia-smi:
which outcomes pass, which fail, and the one failure it runs again (a stop at
an illegal address the tool attributed to no access: under memcheck, every
error it counted a CUDA call that returned it or a leak it left), no other
and never twice."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from conftest import SCRIPTS

SANITIZE_RUN = SCRIPTS / "sanitize_run.sh"

ZERO = "========= ERROR SUMMARY: 0 errors"
ONE = "========= ERROR SUMMARY: 1 error"
RACE_ZERO = "========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)"
ILLEGAL = "stage: CUDA error: cudaEventSynchronize(stop) failed: cudaErrorIllegalAddress (an illegal memory access)"
# memcheck's stop inside a conditional graph: the CUDA calls that returned the
# error, each with its backtrace, and what the stop left allocated.
MEMCHECK_STOP = [
    "========= COMPUTE-SANITIZER",
    '========= Program hit cudaErrorIllegalAddress (error 700) due to "an illegal memory access was encountered" '
    "on CUDA API call to cudaEventSynchronize.",
    "=========     Saved host backtrace up to driver entry point at error",
    "=========         Host Frame: csg::EventTimer::stop() [0x160e6b] in 04_graph_capture_gemm",
    "========= ",
    ILLEGAL,
    "========= Leaked 12 bytes at 0x7f2fc4a00000",
    "========= Target application returned an error",
    "========= LEAK SUMMARY: 12 bytes leaked in 1 allocations",
    "========= ERROR SUMMARY: 2 errors",
]
INVALID_WRITE = "========= Invalid __global__ write of size 4 bytes"


def tools(tmp_path: Path, outcomes: list[tuple[int, list[str]]]) -> tuple[dict[str, str], Path]:
    """A compute-sanitizer whose n-th run prints outcomes[n]'s lines and exits
    with its status (the last outcome again after the list), counting its runs
    in a file; an nvidia-smi that lists one GPU."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    runs = tmp_path / "runs"
    script = ["#!/usr/bin/env bash", f'n=$(cat "{runs}" 2>/dev/null || echo 0); echo $((n + 1)) > "{runs}"', "case $n in"]
    for i, (status, lines) in enumerate(outcomes):
        body = "; ".join(f"echo '{line}'" for line in lines) or ":"
        script.append(f"  {i if i < len(outcomes) - 1 else '*'}) {body}; exit {status} ;;")
    script.append("esac")
    sanitizer = bin_dir / "compute-sanitizer"
    sanitizer.write_text("\n".join(script) + "\n")
    smi = bin_dir / "nvidia-smi"
    smi.write_text("#!/usr/bin/env bash\necho 'GPU 0: Stand-in GPU (UUID: GPU-0)'\n")
    for tool in (sanitizer, smi):
        tool.chmod(0o755)
    env = dict(os.environ, COMPUTE_SANITIZER=str(sanitizer), PATH=f"{bin_dir}:{os.environ['PATH']}")
    env.pop("CSG_REQUIRE_GPU", None)
    return env, runs


def sanitize(tmp_path: Path, tool: str, outcomes: list[tuple[int, list[str]]]) -> tuple[subprocess.CompletedProcess, int]:
    env, runs = tools(tmp_path, outcomes)
    done = subprocess.run([str(SANITIZE_RUN), tool, "/bin/true", "--seed", "3"], env=env, capture_output=True,
                          text=True, timeout=60)
    return done, int(runs.read_text())


@pytest.mark.parametrize("tool", ["initcheck", "racecheck", "synccheck"])
def test_an_unreported_illegal_address_is_run_once_more_and_then_passes(tmp_path: Path, tool: str) -> None:
    summary = RACE_ZERO if tool == "racecheck" else ZERO
    done, runs = sanitize(tmp_path, tool, [(1, [ILLEGAL, summary]), (0, [summary])])
    assert (done.returncode, runs) == (0, 2), done.stderr
    assert "illegal address it attributed to no access; once more" in done.stderr
    assert done.stderr.rstrip().endswith(f"{tool} on true: 0 errors")


def test_memchecks_stop_it_names_no_access_for_is_run_once_more(tmp_path: Path) -> None:
    done, runs = sanitize(tmp_path, "memcheck", [(1, MEMCHECK_STOP), (0, [ZERO])])
    assert (done.returncode, runs) == (0, 2), done.stderr
    assert "attributed to no access; once more" in done.stderr


def test_the_same_stop_twice_fails(tmp_path: Path) -> None:
    done, runs = sanitize(tmp_path, "initcheck", [(1, [ILLEGAL, ZERO])])
    assert (done.returncode, runs) == (1, 2)
    assert "exited 1; " + ZERO in done.stderr


@pytest.mark.parametrize(
    "tool, lines, why",
    [
        ("memcheck", MEMCHECK_STOP[:5] + [INVALID_WRITE] + MEMCHECK_STOP[5:], "memcheck named a bad access"),
        ("memcheck", MEMCHECK_STOP[:-1] + ["========= ERROR SUMMARY: 3 errors"], "an error neither a call nor a leak"),
        ("initcheck", [ILLEGAL, ONE], "the tool reported an error"),
        ("initcheck", ["stage: verification failed", ZERO], "no illegal address"),
    ],
)
def test_every_other_failure_fails_at_once(tmp_path: Path, tool: str, lines: list[str], why: str) -> None:
    done, runs = sanitize(tmp_path, tool, [(1, lines), (0, [ZERO])])
    assert (done.returncode, runs) == (1, 1), why
    assert "once more" not in done.stderr


def test_a_clean_run_passes_and_an_error_summary_fails_even_with_exit_0(tmp_path: Path) -> None:
    done, runs = sanitize(tmp_path, "initcheck", [(0, [ZERO])])
    assert (done.returncode, runs) == (0, 1)
    (tmp_path / "again").mkdir()
    done, runs = sanitize(tmp_path / "again", "initcheck", [(0, [ONE])])
    assert (done.returncode, runs) == (1, 1)
    assert ONE in done.stderr
