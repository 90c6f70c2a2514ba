#!/usr/bin/env python3
"""Every sentence that interprets figures is chosen by the figures: each decision
of results_lib on synthetic numbers, one test per branch, then report.md's
captions and sentences on synthetic runs where the article's claims hold and
where they do not.

    cd tests/python && python3 -m unittest -v test_captions
"""

from __future__ import annotations

import shutil
import tempfile
import unittest
from pathlib import Path

from report_fixtures import (ARTICLE, DATA, measurement, require_matplotlib, result, run_report, section,
                             write_folder)

import results_lib as lib  # noqa: E402  (scripts/ is on the path: report_fixtures)


class BoundVerdict(unittest.TestCase):
    """A time against the pipeline bound: beaten (more than 1% below), at it (-1% to +5%), above it."""

    def test_below(self) -> None:
        self.assertEqual(lib.bound_verdict(16.0, 17.28), "below")
        text = lib.bound_sentence("The stream pool", 16.0, 17.28)
        self.assertIn("7% BELOW the pipeline bound of 17.28 ms", text)
        self.assertIn("it beat the bound", text)
        self.assertNotIn("at the pipeline bound", text)

    def test_at_just_below_and_just_above(self) -> None:
        for achieved in (17.28 * 0.995, 17.28, 17.28 * 1.049):
            with self.subTest(achieved=achieved):
                self.assertEqual(lib.bound_verdict(achieved, 17.28), "at")
                text = lib.bound_sentence("The stream pool", achieved, 17.28)
                self.assertIn("at the pipeline bound of 17.28 ms (within -1% to +5%)", text)
                self.assertNotIn("BELOW", text)

    def test_above(self) -> None:
        self.assertEqual(lib.bound_verdict(8.74, 8.27), "above")
        text = lib.bound_sentence("The best pool", 8.74, 8.27)
        self.assertIn("6% above the pipeline bound of 8.27 ms (more than 5% over it): not at the bound", text)

    def test_the_thresholds_themselves(self) -> None:
        self.assertEqual(lib.bound_verdict(0.989, 1.0), "below")
        self.assertEqual(lib.bound_verdict(0.991, 1.0), "at")
        self.assertEqual(lib.bound_verdict(1.051, 1.0), "above")


class TimeVerdict(unittest.TestCase):
    """Graph against streams (and any two times): faster, slower, about equal within ±3%."""

    def test_faster(self) -> None:
        self.assertEqual(lib.time_verdict(0.9, 1.0), "faster")
        self.assertEqual(lib.graph_vs_streams_sentence(9.0, 10.0),
                         "graph replay is faster than the stream pool (ratio 0.90; more than 3% apart)")

    def test_slower(self) -> None:
        self.assertEqual(lib.time_verdict(1.1, 1.0), "slower")
        self.assertEqual(lib.graph_vs_streams_sentence(11.0, 10.0),
                         "graph replay is slower than the stream pool (ratio 1.10; more than 3% apart)")

    def test_about_equal(self) -> None:
        for ms in (9.75, 10.0, 10.25):
            with self.subTest(ms=ms):
                self.assertEqual(lib.time_verdict(ms, 10.0), "about equal")
                self.assertIn("graph replay is about equal to the stream pool", lib.graph_vs_streams_sentence(ms, 10.0))
                self.assertIn("within ±3%", lib.graph_vs_streams_sentence(ms, 10.0))

    def test_cpu_issue_time(self) -> None:
        self.assertIn("was faster than issuing it call by call", lib.issue_sentence(0.5, 1.0))
        self.assertIn("was slower than issuing it call by call", lib.issue_sentence(1.5, 1.0))
        self.assertIn("was about equal to issuing it call by call", lib.issue_sentence(1.0, 1.0))


