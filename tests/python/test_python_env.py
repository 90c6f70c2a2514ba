"""report.py where a newcomer meets it: run by a python3 without matplotlib or
jsonschema after set-up put them into .venv/ (it runs again there and says so
once); without .venv/ one line naming how to get what is missing (never pip
--user, which Debian refuses); the command line (help, bad usage); and
outputs that can't be written or a reader that goes away: one line, the
right exit status, no traceback, nothing half-written."""

from __future__ import annotations

import contextlib
import importlib.util
import io
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from conftest import (REPO, REPORT, SAMPLES, SCRIPTS, clean, measurement, one_line_error, result, run,
                      run_report, write_folder)

DEV_FULL = Path("/dev/full")


@pytest.fixture(scope="module")
def cli() -> ModuleType:
    """scripts/report.py itself, imported in this process under another name (scripts/report/ is the package)."""
    spec = importlib.util.spec_from_file_location("report_command", REPORT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class FakeRepo:
    """A copy of scripts/ and docs/ in a repository whose .venv/bin/python3 is a logging wrapper around the
    interpreter running the tests; the copy's report.py is started by `python3 -S`: the same interpreter
    without its site-packages, so without matplotlib or jsonschema, as a newcomer's python3."""

    def __init__(self, root: Path) -> None:
        self.root, self.log = root, root / "venv_python.log"
        shutil.copytree(SCRIPTS, root / "repo" / "scripts", ignore=shutil.ignore_patterns("__pycache__"))
        shutil.copytree(REPO / "docs", root / "repo" / "docs", ignore=shutil.ignore_patterns("*.png"))
        self.venv_python = root / "repo" / ".venv" / "bin" / "python3"
        self.venv_python.parent.mkdir(parents=True)
        # The venv's interpreter sees what the tests' does, PYTHONPATH included (report() hides it from `-S`).
        path = f'export PYTHONPATH="{os.environ["PYTHONPATH"]}"\n' if os.environ.get("PYTHONPATH") else ""
        self.venv_python.write_text(f'#!/bin/sh\necho "$*" >>"{self.log}"\n{path}exec "{sys.executable}" "$@"\n')
        self.venv_python.chmod(0o755)

    def report(self, *args: str | Path, verbose: bool = False) -> subprocess.CompletedProcess:
        env = {k: v for k, v in os.environ.items() if k not in ("CSG_REPORT_UNDER_VENV", "PYTHONPATH", "CSG_VERBOSE")}
        if verbose:
            env["CSG_VERBOSE"] = "1"
        return run([sys.executable, "-S", self.root / "repo" / "scripts" / "report.py", *args], env=env, cwd=self.root)

    def switches(self) -> list[str]:
        return self.log.read_text().splitlines() if self.log.exists() else []


@pytest.fixture
def fake(tmp_path: Path) -> FakeRepo:
    return FakeRepo(tmp_path)


def test_without_the_packages_it_runs_again_under_the_venv_silently(fake: FakeRepo) -> None:
    folder = write_folder(fake.root / "r", {"01_serial_baseline": result("01_serial_baseline")})
    out = fake.root / "out"
    proc = clean(fake.report(folder, "--out", out))
    assert len(fake.switches()) == 1 and f"scripts/report.py {folder} --out {out}" in fake.switches()[0]
    assert "running with" not in proc.stderr, "the switch says nothing unless asked"
    assert "## Plots" in (out / "report.md").read_text() and "matplotlib is not installed" not in proc.stdout


def test_asked_it_says_once_which_interpreter_it_switched_to(fake: FakeRepo) -> None:
    folder = write_folder(fake.root / "r", {"01_serial_baseline": result("01_serial_baseline")})
    proc = clean(fake.report(folder, "--out", fake.root / "out", verbose=True))
    notes = [line for line in proc.stderr.splitlines() if "running with" in line]
    assert len(notes) == 1 and "has no jsonschema or matplotlib; running with .venv/bin/python3" in notes[0]


def test_a_failing_run_after_the_switch_is_still_one_line(fake: FakeRepo) -> None:
    bad = write_folder(fake.root / "bad", {"01_serial_baseline": {"schema": "cuda-streams-graphs/result/v2"}})
    proc = fake.report("--table", bad)
    assert len(fake.switches()) == 1
    assert proc.returncode != 0 and len([line for line in proc.stderr.splitlines() if line.strip()]) == 1, proc.stderr


@pytest.mark.parametrize("args", [["--table", SAMPLES], ["--compare", SAMPLES, SAMPLES]], ids=["table", "compare"])
def test_the_modes_without_plots_need_jsonschema_alone(fake: FakeRepo, args: list) -> None:
    proc = clean(fake.report(*args, verbose=True))
    assert len(fake.switches()) == 1 and "has no jsonschema; running with" in proc.stderr


def test_help_and_bad_arguments_stay_where_they_are(fake: FakeRepo) -> None:
    clean(fake.report("--help"))
    one_line_error(fake.report(fake.root / "missing", "--out", fake.root / "out"))
    assert fake.switches() == []


def test_without_a_venv_one_line_says_how_to_get_jsonschema(fake: FakeRepo) -> None:
    shutil.rmtree(fake.venv_python.parents[1])
    line = one_line_error(fake.report("--table", SAMPLES), 77)
    assert line.startswith("report.py: error: jsonschema is not installed, so no result can be checked against "
                           "docs/result.schema.json; to get it: ")
    assert "--user" not in line


def test_a_venv_python_that_does_not_run_is_not_used(fake: FakeRepo) -> None:
    fake.venv_python.chmod(0o644)
    one_line_error(fake.report("--table", SAMPLES), 77)
    assert fake.switches() == []


def test_without_matplotlib_report_md_says_so_and_exits_3(cli: ModuleType, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cli, "has", lambda module: module != "matplotlib")
    stderr = io.StringIO()
    with contextlib.redirect_stderr(stderr):
        lines, status = cli.write_report(SAMPLES, tmp_path / "out", plots=True)
    assert status == 3
    assert stderr.getvalue().startswith("report.py: warning: no plots: matplotlib is not installed; to get "
                                        "matplotlib: ")
    assert "without plots" in lines[-1]
    assert "_None: matplotlib is not installed" in (tmp_path / "out" / "report.md").read_text()


@pytest.mark.parametrize("prefix, base, words", [
    ("/home/me/env", "/usr", "/x/bin/python3 -m pip install -r scripts/requirements.txt"),
    ("/usr", "/usr", "apt-get install python3-jsonschema, or run scripts/setup.sh"),
    ("/root/.pyenv/versions/3.11.7", "/root/.pyenv/versions/3.11.7", "run scripts/setup.sh: it makes .venv/"),
], ids=["venv", "debian", "other"])
def test_the_install_hint_by_kind_of_python(cli: ModuleType, prefix: str, base: str, words: str,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in (("prefix", prefix), ("base_prefix", base), ("executable", "/x/bin/python3")):
        monkeypatch.setattr(sys, name, value)
    hint = cli.install_hint("jsonschema")
    assert words in hint and "--user" not in hint


def test_no_file_of_the_report_suggests_pip_user() -> None:
    for path in [REPORT, SCRIPTS / "requirements.txt", *SCRIPTS.glob("report/*.py")]:
        assert "--user" not in path.read_text(), path


def test_help_names_every_mode_and_exit_status() -> None:
    for args in (["--help"], ["-h"], ["--table", "--help"]):
        out = clean(run_report(*args)).stdout
        for words in ("RESULTS_DIR [--out DIR] [--no-plots]", "--table RESULTS_DIR [--markdown]", "--compare OLD NEW",
                      "3   report.md written without plots", "77  jsonschema is missing"):
            assert words in out


@pytest.mark.parametrize("args", [[], ["--markdown", SAMPLES], ["--table", SAMPLES, "--out", "x"],
                                  ["--compare", SAMPLES, SAMPLES, SAMPLES], ["--compare", SAMPLES, SAMPLES, "--out", "x"],
                                  ["--table"], ["--bogus", SAMPLES]])
def test_bad_usage_exits_2(args: list) -> None:
    proc = clean(run_report(*args), 2)
    assert "usage:" in proc.stderr


@pytest.mark.parametrize("args", [["--table", SAMPLES], ["--compare", SAMPLES, SAMPLES], ["--help"]],
                         ids=["table", "compare", "help"])
def test_stdout_on_a_full_disk(args: list) -> None:
    with open(DEV_FULL, "w") as full:
        proc = subprocess.run([sys.executable, REPORT, *args], stdout=full, stderr=subprocess.PIPE, text=True,
                              timeout=300)
    assert one_line_error(proc) == "report.py: error: cannot write to standard output: No space left on device"


@pytest.mark.parametrize("target, words", [
    (DEV_FULL, "--out /dev/full is a character device, not a folder"),
    ("file", "is a file, not a folder"),
    ("file/out", "cannot create the folder"),
])
def test_out_that_is_not_a_folder(target: Path | str, words: str, tmp_path: Path) -> None:
    (tmp_path / "file").write_text("not a folder")
    folder = write_folder(tmp_path / "r", {"03_stream_pool_gemm": result()})
    line = one_line_error(run_report(folder, "--out", tmp_path / target if isinstance(target, str) else target))
    assert line.startswith("report.py: error: ") and words in line
    assert (tmp_path / "file").read_text() == "not a folder"


def closed_early(*args: str | Path, read_first_line: bool = False) -> tuple[int, str, str]:
    """report.py with stdout a pipe whose reader goes away (at once, or after one line): (status, first line,
    stderr)."""
    proc = subprocess.Popen([sys.executable, REPORT, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    first = proc.stdout.readline() if read_first_line else ""
    proc.stdout.close()
    status = proc.wait(timeout=300)
    stderr = proc.stderr.read()
    proc.stderr.close()
    for words in ("Traceback", "BrokenPipe", "Exception ignored"):
        assert words not in stderr
    return status, first, stderr


def test_a_reader_that_goes_away_leaves_the_status_of_the_run(tmp_path: Path) -> None:
    assert closed_early("--table", SAMPLES)[0] == 0
    assert closed_early("--help")[0] == 0
    bad = write_folder(tmp_path / "bad", {"03_stream_pool_gemm": result(measurements=[
        measurement("serial", 30.0, verified=False)])})
    assert closed_early("--table", bad)[0] == 1
    # More than any pipe holds (64 KiB; 4000 rows are about 380 KB), so report.py is still writing when the reader
    # closes.
    many = write_folder(tmp_path / "many", {"03_stream_pool_gemm": result(measurements=[
        measurement("variant_with_a_long_name", 1.0 + i / 1000, params={"index": i}) for i in range(4000)])})
    status, first, _ = closed_early("--table", many, read_first_line=True)
    assert status == 0 and first.startswith("device: test GPU")


def test_main_in_process_returns_2_on_an_unwritable_stdout(cli: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    class Full(io.StringIO):
        def flush(self) -> None:
            raise OSError(28, "No space left on device")

    monkeypatch.setattr(cli, "stdout_to_devnull", lambda: None)
    stderr = io.StringIO()
    with contextlib.redirect_stdout(Full()), contextlib.redirect_stderr(stderr):
        assert cli.main(["--table", str(SAMPLES)]) == 2
    assert stderr.getvalue() == "report.py: error: cannot write to standard output: No space left on device\n"
