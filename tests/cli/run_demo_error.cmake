# Runs `shoal demo` with bad arguments and checks that it fails the way the CLI promises: exit
# status 1, nothing on stdout, and one "shoal demo: error: ..." message on stderr that matches
# EXPECT_ERROR.
#
#   cmake -DSHOAL=<shoal binary> "-DARGS=--rows;-1" "-DEXPECT_ERROR=<regex>" -P run_demo_error.cmake
execute_process(
  COMMAND "${SHOAL}" demo ${ARGS}
  RESULT_VARIABLE rc
  OUTPUT_VARIABLE out
  ERROR_VARIABLE err)
if(NOT rc EQUAL 1)
  message(FATAL_ERROR "shoal demo ${ARGS} exited with '${rc}', expected 1\nstderr:\n${err}")
endif()
if(NOT out STREQUAL "")
  message(FATAL_ERROR "shoal demo ${ARGS} printed to stdout:\n${out}")
endif()
if(NOT err MATCHES "^shoal demo: error: ${EXPECT_ERROR}")
  message(FATAL_ERROR "stderr of shoal demo ${ARGS} does not match '${EXPECT_ERROR}':\n${err}")
endif()
