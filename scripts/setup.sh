#!/usr/bin/env bash
# The one set-up path: checks what building, testing and reporting need and
# installs what is missing. scripts/test.sh (and so .ci/run, which runs it),
# scripts/run_suite.sh, scripts/gpu_box_check.sh and scripts/sanitize.sh
# source this file and call csg_setup, so the README's two commands set up a fresh
# Debian/Ubuntu machine with the CUDA Toolkit, as root or with sudo.
#
# Usage:  scripts/setup.sh            check and install, then say what is used
#         source scripts/setup.sh && csg_setup [build] [python]
#                                     the same inside a script (default: both)
#
#   build:  libcxxopts-dev nlohmann-json3-dev libgtest-dev libgmock-dev (apt), cmake >= 3.24,
#           ninja, a C++ compiler (g++), nvcc (on PATH or in /usr/local/cuda/bin;
#           never installed here: the CUDA Toolkit comes from NVIDIA)
#   python: python3 >= 3.11 with matplotlib (report.py's plots), jsonschema
#           (report.py checks every result against docs/result.schema.json)
#           and pytest (the Python tests). Which python3 gets them:
#           - python3 on PATH, if it already imports all three;
#           - else the project's .venv/, if it exists (an earlier set-up made it);
#           - Debian's/Ubuntu's /usr/bin/python3: apt python3-matplotlib
#             python3-jsonschema python3-pytest (its pip refuses to install:
#             "externally-managed-environment");
#           - a virtual environment you activated: pip installs into it;
#           - any other python3 (pyenv, a Python built from source): a
#             project-local .venv/ made from it, pip installs there.
#
# Packages are installed with apt-get as root, or through sudo; where neither
# works, ONE line names the command to run and the exit status is 77, the
# status every script uses for "a tool it needs is missing".
#
# After csg_setup: `python3` on PATH is the interpreter with them (the
# .venv's bin/ comes first on PATH when that is the one), CSG_PYTHON is its
# absolute path (scripts pass it to CMake as Python3_EXECUTABLE, so ctest's
# Python tests run with it), nvcc is on PATH, and CSG_SETUP_DONE=1 is
# exported: the scripts and tests started from there (ctest runs
# run_suite.sh with stand-in tools) skip the checks. Export CSG_SETUP_DONE=1
# yourself to skip them.

csg_cmake_minimum=3.24
csg_python_minimum=3.11
csg_cxx_packages=(libcxxopts-dev nlohmann-json3-dev libgtest-dev libgmock-dev)
# The Python modules the scripts and tests import; Debian names each python3-<module>.
csg_python_modules=(matplotlib jsonschema pytest)

csg_setup_log() { echo "setup: $*" >&2; }

# csg_help_if SCRIPT ARGS...: where any of ARGS is -h or --help, prints
# SCRIPT's header comment (its help) and exits 0, whatever else ARGS holds.
csg_help_if() {
  local script="$1" arg
  shift
  for arg in "$@"; do
    if [[ $arg == -h || $arg == --help ]]; then
      awk 'NR == 1 { next } !/^#/ { exit } { sub(/^# ?/, ""); print }' "$script"
      exit 0
    fi
  done
}

# csg_check_preset SCRIPT PRESET: one line and exit 2 unless PRESET is one of
# CMakePresets.json's.
csg_check_preset() {
  if [[ ! $2 =~ ^(default|debug|ci)$ ]]; then
    echo "$1: unknown preset '$2' (use default, debug or ci)" >&2
    exit 2
  fi
}

# csg_setup_fail LINE: the one line for a tool that can't be had here; status 77,
# which `csg_setup_fail LINE || return` hands on as csg_setup's.
csg_setup_fail() {
  csg_setup_log "$@"
  return 77
}

# csg_path_first DIR: DIR first on PATH, where PATH does not have it yet.
csg_path_first() {
  [[ ":$PATH:" == *":$1:"* ]] || export PATH="$1:$PATH"
}

