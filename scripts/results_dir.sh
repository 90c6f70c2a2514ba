# Sourced by run_suite.sh and gpu_box_check.sh: where a run's results go.
#
# csg_results_dir ARG START_DIR REPO_ROOT
#   Prints the absolute path of the results folder, creating it: ARG if not
#   empty, else $CSG_RESULTS_DIR, else REPO_ROOT/results/<UTC timestamp>. A
#   relative path is taken from START_DIR, where the script was called from.
#   Absolute, because ctest writes its JUnit file from the build folder.
csg_results_dir() {
  local results="${1:-${CSG_RESULTS_DIR:-}}"
  if [[ -z $results ]]; then
    results="$3/results/$(date -u +%Y%m%dT%H%M%SZ)"
  elif [[ $results != /* ]]; then
    results="$2/$results"
  fi
  mkdir -p "$results"
  (cd "$results" && pwd)
}
