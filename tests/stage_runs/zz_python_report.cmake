# The report's tests: scripts/report.py (report.md, plots, the regime section
# of issue 9, --compare, bad input) and scripts/run_suite.sh (with stand-in
# stages), in Python's unittest, label cpu: they need no GPU and run in CI.
# One ctest test per test class of tests/python/test_report.py.
# They need matplotlib; without it the plot tests FAIL with a message saying
# how to install it (a CPU test is never skipped). Registered only where a
# Python 3 interpreter exists.
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  foreach(test_class IN ITEMS ReportOnSamples ReportRegimes ReportWithMissingStages Compare BadInput RunSuite)
    add_test(NAME python.report.${test_class}
      COMMAND ${Python3_EXECUTABLE} -m unittest -v test_report.${test_class}
      WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}/tests/python)
    # No __pycache__ folders left in the source tree by a test run.
    set_tests_properties(python.report.${test_class} PROPERTIES
      LABELS cpu TIMEOUT 600 ENVIRONMENT "PYTHONDONTWRITEBYTECODE=1")
  endforeach()
  # scripts/summarize.py's regime table (issue 9), on synthetic results: one row per kernel.
  add_test(NAME python.summarize.RegimeTable
    COMMAND ${Python3_EXECUTABLE} -m unittest -v test_summarize.RegimeTable
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}/tests/python)
  set_tests_properties(python.summarize.RegimeTable PROPERTIES
    LABELS cpu TIMEOUT 120 ENVIRONMENT "PYTHONDONTWRITEBYTECODE=1")
else()
  message(STATUS "No Python 3 interpreter: the report tests (tests/python) are not registered")
endif()
