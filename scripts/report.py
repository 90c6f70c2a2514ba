#!/usr/bin/env python3
"""The suite's one report command (--help lists its modes and exit codes):
report.md and PNG plots from a results folder, the summary table, or a
comparison of two runs, read from the stages' --json results (v2, or v1), their
--trace timelines and the registry.tsv of scripts/run_suite.sh, never their
printed output. The work is the package beside it (scripts/report/).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import stat
import subprocess
import sys
from pathlib import Path

EXIT_OK, EXIT_UNVERIFIED, EXIT_USAGE, EXIT_NO_PLOTS, EXIT_MISSING_TOOL = 0, 1, 2, 3, 77

REPO = Path(__file__).resolve().parents[1]
SAMPLE_DATA = REPO / "tests" / "data"
# The interpreter scripts/setup.sh prepares where the shell's python3 can't get the packages (a pyenv or
# self-built Python): the project's own virtual environment.
VENV = REPO / ".venv"
# Set while report.py runs again under VENV's python3, so it does so at most once.
REEXEC_MARK = "CSG_REPORT_UNDER_VENV"

USAGE = """report.py RESULTS_DIR [--out DIR] [--no-plots]
       report.py --table RESULTS_DIR [--markdown]
       report.py --compare OLD NEW"""

EPILOG = """modes:
  RESULTS_DIR        write report.md (the runs, the tables of figures, what each run
                     concluded in its own words, verification, every measurement) and
                     the plots into --out (default: RESULTS_DIR; the repository's sample
                     data needs --out), and print a short summary
  --table DIR        print one row per measurement, the peak bandwidths, the regime
                     table and the regime map; writes nothing
  --compare OLD NEW  print both medians, NEW/OLD, the speed-up and whether the output
                     digests are equal, per variant of two results folders (or files);
                     writes nothing

