"""The library behind scripts/report.py: the one results loader, validation,
shared formatting, output digests, and the decisions behind every sentence
that interprets figures.

A results folder (what scripts/run_suite.sh or scripts/gpu_box_check.sh
writes) holds, for each run of a stage:
  <run>.json        the result, schema cuda-streams-graphs/result/v1
  <run>.trace.json  optionally, its timeline as Chrome trace events
                    ({"traceEvents": [...]}, common/timeline/)
and logs. <run> names the stage, the subcommand and what else sets the run
apart ("01_serial_baseline", "01_serial_baseline-pinned",
"03_stream_pool_gemm-kernels-cublas", "04_graph_capture_gemm-regime-map").

A stage runs either its lesson (the result's "subcommand" is null) or one
experiment of its laboratory ("subcommand": "kernels"); each subcommand's
result keeps the measurement names, bounds keys and top-level objects
("stream_count", "regime_map", "timeline", ...) that the stage's one combined
result held before the laboratory had subcommands. Results of that time have
no "subcommand" field: one of them holds every experiment of its stage, and
they still load. Every table and plot finds its data with runs_of (stage and
subcommand) or with_key (a top-level object), which read both kinds alike.

Every mode of report.py reads a folder with load_suite, so they all agree on
which *.json files are results, which are traces and which are skipped:
  - an object with "traceEvents": a trace;
  - an object with "schema" (or, without it, with a result's own fields
    "stage", "measurements", "verification"): a result, which must be valid;
    another schema, or a result without one, is an error, not a file to
    leave out quietly;
  - anything else (another tool's JSON): skipped, with one note on stderr.
Every problem is a ResultError whose message names the file and the field.

The interpretation functions at the end take plain numbers and return a
verdict (a short word) and the sentence built on it, each with its
threshold stated, so a caption says what the figures show on this GPU,
including when the article's claim does not hold here.
"""

from __future__ import annotations

import json
import math
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

SCHEMA = "cuda-streams-graphs/result/v2"
# The schemas this reads: v2 is v1 with "verdicts" (and "subcommand" in every result).
SCHEMAS = (SCHEMA, "cuda-streams-graphs/result/v1")
# The fields that make a JSON object a result of this suite even when its schema is missing.
RESULT_FIELDS = ("stage", "measurements", "verification")
# ISO 8601 in UTC, as the stages write measured_at: 2026-12-01T10:22:33Z (fractional seconds allowed).
MEASURED_AT = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z")
# A measurement's digest: a 64-bit hash of its outputs over all batches, 16 lowercase hex digits.
DIGEST = re.compile(r"[0-9a-f]{16}")


class ResultError(Exception):
    """A result file that cannot be read; the message names file and field."""


# --- results, traces, the folder -------------------------------------------------------

@dataclass
class JsonFile:
    """A JSON file of a results folder as read: where it is and what it holds. Result and Trace add
    properties only, no fields, so they share this dataclass's constructor, equality and repr."""
    path: Path
    doc: dict[str, Any]


class Result(JsonFile):
    """One run of a stage: the JSON it wrote with --json (schema cuda-streams-graphs/result/v1)."""

    @property
    def stage(self) -> str:
        return self.doc["stage"]

    @property
    def config(self) -> dict[str, Any]:
        return self.doc["config"]

    @property
    def device(self) -> dict[str, Any]:
        return self.doc["device"]

    @property
    def measurements(self) -> list[dict[str, Any]]:
        return self.doc["measurements"]

    @property
    def passed(self) -> bool:
        return self.doc["verification"]["passed"] is True

    @property
    def measured_at(self) -> str | None:
        """When the stage ran (UTC), or None for a result written before the stages recorded it."""
        return self.doc.get("measured_at")

    @property
    def bounds(self) -> dict[str, Any]:
        bounds = self.doc.get("bounds")
        return bounds if isinstance(bounds, dict) else {}

    @property
    def subcommand(self) -> str | None:
        """The laboratory's experiment this run is ("kernels", "regime-map"), or LESSON (None) for the lesson
        and for a combined result."""
        return self.doc.get("subcommand")

    @property
    def combined(self) -> bool:
        """Written before the laboratory had subcommands: one result held every experiment of its stage."""
        return "subcommand" not in self.doc

    def holds(self, subcommands: Iterable[str | None]) -> bool:
        """Whether this run holds the data of one of `subcommands` (LESSON for the lesson): a run of one of them,
        or a combined result, which holds them all."""
        return self.combined or self.subcommand in subcommands


class Trace(JsonFile):
    """One timeline: Chrome trace events, as the stages write them with --trace."""

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
    skipped: list[Path] = field(default_factory=list)

    def by_stage(self, stage: str) -> list[Result]:
        return [r for r in self.results if r.stage == stage]

    @property
    def combined(self) -> bool:
        """Every result here is a combined one (a folder written before the laboratory had subcommands)."""
        return all(r.combined for r in self.results)


def run_name(result: Result) -> str:
    return result.path.stem


# --- finding an experiment's data: stage and subcommand, or a top-level key ----------------

LESSON = None  # the "subcommand" of a lesson's run


def run_name_for(stage: str, subcommand: str | None = LESSON, variant: str | None = None) -> str:
    """The name scripts/run_suite.sh gives a run: the stage, then the subcommand, then what sets the run apart
    ("03_stream_pool_gemm-kernels-cublas_tf32"; "+" in a kernel's name as "_")."""
    return "-".join(part.replace("+", "_") for part in (stage, subcommand, variant) if part)


def runs_of(results: Iterable[Result], stage: str, subcommands: Iterable[str | None] | None = None,
            kernel: str | None = None) -> list[Result]:
    """The results of `stage` that hold the data of one of `subcommands` (None: any; LESSON: the lesson) and,
    if given, ran `kernel` (kernel_of). Best first: in the order the subcommands are listed (a combined result
    holds them all, so it ranks with the first), then a run under the name run_suite.sh gives it (the stage and
    the subcommand, with the kernel where one is asked for), then by file name: the same choice on every run."""
    wanted = None if subcommands is None else list(subcommands)
    found = [r for r in results if r.stage == stage and (wanted is None or r.holds(wanted))
             and (kernel is None or kernel_of(r) == kernel)]

    def rank(r: Result) -> tuple[int, bool, str]:
        order = 0 if r.combined or wanted is None else wanted.index(r.subcommand)
        subcommand = None if r.combined else r.subcommand
        plain = {run_name_for(stage, subcommand)} | ({run_name_for(stage, subcommand, kernel)} if kernel else set())
        return order, r.path.stem not in plain, r.path.name
    return sorted(found, key=rank)


def first_run(results: Iterable[Result], stage: str, subcommands: Iterable[str | None] | None = None,
              kernel: str | None = None) -> Result | None:
    """The best of runs_of, or None."""
    runs = runs_of(results, stage, subcommands, kernel)
    return runs[0] if runs else None


def with_key(results: Iterable[Result], key: str) -> list[Result]:
    """The results that carry the top-level object `key` ("regime_map", "stream_count", "timeline", ...), not
    null: an experiment found by its data wherever it ran."""
    return [r for r in results if isinstance(r.doc.get(key), dict)]


def find_in(results: Iterable[Result], name: str, **params: Any) -> tuple[Result, dict[str, Any]] | None:
    """The first (result, measurement) among `results` with a measurement called `name` with `params`."""
    for r in results:
        m = find_measurement(r, name, **params)
        if m is not None:
            return r, m
    return None


def params_of(measurement: dict[str, Any]) -> dict[str, Any]:
    params = measurement.get("params")
    return params if isinstance(params, dict) else {}


def find_measurement(result: Result, name: str, **params: Any) -> dict[str, Any] | None:
    """The first measurement called `name` whose params include `params`."""
    for m in result.measurements:
        p = params_of(m)
        if m["name"] == name and all(p.get(k) == v for k, v in params.items()):
            return m
    return None


def is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


# --- validation -----------------------------------------------------------------------

def json_type(value: Any) -> str:
    names = {type(None): "null", bool: "boolean", int: "number", float: "number", str: "string",
             list: "array", dict: "object"}
    return names.get(type(value), type(value).__name__)


def require(doc: dict[str, Any], path: Path, key: str, kind: type | tuple[type, ...], label: str) -> Any:
    if key not in doc:
        raise ResultError(f"{path}: missing required field '{label}'")
    value = doc[key]
    if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
        raise ResultError(f"{path}: field '{label}' has the wrong type ({json_type(value)})")
    return value


def require_text_or_null(doc: dict[str, Any], path: Path, key: str, label: str, fits: Callable[[str], Any],
                         what: str) -> None:
    """doc[key], a field added to the schema later: absent, null, or a string that `fits`; else a ResultError
    saying it is not `what`, with the value found."""
    value = doc.get(key)
    if value is not None and not (isinstance(value, str) and fits(value)):
        raise ResultError(f"{path}: field '{label}' is not {what} ({json.dumps(value)})")


def validate(doc: dict[str, Any], path: Path) -> None:
    """Every field the report, the table and the comparison read; raises ResultError naming the first bad one.
    Fields added to the schema later (measured_at, device.driver, digest) may be absent or null."""
    require(doc, path, "stage", str, "stage")
    device = require(doc, path, "device", dict, "device")
    require(doc, path, "config", dict, "config")
    measurements = require(doc, path, "measurements", list, "measurements")
    for index, m in enumerate(measurements):
        label = f"measurements[{index}]"
        if not isinstance(m, dict):
            raise ResultError(f"{path}: field '{label}' is not an object")
        require(m, path, "name", str, f"{label}.name")
        median = require(m, path, "median_ms", (int, float), f"{label}.median_ms")
        if not math.isfinite(median):
            raise ResultError(f"{path}: field '{label}.median_ms' is not a finite number")
        if median < 0:
            raise ResultError(f"{path}: field '{label}.median_ms' is negative")
        if "params" in m and not isinstance(m["params"], dict):
            raise ResultError(f"{path}: field '{label}.params' is not an object")
        for key in ("gbps", "gflops", "p95_ms", "min_ms", "max_ms"):
            value = m.get(key)
            if value is not None and not is_number(value):
                raise ResultError(f"{path}: field '{label}.{key}' is not a number or null")
        if m.get("verified") is not None and not isinstance(m["verified"], bool):
            raise ResultError(f"{path}: field '{label}.verified' is not true, false or null")
        require_text_or_null(m, path, "digest", f"{label}.digest", DIGEST.fullmatch, "16 lowercase hex digits or null")
    verification = require(doc, path, "verification", dict, "verification")
    require(verification, path, "passed", bool, "verification.passed")
    if doc.get("bounds") is not None and not isinstance(doc["bounds"], dict):
        raise ResultError(f"{path}: field 'bounds' is not an object")
    require_text_or_null(doc, path, "measured_at", "measured_at", MEASURED_AT.fullmatch,
                         "an ISO 8601 UTC time like 2026-12-01T10:22:33Z")
    require_text_or_null(device, path, "driver", "device.driver", bool, "a version string or null")  # bool: "" is none
    require_text_or_null(doc, path, "subcommand", "subcommand", bool, "a subcommand's name or null (the lesson)")
    if doc.get("regime_map") is not None:  # null: not measured in this run, as the stages write other experiments
        _validate_regime_map(doc["regime_map"], path)


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


