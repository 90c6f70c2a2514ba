#!/usr/bin/env python3
"""CPU tests of report.md's "After the article" section and after_article.png
(scripts/report.py, results_lib's after_article): stage 04's runs of CUDA's
newer graph features, one row per figure compared, the old way against the
new. Four of the runs are copies of an H200 run (fixtures_after_article/:
device-launch, conditional, pdl, memory-nodes); launch-anatomy and startup are
built here in the shape their stage writes (launch_anatomy_report.cpp's
anatomy_json, startup_report.cpp's startup_json). Every expected figure is
computed from those documents, never hard-coded.

    cd tests/python && python3 -m unittest -v test_after_article
"""

from __future__ import annotations

import copy
import unittest
from pathlib import Path
from typing import Any

from report_fixtures import (MIN_PNG_BYTES, PNG_SIGNATURE, assert_ran_cleanly, class_temporary_dir, load,
                             markdown_table, measurement, read_report, require_matplotlib, result, run_report,
                             section, temporary_dir, write_folder)

import results_lib as lib

HERE = Path(__file__).resolve().parent
FIXTURES = HERE / "fixtures_after_article"
STAGE04 = "04_graph_capture_gemm"
HEADING = "## After the article: CUDA's newer graph features"
PLOT = "after_article.png"
SUBCOMMANDS = ("device-launch", "conditional", "pdl", "memory-nodes", "startup", "launch-anatomy")
ROWS_PER_FEATURE = {"device-launch": 2, "conditional": 3, "pdl": 2, "memory-nodes": 2, "startup": 1,
                    "launch-anatomy": 2}
# The table's columns.
FEATURE, FIGURE, OLD_WAY, OLD, NEW_WAY, NEW, RATIO, CONCLUSION = range(8)


def file_of(subcommand: str) -> str:
    return f"{STAGE04}-{subcommand}.json"


def sample(subcommand: str) -> dict[str, Any]:
    return load(FIXTURES / file_of(subcommand))


def device() -> dict[str, Any]:
    return sample("pdl")["device"]


def startup_doc(totals: dict[int, float] | None = None, budget: float = 500.0,
                first_over: Any = "computed") -> dict[str, Any]:
    """A startup run: bucket count -> the shared pool's total startup ms (the separate buffers' 1.5x it); the
    stage's first_over_budget from the totals unless given."""
    totals = totals or {8: 21.0, 32: 84.0, 128: 530.0, 256: 910.0}
    rows, measurements = [], []
    for buckets, total in sorted(totals.items()):
        cells = {}
        for layout, ms in (("shared", total), ("separate", 1.5 * total)):
            cells[layout] = {"capture_ms": 0.4 * ms, "instantiate_ms": 0.5 * ms, "upload_ms": 0.1 * ms,
                             "total_ms": ms, "total_min_ms": ms, "total_max_ms": ms, "rounds": 1,
                             "ms_per_graph": ms / buckets, "us_per_batch": 20.0, "launches_ms": 2.0,
                             "buffer_bytes": 1 << 24, "verified": True, "batches_checked": 256}
            params = {"buckets": buckets, "layout": layout, "batches_captured": 128 * (buckets + 1)}
            measurements.append(measurement("startup_total", ms, None, params=params))
        rows.append({"buckets": buckets, "sizes": [], "batches_captured": 128 * (buckets + 1),
                     "padding_waste": {"uniform": 0.1, "skewed": 0.2}, **cells})

    def over(scale: float) -> Any:
        return next((k for k, ms in sorted(totals.items()) if scale * ms > budget), None)

    stated = {"shared": over(1.0), "separate": over(1.5)} if first_over == "computed" else {"shared": first_over,
                                                                                             "separate": None}
    section = {"bucket_layout": "even", "bucket_counts": sorted(totals), "max_batches": 256, "size": 64,
               "rounds": 1, "budget_ms": budget, "budget_layout": "shared", "requests": 10000,
               "mixes": {"uniform": {"text": "b uniform in 1..256", "mean_batches": 128.5},
                         "skewed": {"text": "b = ceil(256 * u^3), u uniform in (0, 1]", "mean_batches": 64.2}},
               "rows": rows, "first_over_budget": stated, "most_within_budget": {"shared": None, "separate": None},
               "conclusion": ["the budget sentence", "the parts sentence", "the memory sentence"]}
    return result(STAGE04, {"batches": 256, "m": 64, "n": 64, "k": 64, "kernel": "naive"}, measurements,
                  subcommand="startup", device=device(), measured_at="2026-12-02T13:20:00Z", startup=section)


