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

# Sets `out` to one line per problem in the tests registered in `dir`, and
# `count` to their number. ctest's plain listing ("  Test  #12: <name>", one
# line per test) is read in one pass; its JSON listing, read name by name
# with string(JSON), cost a parse of the whole document per test (20 s for a
# thousand tests).
function(csg_test_name_problems dir out count)
  execute_process(COMMAND "${CTEST}" --show-only --test-dir "${dir}"
                  RESULT_VARIABLE result OUTPUT_VARIABLE listing ERROR_VARIABLE errors)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "ctest --show-only failed (${result}): ${errors}")
  endif()
  string(REPLACE ";" "<semicolon>" listing "${listing}")  # a name stays one item of a CMake list
  string(REGEX MATCHALL "Test +#[0-9]+: [^\n]*" lines "${listing}")
  set(problems "")
  set(names "")
  foreach(line IN LISTS lines)
    string(REGEX REPLACE "^Test +#[0-9]+: " "" name "${line}")
    string(LENGTH "${name}" length)
    if(length GREATER MAX_LENGTH)
      string(APPEND problems "\n  ${length} characters: ${name}")
    endif()
    if(NOT name MATCHES "^[A-Za-z0-9._/-]+$")
      string(APPEND problems "\n  characters other than letters, digits and . _ - /: ${name}")
    endif()
    list(APPEND names "${name}")
  endforeach()
  list(LENGTH names total)
  list(SORT names)
  set(previous "")
  foreach(name IN LISTS names)
    if(name STREQUAL previous)
      string(APPEND problems "\n  registered twice: ${name}")
    endif()
    set(previous "${name}")
  endforeach()
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
