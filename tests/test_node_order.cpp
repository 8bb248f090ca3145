// Node order of a user's sparse matrix: adimg numbers nodes x-fastest (p = j*mx + i); a matrix
// numbered y-fastest (p = i*my + j, scikit-fem's MeshQuad.init_tensor) is refused with a message
// that says so and how to renumber, and fits_grid() tells the two apart without throwing.

#include <adimg/error.hpp>
#include <adimg/grid.hpp>
#include <adimg/io.hpp>

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace adimg;

namespace {

/// The nine-point stencil 8/3, -1/3 on the interior nodes of an mx x my grid, edge rows identity,
/// with node (i, j) numbered number(i, j).
template <class Number>
Eigen::SparseMatrix<double> nine_point(int mx, int my, Number number) {
    std::vector<Eigen::Triplet<double>> entries;
    for (int j = 0; j < my; ++j)
        for (int i = 0; i < mx; ++i) {
            const bool edge = i == 0 || j == 0 || i == mx - 1 || j == my - 1;
            entries.emplace_back(number(i, j), number(i, j), edge ? 1.0 : 8.0 / 3.0);
            if (edge) continue;
            for (int dy = -1; dy <= 1; ++dy)
                for (int dx = -1; dx <= 1; ++dx) {
                    const int qi = i + dx, qj = j + dy;
                    if ((dx || dy) && qi > 0 && qj > 0 && qi < mx - 1 && qj < my - 1)
                        entries.emplace_back(number(i, j), number(qi, qj), -1.0 / 3.0);
                }
        }
    Eigen::SparseMatrix<double> S(mx * my, mx * my);
    S.setFromTriplets(entries.begin(), entries.end());
    return S;
}

std::string message_of(const Eigen::SparseMatrix<double>& S, int mx, int my) {
    try {
        GridMatrix::from_eigen(Grid(mx, my), S);
    } catch (const input_error& e) {
        return e.what();
    }
    FAIL("from_eigen took a matrix in the wrong node order");
    return "";
}

}  // namespace

TEST_CASE("a y-fastest matrix is refused with how to renumber it", "[grid_matrix][node_order]") {
    const int mx = 9, my = 17;
    const auto x_fastest = nine_point(mx, my, [&](int i, int j) { return j * mx + i; });
    const auto y_fastest = nine_point(mx, my, [&](int i, int j) { return i * my + j; });

    CHECK(fits_grid(x_fastest, mx, my));
    CHECK_FALSE(fits_grid(y_fastest, mx, my));
    CHECK(fits_grid(y_fastest, my, mx));  // y-fastest on mx x my is x-fastest on my x mx
    CHECK_FALSE(fits_grid(x_fastest, mx, mx));  // the wrong size

    const std::string message = message_of(y_fastest, mx, my);
    INFO(message);
    CHECK(message.find("not a neighbour on the 9x17 grid") != std::string::npos);
    CHECK(message.find("adimg numbers the nodes x-fastest: node (i, j) is row p = j*mx + i") != std::string::npos);
    CHECK(message.find("fits y-fastest numbering (p = i*my + j") != std::string::npos);
    CHECK(message.find("17x9 nodes") != std::string::npos);

    // The renumbering the message proposes: the my x mx grid takes the matrix as it is.
    CHECK(GridMatrix::from_eigen(Grid(my, mx), y_fastest).grid().mx() == my);
}

TEST_CASE("a matrix that fits neither numbering says so", "[grid_matrix][node_order]") {
    const int mx = 9, my = 17;
    // Within each grid row, node i is numbered 5 i mod mx: neighbours in x end up apart.
    const auto scrambled = nine_point(mx, my, [&](int i, int j) { return j * mx + (5 * i) % mx; });
    const std::string message = message_of(scrambled, mx, my);
    INFO(message);
    CHECK(message.find("not a neighbour") != std::string::npos);
    CHECK(message.find("does not fit y-fastest numbering (p = i*my + j) either") != std::string::npos);
}
