"""report.md states each run's verdicts in the console's words: every
sentence a result carries appears in report.md as it is, under its run's
heading, in the registry's order; and the check fails when report.py words a
verdict otherwise. Over every sample result (tests/data/suite/*.json, whatever
their schema) and over the samples as v2 with made-up verdicts."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import (SAMPLES, V1, clean, load, made_up_verdicts, result, results_in, run_report, section,
                      unquoted, verdict, write_folder)
from report import render
from report.load import load_suite


@pytest.fixture(scope="module")
def samples_text(tmp_path_factory: pytest.TempPathFactory) -> str:
    out = tmp_path_factory.mktemp("verdicts") / "samples"
    clean(run_report(SAMPLES, "--out", out, "--no-plots"))
    return (out / "report.md").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def v2_text(v2_folder: Path, tmp_path_factory: pytest.TempPathFactory) -> str:
    out = tmp_path_factory.mktemp("verdicts") / "v2"
    clean(run_report(v2_folder, "--out", out, "--no-plots"))
    return (out / "report.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("sample", sorted(p.name for p in SAMPLES.glob("*.json") if "traceEvents" not in load(p)))
def test_every_sample_states_its_verdicts_in_the_consoles_words(sample: str, samples_text: str) -> None:
    doc, name = load(SAMPLES / sample), sample.removesuffix(".json")
    body = section(samples_text, f"### {name}")
    assert body, f"report.md has no section for {name}"
    for v in doc.get("verdicts", []):
        assert v["sentence"] in body and f"`{v['id']}`" in body
    if doc["schema"] == V1:
        assert "it carries no verdicts" in body


def test_every_made_up_verdict_is_quoted_under_its_run(v2_folder: Path, v2_text: str) -> None:
    assert unquoted(v2_folder, v2_text) == []
    assert sum(len(doc["verdicts"]) for doc in results_in(v2_folder).values()) >= 2 * len(results_in(v2_folder))


def test_the_runs_follow_the_registry(v2_folder: Path, v2_text: str) -> None:
    expected = [line.split("\t")[0] for line in (v2_folder / "registry.tsv").read_text().splitlines()[1:]]
    headings = [line[4:] for line in section(v2_text, "## What each run concluded").splitlines()
                if line.startswith("### ")]
    assert headings == expected
    # A run the registry expects to exit non-zero leaves no result, by design.
    failing = [line.split("\t")[0] for line in (v2_folder / "registry.tsv").read_text().splitlines()[1:]
               if line.split("\t")[3] != "0"]
    for name in failing:
        assert "_No result by design" in section(v2_text, f"### {name}")


REWORDINGS = {
    "case changed": lambda s: s.swapcase(),
    "no full stop": lambda s: s.rstrip("."),
    "one line": lambda s: s.replace("\n  ", " "),
    "markdown escaped": lambda s: s.replace("*", "\\*"),
    "a word changed": lambda s: s.replace("made up", "invented"),
}


@pytest.mark.parametrize("rewording", REWORDINGS, ids=list(REWORDINGS))
def test_the_check_fails_when_the_report_words_a_verdict_otherwise(rewording: str, v2_folder: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(render, "verdict_line", lambda v: f"- `{v['id']}`: {REWORDINGS[rewording](v['sentence'])}")
    text, _ = render.report_markdown(load_suite(v2_folder, note=lambda _: None), None)
    missed = unquoted(v2_folder, text)
    assert missed, "the check found every verdict although report.md reworded them"


def test_a_verdict_under_another_runs_heading_is_not_quoted(tmp_path: Path) -> None:
    docs = {name: result(verdicts=made_up_verdicts(name, result())) for name in ("03_a", "03_b")}
    folder = write_folder(tmp_path / "r", docs, registry=[("03_a", 0), ("03_b", 0)])
    text, _ = render.report_markdown(load_suite(folder), None)
    assert unquoted(folder, text) == []
    swapped = text.replace("### 03_a\n", "### 03_x\n").replace("### 03_b\n", "### 03_a\n")
    assert unquoted(folder, swapped)


def test_missing_runs_failures_and_runs_without_verdicts(tmp_path: Path) -> None:
    docs = {"03_stream_pool_gemm": result(verdicts=[verdict("pool.plateau", "The time stops improving at 2 streams.")]),
            "03_stream_pool_gemm-contention": result(subcommand="contention", failures=["a counter was 3, not 4"]),
            "03_stream_pool_gemm-priorities": result(subcommand="priorities")}
    folder = write_folder(tmp_path / "r", docs, registry=[
        ("03_stream_pool_gemm", 0), ("03_stream_pool_gemm-kernels-naive", 0), ("03_stream_pool_gemm-contention", 0),
        ("03_stream_pool_gemm-priorities", 0)])
    out = tmp_path / "out"
    proc = run_report(folder, "--out", out, "--no-plots")
    assert proc.returncode == 1, proc.stderr  # the failed check fails the report
    text = (out / "report.md").read_text()
    assert "- `pool.plateau`: The time stops improving at 2 streams." in section(text, "### 03_stream_pool_gemm")
    assert "_No result here: not run, or it failed" in section(text, "### 03_stream_pool_gemm-kernels-naive")
    assert "expected by r/registry.tsv but not here (not run, or they failed: see their logs): " \
           "03_stream_pool_gemm-kernels-naive" in text
    assert "- **FAILED:** a counter was 3, not 4" in section(text, "### 03_stream_pool_gemm-contention")
    assert "FAILED in 03_stream_pool_gemm-contention.json: a counter was 3, not 4" in section(text, "## Verification")
    assert "_No verdict: this run reports figures only._" in section(text, "### 03_stream_pool_gemm-priorities")
    assert "missing: 1 run registry.tsv expected left no result" in proc.stdout
