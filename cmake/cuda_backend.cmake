# Decides whether this build has the CUDA backend: sets ADIMG_HAVE_CUDA from ADIMG_ENABLE_CUDA.
#   AUTO  the backend when a usable toolkit is found: nvcc compiles a test program, and the
#         toolkit has the libraries the backend needs: the runtime, which src/cuda links, and
#         cuBLAS and cuFFT, which the fast direct solver loads when it first runs on the GPU
#         (src/cuda/cuda_libraries.cuh);
#         otherwise a CPU-only build, saying why
#   ON    the backend, or a configure error saying what is missing
#   OFF   CPU only, without looking for CUDA
string(TOUPPER "${ADIMG_ENABLE_CUDA}" _adimg_cuda_mode)
if(_adimg_cuda_mode MATCHES "^(ON|TRUE|YES|Y|1)$")
  set(_adimg_cuda_mode ON)
elseif(_adimg_cuda_mode MATCHES "^(OFF|FALSE|NO|N|0)$")
  set(_adimg_cuda_mode OFF)
elseif(NOT _adimg_cuda_mode STREQUAL "AUTO")
  message(FATAL_ERROR "adimg: ADIMG_ENABLE_CUDA=${ADIMG_ENABLE_CUDA} is not one of AUTO, ON, OFF")
endif()

set(ADIMG_HAVE_CUDA OFF)
set(_adimg_no_cuda "")  # why there is no CUDA backend, when AUTO or ON looked for one
if(NOT _adimg_cuda_mode STREQUAL "OFF")
  include(CheckLanguage)
  check_language(CUDA)
  if(NOT CMAKE_CUDA_COMPILER)
    set(_adimg_no_cuda "no working CUDA compiler (nvcc) was found; put it on the PATH or set CMAKE_CUDA_COMPILER")
  else()
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES 90)
    endif()
    enable_language(CUDA)
    set(CMAKE_CUDA_STANDARD 17)  # CMake 3.25 cannot pass C++20 to nvcc; the .cu files need only C++17
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    find_package(CUDAToolkit)
    if(NOT CUDAToolkit_FOUND)
      set(_adimg_no_cuda "nvcc works, but CMake's FindCUDAToolkit did not find its toolkit; set CUDAToolkit_ROOT")
    else()
      foreach(_adimg_target CUDA::cudart_static CUDA::cublas CUDA::cufft)
        if(NOT TARGET ${_adimg_target})
          set(_adimg_no_cuda "the CUDA toolkit in ${CUDAToolkit_LIBRARY_DIR} lacks ${_adimg_target}")
        endif()
      endforeach()
    endif()
    if(NOT _adimg_no_cuda)
      set(ADIMG_HAVE_CUDA ON)
    endif()
  endif()
endif()

if(_adimg_no_cuda AND _adimg_cuda_mode STREQUAL "ON")
  message(FATAL_ERROR "adimg: ADIMG_ENABLE_CUDA=ON, but ${_adimg_no_cuda} "
                      "(or configure with -DADIMG_ENABLE_CUDA=AUTO or OFF for a CPU-only build)")
elseif(_adimg_no_cuda)
  message(STATUS "adimg: building the CPU backend only: ${_adimg_no_cuda}")
endif()
if(_adimg_cuda_mode STREQUAL "OFF")
  set(_adimg_no_cuda "it was configured with ADIMG_ENABLE_CUDA=OFF")
endif()
# Why there is none, for the library's messages (src/cuda/no_cuda.cpp).
set(ADIMG_NO_CUDA_REASON "${_adimg_no_cuda}")
message(STATUS "adimg: CUDA backend ${ADIMG_HAVE_CUDA} (ADIMG_ENABLE_CUDA=${ADIMG_ENABLE_CUDA})")
