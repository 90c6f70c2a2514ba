#!/usr/bin/env bash
# Every stage under the compute-sanitizer tools (memcheck with --leak-check
# full and initcheck everywhere; racecheck and synccheck where the kernels
# hold shared memory or barriers: a run's table marks it s, else m) at tiny
# sizes, and a summary.
# The runs themselves are ctest tests with the label "sanitizer" (registered
# from each stage's own list by tests/support/stage_runs.cmake), so the
# GPU-box check runs them too.
#
# Usage:  scripts/sanitize.sh [preset]      (default preset: default)
#
# Before building: no compute-sanitizer (on PATH, $COMPUTE_SANITIZER, beside
# nvcc or in /usr/local/cuda/bin) or no GPU (nvidia-smi -L lists none): one
# line, exit 77. A run that checked nothing never passes: a missing GPU fails
# each run (CSG_REQUIRE_GPU=1), and no registered sanitizer test is an error.
#
# Exit status: 0 when every run reported 0 errors, else ctest's status;
# 77 no compute-sanitizer, no GPU, or a tool missing that set-up can't install;
# 2 bad usage.
set -euo pipefail
self="$(realpath "${BASH_SOURCE[0]}")"  # its header is its --help
cd "$(dirname "$self")/.."
# shellcheck source=scripts/setup.sh
source scripts/setup.sh

csg_help_if "$self" "$@"
preset="${1:-default}"
csg_check_preset sanitize.sh "$preset"
sanitizer="$(csg_require_gpu_and_sanitizer sanitize.sh)" || exit $?
csg_setup build || exit $?  # its one line says what to run

jobs="$(nproc 2>/dev/null || echo 2)"
# The tests are registered only where CMake finds compute-sanitizer: name the
# one found here, so that one is used.
cmake --preset "$preset" "-DCSG_COMPUTE_SANITIZER=$sanitizer" >/dev/null
cmake --build --preset "$preset" -j "$jobs"
export CSG_REQUIRE_GPU=1  # on a GPU box a skipped sanitizer run is a failure
export COMPUTE_SANITIZER="$sanitizer"
# As many runs at once as there are cores: the runs that flood every SM hold
# the lock "whole_gpu" and never meet (tests/CMakeLists.txt).
ctest --test-dir "build/$preset" -L sanitizer --output-on-failure --no-tests=error -j "$jobs"
