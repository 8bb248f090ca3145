#pragma once
/// \file
/// The exceptions adimg throws. Every message names the offending input and what is allowed.

#include <stdexcept>
#include <string>

namespace adimg {

/// Bad user input: an option, a case file, a matrix. The CLI maps it to exit status 2.
class input_error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// A resource limit or a device fault (no GPU, out of memory, line too long for shared memory,
/// failed kernel launch). The CLI maps it to exit status 3.
class device_error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

}  // namespace adimg
