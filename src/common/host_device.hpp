#pragma once
/// \file
/// ADIMG_HD marks the point-wise formulas that both backends share: compiled for host and device
/// under nvcc, plain inline functions everywhere else. Each formula exists once (docs/design.md §6).

#if defined(__CUDACC__)
#define ADIMG_HD __host__ __device__ __forceinline__
#else
#define ADIMG_HD inline
#endif

/// Unrolls the loop that follows in device code, where a small array indexed by the loop's counter
/// then stays in registers instead of local memory; nothing on the host (GCC warns of the pragma).
#if defined(__CUDA_ARCH__)
#define ADIMG_UNROLL _Pragma("unroll")
#else
#define ADIMG_UNROLL
#endif

/// a * b, a + b, a - b and a / b rounded once each, never fused into one operation: nvcc
/// contracts a * b + c into an fma by default, the host compiler does not (for the default x86-64
/// target, which has no fma), and formulas that must give the same bits on both (the assembly, the
/// coarsest grid's inverse) use these.
#if defined(__CUDA_ARCH__)
#define ADIMG_MUL_RN(a, b) __dmul_rn((a), (b))
#define ADIMG_ADD_RN(a, b) __dadd_rn((a), (b))
#define ADIMG_SUB_RN(a, b) __dsub_rn((a), (b))
#define ADIMG_DIV_RN(a, b) __ddiv_rn((a), (b))
#else
#define ADIMG_MUL_RN(a, b) ((a) * (b))
#define ADIMG_ADD_RN(a, b) ((a) + (b))
#define ADIMG_SUB_RN(a, b) ((a) - (b))
#define ADIMG_DIV_RN(a, b) ((a) / (b))
#endif
