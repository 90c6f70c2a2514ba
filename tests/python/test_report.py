"""report.md and the plots on the samples: each table's figures as the JSON
gives them (medians, % of its own bound, ratios of two medians), each plot a
real picture, and where report.md goes (never into the sample data, never
half-written); a failed verification or outputs that differ exit 1."""

from __future__ import annotations

import re
import struct
from pathlib import Path

import pytest
from conftest import (SAMPLES, SUITE_PLOTS, clean, measurement, one_line_error, result, results_in, run_report,
                      section, table_after, write_folder)

SLIDE_PIXELS = (1400, 700)  # 16:9 at 150 dpi, cut to fit: every plot is at least this large


@pytest.fixture(scope="module")
def text(samples_report: tuple[Path, object]) -> str:
    out, proc = samples_report
    clean(proc)
    return (out / "report.md").read_text(encoding="utf-8")


def ms(value: float) -> str:
    return f"{value:.2f}" if value >= 1 else f"{value:.3g}"


def test_the_header_names_the_device_the_dates_and_every_run(text: str) -> None:
    docs = results_in(SAMPLES)
    device = next(iter(docs.values()))["device"]
    header = text.split("\n## ")[0]
    assert f"driver {device['driver']}" in header
    assert "CUDA runtime 13.0" in header
    stamps = sorted(doc["measured_at"] for doc in docs.values())
    assert f"measured (UTC): {stamps[0]} to {stamps[-1]}" in header
    assert all(name in header for name in docs)


def test_the_main_table_has_each_whole_workload_measurement_with_its_own_figures(text: str) -> None:
    rows = {(r[0], r[1]): r for r in table_after(text, "## The workload, every way")}
    pool = next(m for m in results_in(SAMPLES)["03_stream_pool_gemm"]["measurements"]
                if m["name"] == "stream_pool" and not m["params"]["sweep"])
    serial = next(m for m in results_in(SAMPLES)["03_stream_pool_gemm"]["measurements"]
                  if m["name"] == "serial" and m["params"]["host_memory"] == "pageable")
    row = rows[("03_stream_pool_gemm", "stream_pool (8 streams, pinned, depth_first)")]
    assert row[2:] == [ms(pool["median_ms"]), f"{serial['median_ms'] / pool['median_ms']:.2f}×",
                       f"{pool['bound']['percent_of_bound']:.0f}%", "yes"]
    # 04's replay has no serial time of its own: against 01's, across runs (†); no bound of its own: "-".
    replay = rows[("04_graph_capture_gemm", "graph_replay (100 batches, 8 streams, per-batch)")]
    assert replay[3].endswith("× †") and replay[4] == "-"
    assert not any("resource_alone" in r[1] or "sweep" in r[1] for r in rows.values())


def test_the_regime_table_has_one_row_per_kernel_in_the_registrys_order(text: str) -> None:
    rows = table_after(text, "## Regimes: the kernel alone vs the whole pipeline")
    assert [r[0] for r in rows] == ["naive", "tiled", "cublas", "cublas+tf32"]
    cublas = results_in(SAMPLES)["03_stream_pool_gemm-kernels-cublas"]
    pool = next(m for m in cublas["measurements"] if m["name"] == "stream_pool")
    assert rows[2][3] == ms(pool["median_ms"]) and rows[2][9] == f"{pool['bound']['percent_of_bound']:.1f}"
    assert rows[2][8] == f"{pool['bound']['limited_by']} ({pool['bound']['regime']})"
    assert "From 03_stream_pool_gemm-kernels-naive.json" in section(text, "## Regimes: the kernel alone vs the "
                                                                          "whole pipeline")


