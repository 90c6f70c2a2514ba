# Registers one GPU test binary's GoogleTest cases with ctest, a few cases to
# a process, read from "BINARY --gtest_list_tests" each time ctest starts (as
# gtest_discover_tests reads a binary). A CUDA process pays for its context
# before its first test: about 0.2 s, and on an H100 or H200 box starting
# contexts is about serial, so 16 processes at once take about 3 s. One
# process per case made the contexts, not the tests, set ctest's pace.
#
# Each test is named after its GoogleTest suite ("OwnersTest"; a suite run in
# several processes: "OwnersTest.1", "OwnersTest.2", ...) and runs its cases
# with --gtest_filter; `ctest -R OwnersTest --output-on-failure` shows each
# case's result. To run one case alone: BINARY --gtest_filter=Suite.Case.
# How the cases share the GPU, by name (regular expressions):
# - SERIAL ("Bound|Alone": a case that times a run against its bound or needs
#   the GPU to itself): RUN_SERIAL, after the others, one at a time; a suite's
#   such cases in one process.
# - WHOLE_GPU ("Priorities|Contention": a case that floods every SM): the
#   resource lock whole_gpu, as their sanitizer runs take it.
# - every other case runs beside the rest, CHUNK cases to a process.
# A process of which a case skipped (no GPU, no CUPTI) and none failed exits
# 77: reported as skipped, never as passed (support/gtest_exit.hpp).
#
# ctest includes this file (TEST_INCLUDE_FILES, written by tests/CMakeLists.txt)
# with BINARY, TARGET, SERIAL, WHOLE_GPU and CHUNK set.

cmake_policy(VERSION 3.24)  # the project's: list() keeps empty items, if() knows IN_LIST

include("${CMAKE_CURRENT_LIST_DIR}/read_listing.cmake")
csg_read_listing(lines "${TARGET}.list" gpu "${BINARY}" --gtest_list_tests)

# The cases in listing order, each into its group: <suite>.serial,
# <suite>.whole_gpu or <suite>.shared (no suite name holds a dot).
set(groups "")
set(suites "")
foreach(line IN LISTS lines)
  if(line MATCHES "^([^ ]+)\\.( |$)")  # "Suite." (a typed suite adds "  # TypeParam = ...")
    set(suite "${CMAKE_MATCH_1}")
    if(NOT suite IN_LIST suites)
      list(APPEND suites "${suite}")
      set(csg_processes_${suite} 0)
      set(csg_number_${suite} 0)
    endif()
  elseif(line MATCHES "^  ([^ ]+)")  # "  Case" (a parameterised case adds "  # GetParam() = ...")
    set(name "${suite}.${CMAKE_MATCH_1}")
    if(name MATCHES "${SERIAL}")
      set(group "${suite}.serial")
    elseif(name MATCHES "${WHOLE_GPU}")
      set(group "${suite}.whole_gpu")
    else()
      set(group "${suite}.shared")
    endif()
    if(NOT group IN_LIST groups)
      list(APPEND groups "${group}")
      set(csg_cases_${group} "")
    endif()
    list(APPEND csg_cases_${group} "${name}")
  endif()
endforeach()

# How many processes each group takes (a serial group's cases in one, the
# others' CHUNK at a time) and each suite in all, for the names.
foreach(group IN LISTS groups)
  string(REGEX REPLACE "\\.[a-z_]+$" "" suite "${group}")
  list(LENGTH csg_cases_${group} count)
  if(group MATCHES "\\.serial$")
    set(csg_chunks_${group} 1)
  else()
    math(EXPR csg_chunks_${group} "(${count} + ${CHUNK} - 1) / ${CHUNK}")
  endif()
  math(EXPR csg_processes_${suite} "${csg_processes_${suite}} + ${csg_chunks_${group}}")
endforeach()

foreach(group IN LISTS groups)
  string(REGEX REPLACE "\\.[a-z_]+$" "" suite "${group}")
  list(LENGTH csg_cases_${group} count)
  math(EXPR per_chunk "(${count} + ${csg_chunks_${group}} - 1) / ${csg_chunks_${group}}")
  math(EXPR last "${csg_chunks_${group}} - 1")
  foreach(chunk RANGE ${last})
    math(EXPR first "${chunk} * ${per_chunk}")
    list(SUBLIST csg_cases_${group} ${first} ${per_chunk} cases)  # never empty: chunks of ceil(count / chunks)
    list(LENGTH cases in_chunk)
    list(JOIN cases ":" filter)
    if(csg_processes_${suite} EQUAL 1)
      set(test "${suite}")
    else()
      math(EXPR csg_number_${suite} "${csg_number_${suite}} + 1")
      set(test "${suite}.${csg_number_${suite}}")
    endif()
    add_test("${test}" "${BINARY}" "--gtest_filter=${filter}")
    # Before ctest has timed them (a fresh build folder), the processes of
    # more cases start first.
    math(EXPR cost "2 * ${in_chunk}")
    set(properties LABELS gpu SKIP_RETURN_CODE 77 COST ${cost})
    if(group MATCHES "\\.serial$")
      list(APPEND properties RUN_SERIAL TRUE)
    elseif(group MATCHES "\\.whole_gpu$")
      list(APPEND properties RESOURCE_LOCK whole_gpu)
    endif()
    set_tests_properties("${test}" PROPERTIES ${properties})
  endforeach()
endforeach()
