#!/usr/bin/env python3
"""CPU tests of stage 04's regime map in scripts/report.py (standard library
unittest): the heatmap and the report.md section, --table, the crossover and
caption decisions on made-up maps, a cell that did not verify, and bad map
fields. Every map here is built by the tests (map_result below), never read
from a real run.

    cd tests/python && python3 -m unittest -v test_regime_map
"""

from __future__ import annotations

import unittest
from pathlib import Path
from typing import Any

from report_fixtures import (MIN_PNG_BYTES, PNG_SIGNATURE, assert_ran_cleanly, class_temporary_dir, png_size,
                             read_report, require_matplotlib, result, run_report, section, temporary_dir, write_folder)

from results_lib import (MapRow, ResultError, crossover_sentence, map_cell_text, map_findings, map_rows,
                         validate)

STAGE04 = "04_graph_capture_gemm"
SIZES = [32, 256, 1024]
BATCHES = [10, 100, 1000]
POOL_MS = 10.0


def cell(m: int, batches: int, outcome: str, ratio: float = 1.0, verified: bool = True) -> dict[str, Any]:
    """A measured cell ("graph", "streams", "tie") whose replay took `ratio` x the pool's 10 ms,
    or a skipped one ("time", "memory")."""
    base = {"m": m, "n": m, "k": m, "batches": batches}
    if outcome in ("time", "memory"):
        reason = ("estimated 14.7 s of timed runs, over the 10 s per cell (--map-cell-seconds)" if outcome == "time"
                  else "this run needs 80.0 GiB of host memory (pinned) but only 60.0 GiB are available")
        return {**base, "stream_ms": None, "graph_ms": None, "winner": None, "skipped_reason": reason,
                "skipped_because": outcome, "verified": None}
    return {**base, "stream_ms": POOL_MS, "graph_ms": POOL_MS * ratio, "stream_issue_ms": 0.02 * batches,
            "graph_issue_ms": 0.01, "pool_percent_of_bound": 93.0, "winner": outcome, "skipped_reason": None,
            "verified": verified}


def grid(rows: dict[int, list[tuple[str, float]]]) -> list[dict[str, Any]]:
    """Cells from {size: [(outcome, ratio) per batch count]}."""
    return [cell(m, b, outcome, ratio)
            for m, outcomes in rows.items() for b, (outcome, ratio) in zip(BATCHES, outcomes)]


# The map most tests use: small GEMMs win with the graph from 100 batches on,
# mid-size ones only at 1000, the largest never (one cell skipped for time).
MIXED = {32: [("tie", 1.01), ("graph", 0.70), ("graph", 0.55)],
         256: [("streams", 1.05), ("tie", 0.99), ("graph", 0.88)],
         1024: [("streams", 1.04), ("tie", 1.00), ("time", 1.0)]}


def regime_map(cells: list[dict[str, Any]], sizes: list[int] | None = None) -> dict[str, Any]:
    return {"sizes": sizes or SIZES, "batches": BATCHES, "streams": 8, "warmup": 2, "repeats": 10,
            "cell_seconds": 10, "equal_within": 0.03, "cells": cells}


def map_result(cells: list[dict[str, Any]], passed: bool = True, sizes: list[int] | None = None) -> dict[str, Any]:
    config = {"batches": None, "m": None, "n": None, "k": None, "host_memory": "pinned", "kernel": "naive",
              "mode": "regime_map", "streams": 8}
    doc = result(STAGE04, config, [], regime_map=regime_map(cells, sizes), measured_at="2026-12-01T10:22:33Z")
    doc["verification"] = {"passed": passed, "batches_checked": 3330}
    return doc


