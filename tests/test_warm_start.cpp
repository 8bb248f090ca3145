// Filled in by the reliability work of issue 40.
#include <catch2/catch.hpp>