# "3.25.1" >= "3.24"?
csg_version_at_least() {
  [[ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n 1)" == "$2" ]]
}

# nvcc on PATH, else where the CUDA Toolkit installs it (its installer does
# not touch PATH). Prints its path; status 1 if there is none.
csg_find_nvcc() {
  local nvcc
  for nvcc in "$(command -v nvcc)" "${CUDACXX:-}" /usr/local/cuda/bin/nvcc; do
    [[ -n $nvcc && -x $nvcc ]] && echo "$nvcc" && return 0
  done
  return 1
}

# compute-sanitizer: $COMPUTE_SANITIZER, else PATH, else beside nvcc, else
# /usr/local/cuda/bin. Prints its path; status 1 if there is none.
csg_find_compute_sanitizer() {
  local sanitizer="${COMPUTE_SANITIZER:-}" nvcc
  if [[ -n $sanitizer ]]; then
    [[ -x $sanitizer ]] && echo "$sanitizer"
    return
  fi
  nvcc="$(csg_find_nvcc)" || nvcc=""
  for sanitizer in "$(command -v compute-sanitizer)" "${nvcc:+$(dirname "$nvcc")/compute-sanitizer}" \
    /usr/local/cuda/bin/compute-sanitizer; do
    [[ -n $sanitizer && -x $sanitizer ]] && echo "$sanitizer" && return 0
  done
  return 1
}

# The GPUs nvidia-smi (it comes with the driver) lists, one a line; status 1
# with the reason on stdout when there is none.
csg_gpu_list() {
  local listing
  if ! command -v nvidia-smi >/dev/null 2>&1; then
    echo "nvidia-smi, which comes with the NVIDIA driver, is not installed"
    return 1
  fi
  if ! listing="$(nvidia-smi -L 2>&1)"; then
    echo "nvidia-smi -L failed: $(head -n 1 <<<"$listing")"
    return 1
  fi
  # "No devices found." exits 0 on some drivers: print the GPU lines, if any.
  if ! grep '^GPU [0-9]' <<<"$listing"; then
    echo "nvidia-smi -L lists no GPU"
    return 1
  fi
}

# csg_require_gpu_and_sanitizer SCRIPT: prints compute-sanitizer's path, or
# one line naming what is missing (a GPU, or the tool) and returns 77.
csg_require_gpu_and_sanitizer() {
  local gpus sanitizer
  if ! gpus="$(csg_gpu_list)"; then
    echo "$1: no GPU here: $gpus; run it on a machine with a CUDA GPU and its driver" >&2
    return 77
  fi
  if ! sanitizer="$(csg_find_compute_sanitizer)"; then
    echo "$1: compute-sanitizer not found (not on PATH, \$COMPUTE_SANITIZER, beside nvcc or in /usr/local/cuda/bin); it ships with the CUDA Toolkit: put its bin/ on PATH or set COMPUTE_SANITIZER=/path/to/compute-sanitizer" >&2
    return 77
  fi
  echo "$sanitizer"
}

# Sets cmake_version to the version of the cmake on PATH; status 0 when it is
# older than csg_cmake_minimum (an unreadable one is left to CMake to refuse).
csg_cmake_too_old() {
  cmake_version="$(cmake --version 2>/dev/null | sed -n '1s/^cmake version \([0-9][0-9.]*\).*/\1/p')"
  [[ -n $cmake_version ]] && ! csg_version_at_least "$cmake_version" "$csg_cmake_minimum"
}

# What the python3 at $1 is: "<executable> <version> <kind> <modules>", kind
# venv, system (Debian's /usr, whose pip refuses) or other; modules "yes", else
# those of csg_python_modules it lacks (comma-separated). Status 1 if it does not run.
csg_python_facts() {
  "$1" - "${csg_python_modules[@]}" 2>/dev/null <<'PY'
import importlib.util, sys
kind = "venv" if sys.prefix != sys.base_prefix else "system" if sys.prefix == "/usr" else "other"
missing = [m for m in sys.argv[1:] if importlib.util.find_spec(m) is None]
print(sys.executable, "%d.%d" % sys.version_info[:2], kind, ",".join(missing) or "yes")
PY
}

# csg_setup [build] [python]: see the header. Status 0 set up, 77 something
# is missing that can't be installed here (one line says what to run).
csg_setup() {
  if [[ ${CSG_SETUP_DONE:-} == 1 ]]; then
    # Checked already (or skipped on purpose): python3 on PATH is the one.
    CSG_PYTHON="${CSG_PYTHON:-$(command -v python3 || true)}"
    export CSG_PYTHON
    return 0
  fi
  local repo_root need want_build=no want_python=no
  repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  [[ $# -eq 0 ]] && set -- build python
  for need in "$@"; do
    case $need in
      build) want_build=yes ;;
      python) want_python=yes ;;
      *)
        echo "setup: unknown need '$need' (build, python)" >&2
        return 2
        ;;
    esac
  done

  # --- what the build needs -----------------------------------------------------------
  local apt_packages=() nvcc="" cmake_version="" package
  if [[ $want_build == yes ]]; then
    # nvcc first: set-up can't install it, so stop before installing anything else.
    if ! nvcc="$(csg_find_nvcc)"; then
      csg_setup_fail "nvcc not found (not on PATH, not in /usr/local/cuda/bin): install the CUDA Toolkit 12 or newer (https://developer.nvidia.com/cuda-downloads) and put its bin/ on PATH" || return
    fi
    csg_path_first "$(dirname "$nvcc")"
    if command -v dpkg-query >/dev/null 2>&1; then
      for package in "${csg_cxx_packages[@]}"; do
        [[ "$(dpkg-query -W -f='${db:Status-Status}' "$package" 2>/dev/null)" == installed ]] ||
          apt_packages+=("$package")
      done
    fi
    # Without dpkg, configuring names a missing C++ package (cmake/Dependencies.cmake).
    command -v ninja >/dev/null 2>&1 || apt_packages+=(ninja-build)
    # nvcc compiles host code with the system's C++ compiler; the CUDA Toolkit brings none.
    if [[ -z ${CXX:-} ]] && ! command -v c++ >/dev/null 2>&1 && ! command -v g++ >/dev/null 2>&1; then
      apt_packages+=(g++)
    fi
    if ! command -v cmake >/dev/null 2>&1 || csg_cmake_too_old; then
      apt_packages+=(cmake)
    fi
  fi

  # --- which python3, and how it gets its modules ------------------------------------
  local venv="$repo_root/.venv" python_plan="" facts="" python=""
  if [[ $want_python == yes ]]; then
    local path_facts=""
    if command -v python3 >/dev/null 2>&1 && ! path_facts="$(csg_python_facts python3)"; then
      csg_setup_fail "$(command -v python3) does not run: fix it, or put a working python3 >= $csg_python_minimum first on PATH" || return
    fi
    if [[ $path_facts == *" yes" ]]; then
      python_plan=ready  # yours (system, pyenv, an active virtual environment) already has them
      facts="$path_facts"
    elif [[ -x $venv/bin/python3 ]] && facts="$(csg_python_facts "$venv/bin/python3")"; then
      python_plan=venv  # the project's own, made by an earlier set-up
    elif [[ -z $path_facts ]]; then
      python_plan=apt
      apt_packages+=(python3 "${csg_python_modules[@]/#/python3-}")
    else
      facts="$path_facts"
      case $facts in
        *" system "*)
          python_plan=apt
          local -a missing_modules
          IFS=, read -r -a missing_modules <<<"${facts##* }"
          apt_packages+=("${missing_modules[@]/#/python3-}")
          ;;
        *" venv "*) python_plan=pip-active ;;
        *) python_plan=new-venv ;;
      esac
    fi
    if [[ -n $facts ]]; then
      local executable version
      read -r executable version _ <<<"$facts"
      if ! csg_version_at_least "$version" "$csg_python_minimum"; then
        csg_setup_fail "$executable is Python $version; the scripts need $csg_python_minimum or newer: put one first on PATH (pyenv, or your distribution's python3)" || return
      fi
    fi
  fi

  # --- install with apt ------------------------------------------------------------------
  if [[ ${#apt_packages[@]} -gt 0 ]]; then
    if ! command -v apt-get >/dev/null 2>&1; then
      csg_setup_fail "missing ${apt_packages[*]} (Debian/Ubuntu names) and there is no apt-get: install them with your package manager" || return
    fi
    # What runs apt-get as root, and how a message writes it: none as root, sudo where there is sudo.
    local as_root=(env DEBIAN_FRONTEND=noninteractive) root_hint=""
    if [[ $(id -u) -ne 0 ]] && command -v sudo >/dev/null 2>&1; then
      # "sudo env ...": sudo's policy may refuse VAR=value but runs env.
      as_root=(sudo "${as_root[@]}")
      root_hint="sudo "
    elif [[ $(id -u) -ne 0 ]]; then
      csg_setup_fail "missing ${apt_packages[*]}; not root and no sudo, so as root run: apt-get update && apt-get install -y --no-install-recommends ${apt_packages[*]}" || return
    fi
    local command_line="${root_hint}apt-get update && ${root_hint}apt-get install -y --no-install-recommends ${apt_packages[*]}"
    csg_setup_log "installing ${apt_packages[*]}: $command_line"
    if ! "${as_root[@]}" apt-get update -q >&2 ||
      ! "${as_root[@]}" apt-get install -y -q --no-install-recommends "${apt_packages[@]}" >&2; then
      csg_setup_fail "installing ${apt_packages[*]} failed (see above); run: $command_line" || return
    fi
    hash -r  # forget where bash last found cmake, ninja and python3
  fi

  if [[ $want_build == yes ]]; then
    if ! command -v cmake >/dev/null 2>&1 || ! command -v ninja >/dev/null 2>&1; then
      csg_setup_fail "cmake or ninja still not on PATH after installing them: put /usr/bin on PATH" || return
    fi
    if csg_cmake_too_old; then
      csg_setup_fail "cmake $cmake_version is older than $csg_cmake_minimum and apt has no newer one: run python3 -m pip install --user cmake (or get it from https://cmake.org/download) and put it first on PATH" || return
    fi
  fi

  # --- the modules with pip, where apt is not the way ---------------------------------
  local requirements="$repo_root/scripts/requirements.txt"
  local pip_quiet=(--quiet --disable-pip-version-check)
  case $python_plan in
    ready | "") ;;
    apt)
      hash -r
      if ! facts="$(csg_python_facts python3)" || [[ ${facts##* } != yes ]]; then
        csg_setup_fail "${csg_python_modules[*]/#/python3-} are installed but $(command -v python3) does not import ${facts##* }: put /usr/bin first on PATH" || return
      fi
      ;;
    pip-active)
      csg_setup_log "installing ${facts##* } into the active virtual environment: python3 -m pip install -r scripts/requirements.txt"
      if ! python3 -m pip install "${pip_quiet[@]}" -r "$requirements" >&2; then
        csg_setup_fail "pip could not install ${facts##* } (see above); run: python3 -m pip install -r scripts/requirements.txt" || return
      fi
      facts="$(csg_python_facts python3)"
      ;;
    new-venv | venv)
      if [[ $python_plan == new-venv ]]; then
        csg_setup_log "$(command -v python3) has no ${facts##* }: making .venv/ from it for the scripts and tests"
        # --clear: a .venv/ whose python3 no longer runs (its pyenv version removed) is remade.
        if ! python3 -m venv --clear "$venv" >&2; then
          csg_setup_fail "python3 -m venv .venv failed (see above); activate a virtual environment and run: python3 -m pip install -r scripts/requirements.txt" || return
        fi
        # git ignores the folder by itself: no entry needed in .gitignore.
        echo '*' >"$venv/.gitignore"
        facts="$(csg_python_facts "$venv/bin/python3")"
      fi
      if [[ ${facts##* } != yes ]]; then
        csg_setup_log "installing ${facts##* } into .venv/: .venv/bin/python3 -m pip install -r scripts/requirements.txt"
        if ! "$venv/bin/python3" -m pip install "${pip_quiet[@]}" -r "$requirements" >&2; then
          csg_setup_fail "pip could not install ${facts##* } into .venv/ (see above); run: .venv/bin/python3 -m pip install -r scripts/requirements.txt" || return
        fi
        facts="$(csg_python_facts "$venv/bin/python3")"
      fi
      # The venv's python3 comes first, for the scripts and for ctest's tests.
      export VIRTUAL_ENV="$venv"
      csg_path_first "$venv/bin"
      hash -r
      ;;
  esac
  if [[ $want_python == yes ]]; then
    [[ -n $facts ]] || facts="$(csg_python_facts python3)"
    python="${facts%% *}"
    export CSG_PYTHON="$python"
  fi

  local summary=""
  [[ $want_build == no ]] ||
    summary="nvcc $("$nvcc" --version | sed -n 's/.*release \([0-9.]*\).*/\1/p'), cmake ${cmake_version:-?}, ninja $(ninja --version)"
  [[ -z $python ]] || summary="${summary:+$summary, }python3 $python with ${csg_python_modules[*]}"
  csg_setup_log "ready: $summary"
  export CSG_SETUP_DONE=1
}

# Run directly: set up everything and say what is used.
if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
  set -euo pipefail
  csg_help_if "${BASH_SOURCE[0]}" "$@"
  csg_setup "$@" || exit $?
fi
