#pragma once
/// \file
/// The parts of the Python module adimg._adimg, one function per file that adds its classes and
/// functions to the module (module.cpp calls them).

#include <adimg/options.hpp>

#include <nanobind/nanobind.h>

#include <string>

namespace adimg::python {

/// option_table() as Python sees it, and SolverOptions from keyword arguments (bind_options.cpp).
void bind_options(nanobind::module_& m);
/// SolverOptions from keyword arguments named as the fields of SolverOptions ("pre_smooth"), each
/// value read as the option table reads text. Throws input_error naming an unknown keyword, the
/// option it may have meant and the options, or naming the field and what it allows, or an option
/// given that the others leave without effect (check_given_options, as `adimg solve` refuses it).
SolverOptions options_from_kwargs(const nanobind::kwargs& kwargs);
/// A library message with C++ names respelled as the Python keywords ("SolverOptions::pre_smooth"
/// becomes "pre_smooth").
std::string python_spelling(std::string message);

/// Grid, GridMatrix and the node-order check (bind_grid_matrix.cpp).
void bind_grid_matrix(nanobind::module_& m);
/// SolveReport and OuterStep (bind_report.cpp).
void bind_report(nanobind::module_& m);
/// Solver (bind_solver.cpp).
void bind_solver(nanobind::module_& m);
/// Solves, preconditioning and matrices on GPU arrays through DLPack (bind_device.cpp).
void bind_device(nanobind::module_& m);

}  // namespace adimg::python