def anatomy_doc(article_us: float = 120.0, flag_us: float = 26.0, q1: float = 110.0, q3: float = 135.0,
                per_node_us: float = 0.0016, fixed_us: float = 3.1, flag_gpu_ms: float = 16.0) -> dict[str, Any]:
    """A launch-anatomy run: the article's graph launched as the article builds it (median, middle half) and
    with the device-launch flag; a straight line of kernel nodes fitted at `fixed_us` + `per_node_us` a node."""
    variants = {"article": article_us, "slots": article_us * 0.98, "breadth_first": article_us * 1.01,
                "registered": article_us * 1.02, "device_launch_flag": flag_us}
    article = [{"variant": v, "launch_us": us, "launch_q1_us": q1 if v == "article" else us * 0.95,
                "launch_q3_us": q3 if v == "article" else us * 1.05,
                "gpu_ms": flag_gpu_ms if v == "device_launch_flag" else 16.0, "verified": True}
               for v, us in variants.items()]
    fits = [{"kind": kind, "shape": shape, "host_fixed_us": fixed_us * (1 if kind == "kernel" else 2),
             "host_per_node_us": per_node_us if kind == "kernel" else 0.9, "host_r2": 0.99,
             "gpu_fixed_us": 5.0, "gpu_per_node_us": 1.2 if shape == "line" else 0.3}
            for kind in ("kernel", "memcpy") for shape in ("fork", "line")]
    section = {"nodes": [8, 80, 800], "chains": 8, "repeats": 21, "nvidia": {"fixed_us": 2.5, "per_node_us": 0.001},
               "launches": [], "fits": fits, "article": article, "chains_checked": True,
               "kinds": ["kernel", "memcpy"]}
    measurements = [measurement("anatomy_article_launch_cpu", a["launch_us"] / 1000.0, None,
                                params={"variant": a["variant"], "batches": 100}) for a in article]
    return result(STAGE04, {"batches": 100, "m": 1024, "n": 1024, "k": 512, "kernel": "naive"}, measurements,
                  subcommand="launch-anatomy", device=device(), measured_at="2026-12-02T13:21:00Z",
                  launch_anatomy=section)


def all_six() -> dict[str, dict[str, Any]]:
    files = {file_of(s): sample(s) for s in ("device-launch", "conditional", "pdl", "memory-nodes")}
    files[file_of("startup")] = startup_doc()
    files[file_of("launch-anatomy")] = anatomy_doc()
    return files


def after_rows(report: str) -> list[list[str]]:
    """The rows of the section's own table; none where the section has no table (or is not there)."""
    if HEADING not in report:
        return []
    body = section(report, HEADING).split("<details>")[0]  # not the appendix where nothing comes between
    return markdown_table(f"{HEADING}\n{body}", HEADING) if "\n|" in body else []


def figure_text(value: float, unit: str) -> str:
    return lib.after_article_figure(value, unit)


