# Every test ctest has registered in a build folder, by name: at most
# MAX_LENGTH characters (80), no two the same, and only letters, digits and
# . _ - / (a parameterised test without a name generator shows up as a dump
# of its parameter's bytes, with spaces and quotes). Fails naming each
# offender and its length.
#
# cmake -DCTEST=<ctest> -DBUILD_DIR=<build folder> -DMAX_LENGTH=80 -P check_test_names.cmake
# cmake -DCTEST=<ctest> -DBUILD_DIR=<scratch folder> -DMAX_LENGTH=80 -DSELF_TEST=ON -P check_test_names.cmake
#   the check itself: in BUILD_DIR/names_fixture, a folder of four made-up
#   tests (one too long, one a byte dump, one registered twice, one fine), it
#   must find exactly the three problems.
cmake_minimum_required(VERSION 3.24)
foreach(required CTEST BUILD_DIR MAX_LENGTH)
  if(NOT DEFINED ${required})
    message(FATAL_ERROR "check_test_names.cmake: -D${required}=... is required")
  endif()
endforeach()

# Sets `out` to one line per problem in the tests registered in `dir`, and `count` to their number.
function(csg_test_name_problems dir out count)
  execute_process(COMMAND "${CTEST}" --show-only=json-v1 --test-dir "${dir}"
                  RESULT_VARIABLE result OUTPUT_VARIABLE listing ERROR_VARIABLE errors)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "ctest --show-only=json-v1 failed (${result}): ${errors}")
  endif()
  string(JSON total LENGTH "${listing}" tests)
  set(problems "")
  set(seen "")
  if(total GREATER 0)
    math(EXPR last "${total} - 1")
    foreach(index RANGE ${last})
      string(JSON name GET "${listing}" tests ${index} name)
      string(LENGTH "${name}" length)
      if(length GREATER MAX_LENGTH)
        string(APPEND problems "\n  ${length} characters: ${name}")
      endif()
      if(NOT name MATCHES "^[A-Za-z0-9._/-]+$")
        string(APPEND problems "\n  characters other than letters, digits and . _ - /: ${name}")
      endif()
      if(name IN_LIST seen)
        string(APPEND problems "\n  registered twice: ${name}")
      endif()
      list(APPEND seen "${name}")
    endforeach()
  endif()
  set(${out} "${problems}" PARENT_SCOPE)
  set(${count} ${total} PARENT_SCOPE)
endfunction()

if(SELF_TEST)
  set(fixture "${BUILD_DIR}/names_fixture")
  file(REMOVE_RECURSE "${fixture}")
  string(REPEAT "x" 81 long_name)
  file(WRITE "${fixture}/CTestTestfile.cmake"
       "add_test([=[Suite.${long_name}]=] true)\n"
       "add_test([=[Kinds/Test.Case/\"\\001\\002\" # GetParam()]=] true)\n"
       "add_test([=[Suite.Twice]=] true)\n"
       "add_test([=[Suite.Twice]=] true)\n"
       "add_test([=[Suite.Fine]=] true)\n")
  csg_test_name_problems("${fixture}" problems count)
  file(REMOVE_RECURSE "${fixture}")
  foreach(expected "87 characters: Suite.x" "characters other than letters" "registered twice: Suite.Twice")
    string(FIND "${problems}" "${expected}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "the check missed '${expected}' among 5 made-up tests; it found:${problems}")
    endif()
  endforeach()
  string(FIND "${problems}" "Suite.Fine" fine)
  if(NOT fine EQUAL -1)
    message(FATAL_ERROR "the check refused a fine name:${problems}")
  endif()
  message(STATUS "the check finds a long name, a byte dump and a repeat, and passes a fine name")
  return()
endif()

csg_test_name_problems("${BUILD_DIR}" problems count)
if(count EQUAL 0)
  message(FATAL_ERROR "ctest lists no test in ${BUILD_DIR}")
endif()
if(problems)
  message(FATAL_ERROR "test names longer than ${MAX_LENGTH} characters, unreadable or repeated "
                      "(give parameterised tests a name generator):${problems}")
endif()
message(STATUS "${count} test names, each at most ${MAX_LENGTH} characters, readable and distinct")
