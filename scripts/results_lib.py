"""Reading result files, shared by scripts/summarize.py and scripts/report.py.

A results folder (what scripts/run_suite.sh or scripts/gpu_box_check.sh
writes) holds, for each run of a stage:
  <run>.json        the result, schema cuda-streams-graphs/result/v1 (DESIGN.md)
  <run>.trace.json  optionally, its timeline as Chrome trace events
                    ({"traceEvents": [...]}, common/timeline.hpp)
and logs. <run> is the stage name, or the stage name and a suffix for extra
runs ("01_serial_baseline-pinned").

Both scripts check the same fields (validate), so they accept the same files.
summarize.py skips a JSON file of another schema; load_suite here refuses it:
in a folder the report is built from, a result file that can't be read is a
mistake to point at, not something to leave out quietly. Every problem is a
ResultError whose message names the file and the field.

regimes() is issue 9's comparison, one row per GEMM kernel: summarize.py
prints it as a table, report.py adds the lesson and a plot.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["SCHEMA", "Result", "ResultError", "Trace", "Suite", "Regime", "load_suite", "load_results_from",
           "params_of", "run_name", "is_number", "validate", "regimes", "kernel_of", "KERNEL_ORDER",
           "missing_kernels", "run_name_for_kernel"]

SCHEMA = "cuda-streams-graphs/result/v1"


class ResultError(Exception):
    """A result file that cannot be read or summarised; the message names file and field."""


@dataclass
class Result:
    path: Path
    doc: dict[str, Any]

    @property
    def stage(self) -> str:
        return self.doc["stage"]

    @property
    def config(self) -> dict[str, Any]:
        return self.doc["config"]

    @property
    def measurements(self) -> list[dict[str, Any]]:
        return self.doc["measurements"]

    @property
    def passed(self) -> bool:
        return self.doc["verification"]["passed"] is True


def human_bytes(count: float) -> str:
    """1 GiB, 64 MiB, 1.5 KiB, 512 B: sizes as the stages print them."""
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if count >= size:
            value = count / size
            return f"{value:.0f} {unit}" if value == int(value) else f"{value:.1f} {unit}"
    return f"{count:.0f} B"


def is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def json_type(value: Any) -> str:
    names = {type(None): "null", bool: "boolean", int: "number", float: "number", str: "string",
             list: "array", dict: "object"}
    return names.get(type(value), type(value).__name__)


def require(doc: dict[str, Any], path: Path, field: str, kind: type | tuple[type, ...], label: str) -> Any:
    if field not in doc:
        raise ResultError(f"{path}: missing required field '{label}'")
    value = doc[field]
    if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
        raise ResultError(f"{path}: field '{label}' has the wrong type ({json_type(value)})")
    return value


def validate(doc: dict[str, Any], path: Path) -> None:
    """Checks the fields both scripts rely on; raises ResultError naming the first missing one."""
    require(doc, path, "stage", str, "stage")
    require(doc, path, "device", dict, "device")
    require(doc, path, "config", dict, "config")
    measurements = require(doc, path, "measurements", list, "measurements")
    for index, measurement in enumerate(measurements):
        label = f"measurements[{index}]"
        if not isinstance(measurement, dict):
            raise ResultError(f"{path}: field '{label}' is not an object")
        require(measurement, path, "name", str, f"{label}.name")
        median = require(measurement, path, "median_ms", (int, float), f"{label}.median_ms")
        if not math.isfinite(median):
            raise ResultError(f"{path}: field '{label}.median_ms' is not a finite number")
    verification = require(doc, path, "verification", dict, "verification")
    require(verification, path, "passed", bool, "verification.passed")


@dataclass
class Trace:
    """One timeline: Chrome trace events, as common/timeline.cpp writes them."""
    path: Path
    doc: dict[str, Any]

    @property
    def run(self) -> str:
        return self.path.name.removesuffix(".json").removesuffix(".trace")

    def process_name(self) -> str:
        for event in self.doc["traceEvents"]:
            if event.get("ph") == "M" and event.get("name") == "process_name":
                name = event.get("args", {}).get("name")
                if isinstance(name, str):
                    return name
        return self.run


@dataclass
class Suite:
    directory: Path
    results: list[Result] = field(default_factory=list)
    traces: list[Trace] = field(default_factory=list)

    def by_stage(self, stage: str) -> list[Result]:
        return [r for r in self.results if r.stage == stage]

    def main_run(self, stage: str) -> Result | None:
        """The run of `stage` at its defaults: the file named after the stage, else the first of that stage."""
        runs = self.by_stage(stage)
        for r in runs:
            if r.path.stem == stage:
                return r
        return runs[0] if runs else None


def run_name(result: Result) -> str:
    return result.path.stem


def params_of(measurement: dict[str, Any]) -> dict[str, Any]:
    params = measurement.get("params")
    return params if isinstance(params, dict) else {}


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        raise ResultError(f"{path}: cannot read: {error}") from None
    except json.JSONDecodeError as error:
        raise ResultError(f"{path}: not valid JSON: {error}") from None


def _validate_trace(doc: dict[str, Any], path: Path) -> None:
    events = doc.get("traceEvents")
    if not isinstance(events, list):
        raise ResultError(f"{path}: field 'traceEvents' is not an array")
    for index, event in enumerate(events):
        if not isinstance(event, dict):
            raise ResultError(f"{path}: field 'traceEvents[{index}]' is not an object")
        if event.get("ph") == "X":
            for key in ("ts", "dur"):
                if not is_number(event.get(key)):
                    raise ResultError(f"{path}: field 'traceEvents[{index}].{key}' is missing or not a number")


def _validate_more(doc: dict[str, Any], path: Path) -> None:
    """What the report reads beyond validate: params objects, rates, bounds."""
    for index, m in enumerate(doc["measurements"]):
        if "params" in m and not isinstance(m["params"], dict):
            raise ResultError(f"{path}: field 'measurements[{index}].params' is not an object")
        for key in ("gbps", "gflops", "p95_ms", "min_ms", "max_ms"):
            value = m.get(key)
            if value is not None and not is_number(value):
                raise ResultError(f"{path}: field 'measurements[{index}].{key}' is not a number or null")
        if m["median_ms"] < 0:
            raise ResultError(f"{path}: field 'measurements[{index}].median_ms' is negative")
    if doc.get("bounds") is not None and not isinstance(doc["bounds"], dict):
        raise ResultError(f"{path}: field 'bounds' is not an object")


def load_result_file(path: Path) -> Result | Trace:
    doc = _read_json(path)
    if not isinstance(doc, dict):
        raise ResultError(f"{path}: not a result file: the top level is not a JSON object")
    if "traceEvents" in doc:
        _validate_trace(doc, path)
        return Trace(path, doc)
    if "schema" not in doc:
        raise ResultError(f"{path}: not a result file: no 'schema' field (expected \"{SCHEMA}\")")
    if doc["schema"] != SCHEMA:
        raise ResultError(f"{path}: schema is {json.dumps(doc['schema'])}, expected \"{SCHEMA}\"")
    validate(doc, path)
    _validate_more(doc, path)
    return Result(path, doc)


def load_suite(directory: Path) -> Suite:
    """Every *.json in `directory`: results and traces. Raises ResultError on the first bad file."""
    if not directory.is_dir():
        raise ResultError(f"{directory}: no such directory")
    suite = Suite(directory)
    for path in sorted(directory.glob("*.json")):
        if not path.is_file():
            continue
        loaded = load_result_file(path)
        (suite.traces if isinstance(loaded, Trace) else suite.results).append(loaded)
    if not suite.results:
        raise ResultError(f"{directory}: no {SCHEMA} JSON files in it")
    # Stage order; within a stage the run at defaults first (summarize.py's order).
    suite.results.sort(key=lambda r: (r.stage, r.path.stem != r.stage, r.path.name))
    return suite


def load_results_from(path: Path) -> list[Result]:
    """A results folder, or one result file (for --compare)."""
    if path.is_dir():
        return load_suite(path).results
    if not path.exists():
        raise ResultError(f"{path}: no such file or directory")
    loaded = load_result_file(path)
    if isinstance(loaded, Trace):
        raise ResultError(f"{path}: a timeline trace, not a result file")
    return [loaded]


# --- issue 9: the regimes, one row per GEMM kernel ---------------------------------

STAGE03 = "03_stream_pool_gemm"
STAGE04 = "04_graph_capture_gemm"
# The regime comparison is about the article's workload: 100 batches of a
# 1024x512 by 512x1024 GEMM, 2*m*n*k*batches = 107.4 GFLOP, and 400 MiB of
# results to copy back (the D2H half of the PCIe bound).
ARTICLE_WORKLOAD = {"batches": 100, "m": 1024, "n": 1024, "k": 512}
WORKLOAD_KEYS = tuple(ARTICLE_WORKLOAD)
# Slowest first: the article's kernel, the tiled one written here, cuBLAS in
# FP32 and on the tensor cores (TF32). A kernel not named here sorts last.
KERNEL_ORDER = ("naive", "tiled", "cublas", "cublas+tf32")


def kernel_of(result: Result) -> str:
    """The kernel a run used, as the stages name it in bounds.kernel: "naive", "cublas+tf32", ...
    A result from before issue 9 has no config.kernel: it ran the article's naive kernel."""
    config = result.config
    name = str(config.get("kernel", "naive"))
    return name + "+tf32" if config.get("tf32") is True else name