def expected_rows(files: dict[str, dict[str, Any]]) -> list[tuple[str, float, float, str, str]]:
    """(feature, old, new, unit, the run's conclusion id or "") for every row, in the table's order, read off the
    documents here, independently of results_lib."""
    rows = []
    if file_of("device-launch") in files:
        dl = files[file_of("device-launch")]["device_launch"]
        for graph, conclusion in (("empty", "launches"), ("work", "work")):
            ways = dl["per_launch_us"][graph]
            rows.append(("device-launch", ways["host"], min(ways["tail"], ways["fire_and_forget"]), "µs",
                         dl["conclusions"][conclusion]))
    if file_of("conditional") in files:
        loops = files[file_of("conditional")]["conditional"]["loops"]
        for body in ("empty", "gemm"):
            fits = loops[body]["fits"]
            rows.append(("conditional", fits["host_decided"]["per_iteration_us"],
                         fits["while_node"]["per_iteration_us"], "µs",
                         loops[body]["while_node_versus"]["host_decided"]))
        # And where the WHILE node costs more: against the host launching a one-body graph N times.
        fits = loops["empty"]["fits"]
        rows.append(("conditional", fits["graph_loop"]["per_iteration_us"], fits["while_node"]["per_iteration_us"],
                     "µs", loops["empty"]["while_node_versus"]["graph_loop"]))
    if file_of("pdl") in files:
        pdl = files[file_of("pdl")]["pdl"]
        for chain in ("gemm", "empty"):
            ways = pdl[chain]["ways"]
            rows.append(("pdl", ways["stream_plain"]["per_kernel_us"], ways["stream_pdl"]["per_kernel_us"], "µs",
                         pdl[chain]["streams"]["verdict"]))
    if file_of("memory-nodes") in files:
        doc = files[file_of("memory-nodes")]
        times = {m["name"]: m["median_ms"] for m in doc["measurements"]}
        mn = doc["memory_nodes"]
        rows.append(("memory-nodes", times["preallocated_graph_replay"], times["memory_graph_replay"], "ms",
                     mn["verdicts"]["replay"]))
        reserved = next(p["reserved_current"] for p in mn["footprint"] if p["moment"] == "replays")
        rows.append(("memory-nodes", mn["preallocated_bytes"] / 2**20, reserved / 2**20, "MiB",
                     mn["verdicts"]["footprint"]))
    if file_of("startup") in files:
        st = files[file_of("startup")]["startup"]
        totals = sorted((r["buckets"], r["shared"]["total_ms"]) for r in st["rows"])
        rows.append(("startup", totals[0][1], totals[-1][1], "ms", ""))
    if file_of("launch-anatomy") in files:
        la = files[file_of("launch-anatomy")]["launch_anatomy"]
        launch = {a["variant"]: a["launch_us"] for a in la["article"]}
        rows.append(("launch-anatomy", launch["article"], launch["device_launch_flag"], "µs", ""))
        line = next(f for f in la["fits"] if f["kind"] == "kernel" and f["shape"] == "line")
        rows.append(("launch-anatomy", la["nvidia"]["per_node_us"], line["host_per_node_us"], "µs", ""))
    return rows


def ratio_text(old: float, new: float, unit: str) -> str:
    if unit == "MiB":
        return f"{old / new:.1f}× less memory" if new <= old else f"{new / old:.1f}× more memory"
    return lib.speed_label(old, new)


