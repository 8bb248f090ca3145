// The message of the input_error a piece of code throws, for tests of error messages.
#pragma once

#include <adimg/error.hpp>

#include <catch2/catch.hpp>

#include <exception>
#include <string>
#include <typeinfo>
#include <utility>

namespace adimg_test {

/// The message of the exception of type Error that `f` throws ("" and a failed check if none, a
/// failed test if it throws something else).
template <class Error, class F>
std::string error_message_of(F&& f) {
    try {
        f();
    } catch (const Error& e) {
        return e.what();
    } catch (const std::exception& e) {
        FAIL("threw " << typeid(e).name() << " instead of " << typeid(Error).name() << ": " << e.what());
    }
    FAIL_CHECK("no " << typeid(Error).name() << " was thrown");
    return "";
}

/// The message of the input_error that `f` throws.
template <class F>
std::string input_error_of(F&& f) {
    return error_message_of<adimg::input_error>(std::forward<F>(f));
}

}  // namespace adimg_test