class RegimeMapDecisions(unittest.TestCase):
    """The words on made-up maps: each cell, each row's crossover, each caption branch."""

    def test_each_cell_names_the_winner_and_the_replays_time_against_the_pools(self) -> None:
        self.assertEqual(map_cell_text(cell(32, 10, "graph", 0.88)), "graph −12%")
        self.assertEqual(map_cell_text(cell(32, 10, "streams", 1.034)), "streams +3%")
        self.assertEqual(map_cell_text(cell(32, 10, "tie", 1.02)), "tie")
        self.assertEqual(map_cell_text({**cell(32, 10, "streams", 2.27), "noisy": True}), "streams +127% (noisy)")
        self.assertEqual(map_cell_text({**cell(32, 10, "tie", 1.02), "noisy": False}), "tie")
        self.assertEqual(map_cell_text(cell(32, 10, "time")), "skipped (time)")
        self.assertEqual(map_cell_text(cell(32, 10, "memory")), "skipped (memory)")
        self.assertEqual(map_cell_text(None), "-")

    def test_the_crossover_row_by_row(self) -> None:
        rows = map_rows(regime_map(grid(MIXED)))
        self.assertEqual([(r.m, r.first_win) for r in rows], [(32, 100), (256, 1000), (1024, None)])
        self.assertEqual(crossover_sentence(rows[0]),
                         "32³: the graph wins from 100 batches on (at every larger count measured too)")
        self.assertEqual(crossover_sentence(rows[1]),
                         "256³: the graph wins only at 1000 batches, the largest count measured")
        self.assertEqual(crossover_sentence(rows[2]),
                         "1024³: graph never wins here (streams or a tie at 10, 100 batches)")

    def test_a_crossover_that_does_not_hold_and_one_that_always_does(self) -> None:
        bumpy = map_rows(regime_map(grid({32: [("graph", 0.8), ("tie", 1.0), ("graph", 0.7)]}), sizes=[32]))[0]
        self.assertEqual(bumpy.first_win, 10)
        self.assertFalse(bumpy.wins_from_there_on)
        self.assertEqual(crossover_sentence(bumpy),
                         "32³: the graph wins first at 10 batches, but not at every larger count (100: tie)")
        always = map_rows(regime_map(grid({32: [("graph", 0.8)] * 3}), sizes=[32]))[0]
        self.assertEqual(crossover_sentence(always),
                         "32³: the graph wins at every batch count measured (10, 100, 1000)")
        nothing = MapRow(64, [], None, [])
        self.assertEqual(crossover_sentence(nothing), "64³: no cell measured (every batch count skipped)")

    def test_the_caption_follows_the_article_where_small_gemms_win(self) -> None:
        found = map_findings(regime_map(grid(MIXED)))
        self.assertIn("the graph replay won 3 of the 8 cells measured, the stream pool 2, 3 ties within ±3%; "
                      "1 cell skipped", found[0])
        self.assertIn("as the article says, the graph pays off for small kernels: it wins at 32³ and never at 1024³",
                      found[1])

    def test_the_caption_says_when_the_articles_claim_does_not_hold(self) -> None:
        upside_down = {32: [("streams", 1.1)] * 3, 256: [("tie", 1.0)] * 3, 1024: [("graph", 0.9)] * 3}
        found = map_findings(regime_map(grid(upside_down)))
        self.assertIn("does not hold here: the graph wins at 1024³ but not at the smallest size, 32³", found[1])
        everywhere_but_one = {32: [("graph", 0.8)] * 3, 256: [("streams", 1.1)] * 3, 1024: [("graph", 0.9)] * 3}
        self.assertIn("at the smallest size, 32³, and at the largest, 1024³, alike",
                      map_findings(regime_map(grid(everywhere_but_one)))[1])

    def test_the_caption_when_the_graph_wins_nowhere_everywhere_or_nothing_ran(self) -> None:
        never = map_findings(regime_map(grid({m: [("tie", 1.0), ("streams", 1.2), ("tie", 0.99)] for m in SIZES})))
        self.assertEqual(len(never), 1)
        self.assertIn("the graph replay won no cell", never[0])
        self.assertIn("does not show here", never[0])
        always = map_findings(regime_map(grid({m: [("graph", 0.8)] * 3 for m in SIZES})))
        self.assertEqual(always, ["the graph replay won every one of the 9 cells measured (more than 3% less GPU "
                                  "time than the stream pool)"])
        skipped = map_findings(regime_map(grid({m: [("memory", 1.0)] * 3 for m in SIZES})))
        self.assertEqual(skipped, ["every one of the 9 cells was skipped (reasons in the table): nothing was "
                                   "measured, so nothing to compare"])

    def test_validation_names_the_bad_field(self) -> None:
        def error(mutate) -> str:
            doc = map_result(grid(MIXED))
            mutate(doc["regime_map"])
            with self.assertRaises(ResultError) as caught:
                validate(doc, Path("04.json"))
            return str(caught.exception)

        self.assertIn("'regime_map.sizes'", error(lambda rm: rm.update(sizes=[])))
        self.assertIn("'regime_map.batches'", error(lambda rm: rm.update(batches=["10"])))
        self.assertIn("'regime_map.cells'", error(lambda rm: rm.update(cells={})))
        self.assertIn("'regime_map.cells[0].winner'", error(lambda rm: rm["cells"][0].update(winner="both")))
        self.assertIn("'regime_map.cells[1].graph_ms'", error(lambda rm: rm["cells"][1].update(graph_ms=None)))
        self.assertIn("'regime_map.cells[2].m'", error(lambda rm: rm["cells"][2].update(m=48)))
        self.assertIn("'regime_map.cells[3].verified'", error(lambda rm: rm["cells"][3].update(verified="yes")))
        self.assertIn("'regime_map.cells[8].skipped_reason'",
                      error(lambda rm: rm["cells"][8].update(winner="graph")))
        self.assertIn("'regime_map.equal_within'", error(lambda rm: rm.update(equal_within=3)))
        validate(map_result(grid(MIXED)), Path("04.json"))  # and the good one passes


