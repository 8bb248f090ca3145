# A shared adimg keeps what it links to itself, so that a program using the installed library needs
# only Eigen (the public headers use it) and no CUDA toolkit, OpenMP or Boost at configure time.
if(NOT BUILD_SHARED_LIBS)
  if(ADIMG_HAVE_CUDA)
    message(STATUS "adimg: a static library with the CUDA backend: programs linking the installed "
                   "library need the CUDA toolkit (configure with -DBUILD_SHARED_LIBS=ON to avoid it)")
  endif()
  return()
endif()

# The static archives linked in (FFTW, a static Boost, the static CUDA runtime) export no symbols
# from libadimg.so, so they cannot clash with other copies loaded into the same process (Python's).
target_link_options(adimg PRIVATE "LINKER:--exclude-libs,ALL")

# src/cuda links the CUDA runtime and libraries into adimg's link interface. Targets of this build
# (the GPU tests and benchmarks call the runtime themselves) keep them; the installed interface
# drops them: the shared library carries the runtime inside and finds the CUDA libraries by its
# RPATH, the toolkit's library folder.
get_target_property(_adimg_interface adimg INTERFACE_LINK_LIBRARIES)
if(_adimg_interface)
  list(TRANSFORM _adimg_interface REPLACE "^(CUDA::.+)$" "$<BUILD_INTERFACE:\\1>")
  set_property(TARGET adimg PROPERTY INTERFACE_LINK_LIBRARIES "${_adimg_interface}")
endif()
set_target_properties(adimg PROPERTIES INSTALL_RPATH_USE_LINK_PATH ON)
# libadimg.so.0.1 (the version's major.minor: SameMinorVersion compatibility, as the package says).
set_target_properties(adimg PROPERTIES VERSION ${PROJECT_VERSION}
                                       SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR})
