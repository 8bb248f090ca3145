#include "strip_lines.hpp"

#include <cstddef>

namespace adimg {

StripLines::StripLines(Communicator& comm, const fast_direct::Plan& plan, int first_row, int rows)
    : comm_(comm),
      plan_(plan),
      lines_{fast_direct::host_mode_line_rows(plan_), plan_.nt, first_row, plan_.l_first, plan_.singular},
      rows_(rows),
      chunks_(mode_line_chunks(rows)) {
    const std::size_t values = static_cast<std::size_t>(rows) * plan_.nt;
    const std::size_t reduced = 2 * static_cast<std::size_t>(chunks_) * plan_.nt;
    for (std::vector<double>* part : {&a_, &c_, &v_}) part->resize(values);
    for (std::vector<double>* part : {&ra_, &rc_, &rv_}) part->resize(reduced);
    couplings_.ends.resize(static_cast<std::size_t>(y_line_end_words) * plan_.nt);
}

void StripLines::solve(double* w) {
    const int nt = plan_.nt, m = rows_, chunks = chunks_, parts = nt * chunks;
    // Each chunk of each mode's part eliminated, then each mode's reduced equations down to the
    // part's two coupling equations.
#pragma omp parallel for schedule(static)
    for (int t = 0; t < parts; ++t)
        mode_chunk_reduce(lines_, w, a_.data(), c_.data(), v_.data(), ra_.data(), rc_.data(), rv_.data(), m, chunks,
                          t % nt, t / nt);
#pragma omp parallel for schedule(static)
    for (int k = 0; k < nt; ++k) y_line_reduce(ra_.data(), rc_.data(), rv_.data(), nt, chunks, k, couplings_.ends.data());
    // The coupling equations of every rank: one all-gather, then every mode's reduced system.
    solve_couplings(comm_, nt, false, couplings_);
    const double* const solved = couplings_.solved.data();
#pragma omp parallel for schedule(static)
    for (int k = 0; k < nt; ++k)
        y_line_fill(ra_.data(), rc_.data(), rv_.data(), nt, chunks, k, solved[2 * static_cast<std::size_t>(k)],
                    solved[2 * static_cast<std::size_t>(k) + 1]);
#pragma omp parallel for schedule(static)
    for (int t = 0; t < parts; ++t)
        mode_chunk_finish(a_.data(), c_.data(), v_.data(), rv_.data(), nt, m, chunks, t % nt, t / nt, w);
}

}  // namespace adimg
