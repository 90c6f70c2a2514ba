#!/usr/bin/env bash
# The GPU-box check: proves on a machine with a CUDA GPU that every stage
# builds, computes the right answer for every batch, and runs at the article's
# sizes, then prints one comparison table.
#
# Usage:  scripts/gpu_box_check.sh [results-dir]
#   results-dir: the first argument, else $CSG_RESULTS_DIR, else
#                results/<UTC timestamp> under the repository root; made only
#                once the checks below pass, so a machine without a GPU gets
#                none.
#
# Before anything is built or written: no GPU (nvidia-smi -L lists none), no
# compute-sanitizer, or a tool missing that set-up (scripts/setup.sh) can't
# install: one line, exit 77.
#
# Steps (each announced on stderr with the seconds elapsed so far):
#   a) nvidia-smi -L -> nvidia-smi.txt
#   b) configure and build the "default" preset (Release)
#   c) ctest --preset default with CSG_REQUIRE_GPU=1, so a GPU test that finds
#      no device FAILS instead of skipping; no test may be skipped
#      -> ctest.log, ctest-junit.xml
#   d) every built stage (build/default/bin/NN_*) at its defaults, plus the
#      extra runs listed in extra_runs below
#      -> <run>.json (schema cuda-streams-graphs/result/v1) and <run>.log
#   e) python3 scripts/report.py --table <results-dir>: the table, read from the JSON
#
# A failing step or stage does not stop the later ones (except a failed build,
# which leaves nothing to run). Exit status: 0 only if everything passed;
# 1 something failed; 77 no GPU, or a tool missing; 2 bad usage.
set -euo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=scripts/results_dir.sh
source "$repo_root/scripts/results_dir.sh"  # and setup.sh
csg_start "${BASH_SOURCE[0]}" "$@"  # --help and bad usage exit here; sets $results, cd to $repo_root

# A check without a GPU would build for minutes and then skip or fail every
# GPU test: stop before building. The sanitizer runs are part of the check;
# without the tool CMake registers none, and the check would pass without them.
sanitizer_status=0
sanitizer="$(csg_require_gpu_and_sanitizer gpu_box_check.sh)" || sanitizer_status=$?
if [[ $sanitizer_status -ne 0 ]]; then
  exit "$sanitizer_status"
fi
gpus="$(csg_gpu_list)"
setup_status=0
csg_setup build python || setup_status=$?
if [[ $setup_status -ne 0 ]]; then
  exit "$setup_status"  # its one line says what to run
fi

preset=default
bin_dir="$repo_root/build/$preset/bin"
jobs="$(nproc 2>/dev/null || echo 2)"

# The variants below measure one thing each: they leave out the stage's own
# side experiments, which its run at the defaults already measures once.
only03="--count-sweep off --priorities off --contention off"
only04="--launch-chains off --shape-requests 0 --node-updates off"

# Runs beyond each stage's defaults, one
# "name|arguments[|expected exit[|VAR=value ...]]" entry each (an empty
# expected exit means 0; the VAR=value words go into that run's
# environment). The binary is the name up to the first "-"
# (01_serial_baseline-pinned runs 01_serial_baseline); results go to
# <name>.json and <name>.log; "{results}" in the arguments becomes the results
# folder. An entry that expects a non-zero exit (a demonstrated error) must
# exit with exactly that code. An entry whose binary is not built yet is
# skipped with a note.
extra_runs=(
  "01_serial_baseline-pinned|--host-memory pinned"  # the article's fix for step 1: pinned host memory
  "01_serial_baseline-timeline|--timeline --trace {results}/01_serial_baseline.trace.json"
  "03_stream_pool_gemm-pageable|--host-memory pageable --streams-sweep off $only03"  # the pool without pinned memory
  "03_stream_pool_gemm-timeline|--streams-sweep off --timeline --trace {results}/03_stream_pool_gemm.trace.json $only03"
  "04_graph_capture_gemm-dag|--batches 6 --streams 3 --dot {results}/04_dag.dot --repeats 3 $only04"  # a readable DAG
  "04_graph_capture_gemm-timeline|--timeline --trace {results}/04_graph_capture_gemm.trace.json $only04"
  "04_graph_capture_gemm-skipjoin|--skip-join --batches 12 --streams 3|1"  # the missing join: exit 1, no graph
  # The same pipeline with faster kernels; the table's regime rows come from these.
  "01_serial_baseline-tiled|--kernel tiled"
  "01_serial_baseline-cublas|--kernel cublas"
  "03_stream_pool_gemm-tiled|--kernel tiled --streams-sweep off $only03"
  "03_stream_pool_gemm-cublas|--kernel cublas --streams-sweep 2,4,8,16 $only03"
  "03_stream_pool_gemm-cublas_tf32|--kernel cublas --tf32 --streams-sweep off $only03"
  "03_stream_pool_gemm-cublas_timeline|--kernel cublas --streams-sweep off --timeline --trace {results}/03_cublas.trace.json $only03"
  "04_graph_capture_gemm-cublas|--kernel cublas $only04"
  # The stream count's mechanism: the same sweep with 32 hardware queues instead of 8.
  "03_stream_pool_gemm-connections32|--batches 10 --streams-sweep off --priorities off --contention off||CUDA_DEVICE_MAX_CONNECTIONS=32"
  # Launch costs with every kernel loaded at start instead of on first use.
  "04_graph_capture_gemm-eager|--shape-requests 0 --node-updates off||CUDA_MODULE_LOADING=EAGER"
  # Where graphs win on the article's own work: stream pool vs graph replay over sizes x batch counts.
  "04_graph_capture_gemm-map|--regime-map"
  # A request of hours is refused up front with its estimate (exit 2)...
  "03_stream_pool_gemm-hours|--m 65536 --n 65536 --k 65536 --batches 1|2"
  # ... and a run of some seconds prints its progress.
  "01_serial_baseline-progress|--host-memory pinned --repeats 100"
)