def test_copies_sweeps_graph_costs_and_the_regime_map(text: str) -> None:
    sweep = results_in(SAMPLES)["02_pinned_vs_pageable-sweep"]
    copies = table_after(text, "### Copy bandwidth, GB/s (02_pinned_vs_pageable-sweep)")
    assert {(r[0], r[1]) for r in copies} == {(m["params"]["host_memory"], m["params"]["direction"])
                                              for m in sweep["measurements"] if m["name"] == "copy"}
    lesson = results_in(SAMPLES)["03_stream_pool_gemm"]
    points = [m for m in lesson["measurements"] if m["name"] == "stream_pool" and m["params"]["sweep"]]
    heading = next(line for line in text.splitlines() if line.startswith("### Stream-count sweep (03_stream_pool_gemm:"))
    assert [r[0] for r in table_after(text, heading)] == [str(m["params"]["streams"]) for m in points]
    assert section(text, "### Graph costs (04_graph_capture_gemm-costs)")
    rm = results_in(SAMPLES)["04_graph_capture_gemm-regime-map"]["regime_map"]
    grid = table_after(text, "## Regime map: graph replay vs stream pool (04_graph_capture_gemm-regime-map)")
    assert [r[1:] for r in grid] == [[next(c["text"] for c in rm["cells"] if c["m"] == m and c["batches"] == b)
                                      for b in rm["batches"]] for m in rm["sizes"]]
    assert all(c["text"] in text for c in rm["crossover"])  # the stage's words for where the graph starts to win


def test_after_the_article_a_row_per_figure_with_the_ratio_of_the_two(text: str) -> None:
    rows = table_after(text, "## After the article: CUDA's newer controls over streams and graphs")
    assert {r[0] for r in rows} == {"batched-copies", "graph-priorities", "partition", "device-launch", "conditional",
                                    "pdl", "memory-nodes", "startup", "launch-anatomy", "rebind"}
    pdl = results_in(SAMPLES)["04_graph_capture_gemm-pdl"]["pdl"]["gemm"]["ways"]
    row = next(r for r in rows if r[1].startswith("gemm chain"))
    assert row[6] == f"{pdl['stream_pdl']['per_kernel_us'] / pdl['stream_plain']['per_kernel_us']:.2f}×"


def test_after_the_article_rows_of_the_newer_controls_from_their_sections(tmp_path: Path) -> None:
    """batched-copies (02), graph-priorities and partition (03) each add their row, from their own section."""
    docs = {
        "02_pinned_vs_pageable-batched-copies": result(
            "02_pinned_vs_pageable", "batched-copies",
            batched_copies={"per_copy_issue_us": {"pinned": {"memcpy_async": 3.0, "batch": 1.5},
                                                  "pageable": {"memcpy_async": 9.0, "batch": 8.0}}}),
        "03_stream_pool_gemm-graph-priorities": result(
            subcommand="graph-priorities",
            graph_priorities={"median_us": {"graph_plain": 200.0, "graph_node_priority": 25.0}}),
        "04_graph_capture_gemm-rebind": result(
            "04_graph_capture_gemm", "rebind",
            # --rebind-kib 262144,64: the sizes in the order given, the largest first.
            rebind={"sizes": [{"input_bytes": 268435456, "ways": {"copy_in": {"wall": {"median_ms": 20.0}},
                                                                  "device_update": {"wall": {"median_ms": 5.0}}}},
                              {"input_bytes": 65536, "ways": {"copy_in": {"wall": {"median_ms": 9.0}},
                                                              "device_update": {"wall": {"median_ms": 1.0}}}}]}),
        "03_stream_pool_gemm-partition": result(
            subcommand="partition",
            partition={"first_partition": {"short_sms": 8, "median_us": 6.0, "priority_median_us": 24.0}}),
    }
    folder = write_folder(tmp_path / "r", docs)
    clean(run_report(folder, "--no-plots"))
    rows = {r[0]: r for r in table_after((folder / "report.md").read_text(encoding="utf-8"),
                                         "## After the article: CUDA's newer controls over streams and graphs")}
    assert set(rows) == {"batched-copies", "graph-priorities", "partition", "rebind"}
    assert rows["rebind"][3:] == ["20.00 ms", "device-updated nodes", "5.00 ms", "0.25×"]
    assert rows["batched-copies"][2:] == ["a cudaMemcpyAsync call per copy", "3.00 µs", "one cudaMemcpyBatchAsync call",
                                         "1.50 µs", "0.50×"]
    assert rows["graph-priorities"][3:] == ["200 µs", "with cudaGraphInstantiateFlagUseNodePriority", "25.0 µs",
                                           "0.12×"]
    assert rows["partition"][2:] == ["the greatest stream priority", "24.0 µs", "a green context of 8 SMs", "6.00 µs",
                                    "0.25×"]


