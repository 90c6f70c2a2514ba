"""The one registry: each built stage lists its runs itself (STAGE --list), and
scripts/results_dir.sh reads those lists (csg_runs_for) for run_suite.sh, its
--full and the GPU-box check. Against the built stages, found in $CSG_BIN_DIR
(ctest sets it): every lesson and every subcommand runs in each script, names
are unique within a script, and the rows are what the scripts need."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from conftest import REPO, SCRIPTS, run

BIN_DIR = Path(os.environ.get("CSG_BIN_DIR", REPO / "build" / "default" / "bin"))
STAGES = sorted(p.name for p in REPO.glob("[0-9][0-9]_*") if (p / "CMakeLists.txt").is_file())

pytestmark = pytest.mark.skipif(not all((BIN_DIR / s).is_file() for s in STAGES),
                                reason=f"the stages are not built in {BIN_DIR} (ctest sets CSG_BIN_DIR)")


def listing(stage: str) -> list[list[str]]:
    proc = run([BIN_DIR / stage, "--list"])
    assert proc.returncode == 0, proc.stderr
    return [line.split("\t") for line in proc.stdout.splitlines()]


def rows_for(mode: str) -> list[list[str]]:
    """csg_runs_for's rows: name, stage, subcommand, exit, environment, summary, arguments."""
    proc = run(["bash", "-c", f'repo_root="{REPO}"; source "{SCRIPTS}/results_dir.sh"; csg_runs_for {mode} "{BIN_DIR}"'],
               env={**os.environ, "CSG_SETUP_DONE": "1"})
    assert proc.returncode == 0, proc.stderr
    return [line.split("\t") for line in proc.stdout.splitlines()]


@pytest.mark.parametrize("stage", STAGES)
def test_each_list_is_well_formed(stage: str) -> None:
    lines = listing(stage)
    assert lines[0] == ["stage", stage]
    subcommands = {line[1] for line in lines if line[0] == "subcommand"}
    for line in lines[1:]:
        assert (line[0], len(line)) in (("subcommand", 3), ("run", 9)), line
        if line[0] == "run":
            assert line[1] == "-" or line[1] in subcommands
            assert set(line[3]) <= set("qfctsm") and line[4].isdigit()
            assert "--json" not in line[8].split(), "--json is the scripts' to add"


@pytest.mark.parametrize("mode", "qfc")
def test_every_lesson_and_subcommand_runs_once_under_its_name(mode: str) -> None:
    rows = rows_for(mode)
    names = [row[0] for row in rows]
    assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)
    for stage in STAGES:
        subcommands = {line[1] for line in listing(stage) if line[0] == "subcommand"}
        assert {row[2] for row in rows if row[1] == stage} == subcommands | {"-"}
        assert [stage, stage, "-", "0", "-", "the lesson", ""] in rows, "the lesson at its defaults"
    for name, stage, subcommand, _, env, summary, args in rows:
        assert name.startswith(stage if subcommand == "-" else f"{stage}-{subcommand}")
        assert summary and (env == "-" or all(word.count("=") == 1 for word in env.split()))
        assert "{trace}" not in args or subcommand == "timeline", "only the timelines write a trace"


def test_full_runs_what_the_default_runs() -> None:
    assert {row[0] for row in rows_for("q")} <= {row[0] for row in rows_for("f")}


# The device code that racecheck (shared memory) and synccheck (barriers) have
# something to check in, and what selects it: the GEMMs of --kernel tiled and
# cublas, and the flood and contention kernels of stage 03's competition.
CHECKED_DEVICE_CODE = re.compile(r"__shared__|__syncthreads|__syncwarp|cooperative_groups|cuda::barrier|mbarrier")
KNOWN_DEVICE_CODE = {"common/workload/gemm_kernels.cu", "03_stream_pool_gemm/lab/competition.cu"}


def test_the_device_code_with_shared_memory_or_barriers_is_what_the_marks_know() -> None:
    found = {str(p.relative_to(REPO)) for folder in [REPO / "common", *(REPO / s for s in STAGES)]
             for p in folder.rglob("*") if p.suffix in (".cu", ".cuh", ".hpp", ".h") and
             CHECKED_DEVICE_CODE.search(p.read_text(encoding="utf-8"))}
    assert found == KNOWN_DEVICE_CODE, "new device code with shared memory or barriers: check the runs marked m"


def competition_subcommands() -> set[str]:
    """Stage 03's subcommands whose folder includes the competition's kernels."""
    lab = REPO / "03_stream_pool_gemm" / "lab"
    return {folder.name for folder in lab.iterdir() if folder.is_dir() and
            any("competition.hpp" in p.read_text(encoding="utf-8") for p in folder.glob("*.[ch]pp"))}


@pytest.mark.parametrize("stage", STAGES)
def test_a_run_under_memcheck_and_initcheck_alone_has_nothing_for_racecheck_or_synccheck(stage: str) -> None:
    checked = competition_subcommands() if stage.startswith("03_") else set()
    assert stage != "03_stream_pool_gemm" or {"priorities", "contention"} <= checked
    runs = [line for line in listing(stage) if line[0] == "run"]
    for _, subcommand, name, modes, *_, args in runs:
        if "m" in modes:
            assert "s" not in modes, (subcommand, name)
            assert not re.search(r"--kernel[ =](tiled|cublas)", args), (subcommand, name, "its GEMM holds shared memory")
            assert subcommand not in checked, (subcommand, name, "the flood's kernels hold shared memory and a barrier")
    assert any("s" in line[3] for line in runs) or stage == "02_pinned_vs_pageable", "racecheck and synccheck run here"
