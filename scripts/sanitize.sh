#!/usr/bin/env bash
# Every stage under every compute-sanitizer tool (memcheck with --leak-check
# full, racecheck, synccheck, initcheck) at tiny sizes, and a summary.
# The runs themselves are ctest tests with the label "sanitizer" (registered
# in tests/stage_runs/*.cmake), so the GPU-box check runs them too.
#
# Usage:  scripts/sanitize.sh [preset]      (default preset: default)
# Exit status: 0 when every run reported 0 errors, else ctest's status.
set -euo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo_root"
preset="${1:-default}"
jobs="$(nproc 2>/dev/null || echo 2)"
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j "$jobs"
export CSG_REQUIRE_GPU=1  # on a GPU box a skipped sanitizer run is a failure
ctest --test-dir "build/$preset" -L sanitizer --output-on-failure