class RegimeMapReport(unittest.TestCase):
    """report.py on a folder with a --regime-map result: the section, the heatmap, the caption."""

    @classmethod
    def setUpClass(cls) -> None:
        cls.dir = write_folder(class_temporary_dir(cls) / "results", {f"{STAGE04}-map.json": map_result(grid(MIXED))})
        cls.proc = run_report(cls.dir)
        cls.report = read_report(cls.dir)

    def setUp(self) -> None:
        require_matplotlib(self)

    def test_runs_cleanly(self) -> None:
        assert_ran_cleanly(self, self.proc)

    def test_the_section_has_the_map_the_skipped_cells_and_the_crossover(self) -> None:
        text = section(self.report, f"## Regime map: where the graph wins ({STAGE04}-map)")
        the_map = ("| m = n = k | 10 batches | 100 batches | 1000 batches |",
                   "| 32³ | tie | graph −30% | graph −45% |",
                   "| 256³ | streams +5% | tie | graph −12% |",
                   "| 1024³ | streams +4% | tie | skipped (time) |")
        under_it = ("- 1024³ × 1000 batches: estimated 14.7 s of timed runs",  # the skipped cell
                    "- 32³: the graph wins from 100 batches on",                # the crossover, size by size
                    "- 1024³: graph never wins here",
                    "; as the article says, the graph pays off for small kernels: it wins at 32³",
                    "tie: within ±3%")
        for line in the_map + under_it:
            self.assertIn(line, text)

    def test_the_heatmap_is_a_real_png_with_a_caption_from_the_data(self) -> None:
        path = self.dir / f"regime_map_{STAGE04}-map.png"
        self.assertTrue(path.is_file(), "the heatmap was not drawn")
        self.assertEqual(path.read_bytes()[:8], PNG_SIGNATURE)
        self.assertGreater(path.stat().st_size, MIN_PNG_BYTES)
        width, _ = png_size(path)
        self.assertGreaterEqual(width, 1200, "too small for a slide")
        plot = section(self.report, f"### Regime map: where the graph wins ({STAGE04}-map)")
        self.assertIn(f"]({path.name})", plot)
        self.assertIn("brown where one graph replay took less GPU time than the stream pool", plot)
        self.assertIn("The black bar marks, per size, the smallest batch count where the graph wins: 32³ at 100, "
                      "256³ at 1000.", plot)

    def test_a_map_where_the_graph_never_wins_says_so_in_its_caption(self) -> None:
        directory = write_folder(temporary_dir(self) / "never", {
            f"{STAGE04}-map.json": map_result(grid({m: [("streams", 1.1)] * 3 for m in SIZES}))})
        proc = run_report(directory)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        report = (directory / "report.md").read_text()
        plot = section(report, f"### Regime map: where the graph wins ({STAGE04}-map)")
        self.assertIn("The graph replay won no cell", plot)
        self.assertNotIn("black bar", plot)
        self.assertTrue((directory / f"regime_map_{STAGE04}-map.png").is_file())

    def test_a_folder_without_a_map_has_no_map_section_or_plot(self) -> None:
        plain = result(STAGE04, {"batches": 100, "m": 1024, "n": 1024, "k": 512},
                       [{"name": "graph_replay", "median_ms": 17.0, "verified": True}])
        directory = write_folder(temporary_dir(self) / "plain", {f"{STAGE04}.json": plain})
        proc = run_report(directory)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        report = (directory / "report.md").read_text()
        self.assertNotIn("Regime map", report)
        self.assertFalse(list(directory.glob("regime_map_*.png")))

    def test_a_cell_that_did_not_verify_exits_1_and_is_named(self) -> None:
        cells = grid(MIXED)
        cells[4]["verified"] = False  # 256³ x 100
        directory = write_folder(temporary_dir(self) / "bad", {f"{STAGE04}-map.json": map_result(cells, passed=False)})
        proc = run_report(directory, "--no-plots")
        self.assertEqual(proc.returncode, 1, proc.stdout + proc.stderr)
        report = (directory / "report.md").read_text()
        self.assertIn("regime map cell 256³ × 100 batches", report)
        self.assertIn("| 256³ | 100 | 10.00 | 9.90 | 0.990 | 2.000 | 0.010 | 93.0 | NO |", report)


