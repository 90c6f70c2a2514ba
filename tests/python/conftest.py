"""What the Python tests share (pytest reads this file by itself): where things
are, report.py run as a user runs it, readers of report.md, builders of small
made-up results, and folders of results:

  SAMPLES   tests/data/suite/: one scripts/run_suite.sh run on a GPU, with its
            registry.tsv (tests/data/suite/README.md). Refreshed from time to
            time: the tests find what they need by contents, never by name.
  SAMPLES_V1  tests/data/suite_v1/: today's samples, schema v1, kept for
            --compare, which must read results of either schema.
  COMBINED  tests/data/suite/before_subcommands/: v1 results of the first
            suite, one combined result per stage run.
  v2_folder the samples as schema v2, each result with made-up verdicts
            (where it has none of its own) whose sentences are hard to quote:
            several lines, markdown's characters, the run's own name.

The expected figures are read from the same JSON the report reads, never
written into a test.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
SCRIPTS = REPO / "scripts"
REPORT = SCRIPTS / "report.py"
SAMPLES = REPO / "tests" / "data" / "suite"
SAMPLES_V1 = REPO / "tests" / "data" / "suite_v1"
COMBINED = SAMPLES / "before_subcommands"
V1, V2 = "cuda-streams-graphs/result/v1", "cuda-streams-graphs/result/v2"
SUITE_PLOTS = ("bandwidth.png", "stages.png", "sweep.png", "graph_costs.png", "regimes.png", "after_article.png")

sys.path.insert(0, str(SCRIPTS))  # the package, for the tests that call it in process


def run(args: list[str | Path], env: dict[str, str] | None = None, cwd: Path | None = None,
        timeout: int = 300) -> subprocess.CompletedProcess:
    return subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=timeout, env=env, cwd=cwd)


def run_report(*args: str | Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return run([sys.executable, REPORT, *args], env=env)


def clean(proc: subprocess.CompletedProcess, status: int = 0) -> subprocess.CompletedProcess:
    """`proc`, after checking its exit status and that it printed no traceback."""
    assert proc.returncode == status, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


def one_line_error(proc: subprocess.CompletedProcess, status: int = 2) -> str:
    """The one stderr line of a refusal."""
    clean(proc, status)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    return lines[0]


def load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def results_in(folder: Path) -> dict[str, dict]:
    """run name -> document, for the results (not timelines) of a folder."""
    docs = {p.stem: load(p) for p in sorted(folder.glob("*.json")) if not p.name.endswith(".trace.json")}
    return {name: doc for name, doc in docs.items() if isinstance(doc, dict) and "schema" in doc}


def section(text: str, heading: str) -> str:
    """report.md from the line `heading` to the next heading of its level or higher ("" where it has none)."""
    if heading + "\n" not in text:
        return ""
    level = heading.split(" ")[0]
    body = text.split(heading + "\n", 1)[1]
    for line in body.splitlines():
        if line.startswith("#") and len(line.split(" ")[0]) <= len(level):
            return body.split("\n" + line + "\n", 1)[0]
    return body


def table_after(text: str, heading: str) -> list[list[str]]:
    """The rows (cells) of the first markdown table under `heading`, without its header."""
    rows: list[list[str]] = []
    for line in section(text, heading).splitlines():
        if line.startswith("|"):
            rows.append([cell.strip() for cell in line.strip().strip("|").split(" | ")])
        elif rows:
            break
    return rows[2:]


def unquoted(folder: Path, report: str) -> list[str]:
    """The verdicts of the results in `folder` that report.md does not state in the console's words under its
    run's heading: what must be empty for every folder the report reads."""
    missing = []
    for name, doc in results_in(folder).items():
        body = section(report, f"### {name}")
        missing += [f"{name}: {v['id']}: {v['sentence']!r}" for v in doc.get("verdicts", [])
                    if v["sentence"] not in body]
    return missing


# --- made-up results --------------------------------------------------------------------

