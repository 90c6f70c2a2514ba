"""The one reader of a results folder, for every mode of report.py.

A folder (what scripts/run_suite.sh or scripts/gpu_box_check.sh writes) holds
per run <run>.json (its result), perhaps <run>.trace.json (its timeline as
Chrome trace events), its log, and registry.tsv: the runs the stages declared
for that script (STAGE --list), in the order they ran, which says which
results to expect and in which order the report shows them. Each *.json is
  - an object with "traceEvents": a timeline;
  - an object with "schema" (or, without it, with a result's own fields): a
    result, valid against docs/result.schema.json, else an error naming the
    file and the field;
  - anything else (another tool's JSON): skipped, with a note on stderr.
"""

from __future__ import annotations

import json
import sys
from collections import namedtuple
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError, best_match

from . import ResultError

SCHEMA_FILE = Path(__file__).resolve().parents[2] / "docs" / "result.schema.json"
RESULT_SCHEMA = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
SCHEMAS = RESULT_SCHEMA["properties"]["schema"]["enum"]
SCHEMA = SCHEMAS[-1]  # the newest, what the stages write now
# A result without "schema" is still recognised by these, and refused.
RESULT_FIELDS = ("stage", "measurements", "verification")
# A timeline: spans ("ph": "X") need a start and a duration.
TRACE_SCHEMA = {
    "type": "object", "required": ["traceEvents"],
    "properties": {"traceEvents": {"type": "array", "items": {
        "type": "object",
        "if": {"required": ["ph"], "properties": {"ph": {"const": "X"}}},
        "then": {"required": ["ts", "dur"], "properties": {"ts": {"type": "number"}, "dur": {"type": "number"}}}}}}}
