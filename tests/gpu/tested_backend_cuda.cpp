// adimg_gpu_tests runs the CPU's solver test bodies on the CUDA backend (../tested_backend.hpp).

#include "../tested_backend.hpp"

adimg::BackendKind adimg_test::tested_backend() { return adimg::BackendKind::cuda; }
