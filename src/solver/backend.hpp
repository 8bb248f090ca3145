#pragma once
// The backend contract: what the generic algorithm (multigrid.hpp, refinement.hpp, pcg.hpp,
// coarse_solve.hpp, engine.hpp) asks of a backend. The algorithm exists once; a backend supplies
// these operations on its own memory. CpuBackend (src/cpu) is the reference; CudaBackend
// (src/cuda) is checked against it operation by operation (tests/gpu). backend_contract.hpp
// declares this contract as compile-time checks; every backend asserts
// check_backend_contract<Backend>() where its engine is instantiated, so a missing or mistyped
// operation fails to compile with the operation's name (tests/contract).
//
// Types
//   vector<T>, matrix<T>       a vector and a nine-band matrix in the backend's memory; T is float
//                              or double; vector<T> has size() and data()
//   Recording                  default-constructible state that replay() keeps for one caller
//
// Memory and transfers (host data is double; a vector<float> converts on the way)
//   make_vector<T>(mx, my)     zeros on an mx x my grid (a level's): the backend lays it out as
//                              it lays out that level (a distributed backend: a rank's rows)
//   make_array<T>(n)           n zeros that are no grid's (split positions, scalars): whole
//                              wherever the backend runs
//   make_matrix<T>(bands)      a copy of host bands; update_values(bands, M) overwrites the values
//                              of a matrix of the same grid without allocating
//   upload(host, n, v)         n values from host memory into v (exactly n entries); also
//                              upload(std::vector<double>, v)
//   download(v, host)          v into host memory that holds v.size() values
//   make_matrix<T>(mesh)       a built-in problem's stiffness matrix assembled where the backend
//                              runs; update_values(mesh, M) assembles into M
//   make_matrix<T>(mx, my)     a matrix of that grid whose values are set next
//   make_matrix<T>(M), update_values(M, N)  a copy of a double matrix in the backend's memory,
//                              in precision T
//   download(M, bands)         a double matrix into host bands (the coarsest grid's, for its factor)
//   bytes(M)                   static: the memory a matrix holds
//   workspace_bytes()          memory the backend holds besides the levels
//   name()                     the device, for reports
//
// Stencil operations (docs/design.md §2, §4), all on grids of the matrix's shape
//   defect(A, b, x, d)                     d = b - A x
//   multiply(A, x, y)                      y = A x
//   jacobi(A, b, x_in, x_out, omega)       one damped Jacobi step, out of place
//   jacobi_steps(A, b, x, work, omega, s)  s damped Jacobi steps on x in place; work is a vector
//                                          of x's size the backend may overwrite
//   gauss_seidel(A, b, x, order)           one four-colour Gauss–Seidel sweep in place, colours
//                                          in SweepOrder (default forward; backward is the adjoint)
//   line_relax(A, b, x_in, x_out, dir, omega)  one damped ADI half-step (all lines of direction
//                                          dir solved exactly), out of place
//   restrict_defect(A, b, x, d, tx, ty, coarse)  coarse = R (b - A x); d is scratch
//   restrict_to(fine, mx, my, tx, ty, coarse, natural)  coarse = R fine (full multigrid restricts b)
//   prolong_add(coarse, tx, ty, fine, mx, my, natural)  fine += P coarse on interior nodes
//                                          natural: the level's natural edges (NaturalEdges),
//                                          always passed, from its matrix's `natural`, which
//                                          restrict_defect reads; a backend that takes only
//                                          Dirichlet edges (the distributed one) refuses others
//   update_defect_norm(A, b, x, alpha, c, x_next, d)  x_next = x + alpha c, d = b - A x_next;
//                                          returns ||d|| (c may be of another precision)
//   DirectSolve, make_direct_solve(A), update_direct_solve(A, s), direct_solve(s, b, x)
//                                          the coarsest grid's exact solve: made once from the
//                                          host bands (input_error if singular), x = A^-1 b
//
// Setup where the backend runs (engine.hpp)
//   galerkin_coarse(A, tx, ty, C)          C = R A P (galerkin_row.hpp) in double, into C's storage
//   assemble_load(mesh, problem, b)        b = the built-in problem's load vector (q1_element.hpp)
//   relative_l2_error(mesh, problem, x)    its relative L2 error for nodal values x, to the host
//
// Vectors; dot products and norms accumulate in double whatever T is
//   fill(v, value), copy(src, dst), scale_convert(alpha, src, dst) (dst = alpha src, converting)
//   axpy(alpha, x, y)                      y += alpha x, converting x to y's precision
//   dot(x, y), norm2(x)                    returned to the host (a synchronisation)
//   dot(x, y, out)                         *out = x·y with out in the backend's memory
//   axpy_ratio(num, den, sign, x, y)       y += sign (num / den) x, scalars in backend memory
//   xpay_ratio(x, num, num_minus, den, y)  y = x + ((num - num_minus) / den) y
//   (a zero den gives a zero ratio: CG that has solved its system exactly takes no step)
//
// Several right-hand sides side by side (optional: the CUDA backend has it, Multigrid::batch()
// needs it)
//   make_vectors<T>(mx, my, k)  k vectors of the grid in one, column c at c mx my; the stencil
//                              operations, the grid transfers and direct_solve apply to each column
//                              of such vectors (their sizes say how many), reading the matrix once
//                              for all, and give each column the bits it would get alone; fill and
//                              copy treat them as one long vector
//
// Replay
//   replay(recording, body)    runs body(), which enqueues operations and never waits for the
//                              host; a backend may record it on a later call and replay the
//                              recording instead. Every call with one recording must use the same
//                              buffers (the cycle keeps each level's vectors fixed for this).
//
// Failures: bad sizes are std::logic_error (a bug of the caller); resource limits and device
// faults are device_error naming what failed and what to do.

#include <utility>

namespace adimg {

/// `passes` out-of-place passes on x in place (Jacobi steps in the backends, ADI half-steps in
/// the cycle): pass(p, from, to) reads one buffer and writes the other, alternating between x and
/// work; after an odd number of passes the result is copied back into x. x and work stay the
/// buffers they are, so a recorded cycle replays with the same ones.
template <class Vector, class Pass, class Copy>
void in_place_passes(Vector& x, Vector& work, int passes, Pass&& pass, Copy&& copy) {
    Vector* from = &x;
    Vector* to = &work;
    for (int p = 0; p < passes; ++p) {
        pass(p, *from, *to);
        std::swap(from, to);
    }
    if (from != &x) copy(*from, x);
}

}  // namespace adimg
