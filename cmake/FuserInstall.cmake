# `cmake --install`: the package other CMake projects find with
# find_package(FuserMLIR CONFIG) (component FuserMLIR: libraries, headers,
# the package files) and the tools (component tools).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)
set(FUSER_INSTALL_PACKAGE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/FuserMLIR)

set(installed_libraries)
if(TARGET FuserRuntime)
  list(APPEND installed_libraries FuserRuntime)
  install(TARGETS fuser-exec fuser-calibrate RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
          COMPONENT tools)
endif()
if(FUSER_ENABLE_COMPILER_RESOLVED)
  list(APPEND installed_libraries FuserMLIR FuserMLIRCAPI)
  install(TARGETS FuserMLIRPlugin LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
          COMPONENT FuserMLIR)
  install(TARGETS fuser-opt fuser-compile RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
          COMPONENT tools)
  # The generated declarations (ODS, Passes.td) the headers include.
  install(DIRECTORY ${PROJECT_BINARY_DIR}/include/
          DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT FuserMLIR
          FILES_MATCHING PATTERN "*.h.inc")
endif()
# Every program that loads sanitized libraries links the sanitizers'
# runtimes (ASan's must come first in the process).
if(FUSER_SANITIZE)
  set_property(TARGET ${installed_libraries} APPEND PROPERTY INTERFACE_LINK_OPTIONS
    $<INSTALL_INTERFACE:-fsanitize=${FUSER_SANITIZE}>)
endif()
install(TARGETS ${installed_libraries} EXPORT FuserMLIRTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT FuserMLIR)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT FuserMLIR
        FILES_MATCHING PATTERN "*.h" PATTERN "*.td")
install(EXPORT FuserMLIRTargets NAMESPACE FuserMLIR::
        DESTINATION ${FUSER_INSTALL_PACKAGE_DIR} COMPONENT FuserMLIR)

configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/FuserMLIRConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cmake/FuserMLIRConfig.cmake
  INSTALL_DESTINATION ${FUSER_INSTALL_PACKAGE_DIR})
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/cmake/FuserMLIRConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cmake/FuserMLIRConfig.cmake
              ${PROJECT_BINARY_DIR}/cmake/FuserMLIRConfigVersion.cmake
        DESTINATION ${FUSER_INSTALL_PACKAGE_DIR} COMPONENT FuserMLIR)
