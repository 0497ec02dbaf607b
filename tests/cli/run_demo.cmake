# Runs `shoal demo` and checks what a user would: exit status 0, the printed table (against a
# golden file when EXPECTED is given), the summary line, and that the file it names exists, has the
# size it claims and is framed by the Arrow IPC file magic "ARROW1" at both ends.
#
#   cmake -DSHOAL=<shoal binary> -DOUTPUT=<file> -DCOMPRESSION=none|lz4|zstd -DROWS=<n>
#         [-DEXPECTED=<golden table>] -P run_demo.cmake
foreach(var SHOAL OUTPUT COMPRESSION ROWS)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run_demo.cmake needs -D${var}=...")
  endif()
endforeach()

file(REMOVE "${OUTPUT}")
execute_process(
  COMMAND "${SHOAL}" demo --output "${OUTPUT}" --compression "${COMPRESSION}" --rows "${ROWS}"
  RESULT_VARIABLE rc
  OUTPUT_VARIABLE out
  ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "shoal demo exited with ${rc}\nstdout:\n${out}\nstderr:\n${err}")
endif()
if(NOT err STREQUAL "")
  message(FATAL_ERROR "shoal demo wrote to stderr on success:\n${err}")
endif()

if(NOT EXISTS "${OUTPUT}")
  message(FATAL_ERROR "shoal demo did not create ${OUTPUT}")
endif()
file(SIZE "${OUTPUT}" size)
if(size LESS 12)
  message(FATAL_ERROR "${OUTPUT} has only ${size} bytes")
endif()
# Hex, because the bytes after the magic are binary ("ARROW1" is 4152524f5731).
file(READ "${OUTPUT}" head LIMIT 6 HEX)
math(EXPR tail_offset "${size} - 6")
file(READ "${OUTPUT}" tail OFFSET ${tail_offset} HEX)
if(NOT head STREQUAL "4152524f5731" OR NOT tail STREQUAL "4152524f5731")
  message(FATAL_ERROR "${OUTPUT} is not framed by ARROW1 (starts ${head}, ends ${tail}, in hex)")
endif()

if(ROWS EQUAL 1)
  set(row_word "row")
else()
  set(row_word "rows")
endif()
string(FIND "${out}" "\n(${ROWS} ${row_word})\n" footer_at)
if(footer_at EQUAL -1)
  message(FATAL_ERROR "no '(${ROWS} ${row_word})' footer in:\n${out}")
endif()
string(REGEX MATCH "\nwrote ([^\n]*): ([0-9]+) bytes, compression ([a-z0-9]+), ([0-9]+) rows? in ([0-9]+) record batch(es)?\n$"
       summary "${out}")
if(NOT summary)
  message(FATAL_ERROR "no summary line at the end of:\n${out}")
endif()
if(NOT CMAKE_MATCH_1 STREQUAL "${OUTPUT}" OR NOT CMAKE_MATCH_2 EQUAL size
   OR NOT CMAKE_MATCH_3 STREQUAL "${COMPRESSION}" OR NOT CMAKE_MATCH_4 EQUAL ROWS)
  message(FATAL_ERROR "summary '${summary}' does not match ${OUTPUT} (${size} bytes), "
                      "${COMPRESSION}, ${ROWS} rows")
endif()

if(DEFINED EXPECTED)
  string(REGEX REPLACE "wrote [^\n]*\n$" "" table "${out}")
  file(READ "${EXPECTED}" expected)
  if(NOT table STREQUAL expected)
    message(FATAL_ERROR "the printed table differs from ${EXPECTED}\n"
                        "--- printed:\n${table}--- expected:\n${expected}")
  endif()
endif()
message(STATUS "shoal demo: ${ROWS} ${row_word}, ${size} bytes, compression ${COMPRESSION}: ok")
