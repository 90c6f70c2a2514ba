# shellcheck shell=bash
# Sourced by run_suite.sh and gpu_box_check.sh: their common start, where a
# run's results go, and a results folder that exists only once something ran.
# It sources setup.sh too (csg_setup, the GPU checks), so those scripts start
# with one source line and csg_start.

# shellcheck source=scripts/setup.sh
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

# csg_start SCRIPT OPTIONS ARGS...
#   The start of a script that writes a results folder, called with its own
#   path, the options it accepts besides --help (space-separated, "" for
#   none) and its arguments: the usage check (csg_usage; each accepted option
#   given goes into csg_flags, see csg_flag_given), then `results` set to the
#   folder (csg_results_dir; a relative argument is taken from where the
#   script was called), then cd to the repository root, where the script
#   runs. The repository root is the caller's $repo_root, which it needs to
#   source this file anyway.
csg_start() {
  local script="$1" options="$2"
  shift 2
  csg_usage "$script" "$options" "$@"
  results="$(csg_results_dir "${csg_positional[0]:-}" "$(pwd)" "$repo_root")"
  cd "$repo_root"
}

# csg_usage SCRIPT OPTIONS ARGS...
#   --help (or -h) prints SCRIPT's header comment and exits 0. The options
#   named in OPTIONS go into the array csg_flags, the one optional
#   results-dir into csg_positional; another option, or a second folder,
#   exits 2 with one line.
csg_usage() {
  local script="$1" options="$2" arg synopsis
  shift 2
  csg_flags=()
  csg_positional=()
  synopsis="scripts/$(basename "$script")${options:+ [${options// /] [}]} [results-dir]"
  for arg in "$@"; do
    if [[ $arg == -h || $arg == --help ]]; then
      awk 'NR == 1 { next } !/^#/ { exit } { sub(/^# ?/, ""); print }' "$script"  # the header comment
      exit 0
    fi
  done
  for arg in "$@"; do
    if [[ $arg == -* ]]; then
      if [[ " $options " != *" $arg "* ]]; then
        echo "$(basename "$script"): unknown option $arg; usage: $synopsis (see --help)" >&2
        exit 2
      fi
      csg_flags+=("$arg")
    else
      csg_positional+=("$arg")
    fi
  done
  if [[ ${#csg_positional[@]} -gt 1 ]]; then
    echo "$(basename "$script"): one results folder at most (given: ${csg_positional[*]}); usage: $synopsis" >&2
    exit 2
  fi
}

# csg_flag_given OPTION: status 0 when csg_start saw OPTION among the arguments.
csg_flag_given() {
  local flag
  for flag in ${csg_flags[@]+"${csg_flags[@]}"}; do
    [[ $flag == "$1" ]] && return 0
  done
  return 1
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

# --- the runs -----------------------------------------------------------------
#
# The runs are declared in the stages themselves, beside what they run, and
# each stage binary lists them: "STAGE --list" (common/stage.hpp), lines of
# tab-separated fields:
#   subcommand  <name> <summary>
#   run         <subcommand or -> <name or -> <modes> <exit> <env or -> <ctest or -> <expect or -> <arguments>
# where modes say which script runs it: q run_suite.sh, f run_suite.sh --full,
# c gpu_box_check.sh (t and s are ctest's, not run here). To trim for time:
# take a run's q out of its declaration; run_suite.sh prints each run's
# seconds at the end (and <results>/run_times.tsv keeps them).

# csg_runs_for MODE BIN_DIR: the runs that MODE (q, f or c) makes, stage by
# stage (every NN_name/ folder of the repository, in order), one line each of
# tab-separated fields ("-" for an empty one, the arguments last):
#   name         its files: <results>/<name>.json and .log (and .trace.json):
#                the stage, the subcommand, then what sets the run apart
#   stage        the stage's executable in BIN_DIR
#   subcommand   the laboratory's experiment; - for the lesson
#   exit         the status it must end with: non-zero for a demonstrated
#                error, which leaves no result to report
#   environment  VAR=value words for that run alone
#   summary      the subcommand's line of --help ("the lesson" for a lesson)
#   arguments    after the subcommand; {trace} is <results>/<name>.trace.json,
#                {results} the results folder; every run gets --json
#                <results>/<name>.json after them
# A stage whose binary is not in BIN_DIR gives one line for its lesson, which
# the caller finds not built; a binary whose --list fails stops with status 1.
csg_runs_for() {
  local mode="$1" bin_dir="$2" folder stage listing kind subcommand name modes exit_status env args
  local -A summaries
  for folder in "$repo_root"/[0-9][0-9]_*/; do
    stage="$(basename "$folder")"
    [[ -f $folder/CMakeLists.txt ]] || continue
    if [[ ! -x $bin_dir/$stage ]]; then
      printf '%s\t%s\t-\t0\t-\tthe lesson\t\n' "$stage" "$stage"
      continue
    fi
    if ! listing="$("$bin_dir/$stage" --list)"; then
      echo "$stage --list failed: its registry could not be read" >&2
      return 1
    fi
    summaries=([-]="the lesson")
    while IFS=$'\t' read -r kind subcommand name modes exit_status env _ _ args; do
      [[ $kind == subcommand ]] && summaries[$subcommand]="$name"  # its third field: the summary
      [[ $kind == run && $modes == *"$mode"* ]] || continue
      local run_name="$stage"
      [[ $subcommand != - ]] && run_name+="-$subcommand"
      [[ $name != - ]] && run_name+="-$name"
      printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$run_name" "$stage" "$subcommand" "$exit_status" "$env" \
        "${summaries[$subcommand]:-}" "$args"
    done <<<"$listing"
  done
}

# csg_save_registry RESULTS ROWS...: RESULTS/registry.tsv, what report.py
# reads to know which runs to expect and in which order to show them: a
# header line, then per row of csg_runs_for its name, stage, subcommand
# (- for a lesson), exit and summary.
csg_save_registry() {
  local results="$1" row
  shift
  {
    printf 'run\tstage\tsubcommand\texit\tsummary\n'
    for row in "$@"; do
      cut -f 1-4,6 <<<"$row"
    done
  } >"$results/registry.tsv"
}

# csg_run_fields ROW RESULTS
#   Reads one row of csg_runs_for into run_name, run_binary, run_subcommand
#   ("" for the lesson), run_exit, run_env and run_args (arrays, the
#   placeholders filled in for RESULTS).
# shellcheck disable=SC2034  # the caller's
csg_run_fields() {
  local subcommand env args
  IFS=$'\t' read -r run_name run_binary subcommand run_exit env _ args <<<"$1"
  run_subcommand="${subcommand#-}"
  args="${args//\{trace\}/$2/$run_name.trace.json}"
  read -r -a run_args <<<"${args//\{results\}/$2}"
  read -r -a run_env <<<"${env#-}"
}

# csg_step TEXT: one line on stderr with the seconds elapsed so far.
csg_step() { printf '[%5ds] %s\n' "$SECONDS" "$*" >&2; }

# csg_run ROW BIN_DIR RESULTS LABEL
#   Runs one row of csg_runs_for, announced with LABEL: the stage's tables go
#   to <results>/<name>.log, its progress lines (stderr) to the log and to the
#   terminal, so a long run is never silent; its seconds to run_times.tsv.
#   Sets run_status (127: its stage is not built, nothing ran), run_seconds,
#   the fields of csg_run_fields and the files of csg_run_files, and
#   run_problem: why the run failed (the wrong exit status for a demonstrated
#   error, another non-zero one, or no result), empty when it did not. A
#   demonstrated error leaves no result to report.
# shellcheck disable=SC2034  # the caller's
csg_run() {
  local bin_dir="$2" results="$3" start argv shown
  csg_run_fields "$1" "$results"
  run_problem="" run_status=0 run_seconds=0
  if ! csg_run_files "$run_name" "$run_binary" "$bin_dir" "$results"; then
    run_status=127
    return 0
  fi
  rm -f "$json" "$trace"  # never report a stale result
  argv=("$binary" ${run_subcommand:+"$run_subcommand"} ${run_args[@]+"${run_args[@]}"} --json "$json")
  shown="${argv[*]}"
  csg_step "$4 $run_name: ${run_env[*]:+${run_env[*]} }${shown#"$repo_root"/}"
  start="${EPOCHREALTIME:-$SECONDS}"
  # Both writers append (O_APPEND), so their lines interleave and none is overwritten.
  : >"$log"
  # shellcheck disable=SC2094
  env ${run_env[@]+"${run_env[@]}"} "${argv[@]}" 2>&1 >>"$log" | tee -a "$log" >&2 || run_status=$?
  run_seconds="$(csg_seconds_since "$start")"
  csg_time_note "$run_name" "$run_seconds" "$run_status"
  if [[ $run_exit -ne 0 ]]; then
    rm -f "$json"
    if [[ $run_status -ne $run_exit ]]; then
      run_problem="$run_name exited with $run_status, expected $run_exit (the error it demonstrates); see $log"
    fi
  elif [[ $run_status -ne 0 ]]; then
    run_problem="$run_name exited with $run_status (1: a CUDA error or a batch that did not verify; 2: bad usage or not enough memory; 77: no CUDA device); see $log"
  elif [[ ! -s $json ]]; then
    run_problem="$run_name exited 0 but wrote no $json"
  fi
}

# csg_run_files NAME BINARY BIN_DIR RESULTS
#   The files of one run, named as both scripts name them: sets binary to
#   BIN_DIR/BINARY, json, log and trace to RESULTS/NAME.json, .log and
#   .trace.json. Status 1 when that stage is not built.
# shellcheck disable=SC2034  # json, log and trace are the caller's
csg_run_files() {
  binary="$3/$2"
  json="$4/$1.json"
  log="$4/$1.log"
  trace="$4/$1.trace.json"
  [[ -x $binary ]]
}

# csg_seconds_since START: seconds since START (an $EPOCHREALTIME), to a tenth.
csg_seconds_since() {
  local start="$1" now="${EPOCHREALTIME:-$SECONDS}"
  # EPOCHREALTIME takes the locale's decimal point (1796202393,93 in de_DE); awk reads a dot.
  LC_ALL=C awk -v a="${start/,/.}" -v b="${now/,/.}" 'BEGIN { printf "%.1f", b - a }'
}

# csg_time_note NAME SECONDS STATUS: one run's line in RESULTS/run_times.tsv
# (name, seconds, exit status), for trimming the run list.
csg_run_times=()
csg_time_note() {
  csg_run_times+=("$1"$'\t'"$2"$'\t'"$3")
}

# csg_time_summary RESULTS: writes RESULTS/run_times.tsv and prints the runs,
# slowest first, with the total, on stderr.
csg_time_summary() {
  [[ ${#csg_run_times[@]} -gt 0 ]] || return 0
  {
    printf 'run\tseconds\texit\n'
    printf '%s\n' "${csg_run_times[@]}"
  } >"$1/run_times.tsv"
  echo "seconds per run, slowest first (also in $1/run_times.tsv):" >&2
  printf '%s\n' "${csg_run_times[@]}" | sort -t$'\t' -k2,2 -g -r |
    awk -F'\t' '{ total += $2; printf "  %7.1f  %s%s\n", $2, $1, ($3 == 0 ? "" : "  (exit " $3 ")") }
                END { printf "  %7.1f  all runs\n", total }' >&2
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
