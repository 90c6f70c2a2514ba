"""The one registry: each built stage lists its runs itself (STAGE --list), and
scripts/results_dir.sh reads those lists (csg_runs_for) for run_suite.sh, its
--full and the GPU-box check. Against the built stages, found in $CSG_BIN_DIR
(ctest sets it): every lesson and every subcommand runs in each script, names
are unique within a script, and the rows are what the scripts need."""

from __future__ import annotations

import os
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
            assert set(line[3]) <= set("qfcts") and line[4].isdigit()
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
