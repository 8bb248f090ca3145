#pragma once
// Cyclic reduction for one tridiagonal line, laid out so that shared memory sees no bank
// conflicts (paper Sec. 3.4, Fig. 4). The algorithm is written once as a sequence of phases over
// an executor: the CUDA kernel runs each phase with all threads of a block and a barrier after it,
// the host test runs the same phases as plain loops, so CI checks the index arithmetic without a GPU.
//
// Levels: S_0 is the line (n equations); S_{k+1} holds the odd equations of S_k after eliminating
// their even neighbours, so n_k = n >> k, down to n_K = 1 with K = floor(log2 n).
// Every equation is kept normalised to a unit diagonal (a x_{i-1} + x_i + c x_{i+1} = v), so it
// needs three words, not four, and the back substitution needs no division.
// Storage, in words of T inside one buffer:
//   E_k  the even equations of every level (a, c, v), kept for the back substitution;
//   O_0  optionally, the odd equations of level 0, so that the line is read from memory in one
//        coalesced pass (thread t loads equation t) with all loads independent. Without it the
//        even equations are loaded first and the first reduction loads the odd ones itself:
//        two dependent passes, but 1.5 n words less shared memory, which lets more lines run
//        at once on long lines (docs/performance.md, "Level-0 staging and threads per line");
//        E_0 may be left out as well: the first reduction then loads all three of its
//        equations from memory and the last substitution loads its even equation again (the
//        evens are read twice and then once more, mostly from cache), for 1.5 n words less again;
//   O_k  the odd equations of level k >= 1, the input of the next reduction; two ping-pong
//        buffers (levels 1, 3, 5, ... and 2, 4, ...), since each phase reads one and writes the other;
//   X_k  the solution of level k >= 1, again two ping-pong buffers, placed over the O buffers,
//        which are dead once the reduction is done.
// Several lines per block: line g of a block has its own buffer, line_stride words after line
// g - 1's. The phases that touch the grid (CrAccess::global) then run with consecutive threads on
// consecutive lines, so that adjacent y-lines (columns) are read and written in whole sectors
// without transposing the grid; the others keep the threads of each line together. In a global
// phase a warp holds 32 / G items of each of G lines; line_stride = 64 / G bytes mod 128 puts
// their E_0 and O_0 words in disjoint banks, as below for one line.
// Bank conflicts: the load has thread t write equation t to E_0 or O_0, and a reduction phase
// has thread beta write equation beta of S_{k+1} either to
// E_{k+1}[beta/2] (beta even) or to O_{k+1}[beta/2] (beta odd), so each warp writes 16 consecutive
// words of E and 16 of O. These hit disjoint banks when the two bases differ by 64 bytes modulo
// 128 (16 banks of 4 bytes; for double, each half-warp's 8 + 8 doubles likewise), so each E_k is
// padded to meet that. All reads are of consecutive (or identical) words. The back substitution
// has thread alpha write X_k[alpha], consecutive again. Total: about 4.1 n words, 5.6 n with O_0,
// 2.6 n with neither O_0 nor E_0 (float lines of 8193 unknowns take 135, 184 and 86 KiB; double
// lines of 8193 fit an H200 block, 172 KiB, only with neither).

#include "../common/host_device.hpp"

#include <algorithm>
#include <type_traits>

namespace adimg {

constexpr int cr_max_levels = 16;  // lines of up to 65535 equations

/// Which equations of level 0 are kept in shared memory (see above).
enum class CrStaging {
    all,    ///< E_0 and O_0: the line is loaded in one coalesced pass
    evens,  ///< E_0 only: evens loaded first, odds by the first reduction
    none,   ///< neither: the first reduction and the last substitution load what they need
};
constexpr CrStaging all_cr_stagings[] = {CrStaging::all, CrStaging::evens, CrStaging::none};
inline const char* to_string(CrStaging staging) {
    return staging == CrStaging::all ? "E_0 and O_0" : staging == CrStaging::evens ? "E_0" : "none";
}

/// Where everything lives for a line of n equations, in words of the element type.
struct CrLayout {
    int n = 0;
    int levels = 0;                   ///< K: reductions until one equation is left
    int even_offset[cr_max_levels + 1];  ///< start of E_k inside each of the four E arrays
    int even_size = 0;                ///< words per E array, padding included
    int odd_offset[2];                ///< start of the two O ping-pong buffers
    int odd_size = 0;                 ///< words per O array (both buffers)
    int solution_offset[2];           ///< start of the two X ping-pong buffers, inside the O region
    CrStaging staging = CrStaging::all;  ///< which equations of level 0 live in shared memory
    int first_odd_offset = 0;         ///< start of O_0 (3 arrays of first_odd_size words)
    int first_odd_size = 0;
    int words = 0;                    ///< total words: 3 E arrays, 3 O arrays (holding X later), O_0
    int lines = 1;                    ///< lines solved by one block
    int line_stride = 0;              ///< words from one line's buffer to the next line's

