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
# Every run of run_suite.sh and gpu_box_check.sh, one a line, in the order
# they run: "modes | name | binary | subcommand | arguments | exit | environment"
#   modes        which script runs it: q run_suite.sh, f run_suite.sh --full,
#                c gpu_box_check.sh
#   name         its files: <results>/<name>.json and .log (and .trace.json);
#                the stage, the subcommand, then what sets the run apart
#   binary       the stage's executable in build/<preset>/bin/
#   subcommand   the laboratory's experiment; - for the lesson
#   arguments    after the subcommand; {trace} is <results>/<name>.trace.json,
#                {results} the results folder; every run gets --json
#                <results>/<name>.json after them
#   exit         the status it must end with, empty for 0: a demonstrated
#                error, which leaves no result to report
#   environment  VAR=value words for that run alone
# The comment above a row says what it feeds in report.md (or why it runs).
# To trim for time: take a run's q out; run_suite.sh prints each run's
# seconds at the end (and <results>/run_times.tsv keeps them).
# shellcheck disable=SC2034  # read by the scripts that source this file
csg_runs=(
  # 01: the article's serial loop            main table, stages.png, speed-up baseline
  "qfc | 01_serial_baseline                        | 01_serial_baseline    | -               |"
  # the same on pinned memory                  main table, stages.png
  "qfc | 01_serial_baseline-pinned                 | 01_serial_baseline    | -               | --host-memory pinned"
  # faster kernels, serial                     main table (--table rows)
  "fc  | 01_serial_baseline-kernels-tiled          | 01_serial_baseline    | kernels         | --kernel tiled"
  "q   | 01_serial_baseline-kernels-cublas         | 01_serial_baseline    | kernels         | --kernel cublas --warmup 1 --repeats 5"
  "fc  | 01_serial_baseline-kernels-cublas         | 01_serial_baseline    | kernels         | --kernel cublas"
  # the article's first timeline               timeline_01_serial_baseline-timeline.png
  "q   | 01_serial_baseline-timeline               | 01_serial_baseline    | timeline        | --warmup 1 --repeats 3 --trace {trace}"
  "fc  | 01_serial_baseline-timeline               | 01_serial_baseline    | timeline        | --trace {trace}"
  # 02: the lesson, pinned vs pageable          appendix
  "qfc | 02_pinned_vs_pageable                     | 02_pinned_vs_pageable | -               |"
  # bandwidth per host memory kind: 4 sizes     copy table, bandwidth.png, --table peaks
  "qc  | 02_pinned_vs_pageable-sweep               | 02_pinned_vs_pageable | sweep           | --quick"
  # ... every size up to 1 GiB (--full)
  "f   | 02_pinned_vs_pageable-sweep               | 02_pinned_vs_pageable | sweep           |"
  # cudaMemcpyAsync beside a busy kernel        bounds, appendix
  "qfc | 02_pinned_vs_pageable-overlap             | 02_pinned_vs_pageable | overlap         |"
  # what pinning costs                          bounds, appendix
  "qc  | 02_pinned_vs_pageable-pinning-cost        | 02_pinned_vs_pageable | pinning-cost    | --pin-max-mib 256"
  # ... up to 4 GiB (--full)
  "f   | 02_pinned_vs_pageable-pinning-cost        | 02_pinned_vs_pageable | pinning-cost    |"
  # the overlap's cases on a timeline           timeline_02_pinned_vs_pageable-timeline.png
  "qfc | 02_pinned_vs_pageable-timeline            | 02_pinned_vs_pageable | timeline        | --trace {trace}"
  # 03: the article's pool, pool-size sweep      main table, sweep table, sweep.png, stages.png
  "qfc | 03_stream_pool_gemm                       | 03_stream_pool_gemm   | -               |"
  # each kernel: pool, engine streams, bound    regime table, regimes.png, main table
  "q   | 03_stream_pool_gemm-kernels-naive         | 03_stream_pool_gemm   | kernels         | --kernel naive --warmup 1 --repeats 5"
  "q   | 03_stream_pool_gemm-kernels-tiled         | 03_stream_pool_gemm   | kernels         | --kernel tiled --warmup 1 --repeats 5"
  "q   | 03_stream_pool_gemm-kernels-cublas        | 03_stream_pool_gemm   | kernels         | --kernel cublas --warmup 1 --repeats 5"
  "q   | 03_stream_pool_gemm-kernels-cublas_tf32   | 03_stream_pool_gemm   | kernels         | --kernel cublas --tf32 --warmup 1 --repeats 5"
  # ... each with the default rounds (--full, and the check)
  "fc  | 03_stream_pool_gemm-kernels-naive         | 03_stream_pool_gemm   | kernels         | --kernel naive"
  "fc  | 03_stream_pool_gemm-kernels-tiled         | 03_stream_pool_gemm   | kernels         | --kernel tiled"
  "fc  | 03_stream_pool_gemm-kernels-cublas        | 03_stream_pool_gemm   | kernels         | --kernel cublas"
  "fc  | 03_stream_pool_gemm-kernels-cublas_tf32   | 03_stream_pool_gemm   | kernels         | --kernel cublas --tf32"
  # the pool on pageable memory, both orders     main table, stages.png (the pageable pool)
  "q   | 03_stream_pool_gemm-order-pageable        | 03_stream_pool_gemm   | order           | --host-memory pageable --warmup 1 --repeats 3"
  "fc  | 03_stream_pool_gemm-order-pageable        | 03_stream_pool_gemm   | order           | --host-memory pageable"
  # both orders on pinned memory                main table
  "fc  | 03_stream_pool_gemm-order                 | 03_stream_pool_gemm   | order           |"
  # one stream per engine                       main table
  "qfc | 03_stream_pool_gemm-engine-streams        | 03_stream_pool_gemm   | engine-streams  |"
  # 1 to 1,024 streams                          bounds, appendix
  "q   | 03_stream_pool_gemm-count-sweep           | 03_stream_pool_gemm   | count-sweep     | --warmup 1 --repeats 5"
  "fc  | 03_stream_pool_gemm-count-sweep           | 03_stream_pool_gemm   | count-sweep     |"
  # ... with 32 hardware queues instead of 8: the mechanism
  "c   | 03_stream_pool_gemm-count-sweep-connections32 | 03_stream_pool_gemm | count-sweep   | | | CUDA_DEVICE_MAX_CONNECTIONS=32"
  # short kernels beside a flood; shared memory  appendix
  "qfc | 03_stream_pool_gemm-priorities            | 03_stream_pool_gemm   | priorities      |"
  "qfc | 03_stream_pool_gemm-contention            | 03_stream_pool_gemm   | contention      |"
  # the pool on a timeline                      timeline_03_stream_pool_gemm-timeline.png
  "qfc | 03_stream_pool_gemm-timeline              | 03_stream_pool_gemm   | timeline        | --trace {trace}"
  "c   | 03_stream_pool_gemm-timeline-cublas       | 03_stream_pool_gemm   | timeline        | --kernel cublas --trace {trace}"
  # a request of hours, refused up front with its estimate
  "c   | 03_stream_pool_gemm-hours                 | 03_stream_pool_gemm   | -               | --m 65536 --n 65536 --k 65536 --batches 1 | 2"
  # 04: the article's six steps                 main table, stages.png
  "qfc | 04_graph_capture_gemm                     | 04_graph_capture_gemm | -               |"
  # one-time costs, replay vs streams, issue    graph costs table, graph_costs.png, regime table's 04 replay
  "q   | 04_graph_capture_gemm-costs               | 04_graph_capture_gemm | costs           | --warmup 1 --repeats 5"
  "fc  | 04_graph_capture_gemm-costs               | 04_graph_capture_gemm | costs           |"
  "q   | 04_graph_capture_gemm-costs-cublas        | 04_graph_capture_gemm | costs           | --kernel cublas --warmup 1 --repeats 5"
  "fc  | 04_graph_capture_gemm-costs-cublas        | 04_graph_capture_gemm | costs           | --kernel cublas"
  # where graphs win: many tiny operations      graph costs table, graph_costs.png
  "qfc | 04_graph_capture_gemm-tiny-work           | 04_graph_capture_gemm | tiny-work       |"
  # exec update vs re-capture                   graph costs table
  "qfc | 04_graph_capture_gemm-node-updates        | 04_graph_capture_gemm | node-updates    |"
  "qfc | 04_graph_capture_gemm-changing-shapes     | 04_graph_capture_gemm | changing-shapes |"
  # what one launch costs                       appendix
  "q   | 04_graph_capture_gemm-launch-chains       | 04_graph_capture_gemm | launch-chains   | --launch-chains 10,100,1000 --launch-repeats 11"
  "c   | 04_graph_capture_gemm-launch-chains       | 04_graph_capture_gemm | launch-chains   | --launch-chains 10,100,1000"
  # ... up to 10,000 kernels (--full)
  "f   | 04_graph_capture_gemm-launch-chains       | 04_graph_capture_gemm | launch-chains   |"
  # ... with every kernel loaded at start
  "c   | 04_graph_capture_gemm-launch-chains-eager | 04_graph_capture_gemm | launch-chains   | | | CUDA_MODULE_LOADING=EAGER"
  # where the graph starts to win, 2 sizes x 3 batch counts: regime map section, regime_map_*.png
  "q   | 04_graph_capture_gemm-regime-map          | 04_graph_capture_gemm | regime-map      | --map-sizes 64,512 --map-batches 10,100,1000 --warmup 1 --repeats 5"
  "c   | 04_graph_capture_gemm-regime-map          | 04_graph_capture_gemm | regime-map      | --map-sizes 64,512 --map-batches 10,100,1000"
  # ... the whole map, 6 sizes x 4 batch counts (--full)
  "f   | 04_graph_capture_gemm-regime-map          | 04_graph_capture_gemm | regime-map      |"
  # a small graph's structure, drawn            04_graph_capture_gemm-graph.dot
  "qfc | 04_graph_capture_gemm-graph               | 04_graph_capture_gemm | graph           | --batches 6 --streams 3 --dot {results}/04_graph_capture_gemm-graph.dot"
  # the capture without the join: CUDA's error, exit 1
  "qfc | 04_graph_capture_gemm-skip-join           | 04_graph_capture_gemm | skip-join       | --batches 12 --streams 3 | 1"
  # one replay on a timeline                    timeline_04_graph_capture_gemm-timeline.png
  "qfc | 04_graph_capture_gemm-timeline            | 04_graph_capture_gemm | timeline        | --trace {trace}"
  # after the article: the launch by node kind and shape   after-the-article table, after_article.png
  "q   | 04_graph_capture_gemm-launch-anatomy      | 04_graph_capture_gemm | launch-anatomy  | --anatomy-nodes 8,80,800 --warmup 1 --repeats 5"
  "fc  | 04_graph_capture_gemm-launch-anatomy      | 04_graph_capture_gemm | launch-anatomy  |"
  # graphs launched from the GPU                after-the-article table, after_article.png
  "qfc | 04_graph_capture_gemm-device-launch       | 04_graph_capture_gemm | device-launch   |"
  # WHILE and SWITCH nodes; N to 1,000 by default, to 10,000 with --full
  "q   | 04_graph_capture_gemm-conditional         | 04_graph_capture_gemm | conditional     | --cond-iterations 10,100,1000 --warmup 1 --repeats 5"
  "fc  | 04_graph_capture_gemm-conditional         | 04_graph_capture_gemm | conditional     |"
  # programmatic dependent launch               after-the-article table, after_article.png
  "q   | 04_graph_capture_gemm-pdl                 | 04_graph_capture_gemm | pdl             | --warmup 1 --repeats 5"
  "fc  | 04_graph_capture_gemm-pdl                 | 04_graph_capture_gemm | pdl             |"
  # graph memory nodes                          after-the-article table, after_article.png
  "qfc | 04_graph_capture_gemm-memory-nodes        | 04_graph_capture_gemm | memory-nodes    |"
  # a serving engine's startup, 8 to 256 bucket graphs   after-the-article table, after_article.png
  "qfc | 04_graph_capture_gemm-startup             | 04_graph_capture_gemm | startup         |"
  # a run of some seconds prints its progress
  "c   | 01_serial_baseline-progress               | 01_serial_baseline    | -               | --host-memory pinned --repeats 100"
)

