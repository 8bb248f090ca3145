#pragma once
/// \file
/// ADIMG_HD marks the point-wise formulas that both backends share: compiled for host and device
/// under nvcc, plain inline functions everywhere else. Each formula exists once (docs/design.md §6).

#if defined(__CUDACC__)
#define ADIMG_HD __host__ __device__ __forceinline__
#else
#define ADIMG_HD inline
#endif
