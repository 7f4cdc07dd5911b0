# Runs the contract program (examples/contract/main.cpp) and checks what it
# prints, line by line.
#   -DEXE=<the contract binary>
# or, to build it first as an outside project with find_package(Kiln):
#   -DSRC=<project> -DBIN=<scratch dir> -DKILN_DIR=<build tree> -DCXX=<c++>
#   -DCONTRACT=<examples/contract/main.cpp>
if(SRC)
  file(REMOVE_RECURSE ${BIN})
  execute_process(
    COMMAND ${CMAKE_COMMAND} -S ${SRC} -B ${BIN} -G Ninja -DKiln_DIR=${KILN_DIR}
            -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_BUILD_TYPE=Release
            -DCONTRACT_SOURCE=${CONTRACT}
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
  set(EXE ${BIN}/consumer)
endif()

execute_process(COMMAND ${EXE} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
message(STATUS "${out}${err}")
if(rc)
  message(FATAL_ERROR "${EXE} exited with ${rc}")
endif()

# exp(a_ij * 0.5 + 1) summed over each row of a = [[1, 2, 3], [4, 5, 6]]:
# e^1.5 + e^2 + e^2.5 = 24.0532 and e^3 + e^3.5 + e^4 = 107.7991.
string(REGEX REPLACE "\n$" "" out "${out}")
# Lines become list items; a ';' inside a line must not split it.
string(REPLACE ";" "<semicolon>" out "${out}")
string(REPLACE "\n" ";" lines "${out}")
list(LENGTH lines count)
if(NOT count EQUAL 4)
  message(FATAL_ERROR "expected 4 lines, got ${count}")
endif()
list(GET lines 0 shape)
list(GET lines 1 values)
list(GET lines 2 tracked)
list(GET lines 3 error)
string(REPLACE "<semicolon>" ";" error "${error}")
foreach(check "shape;[2] f32 rank=1" "values;24.0532 107.7991"
              "tracked;tracked=1")
  list(GET check 0 var)
  list(GET check 1 want)
  if(NOT "${${var}}" STREQUAL "${want}")
    message(FATAL_ERROR "expected \"${want}\", got \"${${var}}\"")
  endif()
endforeach()
# The error names the op, both shapes and the dtype.
string(FIND "${error}" "error: kiln.add: " at)
if(NOT at EQUAL 0)
  message(FATAL_ERROR "expected an \"error: kiln.add: ...\" line, got \"${error}\"")
endif()
foreach(part "[2, 3]" "[4]" "f32")
  string(FIND "${error}" "${part}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "the error line lacks \"${part}\": ${error}")
  endif()
endforeach()
