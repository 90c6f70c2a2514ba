# shellcheck shell=bash
# Sourced by run_suite.sh and gpu_box_check.sh: where a run's results go, and
# a results folder that exists only once something ran.
#
# csg_usage SCRIPT ARGS...
#   The scripts' one optional argument: --help (or -h) prints SCRIPT's header
#   comment and exits 0; more than one argument, or an option, exits 2 with
#   one line.
csg_usage() {
  local script="$1"
  shift
  if [[ ${1:-} == -h || ${1:-} == --help ]]; then
    awk 'NR == 1 { next } !/^#/ { exit } { sub(/^# ?/, ""); print }' "$script"  # the header comment
    exit 0
  fi
  if [[ $# -gt 1 || ${1:-} == -* ]]; then
    echo "$(basename "$script"): usage: scripts/$(basename "$script") [results-dir] (see --help)" >&2
    exit 2
  fi
}

# csg_results_dir ARG START_DIR REPO_ROOT
#   Prints the absolute path of the results folder, creating nothing: ARG if
#   not empty, else $CSG_RESULTS_DIR, else REPO_ROOT/results/<UTC timestamp>.
#   A relative path is taken from START_DIR, where the script was called from.
#   Absolute, because ctest writes its JUnit file from the build folder.
csg_results_dir() {
  local results="${1:-${CSG_RESULTS_DIR:-}}"
  if [[ -z $results ]]; then
    results="$3/results/$(date -u +%Y%m%dT%H%M%SZ)"
  elif [[ $results != /* ]]; then
    results="$2/$results"
  fi
  realpath -m -- "$results"
}

# csg_results_create DIR
#   mkdir -p DIR, called just before the first file is written into it. It
#   remembers the topmost folder it made (results/ too, on a first run), so
#   that csg_results_remove_if_empty can take back exactly those.
csg_results_made=""
csg_results_create() {
  local probe="$1"
  [[ -d $1 ]] && return 0
  while [[ ! -e $probe ]]; do
    csg_results_made="$probe"
    probe="$(dirname "$probe")"
  done
  mkdir -p -- "$1"
}

# csg_results_remove_if_empty DIR
#   Removes the folders csg_results_create made, deepest first, as long as
#   they are empty: a run that measured nothing leaves nothing behind. A
#   folder that existed before, or that holds anything, stays.
csg_results_remove_if_empty() {
  local dir="$1"
  [[ -n $csg_results_made ]] || return 0
  while rmdir -- "$dir" 2>/dev/null; do
    [[ $dir == "$csg_results_made" ]] && break
    dir="$(dirname "$dir")"
  done
  return 0
}