class AfterArticleTable(unittest.TestCase):
    """The six runs in one folder (no other stage): the section, its rows, figures, ratios and conclusions."""

    @classmethod
    def setUpClass(cls) -> None:
        cls.files = all_six()
        cls.directory = write_folder(class_temporary_dir(cls) / "results", cls.files)
        cls.proc = run_report(cls.directory, "--no-plots")
        cls.report = read_report(cls.directory)

    def setUp(self) -> None:
        assert_ran_cleanly(self, self.proc)
        self.rows = after_rows(self.report)

    def test_one_row_per_figure_of_every_feature_and_nothing_missing(self) -> None:
        counts = {s: sum(r[FEATURE] == s for r in self.rows) for s in SUBCOMMANDS}
        self.assertEqual(counts, ROWS_PER_FEATURE)
        self.assertEqual([r[FEATURE] for r in self.rows], [e[0] for e in expected_rows(self.files)])
        body = section(self.report, HEADING)
        self.assertNotIn("Not run here:", body)
        self.assertNotIn("Left out", body)
        self.assertIn("From " + ", ".join(file_of(s) for s in SUBCOMMANDS) + ".", body)

    def test_the_figures_and_ratios_follow_from_the_json(self) -> None:
        for row, (feature, old, new, unit, _) in zip(self.rows, expected_rows(self.files)):
            with self.subTest(feature=feature, figure=row[FIGURE]):
                self.assertEqual(row[OLD], figure_text(old, unit))
                self.assertEqual(row[NEW], figure_text(new, unit))
                self.assertEqual(row[RATIO], ratio_text(old, new, unit))
                word = "faster" if new <= old else "slower"
                if unit == "MiB":
                    word = "less memory" if new <= old else "more memory"
                self.assertIn(word, row[RATIO])

    def test_a_longer_new_time_reads_slower_never_a_fraction_faster(self) -> None:
        # The H200's device launch of an empty graph took longer than the host's: "1.6× slower", not "0.6× faster".
        empty = self.rows[0]
        dl = self.files[file_of("device-launch")]["device_launch"]["per_launch_us"]["empty"]
        device_way = min(dl["tail"], dl["fire_and_forget"])
        self.assertGreater(device_way, dl["host"])
        self.assertEqual(empty[RATIO], f"{device_way / dl['host']:.1f}× slower")
        self.assertIn("fire-and-forget" if dl["fire_and_forget"] < dl["tail"] else "tail launch", empty[NEW_WAY])

    def test_each_conclusion_is_the_runs_own_id(self) -> None:
        for row, (feature, old, new, unit, verdict) in zip(self.rows, expected_rows(self.files)):
            if verdict:
                with self.subTest(feature=feature, figure=row[FIGURE]):
                    self.assertIn(f"(`{verdict}`)", row[CONCLUSION])
                    self.assertNotIn("not shown", row[CONCLUSION])

    def test_the_startup_row_names_the_bucket_count_over_the_budget(self) -> None:
        st = self.files[file_of("startup")]["startup"]
        row = next(r for r in self.rows if r[FEATURE] == "startup")
        counts = sorted(r["buckets"] for r in st["rows"])
        self.assertEqual((row[OLD_WAY], row[NEW_WAY]), (f"{counts[0]} buckets", f"{counts[-1]} buckets"))
        over = st["first_over_budget"]["shared"]
        self.assertIn(f"first over the {st['budget_ms']:.0f} ms budget at {over} buckets", row[CONCLUSION])

    def test_the_launch_anatomy_rows_apply_the_stages_rules(self) -> None:
        article, per_node = [r for r in self.rows if r[FEATURE] == "launch-anatomy"]
        # 26 µs with the flag (middle half 25-27) against 120 (110-135): clear of it and more than 10% off.
        self.assertIn("the flag makes the host's launch cheaper, beyond the noise", article[CONCLUSION])
        self.assertNotIn("but its replay", article[CONCLUSION], "the same 16 ms replay: nothing to add")
        self.assertEqual(per_node[OLD_WAY], "NVIDIA's published figure")
        self.assertIn("matches NVIDIA's figure", per_node[CONCLUSION])  # 1.6 ns and 3.1 µs: within 2x of both

    def test_a_cheaper_launch_whose_replay_is_slower_says_so(self) -> None:
        files = {file_of("launch-anatomy"): anatomy_doc(flag_gpu_ms=27.25)}
        report, _ = report_of(self, files)
        article = next(r for r in after_rows(report) if r[FEATURE] == "launch-anatomy")
        self.assertIn("but its replay took 27.25 ms on the GPU against 16.00 ms (1.7× slower)", article[CONCLUSION])

    def test_the_section_comes_after_the_graph_sections_before_the_bounds_and_the_appendix(self) -> None:
        at = self.report.index(HEADING)
        self.assertLess(self.report.index("## Verification"), at)
        self.assertLess(at, self.report.index("## Bounds and ratios measured by the stages themselves"))
        self.assertLess(at, self.report.index("<details><summary>Every measurement"))
        self.assertEqual(self.report.count(HEADING), 1)


