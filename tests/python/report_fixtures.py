"""What the Python tests share: where things are, how to run scripts/report.py,
readers for its markdown, and builders of small synthetic result files.

Not a test module itself (unittest collects test*.py only). The sample
results in tests/data/suite/ are the JSON and trace files of one
scripts/run_suite.sh run on an H200; the tests compute every expected figure
from those files, never hard-code it, so the files of another run drop in.
"""

from __future__ import annotations

import json
import struct
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
SCRIPTS = REPO / "scripts"
REPORT = SCRIPTS / "report.py"
DATA = REPO / "tests" / "data" / "suite"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
MIN_PNG_BYTES = 10_000  # a blank or tiny image is a failed plot
SUITE_PLOTS = ("bandwidth.png", "stages.png", "sweep.png", "graph_costs.png", "regimes.png")
REGIME_HEADING = "## Regimes: the kernel alone vs the whole pipeline"
SCHEMA = "cuda-streams-graphs/result/v1"
ARTICLE = {"batches": 100, "m": 1024, "n": 1024, "k": 512}

# The library modules, for the tests of pure functions.
sys.path.insert(0, str(SCRIPTS))


def require_matplotlib(test: unittest.TestCase) -> None:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        test.fail("matplotlib is not installed, so report.py can draw no plots: install it "
                  "(apt-get install python3-matplotlib, or python3 -m pip install -r scripts/requirements.txt)")


def run(args: list[str], env: dict[str, str] | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(args, capture_output=True, text=True, timeout=300, env=env, cwd=cwd)


def run_report(*args: str | Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return run([sys.executable, str(REPORT), *map(str, args)], env=env)


def assert_ran_cleanly(test: unittest.TestCase, proc: subprocess.CompletedProcess) -> None:
    """Exit 0 (stderr shown if not), and no Python traceback on stderr."""
    test.assertEqual(proc.returncode, 0, proc.stderr)
    test.assertNotIn("Traceback", proc.stderr)


def temporary_dir(test: unittest.TestCase) -> Path:
    """A fresh folder, removed when the test ends."""
    tmp = tempfile.TemporaryDirectory()
    test.addCleanup(tmp.cleanup)
    return Path(tmp.name)


def class_temporary_dir(cls: type[unittest.TestCase]) -> Path:
    """A fresh folder for a whole test class (made in setUpClass), removed after its last test."""
    tmp = tempfile.TemporaryDirectory()
    cls.addClassCleanup(tmp.cleanup)
    return Path(tmp.name)


def read_report(directory: Path) -> str:
    """The report.md that report.py wrote into `directory`, or "" where it wrote none (the tests then fail on
    what the report lacks, not while reading it)."""
    path = directory / "report.md"
    return path.read_text() if path.exists() else ""


def load(path: Path) -> dict:
    return json.loads(path.read_text())


def results_in(directory: Path) -> dict[str, dict]:
    """run name -> document, for the result files (not traces) of a folder."""
    return {p.stem: load(p) for p in sorted(directory.glob("*.json"))
            if not p.name.endswith(".trace.json") and "schema" in load(p)}


def find(doc: dict, name: str, **params) -> dict:
    for m in doc["measurements"]:
        if m["name"] == name and all(m.get("params", {}).get(k) == v for k, v in params.items()):
            return m
    raise AssertionError(f"{doc['stage']}: no measurement {name} {params}")


def markdown_table(text: str, heading: str) -> list[list[str]]:
    """The rows (cells) of the first table after the line `heading`."""
    lines = text.splitlines()
    start = lines.index(heading)
    rows, in_table = [], False
    for line in lines[start + 1:]:
        if line.startswith("|"):
            in_table = True
            rows.append([c.strip() for c in line.strip().strip("|").split(" | ")])
        elif in_table:
            break
    return [r for r in rows[2:]]  # without the header and the |---| line


def section(text: str, heading: str) -> str:
    """The text from the line `heading` to the next heading of the same or a higher level."""
    level = heading.split(" ")[0]
    body = text.split(heading + "\n", 1)[1]
    for line in body.splitlines():
        if line.startswith("#") and len(line.split(" ")[0]) <= len(level):
            return body.split("\n" + line + "\n", 1)[0]
    return body


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()[:24]
    return struct.unpack(">II", data[16:24])


# --- synthetic results ----------------------------------------------------------------

def result(stage: str, config: dict, measurements: list, bounds: dict | None = None, **top: Any) -> dict:
    """A minimal valid result; `top` adds or replaces top-level fields (measured_at, device, ...)."""
    doc = {"schema": SCHEMA, "stage": stage, "device": {"name": "test GPU", "driver_version": 13000,
                                                         "runtime_version": 13000},
           "config": config, "measurements": measurements, "bounds": bounds or {},
           "verification": {"passed": True}}
    doc.update(top)
    return doc


def measurement(name: str, median_ms: float, verified: bool | None = True, **extra: Any) -> dict:
    return {"name": name, "median_ms": median_ms, "verified": verified, **extra}


def stage03(kernel: str, tf32: bool, pool: float, engines: float, bound: float, gflops: float,
            limited_by: str, **workload) -> dict:
    config = {**ARTICLE, **workload, "host_memory": "pinned", "kernel": kernel, "tf32": tf32}
    bounds = {"kernel_gflops": gflops, "stream_pool_ms": pool, "engine_streams_ms": engines,
              "pipeline_bound_ms": bound, "limited_by": limited_by}
    return result("03_stream_pool_gemm", config, [measurement("stream_pool", pool)], bounds)


def write_folder(directory: Path, files: dict[str, Any]) -> Path:
    """Writes each document as JSON (a str as it is) into `directory`, created if missing."""
    directory.mkdir(parents=True, exist_ok=True)
    for name, doc in files.items():
        (directory / name).write_text(doc if isinstance(doc, str) else json.dumps(doc), encoding="utf-8")
    return directory
