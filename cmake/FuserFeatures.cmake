# Resolves the ON/OFF/AUTO feature switches into FUSER_ENABLE_<X>_RESOLVED
# (an internal cache entry, so that every directory sees it). ON fails the
# configure when the dependency is missing; AUTO quietly drops it.
function(fuser_resolve_feature name found)
  set(request "${FUSER_ENABLE_${name}}")
  string(TOUPPER "${request}" request)
  if(request STREQUAL "ON" AND NOT ${found})
    message(FATAL_ERROR "FUSER_ENABLE_${name}=ON but its dependency was not found")
  endif()
  if((request STREQUAL "ON" OR request STREQUAL "AUTO") AND ${found})
    set(FUSER_ENABLE_${name}_RESOLVED ON CACHE INTERNAL "")
  else()
    set(FUSER_ENABLE_${name}_RESOLVED OFF CACHE INTERNAL "")
  endif()
endfunction()

if(NOT FUSER_ENABLE_COMPILER STREQUAL "OFF")
  find_package(MLIR CONFIG QUIET)
endif()
fuser_resolve_feature(COMPILER MLIR_FOUND)

# The CUDA backend needs the toolkit (runtime, cuBLASLt, nvcc for its one
# kernel) and NCCL, which Debian-style installs keep outside the toolkit.
set(FUSER_CUDA_FOUND FALSE)
if(NOT FUSER_ENABLE_CUDA STREQUAL "OFF")
  find_package(CUDAToolkit QUIET)
  if(CUDAToolkit_FOUND)
    find_path(NCCL_INCLUDE_DIR nccl.h HINTS ${CUDAToolkit_INCLUDE_DIRS})
    find_library(NCCL_LIBRARY nccl HINTS ${CUDAToolkit_LIBRARY_DIR})
    if(NCCL_INCLUDE_DIR AND NCCL_LIBRARY AND TARGET CUDA::cublasLt
       AND CUDAToolkit_NVCC_EXECUTABLE)
      set(FUSER_CUDA_FOUND TRUE)
    endif()
  endif()
endif()
fuser_resolve_feature(CUDA FUSER_CUDA_FOUND)

if(NOT FUSER_ENABLE_MPI STREQUAL "OFF")
  find_package(MPI QUIET COMPONENTS C)
endif()
fuser_resolve_feature(MPI MPI_C_FOUND)
