#!/usr/bin/env bash
# The test command: configure, build and run every ctest test of one preset.
#
# Usage:  scripts/test.sh [preset] [ctest arguments...]
#         scripts/test.sh                 # preset "default" (Release)
#         scripts/test.sh ci              # Release with warnings as errors, as CI runs it
#         scripts/test.sh default -L cpu  # only the CPU-side tests
#
# On a machine without a GPU the GPU tests skip themselves (exit code 77 or
# GTEST_SKIP) and ctest lists them as "Not Run"/skipped: that is expected and
# is not a failure. To make a missing GPU fail instead, export CSG_REQUIRE_GPU=1
# (scripts/gpu_box_check.sh does that).
#
# Exit status: ctest's (non-zero if configuring or building fails first).
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo_root"

# The first argument is the preset unless it is already a ctest option
# ("scripts/test.sh -L cpu" runs the default preset's CPU tests).
preset=default
if [[ $# -gt 0 && $1 != -* ]]; then
  preset="$1"
  shift
fi
case "$preset" in
  default | debug | ci) ;;
  *)
    echo "test.sh: unknown preset '$preset' (use default, debug or ci)" >&2
    exit 2
    ;;
esac

if [[ ${1:-} == -h || ${1:-} == --help ]]; then
  sed -n '2,14p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
  exit 0
fi

jobs="$(nproc 2>/dev/null || echo 2)"

echo "==> cmake --preset $preset" >&2
cmake --preset "$preset"
echo "==> cmake --build --preset $preset -j $jobs" >&2
cmake --build --preset "$preset" -j "$jobs"
echo "==> ctest --preset $preset${*:+ $*}" >&2
status=0
ctest --preset "$preset" "$@" || status=$?
if [[ $status -eq 0 ]]; then
  echo "==> tests passed (without a CUDA device the GPU tests are listed as skipped; that is expected)" >&2
else
  echo "==> ctest failed with exit status $status" >&2
fi
exit "$status"
