"""The sample results (tests/data/suite/README.md) as the report's input: every
stage there, each result dated (measured_at) and naming its driver
(device.driver), each measurement within its own bound (none faster than its
bound by more than the bound's tolerance: a bound must bound), and so every
field named *percent_of_bound* anywhere in a document (the regime map's
cells, the bounds' summaries), each beside the tolerance it was allowed. The checks are
shown to fail on made-up results first."""

from __future__ import annotations

import pytest
from conftest import SAMPLES, measurement, result, results_in


def tolerance_beside(d: dict, key: str) -> float | None:
    """The tolerance a document states beside `key` (a field named *percent_of_bound*): the field of the
    same prefix ("pool_percent_of_bound": "pool_bound_tolerance"), else a measurement bound's "tolerance"."""
    for name in (key.replace("percent_of_bound", "bound_tolerance"), "tolerance"):
        if isinstance(d.get(name), (int, float)):
            return float(d[name])
    return None


def verdict_tolerance(verdict: dict) -> float | None:
    """The tolerance a verdict decided its bound with: its threshold, or the threshold's "tolerance"."""
    threshold = verdict.get("threshold")
    if isinstance(threshold, dict):
        threshold = threshold.get("tolerance")
    return float(threshold) if isinstance(threshold, (int, float)) else None


def percents_of_bound(doc: object, path: str = "",
                      inherited: float | None = None) -> list[tuple[str, float, float | None]]:
    """Every field named *percent_of_bound* anywhere in `doc`: (where, its value, the tolerance beside it,
    or that of the verdict whose figures hold it)."""
    found = []
    if isinstance(doc, dict):
        if "figures" in doc and "threshold" in doc:
            inherited = verdict_tolerance(doc)
        for key, value in doc.items():
            if "percent_of_bound" in key and isinstance(value, (int, float)):
                beside = tolerance_beside(doc, key)
                found.append((f"{path}.{key}", float(value), beside if beside is not None else inherited))
            found += percents_of_bound(value, f"{path}.{key}", inherited)
    elif isinstance(doc, list):
        for index, value in enumerate(doc):
            found += percents_of_bound(value, f"{path}[{index}]", inherited)
    return found


def problems(name: str, doc: dict) -> list[str]:
    found = [f"{name}: no measured_at"] if not doc.get("measured_at") else []
    found += [f"{name}: no device.driver"] if not doc["device"].get("driver") else []
    for index, m in enumerate(doc["measurements"]):
        bound = m.get("bound")
        if bound and 100.0 * bound["bound_ms"] / m["median_ms"] > 100.0 * (1.0 + bound["tolerance"]):
            found.append(f"{name}: measurements[{index}] {m['name']} {m.get('params')}: "
                         f"{100.0 * bound['bound_ms'] / m['median_ms']:.1f}% of its bound, beyond its tolerance of "
                         f"{100.0 * bound['tolerance']:.1f}%")
    for where, percent, tolerance in percents_of_bound(doc):
        if tolerance is None:
            found.append(f"{name}: {where}: {percent:.1f}% of a bound, with no tolerance stated beside it")
        elif percent > 100.0 * (1.0 + tolerance):
            found.append(f"{name}: {where}: {percent:.1f}% of its bound, beyond its tolerance of "
                         f"{100.0 * tolerance:.1f}%")
    return found


def bounded(median_ms: float, bound_ms: float, tolerance: float) -> dict:
    return measurement("stream_pool", median_ms, bound={"bound_ms": bound_ms, "tolerance": tolerance})


def cells(*percents: tuple[float, float | None]) -> dict:
    """A regime map whose cells reached these % of their bounds, each with its tolerance (None: left out)."""
    return {"cells": [{"pool_percent_of_bound": p, **({} if t is None else {"pool_bound_tolerance": t})}
                      for p, t in percents]}


@pytest.mark.parametrize("doc, expected", [
    (result(measurements=[bounded(16.0, 16.3, 0.02), bounded(16.0, 16.0 * 1.02, 0.02)]), 0),
    (result(measurements=[bounded(16.0, 17.0, 0.02)]), 1),
    (result(measurements=[bounded(16.0, 17.0, 0.07)]), 0),
    (result(measured_at=None), 1),
    (result(device={"name": "test GPU", "driver": ""}), 1),
    (result(regime_map=cells((99.0, 0.02), (101.9, 0.02))), 0),
    (result(regime_map=cells((99.0, 0.02), (112.6, 0.02))), 1),
    (result(regime_map=cells((99.0, None))), 1),
    (result(bounds={"stream_pool_percent_of_bound": 103.0, "stream_pool_bound_tolerance": 0.02}), 1),
    (result(bounds={"percent_of_bound": 101.0, "bound_tolerance": 0.02}), 0),
    (result(verdicts=[{"id": "b", "figures": {"percent_of_bound": 101.0}, "threshold": 0.02}]), 0),
    (result(verdicts=[{"id": "b", "figures": {"percent_of_bound": 103.0}, "threshold": {"tolerance": 0.02}}]), 1),
    (result(verdicts=[{"id": "b", "figures": {"percent_of_bound": 99.0}, "threshold": "none"}]), 1),
], ids=["within", "beyond", "within a wider tolerance", "undated", "no driver", "map within", "map cell beyond",
        "map cell without a tolerance", "a variant's figure beyond", "the pool's figure within",
        "a verdict's figure within", "a verdict's figure beyond", "a verdict without a tolerance"])
def test_the_checks_can_fail(doc: dict, expected: int) -> None:
    assert len(problems("a", doc)) == expected


def test_the_samples_hold_every_stage_each_dated_within_its_bounds_naming_its_driver() -> None:
    docs = results_in(SAMPLES)
    assert {doc["stage"][:2] for doc in docs.values()} == {"01", "02", "03", "04"}
    assert [p for name, doc in docs.items() for p in problems(name, doc)] == []