def measurement(name: str, median_ms: float, **fields: Any) -> dict:
    return {"name": name, "params": {}, "median_ms": median_ms, "verified": True, **fields}


def result(stage: str = "03_stream_pool_gemm", subcommand: str | None = None, measurements: list | None = None,
           **top: Any) -> dict:
    """A small valid v2 result; `top` adds or replaces top-level fields."""
    doc = {"schema": V2, "stage": stage, "subcommand": subcommand, "verdicts": [],
           "measured_at": "2026-12-01T10:22:33Z",
           "device": {"name": "test GPU", "driver": "580.159.04", "driver_version": 13000, "runtime_version": 13000},
           "config": {"batches": 100, "m": 1024, "n": 1024, "k": 512, "host_memory": "pinned", "kernel": "naive"},
           "measurements": measurements if measurements is not None else [measurement("serial", 30.0)],
           "bounds": {}, "verification": {"passed": True}}
    doc.update(top)
    return doc


def verdict(verdict_id: str, sentence: str, outcome: str = "made_up", **figures: float) -> dict:
    return {"id": verdict_id, "outcome": outcome, "figures": figures, "threshold": 0.03, "sentence": sentence}


def write_folder(folder: Path, docs: dict[str, dict], registry: list[tuple[str, int]] | None = None) -> Path:
    """`docs` as <run>.json files in `folder`, and a registry.tsv of `registry` ((run, exit) in order)."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, doc in docs.items():
        (folder / f"{name}.json").write_text(json.dumps(doc, indent=1), encoding="utf-8")
    if registry is not None:
        lines = ["run\tstage\tsubcommand\texit\tsummary"]
        for run_name, exit_status in registry:
            stage, _, subcommand = run_name.partition("-")
            lines.append(f"{run_name}\t{stage}\t{subcommand.split('-')[0] or '-'}\t{exit_status}\tthe summary of "
                         f"{run_name}")
        (folder / "registry.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def made_up_verdicts(name: str, doc: dict) -> list[dict]:
    """Two verdicts a report could easily misquote: the run's own name in each, markdown's characters, a
    second line indented as the stages indent it, a trailing full stop."""
    word = doc.get("subcommand") or "lesson"
    median = doc["measurements"][0]["median_ms"] if doc["measurements"] else 1.0
    return [verdict(f"{word}.made_up", f"{name}: {median:.2f} ms is *made up* | for the tests (within 3%).",
                    median_ms=median),
            verdict(f"{word}.second", f"{name}, a second verdict: `two` lines,\n  the second indented_as_stages_do.",
                    outcome="second")]


def as_v2(source: Path, target: Path) -> Path:
    """The results of `source` as schema v2 in `target` (with its timelines and registry), each with verdicts:
    its own where it has them, else made-up ones."""
    target.mkdir(parents=True, exist_ok=True)
    for path in source.glob("*.json"):
        doc = load(path)
        if isinstance(doc, dict) and doc.get("schema") in (V1, V2):
            doc.setdefault("subcommand", None)
            if not doc.get("verdicts"):
                doc["verdicts"] = made_up_verdicts(path.stem, doc)
            doc["schema"] = V2
        (target / path.name).write_text(json.dumps(doc), encoding="utf-8")
    if (source / "registry.tsv").exists():
        shutil.copy(source / "registry.tsv", target / "registry.tsv")
    return target


@pytest.fixture(scope="session")
def v2_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return as_v2(SAMPLES, tmp_path_factory.mktemp("v2") / "suite")


@pytest.fixture(scope="session")
def samples_report(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess]:
    """report.py on the samples, plots and all, once per session: (its folder, the process)."""
    out = tmp_path_factory.mktemp("samples") / "report"
    return out, run_report(SAMPLES, "--out", out)


@pytest.fixture
def no_report_env() -> dict[str, str]:
    """The environment without what a test run may have set for report.py."""
    return {k: v for k, v in os.environ.items() if k not in ("CSG_REPORT_UNDER_VENV", "PYTHONPATH")}
