#include "cli_options.hpp"
#include "commands.hpp"

#include <adimg/problems.hpp>
#include <adimg/io.hpp>
#include <adimg/error.hpp>

#include <iostream>

namespace adimg::cli {

int run_assemble(const std::vector<std::string>& args) {
    ProblemOptions problem;
    std::string matrix_out, rhs_out;
    po::options_description desc("assemble options");
    add_problem_options(desc, problem, 6);
    desc.add_options()
        ("out", po::value(&matrix_out)->required(), "Matrix Market file for the matrix")
        ("rhs-out", po::value(&rhs_out), "Matrix Market file for the right-hand side");
    if (!parse_command_line(args, desc, "usage: adimg assemble --case A2 --level 6 --out A.mtx --rhs-out b.mtx"))
        return 0;
    check_output_paths({matrix_out, rhs_out});
    check_distinct_files({{"out", matrix_out}, {"rhs-out", rhs_out}}, {{"case-file", problem.case_file}});
    resolve_level(problem);
    const CaseSpec spec = resolve_case(problem);
    check_level(spec, problem.level, 9 * sizeof(double) * 4, "writing the matrix");
    const TensorMesh mesh = spec.mesh(problem.level);
    write_matrix_market(matrix_out, to_eigen(assemble_stiffness(mesh)));
    if (!rhs_out.empty()) write_matrix_market(rhs_out, assemble_load(mesh, {spec.x.length, spec.y.length}));
    std::cout << "wrote " << matrix_out << (rhs_out.empty() ? "" : " and " + rhs_out) << ": case " << spec.name
              << ", level " << problem.level << ", " << mesh.mx() << "x" << mesh.my() << " grid (row p = j*"
              << mesh.mx() << " + i)\n";
    return 0;
}

}  // namespace adimg::cli
