# Brings in LLVM/MLIR's CMake helpers (tablegen, add_mlir_*) for the compiler half.
message(STATUS "Using MLIRConfig.cmake in: ${MLIR_DIR}")
list(APPEND CMAKE_MODULE_PATH "${MLIR_CMAKE_DIR}" "${LLVM_CMAKE_DIR}")
set(LLVM_RUNTIME_OUTPUT_INTDIR ${CMAKE_BINARY_DIR}/bin)
set(LLVM_LIBRARY_OUTPUT_INTDIR ${CMAKE_BINARY_DIR}/lib)
set(MLIR_BINARY_DIR ${CMAKE_BINARY_DIR})
include(TableGen)
include(AddLLVM)
include(AddMLIR)
include(HandleLLVMOptions)
include_directories(SYSTEM ${LLVM_INCLUDE_DIRS} ${MLIR_INCLUDE_DIRS})
link_directories(${LLVM_BUILD_LIBRARY_DIR})
separate_arguments(llvm_definitions_list NATIVE_COMMAND "${LLVM_DEFINITIONS}")
add_definitions(${llvm_definitions_list})

# Reference pages generated from ODS and Passes.td land in <build>/docs/
# and are built with everything else (target fuser-doc).
add_custom_target(fuser-doc ALL)
# fuser_add_doc(<td file> <kind> <name> <tablegen arguments...>) writes
# <build>/docs/<kind>/<name>.md.
function(fuser_add_doc td_file kind name)
  set(LLVM_TARGET_DEFINITIONS ${td_file})
  mlir_tablegen(${name}-${kind}.md ${ARGN})
  set(generated ${CMAKE_CURRENT_BINARY_DIR}/${name}-${kind}.md)
  set(dest ${CMAKE_BINARY_DIR}/docs/${kind}/${name}.md)
  add_custom_command(OUTPUT ${dest}
    COMMAND ${CMAKE_COMMAND} -E copy ${generated} ${dest}
    DEPENDS ${generated})
  add_custom_target(${name}-${kind}-doc DEPENDS ${dest})
  add_dependencies(fuser-doc ${name}-${kind}-doc)
endfunction()
