"""The sample results (tests/data/suite/README.md) as the report's input: every
stage there, each result dated (measured_at) and naming its driver
(device.driver), each measurement within its own bound (none faster than its
bound by more than the bound's tolerance: a bound must bound). The checks are
shown to fail on made-up results first."""

from __future__ import annotations

import pytest
from conftest import SAMPLES, measurement, result, results_in


def problems(name: str, doc: dict) -> list[str]:
    found = [f"{name}: no measured_at"] if not doc.get("measured_at") else []
    found += [f"{name}: no device.driver"] if not doc["device"].get("driver") else []
    for index, m in enumerate(doc["measurements"]):
        bound = m.get("bound")
        if bound and 100.0 * bound["bound_ms"] / m["median_ms"] > 100.0 * (1.0 + bound["tolerance"]):
            found.append(f"{name}: measurements[{index}] {m['name']} {m.get('params')}: "
                         f"{100.0 * bound['bound_ms'] / m['median_ms']:.1f}% of its bound, beyond its tolerance of "
                         f"{100.0 * bound['tolerance']:.1f}%")
    return found


def bounded(median_ms: float, bound_ms: float, tolerance: float) -> dict:
    return measurement("stream_pool", median_ms, bound={"bound_ms": bound_ms, "tolerance": tolerance})


@pytest.mark.parametrize("doc, expected", [
    (result(measurements=[bounded(16.0, 16.3, 0.02), bounded(16.0, 16.0 * 1.02, 0.02)]), 0),
    (result(measurements=[bounded(16.0, 17.0, 0.02)]), 1),
    (result(measurements=[bounded(16.0, 17.0, 0.07)]), 0),
    (result(measured_at=None), 1),
    (result(device={"name": "test GPU", "driver": ""}), 1),
], ids=["within", "beyond", "within a wider tolerance", "undated", "no driver"])
def test_the_checks_can_fail(doc: dict, expected: int) -> None:
    assert len(problems("a", doc)) == expected


def test_the_samples_hold_every_stage_each_dated_within_its_bounds_naming_its_driver() -> None:
    docs = results_in(SAMPLES)
    assert {doc["stage"][:2] for doc in docs.values()} == {"01", "02", "03", "04"}
    assert [p for name, doc in docs.items() for p in problems(name, doc)] == []