# --- the one loader -------------------------------------------------------------------

def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        raise ResultError(f"{path}: cannot read: {error}") from None
    except json.JSONDecodeError as error:
        raise ResultError(f"{path}: not valid JSON: {error}") from None


def load_file(path: Path) -> Result | Trace | None:
    """A result, a trace, or None for a JSON file of another tool (see the module's docstring)."""
    doc = _read_json(path)
    if not isinstance(doc, dict):
        return None
    if "traceEvents" in doc:
        _validate_trace(doc, path)
        return Trace(path, doc)
    if "schema" not in doc:
        if any(key in doc for key in RESULT_FIELDS):
            raise ResultError(f"{path}: no 'schema' field (expected \"{SCHEMA}\")")
        return None
    if doc["schema"] not in SCHEMAS:
        raise ResultError(f"{path}: field 'schema' is {json.dumps(doc['schema'])}, expected \"{SCHEMA}\"")
    validate(doc, path)
    return Result(path, doc)


def skip_note(path: Path) -> str:
    return f"note: skipping {path.name}: not a {SCHEMA} result or a trace"


def _note_on_stderr(text: str) -> None:
    print(text, file=sys.stderr)


def load_suite(directory: Path, note: Callable[[str], None] = _note_on_stderr) -> Suite:
    """Every *.json in `directory`: results and traces; other JSON is skipped with a note.
    Raises ResultError on the first bad file, or when no result is left."""
    if not directory.is_dir():
        raise ResultError(f"{directory}: no such directory")
    suite = Suite(directory)
    for path in sorted(directory.glob("*.json")):
        if not path.is_file():
            continue
        loaded = load_file(path)
        if loaded is None:
            suite.skipped.append(path)
            note(skip_note(path))
        elif isinstance(loaded, Trace):
            suite.traces.append(loaded)
        else:
            suite.results.append(loaded)
    if not suite.results:
        raise ResultError(f"{directory}: no {SCHEMA} JSON files in it")
    # Stage order; within a stage the run at defaults (the file named after the stage) first.
    suite.results.sort(key=lambda r: (r.stage, r.path.stem != r.stage, r.path.name))
    return suite


def load_results_from(path: Path, note: Callable[[str], None] = _note_on_stderr) -> list[Result]:
    """A results folder (read as load_suite reads it), or one result file (for --compare)."""
    if path.is_dir():
        return load_suite(path, note).results
    if not path.exists():
        raise ResultError(f"{path}: no such file or directory")
    loaded = load_file(path)
    if isinstance(loaded, Trace):
        raise ResultError(f"{path}: a timeline trace, not a result file")
    if loaded is None:
        raise ResultError(f"{path}: not a {SCHEMA} result file")
    return [loaded]


# --- formatting shared by the report, the table and the comparison --------------------

def count_text(count: Any) -> str:
    """A count as it reads in a sentence: 8, 1.5, 1,024 is written 1024 as the stages print it."""
    if is_number(count) and float(count).is_integer():
        return str(int(count))
    return str(count)


def plural_of(noun: str) -> str:
    """English plural of a noun or noun phrase (its last word): batch -> batches, copy -> copies,
    stream -> streams, empty kernel -> empty kernels."""
    if noun.endswith(("s", "x", "z", "ch", "sh")):
        return noun + "es"
    if noun.endswith("y") and noun[-2:-1] not in ("a", "e", "i", "o", "u", ""):
        return noun[:-1] + "ies"
    return noun + "s"


def plural(count: Any, noun: str, many: str | None = None) -> str:
    """The one rule for a count and its noun in every output: "1 batch", "2 batches", "0 streams",
    "1.5 replays"; `many` where the plural is irregular or spelled otherwise (plural(2, "gemm", "GEMMs"))."""
    one = is_number(count) and count == 1
    return f"{count_text(count)} {noun if one else (many or plural_of(noun))}"


def human_bytes(count: float) -> str:
    """1 GiB, 64 MiB, 1.5 KiB, 512 B: sizes as the stages print them."""
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if count >= size:
            value = count / size
            return f"{value:.0f} {unit}" if value == int(value) else f"{value:.1f} {unit}"
    return f"{count:.0f} B"


def format_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dict, list)):
        return json.dumps(value, separators=(",", ":"))
    return str(value)


def format_params(params: Any) -> str:
    if isinstance(params, dict):
        return " ".join(f"{key}={format_value(value)}" for key, value in params.items()) or "-"
    return "-" if params is None else format_value(params)


def format_ms(ms: float) -> str:
    return f"{ms:.2f}" if ms >= 1.0 else f"{ms:.3g}"


def rate(value: Any, digits: int = 1) -> str:
    return f"{value:.{digits}f}" if is_number(value) else "-"


def format_pcie(device: dict[str, Any]) -> str | None:
    def link(gen: Any, width: Any) -> str | None:
        parts = [f"Gen{gen}" if gen is not None else None, f"x{width}" if width is not None else None]
        parts = [p for p in parts if p]
        return " ".join(parts) if parts else None

    now = link(device.get("pcie_gen"), device.get("pcie_width"))
    best = link(device.get("pcie_gen_max"), device.get("pcie_width_max"))
    if now is None:
        return None
    # Links train down when idle, so the current generation can read below the maximum.
    return f"PCIe {now}" + (f" (max {best})" if best and best != now else "")


def format_cuda_version(version: Any) -> str:
    # cudaDriverGetVersion/cudaRuntimeGetVersion: 1000 * major + 10 * minor (13000 = 13.0).
    if is_number(version) and version > 0:
        return f"{int(version) // 1000}.{int(version) % 1000 // 10}"
    return str(version)


def describe_driver(device: dict[str, Any]) -> str:
    """NVML's driver version ("driver 580.159.04"); device.driver_version is not it (see describe_device)."""
    driver = device.get("driver")
    return f"driver {driver}" if isinstance(driver, str) and driver else "driver version not recorded"


def describe_device(device: dict[str, Any]) -> str:
    parts = [str(device.get("name", "unknown device"))]
    if device.get("compute_capability") is not None:
        parts.append(f"compute capability {device['compute_capability']}")
    pcie = format_pcie(device)
    if pcie:
        parts.append(pcie)
    parts.append(describe_driver(device))
    # cudaDriverGetVersion: the newest CUDA version the installed driver supports, not the driver's version.
    if device.get("driver_version") is not None:
        parts.append(f"CUDA driver API {format_cuda_version(device['driver_version'])}")
    if device.get("runtime_version") is not None:
        parts.append(f"CUDA runtime {format_cuda_version(device['runtime_version'])}")
    return ", ".join(parts)


def device_identity(device: dict[str, Any]) -> str:
    keys = ("name", "compute_capability", "pci_bus_id", "driver", "driver_version", "runtime_version")
    return json.dumps([device.get(key) for key in keys])


def describe_devices(results: list[Result]) -> list[str]:
    """One line for the device all results ran on, else one line per file."""
    if len({device_identity(r.device) for r in results}) == 1:
        return [f"device: {describe_device(results[0].device)}"]
    return [f"{r.path.name}: {describe_device(r.device)}" for r in results]


def measured_dates(results: list[Result]) -> str:
    """When the results were measured, from each result's measured_at; never guessed from file times."""
    stamps = sorted(r.measured_at for r in results if r.measured_at)
    missing = [r.path.name for r in results if not r.measured_at]
    if not stamps:
        return "date not recorded (no result has measured_at)"
    text = stamps[0] if stamps[0] == stamps[-1] else f"{stamps[0]} to {stamps[-1]}"
    if missing:
        text += f"; date not recorded in {', '.join(missing)}"
    return text


# Params that read well as a bare value ("pinned", "depth_first", "h2d"), and
# counts that read well as "8 streams"; the order they are listed in.
BARE_PARAMS = ("host_memory", "direction", "call", "order", "device_buffers")
COUNT_PARAMS = {"streams": "stream", "batches": "batch", "kernels": "kernel", "gemms": "gemm"}  # key: its singular
PARAM_ORDER = ("streams", "order", "host_memory", "direction", "bytes", "call")


def describe_params(params: dict[str, Any]) -> str:
    """{"streams": 8, "order": "depth_first", "host_memory": "pinned", "sweep": false} -> "8 streams, depth_first, pinned"."""
    keys = sorted(params, key=lambda k: (PARAM_ORDER.index(k) if k in PARAM_ORDER else len(PARAM_ORDER), k))
    parts = []
    for key in keys:
        value = params[key]
        if isinstance(value, bool):
            if value:
                parts.append(key)
        elif key == "bytes" and is_number(value):
            parts.append(human_bytes(value))
        elif key in COUNT_PARAMS and is_number(value):
            parts.append(plural(value, COUNT_PARAMS[key], key))
        elif key in BARE_PARAMS and isinstance(value, str):
            parts.append(value)
        elif isinstance(value, (dict, list)):
            parts.append(f"{key}={json.dumps(value, separators=(',', ':'))}")
        else:
            parts.append(f"{key}={value}")
    return ", ".join(parts)


def variant_label(m: dict[str, Any]) -> str:
    described = describe_params(params_of(m))
    return f"{m['name']} ({described})" if described else m["name"]


def is_unverified(m: dict[str, Any]) -> bool:
    """null: nothing to check (an allocation cost, a CPU issue time); a missing field or false: not verified."""
    verified = m.get("verified", False)
    return verified is not True and verified is not None


def verified_text(m: dict[str, Any]) -> str:
    value = m.get("verified", False)
    return "yes" if value is True else ("n/a" if value is None else "NO")


