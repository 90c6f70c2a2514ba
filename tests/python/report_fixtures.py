"""What the Python tests share: where things are, how to run scripts/report.py,
readers for its markdown, and builders of small synthetic result files.

Not a test module itself (unittest collects test*.py only). Two sets of
sample results (tests/data/suite/README.md):
  DATA     tests/data/suite/before_subcommands/: one scripts/run_suite.sh run
           on an H200 from when each stage wrote one combined result per run
           (no "subcommand" field), frozen; most tests read these, and the
           new-shape folders below are cut from them;
  SAMPLES  tests/data/suite/: the samples of today's suite, refreshed on a GPU
           from time to time; the tests of them find their files by contents.
The tests compute every expected figure from those files, never hard-code it.
new_shape_files() builds a made-up folder in the shape of today's suite: a
lesson run and one run per subcommand, each with its "subcommand" field.
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
SAMPLES = REPO / "tests" / "data" / "suite"
DATA = SAMPLES / "before_subcommands"
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
        test.fail("matplotlib is not installed, so report.py can draw no plots: run scripts/setup.sh, which "
                  "installs it (or makes .venv/ with it), and run the tests with that python3")


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


# --- a made-up folder in the shape of today's suite -----------------------------------------

# The lesson's figures are the combined run's times 1.1: where a table shows them, it took the lesson's run,
# and where it shows the combined run's own, the subcommand's.
LESSON_FACTOR = 1.1


def _copy(doc: dict) -> dict:
    return json.loads(json.dumps(doc))


def _run(doc: dict, subcommand: str | None, names: set[str] | None = None, keep_bounds: tuple[str, ...] = (),
         drop: tuple[str, ...] = (), **top: Any) -> dict:
    """A run of `subcommand` (None: the lesson) cut from a combined result: its measurements called one of
    `names` (all where None), its bounds whose key holds one of `keep_bounds` (all where empty), without
    the top-level objects `drop`, with `top` added."""
    out = _copy(doc)
    out["subcommand"] = subcommand
    if names is not None:
        out["measurements"] = [m for m in out["measurements"] if m["name"] in names]
    if keep_bounds:
        out["bounds"] = {k: v for k, v in out["bounds"].items() if any(part in k for part in keep_bounds)}
    for key in drop:
        out.pop(key, None)
    out.update(top)
    return out


def _scaled(doc: dict, factor: float) -> dict:
    """Every time in `doc` (medians, spreads, own bounds, the bounds' ms) times `factor`."""
    doc = _copy(doc)
    for m in doc["measurements"]:
        for key in ("median_ms", "min_ms", "max_ms", "p95_ms"):
            if isinstance(m.get(key), (int, float)):
                m[key] *= factor
        if isinstance(m.get("bound"), dict) and isinstance(m["bound"].get("bound_ms"), (int, float)):
            m["bound"]["bound_ms"] *= factor
    for key, value in doc["bounds"].items():
        if key.endswith("_ms") and isinstance(value, (int, float)):
            doc["bounds"][key] = value * factor
    if isinstance(doc["bounds"].get("kernel_gflops"), (int, float)):
        doc["bounds"]["kernel_gflops"] /= factor
    return doc


def depth_first_only(doc: dict) -> dict:
    """The lesson runs the article's loop only: no breadth-first pool (03's order subcommand has that)."""
    doc["measurements"] = [m for m in doc["measurements"] if m.get("params", {}).get("order") != "breadth_first"]
    return doc


def _not_sweep(doc: dict) -> dict:
    doc = _copy(doc)
    doc["measurements"] = [m for m in doc["measurements"] if m.get("params", {}).get("sweep") is not True]
    return doc


def copy_lesson_run(base: dict) -> dict:
    """02's lesson: pinned against pageable, each way, at 64 MiB (the combined run's overlap_copy_alone
    figures): copy measurements at a size the sweep does not have, which must stay out of its table and plot."""
    doc = _run(base, None, {"overlap_copy_alone"}, keep_bounds=("none",), drop=("overlap", "pinning", "staging"))
    for m in doc["measurements"]:
        m["name"] = "copy"
    return doc


def count_sweep_run(base: dict) -> dict:
    """03 count-sweep: 1 to 1,024 streams on 1000 GEMMs of 64³, another workload than the article's; its
    pool sizes are sweep points too, and must stay out of the article's sweep table and plot."""
    config = {**base["config"], "batches": 1000, "m": 64, "n": 64, "k": 64}
    sizes = [1, 4, 16, 64, 256, 1024]
    points = [measurement("stream_pool", 4.0 + 0.001 * s, params={"streams": s, "order": "depth_first",
                                                                   "sweep": True, "host_memory": "pinned"})
              for s in sizes]
    return result("03_stream_pool_gemm", config, points, {"pipeline_bound_ms": 3.9}, subcommand="count-sweep",
                  device=base["device"],
                  stream_count={"sizes": sizes, "batches": 1000, "size": 64, "verified": True})


def new_shape_files() -> dict[str, dict]:
    """File name -> document of one run of today's suite (scripts/run_suite.sh's run list): every lesson and
    subcommand, each result with its "subcommand" (null for a lesson) and the names the combined results
    used, cut from the frozen samples in DATA. The lessons' times are the combined runs' times
    LESSON_FACTOR, so a test can tell which run a figure came from."""
    old = {p.name.removesuffix(".json"): load(p) for p in DATA.glob("*.json")}
    s01, s02, s03, s04 = (old["01_serial_baseline"], old["02_pinned_vs_pageable"], old["03_stream_pool_gemm"],
                          old["04_graph_capture_gemm"])
    timeline = s04["timeline"]
    files = {
        # 01: the lesson on pageable and on pinned memory, the faster kernels, the timeline
        "01_serial_baseline.json": _scaled(_run(s01, None, drop=("timeline",)), LESSON_FACTOR),
        "01_serial_baseline-pinned.json": _scaled(_run(old["01_serial_baseline-pinned"], None), LESSON_FACTOR),
        "01_serial_baseline-kernels-tiled.json": _run(old["01_serial_baseline-tiled"], "kernels"),
        "01_serial_baseline-kernels-cublas.json": _run(old["01_serial_baseline-cublas"], "kernels"),
        "01_serial_baseline-timeline.json": _run(s01, "timeline"),
        # 02: a lesson at one size (64 MiB, a size the sweep does not have), the sweep, overlap, pinning
        "02_pinned_vs_pageable.json": copy_lesson_run(s02),
        "02_pinned_vs_pageable-sweep.json": _run(s02, "sweep", {"copy", "host_memcpy"},
                                                 keep_bounds=("peak", "at_largest"), drop=("overlap", "pinning")),
        "02_pinned_vs_pageable-overlap.json": _run(
            s02, "overlap", {"busy_kernel", "overlap_copy_alone", "overlap_together", "overlap_host_blocked"},
            keep_bounds=("overlap", "blocked"), drop=("pinning", "staging")),
        "02_pinned_vs_pageable-pinning-cost.json": _run(s02, "pinning-cost", {"pin_cost"}, keep_bounds=("pinning",),
                                                        drop=("overlap", "staging")),
        "02_pinned_vs_pageable-timeline.json": _run(s02, "timeline", set(), keep_bounds=("none",),
                                                    drop=("overlap", "pinning", "staging"), timeline=timeline),
        # 03: the lesson (its pool-size sweep), each kernel, the pageable order, the other experiments
        "03_stream_pool_gemm.json": _scaled(depth_first_only(_run(s03, None, {"serial", "stream_pool", "h2d_sum",
                                                                               "kernel_sum", "d2h_sum"})),
                                            LESSON_FACTOR),
        "03_stream_pool_gemm-kernels-naive.json": _not_sweep(_run(s03, "kernels")),
        "03_stream_pool_gemm-kernels-tiled.json": _run(old["03_stream_pool_gemm-tiled"], "kernels"),
        "03_stream_pool_gemm-kernels-cublas.json": _run(old["03_stream_pool_gemm-cublas"], "kernels"),
        "03_stream_pool_gemm-kernels-cublas_tf32.json": _run(old["03_stream_pool_gemm-cublas_tf32"], "kernels"),
        "03_stream_pool_gemm-order-pageable.json": _run(old["03_stream_pool_gemm-pageable"], "order"),
        "03_stream_pool_gemm-engine-streams.json": _run(s03, "engine-streams", {"engine_streams"},
                                                        keep_bounds=("engine",)),
        "03_stream_pool_gemm-count-sweep.json": count_sweep_run(s03),
        "03_stream_pool_gemm-priorities.json": _run(s03, "priorities", set(), keep_bounds=("none",),
                                                    stream_priorities={"name": "stream_priorities", "verified": True}),
        "03_stream_pool_gemm-contention.json": _run(s03, "contention", set(), keep_bounds=("none",),
                                                    shared_memory_contention={"name": "shared_memory_contention",
                                                                              "verified": True}),
        "03_stream_pool_gemm-timeline.json": _run(s03, "timeline", {"stream_pool"}, keep_bounds=("none",),
                                                  timeline=timeline),
        # 04: the lesson, the costs of each kernel, the other experiments, a small regime map, the timeline
        "04_graph_capture_gemm.json": _scaled(_run(s04, None, {"capture", "instantiate", "graph_replay"},
                                                   keep_bounds=("none",), drop=("graph", "timeline", "tiny",
                                                                                "updates")), LESSON_FACTOR),
    }
    costs = {"capture", "instantiate", "upload", "first_launch", "relaunch", "launch_after_upload", "graph_replay",
             "stream_pool", "issue_streams_cpu", "issue_graph_cpu"}
    for name, doc in (("04_graph_capture_gemm-costs.json", s04),
                      ("04_graph_capture_gemm-costs-cublas.json", old["04_graph_capture_gemm-cublas"])):
        files[name] = _run(doc, "costs", costs, keep_bounds=("break_even", "over"),
                           drop=("timeline", "tiny", "updates"))
    files.update({
        "04_graph_capture_gemm-tiny-work.json": _run(s04, "tiny-work", {m["name"] for m in s04["measurements"]
                                                                        if m["name"].startswith("tiny_")},
                                                     keep_bounds=("tiny",), drop=("graph", "timeline", "updates")),
        "04_graph_capture_gemm-node-updates.json": _run(s04, "node-updates",
                                                        {"update_exec", "update_call", "recapture_instantiate"},
                                                        keep_bounds=("none",), drop=("graph", "timeline", "tiny")),
        "04_graph_capture_gemm-changing-shapes.json": _run(s04, "changing-shapes", set(), keep_bounds=("none",),
                                                           drop=("graph", "timeline", "tiny", "updates"),
                                                           changing_shapes={"verified": True}),
        "04_graph_capture_gemm-launch-chains.json": _run(s04, "launch-chains", set(), keep_bounds=("none",),
                                                         drop=("graph", "timeline", "tiny", "updates"),
                                                         launch_costs={"verified": True}),
        "04_graph_capture_gemm-graph.json": _run(s04, "graph", set(), keep_bounds=("none",),
                                                 drop=("timeline", "tiny", "updates")),
        "04_graph_capture_gemm-timeline.json": _run(s04, "timeline", {"graph_replay"}, keep_bounds=("none",),
                                                    drop=("graph", "tiny", "updates")),
    })
    return files


def new_shape_traces() -> dict[str, dict]:
    """The timeline subcommands' traces, named after their runs (02's: 01's timeline, for want of one)."""
    traces = {f"{stage}-timeline.trace.json": load(DATA / f"{stage}.trace.json")
              for stage in ("01_serial_baseline", "03_stream_pool_gemm", "04_graph_capture_gemm")}
    traces["02_pinned_vs_pageable-timeline.trace.json"] = load(DATA / "01_serial_baseline.trace.json")
    return traces


def new_shape_folder(directory: Path, regime_map: dict | None = None) -> Path:
    """Writes new_shape_files() and new_shape_traces() into `directory`, and `regime_map` (a result of 04's
    regime-map subcommand) where given."""
    files: dict[str, Any] = {**new_shape_files(), **new_shape_traces()}
    if regime_map is not None:
        files["04_graph_capture_gemm-regime-map.json"] = {**regime_map, "subcommand": "regime-map"}
    return write_folder(directory, files)