class SweepPlateau(unittest.TestCase):
    """Where the time stops improving in a stream-count sweep (within 3% of the best)."""

    def test_plateau_inside_the_range(self) -> None:
        points = [(1, 30.0), (2, 16.2), (4, 16.1), (8, 16.0), (16, 16.05)]
        plateau = lib.sweep_plateau(points)
        self.assertEqual((plateau.kind, plateau.streams, plateau.best_streams), ("plateau", 2, 8))
        self.assertIsNone(plateau.rises)
        self.assertIn("stops improving at 2 streams", lib.sweep_sentence(points))

    def test_flat_from_the_first_pool(self) -> None:
        points = [(1, 10.1), (2, 10.0), (4, 10.05)]
        self.assertEqual(lib.sweep_plateau(points).kind, "flat")
        self.assertIn("More streams do not help here: 1 stream,", lib.sweep_sentence(points))

    def test_still_improving_at_the_largest_pool(self) -> None:
        points = [(1, 30.0), (2, 20.0), (4, 15.0), (8, 12.0)]
        self.assertEqual(lib.sweep_plateau(points).kind, "still improving")
        text = lib.sweep_sentence(points)
        self.assertIn("still improves up to the largest pool tried (8 streams", text)
        self.assertNotIn("stops improving", text)

    def test_more_streams_cost_time_past_the_plateau(self) -> None:
        points = [(1, 30.0), (2, 16.0), (4, 16.1), (32, 18.0)]
        plateau = lib.sweep_plateau(points)
        self.assertEqual((plateau.kind, plateau.rises), ("plateau", (32, 18.0)))
        self.assertIn("Past that, more streams cost time: 32 streams take 18.00 ms, 12% more",
                      lib.sweep_sentence(points))

    def test_unsorted_points_and_the_bound(self) -> None:
        points = [(8, 16.0), (1, 30.0), (2, 16.2)]
        self.assertEqual(lib.sweep_plateau(points).streams, 2)
        self.assertIn("BELOW the pipeline bound", lib.sweep_sentence(points, bound_ms=17.3))
        self.assertIn("at the pipeline bound", lib.sweep_sentence(points, bound_ms=16.0))

    def test_too_few_points(self) -> None:
        self.assertIsNone(lib.sweep_plateau([(8, 16.0)]))
        self.assertIn("Too few pool sizes", lib.sweep_sentence([(8, 16.0)]))


class SpeedLabel(unittest.TestCase):
    def test_a_longer_time_is_slower_never_a_fraction_faster(self) -> None:
        self.assertEqual(lib.speed_label(79.6, 27.4), "2.9× faster")
        self.assertEqual(lib.speed_label(79.6, 87.2), "1.1× slower")
        self.assertEqual(lib.speed_label(10.0, 10.0), "1.0× faster")


class CopyVerdicts(unittest.TestCase):
    """Pinned against pageable (±10%), and both directions at once against one (more than 25% above)."""

    def test_pinned_faster(self) -> None:
        self.assertEqual(lib.rate_verdict(55.2, 7.0), "faster")
        self.assertIn("pinned is 7.9× faster", lib.copy_sentence("H2D", 1 << 28, 55.2, 7.0))

    def test_about_equal(self) -> None:
        self.assertEqual(lib.rate_verdict(12.0, 11.5), "about equal")
        self.assertIn("pinning gains nothing at this size here", lib.copy_sentence("H2D", 1 << 16, 12.0, 11.5))

    def test_pinned_slower(self) -> None:
        self.assertEqual(lib.rate_verdict(9.0, 12.0), "slower")
        self.assertIn("pinned is SLOWER than pageable", lib.copy_sentence("D2H", 1 << 16, 9.0, 12.0))

    def test_duplex_gain_and_none(self) -> None:
        self.assertIn("the link carries both ways at the same time", lib.duplex_sentence(89.6, 55.2))
        text = lib.duplex_sentence(60.0, 55.2)
        self.assertIn("no gain from copying both ways at once here", text)
        self.assertNotIn("carries both ways", text)

    def test_findings_at_the_largest_size(self) -> None:
        series = {("pinned", "h2d"): {1024.0: 10.0, 2048.0: 50.0}, ("pageable", "h2d"): {1024.0: 5.0, 2048.0: 10.0},
                  ("pinned", "bidirectional"): {2048.0: 55.0}, ("pinned", "d2h"): {2048.0: 52.0}}
        found = lib.copy_findings(series)
        self.assertIn("H2D at 2 KiB: pinned 50.0 GB/s, pageable 10.0 GB/s: pinned is 5.0× faster", found[0])
        self.assertIn("no gain from copying both ways", found[1])
        self.assertEqual(lib.copy_findings({}), [])


