# shellcheck shell=bash
# Sourced by run_suite.sh and gpu_box_check.sh (with setup.sh): their common
# start, their runs, and a results folder that exists only once something ran.

# shellcheck source=scripts/setup.sh
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

# csg_start SCRIPT OPTIONS ARGS...: OPTIONS are those SCRIPT takes besides
#   --help ("" for none); an unknown one, or a second folder, exits 2. Sets
#   csg_flags (the options given), results, preset, bin_dir and jobs, then
#   cd to the caller's $repo_root.
# shellcheck disable=SC2034  # the caller's
csg_start() {
  local script="$1" options="$2" arg positional=() synopsis
  shift 2
  csg_flags=()
  synopsis="scripts/$(basename "$script")${options:+ [${options// /] [}]} [results-dir]"
  csg_help_if "$script" "$@"
  for arg in "$@"; do
    if [[ $arg != -* ]]; then
      positional+=("$arg")
    elif [[ " $options " == *" $arg "* ]]; then
      csg_flags+=("$arg")
    else
      echo "$(basename "$script"): unknown option $arg; usage: $synopsis (see --help)" >&2
      exit 2
    fi
  done
  if [[ ${#positional[@]} -gt 1 ]]; then
    echo "$(basename "$script"): one results folder at most (given: ${positional[*]}); usage: $synopsis" >&2
    exit 2
  fi
  # The results folder (made later), absolute: ctest writes its JUnit file from the build folder.
  results="${positional[0]:-${CSG_RESULTS_DIR:-$repo_root/results/$(date -u +%Y%m%dT%H%M%SZ)}}"
  results="$(realpath -m -- "$results")"
  preset=default
  bin_dir="$repo_root/build/$preset/bin"
  jobs="$(nproc 2>/dev/null || echo 2)"
  cd "$repo_root"
}

# --- the runs -----------------------------------------------------------------
#
# Each stage binary lists the runs its declarations make: "STAGE --list"
# (common/stage.hpp), tab-separated lines
#   subcommand  <name> <summary>
#   run         <subcommand or -> <name or -> <modes> <exit> <env or -> <ctest or -> <expect or -> <arguments>
# where modes say which script runs it: q run_suite.sh, f run_suite.sh --full,
# c gpu_box_check.sh (t and s are ctest's). To trim for time, take a run's q
# out of its declaration (run_times.tsv has each run's seconds).

# csg_runs_for MODE BIN_DIR: the runs of MODE, stage by stage, one line each of
# tab-separated fields ("-" for an empty one): name (of its files in the
# results folder), stage (its binary in BIN_DIR), subcommand (- for the
# lesson), exit (non-zero for a demonstrated error, which leaves no result),
# environment (VAR=value words), summary (its line of --help), arguments
# ({trace}: <results>/<name>.trace.json, {results}: the folder). A stage not
# built gives its lesson's line; a --list that fails returns 1.
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

# csg_save_registry RESULTS ROWS...: RESULTS/registry.tsv, the runs report.py
# expects, in order: per row of csg_runs_for all but its environment and arguments.
csg_save_registry() {
  local results="$1"
  shift
  {
    printf 'run\tstage\tsubcommand\texit\tsummary\n'
    [[ $# -eq 0 ]] || printf '%s\n' "$@" | cut -f 1-4,6
  } >"$results/registry.tsv"
}

# csg_step TEXT: one line on stderr with the seconds elapsed so far.
csg_step() { printf '[%5ds] %s\n' "$SECONDS" "$*" >&2; }

# csg_run ROW BIN_DIR RESULTS LABEL: runs one row of csg_runs_for, announced
#   with LABEL; its tables go to its log, its progress lines (stderr) to the log
#   and the terminal. The first run makes RESULTS and its registry (of csg_rows).
#   Sets run_name, run_binary, run_exit, run_args, binary, json, log, trace,
#   run_seconds, run_status (127: not built, nothing ran) and run_problem (why
#   it failed; empty if it did not).
# shellcheck disable=SC2034,SC2154  # the caller's
csg_run() {
  local results="$3" subcommand env args run_env start now argv shown
  IFS=$'\t' read -r run_name run_binary subcommand run_exit env _ args <<<"$1"
  subcommand="${subcommand#-}"
  args="${args//\{trace\}/$results/$run_name.trace.json}"
  read -r -a run_args <<<"${args//\{results\}/$results}"
  read -r -a run_env <<<"${env#-}"
  binary="$2/$run_binary"
  json="$results/$run_name.json"
  log="$results/$run_name.log"
  trace="$results/$run_name.trace.json"
  run_problem="" run_status=0 run_seconds=0
  if [[ ! -x $binary ]]; then
    run_status=127
    return 0
  fi
  if [[ ! -f $results/registry.tsv ]]; then
    csg_results_create "$results"
    csg_save_registry "$results" "${csg_rows[@]}"
  fi
  rm -f "$json" "$trace"  # never report a stale result
  argv=("$binary" ${subcommand:+"$subcommand"} ${run_args[@]+"${run_args[@]}"} --json "$json")
  shown="${argv[*]}"
  csg_step "$4 $run_name: ${run_env[*]:+${run_env[*]} }${shown#"$repo_root"/}"
  start="${EPOCHREALTIME:-$SECONDS}"
  # Both writers append (O_APPEND), so their lines interleave and none is overwritten.
  : >"$log"
  # shellcheck disable=SC2094
  env ${run_env[@]+"${run_env[@]}"} "${argv[@]}" 2>&1 >>"$log" | tee -a "$log" >&2 || run_status=$?
  now="${EPOCHREALTIME:-$SECONDS}"
  # EPOCHREALTIME takes the locale's decimal point (1796202393,93 in de_DE); awk reads a dot.
  run_seconds="$(LC_ALL=C awk -v a="${start/,/.}" -v b="${now/,/.}" 'BEGIN { printf "%.1f", b - a }')"
  csg_run_times+=("$run_name"$'\t'"$run_seconds"$'\t'"$run_status")
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

# csg_time_summary RESULTS: RESULTS/run_times.tsv (name, seconds, exit), and
# on stderr the runs, slowest first, with the total.
csg_run_times=()
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

# csg_results_create DIR: mkdir -p DIR, remembering the topmost folder it made:
# csg_results_remove_if_empty takes back exactly those while they are empty,
# so a run that measured nothing leaves nothing behind.
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

csg_results_remove_if_empty() {
  local dir="$1"
  [[ -n $csg_results_made ]] || return 0
  while rmdir -- "$dir" 2>/dev/null; do
    [[ $dir == "$csg_results_made" ]] && break
    dir="$(dirname "$dir")"
  done
  return 0
}
