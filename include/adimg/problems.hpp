#pragma once
/// \file
/// The built-in test problems: one-dimensional meshes stored as element widths, the
/// tensor-product meshes built from them, the cases U1–U3 and A1–A5 (and case files of your own),
/// the exact Q1 assembly of -Δu = f with its load vector and error measure, and the
/// rediscretized level hierarchy (docs/design.md §1–§3).
///
/// Widths, never coordinates: for A4/A5 at high levels the nodes next to x = 1 are not
/// representable in double (1 - 1e-19 == 1), so coordinates lose the smallest elements entirely.
/// Every quantity adimg needs (element matrices, quadrature points, prolongation weights) is
/// computed from widths and from partial sums measured from the nearer end of the interval.

#include <adimg/nine_bands.hpp>

#include <filesystem>
#include <optional>
#include <istream>
#include <string>
#include <utility>
#include <vector>

namespace adimg {

struct Hierarchy;  // hierarchy.hpp

// --- meshes -------------------------------------------------------------------------------------

/// Where a 1D refinement grades towards a boundary layer.
enum class Layer {
    none,  ///< uniform refinement: every element is split at its midpoint
    low,   ///< the first element (next to 0) is split so that its new first piece has nu/2 of its width
    high,  ///< the last element (next to the length) is split so that its new last piece has nu/2 of its width
};

/// How a 1D mesh is refined from single elements: [0, length] cut into `copies` equal elements,
/// each refined by the rule as if it were the whole interval (a layer at each copy's own end).
struct Mesh1DRule {
    double length = 1.0;  ///< the interval is [0, length]
    double nu = 1.0;      ///< anisotropy factor in (0, 1]; 1 means uniform even with a layer
    Layer layer = Layer::none;
    int copies = 1;  ///< elements of the level-0 mesh (stacked(): a case repeated)
};

/// A 1D mesh: the widths of its elements, left to right.
struct Mesh1D {
    std::vector<double> widths;

    int elements() const { return static_cast<int>(widths.size()); }
    int nodes() const { return elements() + 1; }
    double smallest_width() const;
    double largest_width() const;
};

/// The mesh after `level` refinements of the rule's elements (copies * 2^level elements).
Mesh1D refine(const Mesh1DRule& rule, int level);
/// The rule's mesh with any number of elements (at least `copies`): refine() on the lowest level
/// with that many elements or more, its widths gathered into `elements` equal parts of its
/// element index (each part the sum of the widths it covers, in the proportion covered), so that
/// the grading is the rule's. With copies * 2^L elements it is refine(rule, L).
Mesh1D refine_to(const Mesh1DRule& rule, int elements);

/// The relative position t at which each coarse element is split in the next finer mesh:
/// fine node 2I+1 lies at x_I + t_I (x_{I+1} - x_I). Computed from the fine widths, so it is
/// exact for any nested pair of meshes (t = 1/2 uniformly, nu/2 or 1 - nu/2 in the layers).
/// Throws input_error if `fine` does not have twice the elements of `coarse`.
std::vector<double> split_positions(const Mesh1D& coarse, const Mesh1D& fine);

/// The mesh of every other node of `fine` and its last one (docs/design.md §3): fine elements
/// 2I and 2I+1 merged into coarse element I, the last fine element alone if their number is odd.
Mesh1D coarsened(const Mesh1D& fine);
/// The split positions of coarsened(fine) into `fine`: t_I = h_{2I} / (h_{2I} + h_{2I+1}), and 1
/// for a coarse element that is one fine element (no fine node splits it).
std::vector<double> split_positions(const Mesh1D& fine);

/// A tensor-product mesh: x varies fastest in the node numbering p = j * mx + i.
struct TensorMesh {
    Mesh1D x;
    Mesh1D y;

    int mx() const { return x.nodes(); }
    int my() const { return y.nodes(); }
    long long nodes() const { return static_cast<long long>(mx()) * my(); }
    double smallest_width() const;
    /// The largest element aspect ratio max(hx/hy, hy/hx) over all elements.
    double largest_aspect_ratio() const;
};

// --- cases --------------------------------------------------------------------------------------

/// A test problem -Δu = f on [0, width] x [0, height], with exact solution
/// u0 = x (width - x) y (height - y) and homogeneous Dirichlet boundary.
struct CaseSpec {
    std::string name;
    std::string description;
    Mesh1DRule x;  ///< the rule in x; x.length is the domain width
    Mesh1DRule y;  ///< the rule in y; y.length is the domain height

    /// Elements of the finest mesh in x and y (with_elements(); `elements = NXxNY` in a case
    /// file), 0 for the meshes of the refinement levels.
    int elements_x = 0, elements_y = 0;

