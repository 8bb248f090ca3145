// adimg_tests runs the solver test bodies on the CPU backend (tested_backend.hpp).

#include "tested_backend.hpp"

adimg::BackendKind adimg_test::tested_backend() { return adimg::BackendKind::cpu; }
