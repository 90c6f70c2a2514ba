#!/usr/bin/env python3
"""CPU tests of scripts/report.py where the newcomer met it: run as
`python3 scripts/report.py` by a python3 without matplotlib after set-up put
it into .venv/ (the report switches to .venv/bin/python3 and says so once);
the hint for getting matplotlib (never what the system refuses: pip --user on
a PEP 668 Debian); and outputs that can't be written (stdout on /dev/full,
--out naming something that is not a folder): one line, a non-zero exit, no
traceback.

    cd tests/python && python3 -m unittest -v test_python_env
"""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import subprocess
import sys
import unittest
from pathlib import Path
from unittest import mock

from report_fixtures import (DATA, REPORT, SCRIPTS, SUITE_PLOTS, read_report, require_matplotlib, run,
                             temporary_dir)

import report  # noqa: E402  (scripts/ is on the path: report_fixtures)

REEXEC_MARK = "CSG_REPORT_UNDER_VENV"
DEV_FULL = Path("/dev/full")


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in (REEXEC_MARK, "PYTHONPATH")}
    return {**env, **extra}


class VenvSwitch(unittest.TestCase):
    """A copy of scripts/ in a repository whose .venv/bin/python3 is a logging wrapper around the interpreter
    running the tests (which has matplotlib). The copy's report.py is started by `python3 -S`: the same
    interpreter without its site-packages, so without matplotlib, as the shell's python3 of the newcomer."""

    def setUp(self) -> None:
        require_matplotlib(self)
        self.root = temporary_dir(self)
        self.repo = self.root / "repo"
        shutil.copytree(SCRIPTS, self.repo / "scripts", ignore=shutil.ignore_patterns("__pycache__"))
        self.log = self.root / "venv_python.log"
        self.venv_python = self.repo / ".venv" / "bin" / "python3"
        self.venv_python.parent.mkdir(parents=True)
        self.venv_python.write_text(f'#!/bin/sh\necho "$*" >>"{self.log}"\nexec "{sys.executable}" "$@"\n')
        self.venv_python.chmod(0o755)

    def report(self, *args: str | Path) -> subprocess.CompletedProcess:
        return run([sys.executable, "-S", str(self.repo / "scripts" / "report.py"), *map(str, args)],
                   env=clean_env(), cwd=self.root)

    def switches(self) -> list[str]:
        return self.log.read_text().splitlines() if self.log.exists() else []

    def test_without_matplotlib_it_draws_with_the_venv_and_says_so_once(self) -> None:
        out = self.root / "out"
        proc = self.report(DATA, "--out", out)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertNotIn("Traceback", proc.stderr)
        self.assertEqual(len(self.switches()), 1, "report.py ran again under .venv/bin/python3, once")
        self.assertIn(f"scripts/report.py {DATA} --out {out}", self.switches()[0])
        notes = [line for line in proc.stderr.splitlines() if line.strip()]
        self.assertEqual(len(notes), 1, proc.stderr)
        self.assertIn("has no matplotlib; drawing the plots with .venv/bin/python3", notes[0])
        for name in SUITE_PLOTS:
            self.assertTrue((out / name).is_file(), name)
        self.assertNotIn("matplotlib is not installed", read_report(out))

    def test_what_needs_no_plots_runs_where_it_is(self) -> None:
        for args in ([DATA, "--out", self.root / "out", "--no-plots"], ["--table", DATA], ["--compare", DATA, DATA],
                     ["--help"]):
            with self.subTest(args=args[0]):
                proc = self.report(*args)
                self.assertEqual(proc.returncode, 0, proc.stderr)
                self.assertEqual(proc.stderr.strip(), "")
        self.assertEqual(self.switches(), [])

    def test_bad_arguments_are_refused_before_the_switch(self) -> None:
        proc = self.report(self.root / "missing", "--out", self.root / "out")
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertEqual(self.switches(), [])
        self.assertEqual(len(proc.stderr.strip().splitlines()), 1, proc.stderr)

    def test_without_a_venv_it_writes_the_report_and_says_how_to_get_the_plots(self) -> None:
        shutil.rmtree(self.repo / ".venv")
        out = self.root / "out"
        proc = self.report(DATA, "--out", out)
        self.assertEqual(proc.returncode, 3, proc.stderr)
        lines = [line for line in proc.stderr.splitlines() if line.strip()]
        self.assertEqual(len(lines), 1, proc.stderr)
        self.assertIn("report.py: warning: no plots", lines[0])
        self.assertIn("to get matplotlib: ", lines[0])
        self.assertNotIn("--user", proc.stderr)
        self.assertIn("matplotlib is not installed", read_report(out))
        self.assertIn("without plots", proc.stdout)

    def test_a_venv_python_that_does_not_run_is_not_used(self) -> None:
        self.venv_python.chmod(0o644)
        proc = self.report(DATA, "--out", self.root / "out")
        self.assertEqual(proc.returncode, 3, proc.stderr)
        self.assertEqual(self.switches(), [])


