"""Reading a results folder strictly, for scripts/report.py.

A results folder (what scripts/run_suite.sh or scripts/gpu_box_check.sh
writes) holds, for each run of a stage:
  <run>.json        the result, schema cuda-streams-graphs/result/v1 (DESIGN.md)
  <run>.trace.json  optionally, its timeline as Chrome trace events
                    ({"traceEvents": [...]}, common/timeline.hpp)
and logs. <run> is the stage name, or the stage name and a suffix for extra
runs ("01_serial_baseline-pinned").

The field checks are summarize.py's (validate), so both scripts accept the
same files. Unlike summarize.py, which skips a JSON file of another schema,
this module refuses it: in a folder the report is built from, a result file
that can't be read is a mistake to point at, not something to leave out
quietly. Every problem is a ResultError whose message names the file and the
field.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from summarize import SCHEMA, Result, ResultError, is_number, validate

__all__ = ["SCHEMA", "Result", "ResultError", "Trace", "Suite", "load_suite", "load_results_from", "params_of",
           "run_name", "is_number"]


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
    """What the report reads beyond summarize.validate: params objects, rates, bounds."""
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
