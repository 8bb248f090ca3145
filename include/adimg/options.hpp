#pragma once
/// \file
/// Solver options, and the option table that describes each field once: its names, type,
/// allowed values and help. Validation, the command line, its help and the reports of the CLI
/// all come from the table; the defaults live in SolverOptions alone.

#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace adimg {

/// Multigrid smoothers (paper Sec. 3).
enum class Smoother {
    jacobi,        ///< damped Jacobi, x += omega D^-1 (b - A x)
    gauss_seidel,  ///< four-colour Gauss–Seidel, colours (i%2, j%2), four in-place sweeps
    adi,           ///< ADI-TRIDI: tridiagonal solves along x-lines, then along y-lines
};

/// Arithmetic of the solve.
enum class Precision {
    double_,  ///< everything in double
    single,   ///< everything in float: shows where float alone fails (paper Table 1)
    mixed,    ///< double defect and update around float V-cycles (paper Sec. 2.5)
};

/// How the V-cycle solves on its coarsest grid.
enum class CoarseSolver {
    direct,  ///< exactly: the inverse of the coarsest matrix, computed once at setup (in double)
             ///< and applied as one dense product; coarsest grids of at most
             ///< max_direct_coarse_unknowns only, larger ones use pcg
    pcg,     ///< a fixed number of preconditioned conjugate-gradient iterations (pcg.hpp)
};
/// The largest coarsest grid solved directly: 65 x 65 nodes (its inverse takes 143 MB and about
/// a second to compute; 33 x 33, the default, takes 9.5 MB and 40 ms).
constexpr long long max_direct_coarse_unknowns = 65 * 65;

/// Preconditioner of the coarse-grid conjugate gradients.
enum class CoarsePreconditioner { jacobi, adi };

/// Where the solve runs.
enum class BackendKind {
    automatic,  ///< the GPU when one is present, else the CPU (with a one-line notice)
    cpu,
    cuda,
};

/// The outer iteration in the outer precision around the inner V-cycles (docs/design.md §5).
enum class OuterMethod {
    refinement,  ///< iterative refinement: x += inner(b - A x) (paper Sec. 2.5)
    cg,          ///< flexible conjugate gradients (Notay's FCG(1)) preconditioned by the inner V-cycles
};

/// Which defect the outer stop compares: relative to the initial defect (`digits`), or absolute
/// (`absolute_defect`).
enum class StopRule {
    relative,  ///< ||b - A x|| <= 10^-digits ||b - A x_0||
    absolute,  ///< ||b - A x|| <= absolute_defect
};

/// When the inner (float) multigrid of a mixed solve hands back its correction: after a fixed
/// number of cycles, or once it has gained a number of digits (at most `inner_max_cycles`).
/// The paper's six variants are cycles:1..3 and digits:1..3 (Tables 3–4).
struct InnerStop {
    enum class Kind { cycles, digits } kind = Kind::cycles;
    int count = 1;
};

/// Every setting of a solve; option_table() says what each allows. The defaults (flexible CG
/// around one float V-cycle per step, 3 + 3 smoothing steps, a full multigrid start) were chosen
/// by measurement over the eight built-in cases (docs/performance.md, "Defaults"); the paper's
/// solver is outer = refinement, inner = digits:2, 4 + 4 steps, no full multigrid.
struct SolverOptions {
    BackendKind backend = BackendKind::automatic;
    Precision precision = Precision::mixed;
    OuterMethod outer = OuterMethod::cg;  ///< the outer iteration around the V-cycles
    Smoother smoother = Smoother::adi;
    double omega = 0.7;       ///< Jacobi damping
    double line_omega = 0.7;  ///< ADI line-sweep damping (see relax() in stencil.hpp)
    int pre_smooth = 3;       ///< pre-smoothing steps; one ADI application counts as two
    int post_smooth = 3;      ///< post-smoothing steps; one ADI application counts as two
    int coarse_level = 5;     ///< refinement level of the coarsest grid (5: 33x33 nodes, 1: 3x3)
    CoarseSolver coarse_solver = CoarseSolver::direct;
    CoarsePreconditioner coarse_preconditioner = CoarsePreconditioner::jacobi;  ///< of pcg
    int coarse_iterations = 64;  ///< PCG iterations on the coarsest grid, at most (and at most its unknowns)
    InnerStop inner;             ///< inner stopping rule of the mixed solver
    bool full_multigrid = true;  ///< the first inner cycle of a solve is full multigrid, not a V-cycle from zero
    int inner_max_cycles = 32;   ///< cap on inner cycles per outer step in digits mode
    StopRule stop = StopRule::relative;  ///< which defect the outer stop compares
    double digits = 8.0;         ///< stop = relative: stop once the defect has dropped by this many digits
    double absolute_defect = 1e-10;  ///< stop = absolute: stop once ||b - A x|| is at most this
    int max_iterations = 500;    ///< outer iterations before giving up
    int stall_steps = 5;         ///< outer steps without 1% progress that count as stagnation
    double divergence_factor = 1e6;  ///< a defect this many times the initial one is divergence
    bool fallback_to_double = true;  ///< when the float inner solve stalls, continue with double
};