class InstallHint(unittest.TestCase):
    """What the warning tells to run, by the kind of interpreter: never pip --user."""

    def hint(self, prefix: str, base_prefix: str, executable: str = "/x/bin/python3") -> str:
        with mock.patch.object(sys, "prefix", prefix), mock.patch.object(sys, "base_prefix", base_prefix), \
                mock.patch.object(sys, "executable", executable):
            return report.install_hint()

    def test_each_kind_of_python(self) -> None:
        venv = self.hint("/home/me/env", "/usr", "/home/me/env/bin/python3")
        self.assertEqual(venv, "/home/me/env/bin/python3 -m pip install -r scripts/requirements.txt")
        debian = self.hint("/usr", "/usr")
        self.assertIn("apt-get install python3-matplotlib", debian)
        self.assertIn("scripts/setup.sh", debian)
        self.assertNotIn("pip", debian, "Debian's python3 refuses pip (PEP 668)")
        other = self.hint("/root/.pyenv/versions/3.11.7", "/root/.pyenv/versions/3.11.7")
        self.assertIn("scripts/setup.sh", other)
        for text in (venv, debian, other):
            self.assertNotIn("--user", text)

    def test_no_file_of_the_report_suggests_pip_user(self) -> None:
        for path in (SCRIPTS / "report.py", SCRIPTS / "report_plots.py", SCRIPTS / "results_lib.py",
                     SCRIPTS / "requirements.txt"):
            with self.subTest(file=path.name):
                self.assertNotIn("--user", path.read_text())


class UnwritableOutput(unittest.TestCase):
    """An output that can't be written: one line naming it, exit 2, no traceback, nothing half-written."""

    def setUp(self) -> None:
        self.assertTrue(DEV_FULL.exists(), "/dev/full (Linux) is how these tests fill a disk")

    def to_dev_full(self, *args: str | Path) -> subprocess.CompletedProcess:
        with open(DEV_FULL, "w") as full:
            return subprocess.run([sys.executable, str(REPORT), *map(str, args)], stdout=full, stderr=subprocess.PIPE,
                                  text=True, timeout=300, env=clean_env())

    def assert_one_line(self, proc: subprocess.CompletedProcess, *words: str) -> None:
        self.assertEqual(proc.returncode, 2, proc.stderr)
        for word in ("Traceback", "Exception ignored"):
            self.assertNotIn(word, proc.stderr)
        lines = proc.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, proc.stderr)
        for word in words:
            self.assertIn(word, lines[0])

    def test_stdout_on_a_full_disk(self) -> None:
        out = temporary_dir(self) / "out"
        for args in (["--table", DATA], ["--table", DATA, "--markdown"], ["--compare", DATA, DATA], ["--help"],
                     [DATA, "--out", out, "--no-plots"]):
            with self.subTest(args=args[0]):
                self.assert_one_line(self.to_dev_full(*args), "report.py: error: cannot write to standard output",
                                     "No space left on device")
        self.assertTrue((out / "report.md").is_file(), "report.md is written before the summary is printed")

    def test_out_that_is_not_a_folder(self) -> None:
        tmp = temporary_dir(self)
        (tmp / "file").write_text("not a folder")
        for target, words in ((DEV_FULL, ("--out /dev/full", "is a character device, not a folder")),
                              (tmp / "file", (f"--out {tmp / 'file'}", "is a file, not a folder")),
                              (tmp / "file" / "out", (f"--out {tmp / 'file' / 'out'}", "cannot create the folder"))):
            for plots in ([], ["--no-plots"]):
                with self.subTest(target=str(target), plots=bool(plots)):
                    proc = run([sys.executable, str(REPORT), str(DATA), "--out", str(target), *plots],
                               env=clean_env())
                    self.assert_one_line(proc, "report.py: error: ", *words)
        self.assertEqual((tmp / "file").read_text(), "not a folder")

    def test_main_in_process_returns_2_on_an_unwritable_stdout(self) -> None:
        class Full(io.StringIO):
            def flush(self) -> None:
                raise OSError(28, "No space left on device")

            def fileno(self) -> int:
                return self.devnull

        full = Full()
        full.devnull = os.open(os.devnull, os.O_WRONLY)
        self.addCleanup(os.close, full.devnull)
        stderr = io.StringIO()
        with contextlib.redirect_stdout(full), contextlib.redirect_stderr(stderr), \
                mock.patch.object(report.os, "dup2"):
            status = report.main(["--table", str(DATA)])
        self.assertEqual(status, 2)
        self.assertEqual(stderr.getvalue(), "report.py: error: cannot write to standard output: "
                                            "No space left on device\n")


if __name__ == "__main__":
    unittest.main()
