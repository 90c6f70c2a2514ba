# shellcheck shell=bash
# Sourced by run_suite.sh and gpu_box_check.sh: their common start, where a
# run's results go, and a results folder that exists only once something ran.
# It sources setup.sh too (csg_setup, the GPU checks), so those scripts start
# with one source line and csg_start.

# shellcheck source=scripts/setup.sh
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

# csg_start SCRIPT ARGS...
#   The start of a script that writes a results folder, called with its own
#   path and arguments: the usage check (csg_usage), then `results` set to
#   the folder (csg_results_dir; a relative argument is taken from where the
#   script was called), then cd to the repository root, where the script
#   runs. The repository root is the caller's $repo_root, which it needs to
#   source this file anyway.
csg_start() {
  local script="$1"
  shift
  csg_usage "$script" "$@"
  results="$(csg_results_dir "${1:-}" "$(pwd)" "$repo_root")"
  cd "$repo_root"
}

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

# csg_run_files NAME BIN_DIR RESULTS
#   The files of one run, named as both scripts name them: sets binary to
#   its stage in BIN_DIR (NAME up to the first "-": 01_serial_baseline-pinned
#   runs 01_serial_baseline), json and log to RESULTS/NAME.json and .log.
#   Status 1 when that stage is not built.
# shellcheck disable=SC2034  # json and log are the caller's
csg_run_files() {
  binary="$2/${1%%-*}"
  json="$3/$1.json"
  log="$3/$1.log"
  [[ -x $binary ]]
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
