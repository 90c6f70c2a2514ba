# The GPU targets of two kinds of target, each with one STATUS line saying
# what was chosen and why.
#
# The stage binaries and the libraries (csg_choose_cuda_architectures, before
# project() so that a user's -DCMAKE_CUDA_ARCHITECTURES=... or the CUDAARCHS
# environment variable still win):
#
# - A GPU here (nvidia-smi lists one): build for it alone. One architecture
#   instead of seven makes the first build several times faster, and the
#   binaries are for this machine anyway.
# - No GPU (CI, a build machine): the portable set, machine code for Turing
#   through Blackwell (sm_90 is the H200 the reference figures come from) plus
#   PTX of the newest, so that a future GPU can JIT-compile it. No GPU is
#   needed to configure or build.
#
# The choice is made again at every configure while it is ours (the cache
# remembers which value that was), so it follows the machine; a value the
# user set is never touched.

# The portable set. tests/cpu/test_readme_facts.cpp reads this line to compare
# it with what the README says: keep it on one line.
set(CSG_PORTABLE_CUDA_ARCHITECTURES "75-real;80-real;86-real;89-real;90-real;100-real;120-real;120-virtual")

function(csg_choose_cuda_architectures)
  set(csg_portable_cuda_architectures "${CSG_PORTABLE_CUDA_ARCHITECTURES}")
  set(csg_change_hint "set CMAKE_CUDA_ARCHITECTURES or CUDAARCHS to choose")

  if(DEFINED CMAKE_CUDA_ARCHITECTURES
     AND NOT "${CMAKE_CUDA_ARCHITECTURES}" STREQUAL "$CACHE{CSG_DEFAULT_CUDA_ARCHITECTURES}")
    message(STATUS "CUDA architectures of the stages and common: ${CMAKE_CUDA_ARCHITECTURES} "
                   "(CMAKE_CUDA_ARCHITECTURES as you set it, with -D or with CUDAARCHS at the first configure)")
    unset(CSG_DEFAULT_CUDA_ARCHITECTURES CACHE)
    return()
  endif()

  if(NOT "$ENV{CUDAARCHS}" STREQUAL "")
    # project() reads CUDAARCHS only while the cache holds no value; ours gives way to it.
    set(CMAKE_CUDA_ARCHITECTURES "$ENV{CUDAARCHS}" CACHE STRING "CUDA architectures to build for" FORCE)
    unset(CSG_DEFAULT_CUDA_ARCHITECTURES CACHE)
    message(STATUS "CUDA architectures of the stages and common: $ENV{CUDAARCHS} (from the CUDAARCHS environment variable)")
    return()
  endif()

  # What the GPUs here are: "NVIDIA H200, 9.0", one line per GPU.
  set(csg_gpu_architectures "")
  set(csg_gpu_names "")
  set(csg_no_gpu_reason "")
  find_program(csg_nvidia_smi nvidia-smi NO_CACHE)
  if(NOT csg_nvidia_smi)
    set(csg_no_gpu_reason "no nvidia-smi here")
  else()
    execute_process(
      COMMAND "${csg_nvidia_smi}" --query-gpu=name,compute_cap --format=csv,noheader
      RESULT_VARIABLE csg_smi_result
      OUTPUT_VARIABLE csg_smi_output
      ERROR_QUIET
      OUTPUT_STRIP_TRAILING_WHITESPACE
      TIMEOUT 30)
    if(NOT csg_smi_result EQUAL 0)
      set(csg_no_gpu_reason "nvidia-smi found no GPU")
    else()
      string(REPLACE "\n" ";" csg_smi_lines "${csg_smi_output}")
      foreach(csg_line IN LISTS csg_smi_lines)
        if(csg_line MATCHES "^(.*), *([0-9]+)\\.([0-9]+) *$")
          list(APPEND csg_gpu_architectures "${CMAKE_MATCH_2}${CMAKE_MATCH_3}")
          list(APPEND csg_gpu_names "${CMAKE_MATCH_1} (${CMAKE_MATCH_2}.${CMAKE_MATCH_3})")
        endif()
      endforeach()
      list(REMOVE_DUPLICATES csg_gpu_architectures)
      list(REMOVE_DUPLICATES csg_gpu_names)
      if(NOT csg_gpu_architectures)
        set(csg_no_gpu_reason "nvidia-smi listed no GPU")
      endif()
    endif()
  endif()

  # A GPU older than this nvcc supports (CUDA 13 dropped sm_50 to sm_72) can't
  # be built for; say so instead of letting the compiler check fail in project().
  if(csg_gpu_architectures)
    unset(csg_nvcc)
    if(DEFINED CMAKE_CUDA_COMPILER)
      set(csg_nvcc "${CMAKE_CUDA_COMPILER}")
    elseif(DEFINED ENV{CUDACXX})
      set(csg_nvcc "$ENV{CUDACXX}")
    else()
      find_program(csg_nvcc nvcc HINTS /usr/local/cuda/bin NO_CACHE)
    endif()
    if(csg_nvcc)
      execute_process(COMMAND "${csg_nvcc}" --list-gpu-code
        RESULT_VARIABLE csg_list_result OUTPUT_VARIABLE csg_gpu_codes ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
      if(csg_list_result EQUAL 0)
        string(REPLACE "\n" ";" csg_gpu_codes "${csg_gpu_codes}")
        foreach(csg_arch IN LISTS csg_gpu_architectures)
          if(NOT "sm_${csg_arch}" IN_LIST csg_gpu_codes)
            list(JOIN csg_gpu_codes " " csg_codes_text)
            message(WARNING "This nvcc cannot build for the GPU here (sm_${csg_arch}; it builds ${csg_codes_text}). "
                            "Building the portable set instead; install a CUDA Toolkit that supports it.")
            set(csg_gpu_architectures "")
            set(csg_no_gpu_reason "this nvcc does not support the GPU here")
            break()
          endif()
        endforeach()
      endif()
    endif()
  endif()

  if(csg_gpu_architectures)
    # "90" is machine code and PTX for sm_90: one ptxas pass, and the PTX
    # keeps the binary running on a newer GPU.
    set(csg_chosen "${csg_gpu_architectures}")
    list(JOIN csg_gpu_names ", " csg_names_text)
    list(LENGTH csg_gpu_names csg_gpu_count)
    if(csg_gpu_count GREATER 1)
      set(csg_reason "the GPUs here: ${csg_names_text}")
    else()
      set(csg_reason "the GPU here: ${csg_names_text}")
    endif()
  else()
    set(csg_chosen "${csg_portable_cuda_architectures}")
    set(csg_reason "${csg_no_gpu_reason}: the portable set, Turing to Blackwell and PTX")
  endif()
  set(CMAKE_CUDA_ARCHITECTURES "${csg_chosen}" CACHE STRING "CUDA architectures to build for" FORCE)
  set(CSG_DEFAULT_CUDA_ARCHITECTURES "${csg_chosen}" CACHE INTERNAL "the CUDA architectures cmake/Architectures.cmake chose")
  message(STATUS "CUDA architectures of the stages and common: ${csg_chosen} (${csg_reason}; ${csg_change_hint})")
endfunction()

# The test binaries (csg_choose_test_cuda_architectures, after project()):
# they run only on the machine that built them, so they are built for its GPU
# alone (CMake's "native": what CMake's compiler check found running here), or
# where there is none for one architecture, sm_90 (the H200 the reference
# figures come from) with its PTX: enough to compile every test and link it,
# in an eighth of the portable set's time. Their own .cu files are what
# compile per architecture; the stage libraries and common they link keep
# the stage binaries' list. -DCSG_TEST_CUDA_ARCHITECTURES=... chooses.
function(csg_choose_test_cuda_architectures)
  set(CSG_TEST_CUDA_ARCHITECTURES "" CACHE STRING
      "CUDA architectures of the test binaries (empty: the GPU here, else 90)")
  if(NOT "${CSG_TEST_CUDA_ARCHITECTURES}" STREQUAL "")
    set(csg_chosen "${CSG_TEST_CUDA_ARCHITECTURES}")
    set(csg_reason "CSG_TEST_CUDA_ARCHITECTURES as you set it")
  elseif(NOT "${CMAKE_CUDA_ARCHITECTURES_NATIVE}" STREQUAL "")
    set(csg_chosen native)
    list(JOIN CMAKE_CUDA_ARCHITECTURES_NATIVE ";" csg_native_text)
    set(csg_reason "${csg_native_text}: the GPU here; they run only where they were built")
  else()
    set(csg_chosen 90)
    set(csg_reason "no GPU found by CMake's compiler check: one architecture, enough to build them")
  endif()
  set(CSG_TEST_CUDA_ARCHITECTURES_CHOSEN "${csg_chosen}" PARENT_SCOPE)
  message(STATUS "CUDA architectures of the test binaries: ${csg_chosen} (${csg_reason}; "
                 "set CSG_TEST_CUDA_ARCHITECTURES to choose)")
endfunction()

csg_choose_cuda_architectures()
