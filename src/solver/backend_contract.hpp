#pragma once
// The backend contract of backend.hpp as compile-time checks (C++17: the CUDA files compile as
// C++17). One trait per operation (or per few that belong together), true when the backend
// declares it in the call form the generic algorithm uses (multigrid.hpp, coarse_solve.hpp,
// pcg.hpp, flexible_cg.hpp, refinement.hpp, outer_loop.hpp, engine.hpp), for T = float and double
// and, where an operation converts, for every pair of them. Each backend asserts
//
//     static_assert(check_backend_contract<SomeBackend>());
//
// which fails with one message per missing or mistyped operation, naming it. Only declarations
// are checked (decltype), so the checks cost no instantiation of the operations' bodies.

#include <adimg/nine_bands.hpp>
#include <adimg/problems.hpp>

#include "multigrid.hpp"
#include "stencil.hpp"

#include <cstddef>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace adimg::contract {

/// Whether Op<Args...> is a valid type (the detection idiom).
template <class, template <class...> class Op, class... Args>
struct Detector : std::false_type {};
template <template <class...> class Op, class... Args>
struct Detector<std::void_t<Op<Args...>>, Op, Args...> : std::true_type {};
template <template <class...> class Op, class... Args>
inline constexpr bool detected = Detector<void, Op, Args...>::value;

/// Op<B, T> for T = float and double; Op<B, S, T> for every pair.
template <template <class...> class Op, class B>
inline constexpr bool in_both = detected<Op, B, float> && detected<Op, B, double>;
template <template <class...> class Op, class B>
inline constexpr bool in_all_pairs = detected<Op, B, float, float> && detected<Op, B, float, double> &&
                                     detected<Op, B, double, float> && detected<Op, B, double, double>;

template <class B, class T>
using Vector = typename B::template vector<T>;
template <class B, class T>
using Matrix = typename B::template matrix<T>;

/// A result that must convert to R, or an ill-formed type.
template <class R, class E>
using Returns = std::enable_if_t<std::is_convertible_v<E, R>>;

/// What replay() runs (the cycle passes a lambda).
struct Body {
    void operator()() const {}
};

// Types
template <class B, class T>
using vector_op = decltype(std::declval<const Vector<B, T>&>().size(), std::declval<const Vector<B, T>&>().data(),
                           std::declval<Matrix<B, T>>());
template <class B>
using state_op = decltype(typename B::Recording{}, std::declval<typename B::DirectSolve>());

// Memory and transfers
template <class B, class T>
using make_vector_op = decltype(Returns<Vector<B, T>, decltype(std::declval<B&>().template make_vector<T>(int{}, int{}))>(),
                                Returns<Vector<B, T>, decltype(std::declval<B&>().template make_array<T>(std::size_t{}))>());
template <class B, class T>
using make_matrix_op = decltype(
    Returns<Matrix<B, T>, decltype(std::declval<B&>().template make_matrix<T>(std::declval<const NineBands<double>&>()))>(),
    Returns<Matrix<B, T>, decltype(std::declval<B&>().template make_matrix<T>(std::declval<const TensorMesh&>()))>(),
    Returns<Matrix<B, T>, decltype(std::declval<B&>().template make_matrix<T>(int{}, int{}))>(),
    Returns<Matrix<B, T>, decltype(std::declval<B&>().template make_matrix<T>(std::declval<const Matrix<B, double>&>()))>());
template <class B, class T>
using update_values_op = decltype(std::declval<B&>().update_values(std::declval<const NineBands<double>&>(), std::declval<Matrix<B, T>&>()),
                                  std::declval<B&>().update_values(std::declval<const TensorMesh&>(), std::declval<Matrix<B, T>&>()),
                                  std::declval<B&>().update_values(std::declval<const Matrix<B, double>&>(), std::declval<Matrix<B, T>&>()));
template <class B, class T>
using upload_op = decltype(std::declval<B&>().upload(std::declval<const double*>(), std::size_t{}, std::declval<Vector<B, T>&>()),
                           std::declval<B&>().upload(std::declval<const std::vector<double>&>(), std::declval<Vector<B, T>&>()));
template <class B, class T>
using download_op = decltype(std::declval<B&>().download(std::declval<const Vector<B, T>&>(), std::declval<double*>()),
                             std::declval<B&>().download(std::declval<const Matrix<B, double>&>(), std::declval<NineBands<double>&>()));
