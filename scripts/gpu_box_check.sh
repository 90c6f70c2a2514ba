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
#   d) the runs the stages declare for the check (marked c in STAGE --list):
#      each stage's lesson and every subcommand, as scripts/run_suite.sh --full
#      runs them but stage 02's sweep (4 sizes), plus the checks of their own:
#      the missing join (exit 1), 32 hardware queues, eager module loading, a
#      refused request of hours (exit 2), a run long enough to show progress
#      -> registry.tsv (that list), <run>.json (schema
#      cuda-streams-graphs/result/v2) and <run>.log (its tables; its progress
#      lines go to the terminal too); the timelines -> <run>.trace.json, each
#      holding every operation it recorded (3 per batch for stages 01, 03 and 04)
#   e) python3 scripts/report.py --table <results-dir>: the table, read from the JSON
#
# A failing step or stage does not stop the later ones (except a failed build,
# which leaves nothing to run). Exit status: 0 only if everything passed;
# 1 something failed; 77 no GPU, or a tool missing; 2 bad usage.
set -euo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=scripts/results_dir.sh
source "$repo_root/scripts/results_dir.sh"  # and setup.sh
csg_start "${BASH_SOURCE[0]}" "" "$@"  # --help and bad usage exit here; sets $results, cd to $repo_root

# A check without a GPU would build for minutes and then skip or fail every
# GPU test: stop before building. The sanitizer runs are part of the check;
# without the tool CMake registers none, and the check would pass without them.
sanitizer="$(csg_require_gpu_and_sanitizer gpu_box_check.sh)" || exit $?
gpus="$(csg_gpu_list)"
csg_setup build python || exit $?  # its one line says what to run

failures=()
fail() {
  failures+=("$1")
  echo "!!! FAILED: $1" >&2
}

csg_step "results go to $results"
csg_results_create "$results"

# --- a) which GPU ------------------------------------------------------------
csg_step "a) nvidia-smi -L"
tee "$results/nvidia-smi.txt" <<<"$gpus" >&2

# --- b) build ----------------------------------------------------------------
# The python3 set-up checked registers ctest's Python tests (see scripts/test.sh),
# and the compute-sanitizer found above its sanitizer runs.
configure_args=("-DCSG_COMPUTE_SANITIZER=$sanitizer" ${CSG_PYTHON:+"-DPython3_EXECUTABLE=$CSG_PYTHON"})
csg_step "b) cmake --preset $preset ${configure_args[*]} && cmake --build --preset $preset -j $jobs"
build_status=0
{ cmake --preset "$preset" "${configure_args[@]}" && cmake --build --preset "$preset" -j "$jobs"; } 2>&1 |
  tee "$results/build.log" || build_status=$?
if [[ $build_status -ne 0 ]]; then
  fail "configure/build (exit $build_status, see $results/build.log)"
  csg_step "done: nothing to test or run without a build"
  exit 1
fi

# --- c) tests: all must run, none may skip ------------------------------------
# -j as scripts/test.sh: the GPU tests that time something run alone (tests/CMakeLists.txt).
junit="$results/ctest-junit.xml"
csg_step "c) CSG_REQUIRE_GPU=1 ctest --preset $preset -j $jobs --output-junit $junit"
export CSG_REQUIRE_GPU=1
rm -f "$junit"
ctest_status=0
ctest --preset "$preset" -j "$jobs" --output-junit "$junit" 2>&1 | tee "$results/ctest.log" || ctest_status=$?
[[ $ctest_status -eq 0 ]] || fail "ctest (exit $ctest_status, see $results/ctest.log)"
# ctest's exit status ignores skipped tests; the JUnit file lists them.
python3 - "$junit" <<'PY' || fail "ctest: skipped tests or no readable JUnit file ($junit)"
import sys
import xml.etree.ElementTree as ET

path = sys.argv[1]
try:
    root = ET.parse(path).getroot()
