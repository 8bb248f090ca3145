#pragma once
/// \file
/// Test cases: a domain and a refinement rule, read from a config file in Boost.Program_options
/// syntax (the built-in U1–U3 and A1–A5 are the files under cases/, compiled into the library).

#include <adimg/mesh.hpp>

#include <filesystem>
#include <istream>
#include <string>
#include <vector>

namespace adimg {

/// A test problem -Δu = f on [0, width] x [0, height], with exact solution
/// u0 = x (width - x) y (height - y) and homogeneous Dirichlet boundary.
struct CaseSpec {
    std::string name;
    std::string description;
    Mesh1DRule x;  ///< the rule in x; x.length is the domain width
    Mesh1DRule y;  ///< the rule in y; y.length is the domain height

    /// The case's mesh on refinement level `level` ((2^level + 1)^2 nodes).
    TensorMesh mesh(int level) const;
};

/// Names of the built-in cases, in the paper's order.
std::vector<std::string> builtin_case_names();

/// A built-in case by name (case-insensitive). Throws input_error listing the valid names.
CaseSpec builtin_case(const std::string& name);

/// Reads a case file. Throws input_error naming the file and the key on any problem.
CaseSpec read_case_file(const std::filesystem::path& path);

/// Parses case-file text; `source` names it in error messages.
CaseSpec parse_case(std::istream& in, const std::string& source);

}  // namespace adimg