template <class B, class T>
using bytes_op = Returns<std::size_t, decltype(B::bytes(std::declval<const Matrix<B, T>&>()))>;
template <class B>
using workspace_bytes_op = Returns<std::size_t, decltype(std::declval<const B&>().workspace_bytes())>;
template <class B>
using name_op = Returns<std::string, decltype(std::declval<const B&>().name())>;

// Stencil operations
template <class B, class T>
using defect_op = decltype(std::declval<B&>().defect(std::declval<const Matrix<B, T>&>(), std::declval<const Vector<B, T>&>(),
                                                     std::declval<const Vector<B, T>&>(), std::declval<Vector<B, T>&>()));
template <class B, class T>
using multiply_op = decltype(std::declval<B&>().multiply(std::declval<const Matrix<B, T>&>(), std::declval<const Vector<B, T>&>(),
                                                         std::declval<Vector<B, T>&>()));
template <class B, class T>
using jacobi_op = decltype(std::declval<B&>().jacobi(std::declval<const Matrix<B, T>&>(), std::declval<const Vector<B, T>&>(),
                                                     std::declval<const Vector<B, T>&>(), std::declval<Vector<B, T>&>(), T{}));
template <class B, class T>
using jacobi_steps_op = decltype(std::declval<B&>().jacobi_steps(std::declval<const Matrix<B, T>&>(), std::declval<const Vector<B, T>&>(),
                                                                 std::declval<Vector<B, T>&>(), std::declval<Vector<B, T>&>(), T{}, int{}));
template <class B, class T>
using gauss_seidel_op = decltype(std::declval<B&>().gauss_seidel(std::declval<const Matrix<B, T>&>(), std::declval<const Vector<B, T>&>(),
                                                                 std::declval<Vector<B, T>&>(), SweepOrder{}));
template <class B, class T>
using line_relax_op = decltype(std::declval<B&>().line_relax(std::declval<const Matrix<B, T>&>(), std::declval<const Vector<B, T>&>(),
                                                             std::declval<const Vector<B, T>&>(), std::declval<Vector<B, T>&>(),
                                                             Direction{}, T{}));
template <class B, class T>
using restrict_defect_op = decltype(std::declval<B&>().restrict_defect(
    std::declval<const Matrix<B, T>&>(), std::declval<const Vector<B, T>&>(), std::declval<const Vector<B, T>&>(),
    std::declval<Vector<B, T>&>(), std::declval<const Vector<B, T>&>(), std::declval<const Vector<B, T>&>(),
    std::declval<Vector<B, T>&>()));
/// The grid transfers take the level's natural edges, always (a matrix carries them as `natural`).
template <class B, class T>
using restrict_to_op = decltype(std::declval<B&>().restrict_to(std::declval<const Vector<B, T>&>(), int{}, int{},
                                                               std::declval<const Vector<B, T>&>(), std::declval<const Vector<B, T>&>(),
                                                               std::declval<Vector<B, T>&>(), NaturalEdges{}),
                                std::declval<const Matrix<B, T>&>().natural);
template <class B, class T>
using prolong_add_op = decltype(std::declval<B&>().prolong_add(std::declval<const Vector<B, T>&>(), std::declval<const Vector<B, T>&>(),
                                                               std::declval<const Vector<B, T>&>(), std::declval<Vector<B, T>&>(),
                                                               int{}, int{}, NaturalEdges{}));
template <class B, class X, class C>
using update_defect_norm_op = Returns<double, decltype(std::declval<B&>().update_defect_norm(
    std::declval<const Matrix<B, X>&>(), std::declval<const Vector<B, X>&>(), std::declval<const Vector<B, X>&>(), double{},
    std::declval<const Vector<B, C>&>(), std::declval<Vector<B, X>&>(), std::declval<Vector<B, X>&>()))>;
template <class B, class T>
using direct_solve_op = decltype(
    Returns<typename B::DirectSolve, decltype(std::declval<B&>().make_direct_solve(std::declval<const NineBands<double>&>()))>(),
    std::declval<B&>().update_direct_solve(std::declval<const NineBands<double>&>(), std::declval<typename B::DirectSolve&>()),
    std::declval<B&>().direct_solve(std::declval<const typename B::DirectSolve&>(), std::declval<const Vector<B, T>&>(),
                                    std::declval<Vector<B, T>&>()));