def report_of(test: unittest.TestCase, files: dict[str, Any], plots: bool = False) -> tuple[str, Path]:
    directory = write_folder(temporary_dir(test) / "results", files)
    proc = run_report(directory, *([] if plots else ["--no-plots"]))
    assert_ran_cleanly(test, proc)
    return read_report(directory), directory


class AfterArticleMissingAndMalformed(unittest.TestCase):
    """A feature without its run is named; a malformed object, or a conclusion its own figures contradict, is
    left out with a note, never a crash."""

    def test_a_missing_feature_is_named_with_its_file(self) -> None:
        files = {file_of(s): sample(s) for s in ("device-launch", "pdl")}
        report, _ = report_of(self, files)
        rows = after_rows(report)
        self.assertEqual({r[FEATURE] for r in rows}, {"device-launch", "pdl"})
        self.assertEqual(len(rows), 4)
        missing = ["conditional", "memory-nodes", "startup", "launch-anatomy"]
        self.assertIn(f"Not run here: {', '.join(missing)} (no {', '.join(file_of(s) for s in missing)};",
                      section(report, HEADING))

    def test_a_folder_without_any_of_them_has_no_section_and_no_plot_entry(self) -> None:
        require_matplotlib(self)
        files = {f"{STAGE04}.json": result(STAGE04, {"batches": 100}, [measurement("graph_replay", 16.0)],
                                           subcommand=None, device=device())}
        report, directory = report_of(self, files, plots=True)
        self.assertIn("## Plots", report)
        self.assertNotIn(HEADING, report)
        self.assertNotIn(PLOT, report)
        self.assertFalse((directory / PLOT).exists())

    def test_a_feature_run_without_its_object_is_the_whole_section(self) -> None:
        report, _ = report_of(self, {file_of("pdl"): {k: v for k, v in sample("pdl").items() if k != "pdl"}})
        body = section(report, HEADING)
        self.assertEqual(after_rows(report), [])
        self.assertIn("_No row: no run here that the table can read (below, why)._", body)
        self.assertIn(f"pdl ({file_of('pdl')}): no `pdl` object in it", body)
        self.assertIn("Not run here: device-launch, conditional, memory-nodes, startup, launch-anatomy", body)

    def test_a_malformed_figure_leaves_its_row_out_with_a_note(self) -> None:
        files = all_six()
        bad = copy.deepcopy(files[file_of("device-launch")])
        bad["device_launch"]["per_launch_us"]["empty"]["host"] = "fast"
        files[file_of("device-launch")] = bad
        files[file_of("conditional")] = {**sample("conditional"), "conditional": [1, 2]}
        anatomy = anatomy_doc()
        del anatomy["launch_anatomy"]["nvidia"]
        files[file_of("launch-anatomy")] = anatomy
        report, _ = report_of(self, files)
        rows = after_rows(report)
        counts = {s: sum(r[FEATURE] == s for r in rows) for s in SUBCOMMANDS}
        self.assertEqual(counts, {**ROWS_PER_FEATURE, "device-launch": 1, "conditional": 0, "launch-anatomy": 1})
        body = section(report, HEADING)
        self.assertIn(f"device-launch ({file_of('device-launch')}): a row left out, "
                      'device_launch.per_launch_us.empty.host is "fast", not a positive number', body)
        self.assertIn(f"conditional ({file_of('conditional')}): no `conditional` object in it", body)
        self.assertIn("launch_anatomy.nvidia is missing", body)
        self.assertNotIn("Not run here:", body)

    def test_a_row_of_wrong_types_is_left_out_not_a_crash(self) -> None:
        files = {file_of("startup"): startup_doc()}
        files[file_of("startup")]["startup"]["rows"] = [{"buckets": 8, "shared": 5}, {"buckets": 16, "shared": 6}]
        files[file_of("pdl")] = sample("pdl")
        files[file_of("pdl")]["pdl"]["gemm"] = "no"
        report, _ = report_of(self, files)
        self.assertEqual([r[FEATURE] for r in after_rows(report)], ["pdl"])
        body = section(report, HEADING)
        self.assertIn(f"startup ({file_of('startup')}): a row left out", body)
        self.assertIn(f"pdl ({file_of('pdl')}): a row left out", body)

    def test_a_conclusion_its_figures_contradict_is_not_repeated(self) -> None:
        dl = sample("device-launch")
        dl["device_launch"]["conclusions"]["launches"] = "device_launch_faster"  # the host was faster
        files = {file_of("device-launch"): dl,
                 file_of("startup"): startup_doc(first_over=32)}  # the totals go over at 128
        report, _ = report_of(self, files)
        rows = after_rows(report)
        self.assertEqual(rows[0][CONCLUSION], "not shown: the run's `device_launch_faster` contradicts these figures")
        self.assertIn("(`work_device_faster`)", rows[1][CONCLUSION])
        self.assertIn("not shown: the run's first_over_budget (32) contradicts", rows[2][CONCLUSION])

    def test_a_run_without_a_conclusion_says_so(self) -> None:
        mn = sample("memory-nodes")
        del mn["memory_nodes"]["verdicts"]
        report, _ = report_of(self, {file_of("memory-nodes"): mn})
        self.assertEqual([r[CONCLUSION] for r in after_rows(report)], ["- (no conclusion in the run)"] * 2)


