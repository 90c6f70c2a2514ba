# csg_read_listing(<out> <test> <label> <binary> <arguments>...): sets <out>
# to the lines a built binary prints for <arguments> (a stage's runs, a test
# binary's cases), a list, for the files ctest includes each time it starts
# (stage_runs.cmake, gtest_groups.cmake). Where it can't, <out> is empty and
# a test named <test> runs the same command instead, so ctest shows why: the
# binary not built yet (label gpu), or its listing failed (label <label>).
function(csg_read_listing out test label binary)
  set(${out} "" PARENT_SCOPE)
  if(NOT EXISTS "${binary}")
    set(label gpu)
  else()
    execute_process(COMMAND "${binary}" ${ARGN} OUTPUT_VARIABLE listing RESULT_VARIABLE status ERROR_QUIET)
    if(status EQUAL 0)
      string(REPLACE "\n" ";" lines "${listing}")
      set(${out} "${lines}" PARENT_SCOPE)
      return()
    endif()
  endif()
  add_test("${test}" "${binary}" ${ARGN})
  set_tests_properties("${test}" PROPERTIES LABELS ${label})
endfunction()