// Setup where the backend runs
template <class B>
using galerkin_coarse_op = decltype(std::declval<B&>().galerkin_coarse(
    std::declval<const Matrix<B, double>&>(), std::declval<const Vector<B, double>&>(), std::declval<const Vector<B, double>&>(),
    std::declval<Matrix<B, double>&>()));
template <class B, class T>
using built_in_problem_op = decltype(
    std::declval<B&>().assemble_load(std::declval<const TensorMesh&>(), std::declval<const PolynomialProblem&>(), std::declval<Vector<B, T>&>()),
    Returns<double, decltype(std::declval<B&>().relative_l2_error(std::declval<const TensorMesh&>(), std::declval<const PolynomialProblem&>(),
                                                                  std::declval<const Vector<B, T>&>()))>());

// Vectors
template <class B, class T>
using fill_op = decltype(std::declval<B&>().fill(std::declval<Vector<B, T>&>(), T{}));
template <class B, class T>
using copy_op = decltype(std::declval<B&>().copy(std::declval<const Vector<B, T>&>(), std::declval<Vector<B, T>&>()));
template <class B, class S, class T>
using scale_convert_op = decltype(std::declval<B&>().scale_convert(double{}, std::declval<const Vector<B, S>&>(), std::declval<Vector<B, T>&>()));
template <class B, class S, class T>
using axpy_op = decltype(std::declval<B&>().axpy(double{}, std::declval<const Vector<B, S>&>(), std::declval<Vector<B, T>&>()));
template <class B, class T>
using dot_op = decltype(
    Returns<double, decltype(std::declval<B&>().dot(std::declval<const Vector<B, T>&>(), std::declval<const Vector<B, T>&>()))>(),
    std::declval<B&>().dot(std::declval<const Vector<B, T>&>(), std::declval<const Vector<B, T>&>(), std::declval<double*>()));
template <class B, class T>
using norm2_op = Returns<double, decltype(std::declval<B&>().norm2(std::declval<const Vector<B, T>&>()))>;
template <class B, class T>
using ratio_op = decltype(
    std::declval<B&>().axpy_ratio(std::declval<double*>(), std::declval<double*>(), double{}, std::declval<const Vector<B, T>&>(),
                                  std::declval<Vector<B, T>&>()),
    std::declval<B&>().xpay_ratio(std::declval<const Vector<B, T>&>(), std::declval<double*>(), std::declval<double*>(),
                                  std::declval<double*>(), std::declval<Vector<B, T>&>()));

// Replay
template <class B>
using replay_op = decltype(std::declval<B&>().replay(std::declval<typename B::Recording&>(), Body{}));

/// Every operation above.
template <class B>
inline constexpr bool all = in_both<vector_op, B> && detected<state_op, B> && in_both<make_vector_op, B> && in_both<make_matrix_op, B> &&
                            in_both<update_values_op, B> && in_both<upload_op, B> && in_both<download_op, B> && in_both<bytes_op, B> &&
                            detected<workspace_bytes_op, B> && detected<name_op, B> && in_both<defect_op, B> && in_both<multiply_op, B> &&
                            in_both<jacobi_op, B> && in_both<jacobi_steps_op, B> && in_both<gauss_seidel_op, B> && in_both<line_relax_op, B> &&
                            in_both<restrict_defect_op, B> && in_both<restrict_to_op, B> && in_both<prolong_add_op, B> &&
                            in_all_pairs<update_defect_norm_op, B> && in_both<direct_solve_op, B> && detected<galerkin_coarse_op, B> &&
                            in_both<built_in_problem_op, B> && in_both<fill_op, B> && in_both<copy_op, B> && in_all_pairs<scale_convert_op, B> &&
                            in_all_pairs<axpy_op, B> && in_both<dot_op, B> && in_both<norm2_op, B> && in_both<ratio_op, B> &&
                            detected<replay_op, B>;

}  // namespace adimg::contract