    /// The case's mesh on refinement level `level` ((2^level + 1)^2 nodes, or (2^level + 1) x
    /// (copies 2^level + 1) for a stacked case). With element counts, level finest_level() is the
    /// mesh of those counts (refine_to) and each level below it that mesh coarsened once more
    /// (coarsened(), in each direction that still has more than 3 nodes), numbered as a Grid of
    /// its size numbers them. Throws input_error if a stacked case has more than 2^31 - 1 nodes
    /// (32-bit node indices, as a Grid), elements that double cannot resolve, or a level outside
    /// 1..finest_level() with element counts.
    TensorMesh mesh(int level) const;
    /// The nodes of mesh(level), without building it (a double: any level's count fits).
    double nodes(int level) const;
    /// True if the finest mesh is given by its element counts.
    bool has_elements() const { return elements_x > 0; }
    /// With element counts, the level of their mesh (a Grid's finest_level()); 0 without.
    int finest_level() const;
};

/// "1000x600" (or "1000X600") as (1000, 600): two whole numbers in 1..2^30; nothing otherwise.
std::optional<std::pair<int, int>> parse_sizes(const std::string& text);

/// The case on a mesh of nx x ny elements (at least the case's copies in each direction; at most
/// 2^31 - 1 nodes): its widths by refine_to(), every other mesh of the hierarchy coarsened from
/// it. Throws input_error for counts out of range.
CaseSpec with_elements(CaseSpec spec, int nx, int ny);

/// The most copies stacked() takes.
inline constexpr int max_stack = 1024;

/// The case repeated `copies_x` times in x and `copies_y` times in y, for weak scaling: the
/// domain [0, copies_x width] x [0, copies_y height], its level-0 mesh copies_x x copies_y
/// elements, each refined (graded) as the case's one element, every other copy in a direction
/// mirrored (copies meet graded end to graded end, or coarse end to coarse end, never the finest
/// element against the coarsest) and the first turned so that its graded end lies on the
/// domain's edge: with at most two copies a direction every layer stays on the domain's edges;
/// with more, graded ends meet inside it, a harder problem. Level L then has (copies_x 2^L + 1) x
/// (copies_y 2^L + 1) nodes, so that P ranks of the case stacked P times each hold one case's
/// grid, and its multigrid levels coarsen as the case's. The exact solution is u0 on the larger
/// domain. Named "<name>-stack<copies_y>", or "<name>-stack<copies_x>x<copies_y>" where
/// copies_x > 1. Throws input_error if a count is outside 1..max_stack or a side would leave the
/// allowed range.
CaseSpec stacked(CaseSpec spec, int copies_x, int copies_y);
/// The case repeated `copies` times in y: stacked(spec, 1, copies).
inline CaseSpec stacked(CaseSpec spec, int copies) { return stacked(std::move(spec), 1, copies); }

/// Names of the built-in cases, in the paper's order.
std::vector<std::string> builtin_case_names();

/// A built-in case by name (case-insensitive). Throws input_error listing the valid names.
CaseSpec builtin_case(const std::string& name);

/// Reads a case file. Throws input_error naming the file and the key on any problem.
CaseSpec read_case_file(const std::filesystem::path& path);

/// Parses case-file text; `source` names it in error messages.
CaseSpec parse_case(std::istream& in, const std::string& source);

// --- sizes ----------------------------------------------------------------------------------------

/// The finest level a case can take: (2^15 + 1)^2 nodes, the most that 32-bit node indices hold.
inline constexpr int max_level = 15;

/// The memory a setup may fill, and how a message names its owner ("this machine has").
struct MemoryBudget {
    double bytes = 0.0;
    std::string where;
};

/// Physical memory, or less where a cgroup (a container) limits this process.
MemoryBudget host_memory();

/// Throws input_error, before anything is allocated, if `nodes` at `bytes_per_node` need more than
/// 90% of `memory`: "<what> needs about X GiB of memory, but <memory.where> Y GiB; <remedy>".
void check_memory(double nodes, double bytes_per_node, const std::string& what, const MemoryBudget& memory,
                  const std::string& remedy);

/// Throws input_error if `level` is outside 1..max_level or its (2^level + 1)^2 nodes do not fit
/// `memory` (check_memory()); `name` spells the level as the caller's user gives it ("level",
/// "--level") and `what` names the work ("the solve").
void check_level(int level, double bytes_per_node, const std::string& what, const MemoryBudget& memory,
                 const std::string& name = "level");

// --- assembly -----------------------------------------------------------------------------------

/// The stiffness matrix of -Δ with boundary nodes as identity rows and no couplings into them
/// (symmetric, nine-band). Entries are summed over the shared elements in one fixed order, so the
/// matrix is exactly symmetric.
NineBands<double> assemble_stiffness(const TensorMesh& mesh);

/// The problem -Δu = f on [0,a] x [0,b] with exact solution u0 = x(a-x) y(b-y).
struct PolynomialProblem {
    double a = 1.0;
    double b = 1.0;

    /// u0 at a point given by its distances to both ends in each direction (x + xr = a, ...), so
    /// that points within rounding of x = a keep their true distance to it. constexpr, so that device
    /// code may evaluate them too.
    constexpr double u0(double x, double xr, double y, double yr) const { return x * xr * y * yr; }
    constexpr double f(double x, double xr, double y, double yr) const { return 2.0 * y * yr + 2.0 * x * xr; }
};

/// The consistent load vector b_i = ∫ f φ_i by 3x3 Gauss points per element (exact for this f),
/// zero on boundary nodes.
std::vector<double> assemble_load(const TensorMesh& mesh, const PolynomialProblem& problem);
/// The same into `b`, which holds mesh.nodes() values.
void assemble_load(const TensorMesh& mesh, const PolynomialProblem& problem, double* b);

/// ||u_h - u0||_L2 / ||u0||_L2 for the bilinear interpolant u_h of the nodal values `u`, by 3x3
/// Gauss points per element (exact here): the paper's "l2 error" of Tables 1–2.
double relative_l2_error(const TensorMesh& mesh, const PolynomialProblem& problem, const std::vector<double>& u);
/// The same for `u` holding mesh.nodes() values.
double relative_l2_error(const TensorMesh& mesh, const PolynomialProblem& problem, const double* u);

/// Each level the case rediscretized on its own mesh, levels coarse_level..level (coarse_level
/// is capped at level).
Hierarchy rediscretized_hierarchy(const CaseSpec& spec, int level, int coarse_level);

}  // namespace adimg
