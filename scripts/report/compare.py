"""report.py --compare OLD NEW: two runs (folders or single result files, v1 or v2) side by side, per
(run, variant, params): both medians, NEW/OLD, the speed-up, and whether the outputs are the same."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .load import Result, load_results_from, params_of
from .render import describe_device, failed_verifications, format_ms, format_params, measured_dates, plural, text_table

# Two runs with the same of these computed the same inputs and shapes, so their outputs must be the same.
SAME_CONFIG_KEYS = ("seed", "m", "n", "k", "batches")

Row = tuple[str, str, str]  # run (or stage), variant, params as JSON


def keyed(results: list[Result], by_file: bool) -> dict[Row, tuple[Result, dict[str, Any]]]:
    rows: dict[Row, tuple[Result, dict[str, Any]]] = {}
    for result in results:
        for m in result.measurements:
            run = result.name if by_file else result.stage
            params = json.dumps(params_of(m), sort_keys=True, separators=(",", ":"))
            key, index = (run, m["name"], params), 2
            while key in rows:  # the same variant twice in one run: number the repeats
                key, index = (run, f"{m['name']} #{index}", params), index + 1
            rows[key] = (result, m)
    return rows


def outputs(old: Result, om: dict[str, Any], new: Result, nm: dict[str, Any]) -> str | None:
    """"equal"; "DIFFERENT" (the same inputs and shapes, other outputs: a finding); "different-config" (the
    inputs or shapes differ, other outputs are expected); None where a run recorded no digest."""
    if not isinstance(om.get("digest"), str) or not isinstance(nm.get("digest"), str):
        return None
    if om["digest"] == nm["digest"]:
        return "equal"
    same = all(key in old.config and key in new.config and old.config[key] == new.config[key]
               for key in SAME_CONFIG_KEYS)
    return "DIFFERENT" if same else "different-config"


def compare(old_path: Path, new_path: Path) -> tuple[list[str], bool]:
    """(the lines, whether something did not verify or the same config gave different outputs)."""
    old_results, new_results = load_results_from(old_path), load_results_from(new_path)
    by_file = old_path.is_dir() and new_path.is_dir()  # folders are matched run by run, single files by stage
    old, new = keyed(old_results, by_file), keyed(new_results, by_file)
    lines = [*(f"{label}: {path}: {'; '.join(sorted({describe_device(r.device) for r in results}))}; measured (UTC) "
               f"{measured_dates(results)}" for label, results, path in (("OLD", old_results, old_path),
                                                                         ("NEW", new_results, new_path))), ""]
    rows, differing, compared = [], [], []
    for key in [k for k in old if k in new]:
        (old_result, om), (new_result, nm) = old[key], new[key]
        o, n = om["median_ms"], nm["median_ms"]
        same = outputs(old_result, om, new_result, nm)
        compared += [same] if same else []
        params = format_params(json.loads(key[2]))
        if same == "DIFFERENT":
            differing.append(f"  {key[0]}  {key[1]}  {params}: OLD {om['digest']}, NEW {nm['digest']}")
        rows.append([key[0], key[1], params, format_ms(o), format_ms(n), f"{n / o:.3f}" if o > 0 else "-",
                     f"{o / n:.2f}x" if n > 0 else "-", same or "-"])
    if rows:
        lines += text_table(["run" if by_file else "stage", "variant", "params", "OLD ms", "NEW ms", "NEW/OLD",
                             "speed-up", "outputs"], rows, {3, 4, 5, 6})
        lines += ["", "NEW/OLD < 1: NEW took less time. speed-up = OLD / NEW. outputs: the rows' digests; equal; "
                  "DIFFERENT: other outputs from the same seed, m, n, k and batches; different-config: the runs' "
                  "seed or shape differ, so other outputs are expected; -: a run recorded no digest."]
    else:
        lines.append("no (run, variant, params) in common")
    lines.append(f"digests compared in {plural(len(compared), 'row')}: " + ", ".join(
        f"{compared.count(v)} {v}" for v in dict.fromkeys(compared)) if compared else
        "digests: no row has an output digest in both runs")
    if differing:
        lines += ["", f"OUTPUTS DIFFER in {plural(len(differing), 'row')} with the same config seed, m, n, k and "
                  "batches in both runs:", *differing]
    for label, only in (("OLD", [k for k in old if k not in new]), ("NEW", [k for k in new if k not in old])):
        if only:
            lines += ["", f"only in {label} ({len(only)}):"]
            lines += [f"  {run}  {name}  {format_params(json.loads(params))}" for run, name, params in only]
    failures = [f"{label}: {line}" for label, results in (("OLD", old_results), ("NEW", new_results))
                for line in failed_verifications(results)]
    lines += ["", *failures] if failures else []
    return lines, bool(differing or failures)
