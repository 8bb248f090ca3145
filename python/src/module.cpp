// The Python module adimg._adimg: the library's classes, and its exceptions as Python exceptions
// carrying the library's message (python/adimg/__init__.py is the interface users import).
#include "bindings.hpp"

#include <adimg/error.hpp>

#include <nanobind/nanobind.h>

namespace nb = nanobind;

NB_MODULE(_adimg, m) {
    m.doc() = "adimg's C++ library; import adimg, not this module";
    m.attr("__version__") = ADIMG_VERSION;  // the project's version, from CMakeLists.txt

    // Bad input (an option, a matrix, a vector of the wrong size) is a ValueError; a device or
    // resource failure a RuntimeError. The message is the library's, in Python's names.
    static nb::exception<adimg::input_error> input_error(m, "InputError", PyExc_ValueError);
    static nb::exception<adimg::device_error> device_error(m, "DeviceError", PyExc_RuntimeError);
    nb::register_exception_translator([](const std::exception_ptr& error, void*) {
        try {
            std::rethrow_exception(error);
        } catch (const adimg::input_error& e) {
            PyErr_SetString(input_error.ptr(), adimg::python::python_spelling(e.what()).c_str());
        } catch (const adimg::device_error& e) {
            PyErr_SetString(device_error.ptr(), adimg::python::python_spelling(e.what()).c_str());
        }
    });

    adimg::python::bind_options(m);
    adimg::python::bind_grid_matrix(m);
    adimg::python::bind_report(m);
    adimg::python::bind_solver(m);
    adimg::python::bind_device(m);
}
