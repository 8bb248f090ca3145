#pragma once
// The outer iteration of a solve, as SolverOptions::outer chooses it: the one entry point the
// engine calls (docs/design.md §5).

#include "flexible_cg.hpp"
#include "refinement.hpp"

#include <utility>

namespace adimg {

/// Iterative refinement (refine()) or flexible CG (flexible_cg()) on A x = b with the inner
/// V-cycles `inner` and the double fallback `fallback`; `krylov` holds CG's direction vectors
/// (made at the first CG solve), `terms` forms A's defects and products (MultigridTerms). The
/// arguments are otherwise those of refine(). Returns whether x or the guess is the answer
/// (outer_loop()).
template <class Backend, class Outer, class Inner, class Fallback, class Terms = MultigridTerms>
Answer outer_solve(Backend& be, const typename Backend::template matrix<Outer>& A,
                 const typename Backend::template vector<Outer>& b, typename Backend::template vector<Outer>& x,
                 typename Backend::template vector<Outer>& x_next, typename Backend::template vector<Outer>& d,
                 bool zero_guess, Inner&& inner, Fallback&& fallback, const SolverOptions& options,
                 const StepCallback& on_step, SolveReport& report, KrylovVectors<Backend, Outer>& krylov,
                 const Terms& terms = {}) {
    switch (options.outer) {
    case OuterMethod::refinement:
        return refine<Backend, Outer>(be, A, b, x, x_next, d, zero_guess, std::forward<Inner>(inner),
                                      std::forward<Fallback>(fallback), options, on_step, report, terms);
    case OuterMethod::cg:
        return flexible_cg<Backend, Outer>(be, A, b, x, x_next, d, krylov, zero_guess, std::forward<Inner>(inner),
                                           std::forward<Fallback>(fallback), options, on_step, report, terms);
    }
    return Answer::iterate;
}

}  // namespace adimg