class AfterArticleDecisions(unittest.TestCase):
    """results_lib's rows on made-up documents: the stage's rules where its JSON has no verdict."""

    def rows(self, doc: dict[str, Any], name: str) -> list[lib.AfterRow]:
        return lib.after_article([lib.Result(Path(name), doc)]).rows

    def test_within_the_noise_unless_the_middle_halves_are_clear_and_the_medians_far_apart(self) -> None:
        for flag in (111.0, 134.0, 128.0):  # inside 110-135
            with self.subTest(flag=flag):
                row = self.rows(anatomy_doc(flag_us=flag), file_of("launch-anatomy"))[0]
                self.assertIn("within the noise", row.conclusion)
        # Outside the middle half but within 10% of the 120 µs median: still noise.
        row = self.rows(anatomy_doc(flag_us=131.0, q3=130.0), file_of("launch-anatomy"))[0]
        self.assertIn("within the noise", row.conclusion)
        # Outside it and 17% off, but its own middle half (133-147) overlaps 110-135: still noise.
        row = self.rows(anatomy_doc(flag_us=140.0), file_of("launch-anatomy"))[0]
        self.assertIn("within the noise", row.conclusion)
        # Its middle half 152-168 clear of 110-135, 33% off: beyond the noise.
        row = self.rows(anatomy_doc(flag_us=160.0), file_of("launch-anatomy"))[0]
        self.assertIn("dearer, beyond the noise (its middle half 152-168 µs clear of 110-135 µs", row.conclusion)
        self.assertEqual(row.ratio_text, lib.speed_label(120.0, 160.0))

    def test_nvidias_figure_matched_near_constant_and_not_constant(self) -> None:
        cases = ((0.0016, 3.1, "matches NVIDIA's figure"), (0.003, 3.1, "close to constant time"),
                 (0.0016, 9.0, "close to constant time"), (0.05, 3.1, "NOT constant time"))
        for per_node, fixed, words in cases:
            with self.subTest(per_node=per_node, fixed=fixed):
                row = self.rows(anatomy_doc(per_node_us=per_node, fixed_us=fixed), file_of("launch-anatomy"))[1]
                self.assertIn(words, row.conclusion)
                self.assertEqual(row.ratio_text, lib.speed_label(0.001, per_node))

    def test_a_fitted_slope_not_above_zero_has_no_ratio(self) -> None:
        row = self.rows(anatomy_doc(per_node_us=-0.0004), file_of("launch-anatomy"))[1]
        self.assertEqual(row.ratio_text, "-")
        self.assertFalse(row.comparable)
        self.assertIn("matches NVIDIA's figure", row.conclusion)

    def test_a_graph_that_holds_less_memory(self) -> None:
        doc = sample("memory-nodes")
        mn = doc["memory_nodes"]
        for point in mn["footprint"]:
            point["reserved_current"] = mn["preallocated_bytes"] // 2
        mn["verdicts"]["footprint"] = "smaller"
        row = self.rows(doc, file_of("memory-nodes"))[1]
        self.assertEqual(row.ratio_text, "2.0× less memory")
        self.assertEqual(row.conclusion, "the graph holds less memory than preallocating (`smaller`)")
        mn["verdicts"]["footprint"] = "larger"
        row = self.rows(doc, file_of("memory-nodes"))[1]
        self.assertEqual(row.conclusion, "not shown: the run's `larger` contradicts these figures")

    def test_within_the_budget_everywhere(self) -> None:
        row = self.rows(startup_doc({8: 10.0, 64: 90.0, 256: 400.0}), file_of("startup"))[0]
        self.assertEqual(row.conclusion, "within the 500 ms budget at every bucket count (`first_over_budget` null)")
        self.assertEqual(row.ratio_text, "40.0× slower")

    def test_a_combined_result_or_another_subcommand_is_not_a_feature_run(self) -> None:
        combined = {k: v for k, v in sample("pdl").items() if k != "subcommand"}
        costs = {**sample("pdl"), "subcommand": "costs"}
        after = lib.after_article([lib.Result(Path(f"{STAGE04}.json"), combined),
                                   lib.Result(Path(f"{STAGE04}-costs.json"), costs)])
        self.assertEqual(after.rows, [])
        self.assertEqual(after.missing, list(SUBCOMMANDS))

    def test_figures_with_their_units(self) -> None:
        self.assertEqual(lib.after_article_figure(0.001, "µs"), "0.001 µs")
        self.assertEqual(lib.after_article_figure(1.3573, "µs"), "1.36 µs")
        self.assertEqual(lib.after_article_figure(16017.1, "µs"), "16,017 µs")
        self.assertEqual(lib.after_article_figure(16.0309, "ms"), "16.03 ms")
        self.assertEqual(lib.after_article_figure(48.0, "MiB"), "48 MiB")