def run_name_for_kernel(stage: str, kernel: str) -> str:
    """The run name scripts/run_suite.sh gives `stage` with `kernel`: the stage itself for the
    article's kernel, else <stage>-<kernel> with "+" as "_" ("03_stream_pool_gemm-cublas_tf32")."""
    return stage if kernel == "naive" else f"{stage}-{kernel.replace('+', '_')}"


def _prefer_named_runs(runs: list[Result], kernel: str) -> Result:
    """One run of a kernel where several are: the one run_suite.sh names for it (the file named after the
    stage, or <stage>-<kernel>), else the first by file name. A -timeline or -events run of the same
    kernel is a legitimate measurement too, but the table shows one row per kernel, chosen the same way
    every time."""
    def key(r: Result) -> tuple[bool, str]:
        named = r.path.stem in (r.stage, run_name_for_kernel(r.stage, kernel))
        return (not named, r.path.name)
    return min(runs, key=key)


@dataclass
class Regime:
    """One kernel's row of the regime table, from one stage-03 run (and a stage-04 run of the same kernel)."""
    kernel: str
    run: Result                  # the stage 03 run
    kernel_gflops: float         # the isolated kernel sum's rate: the kernel alone
    pool_ms: float               # the article's stream pool, end to end
    engines_ms: float | None     # one stream per engine (H2D, compute, D2H); None before it existed
    bound_ms: float              # the pipeline bound: the busiest resource's isolated time
    limited_by: str              # which resource sets the bound ("kernels", "PCIe both ways", ...)
    regime: str                  # "compute-bound" or "PCIe-bound"
    replay: Result | None = None   # the stage 04 run of the same kernel
    replay_ms: float | None = None  # its graph replay

    @property
    def flop(self) -> float:
        c = self.run.config
        return 2.0 * c["m"] * c["n"] * c["k"] * c["batches"]

    @property
    def pipeline_ms(self) -> float:
        """The better of the two whole pipelines."""
        return min(self.pool_ms, self.engines_ms) if self.engines_ms is not None else self.pool_ms

    @property
    def pipeline_gflops(self) -> float:
        return self.flop / (self.pipeline_ms * 1e6)

    @property
    def bound_gflops(self) -> float:
        return self.flop / (self.bound_ms * 1e6)

    @property
    def pool_percent(self) -> float:
        """% of the bound: bound / achieved. Above 100: the overlapped run beat the isolated sums."""
        return 100.0 * self.bound_ms / self.pool_ms

    @property
    def engines_percent(self) -> float | None:
        return 100.0 * self.bound_ms / self.engines_ms if self.engines_ms else None