namespace adimg {

/// Whether Backend declares every operation of the contract (backend.hpp).
template <class Backend>
inline constexpr bool meets_backend_contract = contract::all<Backend>;

/// meets_backend_contract<Backend>, asserted one operation at a time so that a missing or
/// mistyped one is named: static_assert(check_backend_contract<Backend>());
template <class Backend>
constexpr bool check_backend_contract() {
    using namespace contract;
    using B = Backend;
#define ADIMG_CONTRACT(holds, operation) \
    static_assert(holds, "backend contract (src/solver/backend.hpp): missing or mistyped " operation)
    ADIMG_CONTRACT((in_both<vector_op, B>), "vector<T> with size() and data(), matrix<T>");
    ADIMG_CONTRACT((detected<state_op, B>), "Recording, DirectSolve");
    ADIMG_CONTRACT((in_both<make_vector_op, B>), "make_vector<T>(mx, my), make_array<T>(n)");
    ADIMG_CONTRACT((in_both<make_matrix_op, B>), "make_matrix<T>(bands), make_matrix<T>(mesh), make_matrix<T>(mx, my), make_matrix<T>(M)");
    ADIMG_CONTRACT((in_both<update_values_op, B>), "update_values(bands, M), update_values(mesh, M), update_values(M, N)");
    ADIMG_CONTRACT((in_both<upload_op, B>), "upload(host, n, v), upload(std::vector<double>, v)");
    ADIMG_CONTRACT((in_both<download_op, B>), "download(v, host), download(M, bands)");
    ADIMG_CONTRACT((in_both<bytes_op, B>), "static bytes(M)");
    ADIMG_CONTRACT((detected<workspace_bytes_op, B>), "workspace_bytes() const");
    ADIMG_CONTRACT((detected<name_op, B>), "name() const");
    ADIMG_CONTRACT((in_both<defect_op, B>), "defect(A, b, x, d)");
    ADIMG_CONTRACT((in_both<multiply_op, B>), "multiply(A, x, y)");
    ADIMG_CONTRACT((in_both<jacobi_op, B>), "jacobi(A, b, x_in, x_out, omega)");
    ADIMG_CONTRACT((in_both<jacobi_steps_op, B>), "jacobi_steps(A, b, x, work, omega, steps)");
    ADIMG_CONTRACT((in_both<gauss_seidel_op, B>), "gauss_seidel(A, b, x, order)");
    ADIMG_CONTRACT((in_both<line_relax_op, B>), "line_relax(A, b, x_in, x_out, direction, omega)");
    ADIMG_CONTRACT((in_both<restrict_defect_op, B>), "restrict_defect(A, b, x, d, split_x, split_y, coarse)");
    ADIMG_CONTRACT((in_both<restrict_to_op, B>), "restrict_to(fine, mx, my, split_x, split_y, coarse, natural) and the matrix's natural");
    ADIMG_CONTRACT((in_both<prolong_add_op, B>), "prolong_add(coarse, split_x, split_y, fine, mx, my, natural)");
    ADIMG_CONTRACT((in_all_pairs<update_defect_norm_op, B>), "update_defect_norm(A, b, x, alpha, c, x_next, d)");
    ADIMG_CONTRACT((in_both<direct_solve_op, B>), "make_direct_solve(A), update_direct_solve(A, s), direct_solve(s, b, x)");
    ADIMG_CONTRACT((detected<galerkin_coarse_op, B>), "galerkin_coarse(A, split_x, split_y, C)");
    ADIMG_CONTRACT((in_both<built_in_problem_op, B>), "assemble_load(mesh, problem, b), relative_l2_error(mesh, problem, x)");
    ADIMG_CONTRACT((in_both<fill_op, B>), "fill(v, value)");
    ADIMG_CONTRACT((in_both<copy_op, B>), "copy(src, dst)");
    ADIMG_CONTRACT((in_all_pairs<scale_convert_op, B>), "scale_convert(alpha, src, dst)");
    ADIMG_CONTRACT((in_all_pairs<axpy_op, B>), "axpy(alpha, x, y)");
    ADIMG_CONTRACT((in_both<dot_op, B>), "dot(x, y), dot(x, y, out)");
    ADIMG_CONTRACT((in_both<norm2_op, B>), "norm2(x)");
    ADIMG_CONTRACT((in_both<ratio_op, B>), "axpy_ratio(num, den, sign, x, y), xpay_ratio(x, num, num_minus, den, y)");
    ADIMG_CONTRACT((detected<replay_op, B>), "replay(recording, body)");
#undef ADIMG_CONTRACT
    return meets_backend_contract<Backend>;
}

}  // namespace adimg