class RegimeMapTable(unittest.TestCase):
    """--table prints the map as text (and as markdown with --markdown); bad map fields exit 2."""

    @classmethod
    def setUpClass(cls) -> None:
        cls.dir = write_folder(class_temporary_dir(cls), {f"{STAGE04}-map.json": map_result(grid(MIXED))})
        cls.proc = run_report("--table", cls.dir)
        cls.markdown = run_report("--table", cls.dir, "--markdown")

    def lines(self) -> list[str]:
        out = self.proc.stdout.splitlines()
        start = next(i for i, line in enumerate(out) if line.startswith("Regime map ("))
        return out[start:]

    def test_the_map_as_text(self) -> None:
        self.assertEqual(self.proc.returncode, 0, self.proc.stderr)
        lines = self.lines()
        self.assertEqual(lines[0], f"Regime map ({STAGE04}-map.json): graph replay vs stream pool, GPU time; "
                                   "tie within ±3%")
        self.assertEqual(lines[1].split(), ["m", "=", "n", "=", "k", "10", "batches", "100", "batches", "1000",
                                            "batches"])
        self.assertTrue(set(lines[2]) <= {"-", " "}, lines[2])
        self.assertEqual(lines[3].split(), ["32³", "tie", "graph", "−30%", "graph", "−45%"])
        self.assertEqual(lines[5].split(), ["1024³", "streams", "+4%", "tie", "skipped", "(time)"])
        self.assertEqual(len({len(line) for line in lines[1:6]}), 1, "the columns line up")
        self.assertIn("  skipped: 1024³ × 1000 batches: estimated 14.7 s", self.proc.stdout)
        self.assertIn("  256³: the graph wins only at 1000 batches, the largest count measured", self.proc.stdout)

    def test_a_folder_with_only_the_map_has_no_empty_stage_table(self) -> None:
        for out in (self.proc.stdout, self.markdown.stdout):
            self.assertIn("no stage measurements here beyond the regime map", out)
            self.assertNotIn("speed-up vs 01 *", out, "an empty table's header")

    def test_the_map_as_markdown(self) -> None:
        self.assertEqual(self.markdown.returncode, 0, self.markdown.stderr)
        self.assertIn("| m = n = k | 10 batches | 100 batches | 1000 batches |\n|---|---:|---:|---:|",
                      self.markdown.stdout)
        self.assertIn("| 256³ | streams +5% | tie | graph −12% |", self.markdown.stdout)

    def test_a_bad_map_is_refused_in_every_mode_with_one_line(self) -> None:
        doc = map_result(grid(MIXED))
        doc["regime_map"]["cells"][1]["winner"] = "nobody"
        directory = write_folder(temporary_dir(self), {f"{STAGE04}-map.json": doc})
        for args in (["--table", directory], [directory, "--no-plots"]):
            proc = run_report(*args)
            with self.subTest(args=args[0]):
                self.assertEqual(proc.returncode, 2, proc.stdout + proc.stderr)
                lines = proc.stderr.strip().splitlines()
                self.assertEqual(len(lines), 1, proc.stderr)
                self.assertIn(f"{STAGE04}-map.json", lines[0])
                self.assertIn("'regime_map.cells[1].winner'", lines[0])


if __name__ == "__main__":
    unittest.main()
