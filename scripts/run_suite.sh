#!/usr/bin/env bash
# The suite as one command: set up, build if needed, run every stage at the
# article's sizes, and write a report with plots.
#
# Usage:  scripts/run_suite.sh [results-dir]
#   results-dir: the first argument, else $CSG_RESULTS_DIR, else
#                results/<UTC timestamp> under the repository root. It is
#                made when the first stage starts, and removed again if it is
#                still empty at the end (no device: nothing is left behind).
#
# Steps (each announced on stderr with the seconds elapsed so far):
#   0) set-up (scripts/setup.sh): installs what is missing (the C++ packages,
#      cmake, ninja, matplotlib), with apt-get as root or through sudo, or pip
#      into .venv/; where it can't, one line names the command, exit 77
#   1) configure the "default" preset (Release) if build/default has no cache
#      yet, then cmake --build --preset default: incremental, so an up-to-date
#      build costs a second and rebuilds nothing
#   2) the runs below, each with --json <results>/<run>.json, its printed
#      tables in <run>.log; a stage whose --help lists --trace also writes its
#      timeline to <results>/<run>.trace.json (the run at defaults only)
#        01_serial_baseline            the article's first timeline (pageable)
#        01_serial_baseline-pinned     the same with pinned host memory
#        02_pinned_vs_pageable --quick bandwidth per host memory kind, 4 sizes
#        03_stream_pool_gemm           the stream pool, pool-size sweep, bound,
#                                      1 to 1,024 streams, priorities, contention
#        03_stream_pool_gemm-pageable  the pool on pageable memory (no overlap)
#        04_graph_capture_gemm         the graph: costs, replay, CPU issue time,
#                                      changing shapes, launch costs
#        04_graph_capture_gemm-map     --regime-map: pool vs graph over sizes x batches
#      and the same pipeline with faster GEMM kernels (the kernel gets 3-10x
#      faster, the pipeline about 2x, because PCIe then sets the bound):
#        01_serial_baseline-tiled      serial, the tiled shared-memory kernel
#        01_serial_baseline-cublas     serial, cublasSgemm
#        03_stream_pool_gemm-tiled     the pool and engine streams, tiled kernel
#        03_stream_pool_gemm-cublas    the same with cublasSgemm (FP32)
#        03_stream_pool_gemm-cublas_tf32  the same on the tensor cores (--tf32)
#        04_graph_capture_gemm-cublas  the graph with cuBLAS calls captured in it
#      A stage not built yet is skipped with a note. No CUDA device (a stage
#      exits 77): stop at once, exit 77, and remove that run's files.
#   3) python3 scripts/report.py <results>: report.md and PNG plots, from the
#      JSON only.
#
# Exit status: 0 every run verified and the report has every plot; 1 a stage
# failed or did not verify, or the report could not be written whole;
# 77 no CUDA device, or a tool missing that set-up could not install;
# 2 bad usage.
set -euo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=scripts/results_dir.sh
source "$repo_root/scripts/results_dir.sh"  # and setup.sh
csg_start "${BASH_SOURCE[0]}" "$@"  # --help and bad usage exit here; sets $results, cd to $repo_root
# Whatever ends the run, a results folder this run made and left empty goes.
trap 'csg_results_remove_if_empty "$results"' EXIT

preset=default
bin_dir="$repo_root/build/$preset/bin"
jobs="$(nproc 2>/dev/null || echo 2)"

# One "name|arguments" entry per run. The binary is the name up to the first
# "-"; a name without "-" is the stage at its defaults (and may write a trace).
# The variants measure one thing each: they leave out the stage's side
# experiments, which its run at the defaults already measures once.
only03="--count-sweep off --priorities off --contention off"
only04="--launch-chains off --shape-requests 0 --node-updates off"
runs=(
  "01_serial_baseline|"
  "01_serial_baseline-pinned|--host-memory pinned"
  "02_pinned_vs_pageable|--quick"
  "03_stream_pool_gemm|"
  "03_stream_pool_gemm-pageable|--host-memory pageable --streams-sweep off $only03"
  "04_graph_capture_gemm|"
  # Where graphs win on the article's own work: sizes x batch counts (report.md, regime_map.png).
  "04_graph_capture_gemm-map|--regime-map"
  # The regimes: the kernel-only and end-to-end GFLOP/s of each kernel (report.md, regimes.png).
  # No pool-size sweep for these: the plateau is the point of 03's default run.
  "01_serial_baseline-tiled|--kernel tiled"
  "01_serial_baseline-cublas|--kernel cublas"
  "03_stream_pool_gemm-tiled|--kernel tiled --streams-sweep off $only03"
  "03_stream_pool_gemm-cublas|--kernel cublas --streams-sweep off $only03"
  "03_stream_pool_gemm-cublas_tf32|--kernel cublas --tf32 --streams-sweep off $only03"
  "04_graph_capture_gemm-cublas|--kernel cublas $only04"
)

