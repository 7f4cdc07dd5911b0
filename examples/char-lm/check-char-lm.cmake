# Trains char-lm briefly and checks that it learns: the evaluation loss
# after training must be at least 40% below the one before.
#   -DEXE=<the char-lm binary> -DARGS=<its arguments, ';'-separated>
#   -DCACHE=<a scratch kernel-cache directory>
file(REMOVE_RECURSE ${CACHE})
set(ENV{KILN_CACHE_DIR} ${CACHE})
execute_process(COMMAND ${EXE} --quiet ${ARGS} RESULT_VARIABLE rc
                OUTPUT_VARIABLE out ERROR_VARIABLE err)
file(REMOVE_RECURSE ${CACHE})
message(STATUS "${out}${err}")
if(rc)
  message(FATAL_ERROR "${EXE} exited with ${rc}")
endif()
if(NOT out MATCHES "\nloss ([0-9.]+) -> ([0-9.]+)")
  message(FATAL_ERROR "no 'loss A -> B' line in the output")
endif()
set(first ${CMAKE_MATCH_1})
set(last ${CMAKE_MATCH_2})
# CMake has no floating point: compare in ten-thousandths.
string(REPLACE "." "" first_e4 "${first}")
string(REPLACE "." "" last_e4 "${last}")
math(EXPR first_e4 "${first_e4}")
math(EXPR last_e4 "${last_e4}")
math(EXPR limit "${first_e4} * 6 / 10")
if(last_e4 GREATER limit)
  message(FATAL_ERROR "loss fell from ${first} to ${last}, less than 40%")
endif()
message(STATUS "loss fell from ${first} to ${last}")
