// A backend that declares every operation of the contract (src/solver/backend.hpp) and defines
// none: the contract checks read declarations only. Built as the positive control of the contract
// test; built with ADIMG_FAKE_WITHOUT_FILL, a backend missing one operation, it must not compile
// and must name fill (tests/CMakeLists.txt, contract_*).

#include "solver/backend_contract.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace {

using namespace adimg;

struct FakeBackend {
    template <class T>
    using vector = std::vector<T>;
    template <class T>
    struct matrix {
        NaturalEdges natural;
    };
    struct Recording {};
    struct DirectSolve {};

    template <class T> vector<T> make_vector(int mx, int my);
    template <class T> vector<T> make_array(std::size_t n);
    template <class T> matrix<T> make_matrix(const NineBands<double>& bands);
    template <class T> matrix<T> make_matrix(const TensorMesh& mesh);
    template <class T> matrix<T> make_matrix(int mx, int my);
    template <class T> matrix<T> make_matrix(const matrix<double>& M);
    template <class T> void update_values(const NineBands<double>& bands, matrix<T>& M);
    template <class T> void update_values(const TensorMesh& mesh, matrix<T>& M);
    template <class T> void update_values(const matrix<double>& M, matrix<T>& N);
    template <class T> void upload(const double* host, std::size_t n, vector<T>& v);
    template <class T> void upload(const std::vector<double>& host, vector<T>& v);
    template <class T> void download(const vector<T>& v, double* host);
    void download(const matrix<double>& M, NineBands<double>& bands);
    template <class T> static std::size_t bytes(const matrix<T>& M);
    std::size_t workspace_bytes() const;
    std::string name() const;

    template <class T> void defect(const matrix<T>& A, const vector<T>& b, const vector<T>& x, vector<T>& d);
    template <class T> void multiply(const matrix<T>& A, const vector<T>& x, vector<T>& y);
    template <class T> void jacobi(const matrix<T>& A, const vector<T>& b, const vector<T>& x_in, vector<T>& x_out, T omega);
    template <class T> void jacobi_steps(const matrix<T>& A, const vector<T>& b, vector<T>& x, vector<T>& work, T omega, int steps);
    template <class T> void gauss_seidel(const matrix<T>& A, const vector<T>& b, vector<T>& x, SweepOrder order);
    template <class T>
    void line_relax(const matrix<T>& A, const vector<T>& b, const vector<T>& x_in, vector<T>& x_out, Direction direction, T omega);
    template <class T>
    void restrict_defect(const matrix<T>& A, const vector<T>& b, const vector<T>& x, vector<T>& d, const vector<T>& split_x,
                         const vector<T>& split_y, vector<T>& coarse);
    template <class T>
    void restrict_to(const vector<T>& fine, int mx, int my, const vector<T>& split_x, const vector<T>& split_y, vector<T>& coarse,
                     NaturalEdges natural);
    template <class T>
    void prolong_add(const vector<T>& coarse, const vector<T>& split_x, const vector<T>& split_y, vector<T>& fine, int mx, int my,
                     NaturalEdges natural);
    template <class X, class C>
    double update_defect_norm(const matrix<X>& A, const vector<X>& b, const vector<X>& x, double alpha, const vector<C>& c,
                              vector<X>& x_next, vector<X>& d);
    DirectSolve make_direct_solve(const NineBands<double>& A);
    void update_direct_solve(const NineBands<double>& A, DirectSolve& s);
    template <class T> void direct_solve(const DirectSolve& s, const vector<T>& b, vector<T>& x);

    void galerkin_coarse(const matrix<double>& A, const vector<double>& split_x, const vector<double>& split_y, matrix<double>& C);
    template <class T> void assemble_load(const TensorMesh& mesh, const PolynomialProblem& problem, vector<T>& b);
    template <class T> double relative_l2_error(const TensorMesh& mesh, const PolynomialProblem& problem, const vector<T>& x);

#ifndef ADIMG_FAKE_WITHOUT_FILL
    template <class T> void fill(vector<T>& v, T value);
#endif
    template <class T> void copy(const vector<T>& src, vector<T>& dst);
    template <class S, class T> void scale_convert(double alpha, const vector<S>& src, vector<T>& dst);
    template <class S, class T> void axpy(double alpha, const vector<S>& x, vector<T>& y);
    template <class T> double dot(const vector<T>& x, const vector<T>& y);
    template <class T> void dot(const vector<T>& x, const vector<T>& y, double* out);
    template <class T> double norm2(const vector<T>& x);
    template <class T> void axpy_ratio(const double* num, const double* den, double sign, const vector<T>& x, vector<T>& y);
    template <class T>
    void xpay_ratio(const vector<T>& x, const double* num, const double* num_minus, const double* den, vector<T>& y);

    template <class Body> void replay(Recording& recording, Body&& body);
};

static_assert(check_backend_contract<FakeBackend>());

}  // namespace