step() { printf '[%5ds] %s\n' "$SECONDS" "$*" >&2; }
failures=()
fail() {
  failures+=("$1")
  echo "!!! $1" >&2
}

step "results will go to $results"

# --- 0) set-up ------------------------------------------------------------------------
setup_status=0
csg_setup build python || setup_status=$?
if [[ $setup_status -ne 0 ]]; then
  exit "$setup_status"  # its one line says what to run
fi

# --- 1) build ---------------------------------------------------------------------
if [[ ! -f build/$preset/CMakeCache.txt ]]; then
  step "1) configuring: cmake --preset $preset (Release; once)"
  if ! cmake --preset "$preset" >&2; then
    echo "run_suite.sh: configuring failed (see above); README lists what to install" >&2
    exit 1
  fi
fi
step "1) building: cmake --build --preset $preset -j $jobs (only what changed)"
if ! cmake --build --preset "$preset" -j "$jobs" >&2; then
  echo "run_suite.sh: the build failed (see above)" >&2
  exit 1
fi

# --- 2) the stages ------------------------------------------------------------------
count=${#runs[@]}
index=0
started=0
for run in "${runs[@]}"; do
  index=$((index + 1))
  name="${run%%|*}"
  read -r -a args <<<"${run#*|}"
  if ! csg_run_files "$name" "$bin_dir" "$results"; then  # sets binary, json and log
    step "2) ($index/$count) $name: skipped, ${name%%-*} is not built (that stage is not in this checkout)"
    continue
  fi
  trace="$results/$name.trace.json"
  csg_results_create "$results"
  started=$((started + 1))
  rm -f "$json" "$trace"  # never report a stale result
  if [[ $name != *-* ]]; then
    # Captured whole, not piped into grep -q: an early grep exit could kill the stage with SIGPIPE.
    help_text="$("$binary" --help 2>/dev/null || true)"
    if [[ $help_text == *--trace* ]]; then
      args+=(--trace "$trace")
    fi
  fi
  step "2) ($index/$count) $name: ${binary#"$repo_root"/}${args[*]:+ ${args[*]}} --json $json"
  run_start=$SECONDS
  # The stage's tables go to the log; its progress lines (stderr) to the log
  # and to the terminal, so a long run is never silent.
  # Both writers append (O_APPEND), so their lines interleave and none is overwritten.
  : >"$log"
  status=0
  # shellcheck disable=SC2094
  "$binary" "${args[@]}" --json "$json" 2>&1 >>"$log" | tee -a "$log" >&2 || status=$?
  if [[ $status -eq 77 ]]; then
    # Nothing was measured: its log holds only the message already shown above.
    rm -f "$log" "$json" "$trace"
    echo "run_suite.sh: no CUDA device (the message above is ${name%%-*}'s); nothing was measured, nothing kept." >&2
    exit 77
  elif [[ $status -ne 0 ]]; then
    fail "$name exited with $status (1: a CUDA error or a batch that did not verify; 2: bad usage or not enough memory); see $log"
  elif [[ ! -s $json ]]; then
    fail "$name exited 0 but wrote no $json"
  else
    step "    $name done in $((SECONDS - run_start)) s"
  fi
done

# --- 3) the report --------------------------------------------------------------------
if [[ $started -eq 0 ]]; then
  fail "no stage ran (none is built in $bin_dir), so there is nothing to report"
else
  # python3 is the interpreter set-up checked for matplotlib (.venv's, where it made one).
  step "3) python3 scripts/report.py $results"
  report_status=0
  python3 scripts/report.py "$results" || report_status=$?
  case $report_status in
    0) ;;
    1) fail "report: a measurement or a stage did not verify (see report.md)" ;;
    3) fail "report: written without plots, $(command -v python3) has no matplotlib (scripts/setup.sh installs it)" ;;
    *) fail "report.py exited with $report_status: no result JSON, or one it cannot read (message above)" ;;
  esac
fi

if [[ ${#failures[@]} -eq 0 ]]; then
  step "done: $results/report.md and its plots"
  exit 0
fi
step "done with ${#failures[@]} problem(s); results in $results"
printf '  - %s\n' "${failures[@]}" >&2
exit 1