except (OSError, ET.ParseError) as error:
    print(f"cannot read the JUnit file {path}: {error}", file=sys.stderr)
    sys.exit(2)
skipped, suite_skipped, total = [], 0, 0
for suite in [root] if root.tag == "testsuite" else root.iter("testsuite"):
    for attribute in ("skipped", "disabled"):
        try:
            suite_skipped += int(suite.get(attribute) or 0)
        except ValueError:
            pass
    for case in suite.iter("testcase"):
        total += 1
        if case.get("status", "") in ("notrun", "skipped", "disabled") or case.find("skipped") is not None:
            skipped.append(case.get("name", "?"))
if skipped or suite_skipped:
    print(f"{max(len(skipped), suite_skipped)} of {total} tests were skipped; on the GPU box no test may be skipped:",
          *(f"  skipped: {name}" for name in skipped), sep="\n", file=sys.stderr)
    sys.exit(1)
print(f"{total} tests ran, none skipped", file=sys.stderr)
PY

# --- d) every lesson and subcommand, and the checks' own runs -------------------
mapfile -t csg_rows < <(csg_runs_for c "$bin_dir")
csg_save_registry "$results" "${csg_rows[@]}"
traced=()
for row in "${csg_rows[@]}"; do
  csg_run "$row" "$bin_dir" "$results" "d)"
  if [[ $run_status -eq 127 ]]; then
    csg_step "d) $run_name: skipped, $run_binary is not built yet"
  elif [[ -n $run_problem ]]; then
    fail "$run_problem"
  elif [[ " ${run_args[*]} " == *" $trace "* ]]; then
    traced+=("$run_name")
  fi
done
csg_time_summary "$results"

# Each timeline holds every operation its run recorded (timeline.ops): for stages
# 01, 03 and 04, 3 per batch (H2D, kernel, D2H; cuBLAS too: one kernel per GEMM).
for name in ${traced[@]+"${traced[@]}"}; do
  python3 - "$results/$name.trace.json" "$results/$name.json" <<'PY' ||
import json
import sys

trace_path, result_path = sys.argv[1], sys.argv[2]
try:
    events = json.load(open(trace_path, encoding="utf-8"))["traceEvents"]
    result = json.load(open(result_path, encoding="utf-8"))
except (OSError, ValueError, KeyError, TypeError) as error:
    print(f"{trace_path}: cannot read it or its result: {error}", file=sys.stderr)
    sys.exit(1)
slices = sum(1 for e in events if isinstance(e, dict) and e.get("ph") == "X")
timeline = result.get("timeline") if isinstance(result.get("timeline"), dict) else {}
batches = result.get("config", {}).get("batches")
expected = timeline.get("ops")
if result.get("stage", "")[:3] in ("01_", "03_", "04_") and isinstance(batches, int):
    if expected is not None and expected != 3 * batches:
        print(f"{result_path}: timeline.ops is {expected}, not 3 per batch ({3 * batches})", file=sys.stderr)
        sys.exit(1)
    expected = 3 * batches
print(f"{trace_path}: {slices} slices, expected {expected}", file=sys.stderr)
sys.exit(0 if expected is not None and slices == expected else 1)
PY
    fail "$name.trace.json does not hold every operation its run recorded (3 per batch for 01, 03 and 04)"
done

# --- e) the summary, read from the JSON ---------------------------------------
csg_step "e) python3 scripts/report.py --table $results"
summary_status=0
python3 scripts/report.py --table "$results" || summary_status=$?
case $summary_status in
  0) ;;
  1) fail "summary: a measurement or a stage did not verify" ;;
  *) fail "summary (exit $summary_status): no result JSON, or one that cannot be read" ;;
esac

if [[ ${#failures[@]} -eq 0 ]]; then
  csg_step "done: everything passed; results in $results"
  exit 0
fi
csg_step "done: ${#failures[@]} failure(s); results in $results"
printf '  - %s\n' "${failures[@]}" >&2
exit 1
