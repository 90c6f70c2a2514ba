# Every test ctest has registered in a build folder, by name: at most
# MAX_LENGTH characters (80), no two the same, and only letters, digits and
# . _ - / (a parameterised test without a name generator shows up as a dump
# of its parameter's bytes, with spaces and quotes). Fails naming each
# offender and its length.
#
# cmake -DCTEST=<ctest> -DBUILD_DIR=<build folder> -DMAX_LENGTH=80 -P check_test_names.cmake
cmake_minimum_required(VERSION 3.24)
foreach(required CTEST BUILD_DIR MAX_LENGTH)
  if(NOT DEFINED ${required})
    message(FATAL_ERROR "check_test_names.cmake: -D${required}=... is required")
  endif()
endforeach()

execute_process(COMMAND "${CTEST}" --show-only=json-v1 --test-dir "${BUILD_DIR}"
                RESULT_VARIABLE result OUTPUT_VARIABLE listing ERROR_VARIABLE errors)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "ctest --show-only=json-v1 failed (${result}): ${errors}")
endif()
string(JSON count LENGTH "${listing}" tests)
if(count EQUAL 0)
  message(FATAL_ERROR "ctest lists no test in ${BUILD_DIR}")
endif()
math(EXPR last "${count} - 1")
set(problems "")
set(seen "")
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
if(problems)
  message(FATAL_ERROR "test names longer than ${MAX_LENGTH} characters, unreadable or repeated "
                      "(give parameterised tests a name generator):${problems}")
endif()
message(STATUS "${count} test names, each at most ${MAX_LENGTH} characters, readable and distinct")
