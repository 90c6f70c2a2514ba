#!/usr/bin/env bash
# Runs one stage binary under one compute-sanitizer tool and fails on any
# reported error. ctest calls this for every (tool, stage) pair it registers
# with the label "sanitizer"; scripts/sanitize.sh runs them all.
#
# Usage:  scripts/sanitize_run.sh [--api-errors-expected] TOOL BINARY [stage arguments...]
#   TOOL: memcheck (run with --leak-check full), racecheck, synccheck or initcheck
#   --api-errors-expected: the stage provokes CUDA errors on purpose (stage 04
#     shows an exec update CUDA refuses), so memcheck does not report failed
#     API calls; every call is still checked by the stage itself, and memory
#     errors and leaks are still reported.
#
# Which compute-sanitizer: $COMPUTE_SANITIZER (the path; ctest sets it to the
# one CMake found, CSG_COMPUTE_SANITIZER), else compute-sanitizer on PATH,
# beside nvcc, or in /usr/local/cuda/bin.
#
# One rerun, for one failure alone: a stage that stops at an illegal address
# the tool attributes to no access (every line the tool wrote is its banner,
# a CUDA call that returned the error and its backtrace, an allocation the
# stop left behind, or a summary). memcheck names every bad access a kernel
# makes; the other tools do not look for them. Inside stage 04's conditional
# graphs (WHILE and SWITCH) such stops come when 16 runs go side by side:
# initcheck about 1 run in 20, memcheck 2 in 32 on an H100, never alone and
# never without the tool (compute-sanitizer's instrumentation of conditional
# nodes is known to misfire). The rerun is announced; a second such stop fails.
#
# Exit status: 0 the run passed and the tool reported 0 errors; 1 errors were
# reported or the stage failed, or no GPU while CSG_REQUIRE_GPU is set; 2 bad
# usage; 77 no compute-sanitizer or no GPU here (ctest's SKIP_RETURN_CODE:
# reported as skipped, never as passed).
set -euo pipefail

api_errors=()
if [[ ${1:-} == --api-errors-expected ]]; then
  api_errors=(--report-api-errors no)
  shift
fi
if [[ $# -lt 2 ]]; then
  echo "usage: sanitize_run.sh [--api-errors-expected] TOOL BINARY [args...]" >&2
  exit 2
fi
tool="$1"
binary="$2"
shift 2
case "$tool" in
  memcheck) tool_args=(--tool memcheck --leak-check full ${api_errors[@]+"${api_errors[@]}"}) ;;
  racecheck | synccheck | initcheck) tool_args=(--tool "$tool") ;;
  *)
    echo "sanitize_run.sh: unknown tool '$tool' (memcheck, racecheck, synccheck, initcheck)" >&2
    exit 2
    ;;
esac

# shellcheck source=scripts/setup.sh
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

# Nothing checked is never a pass: without the tool, report "skipped".
if ! sanitizer="$(csg_find_compute_sanitizer)"; then
  echo "sanitize_run.sh: compute-sanitizer not found (${COMPUTE_SANITIZER:+COMPUTE_SANITIZER=$COMPUTE_SANITIZER is not executable; }not on PATH, beside nvcc or in /usr/local/cuda/bin); skipped" >&2
  exit 77
fi

# Without a GPU the sanitizer can't run anything: report "skipped", as the
# stages do, unless the caller insists on a GPU.
if ! gpus="$(csg_gpu_list)"; then
  if [[ -n ${CSG_REQUIRE_GPU:-} ]]; then
    echo "sanitize_run.sh: no GPU here: $gpus; CSG_REQUIRE_GPU is set, so that fails" >&2
    exit 1
  fi
  echo "sanitize_run.sh: no GPU here: $gpus; skipped" >&2
  exit 77
fi

log="$(mktemp)"
trap 'rm -f "$log"' EXIT
# memcheck, synccheck, initcheck: "========= ERROR SUMMARY: 0 errors";
# racecheck: "========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)".
no_errors_reported() { [[ $summary == "========= ERROR SUMMARY: 0 errors" || $summary == *"(0 errors, "* ]]; }
# A stop at an illegal address the tool attributes to no access: every line
# it wrote is one of these, and every error its summary counts is a CUDA call
# that returned the error or an allocation the stop left behind.
tool_lines_of_a_stop='^========= ( *$|COMPUTE-SANITIZER|Program hit |    Saved host backtrace|        Host Frame|Leaked [0-9]+ bytes|Target application returned|(LEAK|ERROR|RACECHECK) SUMMARY: )'
unattributed_stop() {
  grep -q cudaErrorIllegalAddress "$log" || return 1
  [[ -z "$(grep -E '^=========' "$log" | grep -vE "$tool_lines_of_a_stop")" ]] || return 1
  local counted listed
  counted="$(sed -nE 's/^========= (ERROR SUMMARY: ([0-9]+) error|RACECHECK SUMMARY: .*\(([0-9]+) error).*/\2\3/p' "$log" | tail -n 1)"
  listed="$(grep -cE '^========= (Program hit |Leaked [0-9]+ bytes)' "$log" || true)"
  [[ -n $counted && $counted -eq $listed ]]
}
for attempt in 1 2; do
  status=0
  "$sanitizer" "${tool_args[@]}" --error-exitcode 1 "$binary" "$@" >"$log" 2>&1 || status=$?
  cat "$log"
  summary="$(grep -E '^========= (ERROR|RACECHECK) SUMMARY: ' "$log" | tail -n 1 || true)"
  if [[ $attempt -eq 1 && $status -ne 0 ]] && unattributed_stop; then
    echo "sanitize_run.sh: $tool on $(basename "$binary") stopped at an illegal address it attributed to no access; once more" >&2
    continue
  fi
  break
done
if [[ $status -ne 0 ]]; then
  echo "sanitize_run.sh: $tool on $(basename "$binary") exited $status; ${summary:-no error summary}" >&2
  exit 1
fi
if ! no_errors_reported; then
  echo "sanitize_run.sh: $tool on $(basename "$binary"): ${summary:-no error summary printed}" >&2
  exit 1
fi
echo "sanitize_run.sh: $tool on $(basename "$binary"): 0 errors" >&2