def md_row(cells: list[str]) -> str:
    return "| " + " | ".join(str(c).replace("|", "\\|").replace("\n", " ") for c in cells) + " |"


def md_table(headers: list[str], rows: list[list[str]], right: set[int]) -> list[str]:
    lines = [md_row(headers), "|" + "|".join("---:" if i in right else "---" for i in range(len(headers))) + "|"]
    lines += [md_row(r) for r in rows]
    return lines


def text_table(headers: list[str], rows: list[list[str]], right: set[int], rule: bool = True) -> list[str]:
    """Plain-text columns; `rule`: a line of dashes under the headers."""
    widths = [max(len(row[i]) for row in [headers, *rows]) for i in range(len(headers))]

    def line(cells: list[str]) -> str:
        return "  ".join(cell.rjust(widths[i]) if i in right else cell.ljust(widths[i])
                         for i, cell in enumerate(cells)).rstrip()

    return [line(headers), *(["  ".join("-" * w for w in widths)] if rule else []), *(line(r) for r in rows)]


def failed_verifications(results: list[Result]) -> list[str]:
    """One line per result whose stage failed verification, and per result with measurements not verified."""
    lines = []
    for r in results:
        if not r.passed:
            reason = r.doc["verification"].get("failure", "verification.passed is false")
            lines.append(f"VERIFICATION FAILED in {r.path.name}: {reason}")
        bad = [variant_label(m) for m in r.measurements if is_unverified(m)]
        bad += [f"regime map cell {map_cell_label(c)}" for c in map_cells(r) if c["verified"] is False]
        if bad:
            lines.append(f"not verified in {r.path.name}: " + "; ".join(bad))
    return lines


# --- output digests -------------------------------------------------------------------

def output_shape(result: Result, m: dict[str, Any]) -> tuple[Any, ...]:
    """What a measurement's outputs are: the GEMM shape and count, or the bytes copied. The config's
    workload unless the measurement's params say otherwise (stage 04's 1000 tiny 64³ GEMMs)."""
    p, c = params_of(m), result.config
    if is_number(p.get("size")):
        dims = (p["size"],) * 3
    else:
        dims = tuple(p.get(key, c.get(key)) for key in ("m", "n", "k"))
    count = p.get("gemms", p.get("batches", c.get("batches")))
    return (*dims, count, p.get("bytes"))


def describe_shape(shape: tuple[Any, ...]) -> str:
    m, n, k, count, size = shape
    parts = []
    if m is not None:
        parts.append(f"{m}³" if m == n == k else f"{m}×{n}×{k}")
    if count is not None:
        parts.append(plural(count, "batch"))
    if size is not None and is_number(size):
        parts.append(human_bytes(size))
    return ", ".join(parts) or "the run's workload"


@dataclass
class DigestGroup:
    """The digests of one result's measurements with the same output shape."""
    shape: tuple[Any, ...]
    by_digest: dict[str, list[str]]  # digest -> the variants that produced it

    @property
    def count(self) -> int:
        return sum(len(v) for v in self.by_digest.values())


def digest_groups(result: Result) -> list[DigestGroup]:
    groups: dict[tuple[Any, ...], DigestGroup] = {}
    for m in result.measurements:
        if isinstance(m.get("digest"), str):
            shape = output_shape(result, m)
            group = groups.setdefault(shape, DigestGroup(shape, {}))
            group.by_digest.setdefault(m["digest"], []).append(variant_label(m))
    return list(groups.values())


def digest_agreement(digests: list[str]) -> str:
    """"agree" (two or more, all equal), "differ", "single" (nothing to compare) or "none"."""
    if not digests:
        return "none"
    if len(digests) == 1:
        return "single"
    return "agree" if len(set(digests)) == 1 else "differ"


def digest_lines(results: list[Result]) -> tuple[list[str], bool]:
    """Whether the variants of each result computed the same outputs (same seed and shape: the same C).
    (lines, any disagreement)."""
    lines, differ = [], False
    without = [r.path.name for r in results if not digest_groups(r)]
    for r in results:
        for group in digest_groups(r):
            digests = [d for d, variants in group.by_digest.items() for _ in variants]
            verdict = digest_agreement(digests)
            where = f"{r.path.name} ({describe_shape(group.shape)})"
            if verdict == "agree":
                lines.append(f"{where}: the {group.count} output digests agree ({digests[0]})")
            elif verdict == "single":
                lines.append(f"{where}: one output digest ({digests[0]}), nothing to compare it with")
            else:
                differ = True
                lines.append(f"OUTPUTS DIFFER in {where}: " + "; ".join(
                    f"{d}: {', '.join(v)}" for d, v in group.by_digest.items()))
    if without:
        lines.append("no output digests in " + ", ".join(without))
    return lines, differ


SAME_CONFIG_KEYS = ("seed", "m", "n", "k", "batches")


