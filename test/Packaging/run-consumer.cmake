# Configures, builds and runs an outside project against Kiln's build tree.
# -DSRC=<project> -DBIN=<scratch dir> -DKILN_DIR=<build tree> -DEXPECT=<regex>
file(REMOVE_RECURSE ${BIN})
execute_process(
  COMMAND ${CMAKE_COMMAND} -S ${SRC} -B ${BIN} -G Ninja -DKiln_DIR=${KILN_DIR}
          -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_BUILD_TYPE=Release
  RESULT_VARIABLE rc OUTPUT_VARIABLE config ERROR_VARIABLE config)
message(STATUS "${config}")
if(rc)
  message(FATAL_ERROR "configuring ${SRC} failed")
endif()
# find_package(Kiln) finds MLIR without noise about packages it never uses.
if(config MATCHES "Could NOT find")
  message(FATAL_ERROR "find_package(Kiln) printed \"Could NOT find\"")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${BIN} RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "building ${SRC} failed")
endif()
file(GLOB exe ${BIN}/consumer ${BIN}/*/consumer)
execute_process(COMMAND ${BIN}/consumer RESULT_VARIABLE rc OUTPUT_VARIABLE out)
message(STATUS "${out}")
if(rc)
  message(FATAL_ERROR "the consumer exited with ${rc}")
endif()
if(NOT out MATCHES "${EXPECT}")
  message(FATAL_ERROR "unexpected output: ${out}")
endif()