    ADIMG_HD int block_words() const { return lines * line_stride; }  ///< the block's whole buffer

    ADIMG_HD int size(int k) const { return n >> k; }             ///< n_k
    ADIMG_HD int evens(int k) const { return (size(k) + 1) / 2; }  ///< equations in E_k
    /// Array bases inside the buffer: arrays 0..2 are a, c, v.
    ADIMG_HD int even_base(int array, int k) const { return array * even_size + even_offset[k]; }
    ADIMG_HD int odd_base(int array, int k) const { return 3 * even_size + array * odd_size + odd_offset[k & 1]; }
    ADIMG_HD int solution_base(int k) const { return 3 * even_size + solution_offset[k & 1]; }
    ADIMG_HD int first_odd_base(int array) const { return first_odd_offset + array * first_odd_size; }
};

/// Lines per block that a layout supports: the bank offsets between lines (64 / lines bytes)
/// stay whole words of 8 bytes.
constexpr int cr_max_lines_per_block = 8;

/// Computes the layout for `lines` lines (1, 2, 4 or 8) of n >= 1 equations of `word_bytes` each.
inline CrLayout make_cr_layout(int n, int word_bytes, CrStaging staging = CrStaging::all, int lines = 1) {
    CrLayout L{};
    L.n = n;
    L.staging = staging;
    L.lines = lines;
    const bool staged_odds = staging == CrStaging::all;
    while ((n >> (L.levels + 1)) >= 1) ++L.levels;
    // O buffers: odd equations of levels 1, 3, ... go to buffer 1, of levels 2, 4, ... to buffer 0.
    const int odd1 = n >> 2, odd0 = n >> 3;  // o_1 = n_2, o_2 = n_3 (the largest of each parity)
    L.odd_offset[1] = 0;
    L.odd_offset[0] = odd1;
    L.odd_size = odd1 + odd0 + 1;
    // E_k padded so that (O base of level k) - (E base of level k) = 64 bytes mod 128.
    const int period = 128 / word_bytes, half = 64 / word_bytes;
    int offset = 0;
    for (int k = 0; k <= L.levels; ++k) {
        if (k >= 1) {
            const int odd_start = L.odd_offset[k & 1];  // relative to the O region of array 0
            // E array a starts at 0 and O array a at 3*even_size + odd_start; padding E_k alone
            // cannot see even_size yet, so align both regions to `period` and pad E_k relative to it.
            const int want = ((odd_start - half) % period + period) % period;
            offset += ((want - offset) % period + period) % period;
        }
        L.even_offset[k] = offset;
        if (k > 0 || staging != CrStaging::none) offset += L.evens(k);
    }
    L.even_size = (offset + period - 1) / period * period;  // keeps every array aligned to `period`
    L.odd_size = (L.odd_size + period - 1) / period * period;
    L.solution_offset[1] = 0;
    L.solution_offset[0] = n >> 1;  // X_1 has n_1 words; X_1 and X_2 fit in 3 O arrays (3 n/8 each)
    const int odd_region_end = 3 * L.even_size + std::max(3 * L.odd_size, (n >> 1) + (n >> 2) + 1);
    // O_0 starts 64 bytes past a 128-byte boundary, as E_0 starts on one (see above).
    L.first_odd_offset = (odd_region_end + period - 1) / period * period + half;
    L.first_odd_size = staged_odds ? ((n >> 1) + period - 1) / period * period : 0;
    L.words = staged_odds ? L.first_odd_offset + 3 * L.first_odd_size : odd_region_end;
    L.line_stride = lines == 1 ? L.words : (L.words + period - 1) / period * period + 64 / lines / word_bytes;
    return L;
}

/// One equation of a tridiagonal system, scaled to a unit diagonal: a x_{i-1} + x_i + c x_{i+1} = v.
template <class T>
struct CrEquation {
    T a, c, v;
};

/// 1 / b. In float on the GPU, the hardware's approximate reciprocal (rcp.approx, within 1 ulp)
/// instead of the correctly rounded one, whose fix-up sequence costs a dozen instructions in a
/// kernel bound by instruction issue. `Unit` says b is a pivot of equations already scaled to
/// a unit diagonal (a reduction's 1 - a c products, of order one): then the flush-to-zero form,
/// without the range checks that subnormals need; the raw diagonals of the matrix keep them.
/// The float line solves are inside the float V-cycle, a preconditioner of the double
/// refinement loop, which sets the accuracy.
template <bool Unit = false, class T>
ADIMG_HD T cr_reciprocal(T b) {
#if defined(__CUDA_ARCH__)
    if constexpr (std::is_same_v<T, float>) {
        float r;
        if constexpr (Unit)
            asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(b));
        else
            asm("rcp.approx.f32 %0, %1;" : "=f"(r) : "f"(b));
        return r;
    }
#endif
    return T(1) / b;
}

