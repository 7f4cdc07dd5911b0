# kiln_add_library(<name> <sources>... [DEPENDS <targets>...] [LINK <libs>...])
#
# A static, position-independent Kiln library, exported as Kiln::<name> and
# installed with the Kiln package.
function(kiln_add_library name)
  cmake_parse_arguments(ARG "" "" "DEPENDS;LINK" ${ARGN})
  add_library(${name} STATIC ${ARG_UNPARSED_ARGUMENTS})
  add_library(Kiln::${name} ALIAS ${name})
  target_include_directories(${name} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
    $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/include>
    $<INSTALL_INTERFACE:include>)
  target_include_directories(${name} SYSTEM PUBLIC
    ${LLVM_INCLUDE_DIRS} ${MLIR_INCLUDE_DIRS})
  if(ARG_DEPENDS)
    add_dependencies(${name} ${ARG_DEPENDS})
  endif()
  if(ARG_LINK)
    target_link_libraries(${name} PUBLIC ${ARG_LINK})
  endif()
  set_property(GLOBAL APPEND PROPERTY KILN_EXPORTED_TARGETS ${name})
endfunction()