def test_every_plot_is_a_real_png_with_its_caption(samples_report: tuple[Path, object], text: str) -> None:
    out, _ = samples_report
    pictures = [*SUITE_PLOTS, "regime_map_04_graph_capture_gemm-regime-map.png",
                *(f"timeline_{p.name.removesuffix('.trace.json')}.png" for p in SAMPLES.glob("*.trace.json"))]
    for name in pictures:
        data = (out / name).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n", name
        width, height = struct.unpack(">II", data[16:24])
        assert width >= SLIDE_PIXELS[0] and height >= SLIDE_PIXELS[1] / 2, name
        assert f"]({name})" in section(text, "## Plots")
    assert "_Not drawn" not in text
    assert sorted(p.name for p in out.glob("*.png")) == sorted(pictures)


def test_the_summary_and_the_sample_data_left_alone(samples_report: tuple[Path, object]) -> None:
    out, proc = samples_report
    lines = proc.stdout.splitlines()
    assert lines[-1] == f"wrote {out / 'report.md'} and {len(list(out.glob('*.png')))} plots"
    assert "verified: every variant that has an output to check" in lines
    assert not (SAMPLES / "report.md").exists() and not list(SAMPLES.glob("*.png"))


def test_the_sample_data_and_files_git_tracks_are_refused_without_out(tmp_path: Path) -> None:
    assert "the repository's sample data, not a place to write a report into; pass --out DIR" in \
        one_line_error(run_report(SAMPLES))
    assert "the repository's sample data" in one_line_error(run_report(SAMPLES.parents[2] / "scripts"))


def test_without_out_the_report_goes_into_the_results_folder(tmp_path: Path) -> None:
    folder = write_folder(tmp_path / "r", {"01_serial_baseline": result("01_serial_baseline")})
    clean(run_report(folder, "--no-plots"))
    assert sorted(p.name for p in folder.iterdir()) == ["01_serial_baseline.json", "report.md"]
    assert "## Plots" not in (folder / "report.md").read_text()


def test_a_run_that_did_not_verify_or_outputs_that_differ_exit_1(tmp_path: Path) -> None:
    bad = result(verification={"passed": False, "failure": "batch 3, row 1, column 2: expected 4, got NaN"},
                 measurements=[measurement("serial", 30.0, verified=False)])
    differ = result(measurements=[measurement("serial", 30.0, digest="0" * 16),
                                  measurement("stream_pool", 16.0, digest="1" * 16)])
    for name, doc, words in (("bad", bad, "VERIFICATION FAILED in 03_stream_pool_gemm.json: batch 3"),
                             ("differ", differ, "OUTPUTS DIFFER in 03_stream_pool_gemm.json")):
        folder = write_folder(tmp_path / name, {"03_stream_pool_gemm": doc})
        proc = clean(run_report(folder, "--no-plots"), 1)
        assert re.search(rf"verified: NO, \d+ problems?: see Verification in {re.escape(str(folder))}/report.md",
                         proc.stdout)
        assert words in section((folder / "report.md").read_text(), "## Verification")


def test_a_folder_of_one_run_skips_the_other_plots_with_the_reason(tmp_path: Path) -> None:
    folder = write_folder(tmp_path / "r", {"01_serial_baseline": result("01_serial_baseline")})
    (folder / "stages.png").write_text("a picture of an earlier report")
    clean(run_report(folder))
    plots = section((folder / "report.md").read_text(), "## Plots")
    assert plots.count("_Not drawn: ") == len(SUITE_PLOTS) + 1  # and the timelines
    assert not (folder / "stages.png").exists(), "a picture left from an earlier report would contradict the note"