/// Scales a x_{i-1} + b x_i + c x_{i+1} = v to a unit diagonal (`Unit`: see cr_reciprocal).
template <class T, bool Unit = false>
ADIMG_HD CrEquation<T> cr_normalise(T a, T b, T c, T v) {
    const T r = cr_reciprocal<Unit>(b);
    return {a * r, c * r, v * r};
}

/// Eliminates the even neighbours of an odd equation (paper Eq. 3, for unit diagonals: the
/// factors are the odd equation's own couplings) and scales the result back to a unit diagonal.
/// `hi` may be absent at the end of the line.
template <class T>
ADIMG_HD CrEquation<T> cr_reduce(const CrEquation<T>& lo, const CrEquation<T>& mid, const CrEquation<T>* hi) {
    T b = T(1) - mid.a * lo.c;
    T a = -mid.a * lo.a, c = T(0), v = mid.v - mid.a * lo.v;
    if (hi) {
        b -= mid.c * hi->a;
        c = -mid.c * hi->c;
        v -= mid.c * hi->v;
    }
    return cr_normalise<T, true>(a, b, c, v);
}

/// Solves an even equation once its odd neighbours are known (paper Eq. 4, unit diagonal).
template <class T>
ADIMG_HD T cr_substitute(const CrEquation<T>& e, T x_lo, T x_hi) {
    return e.v - e.a * x_lo - e.c * x_hi;
}

/// Which memory the items of a phase touch besides shared memory (see "Several lines per
/// block" above): only shared memory, or the grid through `load` and `store`.
enum class CrAccess { shared, global };

