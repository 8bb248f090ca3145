// The V-cycle as a preconditioner: with the post-smoother the adjoint of the pre-smoother, the
// restriction the transpose of the prolongation and the exact coarse solve, one cycle from zero
// is a symmetric linear operator M (docs/design.md §4), so a user's own CG may use it.

#include <adimg/problems.hpp>
#include <adimg/solver.hpp>

#include <cpu/cpu_backend.hpp>
#include <problems/mesh_hierarchy.hpp>
#include <solver/multigrid.hpp>

#include <Eigen/Core>
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <string>

using namespace adimg;

namespace {

/// One double V-cycle from zero on case `name` at `level`: z = M r.
class CyclePreconditioner {
public:
    CyclePreconditioner(const std::string& name, int level, const SolverOptions& options)
        : meshes_(mesh_hierarchy(builtin_case(name), level, options.coarse_level)), mg_(be_, meshes_, options) {}
    Eigen::VectorXd operator()(const Eigen::VectorXd& r) {
        mg_.rhs().assign(r.data(), r.data() + r.size());
        be_.fill(mg_.solution(), 0.0);
        mg_.cycle();
        return Eigen::Map<const Eigen::VectorXd>(mg_.solution().data(), r.size());
    }
    const MeshHierarchy& meshes() const { return meshes_; }

private:
    MeshHierarchy meshes_;
    CpuBackend be_;
    Multigrid<CpuBackend, double> mg_;
};

Eigen::VectorXd random_vector(std::size_t n, unsigned seed) {
    std::mt19937 generator(seed);
    std::uniform_real_distribution<double> uniform(-1.0, 1.0);
    Eigen::VectorXd v(n);
    for (auto& value : v) value = uniform(generator);
    return v;
}

SolverOptions smoother_options(Smoother smoother) {
    SolverOptions options;
    options.backend = BackendKind::cpu;
    options.precision = Precision::double_;
    options.smoother = smoother;
    return options;
}

}  // namespace

TEST_CASE("one V-cycle from zero is a symmetric operator in double", "[preconditioner]") {
    for (Smoother smoother : {Smoother::adi, Smoother::gauss_seidel, Smoother::jacobi})
        for (const char* name : {"U1", "A2", "A5"}) {
            CAPTURE(to_string(smoother), name);
            CyclePreconditioner M(name, 9, smoother_options(smoother));
            const std::size_t n = M.meshes().finest().mesh.nodes();
            const Eigen::VectorXd u = random_vector(n, 1), v = random_vector(n, 2);
            const double vMu = v.dot(M(u)), uMv = u.dot(M(v));
            CHECK(std::abs(vMu - uMv) <= 1e-12 * std::abs(vMu));
        }
}

TEST_CASE("a cycle with unequal pre- and post-smoothing is not symmetric", "[preconditioner]") {
    // The check above can fail: with fewer post- than pre-smoothing steps the cycle is not symmetric.
    SolverOptions options = smoother_options(Smoother::adi);
    options.post_smooth = 2;
    CyclePreconditioner M("A2", 7, options);
    const std::size_t n = M.meshes().finest().mesh.nodes();
    const Eigen::VectorXd u = random_vector(n, 1), v = random_vector(n, 2);
    const double vMu = v.dot(M(u)), uMv = u.dot(M(v));
    CHECK(std::abs(vMu - uMv) > 1e-6 * std::abs(vMu));
}

TEST_CASE("a user's own CG with the cycle needs no more iterations than the built-in solve needs cycles", "[preconditioner]") {
    for (const char* name : {"U1", "A2", "A5"}) {
        CAPTURE(name);
        const int level = 9;
        const CaseSpec spec = builtin_case(name);
        const TensorMesh mesh = spec.mesh(level);
        const NineBands<double> A = assemble_stiffness(mesh);
        const std::vector<double> load = assemble_load(mesh, PolynomialProblem{spec.x.length, spec.y.length});
        CpuBackend be;
        auto times_A = [&](const Eigen::VectorXd& x) {
            std::vector<double> in(x.data(), x.data() + x.size()), out(in.size());
            be.multiply(A, in, out);
            return Eigen::VectorXd(Eigen::Map<const Eigen::VectorXd>(out.data(), out.size()));
        };
        CyclePreconditioner M(name, level, smoother_options(Smoother::adi));
        // Textbook preconditioned CG from x = 0 to 8 digits of defect reduction.
        const Eigen::VectorXd b = Eigen::Map<const Eigen::VectorXd>(load.data(), load.size());
        Eigen::VectorXd x = Eigen::VectorXd::Zero(b.size()), r = b, z = M(r), p = z;
        double rz = r.dot(z);
        int iterations = 0;
        while (r.norm() > 1e-8 * b.norm() && iterations < 100) {
            const Eigen::VectorXd q = times_A(p);
            const double alpha = rz / p.dot(q);
            x += alpha * p;
            r -= alpha * q;
            z = M(r);
            const double rz_next = r.dot(z);
            p = z + (rz_next / rz) * p;
            rz = rz_next;
            ++iterations;
        }
        CHECK((times_A(x) - b).norm() <= 1.01e-8 * b.norm());

        SolverOptions options;
        options.backend = BackendKind::cpu;
        Solver solver(options);
        solver.setup(builtin_case(name), level);
        std::vector<double> solution;
        const SolveReport report = solver.solve(load, solution);
        REQUIRE(report.ok());
        INFO("user CG " << iterations << " iterations, built-in solve " << report.iterations());
        CHECK(iterations <= report.inner_cycles);
    }
}