class Overlap(unittest.TestCase):
    """A timeline overlapped when two or more operations ran at once for more than 1% of the busy time."""

    def test_serial_spans_touching_end_to_start(self) -> None:
        overlapped, busy = lib.overlap_fraction([(0, 1), (1, 2), (3, 1)])
        self.assertEqual((overlapped, busy), (0.0, 4.0))
        self.assertEqual(lib.overlap_verdict(overlapped, busy), "serial")
        self.assertIn("No two operations ran at the same time", lib.overlap_sentence(overlapped, busy))

    def test_overlapped(self) -> None:
        overlapped, busy = lib.overlap_fraction([(0, 4), (1, 2), (5, 1)])
        self.assertEqual((overlapped, busy), (2.0, 5.0))
        self.assertEqual(lib.overlap_verdict(overlapped, busy), "overlapped")
        self.assertIn("Two or more operations ran at once for 40% of the busy time",
                      lib.overlap_sentence(overlapped, busy))
        self.assertEqual(lib.overlap_short(overlapped, busy), "two or more operations at once 40% of the busy time")

    def test_a_sliver_of_overlap_is_still_serial(self) -> None:
        overlapped, busy = lib.overlap_fraction([(0, 100), (99.5, 100)])
        self.assertEqual(lib.overlap_verdict(overlapped, busy), "serial")
        self.assertEqual(lib.overlap_short(overlapped, busy), "no two operations at once")

    def test_nothing_ran(self) -> None:
        self.assertEqual(lib.overlap_fraction([]), (0.0, 0.0))
        self.assertEqual(lib.overlap_verdict(0.0, 0.0), "serial")


class Gain(unittest.TestCase):
    """How much of a faster kernel's speed-up the whole pipeline kept: 90% or more, 50-90%, less, none."""

    def sentence(self, kernel: float, pipeline: float, verdict: str) -> str:
        """gain_sentence for the kernel's and the pipeline's speed-ups, once gain_verdict named them `verdict`."""
        self.assertEqual(lib.gain_verdict(kernel, pipeline), verdict)
        return lib.gain_sentence(kernel, pipeline)

    def test_carried_over(self) -> None:
        self.assertIn("the kernel's gain carried over", self.sentence(3.0, 2.9, "carried over"))

    def test_partly(self) -> None:
        self.assertIn("part of the kernel's gain reached it", self.sentence(3.0, 2.2, "partly"))

    def test_little(self) -> None:
        self.assertEqual(self.sentence(10.2, 1.9, "little"),
                         "only 1.9× faster: less than 50% of the kernel's gain reached it")

    def test_slower(self) -> None:
        self.assertIn("SLOWER (0.90×)", self.sentence(3.0, 0.9, "slower"))

    def test_the_share_kept_is_of_the_gain_above_one(self) -> None:
        # A 2x kernel and a 1.4x pipeline: 0.4 of the kernel's gain of 1.0 kept, under half.
        self.assertEqual(lib.gain_verdict(2.0, 1.4), "little")

    def test_the_kernel_is_not_faster(self) -> None:
        self.assertIn("the kernel alone is not faster", self.sentence(0.8, 1.2, "kernel not faster"))


class Spread(unittest.TestCase):
    """Pipelines of one regime end at the same rate when within 5% of each other."""

    def test_same(self) -> None:
        self.assertEqual(lib.spread_verdict([12629.0, 12773.0]), "same")
        text = lib.plateau_of_rates_sentence(["tiled", "cublas"], [12629.0, 12773.0], [20597.0, 33722.0])
        self.assertIn("the pipelines end at the same rate (within 5%) however fast the kernel", text)

    def test_differ(self) -> None:
        self.assertEqual(lib.spread_verdict([10000.0, 12000.0]), "differ")
        text = lib.plateau_of_rates_sentence(["tiled", "cublas"], [10000.0, 12000.0], [20000.0, 30000.0])
        self.assertIn("the pipelines differ by more than 5%", text)
        self.assertNotIn("same rate", text)


