# find_package(Kiln CONFIG) from the build tree (build/) or an install prefix.
include(CMakePackageConfigHelpers)

get_property(kiln_targets GLOBAL PROPERTY KILN_EXPORTED_TARGETS)

export(TARGETS ${kiln_targets} NAMESPACE Kiln::
       FILE ${PROJECT_BINARY_DIR}/KilnTargets.cmake)

set(KILN_CONFIG_MLIR_DIR ${MLIR_DIR})
configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/KilnConfig.cmake.in
  ${PROJECT_BINARY_DIR}/KilnConfig.cmake
  INSTALL_DESTINATION lib/cmake/kiln)
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/KilnConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)

install(TARGETS ${kiln_targets} EXPORT KilnTargets
        ARCHIVE DESTINATION lib LIBRARY DESTINATION lib RUNTIME DESTINATION bin)
install(EXPORT KilnTargets NAMESPACE Kiln:: DESTINATION lib/cmake/kiln)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/kiln DESTINATION include
        FILES_MATCHING PATTERN "*.h" PATTERN "*.td")
install(DIRECTORY ${PROJECT_BINARY_DIR}/include/kiln DESTINATION include
        FILES_MATCHING PATTERN "*.inc")
install(FILES ${PROJECT_BINARY_DIR}/KilnConfig.cmake
              ${PROJECT_BINARY_DIR}/KilnConfigVersion.cmake
        DESTINATION lib/cmake/kiln)
