// The message of the input_error a piece of code throws, for tests of error messages.
#pragma once

#include <adimg/error.hpp>

#include <catch2/catch.hpp>

#include <exception>
#include <string>
#include <typeinfo>

namespace adimg_test {

/// The message of the input_error that `f` throws ("" and a failed check if none, a failed test
/// if it throws something else).
template <class F>
std::string input_error_of(F&& f) {
    try {
        f();
    } catch (const adimg::input_error& e) {
        return e.what();
    } catch (const std::exception& e) {
        FAIL("threw " << typeid(e).name() << " instead of input_error: " << e.what());
    }
    FAIL_CHECK("no input_error was thrown");
    return "";
}

}  // namespace adimg_test