class StagesSentences(unittest.TestCase):
    """stages.png's caption, from its bars."""

    def test_the_article_holds(self) -> None:
        text = " ".join(lib.stages_sentences(lib.StageFigures(83.0, 31.0, 82.0, 17.5, 17.4, bound=17.3)))
        for sentence in ("Serial with pinned memory is faster than serial with pageable memory",
                         "The stream pool on pinned memory is faster than serial on pinned memory",
                         "The stream pool on pageable memory is about equal to serial on pageable memory",
                         "The stream pool takes 17.50 ms, at the pipeline bound",
                         "The graph replay takes 17.40 ms, at the pipeline bound"):
            self.assertIn(sentence, text)

    def test_the_bound_beaten_and_missed(self) -> None:
        text = " ".join(lib.stages_sentences(lib.StageFigures(pool_pinned=16.0, replay=20.0, bound=17.3)))
        self.assertIn("The stream pool takes 16.00 ms, 8% BELOW the pipeline bound", text)
        self.assertIn("The graph replay takes 20.00 ms, 16% above the pipeline bound", text)

    def test_streams_that_do_not_help(self) -> None:
        text = " ".join(lib.stages_sentences(lib.StageFigures(serial_pinned=31.0, pool_pinned=33.0)))
        self.assertIn("The stream pool on pinned memory is slower than serial on pinned memory", text)

    def test_missing_bars_say_nothing(self) -> None:
        self.assertEqual(lib.stages_sentences(lib.StageFigures(serial_pageable=83.0)), [])
        self.assertEqual(lib.stages_sentences(lib.StageFigures(pool_pinned=16.0)), [])  # no bound: nothing to say


class DigestDecisions(unittest.TestCase):
    A, B = "0123456789abcdef", "fedcba9876543210"

    def test_agreement(self) -> None:
        self.assertEqual(lib.digest_agreement([]), "none")
        self.assertEqual(lib.digest_agreement([self.A]), "single")
        self.assertEqual(lib.digest_agreement([self.A, self.A]), "agree")
        self.assertEqual(lib.digest_agreement([self.A, self.B, self.A]), "differ")

    def test_comparison(self) -> None:
        self.assertEqual(lib.digest_comparison(self.A, self.A, []), "equal")
        self.assertEqual(lib.digest_comparison(self.A, self.B, []), "DIFFERENT")
        self.assertEqual(lib.digest_comparison(self.A, self.B, ["seed"]), "different-config")
        self.assertEqual(lib.digest_comparison(self.A, self.A, ["seed"]), "equal")
        self.assertIsNone(lib.digest_comparison(self.A, None, []))
        self.assertIsNone(lib.digest_comparison(None, None, []))

    def test_config_difference(self) -> None:
        config = {"seed": 1, "m": 1024, "n": 1024, "k": 512, "batches": 100, "streams": 8}
        self.assertEqual(lib.config_difference(config, {**config, "streams": 2}), [])
        self.assertEqual(lib.config_difference(config, {**config, "seed": 2, "k": 256}), ["seed", "k"])
        without = dict(config)
        del without["seed"]
        self.assertEqual(lib.config_difference(without, without), ["seed"])


class DriverAndDates(unittest.TestCase):
    """The driver from device.driver, the dates from measured_at; "not recorded" where a result lacks them."""

    def test_driver(self) -> None:
        self.assertEqual(lib.describe_driver({"driver": "580.159.04"}), "driver 580.159.04")
        self.assertEqual(lib.describe_driver({"driver": None}), "driver version not recorded")
        self.assertEqual(lib.describe_driver({}), "driver version not recorded")
        self.assertEqual(lib.describe_device({"name": "GPU", "driver_version": 12080}),
                         "GPU, driver version not recorded, CUDA driver API 12.8")

    def test_dates(self) -> None:
        def with_date(name: str, when: str | None) -> lib.Result:
            doc = {"measured_at": when} if when else {}
            return lib.Result(Path(name), doc)
        self.assertEqual(lib.measured_dates([with_date("a.json", "2026-12-01T10:22:33Z")]), "2026-12-01T10:22:33Z")
        self.assertEqual(lib.measured_dates([with_date("b.json", "2026-12-01T11:00:00Z"),
                                             with_date("a.json", "2026-12-01T10:22:33Z")]),
                         "2026-12-01T10:22:33Z to 2026-12-01T11:00:00Z")
        self.assertEqual(lib.measured_dates([with_date("a.json", "2026-12-01T10:22:33Z"), with_date("b.json", None)]),
                         "2026-12-01T10:22:33Z; date not recorded in b.json")
        self.assertEqual(lib.measured_dates([with_date("a.json", None)]),
                         "date not recorded (no result has measured_at)")


# --- the sentences of report.md, on synthetic runs -------------------------------------