csg_trim() {
  local text="$1"
  text="${text#"${text%%[![:space:]]*}"}"
  printf '%s' "${text%"${text##*[![:space:]]}"}"
}

# csg_run_fields ROW RESULTS
#   Reads one row of csg_runs into run_modes, run_name, run_binary,
#   run_subcommand ("" for the lesson), run_args and run_env (arrays, the
#   placeholders filled in for RESULTS), run_exit (0 when empty).
# shellcheck disable=SC2034  # the caller's
csg_run_fields() {
  local modes name binary subcommand args exit_status environment
  IFS='|' read -r modes name binary subcommand args exit_status environment <<<"$1"
  run_modes="$(csg_trim "$modes")"
  run_name="$(csg_trim "$name")"
  run_binary="$(csg_trim "$binary")"
  run_subcommand="$(csg_trim "$subcommand")"
  [[ $run_subcommand == - ]] && run_subcommand=""
  args="${args//\{trace\}/$2/$run_name.trace.json}"
  args="${args//\{results\}/$2}"
  read -r -a run_args <<<"$args"
  exit_status="$(csg_trim "$exit_status")"
  run_exit="${exit_status:-0}"
  read -r -a run_env <<<"$environment"
}

# csg_runs_for MODE: prints the rows of csg_runs that MODE (q, f or c) runs.
csg_runs_for() {
  local row
  for row in "${csg_runs[@]}"; do
    csg_run_fields "$row" ""
    if [[ $run_modes == *"$1"* ]]; then
      printf '%s\n' "$row"
    fi
  done
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
