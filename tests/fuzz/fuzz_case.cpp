// libFuzzer target: the case-file parser on arbitrary bytes.
//
// Every input must either parse or throw adimg::input_error; anything else (a crash, a sanitizer
// report, another exception, a hang) is a bug. A case that parses must also give a mesh on a
// small level that assembles to finite numbers, or say why it cannot (input_error): nothing
// silently wrong.

#include <adimg/problems.hpp>
#include <adimg/error.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>

namespace {

[[noreturn]] void property_failed(const char* what) {
    std::fprintf(stderr, "fuzz_case: property failed: %s\n", what);
    std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
    adimg::CaseSpec spec;
    try {
        spec = adimg::parse_case(in, "fuzz.cfg");
    } catch (const adimg::input_error& e) {
        if (std::string(e.what()).rfind("fuzz.cfg", 0) != 0) property_failed("a case-file error does not name the file");
        return 0;
    }
    if (spec.name.empty()) property_failed("a case parsed without a name");
    if (!(spec.x.length > 0.0 && spec.y.length > 0.0 && std::isfinite(spec.x.length) && std::isfinite(spec.y.length)))
        property_failed("a case parsed with a domain that is not positive and finite");
    if (!(spec.x.nu > 0.0 && spec.x.nu <= 1.0)) property_failed("a case parsed with nu outside (0, 1]");
    for (int level : {1, 4}) {
        try {
            const adimg::TensorMesh mesh = spec.mesh(level);
            const adimg::NineBands<double> A = adimg::assemble_stiffness(mesh);
            for (double a : A.values)
                if (!std::isfinite(a)) property_failed("a case that gives a mesh assembles non-finite matrix entries");
            for (double b : adimg::assemble_load(mesh, {spec.x.length, spec.y.length}))
                if (!std::isfinite(b)) property_failed("a case that gives a mesh assembles a non-finite load vector");
        } catch (const adimg::input_error&) {
        }
    }
    return 0;
}