def _regime_name(bounds: dict[str, Any], limited_by: str) -> str:
    named = bounds.get("regime")
    if isinstance(named, str):
        return named
    # Written before bounds.regime existed: the kernels set the bound, or a copy direction does.
    return "compute-bound" if limited_by == "kernels" else "PCIe-bound"


def _article_workload(result: Result) -> bool:
    return all(result.config.get(key) == value for key, value in ARTICLE_WORKLOAD.items())


def regimes(results: list[Result]) -> list[Regime]:
    """Issue 9's comparison: one Regime per kernel, from stage 03's pinned runs at the article's workload
    that carry the bounds it needs (runs from before issue 9 do not), in KERNEL_ORDER; each with stage
    04's graph replay of the same kernel and workload where there is one. Where a kernel ran several
    times, one run is used (_prefer_named_runs)."""
    pools: dict[str, list[Result]] = {}
    replays: dict[str, list[tuple[Result, float]]] = {}
    for r in results:
        if not _article_workload(r):
            continue
        bounds = r.doc.get("bounds")
        if r.stage == STAGE03 and r.config.get("host_memory") == "pinned" and isinstance(bounds, dict) and \
                all(is_number(bounds.get(k)) for k in ("kernel_gflops", "stream_pool_ms", "pipeline_bound_ms")):
            pools.setdefault(kernel_of(r), []).append(r)
        elif r.stage == STAGE04:
            replay = next((m for m in r.measurements if m["name"] == "graph_replay"), None)
            if replay is not None:
                replays.setdefault(kernel_of(r), []).append((r, replay["median_ms"]))
    rows = []
    for kernel, runs in pools.items():
        run = _prefer_named_runs(runs, kernel)
        bounds = run.doc["bounds"]
        engines = bounds.get("engine_streams_ms")
        limited_by = str(bounds.get("limited_by", "-"))
        row = Regime(kernel=kernel, run=run, kernel_gflops=bounds["kernel_gflops"], pool_ms=bounds["stream_pool_ms"],
                     engines_ms=engines if is_number(engines) and engines > 0 else None,
                     bound_ms=bounds["pipeline_bound_ms"], limited_by=limited_by,
                     regime=_regime_name(bounds, limited_by))
        if kernel in replays:
            chosen = _prefer_named_runs([r for r, _ in replays[kernel]], kernel)
            row.replay, row.replay_ms = chosen, next(ms for r, ms in replays[kernel] if r is chosen)
        rows.append(row)
    rows.sort(key=lambda row: (KERNEL_ORDER.index(row.kernel) if row.kernel in KERNEL_ORDER else len(KERNEL_ORDER),
                               row.kernel))
    return rows


def missing_kernels(rows: list[Regime]) -> list[str]:
    """The kernels of KERNEL_ORDER with no row: the runs to add for the full comparison."""
    present = {row.kernel for row in rows}
    return [k for k in KERNEL_ORDER if k not in present]