class AfterArticlePlot(unittest.TestCase):
    """after_article.png: drawn where the table has a row that compares two times, with a caption that says
    what each pair shows; none (and no stale one) where the table has no row."""

    @classmethod
    def setUpClass(cls) -> None:
        cls.files = all_six()
        cls.directory = write_folder(class_temporary_dir(cls) / "results", cls.files)
        cls.proc = run_report(cls.directory)
        cls.report = read_report(cls.directory)

    def setUp(self) -> None:
        require_matplotlib(self)
        assert_ran_cleanly(self, self.proc)

    def test_the_plot_is_written(self) -> None:
        path = self.directory / PLOT
        self.assertTrue(path.exists(), "no after_article.png")
        data = path.read_bytes()
        self.assertTrue(data.startswith(PNG_SIGNATURE))
        self.assertGreater(len(data), MIN_PNG_BYTES)
        self.assertIn(f"![After the article: CUDA's newer graph features]({PLOT})", self.report)

    def test_the_caption_says_each_pair_and_what_is_left_to_the_table(self) -> None:
        plots = section(self.report, "## Plots")
        caption = section(plots, "### After the article: CUDA's newer graph features")
        for feature, old, new, unit, _ in expected_rows(self.files):
            if unit != "MiB":
                self.assertIn(f"{ratio_text(old, new, unit)} than", caption)
        self.assertIn("In the table only: memory-nodes, device memory held after the replays (not a time)", caption)
        self.assertNotIn("_Not drawn", caption)

    def test_a_stale_plot_goes_when_the_table_has_no_row(self) -> None:
        directory = write_folder(temporary_dir(self) / "results",
                                 {f"{STAGE04}.json": result(STAGE04, {"batches": 100},
                                                            [measurement("graph_replay", 16.0)], device=device())})
        (directory / PLOT).write_bytes(PNG_SIGNATURE)
        proc = run_report(directory)
        assert_ran_cleanly(self, proc)
        self.assertFalse((directory / PLOT).exists())


if __name__ == "__main__":
    unittest.main()
