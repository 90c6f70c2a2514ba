#!/usr/bin/env bash
# The suite as one command: set up, build if needed, run every stage's lesson
# and every experiment of its laboratory at the article's sizes, and write a
# report with plots.
#
# Usage:  scripts/run_suite.sh [--full] [results-dir]
#   --full       the long versions of the runs the default shortens to stay
#                within about 90 s of runs on an H200: the subcommands' own
#                rounds (the default takes 1 warm-up and 2, 3 or 5 timed
#                rounds for most) and sizes: the whole regime map (6 sizes x
#                4 batch counts up to 10,000 instead of 2 x 3 up to 300),
#                stage 02's sweep over every size up to 1 GiB instead of 4 up
#                to 64 MiB, batched-copies' 400 MiB (200 MiB), startup's 256
#                bucket graphs (64), 50 changing shapes (30);
#                and a run the default leaves out: 03's issue orders on
#                pinned memory. The lessons run at the article's defaults
#                either way.
#   results-dir  the first argument, else $CSG_RESULTS_DIR, else
#                results/<UTC timestamp> under the repository root. It is
#                made when the first run starts, and removed again if it is
#                still empty at the end (no device: nothing is left behind).
#
# Steps (each announced on stderr with the seconds elapsed so far):
#   0) set-up (scripts/setup.sh; its --help says what it installs, and how);
#      where it can't, one line names the command, exit 77
#   1) configure the "default" preset (Release) if build/default has no cache
#      yet, then cmake --build --preset default: incremental, so an up-to-date
#      build costs a second and rebuilds nothing
#   2) the runs the stages declare (STAGE --list: marked q, or f with --full):
#      each stage's lesson, every subcommand, and the variants the report
#      compares (pinned memory, each GEMM kernel, pageable memory), each as
#        build/default/bin/<binary> [<subcommand>] <arguments> --json <results>/<run>.json
#      with its printed tables in <run>.log and, for the timeline subcommands,
#      <run>.trace.json (open it in https://ui.perfetto.dev). The list goes to
#      <results>/registry.tsv: report.py expects those results, in that order.
#      A stage not built yet is skipped with a note. A run that demonstrates
#      an error must exit with the status its declaration gives, and leaves no
#      result. No CUDA device (a run exits 77): stop at once, exit 77, and
#      remove that run's files. At the end, the seconds of each run, slowest
#      first (and <results>/run_times.tsv).
#   3) python3 scripts/report.py <results>: report.md and PNG plots, from the
#      JSON only.
#
# Exit status: 0 every run verified and the report has every plot; 1 a run
# failed or did not verify, or the report could not be written whole;
# 77 no CUDA device, or a tool missing that set-up could not install;
# 2 bad usage.
set -euo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=scripts/results_dir.sh
source "$repo_root/scripts/results_dir.sh"  # and setup.sh
csg_start "${BASH_SOURCE[0]}" "--full" "$@"  # --help and bad usage exit here; sets $results, cd to $repo_root
# Whatever ends the run, a results folder this run made and left empty goes.
trap 'csg_results_remove_if_empty "$results"' EXIT

mode=q
[[ " ${csg_flags[*]-} " == *" --full "* ]] && mode=f
failures=()
fail() {
  failures+=("$1")
  echo "!!! $1" >&2
}

csg_step "results will go to $results$([[ $mode == q ]] || echo " (--full)")"

# --- 0) set-up ------------------------------------------------------------------------
csg_setup build python || exit $?  # its one line says what to run

# --- 1) build ---------------------------------------------------------------------
if [[ ! -f build/$preset/CMakeCache.txt ]]; then
  csg_step "1) configuring: cmake --preset $preset (Release; once)"
  if ! cmake --preset "$preset" >&2; then
    echo "run_suite.sh: configuring failed (see above); README lists what to install" >&2
    exit 1
  fi
fi
csg_step "1) building: cmake --build --preset $preset -j $jobs (only what changed)"
if ! cmake --build --preset "$preset" -j "$jobs" >&2; then
  echo "run_suite.sh: the build failed (see above)" >&2
  exit 1
fi

# --- 2) the runs --------------------------------------------------------------------
mapfile -t csg_rows < <(csg_runs_for "$mode" "$bin_dir")
count=${#csg_rows[@]}
index=0
started=0
for row in "${csg_rows[@]}"; do
  index=$((index + 1))
  csg_run "$row" "$bin_dir" "$results" "2) ($index/$count)"  # the first that starts makes the folder
  if [[ $run_status -eq 127 ]]; then
    csg_step "2) ($index/$count) $run_name: skipped, $run_binary is not built (that stage is not in this checkout)"
    continue
  fi
  started=$((started + 1))
  if [[ $run_status -eq 77 ]]; then
    # Nothing was measured: its log holds only the message already shown above.
    rm -f "$log" "$json" "$trace" "$results/run_times.tsv" "$results/registry.tsv"
    echo "run_suite.sh: no CUDA device (the message above is $run_binary's); nothing was measured, nothing kept." >&2
    exit 77
  elif [[ -n $run_problem ]]; then
    fail "$run_problem"
  elif [[ $run_exit -ne 0 ]]; then
    csg_step "    $run_name exited with $run_exit as expected, in $run_seconds s"
  else
    csg_step "    $run_name done in $run_seconds s"
  fi
done

# --- 3) the report --------------------------------------------------------------------
if [[ $started -eq 0 ]]; then
  fail "no stage ran (none is built in $bin_dir), so there is nothing to report"
else
  csg_time_summary "$results"
  # python3 is the interpreter set-up checked for matplotlib and jsonschema (.venv's, where it made one).
  csg_step "3) python3 scripts/report.py $results"
  report_status=0
  python3 scripts/report.py "$results" || report_status=$?
  case $report_status in
    0) ;;
    1) fail "report: a measurement or a stage did not verify (see report.md)" ;;
    3) fail "report: written without plots, $(command -v python3) has no matplotlib (scripts/setup.sh installs it)" ;;
    77) fail "report: $(command -v python3) has no jsonschema, so no result could be read (scripts/setup.sh installs it)" ;;
    *) fail "report.py exited with $report_status: no result JSON, or one it cannot read (message above)" ;;
  esac
fi

if [[ ${#failures[@]} -eq 0 ]]; then
  csg_step "done: $results/report.md and its plots"
  exit 0
fi
problems="${#failures[@]} problems"
[[ ${#failures[@]} -eq 1 ]] && problems="1 problem"
csg_step "done with $problems; results in $results"
printf '  - %s\n' "${failures[@]}" >&2
exit 1
