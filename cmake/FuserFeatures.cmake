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

# The CUDA backend's fused attention needs cuDNN 9 (its backend API; the
# header-only frontend is not used): in the CUDA toolkit on development
# machines, in PyTorch's wheel (nvidia.cudnn) on the GPU machines, whose
# lib/ may hold only the versioned libcudnn.so.9, or under CUDNN_ROOT.
set(FUSER_CUDNN_FOUND FALSE)
if(FUSER_ENABLE_CUDA_RESOLVED AND NOT FUSER_ENABLE_CUDNN STREQUAL "OFF")
  set(cudnn_hints ${CUDNN_ROOT} $ENV{CUDNN_ROOT} ${CUDAToolkit_LIBRARY_ROOT})
  # A program, not find_package(Python3), which would settle the Python
  # the bindings look for later.
  find_program(FUSER_CUDNN_PYTHON python3)
  if(FUSER_CUDNN_PYTHON)
    execute_process(
      COMMAND ${FUSER_CUDNN_PYTHON} -c
              "import nvidia.cudnn, os; print(os.path.dirname(nvidia.cudnn.__file__))"
      OUTPUT_VARIABLE cudnn_wheel OUTPUT_STRIP_TRAILING_WHITESPACE
      RESULT_VARIABLE cudnn_wheel_result ERROR_QUIET)
    if(cudnn_wheel_result EQUAL 0)
      list(APPEND cudnn_hints ${cudnn_wheel})
    endif()
  endif()
  find_path(CUDNN_INCLUDE_DIR cudnn_graph.h
    HINTS ${cudnn_hints} ${CUDAToolkit_INCLUDE_DIRS} PATH_SUFFIXES include)
  find_library(CUDNN_LIBRARY NAMES cudnn libcudnn.so.9
    HINTS ${cudnn_hints} ${CUDAToolkit_LIBRARY_DIR} PATH_SUFFIXES lib lib64)
  if(CUDNN_INCLUDE_DIR AND CUDNN_LIBRARY)
    set(FUSER_CUDNN_FOUND TRUE)
  endif()
endif()
fuser_resolve_feature(CUDNN FUSER_CUDNN_FOUND)

if(NOT FUSER_ENABLE_MPI STREQUAL "OFF")
  find_package(MPI QUIET COMPONENTS C)
endif()
fuser_resolve_feature(MPI MPI_C_FOUND)
