# The tests of the Python tools: scripts/report.py (report.md, plots, --table,
# --compare, bad input, the one loader, a closed pipe, the caption decisions,
# stage 04's regime map, folders of lesson and subcommand runs, the one plural
# rule, the switch to .venv's python3, outputs that can't be written), the
# sample results (their bounds, dates and drivers), and scripts/run_suite.sh
# and scripts/gpu_box_check.sh with their one run table (with stand-in stages
# and tools), in Python's unittest, label cpu: they need no GPU and run in CI.
# One ctest test per test class, named python.<module without test_>.<class>
# (at most 80 characters); test_registration.py fails when a class is missing
# here.
# They need matplotlib; without it the plot tests FAIL with a message saying
# how to install it (a CPU test is never skipped). Registered only where a
# Python 3 interpreter exists.
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  foreach(test_class IN ITEMS
      test_report.ReportOnSamples test_report.ReportRegimes test_report.ReportWithMissingStages
      test_report.ReportOutput test_report.Provenance test_report.DigestsInReportAndTable test_report.Compare
      test_report.CompareDigests test_report.BadInput test_report.OneLoader test_report.ClosedPipe
      test_report.Usage test_report.OwnBounds
      test_table.RegimeTable test_table.SpeedUpColumn test_table.TableNamesTheSubcommand test_table.TableOnSamples
      test_captions.BoundVerdict test_captions.TimeVerdict test_captions.SweepPlateau test_captions.SpeedLabel test_captions.CopyVerdicts
      test_captions.Overlap test_captions.Gain test_captions.Spread test_captions.StagesSentences
      test_captions.DigestDecisions test_captions.DriverAndDates test_captions.CaptionsInReport
      test_after_article.AfterArticleTable test_after_article.AfterArticleMissingAndMalformed
      test_after_article.AfterArticleDecisions test_after_article.AfterArticlePlot
      test_regime_map.RegimeMapDecisions test_regime_map.RegimeMapReport test_regime_map.RegimeMapTable
      test_new_shape.RunsOf test_new_shape.NewShapeReport test_new_shape.NewShapeTable
      test_new_shape.NewShapeMissingRuns test_new_shape.Plural
      test_samples.SampleChecks test_samples.SamplesWithinBounds test_samples.ReportOnTheSamples
      test_python_env.VenvSwitch test_python_env.InstallHint test_python_env.UnwritableOutput
      test_run_suite.RunTable test_run_suite.RunSuite test_run_suite.GpuBoxCheck
      test_registration.CtestRegistration)
    string(REGEX REPLACE "^test_([^.]+)\\.(.+)$" "python.\\1.\\2" test_name "${test_class}")
    add_test(NAME ${test_name}
      COMMAND ${Python3_EXECUTABLE} -m unittest -v ${test_class}
      WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}/tests/python)
    # No __pycache__ folders left in the source tree by a test run.
    set_tests_properties(${test_name} PROPERTIES
      LABELS cpu TIMEOUT 600 ENVIRONMENT "PYTHONDONTWRITEBYTECODE=1")
  endforeach()
else()
  message(STATUS "No Python 3 interpreter: the Python tests (tests/python) are not registered")
endif()
