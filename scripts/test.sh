#!/usr/bin/env bash
# The test command: set up, configure, build and run every ctest test of one
# preset.
#
# Usage:  scripts/test.sh [preset] [ctest arguments...]
#         scripts/test.sh                 # preset "default" (Release)
#         scripts/test.sh ci              # Release with warnings as errors, as CI runs it
#         scripts/test.sh default -L cpu  # only the CPU-side tests
#
# Set-up first (scripts/setup.sh; its --help says what it installs, and how):
# where it can't, one line names the command to run and the exit status is 77.
# CMake is then configured with -DPython3_EXECUTABLE=<the python3 it checked>,
# so ctest's report tests use the one with matplotlib, jsonschema and pytest.
#
# ctest runs as many tests at once as this machine has cores (-j $(nproc);
# a -j among the ctest arguments wins): the GPU tests that hold a run to its
# bound run alone after the others (RUN_SERIAL), the rest share the GPU.
#
# On a machine without a GPU the GPU tests skip themselves (exit code 77 or
# GTEST_SKIP) and ctest lists them as "Not Run"/skipped: that is expected and
# is not a failure. To make a missing GPU fail instead, export CSG_REQUIRE_GPU=1
# (scripts/gpu_box_check.sh does that).
#
# Exit status: ctest's (non-zero if configuring or building fails first);
# 77 a tool missing that set-up could not install; 2 bad usage.
set -euo pipefail

self="$(realpath "${BASH_SOURCE[0]}")"  # its header is its --help
cd "$(dirname "$self")/.."
# shellcheck source=scripts/setup.sh
source scripts/setup.sh
csg_help_if "$self" "$@"

# The first argument is the preset unless it is already a ctest option
# ("scripts/test.sh -L cpu" runs the default preset's CPU tests).
preset=default
if [[ $# -gt 0 && $1 != -* ]]; then
  preset="$1"
  shift
fi
csg_check_preset test.sh "$preset"
csg_setup build python || exit $?  # its one line says what to run

jobs="$(nproc 2>/dev/null || echo 2)"

# Not the python3 CMake would find first (pyenv's, say, without matplotlib or pytest).
python_arg=(${CSG_PYTHON:+"-DPython3_EXECUTABLE=$CSG_PYTHON"})
echo "==> cmake --preset $preset${python_arg[*]:+ ${python_arg[*]}}" >&2
cmake --preset "$preset" "${python_arg[@]}"
echo "==> cmake --build --preset $preset -j $jobs" >&2
cmake --build --preset "$preset" -j "$jobs"
echo "==> ctest --preset $preset -j $jobs${*:+ $*}" >&2
status=0
ctest --preset "$preset" -j "$jobs" "$@" || status=$?
if [[ $status -eq 0 ]]; then
  echo "==> tests passed (without a CUDA device the GPU tests are listed as skipped; that is expected)" >&2
else
  echo "==> ctest failed with exit status $status" >&2
fi
exit "$status"