exit status:
  0   ok, and everything verified
  1   something did not verify, the variants of a run computed different outputs, or
      (--compare) the same config gave different outputs in OLD and NEW
  2   bad input (no such folder, no result files, invalid JSON, a result that does not
      match docs/result.schema.json: one line on stderr naming the file and the field),
      bad usage, or an output that cannot be written
  3   report.md written without plots: matplotlib is missing
  77  jsonschema is missing, so no result can be read: one line names how to get it"""


sys.path.insert(0, str(Path(__file__).resolve().parent))  # the package beside this file, whoever imports it
from report import ResultError  # noqa: E402  (the package's __init__ needs nothing installed)


# --- the packages: which interpreter has them ---------------------------------------------

def has(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


def install_hint(module: str) -> str:
    """How to get `module` for this interpreter, in a way its system accepts: pip only into a virtual
    environment; Debian's Python (PEP 668) refuses pip outside one, so there its package, or scripts/setup.sh,
    which installs it or makes .venv/ with it."""
    if sys.prefix != sys.base_prefix:
        return f"{sys.executable} -m pip install -r scripts/requirements.txt"
    if sys.prefix == "/usr":
        return f"apt-get install python3-{module}, or run scripts/setup.sh, which does"
    return f"run scripts/setup.sh: it makes .venv/ with {module}, and report.py then runs with it"


def rerun_under_venv(argv: list[str], plots: bool) -> None:
    """Where this python3 lacks what the mode needs and scripts/setup.sh made .venv/, runs the command again
    under .venv/bin/python3, silently but with CSG_VERBOSE=1 (an error stays one line). Returns where it does not."""
    missing = [m for m in ("jsonschema", *(("matplotlib",) if plots else ())) if not has(m)]
    python = VENV / "bin" / "python3"
    if not missing or os.environ.get(REEXEC_MARK) or not os.access(python, os.X_OK):
        return
    try:
        if Path(sys.prefix).resolve() == VENV.resolve():
            return
    except OSError:
        return
    if os.environ.get("CSG_VERBOSE") == "1":
        print(f"report.py: note: {sys.executable} has no {' or '.join(missing)}; running with "
              f"{python.relative_to(REPO)}, which scripts/setup.sh prepared", file=sys.stderr, flush=True)
    os.environ[REEXEC_MARK] = "1"
    try:
        os.execv(python, [str(python), str(Path(__file__).resolve()), *argv])
    except OSError:
        del os.environ[REEXEC_MARK]  # it can't run: go on here, as without .venv/


# --- where report.md goes ---------------------------------------------------------------------

def in_sample_data(directory: Path) -> bool:
    """Whether `directory` is the repository's own data: under tests/data, or holding files git tracks."""
    resolved = directory.resolve()
    if resolved == SAMPLE_DATA or SAMPLE_DATA in resolved.parents:
        return True
    if resolved != REPO and REPO not in resolved.parents:
        return False
    try:
        listed = subprocess.run(["git", "-C", str(REPO), "ls-files", "--", str(resolved)], capture_output=True,
                                text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return False  # no git (a tarball of the sources): the tests/data rule above still holds
    return listed.returncode == 0 and bool(listed.stdout.strip())


# What is at a path that is not a folder, in words, for a refusal.
FILE_KINDS = {stat.S_IFREG: "a file", stat.S_IFCHR: "a character device", stat.S_IFBLK: "a block device",
              stat.S_IFIFO: "a pipe", stat.S_IFSOCK: "a socket"}


def report_target(directory: Path, out_dir: Path | None) -> tuple[Path, str]:
    """Where report.md goes, and how a message names it (the option and its value as given); refuses, before
    anything is read or written, a results folder that is not there, the repository's sample data without
    --out, and an output that is there but not a folder."""
    if not directory.is_dir():
        raise ResultError(f"{directory}: no such directory")
    if out_dir is None:
        if in_sample_data(directory):
            raise ResultError(f"{directory}: the repository's sample data, not a place to write a report into; "
                              "pass --out DIR")
        out_dir, given = directory, f"RESULTS_DIR {directory}"
    else:
        given = f"--out {out_dir}"
    if out_dir.exists() and not out_dir.is_dir():
        try:
            kind = FILE_KINDS.get(stat.S_IFMT(out_dir.stat().st_mode), "not a folder")
        except OSError:
            kind = "not a folder"
        raise ResultError(f"{given} is {kind}, not a folder: give the folder report.md and the plots go into")
    return out_dir, given


def write_report(directory: Path, out_dir: Path | None, plots: bool) -> tuple[list[str], int]:
    from report.load import load_suite
    from report.render import describe_devices, failed_verifications, measured_dates, plural, report_markdown

    out_dir, given = report_target(directory, out_dir)
    suite = load_suite(directory)
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise ResultError(f"{given}: cannot create the folder: {error.strerror}") from None
    if not os.access(out_dir, os.W_OK | os.X_OK):
        raise ResultError(f"{given}: cannot write into this folder (permission denied)")
    status, drawn, note = EXIT_OK, None, ""
    if plots and not has("matplotlib"):
        # Said once on the terminal, with what to do; report.md and the summary say only that plots are missing.
        print(f"report.py: warning: no plots: matplotlib is not installed; to get matplotlib: "
              f"{install_hint('matplotlib')}", file=sys.stderr)
        drawn, status = f"matplotlib is not installed ({install_hint('matplotlib')})", EXIT_NO_PLOTS
        note = " without plots: matplotlib is not installed (see the warning above)"
    elif plots:
        from report.plot import draw_all
        try:
            drawn = draw_all(suite, out_dir)
        except OSError as error:
            raise ResultError(f"{given}: cannot write a plot into it: {error.strerror}") from None
    text, failed = report_markdown(suite, drawn)
    target, temporary = out_dir / "report.md", out_dir / ".report.md.tmp"
    try:
        temporary.write_text(text, encoding="utf-8")
        temporary.replace(target)  # whole or not at all
    except OSError as error:
        temporary.unlink(missing_ok=True)
        raise ResultError(f"{given}: cannot write report.md into it: {error.strerror}") from None

    summary = describe_devices(suite.results)
    if len(summary) > 1:
        summary = [f"devices: {plural(len(summary), 'result')} on different devices or drivers (listed in report.md)"]
    summary.append(f"runs: {plural(len(suite.results), 'result')}, {plural(len(suite.traces), 'timeline')}; "
                   f"measured (UTC): {measured_dates(suite.results)}")
    if suite.missing:
        summary.append(f"missing: {plural(len(suite.missing), 'run')} registry.tsv expected left no result")
    summary.append("verified: every variant that has an output to check" if not failed else
                   f"verified: NO, {plural(len(failed_verifications(suite.results)) or 1, 'problem')}: see "
                   f"Verification in {target}")
    plotted = sum(plot is not None for _, plot, _ in drawn) if isinstance(drawn, list) else 0
    summary.append(f"wrote {target}" + (f" and {plural(plotted, 'plot')}" if plotted else note))
    return summary, status or (EXIT_UNVERIFIED if failed else EXIT_OK)


# --- the command line -------------------------------------------------------------------------

def run(argv: list[str]) -> tuple[list[str], int]:
    """Parses `argv` and runs its mode: (what to print on stdout, exit status). Usage errors exit 2 here."""
    p = argparse.ArgumentParser(prog="report.py", usage=USAGE, add_help=False, epilog=EPILOG,
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                description="The report of the cuda-streams-graphs results: report.md and plots, "
                                            "the summary table, or a comparison of two runs.")
    p.add_argument("results_dir", nargs="?", type=Path, metavar="RESULTS_DIR",
                   help="folder with the stages' --json files (and --trace timelines)")
    p.add_argument("--out", type=Path, metavar="DIR", help="where report.md and the plots go (default RESULTS_DIR)")
    p.add_argument("--no-plots", action="store_true", help="write report.md only")
    p.add_argument("--table", action="store_true", help="print the summary table of RESULTS_DIR instead")
    p.add_argument("--markdown", action="store_true", help="with --table: as a markdown table")
    p.add_argument("--compare", nargs=2, type=Path, metavar=("OLD", "NEW"), help="compare two runs")
    p.add_argument("-h", "--help", action="store_true", help="show this help and exit")
    args = p.parse_args(argv)
    if args.help:
        return p.format_help().rstrip("\n").splitlines(), EXIT_OK
    if args.compare and (args.results_dir or args.table or args.markdown or args.out or args.no_plots):
        p.error("--compare OLD NEW takes no RESULTS_DIR, --table, --markdown, --out or --no-plots")
    if not args.compare and args.results_dir is None:
        p.error("give RESULTS_DIR, --table RESULTS_DIR or --compare OLD NEW")
    if args.table and (args.out or args.no_plots):
        p.error("--table prints and writes nothing: no --out or --no-plots")
    if args.markdown and not args.table:
        p.error("--markdown goes with --table")
    plots = not (args.compare or args.table or args.no_plots)
    if plots:
        report_target(args.results_dir, args.out)  # bad arguments are refused by this interpreter, not another
    rerun_under_venv(argv, plots)
    if not has("jsonschema"):
        print(f"report.py: error: jsonschema is not installed, so no result can be checked against "
              f"docs/result.schema.json; to get it: {install_hint('jsonschema')}", file=sys.stderr)
        return [], EXIT_MISSING_TOOL
    if args.compare:
        from report.compare import compare
        lines, failed = compare(*args.compare)
    elif args.table:
        from report.load import load_suite
        from report.render import table
        lines, failed = table(load_suite(args.results_dir).results, args.markdown)
    else:
        return write_report(args.results_dir, args.out, plots)
    return lines, EXIT_UNVERIFIED if failed else EXIT_OK


def stdout_to_devnull() -> None:
    """Nothing more reaches stdout: the interpreter's last flush at exit then has nowhere to fail."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


def main(argv: list[str]) -> int:
    try:
        try:
            lines, status = run(argv)
        except ResultError as error:
            print(f"report.py: error: {error}", file=sys.stderr)
            return EXIT_USAGE
        # Line by line, as any filter writes: a reader that goes away shows as an error on the next write (one
        # large write can end in a short write that nothing reports).
        for line in lines:
            sys.stdout.write(line + "\n")
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader went away (report.py ... | head -1). Everything was decided before printing: the status stands.
        stdout_to_devnull()
    except OSError as error:
        # Standard output that can't be written (a full disk, > /dev/full): what was to be printed is lost, so
        # the command failed; one line says why.
        stdout_to_devnull()
        print(f"report.py: error: cannot write to standard output: {error.strerror or error}", file=sys.stderr)
        return EXIT_USAGE
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