/// How an option's value reads as text. The order is that of OptionSpec::Field's alternatives.
enum class OptionType {
    choice,      ///< an enum, by name: "adi"
    integer,     ///< a whole number: "4"
    real,        ///< a number: "0.7"
    inner_stop,  ///< "cycles:N" or "digits:N"
    boolean,     ///< "true" or "false"
};

/// The numbers an option allows: min to max, each end included unless it is open.
struct Range {
    double min = 0.0, max = 0.0;
    bool min_open = false, max_open = false;
};

/// One field of SolverOptions in the option table: its names, its type, the values it allows,
/// a line of help, and its value as text. Its default is that of a default-constructed
/// SolverOptions. Messages of the library name a field as `SolverOptions::pre_smooth`, a value
/// as `SolverOptions::smoother = adi` and turning a boolean on or off as
/// `set SolverOptions::fallback_to_double = true`, so that a front end can respell them.
struct OptionSpec {
    /// An enum field, reached as the index of its value's name in `choices`.
    struct EnumField {
        int (*get)(const SolverOptions&);
        void (*set)(SolverOptions&, int);
    };
    using Field = std::variant<EnumField, int SolverOptions::*, double SolverOptions::*, InnerStop SolverOptions::*,
                               bool SolverOptions::*>;

    const char* field;  ///< the member of SolverOptions: "pre_smooth"
    const char* flag;   ///< the command-line option, without its dashes: "pre-smooth"
    Field member;       ///< how get() and set() reach the field; its alternative is type()
    /// choice: the names in the order of the enum's values; inner_stop: the kinds, in the order of
    /// InnerStop::Kind.
    std::vector<std::string> choices = {};
    /// integer, real: the one range; inner_stop: the count's range, one per kind.
    std::vector<Range> ranges = {};
    bool switch_sets = false;  ///< boolean: the value that the command-line switch gives the field
    const char* help = "";     ///< one line: what the option sets

    OptionType type() const { return static_cast<OptionType>(member.index()); }
    std::string reference() const { return std::string("SolverOptions::") + field; }
    /// "one of jacobi, gauss-seidel, adi", "0..64", "(0, 1]", "cycles:1..32 or digits:1..6", "true or false".
    std::string allowed() const;
    /// The field's value as text that set() reads back exactly.
    std::string get(const SolverOptions& options) const;
    /// Parses `text` and sets the field. Throws input_error naming the field and what it allows.
    void set(SolverOptions& options, const std::string& text) const;
    std::string default_text() const { return get(SolverOptions{}); }
};

/// Every field of SolverOptions, in the order of the struct.
const std::vector<OptionSpec>& option_table();
/// The entry of `field` ("pre_smooth"), or nullptr.
const OptionSpec* find_option(const std::string& field);

/// Throws input_error naming the first field that is out of range and what it allows.
void validate(const SolverOptions& options);

/// Throws input_error naming both options when a field that the user set (named in `given`, e.g.
/// {"omega", "smoother"}) has no effect with the other options, or asks for what they rule out:
/// `omega` without the Jacobi smoother, `digits` with the absolute stop, `outer = cg` in single
/// precision, `coarse_iterations` with the direct coarse solve of a coarsest grid small enough for
/// it, and the like. The message says what to drop or change. Every front end calls it with the
/// fields its user gave and, where it knows the problem, the nodes of the coarsest grid that the
/// solve will have (a case's mesh on its coarse level, coarsest_level() of a matrix's grid);
/// without them, that of a square case on coarse_level, (2^coarse_level + 1)^2.
void check_given_options(const SolverOptions& options, const std::vector<std::string>& given,
                         std::optional<long long> coarsest_nodes = std::nullopt);

/// The options as a solve runs them, decided here once (Solver and DistributedSolver keep them, the
/// engine takes them as they are, front ends print and report them): with one precision
/// throughout, one V-cycle per outer step (inner = cycles:1); single precision always refines
/// (outer = refinement), whose float defect stalls at float's resolution where CG's float
/// recurrences would overflow or lose their directions (the paper's Table 1).
SolverOptions effective_options(SolverOptions options);

// The names of the option table, for programs that take one value at a time. Each parse_*
// throws input_error naming the field and the allowed names.
InnerStop parse_inner_stop(const std::string& text);  ///< "cycles:2" or "digits:3"
Smoother parse_smoother(const std::string& text);
Precision parse_precision(const std::string& text);
OuterMethod parse_outer(const std::string& text);
StopRule parse_stop(const std::string& text);
CoarseSolver parse_coarse_solver(const std::string& text);
BackendKind parse_backend(const std::string& text);
std::string to_string(const InnerStop& inner);
std::string to_string(Smoother s);
std::string to_string(Precision p);
std::string to_string(OuterMethod m);
std::string to_string(StopRule r);
std::string to_string(CoarseSolver s);
std::string to_string(BackendKind b);

}  // namespace adimg