def synthetic_suite(pool_ms: float, bound_ms: float, replay_ms: float, sweep: list[tuple[int, float]]) -> dict:
    """01 pageable and pinned, 03 with its sweep and bound, 04 with its replay and stream pool."""
    def serial(memory: str, ms: float) -> dict:
        return result("01_serial_baseline", {**ARTICLE, "host_memory": memory, "seed": 1},
                      [measurement("serial", ms, params={"host_memory": memory}, gflops=1000.0)])
    pool = result("03_stream_pool_gemm", {**ARTICLE, "host_memory": "pinned", "seed": 1, "kernel": "naive"},
                  [measurement("serial", 80.0, params={"host_memory": "pageable"}, gflops=1000.0),
                   measurement("serial", 31.0, params={"host_memory": "pinned"}, gflops=3000.0),
                   measurement("stream_pool", pool_ms, params={"host_memory": "pinned", "order": "depth_first",
                                                               "streams": 8, "sweep": False}, gflops=6000.0),
                   *(measurement("stream_pool", ms, params={"host_memory": "pinned", "order": "depth_first",
                                                            "streams": s, "sweep": True}, gflops=6000.0)
                     for s, ms in sweep)],
                  {"pipeline_bound_ms": bound_ms, "limited_by": "kernels"})
    graph = result("04_graph_capture_gemm", {**ARTICLE, "host_memory": "pinned", "seed": 1},
                   [measurement("capture", 0.6, verified=None), measurement("instantiate", 0.7, verified=None),
                    measurement("graph_replay", replay_ms, gflops=6000.0),
                    measurement("stream_pool", pool_ms, gflops=6000.0)])
    return {"01_serial_baseline.json": serial("pageable", 83.0),
            "01_serial_baseline-pinned.json": serial("pinned", 31.0),
            "03_stream_pool_gemm.json": pool, "04_graph_capture_gemm.json": graph}


class CaptionsInReport(unittest.TestCase):
    """report.md's plot captions and section sentences follow the figures, in both directions."""

    def report(self, **figures) -> str:
        require_matplotlib(self)
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        directory = write_folder(Path(tmp.name), synthetic_suite(**figures))
        proc = run_report(directory)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        return (directory / "report.md").read_text()

    def test_where_the_article_holds(self) -> None:
        report = self.report(pool_ms=17.5, bound_ms=17.3, replay_ms=17.4,
                             sweep=[(1, 31.0), (2, 17.6), (4, 17.5), (8, 17.5)])
        stages = section(report, "### The same work, stage by stage")
        self.assertIn("The stream pool takes 17.50 ms, at the pipeline bound of 17.30 ms", stages)
        self.assertNotIn("BELOW", stages)
        sweep = section(report, "### Stream-count sweep (03)")
        self.assertIn("The time stops improving at 2 streams", sweep)
        graph = section(report, "### Graph costs (04)")
        self.assertIn("graph replay is about equal to the stream pool (ratio 0.99, within ±3%)", graph.lower())

    def test_where_it_does_not(self) -> None:
        report = self.report(pool_ms=15.0, bound_ms=17.3, replay_ms=19.0,
                             sweep=[(1, 31.0), (2, 24.0), (4, 19.0), (8, 15.0)])
        stages = section(report, "### The same work, stage by stage")
        self.assertIn("The stream pool takes 15.00 ms, 13% BELOW the pipeline bound of 17.30 ms: it beat the bound",
                      stages)
        self.assertIn("The graph replay takes 19.00 ms, 10% above the pipeline bound", stages)
        self.assertNotIn("lands at the pipeline bound", report)
        sweep = section(report, "### Stream-count sweep (03)")
        self.assertIn("still improves up to the largest pool tried (8 streams", sweep)
        self.assertNotIn("stops improving", sweep)
        graph = section(report, "### Graph costs (04)")
        self.assertIn("graph replay is slower than the stream pool (ratio 1.27", graph.lower())

    def test_the_timelines_say_what_their_spans_show(self) -> None:
        require_matplotlib(self)
        with tempfile.TemporaryDirectory() as tmp:
            for name in ("01_serial_baseline.json", "01_serial_baseline.trace.json", "03_stream_pool_gemm.json",
                         "03_stream_pool_gemm.trace.json"):
                shutil.copy(DATA / name, Path(tmp) / name)
            proc = run_report(tmp)
            self.assertEqual(proc.returncode, 0, proc.stderr)
            report = (Path(tmp) / "report.md").read_text()
        self.assertIn("No two operations ran at the same time", section(report, "### Timeline: 01_serial_baseline"))
        self.assertIn("Two or more operations ran at once", section(report, "### Timeline: 03_stream_pool_gemm"))


if __name__ == "__main__":
    unittest.main()