def config_difference(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """The keys of SAME_CONFIG_KEYS that differ or are missing in one of the configs: [] when the two runs
    computed the same inputs and shapes, so their outputs must be the same."""
    return [key for key in SAME_CONFIG_KEYS if key not in old or key not in new or old[key] != new[key]]


def digest_comparison(old: Any, new: Any, config_differs: list[str]) -> str | None:
    """One row of --compare: "equal", "DIFFERENT" (same config, different outputs: a finding),
    "different-config" (expected: the inputs or shapes differ), or None when a run has no digest."""
    if not isinstance(old, str) or not isinstance(new, str):
        return None
    if old == new:
        return "equal"
    return "different-config" if config_differs else "DIFFERENT"


# --- interpreting figures: verdicts with stated thresholds ---------------------------

# A median of 10 repeats moves by well under 1% between runs on an idle GPU
# (the samples' p95 is within 0.5% of the median for the pinned pools), so:
BOUND_BEATEN = 0.01    # more than 1% below the pipeline bound: the run beat it
AT_BOUND = 0.05        # from there to 5% above the bound: at the bound
SAME_TIME = 0.03       # two times within ±3%: about equal
PLATEAU = 0.03         # within 3% of the sweep's best time: no longer improving
SAME_RATE = 0.10       # copy rates within ±10%: about equal (pageable copies vary by more than 3%)
DUPLEX_GAIN = 0.25     # both directions at once more than 25% above one direction alone: a gain
SAME_HEIGHT = 0.05     # pipelines within 5% of each other: the same height whatever the kernel
OVERLAPPED = 0.01      # two operations at once for more than 1% of the busy time: overlapped
GAIN_KEPT = 0.90       # the pipeline kept 90% of the kernel's speed-up or more: it carried over
GAIN_LOST = 0.50       # it kept under half: "only"


def percent(value: float) -> str:
    return f"{100.0 * value:.0f}%"


def ms_text(ms: float) -> str:
    return f"{ms:.2f} ms" if ms >= 0.1 else f"{ms * 1000:.0f} µs"


def bound_verdict(achieved_ms: float, bound_ms: float) -> str:
    """"below" (beat the bound by more than BOUND_BEATEN), "at" (up to AT_BOUND above it) or "above"."""
    ratio = achieved_ms / bound_ms
    if ratio < 1.0 - BOUND_BEATEN:
        return "below"
    return "at" if ratio <= 1.0 + AT_BOUND else "above"


def bound_sentence(what: str, achieved_ms: float, bound_ms: float) -> str:
    verdict, ratio = bound_verdict(achieved_ms, bound_ms), achieved_ms / bound_ms
    figures = f"{what} takes {ms_text(achieved_ms)}"
    if verdict == "below":
        return (f"{figures}, {percent(1.0 - ratio)} BELOW the pipeline bound of {ms_text(bound_ms)}: it beat the "
                f"bound (more than {percent(BOUND_BEATEN)} under it), so the isolated one-stream sums the bound is "
                "made of are slower than what this GPU does with the work overlapped")
    if verdict == "at":
        return (f"{figures}, at the pipeline bound of {ms_text(bound_ms)} (within -{percent(BOUND_BEATEN)} to "
                f"+{percent(AT_BOUND)}): as fast as the busiest resource allows")
    return (f"{figures}, {percent(ratio - 1.0)} above the pipeline bound of {ms_text(bound_ms)} (more than "
            f"{percent(AT_BOUND)} over it): not at the bound, the busiest resource idles part of the time")


def time_verdict(ms: float, reference_ms: float) -> str:
    """`ms` against `reference_ms`: "faster", "slower" or "about equal" (within ±SAME_TIME)."""
    ratio = ms / reference_ms
    if ratio < 1.0 - SAME_TIME:
        return "faster"
    return "slower" if ratio > 1.0 + SAME_TIME else "about equal"


def versus_sentence(what: str, ms: float, other: str, reference_ms: float, verb: str = "is") -> str:
    """"graph replay is faster than the stream pool (ratio 0.90; more than 3% apart)"."""
    verdict, ratio = time_verdict(ms, reference_ms), ms / reference_ms
    if verdict == "about equal":
        return f"{what} {verb} about equal to {other} (ratio {ratio:.2f}, within ±{percent(SAME_TIME)})"
    return f"{what} {verb} {verdict} than {other} (ratio {ratio:.2f}; more than {percent(SAME_TIME)} apart)"


def graph_vs_streams_sentence(replay_ms: float, pool_ms: float) -> str:
    return versus_sentence("graph replay", replay_ms, "the stream pool", pool_ms)


def issue_sentence(graph_cpu_ms: float, streams_cpu_ms: float) -> str:
    """CPU time to issue the work: one graph launch against the stream calls."""
    return versus_sentence(f"issuing the work as one graph launch ({ms_text(graph_cpu_ms)} of CPU time)",
                           graph_cpu_ms, f"issuing it call by call on streams ({ms_text(streams_cpu_ms)})",
                           streams_cpu_ms, verb="was")


@dataclass(frozen=True)
class Plateau:
    kind: str                # "flat", "plateau" or "still improving"
    streams: Any             # the fewest streams within PLATEAU of the best time
    ms: float                # the time there
    best_streams: Any
    best_ms: float
    rises: tuple[Any, float] | None  # a larger pool more than PLATEAU slower than the best: (streams, ms)


def sweep_plateau(points: list[tuple[Any, float]]) -> Plateau | None:
    """Where the time stops improving in a stream-count sweep [(streams, ms), ...]; None below two points."""
    points = sorted(points)
    if len(points) < 2:
        return None
    best_streams, best_ms = min(points, key=lambda p: p[1])
    limit = best_ms * (1.0 + PLATEAU)
    index = next(i for i, (_, ms) in enumerate(points) if ms <= limit)
    streams, ms = points[index]
    if index == 0:
        kind = "flat"
    elif index == len(points) - 1:
        kind = "still improving"
    else:
        kind = "plateau"
    later = [p for p in points[index + 1:] if p[1] > limit]
    rises = max(later, key=lambda p: p[1]) if later else None
    return Plateau(kind, streams, ms, best_streams, best_ms, rises)


def sweep_sentence(points: list[tuple[Any, float]], bound_ms: float | None = None) -> str:
    plateau = sweep_plateau(points)
    if plateau is None:
        return "Too few pool sizes to see where the time stops improving."
    largest = max(points)[0]
    if plateau.kind == "flat":
        text = (f"More streams do not help here: {plural(plateau.streams, 'stream')}, the smallest pool tried, is "
                f"already within {percent(PLATEAU)} of the best time ({ms_text(plateau.best_ms)} with "
                f"{plural(plateau.best_streams, 'stream')}).")
    elif plateau.kind == "still improving":
        text = (f"The time still improves up to the largest pool tried ({plural(largest, 'stream')}, "
                f"{ms_text(plateau.ms)}): no plateau within {percent(PLATEAU)} in this range.")
    else:
        best = "the best time" if plateau.streams == plateau.best_streams else \
            f"within {percent(PLATEAU)} of the best, {ms_text(plateau.best_ms)} with " \
            f"{plural(plateau.best_streams, 'stream')}"
        text = (f"The time stops improving at {plural(plateau.streams, 'stream')} ({ms_text(plateau.ms)}, {best}): "
                f"larger pools gain at most {percent(PLATEAU)} more.")
    if plateau.rises:
        streams, ms = plateau.rises
        text += (f" Past that, more streams cost time: {plural(streams, 'stream')} take {ms_text(ms)}, "
                 f"{percent(ms / plateau.best_ms - 1.0)} more than the best.")
    if bound_ms is not None and is_number(bound_ms) and bound_ms > 0:
        text += " " + bound_sentence(f"The best pool ({plural(plateau.best_streams, 'stream')})", plateau.best_ms,
                                     bound_ms) + "."
    return text


def rate_verdict(rate_gbps: float, reference_gbps: float) -> str:
    """A copy rate against another: "faster", "slower" or "about equal" (within ±SAME_RATE)."""
    ratio = rate_gbps / reference_gbps
    if ratio > 1.0 + SAME_RATE:
        return "faster"
    return "slower" if ratio < 1.0 - SAME_RATE else "about equal"


def speed_label(first_ms: float, ms: float) -> str:
    """'2.9× faster' than a first time, or '1.1× slower' where it took longer: never '0.9× faster'."""
    return f"{first_ms / ms:.1f}× faster" if ms <= first_ms else f"{ms / first_ms:.1f}× slower"


def copy_sentence(direction: str, size: float, pinned_gbps: float, pageable_gbps: float) -> str:
    verdict = rate_verdict(pinned_gbps, pageable_gbps)
    figures = (f"{direction} at {human_bytes(size)}: pinned {pinned_gbps:.1f} GB/s, pageable "
               f"{pageable_gbps:.1f} GB/s")
    if verdict == "faster":
        return f"{figures}: pinned is {pinned_gbps / pageable_gbps:.1f}× faster"
    if verdict == "slower":
        return f"{figures}: pinned is SLOWER than pageable here ({pinned_gbps / pageable_gbps:.2f}×)"
    return f"{figures}: about equal (within ±{percent(SAME_RATE)}): pinning gains nothing at this size here"


def duplex_sentence(both_gbps: float, one_way_gbps: float) -> str:
    """Both directions at once against the faster single direction at the same size."""
    ratio = both_gbps / one_way_gbps
    if ratio > 1.0 + DUPLEX_GAIN:
        return (f"both directions at once move {both_gbps:.1f} GB/s in total, {ratio:.2f}× one direction alone: "
                "the link carries both ways at the same time")
    return (f"both directions at once move {both_gbps:.1f} GB/s in total, only {ratio:.2f}× one direction alone "
            f"(not more than {percent(DUPLEX_GAIN)} above it): no gain from copying both ways at once here")


def overlap_fraction(spans: Iterable[tuple[float, float]]) -> tuple[float, float]:
    """(time with two or more operations running, time with at least one), from (start, duration) spans."""
    edges = sorted([(s, 1) for s, d in spans if d > 0] + [(s + d, -1) for s, d in spans if d > 0])
    busy = overlapped = 0.0
    running, last = 0, None
    for time, step in edges:
        if last is not None:
            if running >= 1:
                busy += time - last
            if running >= 2:
                overlapped += time - last
        running += step
        last = time
    return overlapped, busy


def overlap_verdict(overlapped: float, busy: float) -> str:
    """"overlapped" when two or more operations ran at once for more than OVERLAPPED of the busy time,
    else "serial"."""
    return "overlapped" if busy > 0 and overlapped / busy > OVERLAPPED else "serial"


def overlap_short(overlapped: float, busy: float) -> str:
    """The verdict in a few words, for a plot's title."""
    if overlap_verdict(overlapped, busy) == "serial":
        return "no two operations at once"
    return f"two or more operations at once {percent(overlapped / busy)} of the busy time"


def overlap_sentence(overlapped: float, busy: float) -> str:
    share = overlapped / busy if busy > 0 else 0.0
    if overlap_verdict(overlapped, busy) == "serial":
        return (f"No two operations ran at the same time (overlap {share * 100:.1f}% of the busy time, at most "
                f"{percent(OVERLAPPED)}): the operations took turns")
    return (f"Two or more operations ran at once for {percent(share)} of the busy time (more than "
            f"{percent(OVERLAPPED)}): the work overlapped")


def gain_verdict(kernel_x: float, pipeline_x: float) -> str:
    """How much of a faster kernel's speed-up (kernel_x, vs the naive kernel) reached the whole pipeline
    (pipeline_x): "carried over" (GAIN_KEPT of it or more), "partly", "little" (under GAIN_LOST), "slower"
    (the pipeline lost time), or "kernel not faster" (nothing to carry over)."""
    if kernel_x <= 1.0:
        return "kernel not faster"
    if pipeline_x < 1.0:
        return "slower"
    kept = (pipeline_x - 1.0) / (kernel_x - 1.0)
    if kept >= GAIN_KEPT:
        return "carried over"
    return "partly" if kept >= GAIN_LOST else "little"


def gain_sentence(kernel_x: float, pipeline_x: float) -> str:
    """The end of "the whole pipeline went from A to B GFLOP/s: ..."."""
    verdict = gain_verdict(kernel_x, pipeline_x)
    if verdict == "kernel not faster":
        return f"{pipeline_x:.2f}× the naive pipeline, but the kernel alone is not faster than the naive one here"
    if verdict == "slower":
        return f"SLOWER ({pipeline_x:.2f}×) although the kernel alone is {kernel_x:.1f}× faster"
    if verdict == "carried over":
        return f"{pipeline_x:.1f}× faster: the kernel's gain carried over ({percent(GAIN_KEPT)} of it or more)"
    if verdict == "partly":
        return (f"{pipeline_x:.1f}× faster: part of the kernel's gain reached it "
                f"({percent(GAIN_LOST)} to {percent(GAIN_KEPT)} of it)")
    return f"only {pipeline_x:.1f}× faster: less than {percent(GAIN_LOST)} of the kernel's gain reached it"


def spread_verdict(values: list[float]) -> str:
    """"same" when the largest is within SAME_HEIGHT of the smallest, else "differ"."""
    return "same" if max(values) <= min(values) * (1.0 + SAME_HEIGHT) else "differ"


def plateau_of_rates_sentence(kernels: list[str], pipeline: list[float], alone: list[float]) -> str:
    """Whether the pipelines of the kernels that share a regime end at the same rate however fast the kernel."""
    low, high = min(pipeline), max(pipeline)
    figures = f"{', '.join(kernels)}: whole pipeline {low:,.0f}-{high:,.0f} GFLOP/s, kernels alone " \
              f"{min(alone):,.0f}-{max(alone):,.0f} GFLOP/s"
    if spread_verdict(pipeline) == "same":
        return (f"{figures}: the pipelines end at the same rate (within {percent(SAME_HEIGHT)}) however fast the "
                "kernel")
    return f"{figures}: the pipelines differ by more than {percent(SAME_HEIGHT)}"


@dataclass
class StageFigures:
    """The bars of stages.png, each from its own run; None where that run is missing."""
    serial_pageable: float | None = None
    serial_pinned: float | None = None
    pool_pageable: float | None = None
    pool_pinned: float | None = None
    replay: float | None = None
    bound: float | None = None        # stage 03's pipeline bound (pinned)


def stages_sentences(f: StageFigures) -> list[str]:
    """What stages.png shows, from its figures; each a separate run, so ratios are for orientation."""
    out = []
    if f.serial_pageable and f.serial_pinned:
        out.append(versus_sentence("Serial with pinned memory", f.serial_pinned, "serial with pageable memory",
                                   f.serial_pageable))
    if f.pool_pinned and f.serial_pinned:
        out.append(versus_sentence("The stream pool on pinned memory", f.pool_pinned, "serial on pinned memory",
                                   f.serial_pinned))
    if f.pool_pageable and f.serial_pageable:
        out.append(versus_sentence("The stream pool on pageable memory", f.pool_pageable,
                                   "serial on pageable memory", f.serial_pageable))
    if f.bound:
        if f.pool_pinned:
            out.append(bound_sentence("The stream pool", f.pool_pinned, f.bound))
        if f.replay:
            out.append(bound_sentence("The graph replay", f.replay, f.bound))
    return out


def replay_sentence(kernel: str, replay_ms: float, pool_ms: float) -> str:
    """Stage 04's replay against stage 03's pool of the same kernel (separate runs)."""
    return versus_sentence(f"with {kernel}, 04's graph replay ({ms_text(replay_ms)})", replay_ms,
                           f"03's stream pool ({ms_text(pool_ms)})", pool_ms, verb="was")


def findings_sentence(findings: list[str]) -> str:
    """A findings list (copy_findings, graph_findings, map_findings) as one sentence for a caption or the
    report: joined with "; ", the first letter capitalised, a full stop at the end; "" when there are none."""
    if not findings:
        return ""
    text = "; ".join(findings)
    return text[0].upper() + text[1:] + "."


def copy_findings(series: dict[tuple[str, str], dict[float, float]]) -> list[str]:
    """Pinned against pageable in each direction, and both directions at once, at the largest size measured;
    `series`: (host memory, direction) -> {bytes: GB/s}."""
    sizes = {s for points in series.values() for s in points}
    if not sizes:
        return []
    largest = max(sizes)
    found = []
    for direction in ("h2d", "d2h"):
        pinned = series.get(("pinned", direction), {}).get(largest)
        pageable = series.get(("pageable", direction), {}).get(largest)
        if pinned and pageable:
            found.append(copy_sentence(direction.upper(), largest, pinned, pageable))
    both = series.get(("pinned", "bidirectional"), {}).get(largest)
    one_way = [v for v in (series.get(("pinned", d), {}).get(largest) for d in ("h2d", "d2h")) if v]
    if both and one_way:
        found.append(f"at {human_bytes(largest)}, " + duplex_sentence(both, max(one_way)))
    return found


def measured_pair(results: Iterable[Result], first: str, second: str) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """Measurements `first` and `second` of the first result that has both: a comparison within one run."""
    for r in results:
        a, b = find_measurement(r, first), find_measurement(r, second)
        if a and b:
            return a, b
    return None


def graph_findings(results: Result | list[Result]) -> list[str]:
    """Stage 04's comparisons, each within one run: replay vs its stream pool, CPU issue time (its costs run),
    tiny work (its tiny-work run), the break-even. `results`: one result, or the runs to take them from, best
    first (a combined result holds them all)."""
    runs = [results] if isinstance(results, Result) else results
    found = []
    pair = measured_pair(runs, "graph_replay", "stream_pool")
    if pair and pair[1]["median_ms"] > 0:
        found.append(graph_vs_streams_sentence(pair[0]["median_ms"], pair[1]["median_ms"]) + " on the GPU")
    pair = measured_pair(runs, "issue_graph_cpu", "issue_streams_cpu")
    if pair and pair[1]["median_ms"] > 0:
        found.append(issue_sentence(pair[0]["median_ms"], pair[1]["median_ms"]))
    for prefix, count_key, what in (("tiny_empty", "kernels", ("empty kernel", "empty kernels")),
                                    ("tiny_gemm", "gemms", ("tiny GEMM", "tiny GEMMs"))):
        pair = measured_pair(runs, f"{prefix}_graph", f"{prefix}_streams")
        if pair and pair[1]["median_ms"] > 0:
            graph, streams = pair
            count = params_of(graph).get(count_key)
            label = plural(count, *what) if is_number(count) else what[1]
            found.append(versus_sentence(f"{label} as a graph ({ms_text(graph['median_ms'])})", graph["median_ms"],
                                         f"on streams ({ms_text(streams['median_ms'])})", streams["median_ms"],
                                         verb="ran"))
    even = next((r.bounds["break_even_replays"] for r in runs if is_number(r.bounds.get("break_even_replays"))), None)
    if even is not None:
        found.append(f"the stage puts the break-even at {even:.1f} replays (bounds.break_even_replays)")
    return found


# --- the regimes, one row per GEMM kernel ---------------------------------------------

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
    A result from before the stages had a choice of kernel has no config.kernel: it ran the naive kernel."""
    config = result.config
    name = str(config.get("kernel", "naive"))
    return name + "+tf32" if config.get("tf32") is True else name


STAGE01 = "01_serial_baseline"
STAGE02 = "02_pinned_vs_pageable"

# --- where each table and plot of the report finds its data ---------------------------
#
# The subcommands whose runs hold each experiment, best first (LESSON: the
# lesson's run). A combined result holds every one of them. report.py and
# report_plots.py look their data up through runs_of with these, and only these.

# The runs of the article's workload whose variants are rows of report.md's main table (stage 04: only the
# launches of the same work, GRAPH_MAIN in report.py); the others have their own sections, and every
# measurement of every run is in the appendix.
WORKLOAD_RUNS: dict[str, tuple[str | None, ...]] = {
    STAGE01: (LESSON, "kernels"),
    STAGE03: (LESSON, "kernels", "order", "engine-streams"),
    STAGE04: (LESSON, "costs"),
}
SERIAL_RUNS = (LESSON, "kernels")         # 01's pageable serial time (naive kernel): the speed-up across runs
BOUND_RUNS = ("kernels", LESSON)          # 03's pipeline bound per kernel: the % of bound across runs, as the
                                          # regime table's (the lesson's where no kernels run holds one)
COPY_SWEEP_RUNS = ("sweep", LESSON)       # 02's bandwidth table and bandwidth.png (the lesson where no sweep ran)
POOL_SWEEP_RUNS = (LESSON, "kernels")     # 03's pool-size sweep table and sweep.png (not count-sweep's workload)
POOL_BAR_RUNS = (LESSON, "order", "kernels")   # stages.png: 03's pool on pinned (lesson) and pageable (order)
REPLAY_BAR_RUNS = (LESSON, "costs")       # stages.png: 04's graph replay of the article's work
GRAPH_COST_RUNS = ("costs", LESSON, "tiny-work")  # graph_costs.png: one-time costs, issue, tiny work
# The regime table's rows: each kernel's run of stage 03's `kernels` subcommand (the pool, one stream per
# engine and the bound), and stage 04's `costs` run of the same kernel for its graph replay.
REGIME_POOL_SUBCOMMAND = "kernels"
REGIME_REPLAY_SUBCOMMAND = "costs"


def run_name_for_kernel(stage: str, kernel: str, subcommand: str | None = None) -> str:
    """The run name scripts/run_suite.sh gives `stage`'s `subcommand` with `kernel`:
    <stage>-<subcommand>-<kernel> with "+" as "_" ("03_stream_pool_gemm-kernels-cublas_tf32"). Without a
    subcommand, the name of a combined result: the stage itself for the article's kernel, else <stage>-<kernel>
    ("03_stream_pool_gemm-cublas_tf32")."""
    if subcommand is not None:
        return run_name_for(stage, subcommand, kernel)
    return stage if kernel == "naive" else run_name_for(stage, None, kernel)


def _prefer_named_runs(runs: list[Result], kernel: str, subcommand: str | None = None) -> Result:
    """One run of a kernel where several are: the one run_suite.sh names for it (a combined result's name, or
    <stage>-<subcommand>-<kernel>; for the article's kernel also <stage>-<subcommand>), else the first by file
    name. A -timeline or -events run of the same kernel is a legitimate measurement too, but the table shows
    one row per kernel, chosen the same way every time."""
    def key(r: Result) -> tuple[bool, str]:
        names = {run_name_for_kernel(r.stage, kernel)}
        if subcommand is not None:
            names.add(run_name_for_kernel(r.stage, kernel, subcommand))
            if kernel == "naive":
                names.add(run_name_for(r.stage, subcommand))
        return (r.path.stem not in names, r.path.name)
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
    engines_bound_ms: float | None = None  # one stream per engine's own bound (older runs: none, the pool's is used)

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
        """% of the bound: bound / achieved. Above 100 by more than the noise: the bound did not bound."""
        return 100.0 * self.bound_ms / self.pool_ms

    @property
    def engines_percent(self) -> float | None:
        """% of its own bound: each pipeline shape has its own (its kernels run one at a time on one stream)."""
        if not self.engines_ms:
            return None
        bound = self.engines_bound_ms if self.engines_bound_ms is not None else self.bound_ms
        return 100.0 * bound / self.engines_ms


def _regime_name(bounds: dict[str, Any], limited_by: str) -> str:
    named = bounds.get("regime")
    if isinstance(named, str):
        return named
    # Written before bounds.regime existed: the kernels set the bound, or a copy direction does.
    return "compute-bound" if limited_by == "kernels" else "PCIe-bound"


def _article_workload(result: Result) -> bool:
    return all(result.config.get(key) == value for key, value in ARTICLE_WORKLOAD.items())


def regimes(results: list[Result]) -> list[Regime]:
    """One Regime per kernel, from stage 03's pinned `kernels` runs at the article's workload that carry the
    bounds it needs (older runs do not), in KERNEL_ORDER; each with the graph replay of stage 04's `costs` run
    of the same kernel and workload where there is one. Combined results (no subcommand) hold both. Where a
    kernel ran several times, one run is used (_prefer_named_runs)."""
    pools: dict[str, list[Result]] = {}
    replays: dict[str, list[tuple[Result, float]]] = {}
    for r in results:
        if not _article_workload(r):
            continue
        bounds = r.bounds
        if r.stage == STAGE03 and r.holds([REGIME_POOL_SUBCOMMAND]) and r.config.get("host_memory") == "pinned" and \
                all(is_number(bounds.get(k)) for k in ("kernel_gflops", "stream_pool_ms", "pipeline_bound_ms")):
            pools.setdefault(kernel_of(r), []).append(r)
        elif r.stage == STAGE04 and r.holds([REGIME_REPLAY_SUBCOMMAND]):
            replay = next((m for m in r.measurements if m["name"] == "graph_replay"), None)
            if replay is not None:
                replays.setdefault(kernel_of(r), []).append((r, replay["median_ms"]))
    rows = []
    for kernel, runs in pools.items():
        run = _prefer_named_runs(runs, kernel, REGIME_POOL_SUBCOMMAND)
        bounds = run.bounds
        engines = bounds.get("engine_streams_ms")
        limited_by = str(bounds.get("limited_by", "-"))
        row = Regime(kernel=kernel, run=run, kernel_gflops=bounds["kernel_gflops"], pool_ms=bounds["stream_pool_ms"],
                     engines_ms=engines if is_number(engines) and engines > 0 else None,
                     bound_ms=bounds["pipeline_bound_ms"], limited_by=limited_by,
                     regime=_regime_name(bounds, limited_by))
        engine_run = next((m for m in run.measurements if m["name"] == "engine_streams"), None)
        own = engine_run.get("bound") if engine_run is not None else None
        if isinstance(own, dict) and is_number(own.get("bound_ms")) and own["bound_ms"] > 0:
            row.engines_bound_ms = own["bound_ms"]
        if kernel in replays:
            chosen = _prefer_named_runs([r for r, _ in replays[kernel]], kernel, REGIME_REPLAY_SUBCOMMAND)
            row.replay, row.replay_ms = chosen, next(ms for r, ms in replays[kernel] if r is chosen)
        rows.append(row)
    rows.sort(key=lambda row: (KERNEL_ORDER.index(row.kernel) if row.kernel in KERNEL_ORDER else len(KERNEL_ORDER),
                               row.kernel))
    return rows


def missing_kernels(rows: list[Regime]) -> list[str]:
    """The kernels of KERNEL_ORDER with no row: the runs to add for the full comparison."""
    present = {row.kernel for row in rows}
    return [k for k in KERNEL_ORDER if k not in present]


# --- the regime map (04_graph_capture_gemm --regime-map) ------------------------------
#
# "regime_map": {"sizes", "batches", "equal_within", "cells": [{"m", "batches",
# "stream_ms", "graph_ms", "winner", "skipped_reason", "verified", ...}], ...}:
# one cell per size (m = n = k) and batch count, the stream pool against one
# graph replay of the same work. A cell is measured (winner "graph",
# "streams" or "tie", both times) or skipped (winner null, a reason).

MAP_WINNERS = ("graph", "streams", "tie")


def _map_list(rm: dict[str, Any], path: Path, key: str) -> list[int]:
    values = rm.get(key)
    if not isinstance(values, list) or not values or \
            not all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in values):
        raise ResultError(f"{path}: field 'regime_map.{key}' is not a non-empty list of positive integers")
    return values


def _validate_regime_map(rm: Any, path: Path) -> None:
    if not isinstance(rm, dict):
        raise ResultError(f"{path}: field 'regime_map' is not an object")
    sizes, batches = _map_list(rm, path, "sizes"), _map_list(rm, path, "batches")
    equal_within = rm.get("equal_within")
    if equal_within is not None and not (is_number(equal_within) and 0 <= equal_within < 1):
        raise ResultError(f"{path}: field 'regime_map.equal_within' is not a fraction in [0, 1)")
    cells = rm.get("cells")
    if not isinstance(cells, list):
        raise ResultError(f"{path}: field 'regime_map.cells' is not an array")
    for index, cell in enumerate(cells):
        label = f"regime_map.cells[{index}]"
        if not isinstance(cell, dict):
            raise ResultError(f"{path}: field '{label}' is not an object")
        if cell.get("m") not in sizes:
            raise ResultError(f"{path}: field '{label}.m' is not one of regime_map.sizes")
        if cell.get("batches") not in batches:
            raise ResultError(f"{path}: field '{label}.batches' is not one of regime_map.batches")
        winner, reason = cell.get("winner"), cell.get("skipped_reason")
        if reason is None:
            if winner not in MAP_WINNERS:
                raise ResultError(f"{path}: field '{label}.winner' is not one of {', '.join(MAP_WINNERS)} "
                                  f"({json.dumps(winner)}) and the cell has no skipped_reason")
            for key in ("stream_ms", "graph_ms"):
                value = cell.get(key)
                if not (is_number(value) and value > 0):
                    raise ResultError(f"{path}: field '{label}.{key}' is not a positive number")
            if not isinstance(cell.get("verified"), bool):
                raise ResultError(f"{path}: field '{label}.verified' is not true or false")
        elif not isinstance(reason, str) or winner is not None:
            raise ResultError(f"{path}: field '{label}.skipped_reason' is not a string with winner null")


def regime_map_of(result: Result) -> dict[str, Any] | None:
    rm = result.doc.get("regime_map")
    return rm if isinstance(rm, dict) else None


def map_cells(result: Result) -> list[dict[str, Any]]:
    rm = regime_map_of(result)
    return rm["cells"] if rm else []


def map_results(results: list[Result]) -> list[Result]:
    """The runs with a regime map: 04's regime-map runs, found by their data (a combined --regime-map run too)."""
    return with_key(results, "regime_map")


def size_label(m: int) -> str:
    return f"{m}³"


def map_cell_label(cell: dict[str, Any]) -> str:
    return f"{size_label(cell['m'])} × {plural(cell['batches'], 'batch')}"


def map_cell(rm: dict[str, Any], m: int, batches: int) -> dict[str, Any] | None:
    return next((c for c in rm["cells"] if c["m"] == m and c["batches"] == batches), None)


def map_equal_within(rm: dict[str, Any]) -> float:
    value = rm.get("equal_within")
    return value if is_number(value) else SAME_TIME


def is_measured(cell: dict[str, Any] | None) -> bool:
    return cell is not None and cell.get("skipped_reason") is None


def map_ratio(cell: dict[str, Any]) -> float:
    """The replay's GPU time / the pool's: below 1 the graph was faster."""
    return cell["graph_ms"] / cell["stream_ms"]


def map_skip_kind(cell: dict[str, Any]) -> str:
    kind = cell.get("skipped_because")
    if kind in ("time", "memory"):
        return kind
    return "memory" if "memory" in str(cell.get("skipped_reason")) else "time"


def map_cell_text(cell: dict[str, Any] | None) -> str:
    """"graph −12%" (the replay took 12% less GPU time than the pool), "streams +3%", "tie", "skipped (time)"."""
    if cell is None:
        return "-"
    if not is_measured(cell):
        return f"skipped ({map_skip_kind(cell)})"
    mark = " (noisy)" if cell.get("noisy") is True else ""  # most of its runs were slow: the stage lists it
    if cell["winner"] == "tie":
        return "tie" + mark
    percent = round(100.0 * (map_ratio(cell) - 1.0))
    return f"{cell['winner']} {'+' if percent >= 0 else '−'}{abs(percent)}%" + mark


@dataclass
class MapRow:
    """One size of the map: where the graph starts to win."""
    m: int
    measured: list[int]                  # the batch counts measured, ascending
    first_win: int | None                # the smallest where the graph wins
    not_won_above: list[tuple[int, str]]  # measured counts above it where it does not, and who did

    @property
    def wins_from_there_on(self) -> bool:
        return self.first_win is not None and not self.not_won_above


def map_rows(rm: dict[str, Any]) -> list[MapRow]:
    rows = []
    for m in rm["sizes"]:
        measured, first, above = [], None, []
        for b in sorted(rm["batches"]):
            cell = map_cell(rm, m, b)
            if not is_measured(cell):
                continue
            measured.append(b)
            if first is None:
                first = b if cell["winner"] == "graph" else None
            elif cell["winner"] != "graph":
                above.append((b, cell["winner"]))
        rows.append(MapRow(m, measured, first, above))
    return rows


def crossover_sentence(row: MapRow) -> str:
    """Where the graph starts to win in one row, in the words the stage uses."""
    label = f"{size_label(row.m)}: "
    counts = ", ".join(str(b) for b in row.measured)
    if not row.measured:
        return label + "no cell measured (every batch count skipped)"
    if row.first_win is None:
        at = plural(row.measured[0], "batch") if len(row.measured) == 1 else f"{counts} batches"
        return label + f"graph never wins here (streams or a tie at {at})"
    first = plural(row.first_win, "batch")
    if row.wins_from_there_on:
        if row.first_win == row.measured[0] and len(row.measured) > 1:
            return label + f"the graph wins at every batch count measured ({counts})"
        if row.first_win == row.measured[-1]:
            return label + f"the graph wins only at {first}, the largest count measured"
        return label + f"the graph wins from {first} on (at every larger count measured too)"
    exceptions = ", ".join(f"{b}: {winner}" for b, winner in row.not_won_above)
    return label + f"the graph wins first at {first}, but not at every larger count ({exceptions})"


def map_findings(rm: dict[str, Any]) -> list[str]:
    """What the map shows, chosen by its cells: how many each variant won, and whether the graph pays off
    for small GEMMs as the article says or not here."""
    cells = rm["cells"]
    measured = [c for c in cells if is_measured(c)]
    within = percent(map_equal_within(rm))
    skipped = len(cells) - len(measured)
    skipped_text = f"; {plural(skipped, 'cell')} skipped (reasons in the table)" if skipped else ""
    if not measured:
        everything = f"every one of the {plural(len(cells), 'cell')} was" if len(cells) > 1 else "the one cell was"
        return [f"{everything} skipped (reasons in the table): nothing was measured, so nothing to compare"]
    wins = {w: sum(c["winner"] == w for c in measured) for w in MAP_WINNERS}
    if wins["graph"] == 0:
        found = [f"the graph replay won no cell: at every size and batch count measured the stream pool was "
                 f"as fast (within ±{within}) or faster on this GPU, so the article's claim that graphs pay off "
                 f"for many small kernels does not show here{skipped_text}"]
    elif wins["graph"] == len(measured):
        every = f"every one of the {plural(len(measured), 'cell')}" if len(measured) > 1 else "the one cell"
        found = [f"the graph replay won {every} measured (more than {within} less GPU time than the stream "
                 f"pool){skipped_text}"]
    else:
        found = [f"the graph replay won {wins['graph']} of the {plural(len(measured), 'cell')} measured, the stream "
                 f"pool {wins['streams']}, {plural(wins['tie'], 'tie')} within ±{within}{skipped_text}"]
    rows = [r for r in map_rows(rm) if r.measured]
    if len(rows) >= 2 and 0 < wins["graph"] < len(measured):
        small, large = rows[0], rows[-1]
        if small.first_win is not None and large.first_win is None:
            found.append(f"as the article says, the graph pays off for small kernels: it wins at "
                         f"{size_label(small.m)} and never at {size_label(large.m)}, where each kernel runs long "
                         "enough to hide its launch")
        elif small.first_win is None and large.first_win is not None:
            found.append(f"the article's claim that graphs pay off most for small kernels does not hold here: "
                         f"the graph wins at {size_label(large.m)} but not at the smallest size, "
                         f"{size_label(small.m)}")
        elif small.first_win is not None and large.first_win is not None:
            found.append(f"the graph wins at the smallest size, {size_label(small.m)}, and at the largest, "
                         f"{size_label(large.m)}, alike")
    return found


# --- after the article: stage 04's runs of CUDA's newer graph features ------------------
#
# One run per laboratory subcommand, each with its own top-level object; report.md's section "After the
# article" puts one or two rows of each beside each other: the old way and the new, per operation, and the
# run's own conclusion. The thresholds below are the stage's, restated where its JSON does not carry the
# verdict (launch-anatomy writes figures only).

AFTER_ARTICLE_RUNS = (("device-launch", "device_launch"), ("conditional", "conditional"), ("pdl", "pdl"),
                      ("memory-nodes", "memory_nodes"), ("startup", "startup"),
                      ("launch-anatomy", "launch_anatomy"))
# launch_anatomy_report.hpp: a variant of the article's graph launches differently only when its middle half
# and the article's do not overlap and their medians are more than kArticleLaunchNoise apart; a node kind is
# launched in constant time at most kConstantTimePerNodeUs per node; "matches NVIDIA" within 2x of both figures.
ARTICLE_LAUNCH_NOISE = 0.10
# launch_anatomy_report.hpp's kArticleReplayNoise: a replay slower or faster on the GPU beyond this.
ARTICLE_REPLAY_NOISE = 0.03
CONSTANT_TIME_PER_NODE_US = 0.02
NVIDIA_MATCH = 2.0
TIME_UNITS = {"µs": 1.0, "ms": 1000.0}
MIB = 1 << 20


class Malformed(Exception):
    """A field of a feature's object that is missing or not what the report needs; the message names it."""


@dataclass(frozen=True)
class AfterRow:
    """One row of the table: a figure of the old way and of the new way, in `unit`, from run `run`."""
    feature: str       # the subcommand: "device-launch"
    figure: str        # what is compared, per what: "empty graph, per launch"
    old_way: str
    old: float
    new_way: str
    new: float
    unit: str          # "µs", "ms" or "MiB"
    conclusion: str
    run: str

    @property
    def is_time(self) -> bool:
        return self.unit in TIME_UNITS

    @property
    def comparable(self) -> bool:
        return self.old > 0 and self.new > 0

    def us(self, value: float) -> float:
        return value * TIME_UNITS[self.unit]

    @property
    def ratio_text(self) -> str:
        """The new way against the old: speed_label's words for a time, "more"/"less" for memory; "-" where a
        figure is not positive (nothing to divide by)."""
        if not self.comparable:
            return "-"
        if self.is_time:
            return speed_label(self.old, self.new)
        if self.new <= self.old:
            return f"{self.old / self.new:.1f}× less memory"
        return f"{self.new / self.old:.1f}× more memory"


@dataclass
class AfterArticle:
    rows: list[AfterRow] = field(default_factory=list)
    runs: list[Result] = field(default_factory=list)     # the runs the rows come from
    missing: list[str] = field(default_factory=list)     # subcommands with no run here
    skipped: list[str] = field(default_factory=list)     # "what: why" for a run or a row left out


def _field(section: dict[str, Any], key: str, *path: Any) -> Any:
    """section[path[0]][path[1]]...; Malformed naming `key`.path where a step is missing."""
    value: Any = section
    label = key
    for step in path:
        label += f"[{step}]" if isinstance(step, int) else f".{step}"
        if isinstance(step, int):
            if not isinstance(value, list) or not -len(value) <= step < len(value):
                raise Malformed(f"{label} is missing")
        elif not isinstance(value, dict) or step not in value:
            raise Malformed(f"{label} is missing")
        value = value[step]
    return value


def _shown(value: Any) -> str:
    """A value as JSON, cut short: for a note on a malformed field."""
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _number(section: dict[str, Any], key: str, *path: Any, positive: bool = True) -> float:
    value = _field(section, key, *path)
    label = key + "".join(f"[{s}]" if isinstance(s, int) else f".{s}" for s in path)
    if not is_number(value) or (positive and value <= 0):
        raise Malformed(f"{label} is {_shown(value)}, not a {'positive ' if positive else ''}number")
    return float(value)


def _text(section: dict[str, Any], key: str, *path: Any) -> str:
    value = _field(section, key, *path)
    if not isinstance(value, str) or not value:
        raise Malformed(f"{key}.{'.'.join(map(str, path))} is {_shown(value)}, not a word")
    return value


def _verdict(section: dict[str, Any], key: str, path: tuple[Any, ...], words: dict[str, tuple[str, str | None]],
             old: float, new: float) -> str:
    """The run's own conclusion `section[path]` (an id the stage writes) in a few words, with the id; "-" where
    the run has none. `words`: id -> (words, which way it says is faster or smaller: "new", "old" or None for
    neither); an id the figures contradict is named, not repeated."""
    try:
        verdict = _text(section, key, *path)
    except Malformed:
        return "- (no conclusion in the run)"
    if verdict not in words:
        return f"`{verdict}`"
    text, way = words[verdict]
    if (way == "new" and new > old) or (way == "old" and new < old):
        return f"not shown: the run's `{verdict}` contradicts these figures"
    return f"{text} (`{verdict}`)"


# device_launch.conclusions: the words of device_launch_report.cpp's conclusions, in short.
DEVICE_LAUNCH_WORDS = {
    "device_launch_faster": ("launching from the device pays off", "new"),
    "host_launch_faster": ("launching from the device does not pay off", "old"),
    "launches_even": ("about the same from the device and the host", None),
    "work_device_faster": ("device launch still pays off for the work", "new"),
    "work_host_faster": ("device launch does not pay off for the work", "old"),
    "work_even": ("the launch hides behind the work", None),
}


def _device_launch_rows(doc: dict[str, Any], run: str) -> list[Callable[[], AfterRow]]:
    key = "device_launch"
    section = doc[key]

    def row(graph: str, figure: str, conclusion: str) -> AfterRow:
        host = _number(section, key, "per_launch_us", graph, "host")
        tail = _number(section, key, "per_launch_us", graph, "tail")
        fire = _number(section, key, "per_launch_us", graph, "fire_and_forget")
        name, device = ("tail launch", tail) if tail <= fire else ("fire-and-forget", fire)
        return AfterRow("device-launch", figure, "the host's cudaGraphLaunch", host,
                        f"from the device ({name}, the faster way)", device, "µs",
                        _verdict(section, key, ("conclusions", conclusion), DEVICE_LAUNCH_WORDS, host, device), run)

    def work() -> AfterRow:
        kernels_only = isinstance(section.get("work"), dict) and section["work"].get("kernels_only") is True
        return row("work", f"the article's {'kernels' if kernels_only else 'work'}, per run", "work")

    return [lambda: row("empty", "an empty graph, per launch", "launches"), work]


# conditional.loops.<body>.while_node_versus.host_decided (conditional_report.cpp's versus_word), at every N
# against the host deciding each iteration.
def _while_words(margin: str) -> dict[str, tuple[str, str | None]]:
    return {"wins": (f"the WHILE node wins at every N, by more than {margin}", "new"),
            "costs_more": (f"the WHILE node costs more at every N, by more than {margin}", "old"),
            "even": (f"within {margin} at every N", None),
            "wins_from": ("the WHILE node wins from some N on", None),
            "costs_more_from": ("the WHILE node costs more from some N on", None),
            "mixed": ("mixed: it depends on N", None),
            "not_measured": ("not measured", None)}


def _conditional_rows(doc: dict[str, Any], run: str) -> list[Callable[[], AfterRow]]:
    key = "conditional"
    section = doc[key]
    margin = section.get("clear_margin")
    words = _while_words(percent(margin - 1.0) if is_number(margin) and margin > 1 else "the stage's margin")

    def row(body: str) -> AfterRow:
        host = _number(section, key, "loops", body, "fits", "host_decided", "per_iteration_us")
        node = _number(section, key, "loops", body, "fits", "while_node", "per_iteration_us")
        size = section.get("size")
        what = "an empty body" if body == "empty" else (f"a {size}³ GEMM body" if is_number(size) else "a GEMM body")
        return AfterRow("conditional", f"{what}, per iteration (fitted over N)", "the host decides each iteration",
                        host, "a WHILE node decides on the GPU", node, "µs",
                        _verdict(section, key, ("loops", body, "while_node_versus", "host_decided"), words, host,
                                 node), run)

    def against_graph_loop(body: str) -> AfterRow:
        loop = _number(section, key, "loops", body, "fits", "graph_loop", "per_iteration_us")
        node = _number(section, key, "loops", body, "fits", "while_node", "per_iteration_us")
        what = "an empty body" if body == "empty" else "a GEMM body"
        return AfterRow("conditional", f"{what}, per iteration (fitted over N), N known on the host",
                        "the host launches a one-body graph N times", loop, "a WHILE node decides on the GPU", node,
                        "µs", _verdict(section, key, ("loops", body, "while_node_versus", "graph_loop"), words, loop,
                                       node), run)

    bodies = section.get("loops") if isinstance(section.get("loops"), dict) else {"empty": None}
    rows = [lambda b=body: row(b) for body in ("empty", "gemm") if body in bodies] or [lambda: row("empty")]
    if "empty" in bodies:
        rows.append(lambda: against_graph_loop("empty"))
    return rows


def _pdl_words(threshold: str) -> dict[str, tuple[str, str | None]]:
    return {"saves": (f"PDL saves time, more than the {threshold} threshold", "new"),
            "costs": (f"PDL costs time, beyond the {threshold} threshold", "old"),
            "no_gain": (f"no saving, within {threshold}", None),
            "gap_is_noise": (f"no saving: the gap is noise, within {threshold}", None)}


def _pdl_rows(doc: dict[str, Any], run: str) -> list[Callable[[], AfterRow]]:
    key = "pdl"
    section = doc[key]

    def row(chain: str) -> AfterRow:
        plain = _number(section, key, chain, "ways", "stream_plain", "per_kernel_us")
        pdl = _number(section, key, chain, "ways", "stream_pdl", "per_kernel_us")
        figures = _field(section, key, chain)
        count = figures.get("kernels")
        what = "a GEMM chain" if chain == "gemm" else "an empty-kernel chain"
        if is_number(count):
            what += f" ({plural(count, 'kernel')})"
        streams = figures.get("streams")
        threshold = streams.get("threshold") if isinstance(streams, dict) else None
        words = _pdl_words(percent(threshold) if is_number(threshold) else "the stage's")
        return AfterRow("pdl", f"{what}, per kernel, on streams", "plain launches", plain,
                        "programmatic dependent launch", pdl, "µs",
                        _verdict(section, key, (chain, "streams", "verdict"), words, plain, pdl), run)

    return [lambda: row("gemm"), lambda: row("empty")]


def _memory_nodes_rows(doc: dict[str, Any], result: Result) -> list[Callable[[], AfterRow]]:
    key = "memory_nodes"
    section = doc[key]
    run = run_name(result)

    def replay() -> AfterRow:
        memory, pre = find_measurement(result, "memory_graph_replay"), find_measurement(result,
                                                                                       "preallocated_graph_replay")
        if memory is None or pre is None:
            raise Malformed("the measurements memory_graph_replay and preallocated_graph_replay are missing")
        old, new = pre["median_ms"], memory["median_ms"]
        if old <= 0 or new <= 0:
            raise Malformed("a replay's median_ms is 0")
        noise = section.get("replay_noise")
        within = percent(noise) if is_number(noise) else "the stage's"
        words = {"same": (f"no replay cost, within the {within} noise", None),
                 "slower": (f"allocating inside the graph costs replay time, beyond {within}", "old"),
                 "faster": (f"the memory graph replays faster, beyond {within}", "new")}
        batches = params_of(memory).get("batches")
        what = f"a replay of {plural(batches, 'batch')}" if is_number(batches) else "a replay"
        return AfterRow("memory-nodes", what, "buffers preallocated", old,
                        "allocated inside the graph (memory nodes)", new, "ms",
                        _verdict(section, key, ("verdicts", "replay"), words, old, new), run)

    def footprint() -> AfterRow:
        pre = _number(section, key, "preallocated_bytes")
        moments = section.get("footprint") if isinstance(section.get("footprint"), list) else []
        at = next((p for p in moments if isinstance(p, dict) and p.get("moment") == "replays"), None)
        if at is not None:
            reserved = _number(at, f"{key}.footprint[replays]", "reserved_current")
        else:
            reserved = _number(result.bounds, "bounds", "reserved_after_replays_bytes")
        words = {"larger": ("the graph holds more memory than preallocating", "old"),
                 "smaller": ("the graph holds less memory than preallocating", "new"),
                 "same": ("about the same memory either way", None),
                 "none": ("no graph memory reported", None)}
        return AfterRow("memory-nodes", "device memory held after the replays", "preallocated A and C",
                        pre / MIB, "reserved by the graph allocator", reserved / MIB, "MiB",
                        _verdict(section, key, ("verdicts", "footprint"), words, pre, reserved), run)

    return [replay, footprint]


def _startup_rows(doc: dict[str, Any], run: str) -> list[Callable[[], AfterRow]]:
    key = "startup"
    section = doc[key]

    def row() -> AfterRow:
        layout = _text(section, key, "budget_layout")
        budget = _number(section, key, "budget_ms")
        rows = _field(section, key, "rows")
        if not isinstance(rows, list) or len(rows) < 2:
            raise Malformed(f"{key}.rows holds fewer than two bucket counts: nothing to compare")
        figures = []
        for i, r in enumerate(rows):
            if not isinstance(r, dict):
                raise Malformed(f"{key}.rows[{i}] is not an object")
            figures.append((_number(r, f"{key}.rows[{i}]", "buckets"),
                            _number(r, f"{key}.rows[{i}]", layout, "total_ms")))
        figures.sort()
        (fewest, first_ms), (most, last_ms) = figures[0], figures[-1]
        # The stage's first_over_budget, checked against the rows: the fewest buckets whose startup took longer.
        over = next((k for k, ms in figures if ms > budget), None)
        stated_by_layout = section.get("first_over_budget")
        if not isinstance(stated_by_layout, dict) or layout not in stated_by_layout:
            conclusion = "- (no conclusion in the run)"
        elif stated_by_layout[layout] is None and over is None:
            conclusion = f"within the {budget:.0f} ms budget at every bucket count (`first_over_budget` null)"
        elif is_number(stated_by_layout[layout]) and over is not None and stated_by_layout[layout] == over:
            conclusion = f"first over the {budget:.0f} ms budget at {plural(over, 'bucket')} (`first_over_budget`)"
        else:
            conclusion = (f"not shown: the run's first_over_budget ({json.dumps(stated_by_layout[layout])}) "
                          "contradicts its rows' totals")
        return AfterRow("startup", f"capture + instantiate + upload of every bucket's graph ({layout} buffers)",
                        plural(fewest, "bucket"), first_ms, plural(most, "bucket"), last_ms, "ms", conclusion, run)

    return [row]


def _article_launch(section: dict[str, Any], key: str, variant: str) -> dict[str, Any]:
    article = _field(section, key, "article")
    if not isinstance(article, list):
        raise Malformed(f"{key}.article is not an array")
    found = next((a for a in article if isinstance(a, dict) and a.get("variant") == variant), None)
    if found is None:
        raise Malformed(f"{key}.article has no variant {json.dumps(variant)}")
    return found


def _launch_anatomy_rows(doc: dict[str, Any], run: str) -> list[Callable[[], AfterRow]]:
    key = "launch_anatomy"
    section = doc[key]

    def article() -> AfterRow:
        base = _article_launch(section, key, "article")
        flag = _article_launch(section, key, "device_launch_flag")
        label = f"{key}.article[article]"
        median = _number(base, label, "launch_us")
        q1, q3 = _number(base, label, "launch_q1_us"), _number(base, label, "launch_q3_us")
        flag_label = f"{key}.article[device_launch_flag]"
        flagged = _number(flag, flag_label, "launch_us")
        flag_q1, flag_q3 = _number(flag, flag_label, "launch_q1_us"), _number(flag, flag_label, "launch_q3_us")
        clear = flag_q3 < q1 or flag_q1 > q3
        beyond = clear and abs(flagged / median - 1.0) > ARTICLE_LAUNCH_NOISE
        if not beyond:
            conclusion = (f"within the noise (the article's middle half {q1:.0f}-{q3:.0f} µs, or within "
                          f"{percent(ARTICLE_LAUNCH_NOISE)})")
        else:
            conclusion = (f"the flag makes the host's launch {'cheaper' if flagged < median else 'dearer'}, beyond "
                          f"the noise (its middle half {flag_q1:.0f}-{flag_q3:.0f} µs clear of {q1:.0f}-{q3:.0f} µs, "
                          f"more than {percent(ARTICLE_LAUNCH_NOISE)} apart)")
        base_gpu, flag_gpu = base.get("gpu_ms"), flag.get("gpu_ms")
        if is_number(base_gpu) and is_number(flag_gpu) and base_gpu > 0 and flag_gpu > 0 \
                and abs(flag_gpu / base_gpu - 1.0) > ARTICLE_REPLAY_NOISE:
            conclusion += (f"; but its replay took {flag_gpu:.2f} ms on the GPU against {base_gpu:.2f} ms "
                           f"({speed_label(base_gpu, flag_gpu)})")
        return AfterRow("launch-anatomy", "the article's graph, the host's cudaGraphLaunch",
                        "as the article builds it", median, "instantiated with the device-launch flag", flagged,
                        "µs", conclusion, run)

    def per_node() -> AfterRow:
        fits = _field(section, key, "fits")
        fit = next((f for f in fits if isinstance(f, dict) and f.get("kind") == "kernel" and f.get("shape") == "line"),
                   None) if isinstance(fits, list) else None
        if fit is None:
            raise Malformed(f"{key}.fits has no fit of a straight line of kernel nodes")
        label = f"{key}.fits[kernel line]"
        measured = _number(fit, label, "host_per_node_us", positive=False)
        fixed = _number(fit, label, "host_fixed_us", positive=False)
        nvidia = _number(section, key, "nvidia", "per_node_us")
        nvidia_fixed = _number(section, key, "nvidia", "fixed_us")
        if 0 <= fixed <= NVIDIA_MATCH * nvidia_fixed and measured <= NVIDIA_MATCH * nvidia:
            conclusion = f"this system matches NVIDIA's figure (within {NVIDIA_MATCH:.0f}× of both)"
        elif measured <= CONSTANT_TIME_PER_NODE_US:
            conclusion = f"close to constant time (at most {CONSTANT_TIME_PER_NODE_US} µs per node)"
        else:
            conclusion = f"NOT constant time here (more than {CONSTANT_TIME_PER_NODE_US} µs per node)"
        return AfterRow("launch-anatomy", "a straight line of kernel nodes, host time per node",
                        "NVIDIA's published figure", nvidia, "measured here (fitted)", measured, "µs", conclusion,
                        run)

    return [article, per_node]


def _after_rows(result: Result, key: str) -> list[Callable[[], AfterRow]]:
    doc, run = result.doc, run_name(result)
    if key == "memory_nodes":
        return _memory_nodes_rows(doc, result)
    builders = {"device_launch": _device_launch_rows, "conditional": _conditional_rows, "pdl": _pdl_rows,
                "startup": _startup_rows, "launch_anatomy": _launch_anatomy_rows}
    return builders[key](doc, run)


def after_article(results: list[Result]) -> AfterArticle:
    """The rows of report.md's "After the article" table, in AFTER_ARTICLE_RUNS' order: from each subcommand's
    run (the one run_suite.sh names first), the rows its object allows; a run without its object, or a row
    whose fields are missing or malformed, is left out with the reason in `skipped`."""
    out = AfterArticle()
    for subcommand, key in AFTER_ARTICLE_RUNS:
        runs = [r for r in runs_of(results, STAGE04, [subcommand]) if r.subcommand == subcommand]
        if not runs:
            out.missing.append(subcommand)
            continue
        result = runs[0]
        name = f"{subcommand} ({result.path.name})"
        if not isinstance(result.doc.get(key), dict):
            out.skipped.append(f"{name}: no `{key}` object in it")
            continue
        rows = []
        for build in _after_rows(result, key):
            try:
                rows.append(build())
            except Malformed as error:
                out.skipped.append(f"{name}: a row left out, {error}")
            except (TypeError, ValueError, AttributeError, KeyError) as error:  # a field of an unexpected type
                out.skipped.append(f"{name}: a row left out, a field of the wrong type ({error})")
        if rows:
            out.rows += rows
            out.runs.append(result)
    return out


def after_article_figure(value: float, unit: str) -> str:
    """A figure of the table with its unit: 1.36 µs, 163 µs, 0.001 µs, 16.02 ms, 48 MiB."""
    if unit == "MiB":
        return f"{value:.0f} MiB" if value == int(value) else f"{value:.1f} MiB"
    magnitude = abs(value)
    if unit == "ms" and 1 <= magnitude < 100:
        text = f"{value:,.2f}"
    elif magnitude >= 100:
        text = f"{value:,.0f}"
    elif magnitude >= 10:
        text = f"{value:.1f}"
    elif magnitude >= 0.1:
        text = f"{value:.2f}"
    else:
        text = f"{value:.3g}"
    return f"{text} {unit}"