JSON_TYPES = {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null"}  # else "number"
REGISTRY = "registry.tsv"
REGISTRY_COLUMNS = ["run", "stage", "subcommand", "exit", "summary"]


@dataclass
class JsonFile:
    """A JSON file of a results folder as read: where it is and what it holds."""
    path: Path
    doc: dict[str, Any]


class Result(JsonFile):
    """One run of a stage: the JSON it wrote with --json."""
    validator = Draft202012Validator(RESULT_SCHEMA)
    name = property(lambda self: self.path.stem)
    # The document's fields; "subcommand" is None for a lesson, and for a v1 result written when each stage
    # wrote one combined result; "verdicts" None for a v1 result, which carries none.
    stage = property(lambda self: self.doc["stage"])
    subcommand = property(lambda self: self.doc.get("subcommand"))
    device = property(lambda self: self.doc["device"])
    config = property(lambda self: self.doc["config"])
    measured_at = property(lambda self: self.doc.get("measured_at"))
    measurements = property(lambda self: self.doc["measurements"])
    bounds = property(lambda self: self.doc.get("bounds") or {})
    verdicts = property(lambda self: self.doc.get("verdicts"))
    failures = property(lambda self: self.doc.get("failures", []))

    def section(self, key: str) -> Any:
        """A stage's own object ("regime_map", "timeline"), or None."""
        return self.doc.get(key)

    def find(self, name: str, **params: Any) -> dict[str, Any] | None:
        """The first measurement called `name` whose params include `params`."""
        return next((m for m in self.measurements if m["name"] == name
                     and all(params_of(m).get(k) == v for k, v in params.items())), None)


class Trace(JsonFile):
    """A timeline: Chrome trace events, as the stages write them with --trace."""
    validator = Draft202012Validator(TRACE_SCHEMA)
    run = property(lambda self: self.path.name.removesuffix(".json").removesuffix(".trace"))


# One run of registry.tsv: what the script ran, in its order (subcommand None for a lesson).
Expected = namedtuple("Expected", "run stage subcommand exit summary")


@dataclass
class Suite:
    directory: Path
    results: list[Result] = field(default_factory=list)
    traces: list[Trace] = field(default_factory=list)
    registry: list[Expected] = field(default_factory=list)

    @property
    def missing(self) -> list[Expected]:
        """The runs registry.tsv expects a result of (exit 0) that left none here."""
        names = {r.name for r in self.results}
        return [e for e in self.registry if e.exit == 0 and e.run not in names]


def params_of(measurement: dict[str, Any]) -> dict[str, Any]:
    return measurement.get("params") or {}


def field_name(path: Iterable[Any]) -> str:
    """["measurements", 0, "median_ms"] -> measurements[0].median_ms"""
    text = ""
    for step in path:
        text += f"[{step}]" if isinstance(step, int) else f".{step}" if text else str(step)
    return text


def explain(error: ValidationError) -> str:
    """One line for the first thing wrong: which field, and how."""
    where = list(error.absolute_path)
    if error.validator == "required":
        missing = next(key for key in error.validator_value if key not in error.instance)
        return f"missing required field '{field_name([*where, missing])}'"
    label = f"field '{field_name(where) or '(the document)'}'"
    if error.validator == "type":
        return f"{label} has the wrong type ({JSON_TYPES.get(type(error.instance), 'number')}, expected " \
               f"{error.validator_value})"
    shown = json.dumps(error.instance)
    shown = shown if len(shown) <= 60 else shown[:57] + "..."
    return f"{label} is {shown}: {error.validator} {json.dumps(error.validator_value)[:80]}"


def load_file(path: Path) -> Result | Trace | None:
    """A result, a timeline, or None for the JSON of another tool."""
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        raise ResultError(f"{path}: cannot read: {error}") from None
    except json.JSONDecodeError as error:
        raise ResultError(f"{path}: not valid JSON: {error}") from None
    if not isinstance(doc, dict):
        return None
    kind = Trace if "traceEvents" in doc else Result
    if kind is Result and "schema" not in doc:
        if any(key in doc for key in RESULT_FIELDS):
            raise ResultError(f"{path}: no 'schema' field (expected \"{SCHEMA}\")")
        return None
    if kind is Result and doc["schema"] not in SCHEMAS:
        raise ResultError(f"{path}: field 'schema' is {json.dumps(doc['schema'])}, expected \"{SCHEMA}\" "
                          f"(or \"{SCHEMAS[0]}\")")
    error = best_match(kind.validator.iter_errors(doc))
    if error is not None:
        raise ResultError(f"{path}: {explain(error)}")
    return kind(path, doc)


def read_registry(path: Path) -> list[Expected]:
    """registry.tsv: a header line, then one tab-separated line per run (subcommand "-" for a lesson)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    if not lines or lines[0].split("\t") != REGISTRY_COLUMNS:
        raise ResultError(f"{path}: the first line is not the header {' '.join(REGISTRY_COLUMNS)} (tab-separated)")
    rows = []
    for number, line in enumerate(lines[1:], start=2):
        cells = line.split("\t")
        if len(cells) != len(REGISTRY_COLUMNS) or not cells[3].isdigit():
            raise ResultError(f"{path}: line {number} is not {len(REGISTRY_COLUMNS)} tab-separated fields with a "
                              "numeric exit")
        run, stage, subcommand, exit_status, summary = cells
        rows.append(Expected(run, stage, None if subcommand == "-" else subcommand, int(exit_status), summary))
    return rows


def load_suite(directory: Path, note: Callable[[str], None] = lambda text: print(text, file=sys.stderr)) -> Suite:
    """Every *.json of `directory` and its registry; the results in the registry's order (those it does not
    list after them, by stage, lesson first). Raises ResultError on the first bad file, or without results."""
    if not directory.is_dir():
        raise ResultError(f"{directory}: no such directory")
    suite = Suite(directory)
    if (directory / REGISTRY).is_file():
        suite.registry = read_registry(directory / REGISTRY)
    for path in sorted(p for p in directory.glob("*.json") if p.is_file()):
        loaded = load_file(path)
        if loaded is None:
            note(f"note: skipping {path.name}: not a {SCHEMA} result or a trace")
        else:
            (suite.traces if isinstance(loaded, Trace) else suite.results).append(loaded)
    if not suite.results:
        raise ResultError(f"{directory}: no {SCHEMA} JSON files in it")
    order = {e.run: index for index, e in enumerate(suite.registry)}
    suite.results.sort(key=lambda r: (order.get(r.name, len(order)), r.stage, r.subcommand is not None, r.name))
    return suite


def load_results_from(path: Path) -> list[Result]:
    """A results folder (as load_suite reads it), or one result file."""
    if path.is_dir():
        return load_suite(path).results
    if not path.exists():
        raise ResultError(f"{path}: no such file or directory")
    loaded = load_file(path)
    if isinstance(loaded, Trace):
        raise ResultError(f"{path}: a timeline trace, not a result file")
    if loaded is None:
        raise ResultError(f"{path}: not a {SCHEMA} result file")
    return [loaded]
