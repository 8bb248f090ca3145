// adimg: the command-line tool. `adimg COMMAND --help` describes each command.

#include "commands.hpp"
#include "flag_spelling.hpp"

#include <adimg/error.hpp>
#include <adimg/io.hpp>

#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <system_error>
#include <vector>

namespace {

constexpr const char* usage =
    "usage: adimg COMMAND [options]\n"
    "\n"
    "Mixed-precision geometric multigrid for nine-band Q1 finite element systems.\n"
    "\n"
    "commands:\n"
    "  info       mesh and matrix facts of a case (N, h_min, AR_max, entry range)\n"
    "  assemble   write a case's matrix and right-hand side in Matrix Market format\n"
    "  solve      solve a case (multigrid or direct) and print the relative L2 error\n"
    "\n"
    "`adimg COMMAND --help` lists the options of a command; `adimg --version` prints the version.";

/// Why writing the standard output failed (write_failure()). Where errno no longer says (the
/// write that failed came before), a regular file that has reached the file size limit is taken
/// as the reason.
std::string standard_output_failure(int error) {
    struct rlimit limit {};
    struct stat status {};
    if (error == 0 && ::getrlimit(RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY &&
        ::fstat(STDOUT_FILENO, &status) == 0 && S_ISREG(status.st_mode) && static_cast<rlim_t>(status.st_size) >= limit.rlim_cur)
        error = EFBIG;
    return error == 0 ? "" : ": " + adimg::write_failure(error);
}

/// `status`, or 3 if what the command printed could not be written (stdout on a full disk or
/// /dev/full, or past a file size limit): a report that was lost is a failure too.
int checked_standard_output(const std::string& command, int status) {
    std::cout.flush();
    errno = 0;
    if (std::fflush(stdout) == 0 && !std::ferror(stdout) && std::cout.good()) return status;
    const int error = errno;
    std::cerr << "adimg " << command << ": error: writing the standard output failed" << standard_output_failure(error)
              << "\n";
    return 3;
}

}  // namespace

/// The environment the tool runs best in, set before any other code of the program runs (a
/// constructor of the highest priority; glibc passes it argc, argv and envp): unless the user's
/// environment chooses,
/// - the passive OpenMP wait policy, the library's default (include/adimg/solver.hpp): GNU OpenMP
///   reads OMP_WAIT_POLICY (or GOMP_SPINCOUNT) when the program is loaded;
/// - transparent huge pages for malloc's large blocks (GLIBC_TUNABLES=glibc.malloc.hugetlb=1,
///   glibc 2.35 and later; older ones ignore it): the CPU backend writes its levels into fresh
///   memory, and with 2 MiB pages the kernel's first touch of it is about 3x faster
///   (docs/performance.md, "CPU setup: huge pages and first touch").
/// Both are read while the program is loaded, so the tool sets them and starts itself again, once.
/// If that fails (no /proc), the tool goes on as it is.
[[gnu::constructor(101)]] static void restart_with_tuned_environment(int, char** argv, char**) {
    if (!argv) return;
    bool changed = false;
    if (!std::getenv("OMP_WAIT_POLICY") && !std::getenv("GOMP_SPINCOUNT"))
        changed |= setenv("OMP_WAIT_POLICY", "passive", 1) == 0;
    if (!std::getenv("GLIBC_TUNABLES")) changed |= setenv("GLIBC_TUNABLES", "glibc.malloc.hugetlb=1", 1) == 0;
    if (changed) execv("/proc/self/exe", argv);
}

int main(int argc, char** argv) {
    // A write beyond the file size limit (ulimit -f) fails with EFBIG instead of ending the process
    // by SIGXFSZ (status 153): an output file reports it and removes its temporary (exit 3), and
    // so does the standard output redirected to a file (checked_standard_output()).
    std::signal(SIGXFSZ, SIG_IGN);
    if (argc < 2) {  // a usage error: the usage goes to stderr
        std::cerr << usage << "\n";
        return 2;
    }
    if (std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h" || std::string(argv[1]) == "help") {
        std::cout << usage << "\n";
        return 0;
    }
    if (std::string(argv[1]) == "--version") {
        std::cout << "adimg " << ADIMG_VERSION << "\n";
        return checked_standard_output("--version", 0);
    }
    const std::string command = argv[1];
    const std::vector<std::string> args(argv + 2, argv + argc);
    try {
        int status = 2;
        if (command == "info")
            status = adimg::cli::run_info(args);
        else if (command == "assemble")
            status = adimg::cli::run_assemble(args);
        else if (command == "solve")
            status = adimg::cli::run_solve(args);
        else
            std::cerr << "adimg: unknown command '" << command
                      << "'; the commands are info, assemble and solve (adimg --help)\n";
        return checked_standard_output(command, status);
    } catch (const adimg::input_error& e) {  // library messages name SolverOptions fields: shown as flags
        std::cerr << "adimg " << command << ": error: " << adimg::cli::with_flags(e.what()) << "\n";
        return 2;
    } catch (const adimg::write_error& e) {  // a full disk, an I/O error: a resource, not bad input
        std::cerr << "adimg " << command << ": error: " << e.what() << "\n";
        return 3;
    } catch (const adimg::device_error& e) {
        std::cerr << "adimg " << command << ": device error: " << adimg::cli::with_flags(e.what()) << "\n";
        return 3;
    } catch (const std::bad_alloc&) {
        std::cerr << "adimg " << command << ": error: out of host memory; use a lower --level\n";
        return 3;
    } catch (const std::exception& e) {
        std::cerr << "adimg " << command << ": internal error: " << adimg::cli::with_flags(e.what()) << "\n";
        return 4;
    }
}
