#!/usr/bin/env python3
"""The sample results in tests/data/suite/ (tests/data/suite/README.md) as
the report's own input: each measurement within its own bound (no run faster
than its bound by more than the bound's tolerance: a bound must bound), each
result dated (measured_at) and naming its driver (device.driver), and the
report reading them whole. The samples' file names are never used: another
run's files drop in.

    cd tests/python && python3 -m unittest -v test_samples
"""

from __future__ import annotations

import math
import unittest
from pathlib import Path
from typing import Any

from report_fixtures import (SAMPLES, SUITE_PLOTS, assert_ran_cleanly, class_temporary_dir, load, measurement,
                             read_report, require_matplotlib, result, run_report)

SCHEMAS = ("cuda-streams-graphs/result/v2", "cuda-streams-graphs/result/v1")


def number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def sample_results() -> dict[str, dict]:
    """file name -> document, for every result (not trace) among the samples."""
    docs = {}
    for path in sorted(SAMPLES.glob("*.json")):
        doc = load(path)
        if isinstance(doc, dict) and doc.get("schema") in SCHEMAS:
            docs[path.name] = doc
    return docs


def provenance_problems(name: str, doc: dict) -> list[str]:
    """What a result lacks of its provenance: when it was measured, and on which driver."""
    problems = []
    if not isinstance(doc.get("measured_at"), str) or not doc["measured_at"]:
        problems.append(f"{name}: no measured_at (when it was measured)")
    driver = doc.get("device", {}).get("driver")
    if not isinstance(driver, str) or not driver:
        problems.append(f"{name}: no device.driver (the driver version)")
    return problems


def bound_problems(name: str, doc: dict) -> list[str]:
    """Each measurement above its own bound by more than the bound's tolerance: % of bound = 100 x bound_ms /
    median_ms over 100 x (1 + tolerance), as the stages' own warning reads it. A bound without its figures is
    a problem too: the stages write bound_ms and tolerance with every bound."""
    problems = []
    for index, m in enumerate(doc.get("measurements", [])):
        bound = m.get("bound")
        if bound is None:
            continue
        label = f"{name}: measurements[{index}] {m.get('name')} {m.get('params', {})}"
        if not isinstance(bound, dict) or not number(bound.get("bound_ms")) or not number(bound.get("tolerance")):
            problems.append(f"{label}: a bound without bound_ms and tolerance")
            continue
        median = m.get("median_ms")
        if not number(median) or median <= 0:
            problems.append(f"{label}: no median to hold to its bound")
            continue
        percent = 100.0 * bound["bound_ms"] / median
        if percent > 100.0 * (1.0 + bound["tolerance"]):
            problems.append(f"{label}: {percent:.1f}% of its bound ({median:.4g} ms against {bound['bound_ms']:.4g} "
                            f"ms), more than its tolerance of {100 * bound['tolerance']:.1f}% above 100%")
    return problems


def problems_of(name: str, doc: dict) -> list[str]:
    return provenance_problems(name, doc) + bound_problems(name, doc)


def dated(**top: Any) -> dict:
    doc = result("03_stream_pool_gemm", {"batches": 100}, [], measured_at="2026-12-01T10:22:33Z",
                 device={"name": "test GPU", "driver": "580.159.04"})
    doc.update(top)
    return doc


def bounded(median: float, bound_ms: float, tolerance: float) -> dict:
    return measurement("stream_pool", median, params={"streams": 8},
                       bound={"bound_ms": bound_ms, "percent_of_bound": 100.0 * bound_ms / median,
                              "tolerance": tolerance})


class SampleChecks(unittest.TestCase):
    """The checks on made-up results: each can fail."""

    def test_a_measurement_beyond_its_bound_and_tolerance(self) -> None:
        self.assertEqual(problems_of("a.json", dated(measurements=[bounded(16.0, 16.3, 0.02)])), [])  # 101.9%
        self.assertEqual(problems_of("a.json", dated(measurements=[bounded(16.0, 16.0 * 1.02, 0.02)])), [])
        found = problems_of("a.json", dated(measurements=[bounded(16.0, 16.0, 0.02), bounded(16.0, 17.0, 0.02)]))
        self.assertEqual(len(found), 1, found)
        self.assertIn("a.json: measurements[1] stream_pool {'streams': 8}: 106.2% of its bound", found[0])
        self.assertIn("more than its tolerance of 2.0% above 100%", found[0])
        self.assertEqual(len(problems_of("a.json", dated(measurements=[bounded(16.0, 17.0, 0.07)]))), 0)

    def test_a_bound_without_its_figures(self) -> None:
        m = bounded(16.0, 16.0, 0.02)
        del m["bound"]["tolerance"]
        self.assertIn("a bound without bound_ms and tolerance", problems_of("a.json", dated(measurements=[m]))[0])

    def test_the_date_and_the_driver(self) -> None:
        self.assertEqual(problems_of("a.json", dated()), [])
        undated = dated()
        del undated["measured_at"]
        self.assertEqual(problems_of("a.json", undated), ["a.json: no measured_at (when it was measured)"])
        for driver in (None, ""):
            self.assertEqual(problems_of("a.json", dated(device={"name": "test GPU", "driver": driver})),
                             ["a.json: no device.driver (the driver version)"])
        self.assertEqual(len(problems_of("a.json", dated(measured_at=None, device={"name": "x"}))), 2)


class SamplesWithinBounds(unittest.TestCase):
    """The samples themselves."""

    @classmethod
    def setUpClass(cls) -> None:
        cls.docs = sample_results()

    def test_there_are_samples_of_every_stage(self) -> None:
        self.assertEqual({doc["stage"] for doc in self.docs.values()},
                         {"01_serial_baseline", "02_pinned_vs_pageable", "03_stream_pool_gemm",
                          "04_graph_capture_gemm"})

    def test_every_sample_is_within_its_bounds_dated_and_names_its_driver(self) -> None:
        problems = [p for name, doc in self.docs.items() for p in problems_of(name, doc)]
        self.assertEqual(problems, [], "\n".join(problems))


class ReportOnTheSamples(unittest.TestCase):
    """report.py reads the samples whole, whatever run they come from: every plot drawn, the table printed."""

    @classmethod
    def setUpClass(cls) -> None:
        cls.out = class_temporary_dir(cls) / "report"
        cls.proc = run_report(SAMPLES, "--out", cls.out)
        cls.table = run_report("--table", SAMPLES)

    def test_every_plot_and_the_table(self) -> None:
        require_matplotlib(self)
        assert_ran_cleanly(self, self.proc)
        assert_ran_cleanly(self, self.table)
        report = read_report(self.out)
        for name in SUITE_PLOTS:
            self.assertTrue((self.out / name).is_file(), name)
        self.assertNotIn("_Not drawn", report)
        traces = list(SAMPLES.glob("*.trace.json"))
        self.assertTrue(traces, "the samples hold a timeline")
        self.assertEqual(len(list(self.out.glob("timeline_*.png"))), len(traces))
        self.assertEqual(sorted(p.name for p in Path(self.out).glob("*.md")), ["report.md"])


if __name__ == "__main__":
    unittest.main()
