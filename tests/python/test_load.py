"""The one loader of every mode: results checked against docs/result.schema.json
(every sample valid, v1 and v2; a bad field refused in one line naming the file
and the field, exit 2), timelines, other tools' JSON skipped with a note, and
registry.tsv."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any, Callable

import pytest
from conftest import COMBINED, REPO, SAMPLES, SAMPLES_V1, load, one_line_error, result, run_report, write_folder
from jsonschema import Draft202012Validator
from report import ResultError
from report.load import RESULT_SCHEMA, load_suite

SCHEMA = load(REPO / "docs" / "result.schema.json")


def sample_files() -> list[Path]:
    files = [*SAMPLES.glob("*.json"), *SAMPLES_V1.glob("*.json"), *COMBINED.glob("*.json")]
    return sorted(p for p in files if not p.name.endswith(".trace.json"))


def test_the_schema_is_a_valid_draft_2020_12_schema_and_the_one_report_py_reads() -> None:
    Draft202012Validator.check_schema(SCHEMA)
    assert RESULT_SCHEMA == SCHEMA


@pytest.mark.parametrize("path", sample_files(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_sample_is_valid(path: Path) -> None:
    errors = [f"{list(e.absolute_path)}: {e.message[:200]}" for e in Draft202012Validator(SCHEMA).iter_errors(load(path))]
    assert errors == []


def edit(doc: dict, change: Callable[[dict], Any]) -> dict:
    doc = copy.deepcopy(doc)
    change(doc)
    return doc


GOOD = result()
BAD: dict[str, tuple[dict, str]] = {
    "wrong schema": (edit(GOOD, lambda d: d.update(schema="cuda-streams-graphs/result/v9")),
                     "field 'schema' is \"cuda-streams-graphs/result/v9\", expected"),
    "no schema": (edit(GOOD, lambda d: d.pop("schema")), "no 'schema' field"),
    "no median": (edit(GOOD, lambda d: d["measurements"][0].pop("median_ms")),
                  "missing required field 'measurements[0].median_ms'"),
    "no measurements": (edit(GOOD, lambda d: d.pop("measurements")), "missing required field 'measurements'"),
    "params a list": (edit(GOOD, lambda d: d["measurements"][0].update(params=[1])),
                      "field 'measurements[0].params' has the wrong type (array, expected object)"),
    "verified a word": (edit(GOOD, lambda d: d["measurements"][0].update(verified="yes")),
                        "field 'measurements[0].verified' has the wrong type (string"),
    "negative median": (edit(GOOD, lambda d: d["measurements"][0].update(median_ms=-1)),
                        "field 'measurements[0].median_ms' is -1"),
    "short digest": (edit(GOOD, lambda d: d["measurements"][0].update(digest="abc")),
                     "field 'measurements[0].digest' is \"abc\""),
    "a local time": (edit(GOOD, lambda d: d.update(measured_at="2026-12-01 10:22")), "field 'measured_at' is"),
    "v2 without verdicts": (edit(GOOD, lambda d: d.pop("verdicts")), "missing required field 'verdicts'"),
    "v2 without subcommand": (edit(GOOD, lambda d: d.pop("subcommand")), "missing required field 'subcommand'"),
    "a verdict without its sentence": (
        edit(GOOD, lambda d: d.update(verdicts=[{"id": "a.b", "outcome": "c", "figures": {}, "threshold": None}])),
        "missing required field 'verdicts[0].sentence'"),
    "a threshold in words": (
        edit(GOOD, lambda d: d.update(verdicts=[{"id": "a.b", "outcome": "c", "figures": {}, "threshold": "3%",
                                                 "sentence": "s"}])),
        "field 'verdicts[0].threshold' has the wrong type (string"),
    "a measured map cell without its times": (
        edit(GOOD, lambda d: d.update(regime_map={"sizes": [64], "batches": [10], "cells": [
            {"m": 64, "batches": 10, "winner": "graph", "skipped_reason": None, "verified": True}]})),
        "missing required field 'regime_map.cells[0].stream_ms'"),
    "a skipped map cell with a winner": (
        edit(GOOD, lambda d: d.update(regime_map={"sizes": [64], "batches": [10], "cells": [
            {"m": 64, "batches": 10, "winner": "graph", "skipped_reason": "too long"}]})),
        "field 'regime_map.cells[0].winner' is \"graph\""),
}


@pytest.mark.parametrize("case", BAD, ids=list(BAD))
def test_a_bad_result_is_refused_naming_the_file_and_the_field(case: str, tmp_path: Path) -> None:
    doc, words = BAD[case]
    folder = write_folder(tmp_path / "r", {"03_stream_pool_gemm": doc})
    with pytest.raises(ResultError) as refused:
        load_suite(folder)
    assert str(refused.value).startswith(f"{folder / '03_stream_pool_gemm.json'}: ")
    assert words in str(refused.value)


@pytest.mark.parametrize("mode", ["report", "table", "compare"])
def test_every_mode_refuses_a_bad_result_in_one_line_with_exit_2(mode: str, tmp_path: Path) -> None:
    folder = write_folder(tmp_path / "r", {"03_stream_pool_gemm": BAD["no median"][0]})
    args = {"report": [folder, "--out", tmp_path / "out"], "table": ["--table", folder],
            "compare": ["--compare", folder, folder]}[mode]
    line = one_line_error(run_report(*args))
    assert line == f"report.py: error: {folder / '03_stream_pool_gemm.json'}: {BAD['no median'][1]}"
    assert not (tmp_path / "out").exists()


def test_not_json_no_folder_and_no_results(tmp_path: Path) -> None:
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "x.json").write_text("{not json")
    assert "x.json: not valid JSON" in one_line_error(run_report("--table", tmp_path / "bad"))
    assert "no such directory" in one_line_error(run_report("--table", tmp_path / "missing"))
    (tmp_path / "empty").mkdir()
    assert "no cuda-streams-graphs/result/v2 JSON files in it" in one_line_error(run_report("--table",
                                                                                             tmp_path / "empty"))


def test_other_json_is_skipped_with_a_note_in_every_mode_and_a_trace_is_a_trace(tmp_path: Path) -> None:
    folder = write_folder(tmp_path / "r", {"03_stream_pool_gemm": result()})
    (folder / "tool.json").write_text(json.dumps({"something": "else"}))
    (folder / "03_stream_pool_gemm.trace.json").write_text(json.dumps({"traceEvents": [
        {"ph": "X", "ts": 0, "dur": 5, "name": "h2d", "tid": 0}]}))
    for args in (["--table", folder], [folder, "--out", tmp_path / "out", "--no-plots"], ["--compare", folder, folder]):
        proc = run_report(*args)
        assert proc.returncode == 0, proc.stderr
        assert set(proc.stderr.splitlines()) == {"note: skipping tool.json: not a cuda-streams-graphs/result/v2 "
                                                 "result or a trace"}  # once per folder read
    assert "runs: 1 result, 1 timeline" in run_report(folder, "--out", tmp_path / "o2", "--no-plots").stdout
    trace = folder / "03_stream_pool_gemm.trace.json"
    assert "a timeline trace, not a result file" in one_line_error(run_report("--compare", trace, trace))
    trace.write_text(json.dumps({"traceEvents": [{"ph": "X", "ts": 0}]}))
    assert "missing required field 'traceEvents[0].dur'" in one_line_error(run_report("--table", folder))


@pytest.mark.parametrize("registry, words", [
    ("run\tstage\n", "the first line is not the header"),
    ("run\tstage\tsubcommand\texit\tsummary\n03_a\t03\t-\tone\tx\n", "line 2 is not 5 tab-separated fields"),
])
def test_a_malformed_registry_is_refused(registry: str, words: str, tmp_path: Path) -> None:
    folder = write_folder(tmp_path / "r", {"03_stream_pool_gemm": result()})
    (folder / "registry.tsv").write_text(registry)
    assert words in one_line_error(run_report("--table", folder))