# Arguments for a stage's run "at its defaults" where the full default would
# take too long for a check (02 sweeps up to 1 GiB; --quick covers the range).
declare -A default_run_args=(
  [02_pinned_vs_pageable]="--quick"
)

failures=()
fail() {
  failures+=("$1")
  echo "!!! FAILED: $1" >&2
}
step() { printf '\n[%5ds] %s\n' "$SECONDS" "$*" >&2; }

step "results go to $results"
csg_results_create "$results"

# --- a) which GPU ------------------------------------------------------------
step "a) nvidia-smi -L"
tee "$results/nvidia-smi.txt" <<<"$gpus" >&2

# --- b) build ----------------------------------------------------------------
# The python3 set-up checked registers ctest's Python tests (see scripts/test.sh),
# and the compute-sanitizer found above its sanitizer runs.
configure_args=("-DCSG_COMPUTE_SANITIZER=$sanitizer")
if [[ -n ${CSG_PYTHON:-} ]]; then
  configure_args+=("-DPython3_EXECUTABLE=$CSG_PYTHON")
fi
step "b) cmake --preset $preset ${configure_args[*]} && cmake --build --preset $preset -j $jobs"
build_status=0
{ cmake --preset "$preset" "${configure_args[@]}" && cmake --build --preset "$preset" -j "$jobs"; } 2>&1 |
  tee "$results/build.log" || build_status=$?
if [[ $build_status -ne 0 ]]; then
  fail "configure/build (exit $build_status, see $results/build.log)"
  step "done: nothing to test or run without a build"
  exit 1
fi

# --- c) tests: all must run, none may skip ------------------------------------
junit="$results/ctest-junit.xml"
test_jobs=$((jobs < 6 ? jobs : 6))  # GPU tests assert structure, never speed: they may share the GPU
step "c) CSG_REQUIRE_GPU=1 ctest --preset $preset -j $test_jobs --output-junit $junit"
export CSG_REQUIRE_GPU=1
rm -f "$junit"
ctest_status=0
ctest --preset "$preset" -j "$test_jobs" --output-junit "$junit" 2>&1 | tee "$results/ctest.log" || ctest_status=$?
if [[ $ctest_status -ne 0 ]]; then
  fail "ctest (exit $ctest_status, see $results/ctest.log)"
fi

# ctest's exit status ignores skipped tests; the JUnit file lists them.
skip_status=0
python3 - "$junit" <<'PY' || skip_status=$?
import sys
import xml.etree.ElementTree as ET

path = sys.argv[1]
try:
    root = ET.parse(path).getroot()
except (OSError, ET.ParseError) as error:
    print(f"cannot read the JUnit file {path}: {error}", file=sys.stderr)
    sys.exit(2)
