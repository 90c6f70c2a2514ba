"""How ctest runs the GPU suites' GoogleTest cases (support/gtest_groups.cmake),
read from ctest's own list of the build folder against each GPU test binary's
--gtest_list_tests: every case runs in exactly one ctest test; a test runs at
most four cases of one suite; the cases that time a run against its bound
("Bound", "Alone") run serially, in processes of their own;
those that flood every SM ("Priorities", "Contention") hold the whole_gpu
lock. Needs the build folder (ctest sets CSG_BUILD_DIR and CSG_CTEST)."""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from pathlib import Path

import pytest
from conftest import run

BUILD = Path(os.environ.get("CSG_BUILD_DIR", "/nonexistent"))
CTEST = os.environ.get("CSG_CTEST", "ctest")
GPU_BINARIES = sorted((BUILD / "tests").glob("csg_gpu_*")) if BUILD.is_dir() else []
GPU_BINARIES = [b for b in GPU_BINARIES if b.is_file() and os.access(b, os.X_OK)]
CASES_PER_PROCESS = 4

pytestmark = pytest.mark.skipif(not GPU_BINARIES, reason=f"no GPU test binaries built in {BUILD}/tests")


def listed_cases(binary: Path) -> list[str]:
    """Suite.Case for each case the binary lists (a parameterised case by its generated name)."""
    proc = run([binary, "--gtest_list_tests"])
    assert proc.returncode == 0, proc.stderr
    cases, suite = [], ""
    for line in proc.stdout.splitlines():
        if not line.startswith(" "):
            suite = line.split()[0].rstrip(".")
        elif line.strip():
            cases.append(f"{suite}.{line.split()[0]}")
    return cases


def ctest_tests() -> list[dict]:
    proc = run([CTEST, "--show-only=json-v1", "--test-dir", str(BUILD)])
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)["tests"]


def properties(test: dict) -> dict:
    return {p["name"]: p["value"] for p in test.get("properties", [])}


@pytest.fixture(scope="module")
def groups() -> dict[str, tuple[str, list[str], dict]]:
    """ctest's GPU case groups: name -> (binary, its cases, its properties)."""
    found = {}
    for test in ctest_tests():
        command = test.get("command", [])
        if len(command) == 2 and Path(command[0]) in GPU_BINARIES and command[1].startswith("--gtest_filter="):
            found[test["name"]] = (command[0], command[1].removeprefix("--gtest_filter=").split(":"), properties(test))
    return found


def test_every_case_runs_in_exactly_one_test(groups) -> None:
    for binary in GPU_BINARIES:
        cases = listed_cases(binary)
        assert cases, binary
        grouped = Counter(case for b, group, _ in groups.values() if Path(b) == binary for case in group)
        assert sorted(grouped) == sorted(cases), binary.name
        assert [case for case, n in grouped.items() if n > 1] == [], binary.name


def test_a_test_runs_cases_of_one_suite_named_after_it(groups) -> None:
    for name, (_, cases, props) in groups.items():
        suites = {case.split(".")[0] for case in cases}
        assert len(suites) == 1, name
        assert re.fullmatch(re.escape(suites.pop()) + r"(\.\d+)?", name), name
        assert "gpu" in props["LABELS"] and props["SKIP_RETURN_CODE"] == 77, name


def test_bound_cases_run_serially_and_floods_hold_the_whole_gpu(groups) -> None:
    for name, (_, cases, props) in groups.items():
        timed = [re.search("Bound|Alone", case) is not None for case in cases]
        floods = [re.search("Priorities|Contention", case) is not None and not t for case, t in zip(cases, timed)]
        assert all(timed) or not any(timed), f"{name} mixes timed cases with others"
        assert bool(props.get("RUN_SERIAL")) == all(timed), name
        if not all(timed):
            assert len(cases) <= CASES_PER_PROCESS, name
            assert all(floods) or not any(floods), f"{name} mixes floods with others"
            assert (props.get("RESOURCE_LOCK") == ["whole_gpu"]) == all(floods), name


def test_a_process_whose_cases_all_skipped_exits_77_and_one_that_ran_none_exits_1(groups) -> None:
    """support/gtest_main.cpp (gtest_exit.hpp): without a device (CUDA_VISIBLE_DEVICES empty) a
    group's cases skip and ctest must read "skipped", never "passed"; a filter
    that names no case must fail, not pass by running nothing."""
    binary, cases, _ = next(iter(groups.values()))
    env = {k: v for k, v in os.environ.items() if k != "CSG_REQUIRE_GPU"}
    skipped = run([binary, "--gtest_filter=" + ":".join(cases)], env={**env, "CUDA_VISIBLE_DEVICES": ""})
    assert skipped.returncode == 77, skipped.stdout[-2000:]
    none = run([binary, "--gtest_filter=NoSuchSuite.NoSuchCase"], env=env)
    assert none.returncode == 1 and "no test matched" in none.stderr
