# The tests of the Python tools (scripts/report.py and its package, the result
# schema, scripts/run_suite.sh and scripts/gpu_box_check.sh with stand-in
# stages, the sample results), in pytest, label cpu: they need no GPU and run
# in CI. One ctest test per tests/python/test_*.py, found by a glob, named
# python.<file without test_>: a new file is a new test at the next
# configure, with nothing to list here. They need matplotlib, jsonschema and
# pytest in the python3 CMake uses (scripts/setup.sh installs them); without
# one they FAIL with Python's message naming it (a CPU test is never skipped).
find_package(Python3 COMPONENTS Interpreter)
if(NOT Python3_Interpreter_FOUND)
  message(STATUS "No Python 3 interpreter: the Python tests (tests/python) are not registered")
  return()
endif()
file(GLOB csg_python_tests CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/test_*.py)
list(GET CSG_STAGES 0 csg_first_stage)  # the stages' binaries all go to one folder
foreach(test_file IN LISTS csg_python_tests)
  get_filename_component(test_module ${test_file} NAME_WE)
  string(REGEX REPLACE "^test_" "python." test_name "${test_module}")
  add_test(NAME ${test_name}
    COMMAND ${Python3_EXECUTABLE} -m pytest -q ${test_file}  # tests/python/pytest.ini: no cache in the tree
    WORKING_DIRECTORY ${CMAKE_CURRENT_LIST_DIR})
  # No __pycache__ folders left in the source tree by a test run; the built stages for the test of their
  # registry (test_registry.py); the build folder and ctest for the test of ctest's GPU groups (test_gpu_groups.py).
  set_tests_properties(${test_name} PROPERTIES LABELS cpu TIMEOUT 900
    ENVIRONMENT "PYTHONDONTWRITEBYTECODE=1;CSG_BIN_DIR=$<TARGET_FILE_DIR:${csg_first_stage}>;CSG_BUILD_DIR=${PROJECT_BINARY_DIR};CSG_CTEST=${CMAKE_CTEST_COMMAND}")
endforeach()