suites = [root] if root.tag == "testsuite" else root.iter("testsuite")
not_run = ("notrun", "skipped", "disabled")
skipped, suite_skipped, total = [], 0, 0
for suite in suites:
    for attribute in ("skipped", "disabled"):
        try:
            suite_skipped += int(suite.get(attribute) or 0)
        except ValueError:
            pass
    for case in suite.iter("testcase"):
        total += 1
        if case.get("status", "") in not_run or case.find("skipped") is not None:
            skipped.append(case.get("name", "?"))
if skipped or suite_skipped:
    count = max(len(skipped), suite_skipped)
    print(f"{count} of {total} tests were skipped; on the GPU box no test may be skipped:", file=sys.stderr)
    for name in skipped:
        print(f"  skipped: {name}", file=sys.stderr)
    sys.exit(1)
print(f"{total} tests ran, none skipped", file=sys.stderr)
PY
if [[ $skip_status -ne 0 ]]; then
  fail "ctest: skipped tests or no readable JUnit file ($junit)"
fi

# --- d) every stage at its defaults, then the extra runs -----------------------
runs=()
shopt -s nullglob
for binary in "$bin_dir"/[0-9][0-9]_*; do
  if [[ -f $binary && -x $binary ]]; then
    runs+=("$(basename "$binary")|")  # "name|" = the stage at its defaults
  fi
done
shopt -u nullglob
runs+=("${extra_runs[@]}")
if [[ ${#runs[@]} -eq 0 ]]; then
  fail "no stage binaries found in $bin_dir"
fi

for run in "${runs[@]}"; do
  IFS='|' read -r name rest expected run_env <<<"$run"
  expected="${expected:-0}"
  read -r -a env_words <<<"${run_env:-}"
  if [[ -z $rest && -n ${default_run_args[$name]:-} ]]; then
    rest="${default_run_args[$name]}"
  fi
  rest="${rest//\{results\}/$results}"
  read -r -a args <<<"$rest"
  if ! csg_run_files "$name" "$bin_dir" "$results"; then  # sets binary, json and log
    step "d) $name: skipped, ${name%%-*} is not built yet"
    continue
  fi
  step "d) $name: ${env_words[*]:+${env_words[*]} }${binary#"$repo_root"/}${args[*]:+ ${args[*]}} --json $json"
  rm -f "$json"  # never summarise a stale result
  run_status=0
  env ${env_words[@]+"${env_words[@]}"} "$binary" ${args[@]+"${args[@]}"} --json "$json" 2>&1 | tee "$log" ||
    run_status=$?
  if [[ $expected -ne 0 ]]; then
    if [[ $run_status -ne $expected ]]; then
      fail "$name (exit $run_status, expected $expected, see $log)"
    fi
    rm -f "$json"  # a demonstrated error leaves no result to summarise
  elif [[ $run_status -eq 77 ]]; then
    fail "$name (exit 77: no CUDA device, see $log)"
  elif [[ $run_status -ne 0 ]]; then
    fail "$name (exit $run_status, see $log)"
  elif [[ ! -s $json ]]; then
    fail "$name (exit 0 but wrote no $json)"
  fi
done

# The timelines hold every operation: 3 per batch (100 batches at defaults),
# with cuBLAS too (one kernel per GEMM).
for trace in 03_stream_pool_gemm 04_graph_capture_gemm 03_cublas; do
  trace_file="$results/$trace.trace.json"
  [[ -f $trace_file ]] || continue
  if ! python3 - "$trace_file" <<'PY'; then
import json
import sys

events = json.load(open(sys.argv[1], encoding="utf-8"))["traceEvents"]
slices = sum(1 for e in events if e.get("ph") == "X")
print(f"{sys.argv[1]}: {slices} slices", file=sys.stderr)
sys.exit(0 if slices == 300 else 1)
PY
    fail "$trace.trace.json does not hold 300 slices (3 per batch)"
  fi
done

# --- e) the summary, read from the JSON ---------------------------------------
step "e) python3 scripts/report.py --table $results"
summary_status=0
python3 scripts/report.py --table "$results" || summary_status=$?
if [[ $summary_status -ne 0 ]]; then
  if [[ $summary_status -eq 1 ]]; then
    fail "summary: a measurement or a stage did not verify"
  else
    fail "summary (exit $summary_status): no result JSON, or one that cannot be read"
  fi
fi

if [[ ${#failures[@]} -eq 0 ]]; then
  step "done: everything passed; results in $results"
  exit 0
fi
step "done: ${#failures[@]} failure(s); results in $results"
printf '  - %s\n' "${failures[@]}" >&2
exit 1
