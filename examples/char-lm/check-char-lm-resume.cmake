# Saves a checkpoint after a few steps, loads it in a new process and checks
# that the evaluation loss is the one at the save, to the digit, and that
# the step count came back.
#   -DEXE=<the char-lm binary> -DARGS=<its arguments> -DDIR=<a scratch dir>
file(REMOVE_RECURSE ${DIR})
file(MAKE_DIRECTORY ${DIR})
set(ENV{KILN_CACHE_DIR} ${DIR}/cache)
execute_process(COMMAND ${EXE} --quiet ${ARGS} --steps 4 --save ${DIR}/ckpt
                RESULT_VARIABLE rc OUTPUT_VARIABLE saved ERROR_VARIABLE err)
if(rc)
  message(FATAL_ERROR "saving run exited with ${rc}: ${saved}${err}")
endif()
execute_process(COMMAND ${EXE} --quiet ${ARGS} --steps 0 --load ${DIR}/ckpt
                RESULT_VARIABLE rc OUTPUT_VARIABLE loaded ERROR_VARIABLE err)
file(REMOVE_RECURSE ${DIR})
if(rc)
  message(FATAL_ERROR "loading run exited with ${rc}: ${loaded}${err}")
endif()
message(STATUS "${saved}${loaded}")
if(NOT saved MATCHES "saved [^:]*: eval loss ([0-9.]+)")
  message(FATAL_ERROR "no 'saved FILE: eval loss X' line")
endif()
set(at_save ${CMAKE_MATCH_1})
if(NOT loaded MATCHES "loaded [^ ]* \\(after 4 steps\\): eval loss ([0-9.]+)")
  message(FATAL_ERROR "no 'loaded FILE (after 4 steps): eval loss X' line")
endif()
if(NOT CMAKE_MATCH_1 STREQUAL at_save)
  message(FATAL_ERROR "eval loss ${CMAKE_MATCH_1} after loading, ${at_save} at the save")
endif()
message(STATUS "eval loss ${at_save} at the save and after loading")