/// Cyclic reduction of the L.lines lines of a block. `load(g, i)` returns equation i of line g,
/// normalised (from global memory), `store(g, i, x)` receives its solution. `shared` is the
/// buffer described by `layout`, line g's part of it at g * L.line_stride.
/// `phase(access, count, body)` must call body(g, t) for every line g and t in [0, count), and
/// then wait until all calls of the phase (all threads) are done before the next phase.
/// `staging` is L.staging, given separately so that a kernel can pass it as a compile-time
/// constant (std::integral_constant<CrStaging, S>): each staging then gets code (and registers)
/// of its own instead of branches for all three.
template <class T, class Staging, class Phase, class Load, class Store>
ADIMG_HD void cyclic_reduction(const CrLayout& L, Staging staging, T* shared, Phase&& phase, Load&& load, Store&& store) {
    auto put = [&](int g, int base_of_array0, int stride, int i, const CrEquation<T>& e) {
        T* s = shared + g * L.line_stride;
        s[base_of_array0 + i] = e.a;
        s[base_of_array0 + stride + i] = e.c;
        s[base_of_array0 + 2 * stride + i] = e.v;
    };
    auto get = [&](int g, int base_of_array0, int stride, int i) {
        const T* s = shared + g * L.line_stride;
        return CrEquation<T>{s[base_of_array0 + i], s[base_of_array0 + stride + i], s[base_of_array0 + 2 * stride + i]};
    };
    const int es = L.even_size, os = L.odd_size;
    // Level 0: with O_0, thread t loads equation t (consecutive threads, consecutive addresses),
    // evens to E_0 and odds to O_0; with E_0 only, the evens are loaded here; with neither, nothing.
    const CrStaging level0 = staging;
    const bool in_shared = level0 != CrStaging::none;
    // Each equation is formed first and then stored to E or O by parity: loading inside two
    // branches made every warp run its (17-read) loads twice, once per half (docs/performance.md, "Cyclic reduction in shared memory").
    // Indices are never negative: parity and halves are bit operations (i % 2 and i / 2 on a
    // signed int cost sign fix-ups in every phase).
    const int even0 = L.even_base(0, 0), odd0 = L.first_odd_base(0), odd0_size = L.first_odd_size;
    if (level0 == CrStaging::all) {
        phase(CrAccess::global, L.n, [&, even0, odd0, odd0_size](int g, int i) {
            const CrEquation<T> e = load(g, i);
            const bool is_even = (i & 1) == 0;
            put(g, is_even ? even0 : odd0, is_even ? es : odd0_size, i >> 1, e);
        });
    } else if (in_shared) {
        phase(CrAccess::global, L.evens(0), [&, even0](int g, int i) { put(g, even0, es, i, load(g, 2 * i)); });
    }
    // The even equation i of level k of line g, from E_k (level 0 without E_0: from memory).
    // `base` is L.even_base(0, k), passed in so that phases compute it once.
    auto even_at = [&](int g, int base, int k, int i) { return k > 0 || in_shared ? get(g, base, es, i) : load(g, 2 * i); };
    auto even = [&](int g, int k, int i) { return even_at(g, L.even_base(0, k), k, i); };
    // Reductions: S_{k+1}[beta] from the odd equation 2 beta + 1 of S_k and its even neighbours.
    // The first reads level 0 (staged or not); the later ones only E_k and O_k. `first` is a
    // compile-time flag, so the later levels carry no test of where their odd equation lives.
    // The level's bases are read from the layout once per phase, not once per item (the
    // compiler reloaded them from the constant bank in every iteration).
    auto reduce = [&](int k, auto first) {
        const int size = L.size(k), even_out = L.even_base(0, k + 1), odd_out = L.odd_base(0, k + 1);
        const int even_in = L.even_base(0, k), odd_in = L.odd_base(0, k);
        const CrAccess access = first && level0 != CrStaging::all ? CrAccess::global : CrAccess::shared;
        phase(access, L.size(k + 1), [&, size, even_out, odd_out, even_in, odd_in](int g, int beta) {
            const CrEquation<T> lo = even_at(g, even_in, k, beta);
            const CrEquation<T> mid = !first                        ? get(g, odd_in, os, beta)
                                      : level0 == CrStaging::all ? get(g, L.first_odd_base(0), L.first_odd_size, beta)
                                                                  : load(g, 2 * beta + 1);
            const bool has_hi = 2 * beta + 2 < size;
            const CrEquation<T> hi = has_hi ? even_at(g, even_in, k, beta + 1) : lo;
            const CrEquation<T> e = cr_reduce(lo, mid, has_hi ? &hi : nullptr);
            const bool is_even = (beta & 1) == 0;
            put(g, is_even ? even_out : odd_out, is_even ? es : os, beta >> 1, e);
        });
    };
    if (L.levels > 0) reduce(0, std::true_type{});
    for (int k = 1; k < L.levels; ++k) reduce(k, std::false_type{});
    // The last level has one equation.
    phase(L.levels == 0 ? CrAccess::global : CrAccess::shared, 1, [&](int g, int) {
        const T x = even(g, L.levels, 0).v;  // a unit diagonal and no neighbours
        if (L.levels == 0) store(g, 0, x);
        else shared[g * L.line_stride + L.solution_base(L.levels)] = x;
    });
    // Back substitution: X_k[alpha] from X_{k+1}; level 0 goes straight to `store`.
    for (int k = L.levels - 1; k >= 0; --k) {
        const int next = L.solution_base(k + 1), out = L.solution_base(k);
        const int size = L.size(k), even_in = L.even_base(0, k);
        phase(k == 0 ? CrAccess::global : CrAccess::shared, size, [&, next, out, size, even_in](int g, int alpha) {
            T* s = shared + g * L.line_stride;
            T x;
            if ((alpha & 1) == 1) {
                x = s[next + (alpha >> 1)];
            } else {
                const int i = alpha >> 1;
                const T x_lo = i > 0 ? s[next + i - 1] : T(0);
                const T x_hi = alpha + 1 < size ? s[next + i] : T(0);
                x = cr_substitute(even_at(g, even_in, k, i), x_lo, x_hi);
            }
            if (k == 0) store(g, alpha, x);
            else s[out + alpha] = x;
        });
    }
}

}  // namespace adimg
